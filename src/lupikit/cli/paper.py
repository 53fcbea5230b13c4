"""``lupikit paper``: every notebook at its paper preset and several seeds, recorded in ``results/paper/``."""

from functools import partial
from pathlib import Path

from .._book.paper import record_paper
from .._book.paths import checkout_paths, find_notebooks_dir
from .._book.records import check_records, migrate_records, reaggregated, write_paper_result
from ..claims import PREVIOUS_SCHEME, SCHEME
from ._args import add_execution_options

__all__ = ["add_paper_parser", "cmd_paper", "migrate", "print_check", "reaggregate"]

_log = partial(print, flush=True)


def print_check(results_dir, nb_dir, notebooks=(), out=print):
    """``lupikit paper --check``: every record current or stale, naming what changed; returns 0."""
    rows = [row for row in check_records(results_dir, nb_dir) if not notebooks or row[0] in notebooks]
    for short, record, state in rows:
        seeds = len(record.get("seeds") or [0])
        out(f"{short}: {'STALE' if state else 'current'} (recorded {(record.get('executed_at') or '?')[:10]}, "
            f"{seeds} seed{'s' if seeds != 1 else ''})")
        for line in state.changed:
            out(f"    changed: {line}")
        for line in state.notes:
            out(f"    note: {line}")
    n_stale = sum(1 for *_, state in rows if state)
    out(f"{len(rows) - n_stale} of {len(rows)} records current, {n_stale} stale "
        "(a changed library version is noted, not stale)")
    return 0


def reaggregate(results_dir, nb_dir, notebooks=(), out=print):
    """``lupikit paper --reaggregate``: every current record combined again from its per-seed values.

    Runs no notebook. A record whose verdicts, intervals or p-values the
    decision rule of this checkout computes otherwise is rewritten, and the
    claims whose fields changed are named; a stale record is left alone.
    Returns 0.
    """
    rows = [row for row in check_records(results_dir, nb_dir) if not notebooks or row[0] in notebooks]
    n_written = 0
    for short, record, state in rows:
        if state:
            out(f"{short}: stale, left alone (re-record it with lupikit paper)")
            continue
        again = reaggregated(record)
        if again is None:
            out(f"{short}: holds no per-seed verdicts, left alone")
            continue
        before = {c["id"]: c for c in record["claims"]}
        changed = [(c["id"], k) for c in again["claims"] for k in c
                   if c.get(k) != (before.get(c["id"]) or {}).get(k)]
        if not changed:
            continue
        write_paper_result(results_dir, again)
        n_written += 1
        for cid, field in changed:
            old, new = (before.get(cid) or {}).get(field), next(c for c in again["claims"] if c["id"] == cid)[field]
            out(f"{short}: {cid}: {field} {old!r} -> {new!r}")
    out(f"{n_written} of {len(rows)} records combined again")
    return 0


def migrate(results_dir, nb_dir, notebooks=(), out=print):
    """``lupikit paper --migrate-fingerprints``: records of the previous fingerprint scheme moved to today's.

    Runs no notebook. A record whose fingerprint is of
    ``lupikit.claims.PREVIOUS_SCHEME`` and current under it ran exactly
    today's code: its fingerprint is computed again under
    ``lupikit.claims.SCHEME`` and written; one that is stale under its
    own scheme is left alone, with what changed. Returns 0.
    """
    rows = migrate_records(results_dir, nb_dir, notebooks)
    for short, moved, state in rows:
        if moved:
            out(f"{short}: current under scheme {PREVIOUS_SCHEME}, moved to scheme {SCHEME}")
        elif state:
            out(f"{short}: stale, left alone ({'; '.join(state.changed)})")
    out(f"{sum(moved for _, moved, _ in rows)} of {len(rows)} records moved to fingerprint scheme {SCHEME}")
    return 0


def cmd_paper(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    paths = checkout_paths(nb_dir)
    results_dir = Path(args.results) if args.results else paths.results
    if args.check:
        return print_check(results_dir, nb_dir, args.notebooks)
    if args.reaggregate:
        return reaggregate(results_dir, nb_dir, args.notebooks, out=_log)
    if args.migrate_fingerprints:
        return migrate(results_dir, nb_dir, args.notebooks, out=_log)
    record_paper(paths, args.notebooks, n_seeds=args.seeds, jobs=args.jobs, results_dir=results_dir,
                 force=args.force, shortest_first=args.shortest_first, scheduler=args.scheduler,
                 kernel=args.kernel, log=_log, max_seeds=args.max_seeds, time_limit=args.time_limit)
    return 0


def add_paper_parser(sub):
    p_paper = sub.add_parser("paper", help="run the notebooks at --preset paper, record results/paper/")
    p_paper.add_argument("notebooks", nargs="*", help="short names (default: every notebook)")
    p_paper.add_argument("--jobs", type=int, default=2,
                         help="notebooks at once (default 2; with --scheduler, the workers' threads decide)")
    p_paper.add_argument("--force", action="store_true", help="run up-to-date notebooks again, and every seed (a run that stopped "
                              "part-way otherwise keeps the seeds it finished on unchanged code)")
    p_paper.add_argument("--seeds", type=int, default=1,
                         help="runs per notebook, at the seeds 0, 1, ... (each the entropy of the notebook's "
                              "SeedSequence): a claim's verdict follows a 95%% interval of its value over "
                              "them against its threshold: held, not held, or inconclusive (default 1)")
    p_paper.add_argument("--max-seeds", type=int, default=None,
                         help="add seeds, 5 at a time, to a notebook whose claims stay inconclusive, up to "
                              "this many (default: --seeds, none added)")
    p_paper.add_argument("--time-limit", type=float, default=None,
                         help="hours: add no seeds that would not end within this time from the start")
    p_paper.add_argument("--shortest-first", action="store_true",
                         help="run the quickest notebooks first, so that their records land early in a run "
                              "that will be stopped and resumed (default: the longest first, so that the "
                              "slots finish together)")
    p_paper.add_argument("--results", help="results folder (default: results/paper next to notebooks/)")
    p_paper.add_argument("--check", action="store_true",
                         help="run nothing: list every record as current or stale and, for a stale one, the "
                              "library definitions, notebook code or data files that changed (exits 0)")
    p_paper.add_argument("--reaggregate", action="store_true",
                         help="run nothing: combine every current record again from its per-seed values by "
                              "this checkout's decision rule (verdicts, intervals, p-values), and name what "
                              "changed")
    p_paper.add_argument("--migrate-fingerprints", action="store_true",
                         help="run nothing: give every record that is current under the previous "
                              "fingerprint scheme today's fingerprint of the same code")
    add_execution_options(p_paper, "Dask scheduler address, e.g. tcp://HOST:8786: each notebook × seed runs "
                                   "as a task on the cluster's workers (its joblib loops stay on its worker); "
                                   "the workers need this checkout at the same path, its .venv, and the data "
                                   "home in LUPIKIT_DATA")
    p_paper.set_defaults(func=cmd_paper)
    return p_paper
