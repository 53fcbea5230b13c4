"""Grade submissions: every student, every exercise notebook, each with a time limit (private).

For one student and one notebook:

1. the submission is executed in a fresh kernel, at the student's variant,
   with a time limit for the whole notebook; errors do not stop it; each
   graded cell is replaced by a call that saves the answers it names
   (:func:`lupikit.classroom._answers.save`);
2. the instructor's notebook is executed at the same variant in another
   kernel, each graded cell running its public and hidden tests on the
   student's answers in place of the reference ones
   (:func:`lupikit.classroom._answers.check`).

A submission that is missing, not valid JSON, that raises, runs past the
limit, kills its kernel or lost a graded cell costs the questions it breaks,
with the reason in the student's report; the other students are graded as
usual.
"""

import contextlib
import copy
import csv
import dataclasses
import datetime
import fcntl
import getpass
import hashlib
import html
import io
import json
import os
import platform
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import nbformat
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from . import _answers
from ._execution import errors_before as _errors_before
from ._execution import execute, trim_outputs
from ._sandbox import Limits, SandboxUnavailable, places, run_sandboxed, sandbox_problem
from ._files import fmt_points, too_large, write_atomically
from ._integrity import normalised_code, submission_flags
from ._marks import merged_text
from ._markup import read_questions, set_parameter, student_notebook
from ._notebooks import answer_cells, nbgrader_of
from ._roster import read_roster
from ._variants import check_student_id, variant_for

__all__ = ["GradeReport", "GradingInProgress", "UNSANDBOXED_FLAG", "grade_submissions", "read_scores", "without_values"]

# The graded cells are replaced by calls of the kernel-side module (:mod:`._answers`), named
# from the module itself so that a rename cannot leave a stale import in the kernels' code.
_IMPORT_ANSWERS = f"import {_answers.__name__} as __lupikit_answers\n"
_CAPTURE = _IMPORT_ANSWERS + "__lupikit_answers.save({question!r}, {names!r}, globals(), {folder!r})"
_CHECK = (_IMPORT_ANSWERS
          + "__lupikit_answers.check({question!r}, {names!r}, {code!r}, globals(), {folder!r}, {results!r}, "
            "partial={partial!r})")


class GradeReport(dict):
    """The outcome of grading: ``scores`` (student -> column -> points), ``reasons`` and timings."""


def _parameters_index(nb):
    for k, cell in enumerate(nb.cells):
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            return k
    return None


def _inject_variant(nb, variant):
    """Put ``variant = ...`` right after the parameters cell (as papermill does)."""
    cell = nbformat.v4.new_code_cell(f"variant = {int(variant)}  # injected by the grader")
    cell.metadata["tags"] = ["injected-parameters"]
    k = _parameters_index(nb)
    nb.cells.insert(0 if k is None else k + 1, cell)


def graded_index(nb, grade_id):
    """The index of the first cell of ``nb`` with the nbgrader id ``grade_id``."""
    return next(k for k, c in enumerate(nb.cells)
                if nbgrader_of(c).get("grade_id") == grade_id)


def _unanswered(folder, question, reason):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{question.grade_id}.json").write_text(json.dumps({"unanswered": reason}), encoding="utf-8")


def _text(value, limit=500):
    """``value`` as one line of printable text of at most ``limit`` characters (what a student wrote, made safe)."""
    text = " ".join(str(value).split())
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate cannot be written
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _answer_info(info):
    """The answer file's JSON if it has the shape :func:`lupikit.classroom._answers.save` writes, else None."""
    if not isinstance(info, dict) or set(info) - {"missing", "unanswered"}:
        return None
    if "unanswered" in info:
        return {"unanswered": _text(info["unanswered"])} if isinstance(info["unanswered"], str) else None
    missing = info.get("missing", {})
    if not isinstance(missing, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                for k, v in missing.items()):
        return None
    return {"missing": {_text(k, 100): _text(v) for k, v in missing.items()}}


