"""The markup of the classroom sources, and the student edition of a notebook (private).

The exercises are written once, in the book's own sources, with nbgrader's
markup (https://nbgrader.readthedocs.io), so that the instructor edition is
also an nbgrader ``source/`` notebook:

* an **answer cell** has ``metadata.nbgrader = {"solution": true, "grade":
  false, "grade_id": ...}`` and its solution between ``### BEGIN SOLUTION``
  and ``### END SOLUTION`` (replaced by ``raise NotImplementedError()`` in
  the student edition);
* a **graded cell** has ``metadata.nbgrader = {"grade": true, "solution":
  false, "locked": true, "grade_id": ..., "points": ...}``: public checks a
  student may run, and the hidden tests between ``### BEGIN HIDDEN TESTS``
  and ``### END HIDDEN TESTS``. Its ``metadata.lupikit`` names the variables
  that hold the answer (``"answers"``), says what the tests check
  (``"checks"``), how long the exercise takes (``"minutes"``) and,
  optionally, names the answer must not use (``"forbidden"``: the student
  edition says so above the answer, and the grader flags a use);
* a **written exercise** is a sphinx-exercise ``{exercise}`` with its
  ``{solution}`` (Markdown pages and Markdown cells alike); its rubric is the
  last paragraph of the solution, starting with ``**Rubric**``.

The student edition drops every solution, hidden test, mark scheme and
``{solution}`` block, and every output; only making it loads nbgrader. This
module imports no part of the library.
"""

import copy
import keyword
import re

import nbformat

from ._notebooks import EXERCISE_PREFIX, is_exercise_notebook, nbgrader_of

__all__ = [
    "EXERCISE_PREFIX",
    "MARKERS",
    "HIDDEN_NOTE",
    "Question",
    "hide_hidden_tests",
    "is_exercise_notebook",
    "read_questions",
    "set_parameter",
    "strip_solution_blocks",
    "student_notebook",
]

#: text that must never reach the student edition
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS",
           "BEGIN MARK SCHEME", "END MARK SCHEME")
_GRADED_NOTE = "# Hidden tests check this answer when your notebook is graded."
#: what a reader of the public book sees in place of the hidden tests (:func:`hide_hidden_tests`)
HIDDEN_NOTE = "(hidden tests: in the instructor edition only)"
_HIDDEN = re.compile(rf"^([ \t]*)### {MARKERS[2]}[ \t]*\n.*?^[ \t]*### {MARKERS[3]}[ \t]*$", re.M | re.S)
_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(?P<name>solution(?:-start)?)\}")
_END_START = re.compile(r"^\s*(`{3,}|:{3,})\{solution-end\}")


def hide_hidden_tests(source, note=HIDDEN_NOTE):
    """``source`` with each hidden-test region replaced by one comment ``# note`` at its indentation.

    Examples
    --------
    >>> print(hide_hidden_tests("check(x)\\n### BEGIN HIDDEN TESTS\\nassert x == 3\\n### END HIDDEN TESTS"))
    check(x)
    # (hidden tests: in the instructor edition only)
    """
    return _HIDDEN.sub(lambda m: f"{m.group(1)}# {note}", source)


class Question:
    """One graded code question of an exercise notebook.

    Attributes
    ----------
    notebook : str
        The notebook's short name (``"<part>/exercises"``).
    grade_id : str
        nbgrader's id of the graded cell, unique in the notebook.
    points : float
        What the question is worth.
    answers : tuple of str
        The variables that hold the student's answer.
    checks : str
        What the hidden tests check (for the instructor's page).
    minutes : int or None
        The time a student needs, as the author estimates it.
    partial : bool
        Partial credit: each test of the graded cell (each of its top-level
        statements that is not an import, a definition or an assignment)
        earns its share of the points (``metadata.lupikit.partial``);
        otherwise all or nothing.
    """

    __slots__ = ("notebook", "grade_id", "points", "answers", "checks", "minutes", "partial")

    def __init__(self, notebook, grade_id, points, answers, checks="", minutes=None, partial=False):
        self.notebook, self.grade_id, self.points = notebook, grade_id, float(points)
        self.answers, self.checks, self.minutes = tuple(answers), checks, minutes
        self.partial = bool(partial)

    @property
    def column(self):
        """The column of the question in the scores: ``<notebook>:<grade_id>``."""
        return f"{self.notebook}:{self.grade_id}"

    def __repr__(self):
        return f"Question({self.column!r}, points={self.points:g}, answers={list(self.answers)})"


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def read_questions(nb, notebook):
    """The graded code questions of a notebook, in order.

    Parameters
    ----------
    nb : dict or nbformat.NotebookNode
        The source notebook.
    notebook : str
        Its short name, for the questions' columns and the error messages.

    Raises
    ------
    ValueError
        A graded cell without an id, points or answers, or an id used twice.
    """
    questions, seen = [], set()
    for k, cell in enumerate(nb["cells"]):
        meta = cell.get("metadata", {})
        grader = meta.get("nbgrader") or {}
        if not grader.get("grade") or cell.get("cell_type") != "code":
            continue
        grade_id = grader.get("grade_id")
        where = f"{notebook}, cell {k + 1}"
        if not grade_id:
            raise ValueError(f"{where}: a graded cell needs metadata.nbgrader.grade_id.")
        if grade_id in seen:
            raise ValueError(f"{where}: grade_id {grade_id!r} is used twice.")
        seen.add(grade_id)
        points = grader.get("points")
        if not isinstance(points, (int, float)) or isinstance(points, bool) or points <= 0:
            raise ValueError(f"{where}: graded cell {grade_id!r} needs points > 0, got {points!r}.")
        info = meta.get("lupikit") or {}
        answers = info.get("answers")
        if (not isinstance(answers, list) or not answers
                or not all(isinstance(a, str) and a.isidentifier() and not keyword.iskeyword(a)
                           for a in answers)):
            raise ValueError(f"{where}: graded cell {grade_id!r} needs metadata.lupikit.answers, "
                             f"a list of the variable names that hold the answer; got {answers!r}.")
        questions.append(Question(notebook, grade_id, points, answers, info.get("checks", ""),
                                  info.get("minutes"), bool(info.get("partial", False))))
    return questions


