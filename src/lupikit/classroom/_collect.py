"""Collect submissions from an LMS's bulk download into ``SUBMISSIONS/<id>/<part>/<name>.ipynb`` (private).

* **Canvas** names each file ``<name>_[LATE_]<user id>_<submission id>_<file>``
  in one folder (or zip): the user id is the roster's Canvas ``ID``;
  ``LATE`` marks a submission after the due date.
* **Moodle** gives one folder per participant,
  ``<full name>_<participant id>_assignsubmission_file_``: the full name is
  matched to the roster's names (first and last name).

A notebook is recognised by what it holds, not by its file name: the ids
of its graded cells are compared with those of each instructor notebook, so
``exercises (1).ipynb`` or a misnamed part's notebook lands where it
belongs. What cannot be placed (files that are no exercise notebook,
students not on the roster, two files for one notebook) is listed.

A submission is late when Canvas marks it ``LATE``, when its file time is
after the deadline, or when a column of the roster says so: a time (an LMS
worksheet's ``Last modified (submission)``, in ISO form or Moodle's
``Thursday, 3 December 2026, 11:38 PM``) after the deadline, or a mark
such as ``late``, ``yes`` or ``1``.
"""

import datetime
import json
import re
import shutil
import tempfile
import zipfile
from pathlib import Path

from ._notebooks import graded_ids
from ._roster import norm_header
from ._variants import check_student_id

__all__ = ["collect_submissions", "late_from_column"]

_CANVAS = re.compile(r"^(?P<name>[^_]*)_(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<sid>\d+)_(?P<file>.+)$")
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<pid>\d+)_assign(?:submission|feedback)_\w+?_?$")


