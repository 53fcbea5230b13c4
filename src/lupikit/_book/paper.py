"""The paper-scale runs: every notebook at its paper preset and several seeds, recorded (private).

``lupikit paper`` plans the work (:func:`plan_paper`: which notebooks need a
run, at which seeds; a current record at fewer seeds is extended by the
missing seeds only), then runs it (:func:`run_paper`: one unit per notebook
and seed, the longest first, several at once) and writes each notebook's
record (:mod:`lupikit._book.records`) as soon as its seeds are done.

A run that stops part-way (the machine goes down, the run is killed) loses
no finished seed: each executed notebook is kept with a checkpoint of the
code it ran (its fingerprints), and the next run takes a seed whose
checkpoint matches today's code instead of running it again.

Both report progress through ``log``, a function of one line of text.
This module imports no part of the library.
"""

import hashlib
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from importlib import metadata

from ..claims import fingerprint, read_run_parameters
from .errors import BookError
from .execute import execute, executed_parameters
from .notebook_source import read_parameters, read_presets
from .outcomes import claims_line
from .paths import is_exercise_notebook, list_notebooks, resolve_notebook, short_name
from .records import fingerprints, is_stale, now, paper_record, provenance, read_paper_result, write_paper_result
from .seeds import seed_runs

__all__ = ["MEMORY_ENV", "PaperTask", "fit_cache", "plan_paper", "run_paper", "seed_order"]

#: The environment variable that names the folder where notebooks cache fits shared between them.
MEMORY_ENV = "LUPIKIT_MEMORY"
_PACKAGE = Path(__file__).resolve().parents[1]


@dataclass
class PaperTask:
    """One notebook to run at the paper preset: at ``seeds``, extending ``earlier`` if given."""

    path: Path
    short: str
    seeds: list
    last_seconds: float = 0.0
    earlier: dict = None


def _display_path(path, root):
    """``path`` relative to ``root`` when it is below it (shorter), else as it is."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve())
    except ValueError:
        return Path(path)


def plan_paper(nb_dir, notebooks, n_seeds, results_dir, *, force=False, log=print):
    """The notebooks that need a paper-scale run, each with the seeds to run.

    Parameters
    ----------
    nb_dir : Path
        The notebooks folder.
    notebooks : list of str
        Short names or paths; empty: every notebook but the exercise notebooks.
    n_seeds : int
        Seeds per notebook: its ``seed`` parameter's default and the ``n_seeds - 1`` after it.
    results_dir : Path
        The records' folder.
    force : bool
        Run notebooks whose record is current too.
    log : callable
        Told which notebooks are skipped or extended.

    Returns
    -------
    tasks : list of PaperTask
    """
    if n_seeds < 1:
        raise BookError(f"--seeds must be at least 1, got {n_seeds}.")
    # the exercise notebooks of the classroom edition make no paper claims
    paths = ([resolve_notebook(n, nb_dir) for n in notebooks] if notebooks else
             [p for p in list_notebooks(nb_dir) if not is_exercise_notebook(p)])
    tasks = []
    for path in paths:
        short = short_name(path, nb_dir)
        if "paper" not in read_presets(path):
            raise BookError(f"{short} defines no 'paper' preset.")
        params = read_parameters(path)
        if n_seeds > 1 and "seed" not in params:
            raise BookError(f"{short} has no 'seed' parameter: run it with --seeds 1.")
        old = read_paper_result(results_dir, short)
        first = int(params["seed"].default) if "seed" in params else 0
        seeds = [first + k for k in range(n_seeds)]
        earlier = None
        if old is not None and not force and not is_stale(old, path, short):
            have = [int(s) for s in old.get("seeds", [first])]
            if len(have) >= n_seeds:
                log(f"  {short}: unchanged since {old['executed_at']}, not run again")
                continue
            # a current record at fewer seeds is extended: only the missing seeds run
            if have == seeds[:len(have)] and seed_runs(old) is not None:
                earlier, seeds = old, seeds[len(have):]
                log(f"  {short}: seed(s) {', '.join(map(str, have))} recorded and current; "
                    f"running seed(s) {', '.join(map(str, seeds))}")
        tasks.append(PaperTask(path, short, seeds, 0.0 if old is None else float(old.get("seconds", 0.0)),
                               earlier))
    return tasks


def _library_versions():
    """The versions of the libraries that fit the models, and of Python (one string)."""
    versions = [f"python=={sys.version.split()[0]}"]
    for dist in ("numpy", "scipy", "scikit-learn", "xgboost", "xgboost-cpu", "joblib", "cvxopt", "highspy"):
        try:
            versions.append(f"{dist}=={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    return ",".join(versions)


def fit_cache(build):
    """The folder where the paper-scale runs share fits (``<build>/memory/<key>``).

    Its key is a hash of lupikit's code and of the versions of the libraries
    that fit the models, so a changed library never reads another's results.
    """
    key = fingerprint([_PACKAGE]) + "|" + _library_versions()
    return Path(build) / "memory" / hashlib.sha256(key.encode()).hexdigest()[:16]


def _checkpoint(target):
    """The checkpoint beside an executed notebook: the code it ran, its parameters, time and provenance."""
    return Path(target).with_suffix(".run.json")


def _kept(target, fingerprint, parameters, environment):
    """The checkpoint of ``target`` if it ran today's code with these parameters in this environment, else None."""
    path = _checkpoint(target)
    if not (path.is_file() and Path(target).is_file()):
        return None
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (kept.get("fingerprint") != fingerprint or kept.get("parameters") != parameters
            or kept.get("environment") != environment):
        return None
    return kept


