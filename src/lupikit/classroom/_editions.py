"""The student and instructor editions, written from the book's one source (private)."""

import csv
import html
import json
import re
import shutil
import time
from pathlib import Path

import nbformat

from ._markup import MARKERS, is_exercise_notebook, read_questions, strip_solution_blocks, student_notebook
from ._marks import keep_written_marks, written_marks_template
from ._notebooks import nbgrader_of
from ._pack import RUN_CHECKS
from ._roster import read_roster
from ._variants import variant_for
from ._written import written_exercises

__all__ = ["Editions", "build_editions", "solution_texts", "find_leaks"]

_STUDENT_HEADER = ("**Student edition** of the lupikit exercises{who}. Write your answers where a cell "
                   "says `# YOUR CODE HERE` (delete the `raise NotImplementedError()` line), run the "
                   "checks below each answer, and hand in this notebook under its name. Do not change "
                   "the `variant` parameter: your data are made from it, and the grader uses the one "
                   "of your id.")


_STUDENT_README = """# lupikit exercises: student edition

The exercise notebooks are {where}; the chapters' notebooks are beside them,
without the solutions of their written exercises. In each exercise notebook,
write your answer where a cell says `# YOUR CODE HERE` and run the check cell
below it. `python run_checks.py <notebook>` runs a whole notebook and reports
every check cell. The hidden tests that grade your answers use your variant of
the data: keep the `variant` the notebook was handed out with.
"""

_INSTRUCTOR_README = """# lupikit exercises: instructor edition

* `<part>/exercises.ipynb`: the solution notebooks (nbgrader source notebooks:
  solutions, public checks and hidden tests); the chapters beside them.
* `tests/`: the graded cells of each notebook, for reading.
* `parts/<part>.md`: prerequisites, minutes, points and what each hidden test checks.
* `rubrics.md`: the written exercises with their solutions and rubrics.
* `written-marks.csv`: a template for their marks (the rubrics' points in the row `max`); fill it and
  merge it into the grades with `lupikit classroom marks scores.csv written-marks.csv`.
* `variants.csv` (with a roster): each student's variant.

* `edition.json`: the seed these editions were built with ({seed}), the roster and the questions.

Grade from any folder with `lupikit classroom grade SUBMISSIONS --instructor <this folder> --out scores.csv`:
the notebooks, the seed and the roster are read from here. `--students ID ...` regrades some
students and keeps every other row of `scores.csv`; each run adds a line to `scores-log.jsonl`.
"""


class Editions(dict):
    """What :func:`build_editions` wrote: ``student``, ``instructor``, ``notebooks``, ``questions``, ``seconds``.

    ``marks_kept`` is None on a first build; on a rebuild over a
    ``written-marks.csv``, ``{"added": [...], "removed": [...]}``: the
    students added to it, and those no longer on the roster whose rows (and
    marks) were kept at its end.
    """


def _short(path, root):
    return path.relative_to(root).with_suffix("").as_posix()


def _markdown_pages(book_dir):
    return sorted(p for p in Path(book_dir).rglob("*.md") if "_generated" not in p.parts) if book_dir else []


def _notebook_markdown(nb):
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def _code_regions(source):
    """The lines between the solution, hidden-test and mark-scheme markers of one cell."""
    out, inside = [], False
    for line in source.splitlines():
        if any(m.startswith("BEGIN") and m in line for m in MARKERS):
            inside = True
        elif any(m.startswith("END") and m in line for m in MARKERS):
            inside = False
        elif inside:
            out.append(line)
    return out


def solution_texts(notebooks, pages=(), min_length=24):
    """Every line of the solutions of the instructor's sources, long enough to be telling.

    From the notebooks: the solution, hidden-test and mark-scheme regions and
    the ``{solution}`` blocks of Markdown cells; from the Markdown pages: the
    ``{solution}`` blocks. Lines are stripped of surrounding whitespace and
    kept when at least ``min_length`` characters long and not also present,
    blanks aside, anywhere outside the solutions (a line that a statement or
    a chapter also says is no leak), and when not an import statement.
    """
    secret, public = set(), set()
    texts = [(nbformat.read(p, as_version=4), None) for p in notebooks] + [(None, Path(p)) for p in pages]
    for nb, page in texts:
        if nb is not None:
            for cell in nb.cells:
                secret.update(_code_regions(cell.source))
                if cell.cell_type == "markdown":
                    kept = strip_solution_blocks(cell.source)
                    public.update(kept.splitlines())
                    secret.update(set(cell.source.splitlines()) - set(kept.splitlines()))
                else:
                    public.update(set(cell.source.splitlines()) - set(_code_regions(cell.source)))
        else:
            text = page.read_text(encoding="utf-8")
            kept = strip_solution_blocks(text)
            public.update(kept.splitlines())
            secret.update(set(text.splitlines()) - set(kept.splitlines()))
    # a solution line that the public text also holds (the statement, a chapter) is no leak,
    # nor is an import (the library's own documentation shows them)
    blob = _squash("\n".join(public))
    return sorted({line.strip() for line in secret
                   if len(line.strip()) >= min_length and _squash(line) not in blob
                   and not _IMPORT.match(line.strip())})


