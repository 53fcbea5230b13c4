"""Collect submissions from an LMS's bulk download into ``SUBMISSIONS/<id>/<part>/<name>.ipynb`` (private).

* **Canvas** names each file ``<name>_[LATE_]<user id>_<submission id>_<file>``
  in one folder (or zip): the user id is the roster's Canvas ``ID``;
  ``LATE`` marks a submission after the due date.
* **Moodle** gives one folder per participant,
  ``<full name>_<participant id>_assignsubmission_file_``: the participant
  id is matched to the roster's Moodle ``Identifier`` column
  (``Participant 123456``, in the grading worksheet) when it has one, else
  the full name to the roster's names (first and last name); two folders of
  one name with different ids are not placed by name.

``collected.json`` in the submissions folder accumulates across downloads:
each collect replaces the entries of the notebooks it collects (who handed
in what, who was late) and keeps every other notebook's. Symbolic links and
files over :data:`MAX_FILE_BYTES` are listed with the reason, never read;
a file that is not a notebook (invalid JSON, JSON without cells, a number
Python refuses) is listed with its reason, and the others are collected.

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

from ._files import MAX_FILE_BYTES, too_large, write_atomically
from ._notebooks import graded_ids
from ._roster import norm_header
from ._variants import check_student_id

__all__ = ["collect_submissions", "late_from_column"]

_CANVAS = re.compile(r"^(?P<name>[^_]*)_(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<sid>\d+)_(?P<file>.+)$")
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<pid>\d+)_assign(?:submission|feedback)_\w+?_?$")


#: the most a zip download may unpack to (its files within :data:`MAX_FILE_BYTES` together), and its files
MAX_DOWNLOAD_BYTES, MAX_MEMBERS = 4 * 1024 ** 3, 100_000


def _which(path, signatures):
    """The instructor notebook ``path`` is a submission of (its short name), None, or why it cannot be read."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        # not JSON, or JSON Python refuses (a number of thousands of digits, nesting too deep)
        return f"not a readable notebook ({type(exc).__name__}: {' '.join(str(exc).split())[:120]})"
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list) or \
            not all(isinstance(c, dict) for c in nb["cells"]):
        return "JSON, but not a notebook (no list of cells)"
    try:
        ids = graded_ids(nb)
    except (AttributeError, TypeError):
        return "JSON, but not a notebook (malformed cell metadata)"
    ids = {i for i in ids if isinstance(i, str)}
    overlap = {rel: len(ids & sig) for rel, sig in signatures.items()}
    top = max(overlap.values(), default=0)
    best = [rel for rel, n in overlap.items() if n == top]
    if top == 0:
        return None
    return best[0] if len(best) == 1 else "?"  # "?": two exercise notebooks share these check cells


def _extract(download, into):
    """Extract a zip member by member: no member over :data:`MAX_FILE_BYTES`, no link; returns (times, refused)."""
    times, refused = {}, []
    with zipfile.ZipFile(download) as zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
        small = [i.file_size for i in infos if i.file_size <= MAX_FILE_BYTES]
        if len(infos) > MAX_MEMBERS or sum(small) > MAX_DOWNLOAD_BYTES:
            raise ValueError(f"download: {download} holds {len(infos)} files of {sum(small)} bytes in all once "
                             f"unpacked, over the {MAX_MEMBERS} files or {MAX_DOWNLOAD_BYTES >> 30} GiB a class's "
                             "download may have: unpack it yourself and collect the folder.")
        for info in zf.infolist():
            if info.is_dir():
                continue
            mode = (info.external_attr >> 16) & 0o170000
            if mode == 0o120000:
                refused.append(f"{info.filename}: a symbolic link (not followed)")
                continue
            if info.file_size > MAX_FILE_BYTES:
                refused.append(f"{info.filename}: {info.file_size} bytes, over the {MAX_FILE_BYTES >> 20} MiB "
                               "a notebook may have")
                continue
            target = Path(zf.extract(info, into))
            times[str(target)] = datetime.datetime(*info.date_time)
    return times, refused


def _refusal(path, root):
    """Why ``path`` (under ``root``) is not read: a link, a file out of the download, too large; or None."""
    parts = path.relative_to(root).parts
    if any((root / Path(*parts[:k])).is_symlink() for k in range(1, len(parts) + 1)):
        return "a symbolic link (not followed)"
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"not readable ({exc.strerror})"
    return too_large(size) or None


