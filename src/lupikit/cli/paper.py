"""``lupikit paper``: every notebook at its paper preset and several seeds, recorded in ``results/paper/``."""

from functools import partial
from pathlib import Path

from .._book.errors import BookError
from .._book.execute import connect_scheduler
from .._book.harness import prepare_kernels
from .._book.paper import plan_paper, run_paper
from .._book.paths import checkout_paths, find_notebooks_dir
from ._args import add_execution_options

__all__ = ["add_paper_parser", "cmd_paper"]

_log = partial(print, flush=True)


def cmd_paper(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    paths = checkout_paths(nb_dir)
    results_dir = Path(args.results) if args.results else paths.results
    tasks = plan_paper(nb_dir, args.notebooks, args.seeds, results_dir, force=args.force, log=_log)
    if not tasks:
        print("every paper-scale result is up to date (use --force to run them again)")
        return 0
    client = connect_scheduler(args.scheduler)
    prepare_kernels(paths.ipython, scheduler=args.scheduler,
                    blas_threads=1 if args.jobs > 1 else None, claims="record")
    print(f"running {len(tasks)} notebook(s) at --preset paper with {args.seeds} seed(s) each, "
          f"{args.jobs} at once" + (f", joblib loops on {args.scheduler}" if client else ""), flush=True)
    summary = run_paper(tasks, paths, results_dir, n_seeds=args.seeds, jobs=args.jobs, kernel=args.kernel,
                        reuse=not args.force, shortest_first=args.shortest_first, log=_log)
    print(f"paper-scale run: {summary['wall']:.1f} s wall time for {len(tasks)} notebook(s) "
          f"({summary['busy']:.1f} s of notebook time, {args.jobs} at once); executed notebooks in "
          f"{summary['runs']}")
    if summary["failed"]:
        raise BookError(f"{len(summary['failed'])} notebook(s) failed: {', '.join(summary['failed'])}")
    return 0


def add_paper_parser(sub):
    p_paper = sub.add_parser("paper", help="run the notebooks at --preset paper, record results/paper/")
    p_paper.add_argument("notebooks", nargs="*", help="short names (default: every notebook)")
    p_paper.add_argument("--jobs", type=int, default=2, help="notebooks at once (default 2)")
    p_paper.add_argument("--force", action="store_true", help="run up-to-date notebooks again, and every seed (a run that stopped "
                              "part-way otherwise keeps the seeds it finished on unchanged code)")
    p_paper.add_argument("--seeds", type=int, default=1,
                         help="runs per notebook, at the seeds seed, seed+1, ...: a claim keeps its verdict "
                              "where it holds at 4 of 5 of them, or, if pooled, where the mean of its "
                              "values (pool='mean') or a t-test over them (pool='ttest') says so "
                              "(default 1)")
    p_paper.add_argument("--shortest-first", action="store_true",
                         help="run the quickest notebooks first, so that their records land early in a run "
                              "that will be stopped and resumed (default: the longest first, so that the "
                              "slots finish together)")
    p_paper.add_argument("--results", help="results folder (default: results/paper next to notebooks/)")
    add_execution_options(p_paper, "Dask scheduler address for the notebooks' joblib loops")
    p_paper.set_defaults(func=cmd_paper)
    return p_paper
