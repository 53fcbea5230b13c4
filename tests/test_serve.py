"""`lupikit serve`: the token, the hosts, the paths, the form of a notebook's parameters.

The server runs in a thread of the test on 127.0.0.1 and serves a small book
made in the test's temporary folder; every request goes to 127.0.0.1.
"""

import asyncio
import http.client
import json
import threading
from pathlib import Path

import pytest

tornado = pytest.importorskip("tornado")

from lupikit._book.notebook_source import read_parameters  # noqa: E402
from lupikit._book.server import make_app, new_token  # noqa: E402
from lupikit.cli.serve import _listen  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "twinsvm/pinball_loss"


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
    box, ready = {}, threading.Event()

    def run():
        async def main():
            server, port = _listen(make_app(book, ROOT / "notebooks", token), "127.0.0.1", 0)
            box.update(server=server, port=port, stop=asyncio.Event(), loop=asyncio.get_running_loop())
            ready.set()
            await box["stop"].wait()
            server.stop()

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30)
    yield box["port"], token, book, outside
    box["loop"].call_soon_threadsafe(box["stop"].set)
    thread.join(10)


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
