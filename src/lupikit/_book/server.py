"""The book served on this machine: its pages, and a form of each notebook's parameters (private).

``lupikit serve`` (:mod:`lupikit.cli.serve`) runs this server on tornado,
the web library Jupyter's own server is built on. It serves the built book
(``_build/html``) as it is, and adds to every notebook page a panel,
**Rerun with other parameters**, built from the notebook's ``parameters``
cell (:mod:`lupikit._book.forms`); the static book keeps working without it.
A run started from the panel goes to a queue (:mod:`lupikit._book.pageruns`):
its progress, cancel, and, when it ends, its claims beside the recorded
paper-scale verdicts and its page; the Runs page lists the kept runs.

Safe by default, as Jupyter's server is:

* it binds 127.0.0.1 unless told otherwise, and refuses a request whose
  ``Host`` is not this machine's (a page of another site cannot reach it
  through a name that resolves here);
* a random token is required on every request: in the address the command
  prints (``?token=...``), then in a cookie; a request that changes
  anything must also carry it in the ``X-Lupikit-Token`` header, which
  only the book's own pages know (the token is written into the page the
  server sends), so that another site's page cannot send it;
* it serves no path outside the book's folder and its own files (links
  are followed only where they stay inside), and no endpoint runs text
  from the browser: values are checked by type and range and passed to
  papermill as literals.

This module imports no part of the library.
"""

import asyncio
import hmac
import html
import json
import re
import secrets
from pathlib import Path

import tornado.web
import tornado.websocket

from .forms import check_form, command_line, form_spec, notebook_form
from .live import LiveLimitError
from .pagesweeps import MAX_VALUES, Sweeps
from .runpage import themed_page

__all__ = ["PANEL_FILES", "make_app", "new_token"]

#: the server's own files (the panel's script and style), served under ``/_lupikit/``
PANEL_FILES = Path(__file__).resolve().parent / "static"

#: a notebook's short name as the pages name it (``<part>/<name>``)
_SHORT = re.compile(r"[A-Za-z0-9_-]+/[A-Za-z0-9_-]+")
_COOKIE = "lupikit_token"
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


def new_token():
    """A random token for the address the server prints (48 hex digits)."""
    return secrets.token_hex(24)


def _hostname(host):
    """The name part of a ``Host`` header (``127.0.0.1:8000`` -> ``127.0.0.1``, ``[::1]:80`` -> ``::1``)."""
    host = (host or "").strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class _Base(tornado.web.RequestHandler):
    """Every request: a host of this machine (unless served to others) and the token."""

    def initialize(self, settings):
        self.conf = settings

    def prepare(self):
        if not self.conf["any_host"] and _hostname(self.request.host) not in _LOCAL_HOSTS:
            raise tornado.web.HTTPError(403, reason="not a host of this machine")
        token = self.conf["token"]
        given = self.get_query_argument("token", None)
        if given is not None and hmac.compare_digest(given.encode(), token.encode()):
            self.set_cookie(_COOKIE, token, httponly=True, samesite="Strict", path="/")
            return
        header = self.request.headers.get("X-Lupikit-Token", "")
        if header and hmac.compare_digest(header.encode(), token.encode()):
            return
        if self.request.method in ("GET", "HEAD"):
            cookie = self.get_cookie(_COOKIE, "")
            if cookie and hmac.compare_digest(cookie.encode(), token.encode()):
                return
        raise tornado.web.HTTPError(403, reason="the token is missing or wrong")

    def write_error(self, status_code, **kwargs):
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code}: {self._reason}\n")

    def notebook(self, short):
        """The notebook of a short name, or a 404."""
        if not _SHORT.fullmatch(short):
            raise tornado.web.HTTPError(404, reason="no such notebook")
        path = self.conf["notebooks"] / f"{short}.ipynb"
        if not path.is_file():
            raise tornado.web.HTTPError(404, reason="no such notebook")
        return path


class _Form(_Base):
    """``GET /api/notebooks/<part>/<name>/form``: the form of a notebook's parameters."""

    def get(self, short):
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(form_spec(self.notebook(short))))


class _Check(_Base):
    """``POST /api/notebooks/<part>/<name>/check``: a form's values checked, field by field."""

    def post(self, short):
        path = self.notebook(short)
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            raise tornado.web.HTTPError(400, reason="the body is not JSON") from None
        if not isinstance(body, dict):
            raise tornado.web.HTTPError(400, reason="the body must be a JSON object")
        preset = body.get("preset")
        params, presets, settings = notebook_form(path)
        values, errors = check_form(params, body.get("values") or {}, preset if isinstance(preset, str) else None,
                                    presets, settings)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"values": {k: repr(v) for k, v in values.items()}, "errors": errors,
                                "command": None if errors else command_line(short, values)}))


