"""The ``lupikit`` command: list and rerun the book's notebooks with papermill.

``lupikit list [NOTEBOOK ...]``
    every notebook (or those named) with its presets, what each preset sets,
    and its parameters (name, type, default, valid range, one-line help), read
    from the cell tagged ``parameters``.
``lupikit run NOTEBOOK [-p NAME VALUE]... [--preset NAME] [--out DIR] [--scheduler ADDRESS]``
    validate the parameters, execute the notebook with papermill into
    ``_build/runs/`` (the source is never overwritten), showing the cells done,
    the library's long loops and the elapsed time, and write an HTML rendering
    next to it that needs no network (also when a cell raised: it shows what
    ran). Every claim is evaluated (a failed claim does not stop the run) and
    printed with its measured value, its threshold and its verdict; the
    parameters printed are those the run used, read back from it. Exit status
    0, or 1 when a claim's outcome is not the one the book states (a claim
    failed, or one the book shows failing held) or a cell raised, or 2 for a
    usage error.
``lupikit sweep NOTEBOOK -p NAME V1,V2,... [-p ...] [--out DIR] [--jobs N] [--scheduler ADDRESS] [--plot CLAIM PARAM]``
    run the notebook for every combination of the values, printing each run's
    claims as it finishes, and collect the recorded claims into one CSV (a row
    per run: the parameters it used, read back from it, and every claim's
    value, whether it held and its verdict), a summary CSV of how often each
    claim held, and with ``--plot`` a figure of one claim against one swept
    parameter with its threshold.
``lupikit paper [NOTEBOOK ...] [--seeds N] [--jobs N] [--force] [--scheduler ADDRESS]``
    run the notebooks at ``--preset paper`` (several at once), each at ``N``
    seeds (its ``seed`` parameter and the ``N - 1`` after it), and write
    ``results/paper/<part>/<name>.json`` (parameters, claims, provenance): a
    claim keeps its verdict only where it holds at four of five seeds
    (``lupikit._seeds.MAJORITY``), and the record gives the fraction and
    the spread of its value. A notebook whose source and part's code are
    unchanged since its result was recorded, with at least as many seeds, is
    not run again unless ``--force``.

Presets and ``-p``: a notebook applies its preset *after* its parameters (its
``if preset == "paper": ...`` cell assigns them), so a value passed with ``-p``
for a parameter that the chosen preset sets would be silently overridden. The
command refuses it, naming the parameters and listing the preset's values: to
change one of them, run without ``--preset`` and pass them all with ``-p``.

Values: ``-p NAME VALUE`` takes an int, a float, a bool (true/false) or a
string; a list parameter takes a Python list (``'[50, 100]'``), comma-separated
values (``50,100``) or one value (``50``, the list ``[50]``). A sweep separates
the values of a parameter with commas (``-p seed 0,1,2``), and of a list
parameter with semicolons (``-p curve_sizes '[50,100];[200,400]'`` is two runs;
``-p curve_sizes '50;100'`` runs ``[50]`` and ``[100]``).

Valid ranges: the help comment of a parameter may end with its valid range in
brackets, checked before running: ``[≥ 20]``, ``[> 0]``, ``[0, 1]`` (both ends
included), several conditions ``[> 0, ≤ 1]``, ``[≠ 0]``, and for a list,
elementwise, ``[each ≥ 10]``. (Written with the characters ≥ ≤ ≠: papermill
reads a parameters line with a second ``=`` as no parameter.)

``--scheduler tcp://HOST:PORT`` runs the notebooks' joblib loops (their
``n_jobs`` parameters: pass ``-p n_jobs -1``) on that Dask cluster, and a
sweep's runs as cluster tasks.

NOTEBOOK is a path or a short name such as ``oblivious/ridge``. The notebooks
folder is found from ``--notebooks-dir``, the ``LUPIKIT_NOTEBOOKS`` environment
variable, or the nearest ``notebooks/`` folder above the working directory.

This module drives notebooks only; it imports no part of the library.
"""