_IMPORT = re.compile(r"(from\s+[\w.]+\s+)?import\s")


def _squash(text):
    return re.sub(r"\s+", "", text)


def find_leaks(texts, files):
    """``[(file, line)]``: each solution line of ``texts`` found in one of ``files``.

    Notebooks are compared on their cells' sources and outputs, HTML pages on
    their text with the tags removed and the entities decoded (so code that a
    highlighter split into tokens is found too), other files on their text;
    all with every blank removed, so that no line break or indentation hides
    a line.
    """
    squashed = [(t, _squash(t)) for t in texts]
    leaks = []
    for f in map(Path, files):
        if f.suffix == ".ipynb":
            nb = json.loads(f.read_text(encoding="utf-8"))
            body = "\n".join("".join(c.get("source", "")) + "\n" + json.dumps(c.get("outputs", []))
                             for c in nb.get("cells", []))
        elif f.suffix in (".html", ".htm"):
            body = html.unescape(re.sub(r"<[^>]+>", "", f.read_text(encoding="utf-8", errors="replace")))
        else:
            body = f.read_text(encoding="utf-8", errors="replace")
        flat = _squash(body)
        leaks.extend((f, t) for t, q in squashed if q and q in flat)
    return leaks


def _instructor_page(part, questions, written, meta):
    lines = [f"# {part}: the exercises, for the instructor", ""]
    prereq = sorted({p for m in meta.values() for p in m.get("prerequisites", [])})
    if prereq:
        lines += ["**Prerequisites** (chapters of the book to read first): " + ", ".join(prereq), ""]
    if questions:
        total_min = sum(q.minutes or 0 for q in questions)
        lines += [f"## Computational exercises ({len(questions)}, about {total_min} minutes)", "",
                  "| notebook | question | points | minutes | what the hidden tests check |",
                  "|---|---|---|---|---|"]
        for q in questions:
            lines.append(f"| `{q.notebook}` | `{q.grade_id}` | {q.points:g} | {q.minutes or ''} | "
                         f"{q.checks.replace('|', '/')} |")
        lines.append("")
    if written:
        lines += [f"## Written exercises ({len(written)})", "",
                  "| exercise | where | rubric |", "|---|---|---|"]
        for ex in written:
            rubric = " ".join(ex["rubric"].split()).replace("|", "/") or "(none)"
            name = f"{ex['label']}: {ex['title']}" if ex["title"] else ex["label"]
            lines.append(f"| {name} | {ex['where']} | {rubric} |")
        lines.append("")
    return "\n".join(lines)


def _rubrics_page(written):
    lines = ["# Written exercises: statements, solutions and rubrics", ""]
    for ex in written:
        name = f"{ex['label']}: {ex['title']}" if ex["title"] else ex["label"]
        lines += [f"## {name}", "", f"*From {ex['where']}.*", "", "**Exercise.**", "",
                  ex["statement"], "", "**Solution.**", "", ex["solution"] or "(no solution)", ""]
    return "\n".join(lines)


def _hidden_tests(nb, short):
    lines = [f'"""The graded cells of {short} (public checks and hidden tests), for reading."""', ""]
    for cell in nb.cells:
        grader = nbgrader_of(cell)
        if cell.cell_type == "code" and grader.get("grade"):
            info = cell.metadata.get("lupikit") or {}
            lines += [f"# --- {grader.get('grade_id')} ({grader.get('points')} points): answers "
                      f"{', '.join(info.get('answers', []))}", cell.source, ""]
    return "\n".join(lines)


def _clear_outputs(nb):
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def _in_part(exercises, rel):
    """The written ``exercises`` of the file ``rel`` (``<part>/...``), each with its ``part``."""
    return [{**ex, "part": rel.split("/")[0]} for ex in exercises]