class _Cells(_Base):
    """``GET /api/notebooks/<part>/<name>/cells``: the notebook's code cells (what Run all runs)."""

    def get(self, short):
        nb = json.loads(self.notebook(short).read_text(encoding="utf-8"))
        cells = [{"source": "".join(c["source"]) if isinstance(c["source"], list) else c["source"],
                  "tags": c.get("metadata", {}).get("tags", [])} for c in nb.get("cells", [])
                 if c.get("cell_type") == "code"]
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"cells": cells}))


class _Live(_Base, tornado.websocket.WebSocketHandler):
    """``/api/live/<part>/<name>?token=...``: a page's live kernel over a WebSocket.

    The token must be in the address (a WebSocket cannot send a header, and
    the cookie alone would do for another site's page); tornado refuses an
    ``Origin`` other than the server's own. The kernel starts when the page
    connects and is shut down when it leaves. The page sends ``{"type":
    "execute", "cell", "code"}``, ``{"type": "interrupt"}`` or ``{"type":
    "restart"}``; it gets ``status``, ``output``, ``clear`` and ``done``
    messages (:meth:`lupikit._book.live.LiveKernel.execute`).
    """

    def initialize(self, settings):
        _Base.initialize(self, settings)
        self.kernel, self.tasks = None, set()

    def prepare(self):
        given = self.get_query_argument("token", "")
        if not given or not hmac.compare_digest(given.encode(), self.conf["token"].encode()):
            raise tornado.web.HTTPError(403, reason="the token is missing or wrong")
        super().prepare()

    def get_compression_options(self):
        return None

    async def open(self, short):
        path = self.notebook(short)
        self._send({"type": "status", "state": "starting"})
        try:
            self.kernel = await self.conf["live"].open(path.parent)
        except LiveLimitError as exc:
            self._send({"type": "status", "state": "refused", "message": str(exc)})
            self.close()
            return
        except Exception as exc:  # noqa: BLE001 - the page is told why, the server goes on
            self._send({"type": "status", "state": "dead", "message": f"{type(exc).__name__}: {exc}"})
            self.close()
            return
        if self.ws_connection is None:  # the page left while its kernel started
            await self.conf["live"].close(self.kernel)
            return
        self._send({"type": "status", "state": "idle"})

    def on_message(self, message):
        try:
            msg = json.loads(message)
        except ValueError:
            msg = None
        if not isinstance(msg, dict) or self.kernel is None:
            self._send({"type": "error", "message": "not a message of the live cells, or no kernel yet"})
            return
        kind = msg.get("type")
        if kind == "execute" and isinstance(msg.get("code"), str):
            cell = msg.get("cell") if isinstance(msg.get("cell"), (str, int)) else None
            self._spawn(self.kernel.execute(msg["code"], self._send_async, cell))
        elif kind == "interrupt":
            self._spawn(self.kernel.interrupt())
        elif kind == "restart":
            self._spawn(self._restart())
        else:
            self._send({"type": "error", "message": f"unknown message type {kind!r}"})

    async def _restart(self):
        self._send({"type": "status", "state": "restarting"})
        await self.kernel.restart()
        self._send({"type": "status", "state": "idle"})

    def _spawn(self, coro):
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send_async(self, message):
        self._send(message)

    def _send(self, message):
        if self.ws_connection is not None:
            try:
                self.write_message(json.dumps(message))
            except tornado.websocket.WebSocketClosedError:
                pass

    def on_close(self):
        for task in list(self.tasks):
            task.cancel()
        if self.kernel is not None:
            kernel, self.kernel = self.kernel, None
            asyncio.ensure_future(self.conf["live"].close(kernel))


class _Runs(_Base):
    """``GET /api/runs``: the kept runs; ``POST /api/runs``: start one (``{notebook, preset, values}``)."""

    def get(self):
        self._json({"runs": self.conf["queue"].listing(), "workers": self.conf["queue"].workers})

    def post(self):
        body = self._request()
        short = body["notebook"]
        path = self.notebook(short)
        preset = body.get("preset")
        params, presets, settings = notebook_form(path)
        values, errors = check_form(params, body.get("values") or {}, preset if isinstance(preset, str) else None,
                                    presets, settings)
        if errors:
            self.set_status(400)
            self._json({"errors": errors})
            return
        self._json({"id": self.conf["queue"].submit(short, values)})

    def _request(self):
        """The request's body: a JSON object naming a notebook, or a 400."""
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            raise tornado.web.HTTPError(400, reason="the body is not JSON") from None
        if not isinstance(body, dict) or not isinstance(body.get("notebook"), str):
            raise tornado.web.HTTPError(400, reason="the body must be a JSON object with a notebook")
        return body

    def _json(self, data):
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(data))


