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
"""

import datetime
import json
import re
import shutil
import tempfile
import zipfile
from pathlib import Path

from ._variants import check_student_id

__all__ = ["collect_submissions"]

_CANVAS = re.compile(r"^(?P<name>[^_]*)_(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<sid>\d+)_(?P<file>.+)$")
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<pid>\d+)_assign(?:submission|feedback)_\w+?_?$")


def _graded_ids(nb):
    return {(c.get("metadata", {}).get("nbgrader") or {}).get("grade_id") for c in nb.get("cells", [])
            if (c.get("metadata", {}).get("nbgrader") or {}).get("grade")} - {None}


def _which(path, signatures):
    """The instructor notebook ``path`` is a submission of (its short name), None, or "" if unreadable."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return ""
    ids = _graded_ids(nb)
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


def collect_submissions(download, out, *, roster, sources, deadline=None):
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

    Returns
    -------
    dict
        ``placed`` ({id: [notebook, ...]}), ``late`` (ids), ``unknown_files``,
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
    signatures = {rel: _graded_ids(json.loads(Path(p).read_text(encoding="utf-8"))) for rel, p in sources.items()}
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
    result = {"placed": {}, "late": [], "unknown_files": [], "unreadable": [], "unknown_students": [],
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
            late = late or (stamp is not None and stamp > deadline)
            if late and owner not in result["late"]:
                result["late"].append(owner)
    result["missing"] = [s["id"] for s in roster if s["id"] not in result["placed"]]
    out.mkdir(parents=True, exist_ok=True)
    # what the grader reads back: the late ones become a flag
    (out / "collected.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result
