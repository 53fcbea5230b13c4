"""``lupikit serve``: the built book on this machine, with a form of each notebook's parameters."""

import asyncio
import sys
import webbrowser

import json

from .._book.errors import BookError
from .._book.harness import prepare_kernels
from .._book.live import LiveKernels
from .._book.pageruns import RunQueue, compare_claims
from .._book.paths import checkout_paths, find_notebooks_dir
from .._book.records import read_paper_result
from .._book.render import find_mathjax, render_or_warning
from .._book.runpage import run_page
from .._book.server import make_app, new_token
from ..claims import read_claims

__all__ = ["add_serve_parser", "cmd_serve"]


def _listen(app, host, port):
    """Start listening; returns the server and the port it got (``port`` 0: a free one)."""
    import tornado.httpserver
    import tornado.netutil

    server = tornado.httpserver.HTTPServer(app, xheaders=False)
    try:
        sockets = tornado.netutil.bind_sockets(port, address=host)
    except OSError as exc:
        raise BookError(f"cannot listen on {host}:{port} ({exc.strerror}); pass another --port.") from None
    server.add_sockets(sockets)
    return server, sockets[0].getsockname()[1]


def _finisher(paths):
    """What a run from a page leaves: its claims beside the paper-scale record, and its page."""
    mathjax = find_mathjax(paths.root)

    def finish(folder, executed, short, status):
        claims = compare_claims(read_claims(executed), read_paper_result(paths.results, short))
        book_page = paths.html / "notebooks" / f"{short}.html"
        if book_page.is_file():  # the book's page, the run's outputs in place, under its banner
            page = folder / "page.html"
            page.write_text(run_page(book_page.read_text(encoding="utf-8"), executed, {**status, "claims": claims},
                                     page_url=f"/notebooks/{short}.html"), encoding="utf-8")
            return claims, page
        html, _ = render_or_warning(executed, mathjax, folder.parent)
        if html is not None:
            html = html.replace(html.with_name("page.html"))
        return claims, html

    return finish


def _estimator(paths):
    """How long a run usually takes: the paper record's seconds per seed, else the default run's benchmark."""
    try:
        table = json.loads((paths.root / "results" / "benchmarks" / "notebooks.json").read_text())["tables"]["times"]
        default = {row[0]: float(row[1]) for row in table["rows"]}
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        default = {}

    def estimate(short, values):
        if values.get("preset") == "paper":
            record = read_paper_result(paths.results, short)
            seconds = (record or {}).get("seconds")
            return float(seconds) if isinstance(seconds, (int, float)) else None
        return default.get(short)

    return estimate


def cmd_serve(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    paths = checkout_paths(nb_dir)
    book = paths.html
    if not (book / "index.html").is_file():
        raise BookError(f"no built book in {book}: build it first (make book), then run lupikit serve.")
    host = args.host or "127.0.0.1"
    if args.host and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: --host {args.host}: anyone who can reach this address and has the token can use the "
              "server; the book's pages show the token to whoever opens them.", file=sys.stderr)
    token = new_token()
    # the kernels of the runs from the pages, as lupikit run prepares them: every claim evaluated
    prepare_kernels(paths.ipython, claims="record", soft_asserts=True)
    queue = RunQueue(nb_dir, paths.runs / "served", workers=args.jobs, finish=_finisher(paths),
                     estimate=_estimator(paths))

    live = LiveKernels(limit=args.live_kernels)

    async def run():
        app = make_app(book, nb_dir, token, any_host=bool(args.host), queue=queue, live=live)
        server, port = _listen(app, host, args.port)
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}/index.html?token={token}"
        print(f"serving the book at {url}\n(Ctrl-C stops it)", flush=True)
        if not args.no_open:
            webbrowser.open(url)
        try:
            await asyncio.Event().wait()
        finally:
            server.stop()
            await live.close_all()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        print("stopped")
    finally:
        queue.shutdown()
    return 0


def add_serve_parser(sub):
    p = sub.add_parser(
        "serve", help="serve the built book on this machine, with a form of each notebook's parameters",
        description="Serve the built book (_build/html) on 127.0.0.1 with a random token in the address, as "
                    "Jupyter does, and open it. Every notebook page gets a panel, 'Rerun with other "
                    "parameters', built from the notebook's parameters cell: the values are checked by type "
                    "and range, and a run from the page is queued (--jobs at once), followed cell by cell, "
                    "can be cancelled, and shows its claims beside the recorded paper-scale verdicts. /runs "
                    "lists the kept runs (_build/runs/served) and compares two. The Live switch of a page "
                    "makes its code cells editable and runs them on a kernel of this machine.")
    p.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    p.add_argument("--no-open", action="store_true", help="print the address; do not open a browser")
    p.add_argument("--jobs", type=int, default=None,
                   help="runs from the pages at once; the others wait in a queue (default: one per core)")
    p.add_argument("--live-kernels", type=int, default=4,
                   help="pages with Live code on at once, a kernel each (default 4)")
    p.add_argument("--host", default=None,
                   help="RISK: listen on this address instead of 127.0.0.1 (others who reach it and have the "
                        "token can use the server)")
    p.set_defaults(func=cmd_serve)
