"""Integrity flags of submissions: whose notebook it is, code shared between students, forbidden calls (private).

Read from the submitted notebooks without running them, for the column
``flags`` of the scores. A flag never changes a score; it tells the
instructor where to look:

* **another student's notebook**: the ``variant`` in the parameters cell is
  not the student's (it is a classmate's, or of another seed), or the
  student edition's header names another student;
* **shared code**: an answer cell whose code, once comments and layout are
  dropped, is the same as a classmate's, and at least :data:`MIN_TOKENS`
  tokens long (short answers such as ``m = x.mean()`` are written alike by
  honest students); or every answered cell of a notebook (two or more)
  the same as a classmate's, however short;
* **a forbidden call**: a question's graded cell may list names that its
  answer must not use (``metadata.lupikit.forbidden``, e.g. the library
  class whose result the student is to compute by hand); the answer cells
  of that question are parsed and a call, an import, a use of the name or a
  ``getattr`` with it as a constant is flagged.

* **the file system, processes or the network**: a code cell that the
  student added or changed and that imports ``os``, ``subprocess``,
  ``socket``, ``ctypes`` (and their like), runs a shell line (``!``,
  ``%%bash``), opens a path outside its folder (absolute or with ``..``),
  or names ``/proc`` or IPython's profile folder (:func:`system_uses`). The
  sandbox (:mod:`lupikit.classroom._sandbox`) stops what such code could do
  to the grader; the flag says that a student tried, for the teacher to read.

Not detected: code rewritten beyond layout and comments (renamed
variables, reordered lines), answers shared through another channel, or a
forbidden result reached through other names.
"""

import ast
import io
import re
import tokenize
from pathlib import Path

import nbformat

from ._notebooks import nbgrader_of
from ._variants import variant_for

__all__ = ["MIN_TOKENS", "forbidden_uses", "normalised_code", "submission_flags", "system_uses"]

#: an answer cell shared with a classmate is flagged from this many tokens on
MIN_TOKENS = 25

_VARIANT = re.compile(r"^\s*variant\s*(?::\s*int\s*)?=\s*(\d+)", re.M)
_HEADER = re.compile(r"Student edition\*\* of the lupikit exercises for \*\*([^*]+)\*\*")


def normalised_code(source):
    """The tokens of ``source`` without comments and layout, as a tuple of strings.

    Examples
    --------
    >>> normalised_code("m = x.mean()  # the mean") == normalised_code("m=x.mean( )\\n\\n")
    True
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return tuple(source.split())
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
    return tuple(tokenize.tok_name[t.type] if t.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
                 else t.string for t in tokens if t.type not in skip)


def forbidden_uses(source, names):
    """The uses of the ``names`` in Python ``source``: a list of ``(name, how)``.

    Examples
    --------
    >>> forbidden_uses("from lupikit.relevance import FeatureRelevanceBounds as F\\nF().fit(X, y)",
    ...                ["FeatureRelevanceBounds"])
    [('FeatureRelevanceBounds', 'imported')]
    >>> forbidden_uses("import lupikit.relevance as r\\nb = r.FeatureRelevanceBounds()", ["FeatureRelevanceBounds"])
    [('FeatureRelevanceBounds', 'used')]
    >>> forbidden_uses("# FeatureRelevanceBounds would do it\\nx = 1", ["FeatureRelevanceBounds"])
    []
    """
    names = set(names)
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython's magics and shell lines are not Python: drop them and parse the rest
        kept = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
        try:
            tree = ast.parse(kept)
        except SyntaxError:
            return [(name, "in code that does not parse") for name in sorted(names) if name in source]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name.rsplit(".", 1)[-1] in names:
                    found.append((alias.name.rsplit(".", 1)[-1], "imported"))
        elif isinstance(node, ast.Name) and node.id in names:
            found.append((node.id, "used"))
        elif isinstance(node, ast.Attribute) and node.attr in names:
            found.append((node.attr, "used"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value in names):
            found.append((node.args[1].value, "used through getattr"))
    return list(dict.fromkeys(found))


#: modules whose import in a student's cell is flagged: the file system, processes, the network, C
SYSTEM_MODULES = frozenset({"os", "posix", "subprocess", "socket", "ctypes", "cffi", "shutil", "pty", "signal",
                            "multiprocessing", "resource", "fcntl", "mmap", "pathlib", "glob", "urllib", "http",
                            "requests", "ftplib", "smtplib", "telnetlib", "asyncio", "psutil", "importlib"})
_SYSTEM_TEXT = re.compile(r"/proc\b|\.ipython|profile_default|\bstartup\b|/etc/|\.\./|^~|^/[A-Za-z_.]")


def system_uses(source):
    r"""What a cell's code does with the file system, processes or the network: a list of short phrases.

    Examples
    --------
    >>> system_uses("import numpy as np\nm = np.mean(x)")
    []
    >>> system_uses("import os, subprocess\nos.kill(os.getppid(), 9)")
    ['imports os', 'imports subprocess']
    >>> system_uses("!ls ..\nx = open('/proc/1/environ').read()")
    ['runs a shell line', "names '/proc/1/environ'"]
    """
    found = []
    lines = source.splitlines()
    if any(line.lstrip().startswith(("!", "%%bash", "%%sh", "%%script", "%system", "%sx")) for line in lines):
        found.append("runs a shell line")
    kept = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
    try:
        tree = ast.parse(kept)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "__import__", "exec", "eval", "compile", "breakpoint"):
            found.append(f"calls {node.func.id}")
            continue
        elif isinstance(node, ast.Name) and node.id in ("get_ipython", "__builtins__"):
            found.append(f"uses {node.id}")
            continue
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _SYSTEM_TEXT.search(node.value):
            found.append(f"names {node.value[:60]!r}")
            continue
        else:
            continue
        for name in names:
            if name.split(".")[0] in SYSTEM_MODULES:
                found.append(f"imports {name.split('.')[0]}")
    return list(dict.fromkeys(found))


def _answers_by_question(nb):
    """{graded cell id: [(answer cell id, source), ...]}: the answer cells before each graded cell."""
    out, pending = {}, []
    for cell in nb.cells:
        g = nbgrader_of(cell)
        if cell.cell_type != "code":
            continue
        if g.get("solution"):
            pending.append((g.get("grade_id"), cell.source))
        elif g.get("grade") and g.get("grade_id"):
            out[g["grade_id"]] = pending
            pending = []
    return out


def _read(path):
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        return nb
    except Exception:  # noqa: BLE001 - an unreadable submission is graded (and explained) elsewhere
        return None


def _flags_of(s, rel, nb, source, seed, variants, per_student, stubs, handed_out, flags, code, answered):
    """The flags of one notebook of one student (appended to ``flags[s]``), and its answers' code for the comparison."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            m = _VARIANT.search(cell.source)
            expected = {variant_for(s, seed)} if per_student else {seed}
            if per_student is None:  # not known which edition they had: either is theirs
                expected = {variant_for(s, seed), seed}
            if m and int(m.group(1)) not in expected:
                owner = variants.get(int(m.group(1))) if per_student is not False else None
                flags[s].append(f"{rel}: variant {m.group(1)} is {owner}'s" if owner else
                                f"{rel}: variant {m.group(1)} is not the one handed out ("
                                f"{' or '.join(map(str, sorted(expected)))})")
            break
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = _HEADER.search(cell.source)
            if m and m.group(1).strip() != s:
                flags[s].append(f"{rel}: the header names {' '.join(m.group(1).split())[:100]}")
                break
    given = (handed_out or {}).get(rel, set())
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and normalised_code(cell.source) not in given:
            uses = system_uses(cell.source)
            if uses:
                flags[s].append(f"{rel}: cell {k + 1} {', '.join(uses[:4])} (read it: the file "
                                "system, processes or the network)")
    forbidden = {}
    for cell in source.cells:
        g = nbgrader_of(cell)
        names = (cell.get("metadata", {}).get("lupikit") or {}).get("forbidden")
        if g.get("grade") and names:
            forbidden[g["grade_id"]] = list(names)
    for question, cells in _answers_by_question(nb).items():
        for answer_id, text in cells:
            for name, how in forbidden_uses(text, forbidden.get(question, [])):
                flags[s].append(f"{rel}: {question} {how} {name}, which the exercise forbids")
            tokens = normalised_code(text)
            stub = (stubs or {}).get(rel, {}).get(answer_id)
            if tokens and tokens != stub:
                code.setdefault((rel, answer_id), {})[s] = tokens
                answered.setdefault((s, rel), {})[answer_id] = tokens


def submission_flags(submissions, students, sources, seed, stubs=None, per_student=True, handed_out=None):
    """The integrity flags of each student's submission: {student: [flag, ...]}.

    Parameters
    ----------
    submissions : path
        ``<submissions>/<student>/<notebook>.ipynb``.
    students : list of str
        The class (every student whose code is compared).
    sources : dict of str to NotebookNode
        The instructor's notebooks by short name (for the forbidden names).
    seed : int
        The course seed (a student's variant is derived from it).
    stubs : dict or None
        ``{notebook: {answer cell id: normalised code}}`` of the student
        edition: an answer left as handed out is not "shared".
    per_student : bool or None, default=True
        Whether each student was handed the notebooks at their own variant
        (an edition built with a roster); False: everyone's is ``seed``;
        None (not known): either is accepted.
    handed_out : dict or None
        ``{notebook: set of normalised code}`` of the cells handed out: a
        cell left as handed out is not read for :func:`system_uses`.
    """
    submissions = Path(submissions)
    variants = {variant_for(s, seed): s for s in students}
    flags = {s: [] for s in students}
    code = {}  # (notebook, answer id) -> {student: tokens}
    answered = {}  # (student, notebook) -> {answer id: tokens}
    for s in students:
        for rel, source in sources.items():
            nb = _read(submissions / s / f"{rel}.ipynb")
            if nb is None:
                continue
            try:
                _flags_of(s, rel, nb, source, seed, variants, per_student, stubs, handed_out, flags, code, answered)
            except Exception as exc:  # noqa: BLE001 - a notebook that breaks the flags costs its own flags only
                flags[s].append(f"{rel}: not read for the integrity flags ({type(exc).__name__})")
    shared = {}
    for (rel, answer_id), by_student in code.items():
        groups = {}
        for s, tokens in by_student.items():
            groups.setdefault(tokens, []).append(s)
        for tokens, group in groups.items():
            for a in group:
                for b in group:
                    if a < b:
                        shared.setdefault((a, b, rel), []).append((answer_id, len(tokens)))
    for (a, b, rel), cells in sorted(shared.items()):
        long = [cid for cid, n in cells if n >= MIN_TOKENS]
        whole = (len(cells) >= 2 and len(cells) == len(answered.get((a, rel), {}))
                 == len(answered.get((b, rel), {})))
        if long or whole:
            which = ", ".join(long) if long else f"all {len(cells)} answers"
            flags[a].append(f"{rel}: the same code as {b} ({which})")
            flags[b].append(f"{rel}: the same code as {a} ({which})")
    return flags
