"""Rosters as teachers have them: a plain list, or a Canvas or Moodle export, comma or semicolon (private).

:func:`read_roster_table` reads the students of a CSV file with their id,
name and e-mail where the file has them:

* a plain list, one id a row, with or without a header (``student``,
  ``id``, ``username``, ...);
* Canvas's gradebook export (``Student``, ``ID``, ``SIS User ID``, ``SIS
  Login ID``, ``Section``, ...): the id is Canvas's user ``ID`` (the number
  in the names of a bulk download's files); the ``Points Possible`` row and
  Canvas's test student (``Test Student``, ``Student, Test``) are skipped;
* Moodle's grade or participants export (``First name``, ``Last name``,
  ``ID number``, ``Email address``, ...): the id is ``Username`` if there is
  one, else ``ID number`` where every student has one, else the e-mail;
* the cells separated by commas, semicolons (spreadsheets in many
  languages) or tabs, with or without a byte-order mark.

``id_column`` (a header or a 1-based column number) names the id column
when the default is not the right one. A header cell is never taken for a
student.
"""

import csv
import io
from pathlib import Path

from ._variants import check_student_id

__all__ = ["ID_HEADERS", "norm_header", "read_roster", "read_roster_table"]

#: header cells that name an id column, most specific first
ID_HEADERS = ("username", "user name", "login", "login id", "student_id", "student id", "id", "student",
              "sis login id", "sis user id", "id number", "idnumber", "email", "email address",
              "e-mail", "e-mail address", "matriculation number", "student number")
_NAME_HEADERS = ("name", "full name", "student name")


def _sniff(text):
    sample = "\n".join(text.splitlines()[:20])
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t").delimiter
    except csv.Error:
        return ","


def norm_header(cell):
    """A header cell as compared: case, surrounding space, runs of spaces and ``_`` do not count."""
    return " ".join(str(cell).strip().lower().replace("_", " ").split())


def _kind(header):
    cells = {norm_header(c) for c in header}
    if {"student", "id"} <= cells and ("sis user id" in cells or "section" in cells):
        return "canvas"
    if {"first name", "last name"} <= cells or "id number" in cells or "email address" in cells:
        return "moodle"
    return "plain"


