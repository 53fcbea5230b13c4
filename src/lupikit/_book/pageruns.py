"""Runs of a notebook started from its page: a queue, their progress, cancel, and what each left (private).

The served book (:mod:`lupikit._book.server`) starts runs here. A run is
what ``lupikit run`` does (:func:`lupikit._book.execute.execute` with the
kernels prepared the same way: every claim evaluated, the notebook's own
asserts recorded), at values checked by :func:`lupikit._book.forms.check_form`.
At most ``workers`` runs at once (default: one per core); the others wait,
each knowing its place. Each run keeps a folder of its own under the runs
folder: ``run.json`` (notebook, parameters, state, times, the command that
reproduces it), the executed notebook and its page (HTML).

This module imports no part of the library.
"""

import datetime as _dt
import json
import os
import signal
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .execute import execute
from .forms import command_line

__all__ = ["RunQueue", "compare_claims"]

#: the states of a run, in order
STATES = ("queued", "running", "done", "failed", "cancelled")


class _Run:
    """One run: what it runs, where it stands, and its folder."""

    def __init__(self, short, values, folder, estimate):
        self.id = folder.name
        self.short, self.values, self.folder = short, values, folder
        self.state, self.error = "queued", None
        self.cell, self.cells = 0, 0
        self.pid, self.cancelled = None, False
        self.created = time.time()
        self.started = self.ended = None
        self.estimate = estimate
        self.claims = []

    # the watcher's side (papermill's engine and kernel manager call these)
    def kernel_started(self, pid):
        self.pid = pid
        if self.cancelled:  # cancelled while its kernel was starting
            self._kill()

    def cell_started(self, index, n_cells):
        self.cell, self.cells = int(index) + 1, int(n_cells)

    def _kill(self):
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def status(self, place=None):
        now = time.time()
        elapsed = (self.ended or now) - self.started if self.started else 0.0
        return {"id": self.id, "notebook": self.short, "values": {k: repr(v) for k, v in self.values.items()},
                "state": self.state, "place": place, "cell": self.cell, "cells": self.cells,
                "elapsed": round(elapsed, 1), "estimate": self.estimate, "error": self.error,
                "created": _dt.datetime.fromtimestamp(self.created, _dt.timezone.utc).isoformat(timespec="seconds"),
                "command": command_line(self.short, self.values),
                "page": f"/runs/{self.id}/page.html" if (self.folder / "page.html").is_file() else None,
                "notebook_file": f"/runs/{self.id}/notebook.ipynb" if (self.folder / "notebook.ipynb").is_file()
                else None,
                "claims": self.claims}

    def save(self):
        record = {**self.status(), "place": None}
        (self.folder / "run.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


class RunQueue:
    """Runs started from the pages, ``workers`` at a time.

    Parameters
    ----------
    notebooks : path
        The notebooks folder.
    runs : path
        Where each run keeps its folder.
    workers : int or None
        Runs at once (None: one per core).
    finish : callable or None
        ``finish(run_folder, executed_notebook, short, status) -> (claims, page)``:
        what a run that ended leaves beside its notebook (its claims as a list
        of dicts, its HTML page), given its state (:meth:`status`); None keeps
        the notebook only.
    estimate : callable or None
        ``estimate(short, values) -> seconds or None``: how long a run
        usually takes (shown beside its progress).
    kernel : str
        The Jupyter kernel.
    """

    def __init__(self, notebooks, runs, *, workers=None, finish=None, estimate=None, kernel="python3"):
        self.notebooks, self.runs = Path(notebooks), Path(runs)
        self.runs.mkdir(parents=True, exist_ok=True)
        self.workers = max(1, int(workers or os.cpu_count() or 1))
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="lupikit-run")
        self._lock = threading.Lock()
        self._runs, self._waiting = {}, []
        self._finish, self._estimate, self._kernel = finish, estimate, kernel

    def submit(self, short, values):
        """Queue a run of ``short`` at ``values`` (checked already); returns its id."""
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
        folder = self.runs / f"{stamp}-{uuid.uuid4().hex[:8]}"
        folder.mkdir(parents=True)
        estimate = self._estimate(short, values) if self._estimate else None
        run = _Run(short, dict(values), folder, estimate)
        with self._lock:
            self._runs[run.id] = run
            self._waiting.append(run.id)
        run.save()
        self._pool.submit(self._work, run)
        return run.id

    def _work(self, run):
        with self._lock:
            if run.id in self._waiting:
                self._waiting.remove(run.id)
            if run.cancelled:
                return
            run.state, run.started = "running", time.time()
        target = run.folder / "notebook.ipynb"
        try:
            _, error = execute(self.notebooks / f"{run.short}.ipynb", target, run.values, kernel=self._kernel,
                               watch=run)
        except Exception as exc:  # noqa: BLE001 - a run that could not start is a failed run, not a dead queue
            error = f"{type(exc).__name__}: {exc}"
        run.ended = time.time()
        if run.cancelled:
            state, error = "cancelled", "cancelled from the page"
        else:
            state, error = ("failed", error) if error else ("done", None)
        # the run shows as ended only once its claims and page are there
        if target.is_file() and self._finish is not None:
            try:
                run.claims, page = self._finish(run.folder, target, run.short,
                                                {**run.status(), "state": state, "error": error})
                if page is not None and Path(page).resolve() != (run.folder / "page.html").resolve():
                    Path(page).replace(run.folder / "page.html")
            except Exception as exc:  # noqa: BLE001 - the run's notebook is kept; its page is what failed
                error = (error or "") + f" (no page: {type(exc).__name__}: {exc})"
        with self._lock:
            run.state, run.error = state, error
        run.save()

    def cancel(self, run_id):
        """Cancel a queued or running run; whether there was one to cancel."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is None or run.state not in ("queued", "running"):
                return False
            run.cancelled = True
            if run.state == "queued":
                self._waiting.remove(run.id)
                run.state, run.error, run.ended = "cancelled", "cancelled from the page", time.time()
                run.save()
                return True
        run._kill()
        return True

    def status(self, run_id):
        """A run's state (a dict), or None: from memory, or from its folder for a run of an earlier server."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is not None:
                place = self._waiting.index(run_id) + 1 if run_id in self._waiting else None
                return run.status(place)
        path = self.runs / run_id / "run.json"
        if not _is_run_id(run_id) or not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def listing(self):
        """Every kept run, newest first."""
        out = []
        for folder in sorted(self.runs.iterdir(), reverse=True):
            status = self.status(folder.name) if folder.is_dir() else None
            if status is not None:
                out.append(status)
        return out

    def shutdown(self):
        """Cancel what runs and waits; stop the workers."""
        with self._lock:
            ids = list(self._runs)
        for run_id in ids:
            self.cancel(run_id)
        self._pool.shutdown(wait=True, cancel_futures=True)