class _Sweeps(_Runs):
    """``POST /api/sweeps``: a run per value of one parameter (``{notebook, preset, values, param, sweep}``);
    ``GET /api/sweeps/<id>``: its runs' states, then its table and pass-rate picture."""

    def get(self, sweep_id):
        status = self.conf["sweeps"].status(sweep_id or "")
        if status is None:
            raise tornado.web.HTTPError(404, reason="no such sweep")
        self._json(status)

    def post(self, sweep_id=None):
        if sweep_id:
            raise tornado.web.HTTPError(405)
        body = self._request()
        short = body["notebook"]
        params, presets, settings = notebook_form(self.notebook(short))
        preset = body.get("preset") if isinstance(body.get("preset"), str) else None
        param, text = body.get("param"), body.get("sweep")
        fields = body.get("values") if isinstance(body.get("values"), dict) else {}
        if param not in params or param == "preset" or not isinstance(text, str):
            self.set_status(400)
            self._json({"errors": {"sweep": "choose a parameter of this notebook and give its values"}})
            return
        labels = [p.strip() for p in text.split(";" if params[param].type == "list" else ",") if p.strip()]
        if not labels or len(labels) > MAX_VALUES:
            self.set_status(400)
            self._json({"errors": {"sweep": f"give 1 to {MAX_VALUES} values, separated by "
                                            + ("';'" if params[param].type == "list" else "','")}})
            return
        runs, errors = [], {}
        for label in labels:
            values, problems = check_form(params, {**fields, param: label}, preset, presets, settings)
            if param in problems:
                errors["sweep"] = f"{label}: {problems.pop(param)}"
            errors.update(problems)
            runs.append(values)
        if errors:
            self.set_status(400)
            self._json({"errors": errors})
            return
        self._json({"id": self.conf["sweeps"].submit(short, param, labels, runs)})


