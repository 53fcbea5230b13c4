"""What the served book costs: a page with its panel, a run from the page, ten runs from two tabs.

    python benchmarks/bench_serve.py [--repeats 5] [--quick] [--record-dir DIR]

The built book (``make book``) is served as ``lupikit serve`` serves it (its
queue of two workers, its live kernels) on 127.0.0.1, and, side by side, by
Python's own static file server (what serves the static book). Debian's
Chromium, driven by Playwright, measures:

* **a notebook page with its panel**: the time from the navigation's start
  to the panel built from the notebook's form (the panel's script marks it),
  warm (after a first load), the median over ``--repeats`` loads; beside it
  the page's load event (``loadEventEnd``: every style and script, MathJax
  included), served and from the static server. Target: the panel in at
  most 200 ms.
* **a run from the page against ``lupikit run``**: the same quick notebook
  (``twinsvm/pinball_loss``, 40 training points, 2 repetitions) run by the
  command, in a process of its own as a user types it, and from the page
  (its API: a POST, then its state polled every 0.1 s until it is done),
  alternately, ``--repeats`` times; each the wall time from start to end.
  The overhead is the median of the page's less the median of the
  command's. Target: at most 2 s.
* **ten runs from two tabs**: each of two tabs clicks Run five times at
  seeds 0-9 (one seed a run), then the run pages are waited for; every
  seed must have run exactly once, each in a kernel of its own (a process
  id each), and every run must be done.

The record (``_record.py``) is ``results/benchmarks/serve.json``: values
``page_ms`` (the panel ready), ``page_load_ms`` (its load event),
``static_page_ms``, ``command_seconds``, ``page_run_seconds``,
``run_overhead_seconds``, ``ten_runs_wall_seconds``, ``ten_runs_done``,
``ten_runs_seeds_once`` ("yes"/"no"), ``ten_runs_kernels``,
``page_target_met`` and ``run_target_met`` ("yes"/"no"); tables
``page_loads`` and ``run_pairs``. ``--quick``: one repeat of each, three
runs from the two tabs, into a temporary folder.
"""

import argparse
import functools
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import _record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
NOTEBOOK = "twinsvm/pinball_loss"
SMALL = {"n_train": "40", "n_reps": "2"}