def read_roster_table(path, id_column=None):
    """The students of a roster file: a list of dicts with ``id``, ``name`` and ``email``.

    Parameters
    ----------
    path : path
        A CSV file (comma, semicolon or tab separated).
    id_column : str, int or None
        The column that holds the ids: a header (any case) or a 1-based
        number; None chooses as described in the module's documentation.

    Returns
    -------
    list of dict
        One per student, in the file's order: ``id`` (checked as a folder
        name), ``name`` and ``email`` (empty strings where the file has
        none), ``row`` (the row number) and ``fields`` (the row's cells by
        header, empty without a header).

    Raises
    ------
    FileNotFoundError, ValueError
        No file; an unknown ``id_column``, an id that cannot name a folder
        or that appears twice, or no student.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "grades.csv"
    >>> _ = path.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Quiz\\n"
    ...                     "    Points Possible,,,,,10\\n"
    ...                     "\\"Lovelace, Ada\\",101,s1,ada,A,7\\nTest Student,999,,,A,0\\n")
    >>> [(s["id"], s["name"]) for s in read_roster_table(path)]
    [('101', 'Lovelace, Ada')]
    >>> [s["id"] for s in read_roster_table(path, id_column="SIS Login ID")]
    ['ada']
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"roster: {path} does not exist (a CSV file with one student a row).")
    text = path.read_text(encoding="utf-8-sig")
    rows = [[c.strip() for c in row] for row in csv.reader(io.StringIO(text), delimiter=_sniff(text))]
    rows = [(k, row) for k, row in enumerate(rows, start=1) if any(row)]
    if not rows:
        raise ValueError(f"roster {path.name} lists no student id.")
    first = [norm_header(c) for c in rows[0][1]]
    has_header = any(c in ID_HEADERS or c in _NAME_HEADERS or c in ("first name", "last name", "section")
                     for c in first)
    header = rows[0][1] if has_header else []
    body = rows[1:] if has_header else rows
    kind = _kind(header) if has_header else "plain"
    names = [norm_header(c) for c in header]

    def column(wanted):
        return names.index(wanted) if wanted in names else None

    if id_column is not None:
        if isinstance(id_column, int) or str(id_column).isdigit():
            col = int(id_column) - 1
            width = max(len(r) for _, r in rows)
            if not 0 <= col < width:
                raise ValueError(f"id_column {id_column} is not a column of {path.name} (it has {width}).")
        else:
            col = column(norm_header(id_column))
            if col is None:
                raise ValueError(f"id_column {id_column!r} is not a header of {path.name}; its headers are: "
                                 f"{', '.join(header) or 'none (give a column number)'}.")
    elif kind == "canvas":
        col = column("id")
    elif kind == "moodle":
        col = next((column(h) for h in ("username", "id number", "idnumber")
                    if column(h) is not None and all(len(r) > column(h) and r[column(h)] for _, r in body)),
                   column("email address") if column("email address") is not None else column("email"))
        if col is None:
            raise ValueError(f"roster {path.name} looks like a Moodle export but has no Username, ID number "
                             "or Email address column: give id_column.")
    elif has_header:
        col = next((column(h) for h in ID_HEADERS if column(h) is not None), 0)
    else:
        col = 0
    name_col = next((column(h) for h in ("student", "name", "full name", "student name") if column(h) is not None
                     and column(h) != col), None)
    first_col, last_col = column("first name"), column("last name")
    email_col = next((column(h) for h in ("email address", "email", "e-mail", "e-mail address")
                      if column(h) is not None), None)
    students, seen = [], {}
    for number, row in body:
        cell = row[col] if col < len(row) else ""
        if kind == "canvas":
            who = row[name_col] if name_col is not None and name_col < len(row) else ""
            if who.strip().lower() in ("points possible", "test student", "student, test") or not cell:
                continue
        if not cell:
            continue
        sid = check_student_id(cell, where=f"roster {path.name}, row {number}:")
        if sid in seen:
            raise ValueError(f"roster {path.name}: student id {sid!r} appears twice (rows {seen[sid]} and {number}).")
        seen[sid] = number
        if name_col is not None and name_col < len(row):
            name = row[name_col]
        elif first_col is not None and last_col is not None:
            name = " ".join(x for x in (row[first_col] if first_col < len(row) else "",
                                        row[last_col] if last_col < len(row) else "") if x)
        else:
            name = ""
        email = row[email_col] if email_col is not None and email_col < len(row) else ""
        students.append({"id": sid, "name": name, "email": email, "row": number,
                         "fields": dict(zip(header, row)) if header else {}})
    if not students:
        raise ValueError(f"roster {path.name} lists no student id.")
    return students

def read_roster(path, id_column=None):
    """The student ids of a roster file, in its order.

    A plain CSV with one id a row (first column; a first row of headers such
    as ``student`` or ``id`` is skipped), or a Canvas or Moodle export,
    comma, semicolon or tab separated: see
    :func:`read_roster_table`, which also gives
    the names and e-mails. ``id_column`` (a header or a 1-based number)
    names the id column. Blank rows are skipped.

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        An id is not valid, appears twice, or the roster is empty.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "roster.csv"
    >>> _ = path.write_text("student\\nada\\nalan\\n")
    >>> read_roster(path)
    ['ada', 'alan']
    >>> _ = path.write_text("Nachname;Vorname;Username\\nLovelace;Ada;ada\\nTuring;Alan;alan\\n")
    >>> read_roster(path)
    ['ada', 'alan']
    """
    return [s["id"] for s in read_roster_table(path, id_column=id_column)]
