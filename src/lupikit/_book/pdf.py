"""One PDF of the book: jupyter-book's single-page HTML printed by headless Chromium (private).

``python -m lupikit._book pdf`` (``make pdf``) writes ``_build/pdf/lupikit.pdf``;
:func:`print_pdf` also prints the student edition's book. The page is served
from this machine (127.0.0.1) to a Chromium that resolves no other host.

The PDF has bookmarks (an outline) of the parts, their chapters and the
chapters' sections: Chromium makes them from the page's headings
(``--generate-pdf-document-outline``). The single page has a heading per
chapter but none per part (a part is a caption of the table of contents), so
:func:`with_part_headings` puts one before each part's first chapter; each
part starts a new sheet. Each page's anchor ``document-<page>`` becomes a
named destination of the PDF, which the HTML book's pages link
(:mod:`lupikit._book.sphinx_downloads`). This module imports no part of the
library.
"""

import http.server
import shutil
import subprocess
import sys
import threading
import time
from functools import partial
from html import escape
from pathlib import Path

import yaml

from .build import executed_default, jupyter_book, prefill_cache, prepare_build, toc_notebooks
from .pages import write_pages
from .sphinx_downloads import PDF_NAME

__all__ = ["PRINT_CSS", "pdf", "print_page", "print_pdf", "toc_parts", "with_part_headings"]

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
h1.lupikit-part { display: block !important; break-before: page; }
@page { size: A4; margin: 14mm 12mm; }
</style>
<script>
/* the scorecard's details of each claim are closed drop-downs on the web; print them open */
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("details.claim-details").forEach(function (d) { d.open = true; });
});
</script>
"""


def toc_parts(toc):
    """``[(caption, first page)]`` of the parts of a ``_toc.yml`` (a mapping), in book order.

    Examples
    --------
    >>> toc_parts({"root": "book/index", "parts": [
    ...     {"caption": "Part I", "chapters": [{"file": "book/a/index", "sections": [{"file": "book/a/b"}]}]},
    ...     {"caption": "Back matter", "chapters": [{"file": "book/api"}]}]})
    [('Part I', 'book/a/index'), ('Back matter', 'book/api')]
    """
    return [(part["caption"], part["chapters"][0]["file"]) for part in toc.get("parts", [])
            if part.get("caption") and part.get("chapters")]


def with_part_headings(html, parts):
    """The single page's HTML with a heading (``<h1 class="lupikit-part">``) before each part's first page.

    ``parts``: :func:`toc_parts`. A part whose first page the HTML lacks gets no heading.

    Examples
    --------
    >>> page = '<h1>Book</h1><span id="document-a"></span><h2>A</h2>'
    >>> with_part_headings(page, [("I & II", "a"), ("III", "z")])
    '<h1>Book</h1><h1 class="lupikit-part">I &amp; II</h1><span id="document-a"></span><h2>A</h2>'
    """
    for caption, first in parts:
        anchor = f'<span id="document-{first}"></span>'
        heading = f'<h1 class="lupikit-part">{escape(caption)}</h1>'
        html = html.replace(anchor, heading + anchor, 1)
    return html


def pdf(paths):
    """One PDF of the book (the default build's executions): ``_build/pdf/lupikit.pdf``.

    When the HTML book is built (``_build/html``), it is built again (only its
    pages are written again): every page then links the PDF at that page.
    """
    prepare_build(paths, 2)
    prefill_cache(paths, 2)
    notebooks = toc_notebooks(paths)
    write_pages(paths, executed_default(paths, notebooks), "default", notebooks)
    returncode = print_pdf(paths.root, paths.build, paths.build / "pdf" / PDF_NAME)
    if returncode != 0 or not paths.index.is_file():
        return returncode
    return jupyter_book(paths.root, label="pdf")


def print_pdf(source, build, out):
    """Build ``source``'s single-page HTML into ``build/singlehtml`` and print it to ``out``."""
    output = None if Path(build) == Path(source) / "_build" else Path(build).parent
    if jupyter_book(source, "singlehtml", strict=False, output=output, label="pdf") != 0:
        return 1
    single = Path(build) / "singlehtml"
    # The single page is written at the root document's path (book/index.html)
    # but with links relative to the output folder, next to a redirecting
    # index.html: the page is printed from the output folder itself.
    page = single / "index.html"
    html = (single / "book" / "index.html").read_text(encoding="utf-8")
    html = with_part_headings(html, toc_parts(yaml.safe_load((Path(source) / "_toc.yml").read_text())))
    page.write_text(html.replace("</head>", PRINT_CSS + "</head>", 1), encoding="utf-8")
    t0 = time.perf_counter()
    returncode = print_page(single, "index.html", out, profile=Path(build) / "pdf-profile")
    if returncode == 0:
        out = Path(out)
        print(f"[pdf] {out} ({out.stat().st_size / 2**20:.1f} MiB) printed in {time.perf_counter() - t0:.0f} s")
    return returncode


def print_page(folder, page, out, profile, budget_ms=120000):
    """Print ``folder/page``, served from this machine, to the PDF ``out`` with its outline; 0 if printed.

    The page is served on 127.0.0.1 to a headless Chromium that resolves no
    other host; ``profile`` is its profile folder, ``budget_ms`` the virtual
    time the page has to load and typeset (its MathJax) before it is printed.
    """
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("[pdf] chromium is needed (tools/ensure_system_packages.sh installs Debian's)", file=sys.stderr)
        return 1
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = partial(Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        proc = subprocess.run([
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", f"--user-data-dir={profile}",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            f"--virtual-time-budget={budget_ms}", "--run-all-compositor-stages-before-draw",
            "--no-pdf-header-footer", "--generate-pdf-document-outline", f"--print-to-pdf={out}",
            f"http://127.0.0.1:{httpd.server_address[1]}/{page}",
        ], capture_output=True, text=True, timeout=1800)
    finally:
        httpd.shutdown()
    if proc.returncode != 0 or not out.is_file():
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    return 0
