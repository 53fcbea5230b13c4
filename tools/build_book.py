"""Build the executed lupikit book (jupyter-book 1.x), offline.

    python tools/build_book.py build [--jobs N]   # execute notebooks, build _build/html
    python tools/build_book.py open               # print (and open, if possible) index.html

The build has two steps:

1. every notebook listed in ``_toc.yml`` is executed with its default
   parameters into the jupyter-cache that the book reads
   (``_build/.jupyter_cache``), several at a time with jupyter-cache's
   ``local-parallel`` executor; unchanged notebooks are not executed again;
   The time each notebook took is written to ``_build/notebook-times.json``
   and ``_build/notebook-times.txt`` and printed as a table. It is a
   measurement, not a check: it depends on what else the machine runs (the
   build executes several notebooks at once, and under ``make test`` the
   library's tests run beside it). ``benchmarks/bench_notebooks.py`` checks
   the 60-second budget of the default parameters, one notebook at a time;
2. ``jupyter-book build`` runs with warnings as errors (``-W -n
   --keep-going``), so a notebook that fails, a broken reference or a missing
   citation fails the build. It re-executes (and reports the traceback of) any
   notebook step 1 could not run.

This is a tool of the repository, not of the library: ``lupikit`` never knows
about the book.
"""

import argparse
import os
import subprocess
import sys
import time
import webbrowser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
CACHE = BUILD / ".jupyter_cache"
INDEX = BUILD / "html" / "index.html"
TIMES_JSON = BUILD / "notebook-times.json"
TIMES_TXT = BUILD / "notebook-times.txt"
BUDGET_SECONDS = 60.0  # what a notebook's default parameters may take on 2 cores (CONTRIBUTING.md)


def toc_notebooks():
    """Notebooks listed in _toc.yml, in book order."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = []

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if f and (ROOT / f"{f}.ipynb").is_file():
                found.append(ROOT / f"{f}.ipynb")
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    return found


def prefill_cache(jobs, timeout=600):
    """Execute the book's notebooks in parallel into the jupyter-cache."""
    import logging
    import multiprocessing

    from jupyter_cache import get_cache
    from jupyter_cache.executors import load_executor

    notebooks = toc_notebooks()
    cache = get_cache(str(CACHE))
    for nb in notebooks:
        cache.add_nb_to_project(str(nb))
    logger = logging.getLogger("book")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    # jupyter-cache's parallel executor uses one process per core; cap it.
    original_pool = multiprocessing.Pool

    def capped_pool(*args, **kwargs):
        kwargs.setdefault("processes", max(1, jobs))
        return original_pool(*args, **kwargs)

    multiprocessing.Pool = capped_pool
    try:
        executor = load_executor("local-parallel" if jobs > 1 else "local-serial", cache=cache, logger=logger)
        t0 = time.perf_counter()
        result = executor.run_and_cache(
            filter_uris=[str(nb) for nb in notebooks], timeout=timeout, allow_errors=False
        )
    finally:
        multiprocessing.Pool = original_pool
    failed = result.excepted + result.errored
    print(
        f"[book] executed {len(result.succeeded)} notebook(s), "
        f"{len(failed)} failed, {len(notebooks) - len(result.succeeded) - len(failed)} "
        f"cached, in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    for uri in failed:
        print(f"[book] FAILED: {uri}", flush=True)
    write_times(cache, notebooks, executed=set(result.succeeded), jobs=jobs)
    return result


def write_times(cache, notebooks, executed, jobs):
    """Write and print the seconds each notebook took when it was last executed.

    ``executed`` are the notebooks run by this build; the others come from the
    cache with the time of the run that cached them.
    """
    import json

    rows = []
    for nb in notebooks:
        try:
            record = cache.get_cached_project_nb(str(nb))
        except Exception:  # not in the project, or not cached (it failed)
            record = None
        seconds = None if record is None else record.data.get("execution_seconds")
        rows.append({
            "notebook": nb.relative_to(ROOT / "notebooks").with_suffix("").as_posix(),
            "seconds": None if seconds is None else round(float(seconds), 2),
            "source": "this build" if str(nb) in executed else ("cache" if record else "failed"),
        })
    TIMES_JSON.write_text(json.dumps({
        "budget_seconds": BUDGET_SECONDS,
        "notebooks_at_once": jobs,
        "note": "wall-clock seconds with other work on the machine; "
                "benchmarks/bench_notebooks.py checks the budget one notebook at a time",
        "notebooks": rows,
    }, indent=2) + "\n")
    lines = [f"{'notebook':<32} {'seconds':>8}  {'of budget':>9}  source"]
    for r in rows:
        sec = r["seconds"]
        lines.append(f"{r['notebook']:<32} {'-' if sec is None else f'{sec:8.1f}':>8}  "
                     f"{'-' if sec is None else f'{sec / BUDGET_SECONDS:8.0%}':>9}  {r['source']}")
    lines.append(f"({jobs} notebook(s) at once; budget {BUDGET_SECONDS:.0f} s per notebook, "
                 "checked alone by benchmarks/bench_notebooks.py)")
    TIMES_TXT.write_text("\n".join(lines) + "\n")
    print("[book] " + "\n[book] ".join(lines), flush=True)


def build(jobs):
    BUILD.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    prefill_cache(jobs)
    t1 = time.perf_counter()
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(ROOT), "--builder", "html", "-W", "-n", "--keep-going"]
    print("[book] " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, cwd=ROOT)
    t2 = time.perf_counter()
    print(
        f"[book] notebooks {t1 - t0:.1f} s, jupyter-book {t2 - t1:.1f} s, total {t2 - t0:.1f} s",
        flush=True,
    )
    if proc.returncode != 0:
        print("[book] BUILD FAILED (see the warnings above)", file=sys.stderr)
        return proc.returncode
    print(f"[book] built: {INDEX}")
    return 0


def open_book():
    if not INDEX.is_file():
        print(f"no book at {INDEX}; run 'make book' first", file=sys.stderr)
        return 1
    print(f"The book: {INDEX}")
    print(f"Open it in a browser: file://{INDEX}")
    if os.environ.get("DISPLAY") or sys.platform in ("darwin", "win32"):
        try:
            webbrowser.open(INDEX.as_uri())
        except Exception:  # pragma: no cover - best effort only
            pass
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build")
    p_build.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    sub.add_parser("open")
    args = parser.parse_args(argv)
    if args.command == "build":
        return build(args.jobs)
    return open_book()


if __name__ == "__main__":
    sys.exit(main())
