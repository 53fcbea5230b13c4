"""One PDF of the book: jupyter-book's single-page HTML printed by headless Chromium (private).

``python -m lupikit._book build`` (``make book``) writes ``_build/pdf/lupikit.pdf``
before the HTML, which links it (:func:`book_pdf_step`);
:func:`print_pdf` also prints the student edition's book. The page is served
from this machine (127.0.0.1) to a Chromium that resolves no other host.

The PDF has bookmarks (an outline) of the parts, their chapters and the
chapters' sections: Chromium makes them from the page's headings
(``--generate-pdf-document-outline``). The single page has a heading per
chapter but none per part (a part is a caption of the table of contents), so
:func:`with_part_headings` puts one before each part's first chapter; each
part starts a new sheet. Chromium's bookmark of a heading that wraps joins
its lines without a space ("using privileged" becomes "usingprivileged"),
and of some headings repeats a line: :func:`fix_outline_titles` gives each
bookmark the text of the heading it was made from, found in the page's
headings in order by its letters. Each page's anchor ``document-<page>`` becomes a
named destination of the PDF, which the HTML book's pages link
(:mod:`lupikit._book.sphinx_downloads`). This module imports no part of the
library.
"""

import html as html_lib
import http.server
import logging
import re
import shutil
import subprocess
import sys
import threading
import time
from functools import partial
from html import escape
from pathlib import Path

import yaml

from .build import build, jupyter_book
from .sphinx_downloads import PDF_NAME

__all__ = ["PRINT_CSS", "book_pdf_step", "drop_book_pdf", "fix_outline_titles", "heading_texts", "outline_title", "pdf",
           "plain_math", "print_page", "print_pdf", "toc_parts", "with_part_headings"]

#: a heading: ``h1`` to ``h6``, or an element with the role of one (the contents' part captions)
_HEADING = re.compile(r"<(h[1-6]|\w+(?=[^>]*\brole=\"heading\"))\b[^>]*>(.*?)</\1>", re.S)
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.S)
#: how far past the last matched heading a bookmark's heading is looked for
_LOOKAHEAD = 200

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


def heading_texts(html):
    r"""The text of each heading (``h1`` to ``h6``) of ``html``, in order, as a reader sees it.

    Tags and the heading's link (the theme's "#") are left out, entities
    read, runs of white space made one space.

    Examples
    --------
    >>> heading_texts('<h1>A &amp; B<a class="headerlink" href="#a">#</a></h1><p>x</p><h2 id="c">C\n <em>d</em></h2>'
    ...               '<p class="caption" role="heading"><span>Part I</span></p>')
    ['A & B', 'C d', 'Part I']
    """
    out = []
    for _, inner in _HEADING.findall(html):
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", _HEADERLINK.sub("", inner)))
        out.append(" ".join(text.split()))
    return out


def _letters(text):
    return "".join(text.split())


_MATH = re.compile(r"\\\((.*?)\\\)", re.S)
_TEX_SYMBOLS = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "lambda": "λ",
                "mu": "μ", "sigma": "σ", "tau": "τ", "to": "→", "le": "≤", "ge": "≥", "in": "∈"}


def plain_math(tex):
    r"""Inline TeX as plain text, for a bookmark (where no math is typeset).

    Examples
    --------
    >>> plain_math(r"\alpha = 0"), plain_math(r"X^*"), plain_math(r"\mathrm{maxrel}"), plain_math("L_1")
    ('α = 0', 'X*', 'maxrel', 'L1')
    """
    text = re.sub(r"\\(?:mathrm|mathcal|mathbb|mathbf|operatorname|text)\{([^{}]*)\}", r"\1", tex)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX_SYMBOLS.get(m.group(1), m.group(1)), text)
    return " ".join(text.replace("^", "").replace("_", "").replace("{", "").replace("}", "").split())


def outline_title(title, heading):
    """Whether Chromium's bookmark ``title`` was made from the heading text ``heading``.

    Chromium drops the space where a heading wraps, and sometimes repeats a
    stretch of it: the two match when their letters (white space left out)
    are equal, or equal once repeated stretches of the bookmark are removed.

    Examples
    --------
    >>> outline_title("Oblivious features: definitions andOblivious features: definitions andpropositions",
    ...               "Oblivious features: definitions and propositions")
    True
    >>> outline_title("Oblivious SVM (Section 7.1)(Section 7.1)", "Oblivious SVM (Section 7.1)")
    True
    >>> outline_title("Part II: usingprivileged", "Part II: using privileged"), outline_title("Part I", "Part II")
    (True, False)
    >>> outline_title("Part II", "Part I"), outline_title("Exercise 11", "Exercise 1")
    (False, False)
    >>> outline_title("The best The best -independent-independentproxy", "The best -independent proxy")
    True
    """
    t, h = _letters(title), _letters(heading)
    for _ in range(4):  # (a stretch repeated, and then another)
        if t == h:
            return True
        d = len(t) - len(h)
        if d < 4:  # (Chromium repeats a line or more, not a letter: "Part II" is not "Part I")
            return False
        if any(t == h[:i + d] + h[i:] for i in range(len(h) - d + 1)):
            return True
        t = _without_longest_repeat(t)
        if t is None:
            return False
    return False


