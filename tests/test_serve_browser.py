"""The served book in a real browser: Chromium, driven by Playwright, against ``lupikit serve``'s server.

The executed book (built once per test run, ``built_book``) is served on
127.0.0.1 from a thread of the test, with the queue, the sweeps and the live
kernels ``lupikit serve`` has; the runs go to the test's temporary folder.
The browser is Debian's Chromium (Playwright never downloads one here), and
every request it makes is recorded: none may leave 127.0.0.1.

A quick notebook, ``twinsvm/pinball_loss`` at small sizes, is rerun from its
page: the form refuses a bad value beside its field; a run shows its
progress, then its claims beside the record, and opens as the book's page
with the run's outputs; cancel kills its kernel; the Runs page lists it; a
sweep draws its pass-rate picture; Live code runs an edited cell.
"""

import os
from pathlib import Path
from urllib.parse import urlparse

import pytest

from test_book import chromium  # noqa: F401 - the fixture: Debian's Chromium, or a skip (CI: a failure)
from test_serve import serving, wait_until_gone  # tests/ is on pytest's pythonpath

pytest.importorskip("tornado")
playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "twinsvm/pinball_loss"
pytestmark = pytest.mark.book  # a book build and a browser


@pytest.fixture(scope="module")
def site(built_book, book_lock, tmp_path_factory):
    """The built book served as ``lupikit serve`` serves it: ``(base url, token, queue, live kernels)``."""
    from lupikit._book.harness import prepare_kernels
    from lupikit._book.live import LiveKernels
    from lupikit._book.pageruns import RunQueue
    from lupikit._book.paths import checkout_paths
    from lupikit._book.server import make_app, new_token
    from lupikit.cli.serve import _estimator, _finisher

    tmp = tmp_path_factory.mktemp("site")
    paths = checkout_paths(ROOT / "notebooks")
    with pytest.MonkeyPatch.context() as mp:
        # the kernels' environment, as lupikit serve sets it, for this module only
        before = dict(os.environ)
        prepare_kernels(tmp / ".ipython", claims="record", soft_asserts=True)
        after = dict(os.environ)
        os.environ.clear()
        os.environ.update(before)
        for name, value in after.items():
            if before.get(name) != value:
                mp.setenv(name, value)
        queue = RunQueue(ROOT / "notebooks", tmp / "runs", workers=2, finish=_finisher(paths),
                         estimate=_estimator(paths))
        live = LiveKernels(limit=2)
        token = new_token()
        with book_lock(shared=True), \
                serving(make_app(built_book, ROOT / "notebooks", token, queue=queue, live=live)) as port:
            yield f"http://127.0.0.1:{port}", token, queue, live
            queue.shutdown()


@pytest.fixture(scope="module")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync",
            # no host name resolves but this machine's
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"])
        yield browser
        browser.close()


