"""Executing the book's notebooks for the CLI and the book build (private).

One run is a papermill execution of a notebook with parameters, in a kernel
prepared by :mod:`lupikit._harness`, whose claims (:mod:`lupikit.claims`) are
read back from the executed notebook. On top of it:

- :func:`paper_record` and :func:`write_paper_result`: the paper-scale results
  ``results/paper/<part>/<name>.json`` with their provenance, and
  :func:`fingerprints`, which says when such a result is stale;
- :func:`sweep_grid` and :func:`sweep_rows`: the runs of a parameter sweep and
  its table (one row per run, a column per claim value).

This module drives notebooks; it imports no part of the library.
"""

import datetime as _dt
import itertools
import json
import os
import tempfile
import time
import uuid
from pathlib import Path

import papermill as pm
from jupyter_client.manager import KernelManager
from traitlets import Unicode, default

from .claims import code_paths, fingerprints, provenance, read_claims

__all__ = [
    "RESULT_KEYS",
    "IPCKernelManager",
    "execute",
    "code_paths",
    "fingerprints",
    "paper_record",
    "write_paper_result",
    "read_paper_result",
    "is_stale",
    "sweep_grid",
    "sweep_rows",
]

#: keys of a paper-scale result file, in order
RESULT_KEYS = ("notebook", "parameters", "claims", "lupikit_version", "git_commit", "executed_at",
               "seconds", "machine", "fingerprint")
class IPCKernelManager(KernelManager):
    """A kernel manager that talks to its kernel over IPC (Unix sockets), not TCP.

    Kernels started at once from one process then cannot race for the same TCP
    ports, and nothing listens on the network.
    """

    transport = Unicode("ipc")

    @default("ip")
    def _ip_default(self):  # the socket files' prefix: unique, outside the notebook's folder
        return os.path.join(tempfile.gettempdir(), f"lupikit-kernel-{uuid.uuid4().hex}")


def execute(path, target, parameters, *, kernel="python3", progress=False, log_output=False):
    """Execute one notebook with papermill; return ``(seconds, error)``.

    ``error`` is None, or ``"<exception name>: <message>"`` when a cell raised
    (the executed notebook, with the error, is written all the same).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    error = None
    try:
        pm.execute_notebook(str(path), str(target), parameters=parameters, cwd=str(Path(path).parent),
                            kernel_name=kernel, progress_bar=progress, log_output=log_output,
                            kernel_manager_class=IPCKernelManager if os.name == "posix" else KernelManager)
    except pm.PapermillExecutionError as exc:
        error = f"{exc.ename}: {exc.evalue}"
    return time.perf_counter() - t0, error


def paper_record(path, short_name, executed, parameters, seconds, executed_at, *,
                 fingerprint=None, prov=None):
    """The paper-scale result of one executed notebook (a dict with :data:`RESULT_KEYS`).

    ``fingerprint`` and ``prov`` (:func:`fingerprints` and :func:`provenance`)
    should be taken when the run starts: code changed while a long run goes on
    must make its record stale, not current. Taken now if not given.
    """
    prov = provenance() if prov is None else prov
    fingerprint = fingerprints(path, short_name) if fingerprint is None else fingerprint
    return {
        "notebook": short_name,
        "parameters": parameters,
        "claims": [{k: c.get(k) for k in ("id", "statement", "paper_value", "value", "verdict",
                                          "threshold", "source", "section")}
                   for c in read_claims(executed)],
        "lupikit_version": prov["lupikit_version"],
        "git_commit": prov["git_commit"],
        "executed_at": executed_at,
        "seconds": round(float(seconds), 1),
        "machine": prov["machine"],
        "fingerprint": fingerprint,
    }


def result_path(results_dir, short_name):
    return Path(results_dir) / f"{short_name}.json"


def write_paper_result(results_dir, record):
    path = result_path(results_dir, record["notebook"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path


def read_paper_result(results_dir, short_name):
    """The recorded paper-scale result of a notebook, or None."""
    path = result_path(results_dir, short_name)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def is_stale(record, path, short_name):
    """Whether the notebook or its part's code changed since ``record`` was made."""
    return record.get("fingerprint") != fingerprints(path, short_name)


def now():
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def sweep_grid(values):
    """Every combination of ``{name: [v1, v2, ...]}`` as a list of dicts (in order)."""
    names = list(values)
    return [dict(zip(names, combo)) for combo in itertools.product(*(values[n] for n in names))]


def sweep_rows(runs):
    """One row per run: its parameters, then per claim the value and whether it held.

    ``runs`` is a list of ``(parameters, executed_path, seconds, error)``.
    """
    rows = []
    for i, (params, executed, seconds, error) in enumerate(runs):
        row = {"run": i, **{k: json.dumps(v) if isinstance(v, list) else v for k, v in params.items()},
               "seconds": round(seconds, 2), "error": error or ""}
        if executed is not None and Path(executed).is_file():
            for c in read_claims(executed):
                row[c["id"]] = c["value"]
                row[c["id"] + ":holds"] = c["holds"]
        rows.append(row)
    return rows


def environment_flag(name, value):
    """Set (or with None, remove) an environment variable of this process."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