def _depth(value, limit):
    """Whether ``value`` (decoded JSON) nests deeper than ``limit`` (without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, d = stack.pop()
        if d > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, d + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, d + 1) for v in item)
    return False


def _with_outputs(sent, returned, budget):
    """The notebook ``sent`` with the outputs of ``returned`` (from the sandbox), checked; and what was wrong.

    The cells are the grader's own; of the returned notebook only the code
    cells' outputs are taken, each a list of outputs nbformat accepts, not
    nested deeper than outputs are, within ``budget`` bytes in all.
    """
    nb = copy.deepcopy(sent)
    got = returned.get("cells") if isinstance(returned, dict) else None
    if not isinstance(got, list) or len(got) != len(nb.cells):
        return nb, "the sandbox's answer was not the grader's runner's (the notebook forged it)"
    left = int(budget)
    for cell, back in zip(nb.cells, got):
        if cell.cell_type != "code":
            continue
        outputs = back.get("outputs") if isinstance(back, dict) else None
        if not isinstance(outputs, list) or _depth(outputs, 16):
            return nb, "the sandbox's answer was not the grader's runner's (the notebook forged it)"
        cell.outputs = [nbformat.from_dict(o) for o in outputs if isinstance(o, dict)]
        count = back.get("execution_count")
        cell.execution_count = count if isinstance(count, int) and not isinstance(count, bool) else None
        left = max(0, left - trim_outputs(cell, left))
    try:
        nbformat.validate(nb)
    except Exception:  # noqa: BLE001 - outputs nbformat does not accept are dropped
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
        return nb, ""
    return nb, ""


def _run_submission(submitted, name, questions, variant, folder, workdir, limits, kernel, sandboxed, data_home):
    """Step 1; returns the executed submission (or None), the notes for the report and what ended it early.

    The notebook runs in a process of its own, in its own sandbox
    (:mod:`._sandbox`) or, without ``sandboxed``, as the grading user in
    ``workdir``; its answers come back as files, which are written to
    ``folder``.
    """
    notes = []
    if submitted is None:
        for q in questions:
            _unanswered(folder, q, f"not submitted ({name} is missing)")
        return None, notes, ""
    try:
        if isinstance(submitted, str):  # too large to be read: its size
            raise ValueError(submitted)
        nb = nbformat.reads(submitted.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # noqa: BLE001 - JSON, schema or encoding: any of them makes it unreadable
        reason = f"{name} is not a valid notebook ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"
        for q in questions:
            _unanswered(folder, q, reason)
        return None, notes, ""
    by_id = {}
    for k, cell in enumerate(nb.cells):
        grade_id = nbgrader_of(cell).get("grade_id")
        if cell.cell_type == "code" and grade_id and grade_id not in by_id:
            by_id[grade_id] = k
    present = []
    host_folder = None if sandboxed else workdir
    saved_to = places(host_folder)[2]
    for q in questions:
        if q.grade_id not in by_id:
            _unanswered(folder, q, f"the graded cell {q.grade_id!r} was deleted from the notebook")
            continue
        cell = nb.cells[by_id[q.grade_id]]
        cell.source = _CAPTURE.format(question=q.grade_id, names=list(q.answers), folder=saved_to)
        cell.outputs = []
        present.append(q)
    _inject_variant(nb, variant)
    failure = ""
    # the runner, in its sandbox or (unsandboxed) in a process of its own; its answers come back as files
    result = run_sandboxed(nb, [q.grade_id for q in present], limits, kernel=kernel, data_home=data_home,
                           host_folder=host_folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in result.answers.items():
        (folder / name).write_bytes(data)
    why, failure = _text(result.why or result.failure), result.failure
    if result.notebook is not None:
        # what came back is untrusted: the cells are those sent in, only their outputs are taken
        nb, forged = _with_outputs(nb, result.notebook, limits.output)
        if forged:
            failure = why = forged
    if failure:  # answers the run left before it failed are not graded: the failure costs the notebook
        for q in present:
            (folder / f"{q.grade_id}.npz").unlink(missing_ok=True)
            _unanswered(folder, q, failure)
    if why:
        notes.append(why)
    for q in present:
        info = None
        if (folder / f"{q.grade_id}.json").is_file():
            try:
                info = _answer_info(json.loads((folder / f"{q.grade_id}.json").read_text(encoding="utf-8")))
            except (ValueError, RecursionError):
                info = None
            if info is None:  # not what the grader's own save writes: the answers are not read
                (folder / f"{q.grade_id}.npz").unlink(missing_ok=True)
                info = {"unanswered": "the saved answers were not written by the grader (changed in the notebook)"}
            (folder / f"{q.grade_id}.json").write_text(json.dumps(info), encoding="utf-8")
        if isinstance(info, dict):
            if info.get("missing") and isinstance(info["missing"], dict) and not failure:
                try:
                    error = _errors_before(nb, graded_index(nb, q.grade_id))  # after the injected cell
                except StopIteration:
                    error = ""
                if error:
                    info["missing"] = {n: f"{r} ({error})" for n, r in info["missing"].items()}
                    (folder / f"{q.grade_id}.json").write_text(json.dumps(info), encoding="utf-8")
        else:
            _unanswered(folder, q, why or "the graded cell did not run")
    # what stopped the run early, if anything: a limit, a dead kernel, the sandbox ended
    return (None if failure else nb), notes, failure or why


def _replay(source, questions, variant, folder, results, workdir, limit, kernel):
    """Step 2: the instructor's notebook with the tests run on the student's answers."""
    nb = copy.deepcopy(source)
    wanted = {q.grade_id: q for q in questions}
    for cell in nb.cells:
        grade_id = nbgrader_of(cell).get("grade_id")
        if cell.cell_type == "code" and grade_id in wanted:
            q = wanted[grade_id]
            cell.source = _CHECK.format(question=grade_id, names=list(q.answers), code=cell.source,
                                        folder=str(folder), results=str(results), partial=q.partial)
    set_parameter(nb, "variant", int(variant), "injected by the grader")
    # the instructor's kernel reads no IPython profile of the grading user's (a startup file
    # planted there by anything that ever ran as that user must not replace the tests)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IPYTHON", "JUPYTER_CONFIG"))}
    env["IPYTHONDIR"] = str(Path(workdir) / ".ipython")
    stopped, why = execute(nb, workdir, limit, kernel, env=env)
    return why or _errors_before(nb, len(nb.cells))


def _submitted(submissions, student, rel):
    """The bytes of a student's notebook, None if it is missing, or a text saying it is too large to read."""
    path = Path(submissions) / student / f"{rel}.ipynb"
    if not path.is_file():
        return None
    return too_large(path.stat().st_size) or path.read_bytes()


def _grade_task(student, rel, source, questions, variant, submitted, limits, kernel, keep_answers=False,
                sandboxed=True, data_home=None):
    """:func:`_grade_one`, where anything unexpected costs this submission only (a row of 0 and a flag)."""
    try:
        return _grade_one(student, rel, source, questions, variant, submitted, limits, kernel, keep_answers,
                          sandboxed, data_home)
    except SandboxUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - one submission must not stop the class
        what = f"the grader failed on it ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"
        rows = {q.column: (0.0, what) for q in questions}
        return student, rel, rows, [what], False, 0.0, {}, what


def _grade_one(student, rel, source, questions, variant, submitted, limits, kernel, keep_answers=False,
               sandboxed=True, data_home=None):
    """Grade one notebook of one student; returns what the class run writes (nothing is written here).

    Returns ``(student, rel, rows, notes, grader_failed, seconds, files, failure)``:
    ``rows`` maps each question's column to (points, reason); ``files`` maps a
    path under the student's report folder to its bytes (the executed
    submission, the saved answers); ``failure`` says what ended the
    submission's run early, a limit, its kernel's death or its sandbox's
    end ('' if it ran to the end).
    """
    t0 = time.perf_counter()
    files = {}
    with tempfile.TemporaryDirectory(prefix="lupikit-grade-") as tmp:
        tmp = Path(tmp)
        folder, work = tmp / "answers", tmp / "work"
        for d in (folder, work):
            d.mkdir()
        executed, notes, failure = _run_submission(submitted, Path(rel).name + ".ipynb", questions, variant,
                                                   folder, work, limits, kernel, sandboxed, data_home)
        if executed is not None:
            files[f"{rel}.ipynb"] = nbformat.writes(executed).encode("utf-8")
        if keep_answers:
            # the saved answers beside the report: what the tests saw, for a dispute
            for f in sorted(folder.iterdir()):
                if f.is_file() and not f.is_symlink():
                    files[f"{rel}.answers/{f.name}"] = f.read_bytes()
        # the grader's own folder is made only now, when the student's kernel is gone:
        # nothing the submission ran could have known its name
        with tempfile.TemporaryDirectory(prefix="lupikit-tests-") as own:
            own = Path(own)
            results = own / "results.jsonl"
            grader_error = _replay(source, questions, variant, folder, results, own,
                                   max(60.0, 5 * limits.notebook), kernel)
            outcomes = {}
            if results.is_file():
                for line in results.read_text(encoding="utf-8").splitlines():
                    rec = json.loads(line)
                    outcomes.setdefault(rec["question"], rec)
    rows = {}
    for q in questions:
        rec = outcomes.get(q.grade_id)
        if rec is None:
            rows[q.column] = (0.0, f"not graded: the instructor's notebook failed at variant {variant} "
                                   f"({grader_error or 'the graded cell did not run'})")
        else:
            share = rec.get("fraction", 1.0 if rec["passed"] else 0.0) if q.partial else float(rec["passed"])
            rows[q.column] = (round(q.points * share, 4), rec["reason"])
    return student, rel, rows, notes, bool(grader_error), time.perf_counter() - t0, files, failure


