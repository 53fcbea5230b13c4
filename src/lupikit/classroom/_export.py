"""Grades for a learning-management system: files Canvas's and Moodle's grade imports accept (private).

* **Canvas** (Grades, Import): a CSV with ``Student``, ``ID``, ``SIS User
  ID``, ``SIS Login ID`` and ``Section``, then one column per assignment;
  a new column title makes Canvas create the assignment. With the
  gradebook export as the roster, its columns are copied as they are, so
  that Canvas matches every row to its student.
* **Moodle** (Grades, Import, CSV file): a column that identifies the user
  (mapped to ``username``, ``ID number`` or ``email address`` when
  importing) and one column per grade item.

Neither file has the ``max`` row of ``scores.csv``; the total goes in one
column (``title``), and with ``per_question`` each question in one more.
"""

import csv
import io

from ._files import fmt_points, write_atomically
from ._grade import read_scores
from ._roster import read_roster_table

__all__ = ["export_grades"]

_CANVAS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def export_grades(scores, out, fmt, *, roster=None, id_column=None, title="lupikit exercises", per_question=False):
    """Write the grades of ``scores`` (a ``scores.csv``) to ``out`` for ``fmt`` (``"canvas"`` or ``"moodle"``).

    Parameters
    ----------
    scores : path
        The scores file of ``lupikit classroom grade``.
    out : path
        The file to write (replaced at once).
    fmt : {"canvas", "moodle"}
    roster : path or None
        The roster the ids come from, best the LMS's own export (its
        columns are copied); without it the ids of ``scores`` are used.
    id_column : str, int or None
        As for :func:`~lupikit.classroom._roster.read_roster_table`.
    title : str, default="lupikit exercises"
        The column of the total (the assignment or grade item).
    per_question : bool, default=False
        Also a column per question.

    Returns
    -------
    dict
        ``out``, ``rows`` (students written) and ``missing`` (students of
        the roster without a row in ``scores``: written with an empty grade).
    """
    if fmt not in ("canvas", "moodle"):
        raise ValueError(f"fmt must be 'canvas' or 'moodle', got {fmt!r}.")
    if fmt == "canvas" and roster is None:
        raise ValueError("a Canvas export needs the roster Canvas exported (roster=...): Canvas matches each "
                         "row by its own user ID, Section and SIS columns, which scores.csv does not have.")
    columns, rows = read_scores(scores)
    with open(scores, newline="", encoding="utf-8-sig") as fh:  # the total counts the written marks too
        totals = {r["student"]: float(r["total"]) for r in csv.DictReader(fh) if r["student"] != "max"}
    students = (read_roster_table(roster, id_column=id_column) if roster is not None else
                [{"id": s, "name": "", "email": "", "fields": {}} for s in rows])
    grade_cols = [title] + ([f"{title}: {c}" for c in columns] if per_question else [])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if fmt == "canvas":
        writer.writerow([*_CANVAS, *grade_cols])
    else:
        # the header of the column the ids came from (a Moodle export's), else "ID"
        id_header = next((h for h, v in students[0]["fields"].items() if v == students[0]["id"]), "ID")
        writer.writerow([id_header, "Full name", *grade_cols])
    missing = []
    for s in students:
        row = rows.get(s["id"])
        if row is None:
            missing.append(s["id"])
            grades = [""] * len(grade_cols)
        else:
            grades = [fmt_points(totals[s["id"]])] + ([fmt_points(row[c]) for c in columns] if per_question else [])
        if fmt == "canvas":
            fields = s["fields"]
            writer.writerow([fields.get("Student", s["name"]), fields.get("ID", s["id"]),
                             fields.get("SIS User ID", ""), fields.get("SIS Login ID", ""),
                             fields.get("Section", ""), *grades])
        else:
            writer.writerow([s["id"], s["name"], *grades])
    write_atomically(out, buffer.getvalue())
    return {"out": out, "rows": len(students), "missing": missing}