def _which(path, signatures):
    """The instructor notebook ``path`` is a submission of (its short name), None, or "" if unreadable."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return ""
    ids = graded_ids(nb)
    overlap = {rel: len(ids & sig) for rel, sig in signatures.items()}
    top = max(overlap.values(), default=0)
    best = [rel for rel, n in overlap.items() if n == top]
    if top == 0:
        return None
    return best[0] if len(best) == 1 else "?"  # "?": two exercise notebooks share these check cells


def _norm_name(text):
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def _stamp(path, times, zipped):
    """When a file was handed in: its time in the zip (an LMS's download keeps it), else its mtime;
    None if a zipped file's time is not known (its extraction time says nothing)."""
    if zipped:
        return times.get(str(path))
    return datetime.datetime.fromtimestamp(path.stat().st_mtime)


#: a late column's cells that mean late, and those that mean on time
_LATE_MARKS, _ON_TIME_MARKS = {"late", "yes", "y", "true", "1", "x"}, {"", "-", "no", "n", "false", "0", "on time"}
#: time columns detected without being named
TIME_HEADERS = ("last modified (submission)", "submitted", "submitted at", "submission time", "submission date")


def _headers(roster):
    """The roster's headers by their compared form (:func:`~lupikit.classroom._roster.norm_header`)."""
    return {norm_header(h): h for s in roster for h in s.get("fields", {})}


def _cell_time(text):
    """A time cell as a naive local datetime: ISO 8601, or Moodle's ``Thursday, 3 December 2026, 11:38 PM``."""
    text = " ".join(text.split())
    try:
        stamp = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        for form in ("%A, %d %B %Y, %I:%M %p", "%d %B %Y, %I:%M %p", "%A, %d %B %Y, %H:%M", "%d %B %Y, %H:%M",
                     "%d/%m/%Y %H:%M", "%d.%m.%Y %H:%M"):
            try:
                stamp = datetime.datetime.strptime(text, form)
                break
            except ValueError:
                continue
        else:
            return None
    return stamp.astimezone().replace(tzinfo=None) if stamp.tzinfo is not None else stamp


def late_from_column(roster, column, deadline):
    """The roster ids a column calls late: a time after ``deadline``, or a mark such as ``late``/``yes``.

    Parameters
    ----------
    roster : list of dict
        :func:`~lupikit.classroom._roster.read_roster_table`'s students.
    column : str
        A header of the roster (any case).
    deadline : datetime or None
        Needed when the column holds times; naive (local) or with a time zone.

    Returns
    -------
    dict of str to str
        The late students' ids and their cells.

    Raises
    ------
    ValueError
        ``column`` is no header of the roster, a cell is neither a time nor
        a late mark, or a time without a deadline.

    Examples
    --------
    >>> import datetime
    >>> roster = [{"id": "ada", "fields": {"Last modified (submission)": "Monday, 1 March 2027, 11:38 PM"}},
    ...           {"id": "alan", "fields": {"Last modified (submission)": "2027-03-02T00:15"}},
    ...           {"id": "grace", "fields": {"Last modified (submission)": "-"}}]
    >>> sorted(late_from_column(roster, "last modified (submission)", datetime.datetime(2027, 3, 1, 23, 59)))
    ['alan']
    """
    if deadline is not None and deadline.tzinfo is not None:
        deadline = deadline.astimezone().replace(tzinfo=None)
    headers = _headers(roster)
    header = headers.get(norm_header(column))
    if header is None:
        raise ValueError(f"late column {column!r} is not a header of the roster; its headers are: "
                         f"{', '.join(dict.fromkeys(headers.values())) or 'none'}.")
    late = {}
    for s in roster:
        cell = str(s.get("fields", {}).get(header, "")).strip()
        if cell.lower() in _ON_TIME_MARKS:
            continue
        if cell.lower() in _LATE_MARKS:
            late[s["id"]] = cell
            continue
        stamp = _cell_time(cell)
        if stamp is None:
            raise ValueError(f"roster row {s.get('row', '?')} ({s['id']}): {header} is {cell!r}, neither a time "
                             "(e.g. 2027-03-01T23:59) nor a late mark (late/yes/1, or -/no/0).")
        if deadline is None:
            raise ValueError(f"the roster's column {header!r} holds times: give a deadline to compare them with.")
        if stamp > deadline:
            late[s["id"]] = cell
    return late


def collect_submissions(download, out, *, roster, sources, deadline=None, late_column=None):
    """Place an LMS bulk download's notebooks under ``out/<id>/<notebook>.ipynb``.

    Parameters
    ----------
    download : path
        The download: a folder or a zip (Canvas: files ``name_userid_...``;
        Moodle: a folder per participant).
    out : path
        The submissions folder to fill (``lupikit classroom grade``'s input).
    roster : list of dict
        :func:`~lupikit.classroom._roster.read_roster_table`'s students: their
        ``id`` (Canvas's user id for a Canvas download) and ``name``.
    sources : dict of str to path
        The instructor notebooks, by short name.
    deadline : datetime or None
        A submission whose file time (in the zip, else on disk) is after it
        is late, as is one Canvas marks ``LATE``. A time zone is converted
        to local time, as the download's file times are.
    late_column : str or None
        A roster header whose cells hold each student's submission time or
        a late mark (see :func:`late_from_column`). None: the roster's
        ``Last modified (submission)`` (or ``Submitted``) column if it has
        one and a deadline is given.

    Returns
    -------
    dict
        ``placed`` ({id: [notebook, ...]}), ``late`` (ids), ``late_why`` ({id: why}), ``unknown_files``,
        ``unreadable`` (a student's ``.ipynb`` that is not valid JSON: which
        exercise it is cannot be told, so it is not placed), ``ambiguous``
        (a name two roster students share, or check cells two exercise
        notebooks share: not placed),
        ``unknown_students`` (in the download, not on the roster),
        ``duplicates`` (a second file for a notebook, not placed) and
        ``missing`` (roster ids with nothing placed).
    """
    download, out = Path(download), Path(out)
    if deadline is not None and deadline.tzinfo is not None:
        deadline = deadline.astimezone().replace(tzinfo=None)
    if late_column is None and deadline is not None:
        present = _headers(roster)
        late_column = next((present[h] for h in TIME_HEADERS if h in present), None)
    late_by_roster = {} if late_column is None else late_from_column(roster, late_column, deadline)
    signatures = {rel: graded_ids(json.loads(Path(p).read_text(encoding="utf-8"))) for rel, p in sources.items()}
    by_id = {check_student_id(s["id"], where="roster:"): s for s in roster}
    by_name = {}
    for s in roster:
        if s.get("name"):
            forms = {_norm_name(s["name"])}
            if "," in s["name"]:  # "Lovelace, Ada" is also "Ada Lovelace"
                last, first = s["name"].split(",", 1)
                forms.add(_norm_name(f"{first} {last}"))
            for form in forms:
                by_name.setdefault(form, set()).add(s["id"])
    result = {"placed": {}, "late": [], "late_why": {}, "unknown_files": [], "unreadable": [], "unknown_students": [],
              "ambiguous": [], "duplicates": [], "missing": []}
    with tempfile.TemporaryDirectory(prefix="lupikit-collect-") as tmp:
        root, times = download, {}
        if download.is_file() and zipfile.is_zipfile(download):
            with zipfile.ZipFile(download) as zf:
                zf.extractall(tmp)
                times = {str(Path(tmp) / i.filename): datetime.datetime(*i.date_time) for i in zf.infolist()}
            root = Path(tmp)
        elif not download.is_dir():
            raise FileNotFoundError(f"download: {download} is neither a folder nor a zip file.")
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            rel_path = path.relative_to(root)
            owner, late = None, False
            moodle = next((m for m in (_MOODLE.match(part) for part in rel_path.parts[:-1]) if m), None)
            canvas = None if moodle or len(rel_path.parts) > 1 else _CANVAS.match(path.name)
            if len(rel_path.parts) > 1 and rel_path.parts[0] in by_id:  # already <id>/...
                owner = rel_path.parts[0]
            elif moodle:
                owners = by_name.get(_norm_name(moodle["name"]), set())
                if len(owners) != 1:
                    key = "ambiguous" if owners else "unknown_students"
                    result[key].append(f"{moodle['name']}: {rel_path}" + (
                        f" (the roster has {len(owners)} students of that name)" if owners else ""))
                    continue
                owner = next(iter(owners))
            elif canvas:
                owner, late = canvas["uid"], bool(canvas["late"])
                if owner not in by_id:
                    result["unknown_students"].append(f"{canvas['name']} (user id {owner}): {rel_path}")
                    continue
            else:
                result["unknown_files"].append(str(rel_path))
                continue
            rel = _which(path, signatures) if path.suffix == ".ipynb" else None
            if rel == "":  # a broken notebook cannot say which exercise it is: the instructor decides
                result["unreadable"].append(f"{owner}: {rel_path}")
                continue
            if rel == "?":
                result["ambiguous"].append(f"{owner}: {rel_path} (two exercise notebooks share its check cells)")
                continue
            if rel is None:
                result["unknown_files"].append(str(rel_path))
                continue
            target = out / owner / f"{rel}.ipynb"
            if rel in result["placed"].get(owner, []):
                result["duplicates"].append(f"{owner}: {rel_path} (a second {rel})")
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            result["placed"].setdefault(owner, []).append(rel)
            stamp = None if deadline is None else _stamp(path, times, root is not download)
            why = ("marked LATE in the LMS's download" if late else
                   f"{rel_path.name} dated {stamp:%Y-%m-%d %H:%M}, after the deadline"
                   if stamp is not None and stamp > deadline else
                   f"the roster's {late_column}: {late_by_roster[owner]}" if owner in late_by_roster else None)
            if why and owner not in result["late"]:
                result["late"].append(owner)
                result["late_why"][owner] = why
    result["missing"] = [s["id"] for s in roster if s["id"] not in result["placed"]]
    out.mkdir(parents=True, exist_ok=True)
    # what the grader reads back: the late ones become a flag
    (out / "collected.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result