def _record(task, done, results_dir, root, log):
    """Write the record of a notebook whose seeds are all done; log its line. Whether it failed."""
    errors = [(s, e) for s, (_, _, e, _) in sorted(done.items()) if e]
    if errors:
        log(f"  {task.short}: FAILED at seed(s) {', '.join(str(s) for s, _ in errors)}: "
            f"{errors[0][1].splitlines()[0]}")
        return True
    targets = [done[s][0] for s in task.seeds]
    times = [done[s][1] for s in task.seeds]
    runs = [done[s][3] for s in task.seeds]
    # every seed must have run the same code: an edit between two seeds leaves no record
    # (the next run keeps the seeds that ran today's code and runs the others again)
    if any(r["fingerprint"] != runs[0]["fingerprint"] for r in runs):
        now_fp = fingerprints(task.path, task.short)
        other = [s for s, r in zip(task.seeds, runs) if r["fingerprint"] != now_fp]
        log(f"  {task.short}: NOT RECORDED: its code changed while it ran; seed(s) "
            f"{', '.join(map(str, other))} ran other code (run lupikit paper again to run them again)")
        return True
    first = min(runs, key=lambda r: r["executed_at"])
    # the parameters cell's values, overridden by those the first run used after its preset
    params = {"preset": "paper", **executed_parameters(targets[0]), **read_run_parameters(targets[0])}
    record = paper_record(task.path, task.short, targets, params, times, first["executed_at"],
                          fingerprint=runs[0]["fingerprint"], prov=first["prov"], seeds=task.seeds,
                          earlier=task.earlier)
    written = write_paper_result(results_dir, record)
    counts = {}
    for c in record["claims"]:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    tally = ", ".join(f"{n} {v}" for v, n in counts.items())
    log(f"  {task.short}: {sum(times):7.1f} s ({len(task.seeds)} seed(s) run, {len(record['seeds'])} recorded); "
        f"{len(record['claims'])} claims: {tally} -> {_display_path(written, root)}")
    return False


def seed_order(tasks, shortest_first=False):
    """The units of work, ``(task, seed)``, in the order they are run.

    The longest notebook first (by its last recorded time), so that the slots
    finish together, or with ``shortest_first`` the quickest first; a
    notebook's seeds stay together, in order, so that its record is written
    as soon as they are done.

    Examples
    --------
    >>> from types import SimpleNamespace as Task
    >>> tasks = [Task(short="a", last_seconds=5.0, seeds=[0, 1]), Task(short="b", last_seconds=50.0, seeds=[0, 1])]
    >>> [(t.short, s) for t, s in seed_order(tasks)]
    [('b', 0), ('b', 1), ('a', 0), ('a', 1)]
    >>> [(t.short, s) for t, s in seed_order(tasks, shortest_first=True)]
    [('a', 0), ('a', 1), ('b', 0), ('b', 1)]
    """
    sign = 1 if shortest_first else -1
    return sorted(((task, seed) for task in tasks for seed in task.seeds),
                  key=lambda u: (sign * u[0].last_seconds, u[0].short, u[1]))