def strip_solution_blocks(text):
    """Remove every sphinx-exercise ``{solution}`` block from MyST text.

    Handles backtick and colon fences of any length (a block ends at a fence
    of the same character at least as long, alone on its line) and the gated
    ``{solution-start}`` ... ``{solution-end}`` form.

    Examples
    --------
    >>> text = "a\\n```{solution} ex1\\n:class: dropdown\\n\\nsecret\\n```\\nb\\n"
    >>> strip_solution_blocks(text)
    'a\\nb\\n'
    """
    lines = text.splitlines(keepends=True)
    out, k = [], 0
    while k < len(lines):
        m = _OPEN.match(lines[k])
        if not m:
            out.append(lines[k])
            k += 1
            continue
        fence = m.group("fence")
        close = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        k += 1
        if m.group("name") == "solution-start":
            # everything up to and including the {solution-end} directive
            while k < len(lines) and not _END_START.match(lines[k]):
                k += 1
            # the {solution-end} block itself (usually one line and its closing fence)
            if k < len(lines):
                end_fence = _END_START.match(lines[k]).group(1)
                end_close = re.compile(r"^\s*" + re.escape(end_fence[0]) + "{" + str(len(end_fence)) + r",}\s*$")
                k += 1
                while k < len(lines) and not end_close.match(lines[k]):
                    k += 1
                k += 1
            continue
        while k < len(lines) and not close.match(lines[k]):
            k += 1
        k += 1  # the closing fence
    return "".join(out)


def set_parameter(nb, name, value, comment):
    """Set a parameter's default in the cell tagged ``parameters`` (in place).

    The line ``name: type = ...  # ...`` becomes ``name: type = value  # comment``.

    Raises
    ------
    ValueError
        The notebook has no parameters cell or the cell does not declare ``name``.
    """
    line = re.compile(r"^(?P<head>" + re.escape(name) + r"\s*(?::\s*[A-Za-z_][\w\[\], .]*)?\s*=)\s*[^#\n]*(#.*)?$",
                      re.M)
    for cell in nb["cells"]:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            src = _source(cell)
            if not line.search(src):
                break
            cell["source"] = line.sub(lambda m: f"{m.group('head')} {value!r}  # {comment}", src, count=1)
            return nb
    raise ValueError(f"the notebook's parameters cell does not declare {name!r}.")


def _nbgrader_preprocessors():
    # nbgrader's own preprocessors: the student edition is what `nbgrader generate_assignment` makes;
    # imported here, so that reading the markup (the book's pages, the grader) does not load nbgrader
    from nbgrader.preprocessors import ClearHiddenTests, ClearMarkScheme, ClearOutput, ClearSolutions, LockCells

    return [ClearSolutions(), ClearHiddenTests(), ClearMarkScheme(), ClearOutput(), LockCells()]


def student_notebook(nb, *, variant=None, header=None):
    """The student edition of a notebook (a new notebook; ``nb`` is not changed).

    Solutions become nbgrader's stub, hidden tests and mark schemes are
    removed by nbgrader's preprocessors, every ``{solution}`` block goes from
    the Markdown cells, outputs are cleared and a graded cell left without
    public checks says that hidden tests grade it. ``variant`` (if given) is
    set in the parameters cell; ``header`` (Markdown) is put first.

    Raises
    ------
    ValueError
        A solution marker is left (a region outside a cell marked as a
        solution or graded cell, or an unclosed one).
    """
    nb = nbformat.from_dict(copy.deepcopy(dict(nb)))
    resources = {}
    try:
        for pre in _nbgrader_preprocessors():
            nb, resources = pre.preprocess(nb, resources)
    except RuntimeError as exc:
        raise ValueError(f"nbgrader could not make the student edition: {exc}") from exc
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = strip_solution_blocks(cell.source)
        tags = cell.get("metadata", {}).get("tags")
        if tags and nbgrader_of(cell).get("solution"):
            # a stub shown in full: the book hides the solution's code, not the student's
            cell.metadata["tags"] = [t for t in tags if t not in ("hide-input", "remove-input", "remove-cell")]
        if nbgrader_of(cell).get("grade") and cell.cell_type == "code" and not cell.source.strip():
            cell.source = _GRADED_NOTE
    answer_cells = []
    for cell in nb.cells:  # an answer whose question forbids names says so at its top
        grader = nbgrader_of(cell)
        if cell.cell_type != "code":
            continue
        if grader.get("solution"):
            answer_cells.append(cell)
        elif grader.get("grade"):
            names = (cell.get("metadata", {}).get("lupikit") or {}).get("forbidden")
            for answer in answer_cells if names else []:
                answer.source = (f"# not to be used here: {', '.join(names)} (a use is flagged)\n"
                                 + answer.source)
            answer_cells = []
    if variant is not None:
        set_parameter(nb, "variant", int(variant),
                      "your variant of the exercises: do not change it (the grader uses the one of your id)")
    if header:
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(header))
    for k, cell in enumerate(nb.cells):
        for marker in MARKERS:
            if marker in cell.source:
                raise ValueError(f"the student edition's cell {k + 1} still holds {marker!r}: "
                                 "is the region in a cell marked as a solution or graded cell?")
    return nb
