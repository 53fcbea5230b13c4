"""Build the executed lupikit book (jupyter-book 1.x), offline.

    python tools/build_book.py build [--jobs N]            # execute notebooks, build _build/html
    python tools/build_book.py build --preset paper        # from the paper-scale runs: _build/html-paper
    python tools/build_book.py pdf                         # one PDF of the book: _build/pdf/lupikit.pdf
    python tools/build_book.py open [--preset paper]       # print (and open, if possible) index.html

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

Between the two steps the tool writes the pages that are assembled from the
recorded claims and results, never typed by hand (``book/_generated/``, not
committed): the scorecard's tables (the claims each notebook recorded in this
build, beside the paper-scale values of ``results/paper/``, marked stale when
the notebook or its part's code changed since they were recorded) and the
runtime table of the "Reproducing and rerunning" page. It also writes
``_build/scorecard.json``, which the tests compare with the results.

``--preset paper`` builds the same book from the paper-scale executions
(``lupikit paper`` writes them to ``_build/paper/``; missing or stale ones are
run first) in a staging copy whose notebooks are not executed again.

The kernels get the execution harness of :mod:`lupikit._harness` (quiet
start-up, one BLAS thread each when several run at once).

This is a tool of the repository, not of the library: ``lupikit`` never knows
about the book.
"""

import argparse
import json
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
GENERATED = ROOT / "book" / "_generated"
RESULTS = ROOT / "results" / "paper"
PAPER_RUNS = BUILD / "paper"
PARTS = {
    "intro": "Introduction: the LUPI setting",
    "boosting": "Part I: privileged-information gradient boosting (Yan et al., 2023)",
    "twinsvm": "Part II: pinball twin SVMs with privileged information",
    "relevance": "Part III: feature relevance intervals for ordinal regression and LUPI",
    "oblivious": "Part IV: oblivious features and kernels for fairness (Grünewälder and Khaleghi, 2021)",
}
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


def _short(nb_path):
    return nb_path.relative_to(ROOT / "notebooks").with_suffix("").as_posix()


def executed_default(notebooks):
    """The executed notebooks of the default build, read back from the jupyter-cache."""
    from jupyter_cache import get_cache

    cache = get_cache(str(CACHE))
    out = {}
    for nb in notebooks:
        try:
            record = cache.get_cached_project_nb(str(nb))
        except Exception:
            record = None
        if record is not None:
            out[_short(nb)] = cache.get_cache_bundle(record.pk).nb
    return out


def _fmt(value):
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _anchor(section):
    from mdit_py_plugins.anchors.index import slugify

    if not section or any(ch in section for ch in "$`{*_['’") or section != section.strip():
        return ""
    return "#" + slugify(section)