def _without_longest_repeat(t):
    """``t`` with one copy of its longest stretch (of 4 letters or more) that is repeated at once, or None."""
    for d in range(len(t) // 2, 3, -1):
        for i in range(len(t) - 2 * d + 1):
            if t[i:i + d] == t[i + d:i + 2 * d]:
                return t[:i + d] + t[i + 2 * d:]
    return None


def fix_outline_titles(pdf_path, html):
    """Give each bookmark of the PDF ``pdf_path`` the text of its heading in ``html``; how many changed.

    The bookmarks follow the page's rendered headings in order (hidden ones,
    such as the solutions', have none): each is matched to the first heading,
    from the last one matched on, that :func:`outline_title` says it was made
    from, and takes its text. A bookmark matched to no heading keeps its title
    (a heading with typeset math, whose bookmark holds the math's glyphs).
    """
    from pypdf import PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    # (Chromium's PDFs declare a trailer size below their object count: pypdf's warning of it says nothing)
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    headings = heading_texts(html)
    # (a heading's math is typeset in the page, missing from Chromium's bookmark, and plain here)
    bare = [" ".join(_MATH.sub(" ", h).split()) for h in headings]
    shown = [_MATH.sub(lambda m: plain_math(m.group(1)), h) for h in headings]
    writer = PdfWriter(clone_from=str(pdf_path))
    outlines = writer.root_object.get("/Outlines")
    if outlines is None:
        return 0
    items, stack = [], [outlines.get_object().get("/First")]
    while stack:  # (depth first, in document order)
        ref = stack.pop()
        if ref is None:
            continue
        item = ref.get_object()
        items.append(item)
        stack.append(item.get("/Next"))
        stack.append(item.get("/First"))
    changed, at = 0, 0
    for item in items:
        title = str(item.get("/Title", ""))
        window = range(at, min(at + _LOOKAHEAD, len(headings)))
        # (the same letters first, anywhere in the window; only then a title with a repeated stretch)
        k = next((k for k in window if _letters(title) in (_letters(headings[k]), _letters(bare[k]))), None)
        if k is None:
            k = next((k for k in window if outline_title(title, headings[k]) or outline_title(title, bare[k])),
                     None)
        if k is None:
            continue
        at = k + 1
        if title != shown[k]:
            item[NameObject("/Title")] = TextStringObject(shown[k])
            changed += 1
    if changed:
        writer.write(str(pdf_path))
    return changed


def _chromium():
    """The Chromium of this machine (Debian's ``chromium``, or ``chromium-browser``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def book_pdf_step(paths):
    """Print the book's PDF before its HTML is built (:func:`~lupikit._book.build.build`'s ``before_html``).

    Writes ``_build/pdf/lupikit.pdf`` from the executed notebooks; the HTML
    build then copies it beside the pages, and every page links it at that
    page. Without Chromium there is no PDF: an older one is removed (the pages
    would link a PDF of another state of the book) and the pages link none.
    Returns 0, or 1 when Chromium fails to print it.
    """
    out = drop_book_pdf(paths)  # (a print that fails leaves no PDF of another state of the book)
    if _chromium() is None:
        print("[pdf] no Chromium on this machine: the pages link no PDF "
              "(tools/ensure_system_packages.sh installs Debian's)", flush=True)
        return 0
    return print_pdf(paths.root, paths.build, out)


def drop_book_pdf(paths):
    """Remove the book's PDF of an earlier build (``build --no-pdf``: the pages then link none); its path."""
    out = paths.build / "pdf" / PDF_NAME
    out.unlink(missing_ok=True)
    return out


def pdf(paths, jobs=2):
    """The executed book with its PDF: ``_build/pdf/lupikit.pdf``, linked from every page of ``_build/html``."""
    if _chromium() is None:
        print("[pdf] chromium is needed (tools/ensure_system_packages.sh installs Debian's)", file=sys.stderr)
        return 1
    return build(paths, jobs, before_html=book_pdf_step)


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
        fixed = fix_outline_titles(out, html)
        print(f"[pdf] {fixed} bookmark title(s) given their heading's words", flush=True)
        print(f"[pdf] {out} ({out.stat().st_size / 2**20:.1f} MiB) printed in {time.perf_counter() - t0:.0f} s")
    return returncode


def print_page(folder, page, out, profile, budget_ms=120000):
    """Print ``folder/page``, served from this machine, to the PDF ``out`` with its outline; 0 if printed.

    The page is served on 127.0.0.1 to a headless Chromium that resolves no
    other host; ``profile`` is its profile folder, ``budget_ms`` the virtual
    time the page has to load and typeset (its MathJax) before it is printed.
    """
    chromium = _chromium()
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
