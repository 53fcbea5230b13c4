"""``lupikit sweep``: a notebook over a grid of parameters, a line per run, how often each claim held."""

import argparse
import datetime as _dt
import sys
import time
from pathlib import Path

from .._book.execute import connect_scheduler
from .._book.harness import prepare_kernels
from .._book.notebook_source import read_claim_ids
from .._book.outcomes import run_outcome_line
from .._book.paths import checkout_paths, find_notebooks_dir, resolve_notebook, short_name
from .._book.render import find_mathjax
from .._book.sweep import plan_sweep, plot_sweep, run_label, run_sweep, write_sweep_tables
from ._args import PairAction, add_execution_options, notebook_info

__all__ = ["add_sweep_parser", "cmd_sweep", "print_summary"]


def print_summary(summary, n_runs):
    """Print how often each claim held over a sweep's runs.

    Parameters
    ----------
    summary : list of dict
        One row per claim, from :func:`lupikit._book.sweep.sweep_summary`
        (nothing is printed if it is empty).
    n_runs : int
        The number of runs of the sweep.
    """
    if summary:
        print(f"how often each claim held over the {n_runs} runs:")
        width = max(len(s["claim"]) for s in summary)
        for s in summary:
            decided = s["held"] + s["failed"]
            rate = f"held {s['held']}/{decided} ({s['pass rate']:.0%})" if decided else "checked in no run"
            extra = [f"{s[k]} {k}" for k in ("not computable", "not runnable offline", "not recorded") if s[k]]
            print(f"  {s['claim']:<{width}}  {rate}" + (f"; {', '.join(extra)}" if extra else ""))


def cmd_sweep(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    path = resolve_notebook(args.notebook, nb_dir)
    params, presets, settings = notebook_info(path)
    short = short_name(path, nb_dir)
    plan = plan_sweep(params, presets, settings, args.parameter or [], short=short, preset=args.preset,
                      plot=args.plot, claim_ids=read_claim_ids(path) if args.plot else None,
                      jobs=args.jobs)
    if plan.plot_warning:
        print(f"warning: {plan.plot_warning}", file=sys.stderr)
    grid, grid_values = plan.grid, plan.grid_values
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    paths = checkout_paths(nb_dir)
    out = (Path(args.out) if args.out else paths.sweeps / f"{short}-{stamp}").resolve()
    targets = [out / "runs" / f"run{i:03d}.ipynb" for i in range(len(grid))]
    client = connect_scheduler(args.scheduler)
    mathjax = find_mathjax(paths.root)
    prepare_kernels(paths.ipython, scheduler=None,
                    blas_threads=1 if args.jobs > 1 else None, claims="record", soft_asserts=True)
    print(f"sweeping {short}: {len(grid)} runs of {', '.join(grid_values)}, {args.jobs} at once"
          + (f" on {args.scheduler}" if client else ""), flush=True)
    t0 = time.perf_counter()

    def done(i, seconds, error, records, failed_asserts, warning):
        if warning:
            print(warning, file=sys.stderr)
        print(f"  run {i + 1}/{len(grid)} {run_label(grid[i], grid_values)}: {seconds:.1f} s; "
              f"{run_outcome_line(records, error)}"
              + (f"; {len(failed_asserts)} assertion(s) of the notebook failed" if failed_asserts else ""),
              flush=True)

    try:
        runs = run_sweep(path, grid, targets, jobs=args.jobs, kernel=args.kernel, client=client, mathjax=mathjax,
                         out=out, on_done=done)
    finally:
        if client is not None:
            client.close()
    tables = write_sweep_tables(runs, out)
    n_errors = sum(1 for _, _, _, e in runs if e)
    print(f"{len(tables['rows'])} runs in {time.perf_counter() - t0:.1f} s"
          + (f"; {n_errors} stopped at an error" if n_errors else ""))
    print_summary(tables["summary"], len(tables["rows"]))
    print(f"claims table: {tables['table']}")
    print(f"summary:      {tables['summary_path']}")
    if args.plot:
        claim_id, param = args.plot
        varied = [k for k, v in grid_values.items() if k != param and len(v) > 1]
        figure = plot_sweep(runs, tables["rows"], claim_id, param, varied, out / f"{claim_id}-vs-{param}.png")
        print(f"plot: {figure}")
    return 0


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


def add_sweep_parser(sub):
    p_sweep = sub.add_parser(
        "sweep", help="run a notebook over a grid of parameters, collect its claims",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a notebook for every combination of parameter values; record every claim.",
        epilog=_SWEEP_EPILOG)
    p_sweep.add_argument("notebook", help="path or short name")
    p_sweep.add_argument(
        "-p", "--parameter", nargs=2, metavar=("NAME", "VALUES"), action=PairAction,
        help="a parameter and its values, comma-separated: -p seed 0,1,2; a list parameter's values "
             "are ';'-separated: -p curve_sizes '[50,100];[200]' (two runs), '50;100' ([50] and [100])",
    )
    p_sweep.add_argument("--preset", help="preset of every run (or sweep -p preset default,paper)")
    p_sweep.add_argument("--out", help="output folder (default: _build/sweeps/<notebook>-<time>)")
    p_sweep.add_argument("--jobs", type=int, default=1, help="runs at once (default 1)")
    p_sweep.add_argument("--plot", nargs=2, metavar=("CLAIM", "PARAM"),
                         help="plot one claim's value against one swept parameter (both checked "
                              "before the first run)")
    add_execution_options(p_sweep, "Dask scheduler address: the runs become cluster tasks")
    p_sweep.set_defaults(func=cmd_sweep)
    return p_sweep
