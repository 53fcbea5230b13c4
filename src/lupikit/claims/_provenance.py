"""Where a run comes from, and the paper-scale record it is shown beside (private).

:func:`provenance` names the version, commit and machine of a run;
:func:`find_paper_result` finds the recorded paper-scale result of a notebook
and whether it is stale (:func:`lupikit.claims.check_fingerprint`), so that a
run at other parameters shows the recorded values beside its own. Nothing
here computes a value of a run: a record's fingerprint leaves this module out.
"""

import json
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from ._fingerprint import check_fingerprint

__all__ = ["find_paper_result", "provenance"]


def _version():
    try:
        return metadata.version("lupikit")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


def find_paper_result(notebook, start=None):
    """The recorded paper-scale result of ``notebook`` and whether it is stale, or None.

    Looks for ``results/paper/<part>/<name>.json`` in the folder ``start``
    (default: the working directory, where a notebook runs) and its parents, or
    in ``$LUPIKIT_RESULTS``; the notebook's source is taken next to the working
    directory (``<name>.ipynb``).

    Returns
    -------
    (record, stale) or None
        ``stale`` is a :class:`~lupikit.claims.Staleness` (true when stale).
    """
    start = Path.cwd() if start is None else Path(start)
    roots = [Path(os.environ["LUPIKIT_RESULTS"])] if os.environ.get("LUPIKIT_RESULTS") else [
        d / "results" / "paper" for d in (start, *start.parents)]
    for root in roots:
        path = root / f"{notebook}.json"
        if path.is_file():
            record = json.loads(path.read_text(encoding="utf-8"))
            source = start / f"{notebook.rsplit('/', 1)[-1]}.ipynb"
            return record, check_fingerprint(record.get("fingerprint"), source)
    return None


def provenance():
    """Version, git commit and machine of this run (a dict)."""
    commit = os.environ.get("LUPIKIT_GIT_COMMIT")
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                    cwd=Path(__file__).resolve().parent, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            commit = ""
    return {
        "lupikit_version": _version(),
        "git_commit": commit or "unknown",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }
