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
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from importlib import metadata

from ..claims import fingerprint, library_versions, read_run_parameters
from ..datasets import CACHE_ENV, get_cache_home
from .cluster import harness_environment, submit_units, unit_key, where_this_runs
from .errors import BookError
from .execute import connect_scheduler, execute, executed_parameters
from .harness import DATA_LOG, DATA_ROOTS, prepare_kernels
from .notebook_source import read_parameters, read_presets
from .outcomes import claims_line
from .paths import is_exercise_notebook, list_notebooks, resolve_notebook, short_name
from .records import (data_files, data_roots, fingerprints, is_stale, now, paper_record, provenance,
                      read_paper_result, write_paper_result)
from .seeds import decidable, seed_runs, undecided

__all__ = ["MEMORY_ENV", "SEEDS_PER_STEP", "PaperTask", "fit_cache", "plan_paper", "record_once", "record_paper", "run_paper",
           "seed_order"]

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
    """The versions of Python and of the libraries that fit the models, and joblib's (one string)."""
    versions = {**library_versions()}
    try:
        versions["joblib"] = metadata.version("joblib")
    except metadata.PackageNotFoundError:  # pragma: no cover - joblib comes with scikit-learn
        pass
    return ",".join(f"{k}=={v}" for k, v in versions.items())


def fit_cache(build):
    """The folder where the paper-scale runs share fits (``<build>/memory/<key>``).

    Its key is a hash of lupikit's code and of the versions of the libraries
    that fit the models, so a changed library never reads another's results.
    """
    return Path(build) / "memory" / _code_key()


def _code_key():
    """A hash of lupikit's code and of the versions of the libraries that fit the models."""
    key = fingerprint([_PACKAGE]) + "|" + _library_versions()
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _checkpoint(target):
    """The checkpoint beside an executed notebook: the code it ran, its parameters, time and provenance."""
    return Path(target).with_suffix(".run.json")


def _data_log(target):
    """The file where the run into ``target`` logs the data files it opens (:data:`~lupikit._book.harness.DATA_LOG`)."""
    return Path(target).with_suffix(".data.log")