class _RunStatus(_Runs):
    """``GET /api/runs/<id>``: a run's state; ``POST /api/runs/<id>/cancel``: cancel it."""

    def get(self, run_id):
        status = self.conf["queue"].status(run_id)
        if status is None:
            raise tornado.web.HTTPError(404, reason="no such run")
        self._json(status)

    def post(self, run_id):
        if not self.request.path.endswith("/cancel"):
            raise tornado.web.HTTPError(405)
        self._json({"cancelled": self.conf["queue"].cancel(run_id)})


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<link rel="stylesheet" href="/_lupikit/panel.css"></head>
<body class="lupikit-runs"><p><a href="/index.html">The book</a> · <a href="/runs">Runs</a></p>
<h1>{title}</h1>
{body}
</body></html>
"""


def _cell(value):
    return html.escape("" if value is None else value if isinstance(value, str) else f"{value:.4g}"
                       if isinstance(value, float) else str(value))


class _RunsPage(_Base):
    """``GET /runs``: the kept runs, with what reruns each, and a form to compare two."""

    def get(self):
        runs = self.conf["queue"].listing()
        rows = []
        for r in runs:
            links = " ".join(f'<a href="{html.escape(r[k])}">{label}</a>' for k, label in
                             (("page", "page"), ("notebook_file", ".ipynb")) if r.get(k))
            values = ", ".join(f"{k}={v}" for k, v in r.get("values", {}).items()) or "defaults"
            rows.append(f'<tr><td><input type="checkbox" name="run" value="{html.escape(r["id"])}"></td>'
                        f'<td>{_cell(r.get("created"))}</td><td>{_cell(r["notebook"])}</td>'
                        f'<td><code>{_cell(values)}</code></td><td>{_cell(r["state"])}</td>'
                        f'<td>{_cell(r.get("elapsed"))} s</td><td>{links}</td>'
                        f'<td><code>{_cell(r.get("command"))}</code></td></tr>')
        body = ('<form action="/runs/compare" method="get"><table class="lupikit-claims"><tr><th></th><th>started'
                '</th><th>notebook</th><th>parameters</th><th>state</th><th>time</th><th>files</th>'
                '<th>to rerun it</th></tr>' + "".join(rows) + '</table><p><button type="submit">Compare the two '
                'runs ticked</button></p></form>' if rows else "<p>No run yet: start one from a notebook's page "
                "(Rerun with other parameters).</p>")
        sweeps = self.conf["sweeps"].listing()
        if sweeps:
            body += ('<h2>Sweeps</h2><table class="lupikit-claims"><tr><th>started</th><th>notebook</th>'
                     '<th>parameter</th><th>values</th><th>runs</th><th>picture</th></tr>' + "".join(
                         f'<tr><td>{_cell(w.get("created"))}</td><td>{_cell(w["notebook"])}</td>'
                         f'<td>{_cell(w["param"])}</td><td><code>{_cell(", ".join(w["labels"]))}</code></td>'
                         f'<td>{len(w["runs"])}</td><td>' + (
                             f'<a href="/runs/sweeps/{html.escape(w["id"])}/pass_rate.png">pass rate</a>'
                             if (self.conf["sweeps"].folder / w["id"] / "pass_rate.png").is_file()
                             else "when its runs end") + "</td></tr>" for w in sweeps) + "</table>")
        self._page("Runs", body)

    def _page(self, title, body):
        """A page of the server's own, in the book's theme where the book has a page to lend it."""
        self.set_header("Content-Type", "text/html; charset=utf-8")
        # (the book's top index.html only redirects to its first page, which has the theme's article)
        for url in ("/book/index.html", "/index.html"):
            shell = self.conf["book"] / url.lstrip("/")
            text = shell.read_text(encoding="utf-8") if shell.is_file() else ""
            if "bd-article" in text:
                self.finish(themed_page(text, title, '<p><a href="/index.html">The book</a> · '
                                        '<a href="/runs">Runs</a></p>' + body, page_url=url))
                return
        self.finish(_PAGE.format(title=title, body=body))


class _ComparePage(_RunsPage):
    """``GET /runs/compare?run=A&run=B``: two runs' claims side by side, differences marked."""

    def get(self):
        ids = self.get_query_arguments("run")
        statuses = [self.conf["queue"].status(i) for i in ids]
        if len(ids) != 2 or None in statuses:
            raise tornado.web.HTTPError(400, reason="tick two kept runs to compare")
        a, b = statuses
        claims_a = {c["id"]: c for c in a.get("claims") or []}
        claims_b = {c["id"]: c for c in b.get("claims") or []}
        rows = []
        for cid in dict.fromkeys([*claims_a, *claims_b]):
            ca, cb = claims_a.get(cid, {}), claims_b.get(cid, {})
            differs = ca.get("verdict") != cb.get("verdict")
            rows.append(f'<tr class="{"lupikit-differs" if differs else ""}"><td>{_cell(cid)}</td>'
                        f'<td>{_cell(ca.get("verdict"))}</td><td>{_cell(ca.get("value"))}</td>'
                        f'<td>{_cell(cb.get("verdict"))}</td><td>{_cell(cb.get("value"))}</td></tr>')
        head = "".join(f'<p>{label}: <code>{_cell(s.get("command"))}</code> ({_cell(s["state"])})</p>'
                       for label, s in (("A", a), ("B", b)))
        body = (head + '<table class="lupikit-claims"><tr><th>claim</th><th>A: verdict</th><th>A: value</th>'
                '<th>B: verdict</th><th>B: value</th></tr>' + "".join(rows) + "</table>")
        self._page("Two runs compared", body)


class _Files(_Base, tornado.web.StaticFileHandler):
    """Files of one folder, links followed only where they stay inside it."""

    def validate_absolute_path(self, root, absolute_path):
        real_root, real = Path(root).resolve(), Path(absolute_path).resolve()
        if not real.is_relative_to(real_root):
            raise tornado.web.HTTPError(403, reason="outside the served folders")
        return super().validate_absolute_path(root, absolute_path)


class _Page(_Files):
    """The book's files; a notebook's page gets the panel's script, style and the notebook's name."""

    def initialize(self, settings, path):
        _Base.initialize(self, settings)
        tornado.web.StaticFileHandler.initialize(self, path=path, default_filename="index.html")

    def get_content(self, abspath, start=None, end=None):
        short = self._short(abspath)
        if short is None:
            return super().get_content(abspath, start, end)
        if getattr(self, "_page", None) is None:
            html = Path(abspath).read_text(encoding="utf-8")
            form = form_spec(self.conf["notebooks"] / f"{short}.ipynb")
            self._page = _with_panel(html, short, self.conf["token"], form).encode("utf-8")
        return self._page

    def get_content_size(self):
        if self._short(self.absolute_path) is None:
            return super().get_content_size()
        return len(self.get_content(self.absolute_path))

    def get_content_type(self):
        kind = super().get_content_type()
        return f"{kind}; charset=utf-8" if kind == "text/html" else kind

    def compute_etag(self):
        return None  # the page sent carries this run's token

    def _short(self, abspath):
        """The notebook a page shows (``notebooks/<part>/<name>.html`` of the book), or None."""
        rel = Path(abspath).resolve().relative_to(Path(self.root).resolve())
        if rel.suffix != ".html" or len(rel.parts) != 3 or rel.parts[0] != "notebooks":
            return None
        short = rel.with_suffix("").relative_to("notebooks").as_posix()
        return short if (self.conf["notebooks"] / f"{short}.ipynb").is_file() else None


