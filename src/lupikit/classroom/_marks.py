"""The written exercises' marks: a template the instructor fills, merged into the scores (private).

``classroom build`` writes ``instructor/written-marks.csv``: a column
``student``, a column ``written:<label>`` per written exercise, a row
``max`` with the points of each rubric (``**Rubric** (3 points)``) and a
row per student of the roster (empty cells). The instructor types the marks;
:func:`merge_written_marks` puts them into ``scores.csv`` as columns of
their own, counted in ``total``. An empty cell is no mark yet (0 in the
total); a mark above the rubric's points or below 0 is refused with its
row and column.
"""

import csv
import io
import re
from pathlib import Path

from ._files import fmt_points, write_atomically

__all__ = ["WRITTEN_PREFIX", "keep_written_marks", "merge_written_marks", "rubric_points", "written_marks_template"]

WRITTEN_PREFIX = "written:"
_POINTS = re.compile(r"\((\d+(?:\.\d+)?)\s+points?\)")


def rubric_points(rubric, default=1.0):
    """The points a rubric gives (``**Rubric** (3 points): ...``), else ``default``.

    Examples
    --------
    >>> rubric_points("**Rubric** (3 points): the sign, then the bound."), rubric_points("")
    (3.0, 1.0)
    """
    m = _POINTS.search(rubric or "")
    return float(m.group(1)) if m else float(default)


def written_marks_template(written, students):
    """The text of ``written-marks.csv`` for the written exercises ``written`` and the roster ``students``."""
    labels = [w["label"] for w in written if w.get("label")]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", *(WRITTEN_PREFIX + label for label in labels)])
    writer.writerow(["max", *(fmt_points(rubric_points(w["rubric"])) for w in written if w.get("label"))])
    for s in students or []:
        writer.writerow([s, *([""] * len(labels))])
    return buffer.getvalue()


def _read(path):
    with Path(path).open(newline="", encoding="utf-8-sig") as fh:
        return list(csv.reader(fh))


def _parse_marks(rows, where):
    """The written columns, their maxima and the marks given, from the rows of a marks file."""
    if not rows or rows[0][:1] != ["student"] or not all(c.startswith(WRITTEN_PREFIX) for c in rows[0][1:]):
        raise ValueError(f"{where} is not a written-marks file (its first row must be student, then "
                         f"{WRITTEN_PREFIX}<label> columns: the template of the instructor edition).")
    written = rows[0][1:]
    maxima = next((r for r in rows[1:] if r[:1] == ["max"]), None)
    if maxima is None:
        raise ValueError(f"{where} has no row 'max' (the rubrics' points).")
    limits = {}
    for column, cell in zip(written, maxima[1:] + [""] * len(written)):
        try:
            limits[column] = float(cell.replace(",", "."))
        except ValueError as exc:
            raise ValueError(f"{where}, row max, {column}: {cell!r} is not the rubric's points.") from exc
    given = {}
    for k, row in enumerate(rows[1:], start=2):
        if not row or row[0] == "max":
            continue
        values = {}
        for column, cell in zip(written, row[1:]):
            if cell.strip() == "":
                continue
            try:
                value = float(cell.replace(",", "."))
            except ValueError as exc:
                raise ValueError(f"{where}, row {k}, {column}: {cell!r} is not a number.") from exc
            if not 0 <= value <= limits[column]:
                raise ValueError(f"{where}, row {k}, {column}: {cell} is outside 0 to {limits[column]:g} "
                                 "(the rubric's points).")
            values[column] = value
        given[row[0]] = values
    return written, limits, given


def merged_text(scores_rows, marks_rows, where="written marks"):
    """The text of a scores file (its rows) with the written marks (the rows of a marks file) merged in.

    Returns (text, written columns, students with a mark, students of the marks without a row).
    """
    written, limits, given = _parse_marks(marks_rows, where)
    header = scores_rows[0]
    tail = 2 if header[-2:] == ["total", "flags"] else 1
    questions = [c for c in header[1:-tail] if not c.startswith(WRITTEN_PREFIX)]
    old_written = [c for c in header[1:-tail] if c.startswith(WRITTEN_PREFIX)]
    columns = questions + list(dict.fromkeys(old_written + written))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", *columns, *header[-tail:]])
    seen = set()
    for row in scores_rows[1:]:
        if not row:
            continue
        cells = dict(zip(header, row))
        student = row[0]
        if student == "max":
            cells.update({c: fmt_points(limits[c]) for c in written})
        elif student in given:
            seen.add(student)
            cells.update({c: fmt_points(v) for c, v in given[student].items()})
        values = [cells.get(c, "") for c in columns]
        total = sum(float(v) for v in values if v != "")
        writer.writerow([student, *values, fmt_points(total), *([cells.get("flags", "")] if tail == 2 else [])])
    return (buffer.getvalue(), written, sorted(s for s in seen if given[s]), sorted(set(given) - seen))


def merge_written_marks(scores, marks):
    """Put the written marks of ``marks`` (a filled template) into ``scores`` (replaced at once).

    Returns
    -------
    dict
        ``columns`` (the written columns), ``students`` (those with at least
        one mark), ``unknown`` (students of ``marks`` without a row in
        ``scores``: not added) and ``out``.
    """
    text, written, students, unknown = merged_text(_read(scores), _read(marks), where=str(marks))
    write_atomically(scores, text)
    return {"columns": written, "students": students, "unknown": unknown, "out": Path(scores)}


def keep_written_marks(old_text, template_text, where="written-marks.csv"):
    """The new template with the marks of a filled-in ``old_text`` kept (a rebuild of the editions).

    Every mark of the old file is kept: a student still on the roster keeps
    theirs, a new student gets an empty row, a student no longer on the
    roster keeps their row at the end (and is reported). A mark in a column
    the new template no longer has raises ValueError: the rebuild must not
    drop it.

    Returns
    -------
    (text, added, removed) : the file's text, the students added, those no longer on the roster.
    """
    old = list(csv.reader(io.StringIO(old_text)))
    new = list(csv.reader(io.StringIO(template_text)))
    written_old, _, given = _parse_marks(old, where)
    header = new[0]
    lost = sorted({c for marks in given.values() for c in marks} - set(header[1:]))
    if lost:
        raise ValueError(f"{where} holds marks for {', '.join(lost)}, which the rebuilt edition no longer has: "
                         "merge them into scores.csv first (lupikit classroom marks), or move the file aside, "
                         "then build again.")
    rows = {r[0]: r for r in new[1:] if r}
    roster = [r[0] for r in new[1:] if r and r[0] != "max"]
    for student, marks in given.items():
        if student in rows:
            row = rows[student]
            for column, value in marks.items():
                row[header.index(column)] = fmt_points(value)
    removed = [s for s in given if s not in rows and s != "max" and given[s]]
    added = [s for s in roster if s not in given]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for r in new[1:]:
        if r:
            writer.writerow(rows[r[0]])
    for s in removed:
        writer.writerow([s, *(fmt_points(given[s][c]) if c in given[s] else "" for c in header[1:])])
    return buffer.getvalue(), added, removed
