"""Build the executed lupikit book (jupyter-book 1.x), offline (private).

``python -m lupikit._book build`` (``make book``) runs :func:`build`; the
PDF is :mod:`lupikit._book.pdf`, the student edition's book
:mod:`lupikit._book.student`.

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

Between the two steps :func:`lupikit._book.pages.write_pages` writes the pages
that are assembled from the recorded claims and results, never typed by hand
(``book/_generated/``, not committed): the scorecard, the execution status,
the runtime table of the "Reproducing and rerunning" page, the Data page's
tables and the teaching page's table.

``--preset paper`` builds the same book from the paper-scale executions
(``lupikit paper`` writes them to ``_build/paper/``; missing or stale ones are
run first) in a staging copy whose notebooks are not executed again.

The kernels get the execution harness of :mod:`lupikit._book.harness`
(quiet start-up, one BLAS thread each when several run at once). Every path
is a :class:`~lupikit._book.paths.BookPaths` of the checkout. This module
imports no part of the library.
"""

import json
import logging
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
import webbrowser
from functools import partial
from pathlib import Path

import yaml
from jupyter_cache import get_cache
from jupyter_cache.executors import load_executor

from .errors import BookError
from .harness import kernel_environment
from .paper import record_paper
from .pages import write_pages
from .paths import is_exercise_notebook

__all__ = ["BUDGET_SECONDS", "build", "build_paper", "executed_default", "jupyter_book", "open_book",
           "prefill_cache", "prepare_build", "staging_copy", "toc_files", "toc_notebooks", "write_times"]

BUDGET_SECONDS = 60.0  # what a notebook's default parameters may take on 2 cores (CONTRIBUTING.md)


def toc_files(paths):
    """Every ``file`` entry of _toc.yml (pages and notebooks, without suffix), in book order."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("file"):
                found.append(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load(paths.toc.read_text()))
    return found


def toc_notebooks(paths):
    """Notebooks listed in _toc.yml, in book order."""
    return [paths.root / f"{f}.ipynb" for f in toc_files(paths) if (paths.root / f"{f}.ipynb").is_file()]


def prefill_cache(paths, jobs, timeout=600):
    """Execute the book's notebooks in parallel into the jupyter-cache."""
    notebooks = toc_notebooks(paths)
    cache = get_cache(str(paths.cache))
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
        result = _retry_unstarted(cache, logger, result, timeout)
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
    write_times(paths, cache, notebooks, executed=set(result.succeeded), jobs=jobs)
    return result


def _retry_unstarted(cache, logger, result, timeout):
    """Run once more, one at a time, the notebooks that never ran.

    jupyter-cache calls a notebook *excepted* when one of its cells raised and
    *errored* when it could not be run at all: most often its kernel did not
    start, because two kernels started side by side picked the same free port
    (``ZMQError: Address already in use``). Only the errored ones are retried;
    a notebook whose code fails is not run again.
    """
    if not result.errored:
        return result
    print(f"[book] {len(result.errored)} notebook(s) did not start; running them again one at a time: "
          + ", ".join(Path(uri).name for uri in result.errored), flush=True)
    retry = load_executor("local-serial", cache=cache, logger=logger).run_and_cache(
        filter_uris=list(result.errored), timeout=timeout, allow_errors=False
    )
    return type(result)(
        succeeded=result.succeeded + retry.succeeded,
        excepted=result.excepted + retry.excepted,
        errored=retry.errored,
    )


def _cached(cache, nb):
    """The jupyter-cache record of a notebook, or None (not in the project, or not cached: it failed)."""
    try:
        return cache.get_cached_project_nb(str(nb))
    except Exception:  # noqa: BLE001 - jupyter-cache raises several kinds for "not there"
        return None