def _report_text(student, variant, questions, scores, reasons, notes, flags=()):
    lines = [f"# Grades of {student}", "", f"Variant: {variant}", ""]
    total = sum(scores.values())
    lines += [f"Total: {fmt_points(total)} of {fmt_points(sum(q.points for q in questions))}", ""]
    if flags:
        lines += ["**Flags** (for the instructor to look at; they change no score):", ""]
        lines += [f"- {html.escape(f, quote=False)}" for f in flags] + [""]
    for rel in dict.fromkeys(q.notebook for q in questions):
        lines += [f"## {rel}", ""]
        for note in notes.get(rel, []):
            lines += [f"- **note**: {html.escape(note, quote=False)}"]
        for q in (q for q in questions if q.notebook == rel):
            got = scores[q.column]
            lost = html.escape(reasons[q.column], quote=False)
            mark = "passed" if got == q.points else f"{fmt_points(q.points - got)} point(s) lost: {lost}"
            lines.append(f"- `{q.grade_id}` ({fmt_points(got)}/{fmt_points(q.points)}): {mark}")
        lines.append("")
    return "\n".join(lines)


# a number the student must not learn from the feedback (an expected value), unless it numbers a
# cell or a line, or is the time limit
_VALUE = re.compile(r"(?<!cell )(?<!line )(?<![\w.])[-+]?(?:[\d_]+\.[\d_]*|\.\d[\d_]*|\d[\d_]*)(?:[eE][-+]?\d+)?j?"
                    r"(?! s\))(?!\w)(?!\.\d)")


def without_values(text):
    """``text`` with every number replaced by "…", except cell and line numbers and a time limit.

    Examples
    --------
    >>> without_values("m is not the mean of x: expected 0.1234, got [1. 2.5e-3] (cell 4 raised; limit of 20 s)")
    'm is not the mean of x: expected …, got [… …] (cell 4 raised; limit of 20 s)'
    >>> without_values("m should be 0.25. Got 1_000 and 3j.")
    'm should be …. Got … and ….'
    """
    return _VALUE.sub("…", text)


def _feedback_html(student, questions, scores, reasons, notes):
    """The page a student may see: per question the points, what was checked and why points were lost."""
    total, full = sum(scores.values()), sum(q.points for q in questions)
    rows = []
    for q in questions:
        got = scores[q.column]
        why = "passed" if got == q.points else without_values(reasons[q.column])
        rows.append(f"<tr><td><code>{html.escape(q.notebook)}</code></td><td><code>{html.escape(q.grade_id)}</code>"
                    f"</td><td>{fmt_points(got)} / {fmt_points(q.points)}</td><td>{html.escape(q.checks or '')}</td>"
                    f"<td>{html.escape(why)}</td></tr>")
    note_items = "".join(f"<li><code>{html.escape(rel)}</code>: {html.escape(without_values(n))}</li>"
                         for rel, ns in notes.items() for n in ns)
    return ("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Feedback for "
            f"{html.escape(student)}</title><style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}"
            "td,th{border-bottom:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
            "table{border-collapse:collapse}</style></head><body>\n"
            f"<h1>Feedback for {html.escape(student)}</h1>\n<p><strong>Total: {fmt_points(total)} of {fmt_points(full)}"
            "</strong></p>\n" + (f"<ul>{note_items}</ul>\n" if note_items else "")
            + "<table><thead><tr><th>notebook</th><th>question</th><th>points</th><th>what the tests check</th>"
              "<th>result</th></tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n"
            "<p>Numbers from the tests' messages are shown as … : the expected values stay with the "
            "grader.</p>\n</body></html>\n")




#: the flag of a submission whose run stopped early (a limit, its kernel's death, its sandbox's end)
STOPPED_EARLY = "the run stopped early: "