def _is_run_id(text):
    """Whether ``text`` names a run's folder (``<date>-<time>-<8 hex digits>``), nothing else."""
    parts = text.split("-")
    return len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit() and len(parts[2]) == 8 and all(
        c in "0123456789abcdef" for c in parts[2])



def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def compare_claims(claims, record):
    """A run's claims beside a recorded paper-scale result: a list of dicts, differences marked.

    Parameters
    ----------
    claims : list of dict
        The run's claim records (:func:`lupikit.claims.read_claims`).
    record : dict or None
        The notebook's paper-scale record (``results/paper/<part>/<name>.json``).

    Returns
    -------
    list of dict
        ``id``, ``statement``, ``threshold``, ``value``, ``verdict`` and
        ``holds`` (whether the paper's condition held) of the run, ``recorded`` (``verdict``, ``value``, ``interval``, ``seeds``, or
        None where the record has no such claim) and ``differs`` (the two
        verdicts differ).

    Examples
    --------
    >>> run = [{"id": "a", "statement": "s", "threshold": "> 0", "value": 0.2, "verdict": "direction"}]
    >>> rec = {"seeds": [0, 1], "claims": [{"id": "a", "verdict": "not reproduced", "value": -0.1,
    ...                                      "interval": [-0.3, 0.1]}]}
    >>> compare_claims(run, rec)[0]["differs"]
    True
    """
    recorded = {c["id"]: c for c in (record or {}).get("claims", [])}
    seeds = len((record or {}).get("seeds") or [])
    out = []
    for c in claims:
        r = recorded.get(c["id"])
        out.append({"id": c["id"], "statement": c.get("statement"), "threshold": c.get("threshold"),
                    "value": _number(c.get("value")), "verdict": c.get("verdict"), "holds": c.get("holds"),
                    "recorded": None if r is None else {"verdict": r.get("verdict"), "value": _number(r.get("value")),
                                                        "interval": r.get("interval"), "seeds": seeds},
                    "differs": r is not None and r.get("verdict") != c.get("verdict")})
    return out