def write_generated(executed, preset):
    """The scorecard tables, the paper-preset runtime table and ``_build/scorecard.json``."""
    from lupikit import _runs
    from lupikit.claims import read_claims

    GENERATED.mkdir(parents=True, exist_ok=True)
    notebooks = toc_notebooks()
    data, runtime_rows = {}, []
    for nb in notebooks:
        short = _short(nb)
        record = _runs.read_paper_result(RESULTS, short)
        stale = record is not None and _runs.is_stale(record, nb, short)
        data[short] = {
            "default": read_claims(executed[short]) if short in executed else [],
            "paper": [] if record is None else record["claims"],
            "paper_executed_at": None if record is None else record["executed_at"],
            "paper_seconds": None if record is None else record["seconds"],
            "paper_commit": None if record is None else record["git_commit"],
            "stale": stale,
        }
        runtime_rows.append((short, record, stale))
    (BUILD / "scorecard.json").write_text(json.dumps(data, indent=1) + "\n")

    verdicts = ("reproduced", "direction", "not reproduced", "not runnable offline")
    lines = []
    counts = {"default": dict.fromkeys(verdicts, 0), "paper": dict.fromkeys(verdicts, 0)}
    for d in data.values():
        for c in d["default"]:
            counts["default"][c["verdict"]] += 1
        for c in d["paper"]:
            counts["paper"][c["verdict"]] += 1
    n_default = sum(counts["default"].values())
    lines += [
        f"This build: preset `{preset}`. Paper-scale values: `results/paper/`, recorded by "
        "`lupikit paper`; *stale* marks a value recorded before the notebook or its part's "
        "code last changed.",
        "",
        "| claims | " + " | ".join(verdicts) + " | in all |",
        "| --- |" + " ---: |" * (len(verdicts) + 1),
    ]
    for which, label in (("default", f"this build ({preset} preset)"), ("paper", "paper preset (recorded)")):
        row = counts[which]
        lines.append(f"| {label} | " + " | ".join(str(row[v]) for v in verdicts)
                     + f" | {sum(row.values())} |")
    lines.append("")
    for part, title in PARTS.items():
        shorts = [k for k in data if k.split("/")[0] == part]
        if not shorts:
            continue
        part_claims = [c for k in shorts for c in data[k]["default"]]
        tally = ", ".join(f"{sum(c['verdict'] == v for c in part_claims)} {v}" for v in verdicts)
        lines += [f"## {title}", "", f"{len(part_claims)} claims: {tally}.", "",
                  "| claim | paper | ours, this build | ours, paper preset | verdict | where |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for short in shorts:
            d = data[short]
            paper_by_id = {c["id"]: c for c in d["paper"]}
            default_ids = {c["id"] for c in d["default"]}
            # Some claims exist only at some parameters (a dataset or kernel the
            # default preset leaves out): those rows come from the paper record.
            rows = [(c, True) for c in d["default"]]
            rows += [(c, False) for c in d["paper"] if c["id"] not in default_ids]
            for c, in_build in rows:
                p = paper_by_id.get(c["id"])
                if p is None:
                    paper_val = "not recorded"
                else:
                    paper_val = _fmt(p["value"]) if p["value"] is not None else "–"
                    paper_val += f" ({p['verdict']}{', stale' if d['stale'] else ''})"
                if not in_build:
                    ours = f"not run at the {preset} preset"
                elif c["verdict"] == "not runnable offline":
                    ours = "not runnable: " + c["threshold"]
                else:
                    ours = "–" if c["value"] is None else _fmt(c["value"])
                    if c["threshold"]:
                        ours += f" (needs {c['threshold']})"
                link = f"[{short}{' § ' + c['section'] if c['section'] else ''}](../notebooks/{short}.ipynb{_anchor(c['section'])})"
                paper_text = c["paper_value"] + (f" ({c['source']})" if c["source"] else "")
                lines.append(f"| {_cell(c['statement'])} `{c['id']}` | {_cell(paper_text)} | {_cell(ours)} | "
                             f"{_cell(paper_val)} | {c['verdict']} | {link} |")
        lines.append("")
    (GENERATED / "scorecard.md").write_text("\n".join(lines) + "\n")

    rt = ["| notebook | `--preset paper` | recorded | commit |", "| --- | ---: | --- | --- |"]
    total = 0.0
    for short, record, stale in runtime_rows:
        if record is None:
            rt.append(f"| `{short}` | not recorded | | |")
            continue
        total += record["seconds"]
        sec = record["seconds"]
        when = record["executed_at"][:10] + (" (stale)" if stale else "")
        rt.append(f"| `{short}` | {sec / 60:.1f} min | {when} | `{record['git_commit'][:10]}` |"
                  if sec >= 90 else f"| `{short}` | {sec:.0f} s | {when} | `{record['git_commit'][:10]}` |")
    rt.append(f"| in all, one after another | {total / 60:.1f} min | | |")
    machines = sorted({r["machine"] for _, r, _ in runtime_rows if r})
    rt += ["", f"Measured on: {'; '.join(machines) or 'no recorded runs'}."]
    (GENERATED / "paper_runtimes.md").write_text("\n".join(rt) + "\n")
    write_data_page()
    print(f"[book] scorecard: {n_default} claims of this build, "
          f"{sum(counts['paper'].values())} recorded at the paper preset", flush=True)
    return data


def write_data_page():
    """The Data page's tables, from :func:`lupikit.datasets.data_table` (the loaders' metadata)."""
    from lupikit.datasets import DATA_ENV, data_table, get_data_home

    rows = data_table()
    part_names = {"boosting": "I", "twinsvm": "II", "relevance": "III", "oblivious": "IV"}
    home = os.environ.get(DATA_ENV) or str(get_data_home())
    lines = [f"Built with the data home `{home}`.", "",
             "| data set | part | loader | rows × columns as loaded | the paper's size | source | licence |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    lacking, details = [], []
    for r in rows:
        parts = ", ".join(part_names[p] for p in r["parts"])
        if r["status"].startswith("missing: "):
            lacking.append(f"- **{r['name']}** (Part {parts}): {r['status'][len('missing: '):]}")
            continue
        if r["shape"] is not None:
            size = f"{r['shape'][0]:,} × {r['shape'][1]:,}"
        elif r["status"] == "ok":
            size = "not loaded"
        else:
            size = "not in the data home"
        lines.append(f"| {_cell(r['name'])} | {parts} | `{r['loader']}` | {size} | "
                     f"{_cell(r['paper_shape'] or '–')} | {_cell(r['source'])} | {_cell(r['licence'])} |")
        text = r["preprocessing"] or "As distributed."
        if r["roles"]:
            text += f" *Sensitive or privileged:* {r['roles']}"
        if r["status"] != "ok":
            text += f" *Not available on this build:* {r['status']}"
        details.append(f"{r['name']}\n: {_cell(text)}\n")
    lines += ["", "## Preprocessing, and the features each paper treats as sensitive or privileged", ""]
    lines += details
    lines += ["## What we lack, and why", ""] + lacking
    (GENERATED / "data.md").write_text("\n".join(lines) + "\n")
    print(f"[book] data page: {len(rows) - len(lacking)} data sets, {len(lacking)} lacking", flush=True)


def _harness(jobs):
    from lupikit._harness import kernel_environment

    os.environ.update(kernel_environment(BUILD / ".ipython", blas_threads=1 if jobs > 1 else None))


def build(jobs, preset="default"):
    BUILD.mkdir(exist_ok=True)
    _harness(jobs)
    if preset == "paper":
        return build_paper(jobs)
    t0 = time.perf_counter()
    prefill_cache(jobs)
    t1 = time.perf_counter()
    write_generated(executed_default(toc_notebooks()), "default")
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


def build_paper(jobs):
    """The book from the paper-scale executions, in a staging copy (not executed again)."""
    import shutil

    import yaml

    t0 = time.perf_counter()
    lupikit = Path(sys.executable).with_name("lupikit")
    proc = subprocess.run([str(lupikit), "--notebooks-dir", str(ROOT / "notebooks"), "paper",
                           "--jobs", str(jobs)], cwd=ROOT)
    if proc.returncode != 0:
        return proc.returncode
    stage = BUILD / "paper-book"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    for name in ("book", "src"):
        (stage / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "_toc.yml", stage / "_toc.yml")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"
    config["title"] = config["title"] + " (paper-scale runs)"
    (stage / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    executed = {}
    for nb in toc_notebooks():
        short = _short(nb)
        run = PAPER_RUNS / f"{short}.ipynb"
        if not run.is_file():
            print(f"[book] no paper-scale execution of {short}; run 'lupikit paper'", file=sys.stderr)
            return 1
        target = stage / "notebooks" / f"{short}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(run, target)
        executed[short] = json.loads(run.read_text())
    write_generated(executed, "paper")
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(stage), "--builder", "html", "-W", "-n", "--keep-going",
           "--path-output", str(BUILD / "paper-out")]
    print("[book] " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, cwd=stage)
    if proc.returncode != 0:
        print("[book] BUILD FAILED (see the warnings above)", file=sys.stderr)
        return proc.returncode
    html = BUILD / "html-paper"
    if html.exists():
        shutil.rmtree(html)
    shutil.move(str(BUILD / "paper-out" / "_build" / "html"), html)
    write_generated(executed_default(toc_notebooks()), "default")  # the default build's pages again
    print(f"[book] paper-scale book built in {time.perf_counter() - t0:.1f} s: {html / 'index.html'}")
    return 0


PRINT_CSS = """<style media="print">
/* lupikit's PDF: the book's text, without the web page's furniture */
div.solution, .toggle-button, .dropdown.solution { display: none !important; }
.bd-sidebar-primary, .bd-sidebar-secondary, .bd-header, .bd-footer, .header-article,
.prev-next-area, .bd-header-announcement, .sidebar-toggle { display: none !important; }
.bd-main .bd-content .bd-article-container { max-width: 100% !important; }
div.cell_output, div.output { break-inside: avoid; }
/* wide tables (the scorecard) wrap inside the page instead of being cut off */
.pst-scrollable-table-container, .table-wrapper, div.output { overflow: visible !important; }
table.table { width: 100% !important; table-layout: fixed; font-size: 80%; }
table.table th, table.table td { overflow-wrap: anywhere; word-break: normal; }
table.table code, table.table span.pre { white-space: normal !important; word-break: break-all; }
tr { break-inside: avoid; }
@page { size: A4; margin: 14mm 12mm; }
</style>
"""


def pdf():
    """One PDF of the book: jupyter-book's single-page HTML printed by headless Chromium."""
    import http.server
    import shutil
    import threading
    from functools import partial

    BUILD.mkdir(exist_ok=True)
    _harness(2)
    prefill_cache(2)
    write_generated(executed_default(toc_notebooks()), "default")
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(ROOT), "--builder", "singlehtml", "-n", "--keep-going"]
    print("[pdf] " + " ".join(cmd), flush=True)
    if subprocess.run(cmd, cwd=ROOT).returncode != 0:
        return 1
    single = BUILD / "singlehtml"
    # The single page is written at the root document's path (book/index.html)
    # but with links relative to the output folder, next to a redirecting
    # index.html: the page is printed from the output folder itself.
    page = single / "index.html"
    html = (single / "book" / "index.html").read_text(encoding="utf-8")
    page.write_text(html.replace("</head>", PRINT_CSS + "</head>", 1), encoding="utf-8")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("[pdf] chromium is needed (tools/ensure_chromium.sh installs Debian's)", file=sys.stderr)
        return 1
    out = BUILD / "pdf" / "lupikit.pdf"
    out.parent.mkdir(parents=True, exist_ok=True)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = partial(Quiet, directory=str(single))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", f"--user-data-dir={BUILD / 'pdf' / 'profile'}",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            "--virtual-time-budget=120000", "--run-all-compositor-stages-before-draw",
            "--no-pdf-header-footer", f"--print-to-pdf={out}",
            f"http://127.0.0.1:{httpd.server_address[1]}/index.html",
        ], capture_output=True, text=True, timeout=1800)
    finally:
        httpd.shutdown()
    if proc.returncode != 0 or not out.is_file():
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    print(f"[pdf] {out} ({out.stat().st_size / 2**20:.1f} MiB) printed in {time.perf_counter() - t0:.0f} s")
    return 0


def open_book(preset="default"):
    index = INDEX if preset == "default" else BUILD / "html-paper" / "index.html"
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build")
    p_build.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    p_build.add_argument("--preset", choices=("default", "paper"), default="default")
    sub.add_parser("pdf")
    p_open = sub.add_parser("open")
    p_open.add_argument("--preset", choices=("default", "paper"), default="default")
    args = parser.parse_args(argv)
    if args.command == "build":
        return build(args.jobs, args.preset)
    if args.command == "pdf":
        return pdf()
    return open_book(args.preset)


if __name__ == "__main__":
    sys.exit(main())