import argparse
import csv
import datetime as _dt
import json
import os
import re
import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from . import _seeds
from ._cli_classroom import add_classroom_parser
from ._cli_error import CLIError
from ._claim_lines import _claims_line, _unexpected, claim_line
from ._harness import kernel_environment
from ._notebook_paths import (_repo_root, _short_name, find_notebooks_dir, is_exercise_notebook, list_notebooks,
                             resolve_notebook)
from ._notebook_source import (ClaimIds, Parameter, parse_range, read_claim_ids, read_parameters,
                               read_preset_settings, read_presets)
from ._parameter_values import _preset_values, _split_values, check_preset_conflicts, validate_parameters
from .claims import read_claims, read_run_parameters

try:  # the notebook stack is the [cli] extra: a library install goes without it
    from . import _runs
    from ._sweep_report import _plot_sweep, _print_summary, _run_outcome_line
except ImportError as exc:  # pragma: no cover - exercised by tests/test_packaging.py
    _runs = None
    _MISSING = exc.name

__all__ = ["CLIError", "Parameter", "ClaimIds", "read_parameters", "read_presets", "read_preset_settings",
           "read_claim_ids", "parse_range", "find_notebooks_dir", "resolve_notebook",
           "validate_parameters", "main"]


def cmd_list(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    paths = [resolve_notebook(n, nb_dir) for n in args.notebooks] if args.notebooks else list_notebooks(nb_dir)
    for path in paths:
        print(_short_name(path, nb_dir))
        try:
            params = read_parameters(path)
        except CLIError as exc:
            print(f"    ! {exc}")
            continue
        settings = read_preset_settings(path)
        presets = read_presets(path)
        if presets:
            shown = [p + (f" (sets {_preset_values(p, settings, params)})"
                          if _preset_values(p, settings, params) else "") for p in presets]
            print("    presets: " + "; ".join(shown))
        width = max((len(p.range) for p in params.values()), default=0)
        for p in params.values():
            rng = f"{p.range:<{width}} " if width else ""
            print(f"    {p.name:<20} {p.type:<6} {p.default!r:<22} {rng}{p.help}")
    return 0


def _check_scheduler(address):
    """Connect to a Dask scheduler once, or raise a CLIError naming it."""
    if not address:
        return None
    try:
        from distributed import Client  # the [dask] extra
    except ImportError:
        raise CLIError("--scheduler needs dask and distributed: pip install 'lupikit[dask]'.") from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise CLIError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None


def _prepare_kernels(nb_dir, *, scheduler=None, blas_threads=None, progress=False, claims=None,
                     soft_asserts=False):
    """Set this process's environment for the kernels it starts (see lupikit._harness)."""
    env = kernel_environment(_repo_root(nb_dir) / "_build" / ".ipython", blas_threads=blas_threads,
                             scheduler=scheduler)
    os.environ.update(env)
    _runs.environment_flag("LUPIKIT_PROGRESS", "1" if progress else None)
    _runs.environment_flag("LUPIKIT_CLAIMS", claims)
    _runs.environment_flag("LUPIKIT_SOFT_ASSERTS", "1" if soft_asserts else None)


def _assert_lines(failed):
    """One line per failed ``assert`` of the notebook's own code (see _runs.read_failed_asserts)."""
    return [f"✘ assertion of the notebook (cell {f['cell']}): assert {f['check']}"
            + (f", {f['message']}" if f["message"] else "") + " — failed, the run went on"
            for f in failed]


def _format_parameters(values):
    return ", ".join(f"{k}={v!r}" for k, v in values.items()) or "default parameters"


def _notebook_info(path):
    return read_parameters(path), read_presets(path), read_preset_settings(path)


def cmd_run(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    path = resolve_notebook(args.notebook, nb_dir)
    params, presets, settings = _notebook_info(path)
    values = validate_parameters(params, args.parameter or [], args.preset, presets, settings)

    out_dir = Path(args.out) if args.out else _repo_root(nb_dir) / "_build" / "runs"
    out_dir = out_dir.resolve()
    try:
        short = _short_name(path, nb_dir)
    except ValueError:
        short = path.stem
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    target = out_dir / f"{short}-{stamp}.ipynb"
    if target.resolve() == path.resolve():
        raise CLIError("the output would overwrite the source notebook; choose another --out.")
    client = _check_scheduler(args.scheduler)
    mathjax = _runs.find_mathjax(_repo_root(nb_dir))
    # every claim is evaluated: a failed claim, or a failed assert of the notebook's
    # own code, is recorded and the run goes on
    _prepare_kernels(nb_dir, scheduler=args.scheduler, progress=True, claims="record", soft_asserts=True)
    print(f"running {short} with {_format_parameters(values)}"
          + (f" (joblib loops on {args.scheduler})" if client else ""), flush=True)
    seconds, error = _runs.execute(path, target, values, kernel=args.kernel, progress=sys.stderr.isatty())
    if not target.is_file():
        raise CLIError(f"the notebook could not be executed: {error}")
    html = _render(target, mathjax, out_dir)
    records = read_claims(target)
    ran = read_run_parameters(target)
    print(f"{'stopped after' if error else 'done in'} {seconds:.1f} s")
    if ran:
        print(f"parameters of the run (read back from it): {_format_parameters(ran)}")
    else:
        print("the run recorded no parameters (it stopped before creating its Claims recorder)")
    for r in records:
        print("  " + claim_line(r))
    failed_asserts = _runs.read_failed_asserts(target)
    for line in _assert_lines(failed_asserts):
        print("  " + line)
    if error:
        ids = read_claim_ids(path)
        seen = [r["id"] for r in records]
        missing = [i for i in ids.ids if i not in seen]
        missing += [src for src, rx in ids.patterns if not any(re.fullmatch(rx, i) for i in seen)]
        print(f"a cell raised {error}", file=sys.stderr)
        if missing:
            print("  not evaluated (the run stopped): " + ", ".join(missing), file=sys.stderr)
    print(_claims_line(records))
    print(f"executed notebook: {target}")
    if html is not None:
        print(f"HTML rendering:    {html}")
    if mathjax is None:
        print("  (MathJax not found: the page shows its math as TeX source)", file=sys.stderr)
    unexpected = [r["id"] for r in records if _unexpected(r)]
    if unexpected:
        print(f"{len(unexpected)} claim(s) not as the book states: {', '.join(unexpected)}", file=sys.stderr)
    if failed_asserts:
        print(f"{len(failed_asserts)} assertion(s) of the notebook failed (its text assumes they hold)",
              file=sys.stderr)
    return 1 if unexpected or error or failed_asserts else 0


def _render(executed, mathjax, static_dir):
    """The executed notebook's HTML page (see _runs.render_html), or None with a warning."""
    try:
        return _runs.render_html(executed, Path(executed).with_suffix(".html"), mathjax=mathjax,
                                 static_dir=static_dir)
    except Exception as exc:  # noqa: BLE001 - a page that cannot be rendered must not hide the claims
        print(f"warning: no HTML rendering of {executed}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None


def _sweep_one(path, target, parameters, kernel):
    """One run of a sweep (also a Dask task: it must be importable on the workers)."""
    os.environ["LUPIKIT_CLAIMS"] = "record"
    os.environ["LUPIKIT_SOFT_ASSERTS"] = "1"
    seconds, error = _runs.execute(path, target, parameters, kernel=kernel)
    return str(target), seconds, error


def cmd_sweep(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    path = resolve_notebook(args.notebook, nb_dir)
    params, presets, settings = _notebook_info(path)
    short = _short_name(path, nb_dir)
    grid_values = {}
    for name, text in args.parameter or []:
        if name not in params:
            valid = "\n".join("  " + p.describe() for p in params.values())
            raise CLIError(f"unknown sweep parameter {name!r}. Valid parameters:\n{valid}")
        if name in grid_values:
            raise CLIError(f"parameter {name!r} is given twice; give all its values in one -p.")
        grid_values[name] = _split_values(params[name], text)
    if not grid_values:
        raise CLIError("give at least one parameter to sweep: -p NAME V1,V2,...")
    if args.jobs < 1:
        raise CLIError(f"--jobs must be at least 1, got {args.jobs}.")
    if args.preset is not None and "preset" in grid_values:
        raise CLIError("give the preset either with --preset or swept with -p preset, not both.")
    fixed = validate_parameters(params, [], args.preset, presets) if args.preset else {}
    swept_presets = grid_values.get("preset", [args.preset] if args.preset else [])
    others = {name: shlex.quote(text) for name, text in args.parameter if name != "preset"}
    for v in swept_presets:
        validate_parameters(params, [], v, presets)
        check_preset_conflicts(v, others, settings, params, sweep=True)
    if args.plot:
        claim_id, param = args.plot
        if param not in grid_values:
            raise CLIError(f"--plot: {param!r} is not a swept parameter ({', '.join(grid_values)}).")
        ids = read_claim_ids(path)
        if not ids.matches(claim_id):
            if not ids.unresolved:
                raise CLIError(f"--plot: {short} checks no claim {claim_id!r}; its claims: {ids.describe()}.")
            print(f"warning: --plot: {claim_id!r} is not among the claim ids found in {short}'s code "
                  f"({ids.describe()}), but some ids are computed at run time: it is checked after "
                  "the runs.", file=sys.stderr)
    grid = [{**fixed, **g} for g in _runs.sweep_grid(grid_values)]
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = (Path(args.out) if args.out else _repo_root(nb_dir) / "_build" / "sweeps" / f"{short}-{stamp}").resolve()
    targets = [out / "runs" / f"run{i:03d}.ipynb" for i in range(len(grid))]
    client = _check_scheduler(args.scheduler)
    mathjax = _runs.find_mathjax(_repo_root(nb_dir))
    _prepare_kernels(nb_dir, scheduler=None, blas_threads=1 if args.jobs > 1 else None, claims="record",
                     soft_asserts=True)
    print(f"sweeping {short}: {len(grid)} runs of {', '.join(grid_values)}, {args.jobs} at once"
          + (f" on {args.scheduler}" if client else ""), flush=True)
    t0 = time.perf_counter()
    results = [None] * len(grid)

    def finished(i, future):
        try:
            result = future.result()
        except Exception as exc:  # noqa: BLE001 - one run's failure (e.g. a lost worker) is recorded
            result = (str(targets[i]), 0.0, f"{type(exc).__name__}: {exc}")
        results[i] = result
        target, seconds, error = result
        records, failed_asserts = [], []
        if Path(target).is_file():
            records = read_claims(target)
            failed_asserts = _runs.read_failed_asserts(target)
            _render(target, mathjax, out)
        label = ", ".join(f"{k}={json.dumps(v) if isinstance(v, list) else v}" for k, v in grid[i].items()
                          if k in grid_values)
        print(f"  run {i + 1}/{len(grid)} {label}: {seconds:.1f} s; {_run_outcome_line(records, error)}"
              + (f"; {len(failed_asserts)} assertion(s) of the notebook failed" if failed_asserts else ""),
              flush=True)

    if client is not None:
        from distributed import as_completed as dask_completed

        futures = {client.submit(_sweep_one, str(path), str(t), g, args.kernel, pure=False): i
                   for i, (t, g) in enumerate(zip(targets, grid))}
        for future in dask_completed(list(futures)):
            finished(futures[future], future)
    else:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(_sweep_one, path, t, g, args.kernel): i
                       for i, (t, g) in enumerate(zip(targets, grid))}
            for future in as_completed(futures):
                finished(futures[future], future)
    runs = [(g, target, seconds, error) for g, (target, seconds, error) in zip(grid, results)]
    rows = _runs.sweep_rows(runs)
    columns = list(dict.fromkeys(k for row in rows for k in row))
    out.mkdir(parents=True, exist_ok=True)
    table = out / "claims.csv"
    with table.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    summary = _runs.sweep_summary(runs)
    summary_path = out / "claims-summary.csv"
    with summary_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(_runs.SUMMARY_KEYS))
        writer.writeheader()
        writer.writerows(summary)
    n_errors = sum(1 for _, _, _, e in runs if e)
    print(f"{len(rows)} runs in {time.perf_counter() - t0:.1f} s"
          + (f"; {n_errors} stopped at an error" if n_errors else ""))
    _print_summary(summary, len(rows))
    print(f"claims table: {table}")
    print(f"summary:      {summary_path}")
    if args.plot:
        varied = [k for k, v in grid_values.items() if k != param and len(v) > 1]
        figure = _plot_sweep(runs, rows, claim_id, param, varied, out / f"{claim_id}-vs-{param}.png")
        print(f"plot: {figure}")
    return 0


def _display_path(path, root):
    """``path`` relative to ``root`` when it is below it (shorter), else as it is."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve())
    except ValueError:
        return Path(path)


def cmd_paper(args):
    if args.seeds < 1:
        raise CLIError(f"--seeds must be at least 1, got {args.seeds}.")
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    root = _repo_root(nb_dir)
    # the exercise notebooks of the classroom edition make no paper claims
    paths = ([resolve_notebook(n, nb_dir) for n in args.notebooks] if args.notebooks else
             [p for p in list_notebooks(nb_dir) if not is_exercise_notebook(p)])
    results_dir = Path(args.results) if args.results else root / "results" / "paper"
    todo = []
    for path in paths:
        short = _short_name(path, nb_dir)
        if "paper" not in read_presets(path):
            raise CLIError(f"{short} defines no 'paper' preset.")
        params = read_parameters(path)
        if args.seeds > 1 and "seed" not in params:
            raise CLIError(f"{short} has no 'seed' parameter: run it with --seeds 1.")
        old = _runs.read_paper_result(results_dir, short)
        first = int(params["seed"].default) if "seed" in params else 0
        seeds = [first + k for k in range(args.seeds)]
        earlier = None
        if old is not None and not args.force and not _runs.is_stale(old, path, short):
            have = [int(s) for s in old.get("seeds", [first])]
            if len(have) >= args.seeds:
                print(f"  {short}: unchanged since {old['executed_at']}, not run again")
                continue
            # a current record at fewer seeds is extended: only the missing seeds run
            if have == seeds[:len(have)] and _seeds.seed_runs(old) is not None:
                earlier, seeds = old, seeds[len(have):]
                print(f"  {short}: seed(s) {', '.join(map(str, have))} recorded and current; "
                      f"running seed(s) {', '.join(map(str, seeds))}")
        todo.append((path, short, seeds, 0.0 if old is None else float(old.get("seconds", 0.0)), earlier))
    if not todo:
        print("every paper-scale result is up to date (use --force to run them again)")
        return 0
    # one unit of work per notebook and seed, the longest first (by their last
    # recorded time), so that the slots finish together
    units = sorted(((path, short, seed, last) for path, short, seeds, last, _ in todo for seed in seeds),
                   key=lambda u: -u[3])
    client = _check_scheduler(args.scheduler)
    _prepare_kernels(nb_dir, scheduler=args.scheduler, blas_threads=1 if args.jobs > 1 else None,
                     claims="record")
    print(f"running {len(todo)} notebook(s) at --preset paper with {args.seeds} seed(s) each, "
          f"{args.jobs} at once" + (f", joblib loops on {args.scheduler}" if client else ""), flush=True)
    t0 = time.perf_counter()
    # what a record will say it ran: the code and commit as they are at the start
    starts = {short: dict(executed_at=_runs.now(), fingerprint=_runs.fingerprints(path, short),
                          prov=_runs.provenance()) for path, short, _, _, _ in todo}

    def one(unit):
        path, short, seed, _ = unit
        name = f"{short}.ipynb" if args.seeds == 1 else f"{short}/seed{seed}.ipynb"
        target = root / "_build" / "paper" / name
        parameters = {"preset": "paper"} if args.seeds == 1 else {"preset": "paper", "seed": seed}
        seconds, error = _runs.execute(path, target, parameters, kernel=args.kernel)
        return short, seed, target, seconds, error

    done = {short: {} for _, short, _, _, _ in todo}
    failed, busy = [], 0.0
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        # record each notebook as soon as its seeds are done: a long one holds up no other
        futures = [pool.submit(one, unit) for unit in units]
        for future in as_completed(futures):
            short, seed, target, seconds, error = future.result()
            busy += seconds
            path, _, seeds, _, earlier = next(t for t in todo if t[1] == short)
            if args.seeds > 1:
                print(f"    {short} seed {seed}: {seconds:.1f} s; {_claims_line(target)}"
                      + (f"; FAILED: {error.splitlines()[0]}" if error else ""), flush=True)
            done[short][seed] = (target, seconds, error)
            if len(done[short]) < len(seeds):
                continue
            errors = [(s, e) for s, (_, _, e) in sorted(done[short].items()) if e]
            if errors:
                failed.append(short)
                print(f"  {short}: FAILED at seed(s) {', '.join(str(s) for s, _ in errors)}: "
                      f"{errors[0][1].splitlines()[0]}", flush=True)
                continue
            targets = [done[short][s][0] for s in seeds]
            times = [done[short][s][1] for s in seeds]
            # the parameters cell's values, overridden by those the first run used after its preset
            params = {"preset": "paper", **_executed_parameters(targets[0]),
                      **read_run_parameters(targets[0])}
            start = starts[short]
            record = _runs.paper_record(path, short, targets, params, times, start["executed_at"],
                                        fingerprint=start["fingerprint"], prov=start["prov"], seeds=seeds,
                                        earlier=earlier)
            written = _runs.write_paper_result(results_dir, record)
            counts = {}
            for c in record["claims"]:
                counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
            tally = ", ".join(f"{n} {v}" for v, n in counts.items())
            print(f"  {short}: {sum(times):7.1f} s ({len(seeds)} seed(s) run, {len(record['seeds'])} recorded); "
                  f"{len(record['claims'])} claims: "
                  f"{tally} -> {_display_path(written, root)}", flush=True)
    print(f"paper-scale run: {time.perf_counter() - t0:.1f} s wall time for {len(todo)} notebook(s) "
          f"({busy:.1f} s of notebook time, {args.jobs} at once); executed notebooks in "
          f"{root / '_build' / 'paper'}")
    if failed:
        raise CLIError(f"{len(failed)} notebook(s) failed: {', '.join(failed)}")
    return 0


_executed_parameters = None if _runs is None else _runs.executed_parameters


class _PairAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        items = getattr(namespace, self.dest) or []
        items.append(tuple(values))
        setattr(namespace, self.dest, items)


_RUN_EPILOG = """\
values:
  -p n_samples 500            an int, float, bool (true/false) or string
  -p curve_sizes '[50, 100]'  a list; also 50,100 or one value, 50 (the list [50])
presets:
  --preset paper applies the notebook's paper-scale values after the parameters;
  a -p for a parameter the preset sets is refused (the preset would override it):
  run without --preset and pass every value with -p instead (lupikit list
  NOTEBOOK shows what each preset sets).
valid ranges:
  values outside a parameter's range (lupikit list shows it, e.g. [≥ 20]) are
  refused before running.
claims:
  every claim is evaluated (a failed one does not stop the run) and printed:
  ✔/✘ ID: measured VALUE, needs THRESHOLD — VERDICT; "? ID: not computable —
  REASON" when the value is NaN, infinite or None (no failure); "– ID: not
  runnable offline — REASON". The parameters printed are read back from the run.
exit status:
  0; 1 when a claim's outcome is not the one the book states, an assert of the
  notebook's own code failed (the run goes on past it) or a cell raised (the
  executed notebook and its HTML are written all the same); 2 for a usage error.
"""

_SWEEP_EPILOG = """\
values:
  -p seed 0,1,2                       three runs
  -p curve_sizes '[50,100];[200,400]'  a list parameter's values are ';'-separated
  -p curve_sizes '50;100'             runs [50] and [100]
  -p preset default,paper             both presets (a swept parameter that a preset
                                      sets is refused)
progress:
  a line per run as it finishes: its claims held, failed (the paper's condition,
  whatever the book expects of it), not computable or not runnable offline;
  then how often each claim held.
output (in --out):
  claims.csv          a row per run: the parameters it used (read back from it),
                      each claim's value, whether it held and its verdict
  claims-summary.csv  how often each claim held over the runs
  runs/               the executed notebooks and their HTML pages
"""


def build_parser():
    parser = argparse.ArgumentParser(
        prog="lupikit",
        description="List and rerun the lupikit book's notebooks with new parameters.",
    )
    parser.add_argument("--notebooks-dir", help="folder holding the notebooks (default: ./notebooks or above)")
    sub = parser.add_subparsers(dest="command", required=True)

    p_list = sub.add_parser("list", help="list notebooks, their presets and their parameters")
    p_list.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                        help="short names or paths (default: every notebook)")
    p_list.set_defaults(func=cmd_list)

    p_run = sub.add_parser(
        "run", help="execute a notebook with papermill",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Execute a notebook with papermill; every claim is evaluated and printed.",
        epilog=_RUN_EPILOG)
    p_run.add_argument("notebook", help="path or short name, e.g. intro/lupi_setting")
    p_run.add_argument(
        "-p", "--parameter", nargs=2, metavar=("NAME", "VALUE"), action=_PairAction,
        help="set a parameter (repeatable); a list: '[50, 100]', 50,100 or 50 (= [50])",
    )
    p_run.add_argument("--preset", help="named preset, e.g. 'paper' for the paper-scale setting; a -p "
                       "for a parameter the preset sets is refused")
    p_run.add_argument("--out", help="output folder (default: _build/runs next to notebooks/)")
    p_run.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    p_run.add_argument("--scheduler", help="Dask scheduler address for the notebook's joblib loops")
    p_run.set_defaults(func=cmd_run)

    p_sweep = sub.add_parser(
        "sweep", help="run a notebook over a grid of parameters, collect its claims",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a notebook for every combination of parameter values; record every claim.",
        epilog=_SWEEP_EPILOG)
    p_sweep.add_argument("notebook", help="path or short name")
    p_sweep.add_argument(
        "-p", "--parameter", nargs=2, metavar=("NAME", "VALUES"), action=_PairAction,
        help="a parameter and its values, comma-separated: -p seed 0,1,2; a list parameter's values "
             "are ';'-separated: -p curve_sizes '[50,100];[200]' (two runs), '50;100' ([50] and [100])",
    )
    p_sweep.add_argument("--preset", help="preset of every run (or sweep -p preset default,paper)")
    p_sweep.add_argument("--out", help="output folder (default: _build/sweeps/<notebook>-<time>)")
    p_sweep.add_argument("--jobs", type=int, default=1, help="runs at once (default 1)")
    p_sweep.add_argument("--scheduler", help="Dask scheduler address: the runs become cluster tasks")
    p_sweep.add_argument("--plot", nargs=2, metavar=("CLAIM", "PARAM"),
                         help="plot one claim's value against one swept parameter (both checked "
                              "before the first run)")
    p_sweep.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    p_sweep.set_defaults(func=cmd_sweep)

    p_paper = sub.add_parser("paper", help="run the notebooks at --preset paper, record results/paper/")
    p_paper.add_argument("notebooks", nargs="*", help="short names (default: every notebook)")
    p_paper.add_argument("--jobs", type=int, default=2, help="notebooks at once (default 2)")
    p_paper.add_argument("--force", action="store_true", help="run up-to-date notebooks again")
    p_paper.add_argument("--seeds", type=int, default=1,
                         help="runs per notebook, at the seeds seed, seed+1, ...: a claim keeps its verdict "
                              "where it holds at 4 of 5 of them (default 1)")
    p_paper.add_argument("--results", help="results folder (default: results/paper next to notebooks/)")
    p_paper.add_argument("--scheduler", help="Dask scheduler address for the notebooks' joblib loops")
    p_paper.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    p_paper.set_defaults(func=cmd_paper)

    add_classroom_parser(sub)
    return parser


def main(argv=None):
    """Entry point of the ``lupikit`` console script."""
    if _runs is None:
        print(f"lupikit: error: the lupikit command needs the notebook stack ({_MISSING} is "
              "not installed): pip install 'lupikit[cli]'", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    # the kernels' environment (claims mode, threads, ...) is set for this command only: a caller
    # such as the test suite keeps its own (e.g. LUPIKIT_CLAIMS unset, so that claims raise)
    saved = dict(os.environ)
    try:
        return args.func(args)
    except CLIError as exc:
        print(f"lupikit: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `lupikit list | head`
        sys.stdout = open(os.devnull, "w")
        return 0
    finally:
        if dict(os.environ) != saved:
            os.environ.clear()
            os.environ.update(saved)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