def _merged_data(runs):
    """The data files that the seeds read, ``{name: SHA-256}``, or None if a seed did not log them."""
    if any(r.get("data") is None for r in runs):
        return None
    out = {}
    for r in runs:
        out.update(r["data"])
    return dict(sorted(out.items()))


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
    # what the seeds ran (the code, the same for all), the data files they read, the libraries' versions
    fp = {**runs[0]["fingerprint"], "data": _merged_data(runs), "versions": runs[0].get("versions")}
    record = paper_record(task.path, task.short, targets, params, times, first["executed_at"],
                          fingerprint=fp, prov=first["prov"], seeds=task.seeds,
                          places=[r.get("ran_on") for r in runs],
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
    """The units of work, ``(task, seed)``, in the order they are run (on a Dask cluster: their priority).

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
              client=None, log=print):
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

    With a ``distributed.Client``, each notebook at each seed is a task on its
    cluster (:mod:`lupikit._book.cluster`; ``jobs`` is then the workers'
    business), started in the same order; this process still checks the
    checkpoints, writes them and the records. A seed whose task failed for
    good (its workers died) is a failure of that seed. The record says where
    each seed ran (its ``ran_on``).

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
    # the data sets parsed by this code (a parser that changed must not read another's cache)
    home = get_cache_home()
    home = home.parent if home.parent.name == "paper" else home / "paper"  # (a second run in this process)
    os.environ[CACHE_ENV] = str(home / _code_key())
    units = seed_order(tasks, shortest_first)
    t0 = time.perf_counter()
    # a seed is kept only from a run with the same libraries (the fit cache's key), kernel and machine
    environment = {"libraries": _library_versions(), "kernel": kernel, "machine": provenance()["machine"],
                   "loops": "sequential" if os.environ.get("LUPIKIT_SEQUENTIAL_LOOPS") else "as the notebook sets"}
    here = where_this_runs()
    roots = data_roots()

    def begin(unit):
        """Where the seed goes, its parameters, what it runs now, and its checkpoint if it is kept."""
        task, seed = unit
        target = runs / (f"{task.short}.ipynb" if n_seeds == 1 else f"{task.short}/seed{seed}.ipynb")
        parameters = {"preset": "paper"} if n_seeds == 1 else {"preset": "paper", "seed": seed}
        # what the record will say this seed ran: the code and commit as they are at its start
        start = dict(fingerprint=fingerprints(task.path, task.short), parameters=parameters,
                     environment=environment, executed_at=now(), prov=provenance(), versions=library_versions())
        kept = _kept(target, start["fingerprint"], parameters, environment) if reuse else None
        if kept is None:
            _checkpoint(target).unlink(missing_ok=True)
            _data_log(target).unlink(missing_ok=True)
        return target, parameters, start, kept

    def data_env(target):
        """The kernel's log of the data files it opens (the harness's audit hook)."""
        return {DATA_LOG: str(_data_log(target)), DATA_ROOTS: os.pathsep.join(map(str, roots))}

    def ran(task, target, start, seconds, error, where):
        """Note the run; a seed whose code changed while it ran is no checkpoint for a later run."""
        log_file = _data_log(target)
        # (no log: the audit hook was not installed, and which files the run read is not known)
        data = data_files(log_file.read_text(encoding="utf-8").splitlines()) if log_file.is_file() else None
        start.update(seconds=seconds, ran_on=where, data=data)
        if error is None and fingerprints(task.path, task.short) == start["fingerprint"]:
            _checkpoint(target).write_text(json.dumps(start, indent=1) + "\n", encoding="utf-8")

    def one(unit):
        task, seed = unit
        target, parameters, start, kept = begin(unit)
        if kept is not None:
            return task, seed, target, float(kept["seconds"]), None, kept, True
        seconds, error = execute(task.path, target, parameters, kernel=kernel, env=data_env(target))
        ran(task, target, start, seconds, error, here)
        return task, seed, target, seconds, error, start, False

    done = {task.short: {} for task in tasks}
    failed, busy = [], 0.0

    def said(target):
        # (a task lost for good may leave no executed notebook, or part of one)
        try:
            return claims_line(target)
        except (OSError, ValueError):
            return "no executed notebook"

    def finished(task, seed, target, seconds, error, run, reused):
        nonlocal busy
        busy += 0.0 if reused else seconds
        if n_seeds > 1 or reused or client is not None:
            log(f"    {task.short} seed {seed}: {seconds:.1f} s"
                + (f" on {run.get('ran_on') or 'an unknown worker'}" if client is not None and not reused else "")
                + (f" (kept from the run of {run['executed_at']}: same code)" if reused else "")
                + f"; {said(target)}"
                + (f"; FAILED: {error.splitlines()[0]}" if error else ""))
        done[task.short][seed] = (target, seconds, error, run)
        if len(done[task.short]) == len(task.seeds):
            if _record(task, done[task.short], results_dir, paths.root, log):
                failed.append(task.short)

    if client is None:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            # record each notebook as soon as its seeds are done: a long one holds up no other
            futures = [pool.submit(one, unit) for unit in units]
            for future in as_completed(futures):
                finished(*future.result())
    else:
        # the worker's kernels get this process's harness (not its environment), and the fit cache
        env = harness_environment(**{MEMORY_ENV: os.environ[MEMORY_ENV]})
        submitted = []
        for unit in units:
            task, seed = unit
            target, parameters, start, kept = begin(unit)
            if kept is not None:
                finished(task, seed, target, float(kept["seconds"]), None, kept, True)
            else:
                submitted.append((unit, target, start, (unit_key(task.short, seed), str(task.path), str(target),
                                                        parameters, kernel, env, data_env(target))))

        def landed(i, seconds, error, where):
            (task, seed), target, start, _ = submitted[i]
            ran(task, target, start, seconds, error, where)
            finished(task, seed, target, seconds, error, start, False)

        submit_units(client, [args for *_, args in submitted], landed)
    return {"wall": time.perf_counter() - t0, "busy": busy, "failed": failed, "runs": runs}


#: Seeds added to a notebook at a time while its claims are inconclusive (``--max-seeds``).
SEEDS_PER_STEP = 5


def _more_seeds(paths, notebooks, results_dir, max_seeds, deadline, jobs, log):
    """The notebooks whose records have inconclusive claims and may take more seeds, with their new count.

    Cheapest first; a notebook is taken while its estimated time (its
    record's seconds per seed × the seeds it adds, spread over ``jobs``)
    fits before ``deadline`` (a ``time.monotonic()`` value, or None).
    """
    import time

    wanted = [resolve_notebook(n, paths.notebooks) for n in notebooks] if notebooks else [
        p for p in list_notebooks(paths.notebooks) if not is_exercise_notebook(p)]
    out, planned = [], 0.0
    candidates = []
    for path in wanted:
        short = short_name(path, paths.notebooks)
        record = read_paper_result(results_dir, short)
        if record is None or is_stale(record, path, short):
            continue
        have, open_ = len(record.get("seeds") or []), undecided(record)
        if not open_:
            continue
        if have >= max_seeds:
            log(f"  {short}: {len(open_)} claim(s) still inconclusive at {have} seeds, the cap (--max-seeds)")
            continue
        by_id = {c["id"]: c for c in record.get("claims", [])}
        futile = [i for i in open_ if not decidable(by_id[i], max_seeds)]
        if len(futile) == len(open_):
            log(f"  {short}: {len(open_)} claim(s) inconclusive at {have} seeds that {max_seeds} seeds would not "
                f"decide at their mean and spread: {', '.join(futile)}")
            continue
        open_ = [i for i in open_ if i not in futile]
        n = min(have + SEEDS_PER_STEP, max_seeds)
        candidates.append((float(record.get("seconds") or 0.0) * (n - have), short, n, len(open_)))
    for cost, short, n, count in sorted(candidates):
        if deadline is not None and time.monotonic() + (planned + cost) / max(1, jobs) > deadline:
            log(f"  {short}: {count} claim(s) inconclusive; {n} seeds would not end within --time-limit")
            continue
        planned += cost
        out.append((short, n))
    return out


def record_paper(paths, notebooks=(), *, n_seeds=1, jobs=2, results_dir=None, force=False, shortest_first=False,
                 scheduler=None, kernel="python3", log=print, max_seeds=None, time_limit=None):
    """Run at ``n_seeds`` seeds, then add seeds where claims stay inconclusive (up to ``max_seeds``).

    Parameters are those of :func:`record_once`; ``max_seeds`` (default
    ``n_seeds``: no more) is the cap of the seeds a notebook may take while
    its record has claims whose interval straddles the threshold, added
    :data:`SEEDS_PER_STEP` at a time, cheapest notebook first; ``time_limit``
    (hours, or None) stops adding seeds that would not end within it.

    Returns
    -------
    summaries : list of dict
        One :func:`run_paper` summary per round that ran.
    """
    import time

    results_dir = paths.results if results_dir is None else Path(results_dir)
    deadline = None if time_limit is None else time.monotonic() + 3600.0 * float(time_limit)
    max_seeds = n_seeds if max_seeds is None else int(max_seeds)
    if max_seeds < n_seeds:
        raise BookError(f"--max-seeds ({max_seeds}) must be at least --seeds ({n_seeds}).")
    summaries = []
    summary = record_once(paths, notebooks, n_seeds=n_seeds, jobs=jobs, results_dir=results_dir, force=force,
                          shortest_first=shortest_first, scheduler=scheduler, kernel=kernel, log=log)
    summaries += [summary] if summary else []
    while max_seeds > n_seeds:
        more = _more_seeds(paths, notebooks, results_dir, max_seeds, deadline, jobs, log)
        if not more:
            break
        for count in sorted({n for _, n in more}):
            names = [short for short, n in more if n == count]
            log(f"more seeds where claims are inconclusive: {', '.join(names)} to {count} seeds")
            summary = record_once(paths, names, n_seeds=count, jobs=jobs, results_dir=results_dir,
                                  shortest_first=shortest_first, scheduler=scheduler, kernel=kernel, log=log)
            summaries += [summary] if summary else []
    return summaries


def record_once(paths, notebooks=(), *, n_seeds=1, jobs=2, results_dir=None, force=False, shortest_first=False,
                scheduler=None, kernel="python3", log=print):
    """``lupikit paper``: plan, prepare the kernels, run and record; what ``make book PRESET=paper`` runs too.

    Runs the notebooks whose records are stale or missing (:func:`plan_paper`)
    at ``n_seeds`` seeds, ``jobs`` at once or, with a Dask ``scheduler``
    address, each notebook × seed as a task on its cluster
    (:mod:`lupikit._book.cluster`), and writes their records.

    Returns
    -------
    summary : dict or None
        :func:`run_paper`'s summary, or None when every record is current.

    Raises
    ------
    BookError
        A notebook failed (its record is not written), or the scheduler cannot be reached.
    """
    results_dir = paths.results if results_dir is None else Path(results_dir)
    tasks = plan_paper(paths.notebooks, list(notebooks), n_seeds, results_dir, force=force, log=log)
    if not tasks:
        log("every paper-scale result is up to date (use --force to run them again)")
        return None
    client = connect_scheduler(scheduler)
    # on a cluster each notebook × seed is a task, its joblib loops stay on its worker; here, with a
    # notebook on every core, a notebook's loops run one task at a time (their workers would only
    # contend with the other notebooks for the cores)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    sequential = client is None and jobs >= cores
    prepare_kernels(paths.ipython, scheduler=None, blas_threads=1 if jobs > 1 else None, claims="record",
                    sequential_loops=sequential)
    if client is None:
        how = f"{jobs} at once" + (", each notebook's joblib loops one task at a time" if sequential else "")
    else:
        threads = client.nthreads()
        how = (f"each notebook × seed a task on the Dask cluster at {scheduler} "
               f"(now {len(threads)} worker(s), {sum(threads.values())} thread(s))")
    log(f"running {len(tasks)} notebook(s) at --preset paper with {n_seeds} seed(s) each, {how}")
    try:
        summary = run_paper(tasks, paths, results_dir, n_seeds=n_seeds, jobs=jobs, kernel=kernel, reuse=not force,
                            shortest_first=shortest_first, client=client, log=log)
    finally:
        if client is not None:
            client.close()
    log(f"paper-scale run: {summary['wall']:.1f} s wall time for {len(tasks)} notebook(s) "
        f"({summary['busy']:.1f} s of notebook time, "
        f"{'on the cluster' if client is not None else f'{jobs} at once'}); executed notebooks in "
        f"{summary['runs']}")
    if summary["failed"]:
        raise BookError(f"{len(summary['failed'])} notebook(s) failed: {', '.join(summary['failed'])}")
    return summary