def build_editions(notebooks_dir, out, *, book_dir=None, seed=0, roster=None, id_column=None):
    """Write ``out/student/`` and ``out/instructor/`` from the book's sources.

    Parameters
    ----------
    notebooks_dir : path
        The book's ``notebooks/``: chapter notebooks and exercise notebooks
        (``<part>/exercises*.ipynb``).
    out : path
        The output folder (its ``student/`` and ``instructor/`` are replaced).
    book_dir : path or None
        The book's Markdown pages, for the written exercises.
    seed : int, default=0
        The course seed: the variant of the common student edition, and with
        a roster the seed each student's variant is derived from.
    roster : path or None
        A roster CSV (one student id a row, or a Canvas or Moodle export):
        each student gets the exercise notebooks at their own variant,
        ``student/<id>/<part>/<name>.ipynb``.
    id_column : str, int or None
        The roster's column of ids (see :func:`read_roster`).

    Returns
    -------
    Editions
    """
    t0 = time.perf_counter()
    notebooks_dir, out = Path(notebooks_dir), Path(out)
    if not notebooks_dir.is_dir():
        raise FileNotFoundError(f"notebooks: {notebooks_dir} is not a folder.")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}.")
    students = read_roster(roster, id_column=id_column) if roster is not None else None
    paths = sorted(p for p in notebooks_dir.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    student_dir, instructor_dir = out / "student", out / "instructor"
    # a filled-in written-marks.csv of an earlier build is kept (see below), never reset
    marks_path = instructor_dir / "written-marks.csv"
    old_marks = marks_path.read_text(encoding="utf-8-sig") if marks_path.is_file() else None
    for d in (student_dir, instructor_dir):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    questions, written, meta = [], [], {}
    for path in paths:
        short = _short(path, notebooks_dir)
        nb = _clear_outputs(nbformat.read(path, as_version=4))
        target = instructor_dir / f"{short}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        written += _in_part(written_exercises(_notebook_markdown(nb), f"notebook {short}"), short)
        if is_exercise_notebook(path):
            questions += read_questions(nb, short)
            meta[short] = nb.metadata.get("lupikit", {})
            (instructor_dir / "tests").mkdir(exist_ok=True)
            test_file = instructor_dir / "tests" / f"{short.replace('/', '__')}.py"
            test_file.write_text(_hidden_tests(nb, short), encoding="utf-8")
            if students is None:
                edition = student_notebook(nb, variant=seed, header=_STUDENT_HEADER.format(who=""))
                (student_dir / f"{short}.ipynb").parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(edition, student_dir / f"{short}.ipynb")
            else:
                for sid in students:
                    edition = student_notebook(nb, variant=variant_for(sid, seed),
                                               header=_STUDENT_HEADER.format(who=f" for **{sid}**"))
                    target = student_dir / sid / f"{short}.ipynb"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    nbformat.write(edition, target)
        else:
            edition = student_notebook(nb)
            (student_dir / f"{short}.ipynb").parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(edition, student_dir / f"{short}.ipynb")
    for page in _markdown_pages(book_dir):
        rel = page.relative_to(book_dir).as_posix()
        written += _in_part(written_exercises(page.read_text(encoding="utf-8"), f"page {rel}"), rel)
    parts = sorted({q.notebook.split("/")[0] for q in questions} | {w["part"] for w in written})
    (instructor_dir / "parts").mkdir()
    for part in parts:
        qs = [q for q in questions if q.notebook.split("/")[0] == part]
        ws = [w for w in written if w["part"] == part]
        pm = {k: v for k, v in meta.items() if k.split("/")[0] == part}
        (instructor_dir / "parts" / f"{part}.md").write_text(_instructor_page(part, qs, ws, pm), encoding="utf-8")
    (instructor_dir / "rubrics.md").write_text(_rubrics_page(written), encoding="utf-8")
    template = written_marks_template(written, students)
    marks_kept = {"added": [], "removed": []}
    if old_marks is not None:
        try:
            template, marks_kept["added"], marks_kept["removed"] = keep_written_marks(old_marks, template)
        except ValueError as exc:
            marks_path.write_text(old_marks, encoding="utf-8")  # the marks as they were
            (instructor_dir / "written-marks.new.csv").write_text(template, encoding="utf-8")
            raise ValueError(f"{marks_path}: {exc} (the file is kept as it was; the new template is "
                             "written-marks.new.csv)") from None
    marks_path.write_text(template, encoding="utf-8")
    if students is not None:
        with (instructor_dir / "variants.csv").open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["student", "variant"])
            writer.writerows((sid, variant_for(sid, seed)) for sid in students)
    (student_dir / "run_checks.py").write_text(RUN_CHECKS, encoding="utf-8")
    (student_dir / "README.md").write_text(_STUDENT_README.format(
        where="`<your id>/<part>/exercises.ipynb`" if students else "`<part>/exercises.ipynb`"), encoding="utf-8")
    (instructor_dir / "README.md").write_text(_INSTRUCTOR_README.format(seed=seed), encoding="utf-8")
    (instructor_dir / "edition.json").write_text(json.dumps(
        {"seed": seed, "students": students, "questions": [q.column for q in questions],
         "points": {q.column: q.points for q in questions}}, indent=1) + "\n", encoding="utf-8")
    # the student edition must hold none of the solutions' text
    texts = solution_texts([instructor_dir / f"{_short(p, notebooks_dir)}.ipynb" for p in paths],
                           _markdown_pages(book_dir))
    leaks = find_leaks(texts, sorted(student_dir.rglob("*.ipynb")))
    if leaks:
        f, line = leaks[0]
        raise RuntimeError(f"the student edition holds solution text: {f}: {line!r} "
                           f"({len(leaks)} line(s) in all)")
    return Editions(student=student_dir, instructor=instructor_dir, notebooks=[_short(p, notebooks_dir) for p in paths],
                    questions=questions, written=written, seconds=time.perf_counter() - t0,
                    marks_kept=marks_kept if old_marks is not None else None)