def run_paper(tasks, paths, results_dir, *, n_seeds, jobs=2, kernel="python3", reuse=True, shortest_first=False,
              log=print):
    """Run the planned notebooks at the paper preset and write their records.

    ``paths`` is the checkout's :class:`~lupikit._book.paths.BookPaths`: the
    executed notebooks go to its ``paper_runs``, and the kernels find in
    :data:`MEMORY_ENV` a folder where they may cache fits that another
    notebook makes alike (:func:`fit_cache`). The kernels' environment
    must be prepared (:func:`lupikit._book.harness.prepare_kernels`).

    Each seed's record is the code as it was when that seed started: an edit
    made while a long run goes on leaves its record stale, not current. With
    ``reuse``, a seed whose executed notebook an earlier, interrupted run left
    with a checkpoint of today's code and the same parameters is taken from it,
    not run again.

    The seeds run the longest notebook first (by their last recorded time), so
    that the slots finish together; with ``shortest_first`` the quickest
    first, so that a run that will be stopped writes as many records as it
    can before it stops.

    Returns
    -------
    summary : dict
        ``wall`` (seconds), ``busy`` (seconds of notebook time), ``failed``
        (short names), ``runs`` (the folder of the executed notebooks).
    """
    runs = paths.paper_runs
    # fits that several notebooks make alike (the boosting benchmarks) are made once
    # (always this run's keyed folder: a folder of another code version could hold other results)
    os.environ[MEMORY_ENV] = str(fit_cache(paths.build))
    units = seed_order(tasks, shortest_first)
    t0 = time.perf_counter()
    # a seed is kept only from a run with the same libraries (the fit cache's key), kernel and machine
    environment = {"libraries": _library_versions(), "kernel": kernel, "machine": provenance()["machine"]}

    def one(unit):
        task, seed = unit
        target = runs / (f"{task.short}.ipynb" if n_seeds == 1 else f"{task.short}/seed{seed}.ipynb")
        parameters = {"preset": "paper"} if n_seeds == 1 else {"preset": "paper", "seed": seed}
        # what the record will say this seed ran: the code and commit as they are at its start
        start = dict(fingerprint=fingerprints(task.path, task.short), parameters=parameters,
                     environment=environment, executed_at=now(), prov=provenance())
        kept = _kept(target, start["fingerprint"], parameters, environment) if reuse else None
        if kept is not None:
            return task, seed, target, float(kept["seconds"]), None, kept, True
        _checkpoint(target).unlink(missing_ok=True)
        seconds, error = execute(task.path, target, parameters, kernel=kernel)
        start["seconds"] = seconds
        # a seed whose code changed while it ran is no checkpoint for a later run
        if error is None and fingerprints(task.path, task.short) == start["fingerprint"]:
            _checkpoint(target).write_text(json.dumps(start, indent=1) + "\n", encoding="utf-8")
        return task, seed, target, seconds, error, start, False

    done = {task.short: {} for task in tasks}
    failed, busy = [], 0.0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        # record each notebook as soon as its seeds are done: a long one holds up no other
        futures = [pool.submit(one, unit) for unit in units]
        for future in as_completed(futures):
            task, seed, target, seconds, error, run, reused = future.result()
            busy += 0.0 if reused else seconds
            if n_seeds > 1 or reused:
                log(f"    {task.short} seed {seed}: {seconds:.1f} s"
                    + (f" (kept from the run of {run['executed_at']}: same code)" if reused else "")
                    + f"; {claims_line(target)}"
                    + (f"; FAILED: {error.splitlines()[0]}" if error else ""))
            done[task.short][seed] = (target, seconds, error, run)
            if len(done[task.short]) == len(task.seeds):
                if _record(task, done[task.short], results_dir, paths.root, log):
                    failed.append(task.short)
    return {"wall": time.perf_counter() - t0, "busy": busy, "failed": failed, "runs": runs}