def write_times(paths, cache, notebooks, executed, jobs):
    """Write and print the seconds each notebook took when it was last executed, and when that was.

    ``executed`` are the notebooks run by this build; the others come from the
    cache with the time of the run that cached them.
    """
    rows = []
    for nb in notebooks:
        record = _cached(cache, nb)
        seconds = None if record is None else record.data.get("execution_seconds")
        created = None if record is None else getattr(record, "created", None)
        rows.append({
            "notebook": paths.short(nb),
            "seconds": None if seconds is None else round(float(seconds), 2),
            "source": "this build" if str(nb) in executed else ("cache" if record else "failed"),
            "executed_at": None if created is None else created.isoformat(timespec="seconds"),
        })
    paths.times_json.write_text(json.dumps({
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
    paths.times_txt.write_text("\n".join(lines) + "\n")
    print("[book] " + "\n[book] ".join(lines), flush=True)


def executed_default(paths, notebooks):
    """The executed notebooks of the default build, read back from the jupyter-cache."""
    cache = get_cache(str(paths.cache))
    out = {}
    for nb in notebooks:
        record = _cached(cache, nb)
        if record is not None:
            out[paths.short(nb)] = cache.get_cache_bundle(record.pk).nb
    return out


def prepare_build(paths, jobs):
    """The build folder, and the kernels' harness (one BLAS thread each when several run at once)."""
    paths.build.mkdir(exist_ok=True)
    os.environ.update(kernel_environment(paths.ipython, blas_threads=1 if jobs > 1 else None))


def jupyter_book(source, builder="html", *, strict=True, output=None, label="book"):
    """Run ``jupyter-book build`` on ``source``; return its exit status.

    ``strict``: warnings are errors (``-W``). ``output``: the folder that gets ``_build/``.
    """
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(source), "--builder", builder] + (["-W"] if strict else []) + ["-n", "--keep-going"]
    if output is not None:
        cmd += ["--path-output", str(output)]
    print(f"[{label}] " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=source).returncode


def build(paths, jobs, preset="default", before_html=None):
    """The executed book: ``_build/html`` (or, with ``preset="paper"``, ``_build/html-paper``).

    ``before_html``, if given, is called with ``paths`` once the notebooks
    are executed and the generated pages written, before the HTML is built
    (``python -m lupikit._book build`` prints the book's PDF there, which the
    HTML pages then link); a non-zero return fails the build.
    """
    prepare_build(paths, jobs)
    if preset == "paper":
        return build_paper(paths, jobs)
    t0 = time.perf_counter()
    prefill_cache(paths, jobs)
    t1 = time.perf_counter()
    notebooks = toc_notebooks(paths)
    write_pages(paths, executed_default(paths, notebooks), "default", notebooks, log=_log)
    if before_html is not None:
        returncode = before_html(paths)
        if returncode != 0:
            print("[book] BUILD FAILED (the step before the HTML, above)", file=sys.stderr)
            return returncode
    t_before = time.perf_counter()
    # Sphinx's viewcode writes a module's source page only when the module is newer than the
    # page: pages of an earlier build would keep that build's header and footer
    shutil.rmtree(paths.html / "_modules", ignore_errors=True)
    returncode = jupyter_book(paths.root)
    t2 = time.perf_counter()
    before = f", PDF {t_before - t1:.1f} s" if before_html is not None else ""
    print(
        f"[book] notebooks {t1 - t0:.1f} s{before}, jupyter-book {t2 - t_before:.1f} s, total {t2 - t0:.1f} s",
        flush=True,
    )
    if returncode != 0:
        print("[book] BUILD FAILED (see the warnings above)", file=sys.stderr)
        return returncode
    print(f"[book] built: {paths.index}")
    return 0


def _log(line):
    print(line, flush=True)


def staging_copy(paths, name, title_suffix, link=("book", "src", "results"), **execute):
    """A staging copy of the book in ``_build/<name>``: its pages linked, its configuration changed."""
    stage = paths.build / name
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    for entry in link:
        (stage / entry).symlink_to(paths.root / entry)
    shutil.copy(paths.toc, stage / "_toc.yml")
    config = yaml.safe_load(paths.config.read_text())
    config["title"] = config["title"] + title_suffix
    config["execute"].update(execute)
    (stage / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return stage


def build_paper(paths, jobs):
    """The book from the paper-scale executions, in a staging copy (not executed again)."""
    t0 = time.perf_counter()
    try:  # (the records that are stale or missing are run first; the others are kept)
        record_paper(paths, jobs=jobs, log=partial(print, flush=True))
    except BookError as exc:
        print(f"[book] {exc}", file=sys.stderr)
        return 1
    stage = staging_copy(paths, "paper-book", " (paper-scale runs)", execute_notebooks="off")
    notebooks = toc_notebooks(paths)
    executed = {}
    for nb in notebooks:
        short = paths.short(nb)
        target = stage / "notebooks" / f"{short}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        if is_exercise_notebook(nb):  # no paper scale: the exercises as written, not executed
            shutil.copy(nb, target)
            continue
        run = paths.paper_runs / f"{short}.ipynb"
        if not run.is_file():
            print(f"[book] no paper-scale execution of {short}; run 'lupikit paper'", file=sys.stderr)
            return 1
        shutil.copy(run, target)
        executed[short] = json.loads(run.read_text())
    write_pages(paths, executed, "paper", notebooks, log=_log)
    returncode = jupyter_book(stage, output=paths.build / "paper-out")
    if returncode != 0:
        print("[book] BUILD FAILED (see the warnings above)", file=sys.stderr)
        return returncode
    html = paths.build / "html-paper"
    if html.exists():
        shutil.rmtree(html)
    shutil.move(str(paths.build / "paper-out" / "_build" / "html"), html)
    # the default build's pages again
    write_pages(paths, executed_default(paths, notebooks), "default", notebooks, log=_log)
    print(f"[book] paper-scale book built in {time.perf_counter() - t0:.1f} s: {html / 'index.html'}")
    return 0


def open_book(paths, preset="default"):
    """Print (and, with a display, open) the built book's index page."""
    index = paths.index if preset == "default" else paths.build / "html-paper" / "index.html"
    if not index.is_file():
        print(f"no book at {index}; run 'make book' first", file=sys.stderr)
        return 1
    print(f"The book: {index}")
    print(f"Open it in a browser: file://{index}")
    if os.environ.get("DISPLAY") or sys.platform in ("darwin", "win32"):
        try:
            webbrowser.open(index.as_uri())
        except Exception:  # pragma: no cover - best effort only
            pass
    return 0
