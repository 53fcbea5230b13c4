"""`lupikit serve`: the token, the hosts, the paths, the form of a notebook's parameters.

The server runs in a thread of the test on 127.0.0.1 and serves a small book
made in the test's temporary folder; every request goes to 127.0.0.1.
"""

import asyncio
import contextlib
import http.client
import json
import os
import threading
from pathlib import Path

import pytest

tornado = pytest.importorskip("tornado")

from lupikit._book.notebook_source import read_parameters  # noqa: E402
from lupikit._book.server import make_app, new_token  # noqa: E402
from lupikit.cli.serve import _listen  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "twinsvm/pinball_loss"


@contextlib.contextmanager
def serving(app):
    """``app`` served on 127.0.0.1 from a thread of its own: yields the port."""
    box, ready = {}, threading.Event()

    def run():
        async def main():
            server, port = _listen(app, "127.0.0.1", 0)
            box.update(port=port, stop=asyncio.Event(), loop=asyncio.get_running_loop())
            ready.set()
            await box["stop"].wait()
            server.stop()

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30)
    try:
        yield box["port"]
    finally:
        box["loop"].call_soon_threadsafe(box["stop"].set)
        thread.join(10)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A book of three pages served on 127.0.0.1: ``(port, token, book folder, outside file)``."""
    tmp = tmp_path_factory.mktemp("served")
    book = tmp / "html"
    (book / "notebooks" / "twinsvm").mkdir(parents=True)
    (book / "index.html").write_text("<html><head><title>x</title></head><body>the book</body></html>")
    page = "<html><head><title>p</title></head><body><main>the notebook's page</main></body></html>"
    (book / "notebooks" / NOTEBOOK).with_suffix(".html").write_text(page)
    (book / "notebooks" / "twinsvm" / "not_a_notebook.html").write_text(page)
    outside = tmp / "secret.txt"
    outside.write_text("the teacher's secret")
    (book / "link.txt").symlink_to(outside)
    token = new_token()
    with serving(make_app(book, ROOT / "notebooks", token)) as port:
        yield port, token, book, outside


def request(port, method, path, *, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), data


def test_the_server_listens_on_this_machine_only():
    server, port = _listen(make_app(ROOT, ROOT / "notebooks", new_token()), "127.0.0.1", 0)
    try:
        assert {s.getsockname()[0] for s in server._sockets.values()} == {"127.0.0.1"}
    finally:
        server.stop()


def test_no_page_without_the_token(served):
    port, token, _, _ = served
    assert request(port, "GET", "/index.html")[0] == 403
    assert request(port, "GET", "/index.html?token=" + "0" * len(token))[0] == 403
    status, headers, data = request(port, "GET", f"/index.html?token={token}")
    assert status == 200 and b"the book" in data
    cookie = headers["Set-Cookie"].split(";")[0]
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
    # the cookie the first page set opens the others
    assert request(port, "GET", "/index.html", headers={"Cookie": cookie})[0] == 200
    assert request(port, "GET", f"/api/notebooks/{NOTEBOOK}/form")[0] == 403


def test_another_host_name_is_refused_even_with_the_token(served):
    port, token, _, _ = served
    status, _, _ = request(port, "GET", f"/index.html?token={token}", headers={"Host": "evil.example:80"})
    assert status == 403


def test_nothing_outside_the_book_is_served(served):
    port, token, _, outside = served
    for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/link.txt", f"/{outside}", "/notebooks/../../secret.txt"):
        status, _, data = request(port, "GET", f"{path}?token={token}")
        assert status in (403, 404) and b"secret" not in data, (path, status)


def test_a_notebook_page_gets_the_panel_and_other_pages_do_not(served):
    port, token, _, _ = served
    _, _, page = request(port, "GET", f"/notebooks/{NOTEBOOK}.html?token={token}")
    page = page.decode()
    assert f'<meta name="lupikit-notebook" content="{NOTEBOOK}">' in page
    assert page.index('src="/_lupikit/panel.js"') < page.index("</head>")
    for other in ("/index.html", "/notebooks/twinsvm/not_a_notebook.html"):
        assert b"lupikit-notebook" not in request(port, "GET", f"{other}?token={token}")[2]
    status, _, script = request(port, "GET", f"/_lupikit/panel.js?token={token}")
    assert status == 200 and b"Rerun with other parameters" in script
    # the panel's script reaches no other address than this server's
    assert b"http://" not in script and b"https://" not in script


def test_the_form_is_the_notebooks_parameters_cell(served):
    port, token, _, _ = served
    status, _, data = request(port, "GET", f"/api/notebooks/{NOTEBOOK}/form?token={token}")
    form = json.loads(data)
    params = read_parameters(ROOT / "notebooks" / f"{NOTEBOOK}.ipynb")
    assert status == 200 and [p["name"] for p in form["parameters"]] == [n for n in params if n != "preset"]
    taus = next(p for p in form["parameters"] if p["name"] == "taus")
    assert taus["type"] == "list" and taus["default"] == params["taus"].default and taus["range"]
    assert form["presets"][0] == "default" and "paper" in form["presets"]
    for bad in ("twinsvm/../../etc", "nope/none", "a/b/c"):
        assert request(port, "GET", f"/api/notebooks/{bad}/form?token={token}")[0] == 404


def test_values_are_checked_field_by_field_and_never_run(served, tmp_path):
    port, token, _, _ = served
    proof = tmp_path / "ran"
    code = f"__import__('pathlib').Path({str(proof)!r}).write_text('x')"
    body = json.dumps({"values": {"seed": "-1", "n_train": code, "taus": "[0.1, 2]", "C": "0.5", "nope": "1"},
                       "preset": "default"})
    # a change needs the token in its header: the cookie alone (another site's page) is refused
    status, headers, _ = request(port, "GET", f"/index.html?token={token}")
    cookie = headers["Set-Cookie"].split(";")[0]
    assert request(port, "POST", f"/api/notebooks/{NOTEBOOK}/check", body=body, headers={"Cookie": cookie})[0] == 403
    status, _, data = request(port, "POST", f"/api/notebooks/{NOTEBOOK}/check", body=body,
                              headers={"X-Lupikit-Token": token, "Content-Type": "application/json"})
    result = json.loads(data)
    assert status == 200 and result["command"] is None
    assert set(result["errors"]) == {"seed", "n_train", "taus", "nope"}
    assert "outside" in result["errors"]["seed"] and "expected an int" in result["errors"]["n_train"]
    assert "2" in result["errors"]["taus"] and result["values"] == {"C": "0.5", "preset": "'default'"}
    assert not proof.exists()
    ok = json.dumps({"values": {"seed": 3, "taus": "0.1,0.9"}, "preset": "default"})
    status, _, data = request(port, "POST", f"/api/notebooks/{NOTEBOOK}/check", body=ok,
                              headers={"X-Lupikit-Token": token})
    result = json.loads(data)
    assert result["errors"] == {}
    assert result["command"] == f"lupikit run {NOTEBOOK} -p seed 3 -p taus '[0.1, 0.9]' --preset default"
    assert request(port, "POST", f"/api/notebooks/{NOTEBOOK}/check", body=b"not json",
                   headers={"X-Lupikit-Token": token})[0] == 400


def test_a_preset_refuses_a_value_it_sets(served):
    port, token, _, _ = served
    form = json.loads(request(port, "GET", f"/api/notebooks/{NOTEBOOK}/form?token={token}")[2])
    set_by_paper = [n for n in form["preset_sets"]["paper"]]
    assert set_by_paper
    name = set_by_paper[0]
    default = next(p["default"] for p in form["parameters"] if p["name"] == name)
    body = json.dumps({"values": {name: json.dumps(default)}, "preset": "paper"})
    result = json.loads(request(port, "POST", f"/api/notebooks/{NOTEBOOK}/check", body=body,
                                headers={"X-Lupikit-Token": token})[2])
    assert "preset 'paper' sets this parameter" in result["errors"][name]


def test_serve_refuses_without_a_built_book(tmp_path, capsys, monkeypatch):
    from lupikit.cli import main

    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["serve", "--no-open"]) == 2
    assert "no built book" in capsys.readouterr().err


def test_a_browser_shows_the_form_on_a_notebook_page(served, tmp_path):
    """Headless Chromium, offline, opens a served notebook page: the panel lists the parameters."""
    from test_book import chromium_path, external, load_page  # tests/ is on pytest's pythonpath

    path = chromium_path()
    if path is None:
        pytest.skip("chromium is not installed (run tools/ensure_system_packages.sh)")
    port, token, _, _ = served
    dom, requests = load_page(path, f"http://127.0.0.1:{port}/notebooks/{NOTEBOOK}.html?token={token}", tmp_path)
    assert "Rerun with other parameters" in dom
    for name in read_parameters(ROOT / "notebooks" / f"{NOTEBOOK}.ipynb"):
        if name != "preset":
            assert f'id="lupikit-p-{name}"' in dom, name
    assert not external(requests)


QUICK = [
    ("parameters", 'preset: str = "default"  # "default" or "paper"\n'
                   "n: int = 4  # values [≥ 1]\n"
                   "pause: float = 0.0  # seconds the second cell sleeps [≥ 0]"),
    ("code", 'if preset == "paper":\n    n = 8\n'
             "from lupikit.claims import Claims\n\n"
             'claims = Claims("toy/quick", preset=preset, parameters=dict(n=n))'),
    ("code", "import time\ntime.sleep(pause)\nvalue = float(n)"),
    ("code", 'claims.check("toy.quick-n", "n is above 5", value, ">", 5.0, paper="above 5", why="a toy")'),
]


@pytest.fixture
def runs_server(tmp_path, monkeypatch):
    """A server of a toy notebook with a queue of one worker: ``(port, token, queue)``."""
    from lupikit._book.harness import prepare_kernels
    from lupikit._book.pageruns import RunQueue, compare_claims
    from lupikit.claims import read_claims
    from test_runs import make_toy  # tests/ is on pytest's pythonpath

    make_toy(tmp_path, "toy/quick", cells=QUICK)
    book = tmp_path / "html"
    book.mkdir()
    (book / "index.html").write_text("<html><head></head><body>book</body></html>")
    record = {"seeds": [0, 1, 2], "claims": [{"id": "toy.quick-n", "verdict": "direction", "value": 8.0,
                                              "interval": [7.5, 8.5]}]}

    def finish(folder, executed, short, status):
        import time

        time.sleep(0.5)  # as a page takes a while to render: the run must not show as ended before
        return compare_claims(read_claims(executed), record), None

    # the kernels' environment, as lupikit serve sets it, for this test only (a later test of this
    # worker must see claims raise again)
    for name in list(os.environ):
        monkeypatch.setenv(name, os.environ[name])
    before = set(os.environ)
    prepare_kernels(tmp_path / ".ipython", claims="record", soft_asserts=True)
    for name in set(os.environ) - before:
        value = os.environ.pop(name)
        monkeypatch.setenv(name, value)
    queue = RunQueue(tmp_path / "notebooks", tmp_path / "runs", workers=1, finish=finish,
                     estimate=lambda short, values: 5.0)
    token = new_token()
    with serving(make_app(book, tmp_path / "notebooks", token, queue=queue)) as port:
        yield port, token, queue
        queue.shutdown()


def _start(port, token, values, preset="default"):
    status, _, data = request(port, "POST", "/api/runs", headers={"X-Lupikit-Token": token},
                              body=json.dumps({"notebook": "toy/quick", "values": values, "preset": preset}))
    return status, json.loads(data)


def _wait(port, token, run_id, states=("done", "failed", "cancelled"), timeout=300):
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status = json.loads(request(port, "GET", f"/api/runs/{run_id}?token={token}")[2])
        if status["state"] in states:
            return status
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} still {status['state']}")


def test_a_run_from_the_page_reports_its_claims_beside_the_record(runs_server):
    port, token, queue = runs_server
    status, body = _start(port, token, {"n": "3"})
    assert status == 200
    done = _wait(port, token, body["id"])
    # four cells and the one papermill injects
    assert done["state"] == "done" and done["cells"] == 5 and done["cell"] == 5
    (claim,) = done["claims"]
    # n = 3 is not above 5: the run's verdict differs from the recorded one
    assert claim["value"] == 3.0 and claim["verdict"] == "not reproduced" and claim["differs"]
    assert claim["recorded"] == {"verdict": "direction", "value": 8.0, "interval": [7.5, 8.5], "seeds": 3}
    assert done["command"] == "lupikit run toy/quick -p n 3 --preset default"
    nb = request(port, "GET", f"{done['notebook_file']}?token={token}")
    assert nb[0] == 200 and b"injected-parameters" in nb[2]
    listed = json.loads(request(port, "GET", f"/api/runs?token={token}")[2])["runs"]
    assert [r["id"] for r in listed] == [body["id"]]
    # a refused value starts nothing
    status, body = _start(port, token, {"n": "0", "pause": "-1"})
    assert status == 400 and set(body["errors"]) == {"n", "pause"}
    assert len(json.loads(request(port, "GET", f"/api/runs?token={token}")[2])["runs"]) == 1
    # without the header token, nothing starts
    assert request(port, "POST", "/api/runs", body=json.dumps({"notebook": "toy/quick"}))[0] == 403


def test_runs_wait_their_turn_and_cancel_stops_the_kernel(runs_server):
    port, token, queue = runs_server
    _, first = _start(port, token, {"pause": "120"})
    _, second = _start(port, token, {})
    _, third = _start(port, token, {})
    assert _wait(port, token, first["id"], states=("running",))["state"] == "running"
    assert json.loads(request(port, "GET", f"/api/runs/{third['id']}?token={token}")[2])["place"] == 2
    # the queued one is dropped; the running one's kernel is killed and the next run starts
    assert json.loads(request(port, "POST", f"/api/runs/{second['id']}/cancel",
                              headers={"X-Lupikit-Token": token})[2])["cancelled"]
    import time

    while json.loads(request(port, "GET", f"/api/runs/{first['id']}?token={token}")[2])["cell"] < 4:  # sleeping
        time.sleep(0.3)
    pid = queue._runs[first["id"]].pid
    request(port, "POST", f"/api/runs/{first['id']}/cancel", headers={"X-Lupikit-Token": token})
    assert _wait(port, token, first["id"], timeout=60)["state"] == "cancelled"
    assert _wait(port, token, second["id"], timeout=5)["state"] == "cancelled"
    assert _wait(port, token, third["id"])["state"] == "done"
    import os

    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_the_runs_page_lists_the_runs_and_compares_two(runs_server):
    port, token, queue = runs_server
    ids = [_start(port, token, values)[1]["id"] for values in ({"n": "3"}, {"n": "7"})]
    for run_id in ids:
        assert _wait(port, token, run_id)["state"] == "done"
    status, _, page = request(port, "GET", f"/runs?token={token}")
    page = page.decode()
    assert status == 200 and all(i in page for i in ids)
    assert "lupikit run toy/quick -p n 3 --preset default" in page
    status, _, page = request(port, "GET", f"/runs/compare?run={ids[0]}&run={ids[1]}&token={token}")
    page = page.decode()
    # n = 3 does not hold, n = 7 does: the row is marked
    assert status == 200 and '<tr class="lupikit-differs"><td>toy.quick-n</td><td>not reproduced</td>' in page
    assert request(port, "GET", f"/runs/compare?run={ids[0]}&token={token}")[0] == 400
    assert request(port, "GET", f"/runs/compare?run={ids[0]}&run=../../etc&token={token}")[0] == 400


def test_a_sweep_from_the_page_runs_each_value_and_plots_how_often_the_claims_held(runs_server):
    port, token, queue = runs_server
    headers = {"X-Lupikit-Token": token}
    body = {"notebook": "toy/quick", "preset": "default", "values": {}, "param": "n", "sweep": "3, 7"}
    # a value out of range refuses the whole sweep, naming the value; nothing starts
    bad = request(port, "POST", "/api/sweeps", headers=headers, body=json.dumps({**body, "sweep": "3, 0"}))
    assert bad[0] == 400 and json.loads(bad[2])["errors"]["sweep"].startswith("0:")
    assert request(port, "POST", "/api/sweeps", body=json.dumps(body))[0] == 403  # no header token
    assert queue.listing() == []
    status, _, data = request(port, "POST", "/api/sweeps", headers=headers, body=json.dumps(body))
    assert status == 200
    sweep_id = json.loads(data)["id"]
    import time

    end = time.monotonic() + 300
    while not (sweep := json.loads(request(port, "GET", f"/api/sweeps/{sweep_id}?token={token}")[2]))["done"]:
        assert time.monotonic() < end
        time.sleep(0.5)
    assert [s["state"] for s in sweep["statuses"]] == ["done", "done"]
    # n = 3 is not above 5, n = 7 is: the claim held at one value of two
    (row,) = sweep["table"]
    assert row["claim"] == "toy.quick-n" and row["outcomes"] == ["failed", "held"] and row["pass_rate"] == 0.5
    status, _, png = request(port, "GET", f"{sweep['plot']}?token={token}")
    assert status == 200 and png.startswith(b"\x89PNG")
    assert request(port, "GET", f"/api/sweeps/../../x?token={token}")[0] == 404


@pytest.fixture
def live_server(tmp_path):
    """A server of the toy notebook with live kernels (at most one): ``(port, token)``."""
    from lupikit._book.live import LiveKernels
    from test_runs import make_toy  # tests/ is on pytest's pythonpath

    make_toy(tmp_path, "toy/quick", cells=QUICK)
    book = tmp_path / "html"
    book.mkdir()
    (book / "index.html").write_text("<html><head></head><body>book</body></html>")
    token = new_token()
    live = LiveKernels(limit=1)
    with serving(make_app(book, tmp_path / "notebooks", token, live=live)) as port:
        yield port, token, live


async def _live(port, token, *, origin=None):
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    headers = {"Origin": origin} if origin else {}
    conn = await websocket_connect(HTTPRequest(f"ws://127.0.0.1:{port}/api/live/toy/quick?token={token}",
                                               headers=headers))
    return conn


async def _until(conn, kind, cell=None):
    """The messages until one of ``kind`` (for ``cell``), that one included."""
    got = []
    while True:
        msg = json.loads(await asyncio.wait_for(conn.read_message(), 120))
        got.append(msg)
        if msg["type"] == kind and (cell is None or msg.get("cell") == cell):
            return got


def test_a_live_kernel_runs_cells_behind_the_token_and_dies_with_its_page(live_server):
    port, token, live = live_server
    from tornado.httpclient import HTTPClientError

    async def scenario():
        for bad in ("0" * len(token), ""):
            with pytest.raises(HTTPClientError) as err:
                await _live(port, bad)
            assert err.value.code == 403
        # another site's page cannot open it, even with the token
        with pytest.raises(HTTPClientError):
            await _live(port, token, origin="http://evil.example")
        conn = await _live(port, token)
        assert [m["state"] for m in await _until(conn, "status") if m["type"] == "status"] == ["starting"]
        assert (await _until(conn, "status"))[-1]["state"] == "idle"
        (kernel,) = live.kernels
        pid = kernel.pid
        conn.write_message(json.dumps({"type": "execute", "cell": 0, "code": "x = 6 * 7\nprint(x)\nx + 1"}))
        got = await _until(conn, "done", 0)
        outputs = [m["output"] for m in got if m["type"] == "output"]
        assert outputs[0] == {"output_type": "stream", "name": "stdout", "text": "42\n"}
        assert outputs[1]["data"]["text/plain"] == "43" and got[-1]["status"] == "ok"
        conn.write_message(json.dumps({"type": "execute", "cell": 1, "code": "1 / 0"}))
        got = await _until(conn, "done", 1)
        assert got[-1]["status"] == "error"
        assert [m["output"]["ename"] for m in got if m["type"] == "output"] == ["ZeroDivisionError"]
        # a second page is refused while the one kernel allowed runs
        other = await _live(port, token)
        assert (await _until(other, "status"))[-1]["state"] == "starting"
        refused = await _until(other, "status")
        assert refused[-1]["state"] == "refused" and "live kernels" in refused[-1]["message"]
        # interrupt stops a long cell; restart forgets x
        conn.write_message(json.dumps({"type": "execute", "cell": 2, "code": "import time\ntime.sleep(60)"}))
        await asyncio.sleep(1.0)
        conn.write_message(json.dumps({"type": "interrupt"}))
        got = await _until(conn, "done", 2)
        assert got[-1]["status"] == "error"
        assert any(m["output"].get("ename") == "KeyboardInterrupt" for m in got if m["type"] == "output")
        conn.write_message(json.dumps({"type": "restart"}))
        await _until(conn, "status")  # restarting
        assert (await _until(conn, "status"))[-1]["state"] == "idle"
        conn.write_message(json.dumps({"type": "execute", "cell": 3, "code": "x"}))
        got = await _until(conn, "done", 3)
        assert [m["output"]["ename"] for m in got if m["type"] == "output"] == ["NameError"]
        conn.close()
        return pid

    pid = asyncio.run(scenario())
    assert wait_until_gone(pid, live), "the page left, its kernel still runs"


def wait_until_gone(pid, live=None, timeout=30):
    """Whether the process ``pid`` has ended (and ``live`` has no kernel left) within ``timeout`` s."""
    import time

    end = time.monotonic() + timeout
    while live is not None and live.kernels and time.monotonic() < end:
        time.sleep(0.2)
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return not (live is not None and live.kernels)
        time.sleep(0.2)
    return False


def test_the_cells_of_a_notebook_are_its_code_cells(live_server):
    port, token, _ = live_server
    status, _, data = request(port, "GET", f"/api/notebooks/toy/quick/cells?token={token}")
    cells = json.loads(data)["cells"]
    assert status == 200 and [c["source"] for c in cells] == [src for _, src in QUICK]
    assert cells[0]["tags"] == ["parameters"]
    assert request(port, "GET", "/api/notebooks/toy/quick/cells")[0] == 403


def test_the_form_in_the_page_cannot_close_its_script():
    from lupikit._book.server import _with_panel

    form = {"parameters": [{"name": "x", "help": "</script><script>alert(1)</script>"}]}
    page = _with_panel('<html><head><meta charset="utf-8"><title>t</title></head><body></body></html>',
                       "a/b", "tok", form)
    assert page.count("</script>") == 4  # the three scripts' and the form's own
    data = page.split('id="lupikit-form">', 1)[1].split("</script>", 1)[0]
    assert json.loads(data) == form
    # the panel's scripts come right after the charset, before the book's own
    assert page.index('<meta charset="utf-8">') < page.index("dom.js") < page.index("<title>")
