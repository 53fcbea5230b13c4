"""Sweeps started from a served page: a run per value of one parameter, and how often the claims held (private).

The panel of a served notebook page (:mod:`lupikit._book.server`) can start
a sweep: a list of values for one parameter, the other fields as the form
has them. Each value is a run of the page's queue
(:class:`lupikit._book.pageruns.RunQueue`), so the runs wait, show their
progress and can be cancelled as single runs do, and each keeps its page.
The sweep keeps ``sweeps/<id>/sweep.json`` under the runs folder (the
notebook, the swept parameter, its values, the runs' ids) and, once every
run ended, ``pass_rate.png``: per value, the share of the notebook's
decided claims that held, and which claims held or failed.

This module imports no part of the library.
"""

import datetime as _dt
import json
import threading
import uuid
from pathlib import Path

from .outcomes import claim_outcome

__all__ = ["Sweeps", "pass_rate_plot", "sweep_table"]

#: a run that ended
_ENDED = ("done", "failed", "cancelled")
#: at most this many values in one sweep from a page
MAX_VALUES = 20


def sweep_table(labels, statuses):
    """Per claim, its outcome at each swept value and its pass rate (a list of dicts).

    Parameters
    ----------
    labels : list of str
        The swept values, as the form gave them.
    statuses : list of dict
        The runs' states (:meth:`lupikit._book.pageruns.RunQueue.status`), one per label.

    Returns
    -------
    list of dict
        ``claim``, ``outcomes`` (one per label: ``"held"``, ``"failed"``,
        ``"not computable"``, ``"not runnable offline"`` or ``None`` where the
        run did not record it), ``held``, ``failed`` and ``pass_rate``
        (held / (held + failed), None when neither).

    Examples
    --------
    >>> runs = [{"claims": [{"id": "a", "holds": True, "verdict": "reproduced"}]},
    ...         {"claims": [{"id": "a", "holds": False, "verdict": "not reproduced"}]}]
    >>> sweep_table(["1", "2"], runs)[0]["pass_rate"]
    0.5
    """
    if len(labels) != len(statuses):
        raise ValueError(f"{len(labels)} values but {len(statuses)} runs")
    order = list(dict.fromkeys(c["id"] for s in statuses for c in s.get("claims") or []))
    table = []
    for cid in order:
        outcomes = []
        for s in statuses:
            found = [c for c in s.get("claims") or [] if c["id"] == cid]
            outcomes.append(claim_outcome(found[0]) if found else None)
        held, failed = outcomes.count("held"), outcomes.count("failed")
        table.append({"claim": cid, "outcomes": outcomes, "held": held, "failed": failed,
                      "pass_rate": round(held / (held + failed), 4) if held + failed else None})
    return table


def pass_rate_plot(param, labels, table, target):
    """The sweep's picture: per value, the share of decided claims that held, and each claim's outcome."""
    import matplotlib  # the notebook stack

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    codes = {"held": 2, "failed": 0, "not computable": 1, "not runnable offline": 1, None: 1}
    grid = [[codes[o] for o in row["outcomes"]] for row in table]
    rates = []
    for j in range(len(labels)):
        held = sum(1 for row in table if row["outcomes"][j] == "held")
        failed = sum(1 for row in table if row["outcomes"][j] == "failed")
        rates.append(held / (held + failed) if held + failed else float("nan"))
    height = 2.2 + 0.22 * max(1, len(table))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, height), sharex=True,
                                      gridspec_kw={"height_ratios": [2.2, 0.22 * max(1, len(table))]})
    xs = list(range(len(labels)))
    top.bar(xs, rates, color="tab:green", alpha=0.8)
    top.set_ylim(0, 1)
    top.set_ylabel("claims that held\n(of those decided)")
    top.set_title(f"Claims that held at each value of {param}")
    if grid:
        bottom.imshow(grid, aspect="auto", cmap=ListedColormap(["tab:red", "0.85", "tab:green"]), vmin=0, vmax=2,
                      interpolation="nearest")
        bottom.set_yticks(range(len(table)), [row["claim"] for row in table], fontsize=7)
    bottom.set_xticks(xs, labels, rotation=30 if max(len(x) for x in labels) > 6 else 0)
    bottom.set_xlabel(f"{param} (green: held, red: failed, grey: not decided or not recorded)")
    fig.tight_layout()
    fig.savefig(target, dpi=100)
    plt.close(fig)
    return target


class Sweeps:
    """Sweeps of a run queue: start one, follow it, and its pass-rate picture once it ended.

    Parameters
    ----------
    queue : lupikit._book.pageruns.RunQueue
        Where each value's run goes.
    """

    def __init__(self, queue):
        self.queue = queue
        self.folder = Path(queue.runs) / "sweeps"
        self._lock = threading.Lock()

    def submit(self, short, param, labels, runs_values):
        """Queue a run per value (``runs_values``: the checked values of each run); returns the sweep's id."""
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
        sweep_id = f"{stamp}-{uuid.uuid4().hex[:8]}"
        ids = [self.queue.submit(short, values) for values in runs_values]
        folder = self.folder / sweep_id
        folder.mkdir(parents=True)
        (folder / "sweep.json").write_text(json.dumps(
            {"id": sweep_id, "notebook": short, "param": param, "labels": list(labels), "runs": ids,
             "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}, indent=1) + "\n",
            encoding="utf-8")
        return sweep_id

    def listing(self):
        """Every kept sweep (its ``sweep.json``), newest first."""
        if not self.folder.is_dir():
            return []
        out = []
        for path in sorted(self.folder.glob("*/sweep.json"), reverse=True):
            try:
                out.append(json.loads(path.read_text(encoding="utf-8")))
            except ValueError:
                continue
        return out

    def status(self, sweep_id):
        """A sweep's state, or None: its runs' states and, once they all ended, its table and picture."""
        parts = sweep_id.split("-")
        if len(parts) != 3 or not (parts[0].isdigit() and parts[1].isdigit() and len(parts[2]) == 8
                                   and all(c in "0123456789abcdef" for c in parts[2])):
            return None
        path = self.folder / sweep_id / "sweep.json"
        if not path.is_file():
            return None
        sweep = json.loads(path.read_text(encoding="utf-8"))
        statuses = [self.queue.status(i) or {"id": i, "state": "lost", "claims": []} for i in sweep["runs"]]
        done = all(s["state"] in _ENDED or s["state"] == "lost" for s in statuses)
        out = {**sweep, "statuses": [{k: s.get(k) for k in ("id", "state", "place", "cell", "cells", "elapsed",
                                                           "error", "page")} for s in statuses],
               "done": done, "table": None, "plot": None}
        if done:
            table = sweep_table(sweep["labels"], statuses)
            picture = self.folder / sweep_id / "pass_rate.png"
            with self._lock:
                if not picture.is_file():
                    pass_rate_plot(sweep["param"], sweep["labels"], table, picture)
            out.update(table=table, plot=f"/runs/sweeps/{sweep_id}/pass_rate.png")
        return out
