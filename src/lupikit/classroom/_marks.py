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

__all__ = ["WRITTEN_PREFIX", "merge_written_marks", "rubric_points", "written_marks_template"]

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


def merge_written_marks(scores, marks):
    """Put the written marks of ``marks`` (a filled template) into ``scores`` (replaced at once).

    Returns
    -------
    dict
        ``columns`` (the written columns), ``students`` (those with at least
        one mark), ``unknown`` (students of ``marks`` without a row in
        ``scores``: not added) and ``out``.
    """
    rows = _read(marks)
    if not rows or rows[0][:1] != ["student"] or not all(c.startswith(WRITTEN_PREFIX) for c in rows[0][1:]):
        raise ValueError(f"{marks} is not a written-marks file (its first row must be student, then "
                         f"{WRITTEN_PREFIX}<label> columns: the template of the instructor edition).")
    written = rows[0][1:]
    maxima = next((r for r in rows[1:] if r[:1] == ["max"]), None)
    if maxima is None:
        raise ValueError(f"{marks} has no row 'max' (the rubrics' points).")
    limits = dict(zip(written, (float(v) for v in maxima[1:])))
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
                raise ValueError(f"{marks}, row {k}, {column}: {cell!r} is not a number.") from exc
            if not 0 <= value <= limits[column]:
                raise ValueError(f"{marks}, row {k}, {column}: {cell} is outside 0 to {limits[column]:g} "
                                 "(the rubric's points).")
            values[column] = value
        given[row[0]] = values
    table = _read(scores)
    header = table[0]
    tail = 2 if header[-2:] == ["total", "flags"] else 1
    questions = [c for c in header[1:-tail] if not c.startswith(WRITTEN_PREFIX)]
    old_written = [c for c in header[1:-tail] if c.startswith(WRITTEN_PREFIX)]
    columns = questions + list(dict.fromkeys(old_written + written))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", *columns, *header[-tail:]])
    seen = set()
    for row in table[1:]:
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
    write_atomically(scores, buffer.getvalue())
    return {"columns": written, "students": sorted(s for s in seen if given[s]),
            "unknown": sorted(set(given) - seen), "out": Path(scores)}
