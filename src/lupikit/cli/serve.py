"""``lupikit serve``: the built book on this machine, with a form of each notebook's parameters."""

import asyncio
import sys
import webbrowser

from .._book.errors import BookError
from .._book.paths import checkout_paths, find_notebooks_dir
from .._book.server import make_app, new_token

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

    async def run():
        app = make_app(book, nb_dir, token, any_host=bool(args.host))
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

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        print("stopped")
    return 0


def add_serve_parser(sub):
    p = sub.add_parser(
        "serve", help="serve the built book on this machine, with a form of each notebook's parameters",
        description="Serve the built book (_build/html) on 127.0.0.1 with a random token in the address, as "
                    "Jupyter does, and open it. Every notebook page gets a panel, 'Rerun with other "
                    "parameters', built from the notebook's parameters cell: the values are checked by type "
                    "and range and the page gives the lupikit run command that runs them.")
    p.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    p.add_argument("--no-open", action="store_true", help="print the address; do not open a browser")
    p.add_argument("--host", default=None,
                   help="RISK: listen on this address instead of 127.0.0.1 (others who reach it and have the "
                        "token can use the server)")
    p.set_defaults(func=cmd_serve)
