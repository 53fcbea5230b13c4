"""One PDF of the book: jupyter-book's single-page HTML printed by headless Chromium (private).

``python -m lupikit._book pdf`` (``make pdf``) writes ``_build/pdf/lupikit.pdf``;
:func:`print_pdf` also prints the student edition's book. The page is served
from this machine (127.0.0.1) to a Chromium that resolves no other host.
This module imports no part of the library.
"""

import http.server
import shutil
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path

from .build import executed_default, jupyter_book, prefill_cache, prepare_build, toc_notebooks
from .pages import write_pages

__all__ = ["PRINT_CSS", "pdf", "print_pdf"]

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
<script>
/* the scorecard's details of each claim are closed drop-downs on the web; print them open */
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("details.claim-details").forEach(function (d) { d.open = true; });
});
</script>
"""


def pdf(paths):
    """One PDF of the book (the default build's executions): ``_build/pdf/lupikit.pdf``."""
    prepare_build(paths, 2)
    prefill_cache(paths, 2)
    notebooks = toc_notebooks(paths)
    write_pages(paths, executed_default(paths, notebooks), "default", notebooks)
    return print_pdf(paths.root, paths.build, paths.build / "pdf" / "lupikit.pdf")


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
    page.write_text(html.replace("</head>", PRINT_CSS + "</head>", 1), encoding="utf-8")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("[pdf] chromium is needed (tools/ensure_system_packages.sh installs Debian's)", file=sys.stderr)
        return 1
    out = Path(out)
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
            "--disable-sync", "--disable-extensions", f"--user-data-dir={Path(build) / 'pdf-profile'}",
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