def _with_panel(html, short, token, form):
    """A notebook page with what the panel needs: its scripts first in ``<head>``, the form before ``</head>``.

    The panel's scripts come before the book's own deferred ones (MathJax
    above all), so that the panel is built as soon as the page is parsed;
    the form is in the page, so that it needs no request of its own.
    """
    first = (f'<meta name="lupikit-notebook" content="{short}">\n'
             f'<meta name="lupikit-token" content="{token}">\n'
             '<link rel="stylesheet" href="/_lupikit/panel.css">\n'
             '<script src="/_lupikit/dom.js" defer></script>\n'
             '<script src="/_lupikit/panel.js" defer></script>\n'
             '<script src="/_lupikit/live.js" defer></script>\n')
    data = json.dumps(form).replace("</", "<\\/")
    last = f'<script type="application/json" id="lupikit-form">{data}</script>\n'
    at = html.find("</head>")
    html = html[:at] + last + html[at:] if at >= 0 else last + html
    charset = re.search(r"<meta\s+charset=[^>]*>", html, re.IGNORECASE)
    head = charset.end() if charset else (html.find("<head>") + len("<head>") if "<head>" in html else 0)
    return html[:head] + "\n" + first + html[head:]


class _Own(_Files):
    """The panel's own files, and the runs' (their pages and notebooks)."""

    def initialize(self, settings, path):
        _Base.initialize(self, settings)
        tornado.web.StaticFileHandler.initialize(self, path=path)


def make_app(book, notebooks, token, *, any_host=False, queue=None, live=None):
    """The server's application.

    Parameters
    ----------
    book : path
        The built book (``_build/html``).
    notebooks : path
        The notebooks folder (``notebooks/``), for the forms.
    token : str
        What every request must carry (:func:`new_token`).
    any_host : bool, default=False
        Accept any ``Host`` header (``lupikit serve --host``); by default only
        this machine's names.
    queue : lupikit._book.pageruns.RunQueue or None
        Where runs from the pages go (None: the panel checks values only).
    live : lupikit._book.live.LiveKernels or None
        The live code cells' kernels (None: no live cells).

    Returns
    -------
    tornado.web.Application
    """
    conf = {"token": token, "notebooks": Path(notebooks).resolve(), "any_host": bool(any_host), "queue": queue,
            "live": live, "sweeps": None if queue is None else Sweeps(queue), "book": Path(book).resolve()}
    runs = [] if queue is None else [
        (r"/api/runs", _Runs, {"settings": conf}),
        (r"/api/runs/([0-9a-f-]+)(?:/cancel)?", _RunStatus, {"settings": conf}),
        (r"/api/sweeps/?([0-9a-f-]*)", _Sweeps, {"settings": conf}),
        (r"/runs/?", _RunsPage, {"settings": conf}),
        (r"/runs/compare", _ComparePage, {"settings": conf}),
        (r"/runs/(.*)", _Own, {"settings": conf, "path": str(Path(queue.runs).resolve())}),
    ]
    live_routes = [] if live is None else [(r"/api/live/([^/]+/[^/]+)", _Live, {"settings": conf})]
    return tornado.web.Application([
        (r"/api/notebooks/([^/]+/[^/]+)/form", _Form, {"settings": conf}),
        (r"/api/notebooks/([^/]+/[^/]+)/cells", _Cells, {"settings": conf}),
        *live_routes,
        (r"/api/notebooks/([^/]+/[^/]+)/check", _Check, {"settings": conf}),
        *runs,
        (r"/_lupikit/(.*)", _Own, {"settings": conf, "path": str(PANEL_FILES)}),
        (r"/(.*)", _Page, {"settings": conf, "path": str(Path(book).resolve())}),
    ], xsrf_cookies=False, websocket_max_message_size=1 << 20)