def _run_flags(path):
    """``{student: flags}`` of a scores file that only the run that graded the row could know.

    What stopped that row's run early, and whether it ran without the
    sandbox: a later run that keeps the row cannot compute them again (the
    integrity flags it can, from the notebooks as they are).
    """
    with Path(path).open(newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    out = {}
    for row in rows:
        kept = [f for f in (row.get("flags") or "").split("; ") if f.startswith(STOPPED_EARLY) or f == UNSANDBOXED_FLAG]
        if kept and row.get("student") != "max":
            out[row["student"]] = kept
    return out


def read_scores(path):
    """The rows of a scores CSV written by :func:`grade_submissions`: (columns, {student: row}).

    ``columns`` are the computational questions' columns (without
    ``student``, ``total``, ``flags`` and the written exercises' marks,
    ``written:<label>``); a row maps each column to its points (a float). The
    ``max`` row is left out. A file that is not such a CSV raises ValueError.
    """
    path = Path(path)
    with path.open(newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    header = rows[0] if rows else []
    tail = 2 if header[-2:] == ["total", "flags"] else 1
    if header[:1] != ["student"] or header[-tail] != "total":
        raise ValueError(f"{path} is not a scores file of `lupikit classroom grade` (its first row must be "
                         "student, the questions, total, flags): give another --out.")
    columns = [c for c in header[1:-tail] if not c.startswith("written:")]
    out = {}
    for k, row in enumerate(rows[1:], start=2):
        if not row or row[0] == "max":
            continue
        if len(row) != len(header):
            raise ValueError(f"{path}, row {k}: {len(row)} cells where the header has {len(header)}.")
        cells = dict(zip(header, row))
        try:
            out[row[0]] = {c: float(cells[c]) for c in columns}
        except ValueError as exc:
            raise ValueError(f"{path}, row {k}: a score that is not a number ({exc}).") from exc
    return columns, out


def _written_part(path):
    """The written exercises' columns of a scores file (with ``student`` and the ``max`` row), or None."""
    with Path(path).open(newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    keep = [k for k, c in enumerate(rows[0]) if c.startswith("written:")]
    if not keep:
        return None
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        if row:
            writer.writerow([row[0], *(row[k] if k < len(row) else "" for k in keep)])
    return buffer.getvalue()


def _checksums(submissions, student, rels):
    """SHA-256 of each submitted notebook of ``student`` (None where it is missing)."""
    out = {}
    for rel in rels:
        path = Path(submissions) / student / f"{rel}.ipynb"
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return out


def _class_and_graded(submissions, roster, only):
    """The whole class in the roster's order (the CSV's rows) and the students graded now."""
    if isinstance(roster, (list, tuple)):
        students = [check_student_id(s, where="roster:") for s in roster]
        if not students:
            raise ValueError("roster: the list of students is empty.")
    elif roster is not None:
        students = read_roster(roster)
    else:
        students = sorted(check_student_id(p.name, where="submission folder")
                          for p in submissions.iterdir() if p.is_dir() and not p.name.startswith("."))
        if not students:
            raise ValueError(f"submissions: {submissions} holds no student folder.")
    if only is None:
        return students, list(students)
    only = [check_student_id(s, where="student to grade") for s in only]
    unknown = [s for s in only if s not in students]
    if unknown:
        raise ValueError(f"not on the roster: {', '.join(unknown)} (the roster has {len(students)} "
                         f"student(s): {', '.join(students[:8])}{', ...' if len(students) > 8 else ''}).")
    return students, [s for s in students if s in only]


def _add_late_flags(submissions, flags):
    """The late submissions that ``lupikit classroom collect`` recorded become flags."""
    collected = submissions / "collected.json"
    if collected.is_file():
        record = json.loads(collected.read_text(encoding="utf-8"))
        for s in record.get("late", []):
            if s in flags:
                flags[s].append(f"handed in late ({record.get('late_why', {}).get(s, 'by classroom collect')})")


def _scores_text(order, rows, flags, questions, written):
    """The scores CSV: a row per student, the ``max`` row, the written marks merged if there are any."""
    columns = [q.column for q in questions]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", *columns, "total", "flags"])
    for s in order:
        row = [rows[s][c] for c in columns]
        writer.writerow([s, *map(fmt_points, row), fmt_points(sum(row)), "; ".join(flags.get(s, []))])
    writer.writerow(["max", *(fmt_points(q.points) for q in questions),
                     fmt_points(sum(q.points for q in questions)), ""])
    text = buffer.getvalue()
    if written is not None:  # the written exercises' marks kept, in the same one write
        text = merged_text(list(csv.reader(io.StringIO(text))), list(csv.reader(io.StringIO(written))))[0]
    return text


def _append_log(log, submissions, seed, students, kept, notebooks, scores, flags, sandbox):
    """One line of the grading log: when, who, where, the seed, whom, the notebooks' checksums, the scores."""
    entry = {
        "sandbox": sandbox,
        "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "who": getpass.getuser(), "machine": platform.node(), "seed": seed, "graded": students, "kept": kept,
        "submissions": {s: _checksums(submissions, s, notebooks) for s in students},
        "scores": {s: {**scores[s], "total": sum(scores[s].values())} for s in students},
        "flags": {s: flags.get(s, []) for s in students},
    }
    with log.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


#: the flag every row graded without the sandbox carries (``--unsandboxed``)
UNSANDBOXED_FLAG = ("graded without the sandbox (--unsandboxed): the student's code ran as the grading user, "
                    "with its files and network")


class GradingInProgress(RuntimeError):
    """Another grading run holds the scores file's lock."""


@contextlib.contextmanager
def _scores_lock(out):
    """Hold ``.<out name>.lock`` for the run: a second run on the same scores file is refused, not interleaved.

    The lock file is removed at the end (while still held); a run that
    locked a file another run had just removed tries again on the new one.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = out.parent / f".{out.name}.lock"
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise GradingInProgress(f"{out} is being graded by another run (it holds {lock.name}): wait for "
                                    "it to end, or grade into another --out.") from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lock))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)


def _replace_folder(folder, files):
    """Make ``folder`` hold exactly ``files`` (relative path -> bytes), replacing it in one rename."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    for rel, data in files.items():
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    old = None
    if folder.exists():
        old = folder.parent / f"{staging.name}.old"
        os.replace(folder, old)
    os.replace(staging, folder)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)



def _with_submission(task_args, submissions):
    """The arguments of :func:`_grade_task` with the student's notebook read in (its bytes travel with the task)."""
    student, rel = task_args[:2]
    return task_args[:5] + (_submitted(submissions, student, rel),) + task_args[6:]


def _on_cluster(scheduler, tasks, args, submissions):
    """Grade each submission as a task on a Dask cluster; yield the results as they come.

    The client reads each notebook and sends its bytes with the task (the
    workers need no view of the submissions); each worker runs the student's
    code in its own sandbox. A task whose worker is lost runs again
    (``retries``); a task that still fails costs its submission only.
    """
    from distributed import Client, as_completed

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    run = uuid.uuid4().hex[:8]
    try:
        futures = {client.submit(_grade_task, *_with_submission(args[t], submissions), pure=False, retries=2,
                                 key=f"lupikit-grade-{run}-{t[0]}-{t[1]}"): t for t in tasks}
        for future in as_completed(futures):
            try:
                yield future.result()
            except SandboxUnavailable:
                raise
            except Exception as exc:  # noqa: BLE001 - a task the cluster could not run costs its submission only
                student, rel = futures[future]
                questions = args[(student, rel)][3]
                what = f"the cluster could not grade it ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"
                yield student, rel, {q.column: (0.0, what) for q in questions}, [what], False, 0.0, {}, what
    finally:
        if client is not scheduler:
            client.close()


def grade_submissions(submissions, sources, out, *, roster=None, seed=0, time_limit=120.0, n_jobs=2,
                      kernel="python3", progress=False, keep_answers=True, only=None, per_student=None,
                      limits=None, unsandboxed=False, data_home=None, scheduler=None, replace_absent=False):
    """Grade every student's exercise notebooks; write the scores CSV and a report per student.

    Parameters
    ----------
    submissions : path
        ``<submissions>/<student id>/<part>/<name>.ipynb``: each student's
        notebooks under the names they were handed out with.
    sources : dict of str to path
        The instructor's notebooks to grade, by relative name without
        ``.ipynb`` (``{"boosting/exercises": Path(...)}``).
    out : path
        The scores CSV: a column ``student``, a column per question
        (``<notebook>:<grade_id>``) and ``total``; a row per student and a
        row ``max``. The reports go to ``<out stem>-reports/<student>.md``
        (with the executed submissions beside them). If the file exists
        (an earlier grading), the rows and reports of the students graded
        now are replaced and every other row and report is kept; the file
        is replaced at once, never left half written. Each run appends a
        line to ``<out stem>-log.jsonl``: when, who, on which machine, the
        seed, the students graded, the SHA-256 of each submitted notebook
        and the scores.
    roster : path, list of str or None
        A roster CSV or the list of student ids; without it, every folder
        of ``submissions`` is a student.
    seed : int, default=0
        The course seed the editions were built with.
    time_limit : float, default=120
        Seconds for one submitted notebook, all its cells together (the
        ``notebook`` limit of ``limits`` when that is not given).
    n_jobs : int, default=2
        Notebooks graded at once (each uses two kernels, one after the other).
    kernel : str, default="python3"
    progress : bool, default=False
        Show a progress bar.
    keep_answers : bool, default=True
        Keep each student's saved answers beside the report
        (``<reports>/<student>/<part>/<name>.answers/``).
    only : list of str or None
        Grade only these students of the roster (a regrade); the others'
        rows in ``out`` are kept.
    per_student : bool or None
        Whether the students were handed their notebooks at their own
        variants (editions built with a roster), for the integrity flags;
        None (not known): a notebook at the student's own variant or at the
        common edition's (``seed``) is not flagged.
    limits : Limits or None
        What one submission may use in its sandbox (:class:`~lupikit.classroom._sandbox.Limits`:
        time per notebook and per cell, memory, processes, file and output
        size); None: the defaults, with ``time_limit`` for the notebook.
    unsandboxed : bool, default=False
        Run the students' code without the sandbox, as the grading user, with
        that user's files and network (each notebook still in a process of
        its own, under ``limits``, with a clean environment). Without this flag,
        grading where the sandbox cannot run (not Linux, no bubblewrap, no
        user namespaces) raises :class:`~lupikit.classroom._sandbox.SandboxUnavailable`
        with the reason. With it, every graded row's flags and the log say so.
    data_home : path or None
        A data home the notebooks may read (read-only in the sandbox);
        None: ``LUPIKIT_DATA`` if it is set.
    replace_absent : bool, default=False
        A student of the roster who has no folder in ``submissions`` but a
        row in ``out`` keeps that row (and is listed in ``absent_kept``);
        with this flag, the student is graded as not having submitted (0).
    scheduler : str, distributed.Client or None
        A Dask scheduler's address (or a client): each submission is then a
        task on the cluster's workers, each in its sandbox (the workers need
        lupikit and bubblewrap, not the submissions: each notebook travels
        with its task); the scores, reports and feedback come back here and
        are written once. ``n_jobs`` is then the workers' business.

    Returns
    -------
    GradeReport
        ``scores`` and ``reasons`` (student -> column -> value) of the
        students graded now, ``max`` (column -> points), ``students`` (those
        graded now), ``kept`` (the students whose earlier rows were kept),
        ``flags`` (student -> list of integrity flags, see
        :mod:`lupikit.classroom._integrity`), ``out``, ``reports``, ``log``,
        ``seconds``, ``task_seconds`` (``"<student>/<notebook>"`` -> seconds
        of its task, both kernels), ``failures`` (student -> what ended a
        notebook's run early) and ``grader_errors``
        (the (student, notebook) pairs whose replay of the instructor's
        notebook failed).
    """
    t0 = time.perf_counter()
    submissions, out = Path(submissions), Path(out)
    if not submissions.is_dir():
        raise FileNotFoundError(f"submissions: {submissions} is not a folder "
                                "(it should hold a folder per student id).")
    if not isinstance(time_limit, (int, float)) or isinstance(time_limit, bool) or time_limit <= 0:
        raise ValueError(f"time_limit must be a number of seconds > 0, got {time_limit!r}.")
    limits = Limits(notebook=float(time_limit)) if limits is None else limits
    if not isinstance(limits, Limits):
        raise ValueError(f"limits must be a classroom Limits, got {type(limits).__name__}.")
    if not unsandboxed:
        problem = sandbox_problem()
        if problem:
            raise SandboxUnavailable(f"not grading: {problem}")
    if data_home is None and os.environ.get("LUPIKIT_DATA"):
        data_home = os.environ["LUPIKIT_DATA"]
    klass, students = _class_and_graded(submissions, roster, only)
    if not sources:
        raise ValueError("there is no exercise notebook to grade.")
    nbs = {rel: nbformat.read(Path(p), as_version=4) for rel, p in sorted(sources.items())}
    questions = {rel: read_questions(nb, rel) for rel, nb in nbs.items()}
    every = [q for rel in nbs for q in questions[rel]]
    variants = {s: variant_for(s, seed) for s in students}
    columns = [q.column for q in every]
    with _scores_lock(out):
        earlier, written, earlier_flags = {}, None, {}
        if out.exists():  # an earlier grading: its rows are kept, except those graded now
            old_columns, earlier = read_scores(out)
            written = _written_part(out)  # and the written exercises' marks, if merged
            earlier_flags = _run_flags(out)  # and what only that run knew of each row
            if old_columns != columns:
                raise ValueError(f"{out} holds other questions than the notebooks graded now "
                                 f"({len(old_columns)} against {len(columns)}, e.g. "
                                 f"{(sorted(set(old_columns) ^ set(columns)) or old_columns)[0]}): give another "
                                 "--out, or grade with the notebooks it was made with.")
        # a student of the roster with no folder in this submissions folder keeps the row the scores
        # file holds (grading a folder of late work must not set the class to 0)
        absent = [s for s in students if s in earlier and not (submissions / s).is_dir()]
        if absent and not replace_absent:
            students = [s for s in students if s not in absent]
            variants = {s: variants[s] for s in students}
        else:
            absent = []
        tasks = [(s, rel) for s in students for rel in nbs if questions[rel]]
        args = {(s, rel): (s, rel, nbs[rel], questions[rel], variants[s], None, limits, kernel, keep_answers,
                           not unsandboxed, data_home) for s, rel in tasks}
        if scheduler is not None:
            results = _on_cluster(scheduler, tasks, args, submissions)
        else:
            iterator = (delayed(_grade_task)(*_with_submission(args[t], submissions)) for t in tasks)
            results = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator_unordered")(iterator)
        if progress:
            results = tqdm(results, total=len(tasks), desc="grading", unit="notebook")
        scores = {s: {} for s in students}
        reasons = {s: {} for s in students}
        notes = {s: {} for s in students}
        files = {s: {} for s in students}
        failures = {s: [] for s in students}
        grader_errors = []
        task_seconds = {}
        for student, rel, rows, note, failed, took, kept_files, failure in results:
            task_seconds[f"{student}/{rel}"] = took
            for column, (points, reason) in rows.items():
                scores[student][column] = points
                reasons[student][column] = reason
            notes[student][rel] = note
            files[student].update(kept_files)
            if failure:
                failures[student].append(f"{rel}: {failure}")
            if failed:
                grader_errors.append((student, rel))
        kept = [s for s in earlier if s not in scores]
        rows = {**{s: earlier[s] for s in kept}, **scores}
        order = [s for s in klass if s in rows] + sorted(s for s in rows if s not in klass)
        # integrity flags, from the notebooks as they are now (they never change a score)
        stubs = {rel: {aid: normalised_code(src) for aid, src in answer_cells(student_notebook(nb))}
                 for rel, nb in nbs.items()}
        handed_out = {rel: {normalised_code(c.source) for c in student_notebook(nb).cells if c.cell_type == "code"}
                      for rel, nb in nbs.items()}
        flags = submission_flags(submissions, order, nbs, seed, stubs=stubs, per_student=per_student,
                                 handed_out=handed_out)
        _add_late_flags(submissions, flags)
        for s in students:
            flags.setdefault(s, [])
            flags[s] += [f"{STOPPED_EARLY}{f}".replace("; ", ", ") for f in failures[s]]
            if unsandboxed:
                flags[s].append(UNSANDBOXED_FLAG)
        for s in kept:  # a row kept from an earlier run keeps what stopped that run, and how it ran
            flags.setdefault(s, [])
            flags[s] += earlier_flags.get(s, [])
        # every file of the run is written now, at the end: the reports of the students graded
        # now replace their earlier ones student by student, the scores file last, in one step
        reports = out.parent / f"{out.stem}-reports"
        feedback = out.parent / f"{out.stem}-feedback"
        # every text first, then the writes: nothing is written unless all of it could be made
        texts = {s: (_report_text(s, variants[s], every, scores[s], reasons[s], notes[s], flags.get(s, [])),
                     _feedback_html(s, every, scores[s], reasons[s], notes[s])) for s in students}
        scores_text = _scores_text(order, rows, flags, every, written)
        for s in students:
            _replace_folder(reports / s, files[s])
            write_atomically(reports / f"{s}.md", texts[s][0])
            write_atomically(feedback / f"{s}.html", texts[s][1])
        write_atomically(out, scores_text)
        log = out.parent / f"{out.stem}-log.jsonl"
        sandbox = "none (--unsandboxed)" if unsandboxed else dataclasses.asdict(limits)
        _append_log(log, submissions, seed, students, kept, list(nbs), scores, flags, sandbox)
    return GradeReport(scores=scores, reasons=reasons, max={q.column: q.points for q in every},
                       students=students, kept=kept, flags=flags, out=out, reports=reports, log=log,
                       feedback=feedback, failures={s: f for s, f in failures.items() if f},
                       task_seconds=task_seconds, absent_kept=absent,
                       grader_errors=sorted(grader_errors), seconds=time.perf_counter() - t0)
