"""How long the paper-scale run takes: every notebook at ``--preset paper`` and 5 seeds, on 2 cores.

The run that writes ``results/paper/`` is the book's longest computation.
This script measures it and writes ``results/benchmarks/paper_run.json``:

- it runs ``lupikit paper`` (:func:`lupikit._book.paper.record_paper`, the
  same machinery) on the notebooks named, or on those whose records are
  stale (``--stale``), or on all (``--all``, every record again); the wall
  time of that run, the machine's load average sampled every 15 s while it
  ran, and each notebook's seconds per seed are measured. Those runs *are*
  the records: a stale record is replaced, as ``lupikit paper`` would;
- for a notebook it did not run, the time per seed is its current record's
  (the same code ran then, two notebooks at a time on this kind of machine);
- *before* is each notebook's time per seed in the records of ``--before``
  (a git commit), and the wall time of a whole run on 2 cores is estimated
  from the per-seed times by scheduling the 5 seeds of every notebook on 2
  slots, longest first, as ``lupikit paper`` does.

``--from-records`` runs nothing: every time is a record's.

Run: ``python benchmarks/bench_paper.py [NAME ...] [--stale | --all | --from-records]
[--before COMMIT] [--seeds 5] [--jobs 2] [--quick] [--record-dir DIR]``.
``--quick`` runs ``intro/lupi_setting`` at one seed into a temporary folder.

Values: ``before_total_seconds`` and ``after_total_seconds`` (notebook time
per seed, summed), ``before_wall_hours`` and ``after_wall_hours`` (the
estimate on 2 slots at 5 seeds), ``measured_wall_seconds`` (of what this run
executed), ``load_mean`` and ``load_max``, ``n_run`` (notebooks executed);
table ``notebooks``.
"""

import argparse
import heapq
import json
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

import _record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lupikit._book.paper import record_paper  # noqa: E402
from lupikit._book.paths import checkout_paths  # noqa: E402
from lupikit._book.records import check_records  # noqa: E402


def schedule_wall(per_seed, n_seeds=5, slots=2):
    """The wall time of running every notebook's seeds on ``slots`` slots, longest first (seconds).

    >>> schedule_wall({"a": 10.0, "b": 4.0}, n_seeds=2, slots=2)
    14.0
    """
    units = sorted((s for s in per_seed.values() for _ in range(n_seeds)), reverse=True)
    heap = [0.0] * slots
    for u in units:
        heapq.heappush(heap, heapq.heappop(heap) + u)
    return max(heap)


def records_at(commit):
    """``{short: seconds per seed}`` of the records in ``results/paper`` at a git commit."""
    names = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", commit, "results/paper"],
                           capture_output=True, text=True, check=True).stdout.split()
    out = {}
    for name in names:
        if name.endswith(".json"):
            text = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{name}"], capture_output=True,
                                  text=True, check=True).stdout
            record = json.loads(text)
            out[record["notebook"]] = float(record["seconds"])
    return out


class LoadSampler(threading.Thread):
    """The 1-minute load average, every ``every`` seconds, while a run goes on."""

    def __init__(self, every=15.0):
        super().__init__(daemon=True)
        self.every, self.samples, self._halt = every, [], threading.Event()

    def run(self):
        import os

        while not self._halt.is_set():
            self.samples.append(os.getloadavg()[0])
            self._halt.wait(self.every)

    def stop(self):
        self._halt.set()
        self.join()
        return self.samples


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="short names to run (default: see --stale, --all)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--stale", action="store_true", help="run the notebooks whose records are stale")
    which.add_argument("--all", action="store_true", help="run every notebook again (replaces every record)")
    which.add_argument("--from-records", action="store_true", help="run nothing: every time is a record's")
    parser.add_argument("--before", default="ff0f49f", help="the commit whose records give the times before")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-seeds", type=int, default=None,
                        help="add seeds where claims stay inconclusive, up to this many (lupikit paper's)")
    parser.add_argument("--time-limit", type=float, default=None, help="hours (lupikit paper's --time-limit)")
    _record.add_arguments(parser)
    args = parser.parse_args(argv)
    paths = checkout_paths(ROOT / "notebooks")
    results = paths.results
    record = _record.Record("paper_run", "bench_paper.py", argv=argv)
    if args.quick:
        names, n_seeds, results = ["intro/lupi_setting"], 1, Path(tempfile.mkdtemp()) / "paper"
    else:
        n_seeds = args.seeds
        checked = check_records(results, paths.notebooks)
        names = (list(args.notebooks) or ([s for s, _, st in checked if st] if args.stale else
                                          [s for s, *_ in checked] if args.all else []))
    if args.from_records:
        names = []
    sampler, wall = LoadSampler(), 0.0
    if names:
        sampler.start()
        t0 = time.perf_counter()
        record_paper(paths, names, n_seeds=n_seeds, jobs=args.jobs, results_dir=results, force=args.all,
                     log=partial(print, flush=True), max_seeds=args.max_seeds, time_limit=args.time_limit)
        wall = time.perf_counter() - t0
    loads = sampler.stop() if names else []
    checked_after = check_records(results, paths.notebooks)
    after = {short: float(rec["seconds"]) for short, rec, _ in checked_after}
    n_seeds_of = {short: len(rec.get("seeds") or []) for short, rec, _ in checked_after}
    before = {} if args.quick else records_at(args.before)
    rows = []
    for short in sorted(set(before) | set(after), key=lambda s: -after.get(s, before.get(s, 0.0))):
        b, a = before.get(short), after.get(short)
        rows.append([short, "" if b is None else round(b, 1), "" if a is None else round(a, 1),
                     "" if not (a and b) else round(a / b, 2), n_seeds_of.get(short, ""),
                     "this run" if short in names else "its record"])
    record.table("notebooks", f"Seconds per seed at the paper preset, before ({args.before}) and after, and "
                 "where the time after comes from (this run, 2 notebooks at once; or the current record)",
                 ["notebook", "before (s/seed)", "after (s/seed)", "after / before", "seeds", "after from"], rows)
    record.value("before_total_seconds", round(sum(before.values()), 1) if before else 0.0)
    record.value("after_total_seconds", round(sum(after.values()), 1))
    record.value("before_wall_hours", round(schedule_wall(before) / 3600, 2) if before else 0.0)
    record.value("after_wall_hours", round(schedule_wall(after) / 3600, 2))
    record.value("measured_wall_seconds", round(wall, 1))
    record.value("n_run", len(names))
    record.value("load_mean", round(sum(loads) / len(loads), 2) if loads else 0.0)
    record.value("load_max", round(max(loads), 2) if loads else 0.0)
    record.write(_record.record_dir(args.record_dir, args.quick))
    print(f"before: {sum(before.values()):.0f} s per seed, about {schedule_wall(before) / 3600:.2f} h on 2 cores"
          if before else "before: no records", flush=True)
    print(f"after:  {sum(after.values()):.0f} s per seed, about {schedule_wall(after) / 3600:.2f} h on 2 cores",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