def _post(base, token, path, body):
    req = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode(), method="POST",
                                 headers={"X-Lupikit-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def _get(base, token, path):
    with urllib.request.urlopen(f"{base}{path}?token={token}", timeout=60) as r:
        return json.loads(r.read())


def _static_server(folder):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def main(argv=None):
    parser = _record.add_arguments(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    parser.add_argument("--repeats", type=int, default=5, help="page loads and run pairs (default 5)")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    n_tab_runs = 3 if args.quick else 10
    book = ROOT / "_build" / "html"
    if not (book / "index.html").is_file():
        print("no built book: run make book first", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright
    from test_book import chromium_path
    from test_serve import serving

    from lupikit._book.harness import prepare_kernels
    from lupikit._book.live import LiveKernels
    from lupikit._book.pageruns import RunQueue
    from lupikit._book.paths import checkout_paths
    from lupikit._book.server import make_app, new_token
    from lupikit.cli.serve import _estimator, _finisher

    record = _record.Record("serve", "bench_serve.py", packages=("tornado", "playwright", "papermill"))
    record.extra_versions["chromium"] = subprocess.run([chromium_path(), "--version"], capture_output=True,
                                                       text=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="lupikit-bench-serve-"))
    paths = checkout_paths(ROOT / "notebooks")
    environ = dict(os.environ)
    prepare_kernels(tmp / ".ipython", claims="record", soft_asserts=True)
    kernel_env = {k: v for k, v in os.environ.items() if environ.get(k) != v}
    queue = RunQueue(ROOT / "notebooks", tmp / "runs", workers=2, finish=_finisher(paths),
                     estimate=_estimator(paths))
    token = new_token()
    static = _static_server(book)
    page_rows, run_rows = [], []
    try:
        with serving(make_app(book, ROOT / "notebooks", token, queue=queue, live=LiveKernels())) as port, \
                sync_playwright() as p:
            base = f"http://127.0.0.1:{port}"
            browser = p.chromium.launch(executable_path=chromium_path(), args=[
                "--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"])
            tab = browser.new_page()
            tab.goto(f"{base}/index.html?token={token}")  # the cookie; then the page, once cold
            served, served_loads, plain = [], [], []
            for i in range(repeats + 1):
                tab.goto(f"{base}/notebooks/{NOTEBOOK}.html")
                tab.wait_for_function("() => document.documentElement.dataset.lupikitPanelReady")
                ms = float(tab.evaluate("document.documentElement.dataset.lupikitPanelReady"))
                tab.wait_for_load_state("load")
                served_load = float(tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))
                tab.goto(f"http://127.0.0.1:{static.server_address[1]}/notebooks/{NOTEBOOK}.html")
                tab.wait_for_load_state("load")
                static_ms = float(tab.evaluate(
                    "performance.getEntriesByType('navigation')[0].loadEventEnd"))
                page_rows.append([i + 1, "cold" if i == 0 else "warm", round(ms, 1), round(served_load, 1),
                                  round(static_ms, 1)])
                if i:
                    served.append(ms)
                    served_loads.append(served_load)
                    plain.append(static_ms)
                print(f"page {i + 1}: panel ready at {ms:.0f} ms, loaded at {served_load:.0f} ms (static page "
                      f"loaded at {static_ms:.0f} ms)")
            # a run from the page against the command, alternately
            command_s, page_s = [], []
            for i in range(repeats):
                out = tmp / f"cli{i}"
                t0 = time.perf_counter()
                proc = subprocess.run([str(Path(sys.executable).with_name("lupikit")), "run", NOTEBOOK,
                                       *sum((["-p", k, v] for k, v in SMALL.items()), []), "--out", str(out)],
                                      cwd=ROOT, capture_output=True, text=True, env={**os.environ, **kernel_env})
                command_s.append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
                    return 1
                t0 = time.perf_counter()
                run_id = _post(base, token, "/api/runs", {"notebook": NOTEBOOK, "values": SMALL,
                                                          "preset": "default"})["id"]
                while (state := _get(base, token, f"/api/runs/{run_id}")["state"]) in ("queued", "running"):
                    time.sleep(0.1)
                page_s.append(time.perf_counter() - t0)
                if state != "done":
                    print(f"the page's run ended {state}", file=sys.stderr)
                    return 1
                run_rows.append([i + 1, round(command_s[-1], 2), round(page_s[-1], 2)])
                print(f"pair {i + 1}: lupikit run {command_s[-1]:.2f} s, from the page {page_s[-1]:.2f} s")
            # ten runs from two tabs, seeds 0-9
            before = {r["id"] for r in queue.listing()}
            tabs = [browser.new_page(), browser.new_page()]
            t0 = time.perf_counter()
            for t in tabs:
                t.goto(f"{base}/notebooks/{NOTEBOOK}.html?token={token}")
                t.click("#lupikit-panel summary")
                for name, value in SMALL.items():
                    t.fill(f"#lupikit-p-{name}", value)
            for seed in range(n_tab_runs):
                t = tabs[seed % 2]
                t.fill("#lupikit-p-seed", str(seed))
                with t.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST"):
                    t.click("button.lupikit-run")
            while True:
                new = [r for r in queue.listing() if r["id"] not in before]
                if len(new) >= n_tab_runs and all(r["state"] not in ("queued", "running") for r in new):
                    break
                time.sleep(0.2)
            wall = time.perf_counter() - t0
            browser.close()
        seeds = sorted(int(r["values"].get("seed", "0")) for r in new)
        pids = {queue._runs[r["id"]].pid for r in new}
        done = sum(r["state"] == "done" for r in new)
        once = seeds == list(range(n_tab_runs))
        print(f"{len(new)} runs from two tabs in {wall:.1f} s: {done} done, seeds {seeds}, {len(pids)} kernels")
    finally:
        queue.shutdown()
        static.shutdown()
        os.environ.clear()
        os.environ.update(environ)
        shutil.rmtree(tmp, ignore_errors=True)
    page_ms, static_ms = statistics.median(served), statistics.median(plain)
    load_ms = statistics.median(served_loads)
    cmd, pg = statistics.median(command_s), statistics.median(page_s)
    for key, v in (("page_ms", round(page_ms, 1)), ("page_load_ms", round(load_ms, 1)),
                   ("static_page_ms", round(static_ms, 1)),
                   ("command_seconds", round(cmd, 2)), ("page_run_seconds", round(pg, 2)),
                   ("run_overhead_seconds", round(pg - cmd, 2)), ("ten_runs_wall_seconds", round(wall, 1)),
                   ("ten_runs", len(new)), ("ten_runs_done", done), ("ten_runs_seeds_once", "yes" if once else "no"),
                   ("ten_runs_kernels", len(pids)), ("page_target_met", "yes" if page_ms <= 200 else "no"),
                   ("run_target_met", "yes" if pg - cmd <= 2.0 else "no")):
        record.value(key, v)
    record.table("page_loads", "a notebook page: when its panel was ready and when it had loaded (its load "
                               "event: styles, scripts, MathJax's), served, and when the same page had loaded "
                               "from a static file server (ms from the navigation's start)",
                 ["load", "cache", "served, panel ready (ms)", "served, loaded (ms)", "static, loaded (ms)"],
                 page_rows)
    record.table("run_pairs", "the same quick run (twinsvm/pinball_loss, n_train 40, n_reps 2): lupikit run "
                              "in its own process, and from the page (start to done), wall seconds",
                 ["pair", "lupikit run (s)", "from the page (s)"], run_rows)
    record.write(_record.record_dir(args.record_dir, args.quick))
    ok = done == len(new) == n_tab_runs and once and len(pids) == n_tab_runs
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
