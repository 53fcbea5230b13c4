"""Build the executed lupikit book (jupyter-book 1.x), offline.

    python tools/build_book.py build [--jobs N]   # execute notebooks, build _build/html
    python tools/build_book.py open               # print (and open, if possible) index.html

The build has two steps:

1. every notebook listed in ``_toc.yml`` is executed with its default
   parameters into the jupyter-cache that the book reads
   (``_build/.jupyter_cache``), several at a time with jupyter-cache's
   ``local-parallel`` executor; unchanged notebooks are not executed again;
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
    print(
        f"[book] executed {len(result.succeeded)} notebook(s), "
        f"{len(result.errored)} failed, {len(notebooks) - len(result.succeeded) - len(result.errored)} "
        f"cached, in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    for uri in result.errored:
        print(f"[book] FAILED: {uri}", flush=True)
    return result


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