@pytest.fixture
def page(browser, site, tmp_path):
    """A fresh tab that records every request it makes; at the end, none may have left 127.0.0.1."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    seen = []
    tab.on("request", lambda r: seen.append(r.url))
    tab.on("websocket", lambda ws: seen.append(ws.url))
    yield tab
    context.close()
    outside = [u for u in seen if urlparse(u).scheme in ("http", "https", "ws", "wss")
               and urlparse(u).hostname != "127.0.0.1"]
    assert not outside, outside
    assert seen


def _open(tab, site, path=f"/notebooks/{NOTEBOOK}.html"):
    base, token, *_ = site
    tab.goto(f"{base}{path}?token={token}")
    return tab


def _fill_small(tab, **values):
    tab.click("#lupikit-panel summary")
    for name, value in values.items():
        tab.fill(f"#lupikit-p-{name}", value)


def test_a_request_without_the_token_is_refused(browser, site):
    base, token, *_ = site
    context = browser.new_context()
    tab = context.new_page()
    assert tab.goto(f"{base}/notebooks/{NOTEBOOK}.html").status == 403
    assert tab.goto(f"{base}/runs").status == 403
    assert tab.goto(f"{base}/index.html?token={'0' * len(token)}").status == 403
    context.close()


def test_a_bad_value_shows_its_message_beside_its_field(page, site):
    _open(page, site)
    _fill_small(page, n_train="5", C="ten")
    page.click("button.lupikit-check")
    page.wait_for_selector('.lupikit-error[data-for="n_train"]:not(:empty)')
    assert "outside" in page.inner_text('.lupikit-error[data-for="n_train"]')
    assert "float" in page.inner_text('.lupikit-error[data-for="C"]')
    assert page.inner_text('.lupikit-error[data-for="seed"]') == ""


def test_a_run_from_the_form_shows_progress_then_its_claims_and_its_page(page, site, tmp_path):
    _, _, queue, _ = site
    _open(page, site)
    _fill_small(page, n_train="40", n_reps="2")
    page.click("button.lupikit-run")
    # the progress bar moves through the cells (or the run waits its turn)
    page.wait_for_function("() => /cell [1-9]|place/.test("
                           "(document.querySelector('.lupikit-progress-label') || {}).textContent || '')")
    page.wait_for_selector(".lupikit-result table.lupikit-claims", timeout=300_000)
    label = page.inner_text(".lupikit-progress-label")
    assert "done" in label, label
    rows = page.query_selector_all(".lupikit-result table.lupikit-claims tr")[1:]
    assert rows, [{k: r.get(k) for k in ("state", "error", "claims", "values")} for r in queue.listing()]
    recorded = [r.query_selector_all("td")[3].inner_text() for r in rows]
    assert all("over" in text and "seeds" in text for text in recorded), recorded
    assert "lupikit run twinsvm/pinball_loss -p n_train 40 -p n_reps 2" in page.inner_text(".lupikit-result")
    page.screenshot(path=str(tmp_path / "claims.png"), full_page=False)
    # its page: the book's theme, the banner, the run's outputs in place of the book's
    with page.expect_navigation():
        page.click("text=the executed notebook's page")
    assert page.query_selector("#lupikit-run-banner") is not None
    assert page.query_selector("article.bd-article") is not None  # the book's theme
    assert "n_train = 40" in page.inner_text("#lupikit-run-banner")
    assert page.query_selector_all(".lupikit-run-output")
    assert not page.query_selector_all(".lupikit-not-this-run")
    assert page.evaluate("getComputedStyle(document.body).fontFamily") != ""
    assert "injected-parameters" in page.content() or "n_train = 40" in page.inner_text("article")


def test_cancel_stops_the_kernel(page, site):
    _, _, queue, _ = site
    _open(page, site)
    _fill_small(page, n_reps="400", n_train="400")
    page.click("button.lupikit-run")
    page.wait_for_function("() => /cell [2-9]/.test("
                           "(document.querySelector('.lupikit-progress-label') || {}).textContent || '')",
                           timeout=120_000)
    run = next(r for r in queue._runs.values() if r.state == "running" and r.values.get("n_reps") == 400)
    pid = run.pid
    page.click(".lupikit-progress button:text('Cancel')")
    page.wait_for_function("() => /cancelled/.test(document.querySelector('.lupikit-progress-label').textContent)",
                           timeout=60_000)
    assert wait_until_gone(pid), "the cancelled run's kernel still runs"


def test_the_runs_page_lists_the_runs(page, site):
    _, _, queue, _ = site
    if not queue.listing():  # (run alone: one run to list)
        queue.submit(NOTEBOOK, {"n_train": 40, "n_reps": 2})
    ids = [r["id"] for r in queue.listing()]
    _open(page, site, "/runs")
    assert page.query_selector("article.bd-article #lupikit-served") is not None  # (in the book's theme)
    assert page.query_selector(".bd-sidebar-primary") is not None
    text = page.inner_text("table")
    assert all(i in page.content() for i in ids)
    assert "lupikit run twinsvm/pinball_loss" in text


def test_a_sweep_draws_its_pass_rate_picture(page, site):
    _open(page, site)
    _fill_small(page, n_train="40")
    page.select_option("#lupikit-sweep-param", "n_reps")
    page.fill("#lupikit-sweep-values", "2, 3")
    page.click("button.lupikit-sweep-run")
    page.wait_for_selector("img.lupikit-sweep-plot", timeout=300_000)
    page.wait_for_function("() => document.querySelector('img.lupikit-sweep-plot').naturalWidth > 0")
    headers = [th.inner_text() for th in page.query_selector_all(".lupikit-sweep-table th")]
    assert headers[1:3] == ["2", "3"] and headers[-1] == "pass rate"


def test_live_code_edits_a_cell_and_shows_its_new_output(page, site):
    _, _, _, live = site
    _open(page, site)
    page.check("#lupikit-live")
    page.wait_for_function("() => document.querySelector('.lupikit-live-status').textContent === 'kernel ready'",
                           timeout=120_000)
    editors = page.query_selector_all("textarea.lupikit-live-code")
    assert len(editors) >= 3
    second = editors[1]
    second.fill("answer = 6 * 7\nprint(f'the answer is {answer}')")
    cell = second.evaluate_handle("t => t.closest('div.cell')")
    cell.as_element().query_selector("button.lupikit-live-run").click()
    page.wait_for_function("c => c.querySelector('.cell_output') && "
                           "c.querySelector('.cell_output').textContent.includes('the answer is 42')", arg=cell,
                           timeout=60_000)
    # the kernel keeps its state between cells; Restart forgets it
    editors[2].fill("print(answer + 1)")
    editors[2].evaluate("t => t.closest('div.cell').querySelector('button.lupikit-live-run').click()")
    page.wait_for_function("c => c.closest('div.cell').querySelector('.cell_output').textContent.includes('43')",
                           arg=editors[2], timeout=60_000)
    page.click("#lupikit-live-bar button:text('Restart')")
    page.wait_for_function("() => document.querySelector('.lupikit-live-status').textContent === 'kernel ready'",
                           timeout=120_000)
    editors[2].evaluate("t => t.closest('div.cell').querySelector('button.lupikit-live-run').click()")
    page.wait_for_function("c => c.closest('div.cell').querySelector('.cell_output').textContent"
                           ".includes('NameError')", arg=editors[2], timeout=60_000)
    assert len(live.kernels) == 1
    (kernel,) = live.kernels
    pid = kernel.pid  # read before Live goes off: the shutdown clears it
    assert pid is not None
    page.uncheck("#lupikit-live")
    assert wait_until_gone(pid, live)  # switching Live off shuts its kernel down