def _merged_record(path, result, notebooks):
    """``collected.json`` with this collect's notebooks replaced and every other notebook's entries kept."""
    old = {}
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
    kept = old.get("notebooks") if isinstance(old.get("notebooks"), dict) else {}
    per = {rel: entry for rel, entry in kept.items() if rel not in notebooks}
    for rel in notebooks:
        per[rel] = {"placed": sorted(s for s, rels in result["placed"].items() if rel in rels),
                    "late": {s: whys[rel] for s, whys in result["late_by_notebook"].items() if rel in whys}}
    late = {}
    for rel, entry in sorted(per.items()):
        for s, why in entry.get("late", {}).items():
            late.setdefault(s, []).append(f"{rel}: {why}")
    record = {k: v for k, v in result.items() if k != "late_by_notebook"}
    record["notebooks"] = per
    record["late"] = sorted(late)
    record["late_why"] = {s: "; ".join(whys) for s, whys in sorted(late.items())}
    return record


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
        ``unreadable`` (a student's ``.ipynb`` that is not valid JSON, or JSON
        that is not a notebook, with the reason: which exercise it is cannot
        be told, so it is not placed), ``refused`` (symbolic links, files over
        :data:`MAX_FILE_BYTES`: never read), ``ambiguous``
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
    # Moodle's participant ids, where the roster has them (its grading worksheet's "Identifier" column:
    # "Participant 123456"): a folder is matched by its id before its name
    by_pid = {}
    for s in roster:
        for header, cell in s.get("fields", {}).items():
            if norm_header(header) in ("identifier", "participant id", "participant"):
                m = re.fullmatch(r"(?:participant\s*)?(\d+)", str(cell).strip(), flags=re.IGNORECASE)
                if m:
                    by_pid[m.group(1)] = s["id"]
    result = {"placed": {}, "late": [], "late_why": {}, "unknown_files": [], "unreadable": [], "unknown_students": [],
              "ambiguous": [], "duplicates": [], "missing": [], "refused": [], "late_by_notebook": {}}
    with tempfile.TemporaryDirectory(prefix="lupikit-collect-") as tmp:
        root, times = download, {}
        if download.is_file() and zipfile.is_zipfile(download):
            times, result["refused"] = _extract(download, tmp)
            root = Path(tmp)
        elif not download.is_dir():
            raise FileNotFoundError(f"download: {download} is neither a folder nor a zip file.")
        files = []
        for path in sorted(root.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                continue
            why = _refusal(path, root)
            if why:
                result["refused"].append(f"{path.relative_to(root)}: {why}")
            elif path.is_file():
                files.append(path)
        # a name under which two Moodle folders (two participant ids) hand in cannot say whose each is
        pids_of_name = {}
        for path in files:
            for part in path.relative_to(root).parts[:-1]:
                m = _MOODLE.match(part)
                if m:
                    pids_of_name.setdefault(_norm_name(m["name"]), set()).add(m["pid"])
        for path in files:
            rel_path = path.relative_to(root)
            owner, late = None, False
            moodle = next((m for m in (_MOODLE.match(part) for part in rel_path.parts[:-1]) if m), None)
            canvas = None if moodle or len(rel_path.parts) > 1 else _CANVAS.match(path.name)
            if len(rel_path.parts) > 1 and rel_path.parts[0] in by_id:  # already <id>/...
                owner = rel_path.parts[0]
            elif moodle and moodle["pid"] in by_pid:
                owner = by_pid[moodle["pid"]]
            elif moodle:
                owners = by_name.get(_norm_name(moodle["name"]), set())
                if len(owners) == 1 and len(pids_of_name.get(_norm_name(moodle["name"]), ())) > 1:
                    result["ambiguous"].append(f"{moodle['name']}: {rel_path} (two Moodle folders of that name, "
                                               "participant ids " + ", ".join(sorted(pids_of_name[
                                                   _norm_name(moodle["name"])])) + "; a roster with Moodle's "
                                               "Identifier column tells them apart)")
                    continue
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
            if rel not in (None, "?") and rel not in signatures:  # cannot say which exercise it is
                result["unreadable"].append(f"{owner}: {rel_path}: {rel}")
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
            if why:
                result["late_by_notebook"].setdefault(owner, {})[rel] = why
            if why and owner not in result["late"]:
                result["late"].append(owner)
                result["late_why"][owner] = why
    result["missing"] = [s["id"] for s in roster if s["id"] not in result["placed"]]
    out.mkdir(parents=True, exist_ok=True)
    # what the grader reads back (the late ones become a flag), kept across downloads: this
    # collect's notebooks replace their own entries, every other notebook's stay
    record = _merged_record(out / "collected.json", result, list(sources))
    write_atomically(out / "collected.json", json.dumps(record, indent=1) + "\n")
    result.pop("late_by_notebook")
    return result
