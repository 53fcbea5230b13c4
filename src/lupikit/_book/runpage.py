"""A run from a served page, shown as the book shows its notebook (private).

The page of a run started from ``lupikit serve`` is the book's own page of
the notebook (its theme, its prose as Sphinx rendered it) with each code
cell's outputs replaced by the run's, the cell of the values papermill
injected shown after the parameters cell, and a banner on top: the run's
parameters, its state, its claims beside the recorded paper-scale verdicts
(differences marked), its files and the command that reproduces it.

A cell of the page is matched to the run's cell by its code; a page cell
that no cell of the run matches (the book was built from an older
notebook) keeps the book's outputs, marked as such.

This module imports no part of the library.
"""

import html
import posixpath
import re

import nbformat
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

__all__ = ["banner_html", "run_page", "themed_page"]

#: MathJax 3 on a run's page: the book's own math (``\\(...\\)``), and ``$...$`` in the run's outputs
_MATHJAX = ("window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: [['$$', '$$'], "
            "['\\\\[', '\\\\]']], processEscapes: true}, options: {processHtmlClass: "
            "'tex2jax_process|mathjax_process|math|output_area|lupikit-run-output'}}")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", re.IGNORECASE)


def _text(value):
    return "".join(value) if isinstance(value, list) else str(value or "")


def _pre(text, kind):
    return (f'<div class="output {kind} highlight-myst-ansi notranslate"><div class="highlight"><pre>'
            f"{html.escape(_ANSI.sub('', text))}</pre></div></div>")


def _output_html(output, markdown):
    """One notebook output as the book's pages show it (an HTML string; empty for glue-only outputs)."""
    kind = output.get("output_type")
    if kind == "stream":
        return _pre(_text(output.get("text")), "stream")
    if kind == "error":
        return _pre("\n".join(output.get("traceback") or [f"{output.get('ename')}: {output.get('evalue')}"]),
                    "traceback")
    if (output.get("metadata", {}).get("scrapbook") or {}).get("mime_prefix"):
        return ""  # a claim's hidden glue
    data = output.get("data", {})
    if "text/html" in data:
        return f'<div class="output text_html">{_text(data["text/html"])}</div>'
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            return f'<img alt="an output of the run" src="data:{mime};base64,{_text(data[mime]).strip()}">'
    if "image/svg+xml" in data:
        return f'<div class="output svg">{_text(data["image/svg+xml"])}</div>'
    if "text/markdown" in data:
        return f'<div class="output text_markdown">{markdown.render(_text(data["text/markdown"]))}</div>'
    if "text/latex" in data:
        return f'<div class="output text_latex">{html.escape(_text(data["text/latex"]))}</div>'
    if "text/plain" in data:
        return _pre(_text(data["text/plain"]), "text_plain")
    return ""


def _norm(code):
    return "\n".join(line.rstrip() for line in code.strip().splitlines())


def _absolute(soup, page_url):
    """Relative addresses of the book's page made absolute, so that the page works from the runs' folder."""
    folder = posixpath.dirname(page_url)
    for tag in soup.find_all(True):
        for attr in ("href", "src"):
            value = tag.get(attr)
            if value and not _URL.match(value):
                path, _, rest = value.partition("#")
                tag[attr] = posixpath.normpath(posixpath.join(folder, path)) + (f"#{rest}" if rest else "")


def _fmt(value):
    return "" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def banner_html(status):
    """The banner of a run's page: its parameters, state, claims beside the record, files and command."""
    values = ", ".join(f"{k} = {v}" for k, v in status.get("values", {}).items()) or "the defaults"
    rows = []
    for c in status.get("claims") or []:
        r = c.get("recorded") or {}
        interval = r.get("interval")
        rows.append(
            f'<tr class="{"lupikit-differs" if c.get("differs") else ""}">'
            f'<td title="{html.escape(c.get("statement") or "")}"><code>{html.escape(c["id"])}</code></td>'
            f'<td>{html.escape(c.get("verdict") or "")}</td>'
            f'<td>{html.escape(_fmt(c.get("value")))} {html.escape(c.get("threshold") or "")}</td>'
            f'<td>{html.escape(r["verdict"] + " over " + str(r.get("seeds")) + " seeds") if r else "not recorded"}'
            f'</td><td>{html.escape(_fmt(interval[0]) + " to " + _fmt(interval[1])) if interval else ""}</td>'
            f'<td>{"differs" if c.get("differs") else ""}</td></tr>')
    table = ('<table class="lupikit-claims"><tr><th>claim</th><th>verdict of this run</th><th>value</th>'
             '<th>recorded (paper preset)</th><th>its 95 % interval</th><th></th></tr>' + "".join(rows)
             + "</table>") if rows else "<p>The run recorded no claim.</p>"
    files = " · ".join(f'<a href="{html.escape(status[k])}">{label}</a>' for k, label in
                       (("notebook_file", "the executed notebook (.ipynb)"),) if status.get(k))
    error = f"<p>It stopped: <code>{html.escape(status['error'])}</code></p>" if status.get("error") else ""
    return (f'<div class="lupikit-run-banner admonition note" id="lupikit-run-banner">'
            f'<p class="admonition-title">A run of this notebook, not the book\'s</p>'
            f"<p>Parameters: <code>{html.escape(values)}</code>. {html.escape(status.get('state', '').capitalize())}"
            f" in {_fmt(status.get('elapsed'))} s, started {html.escape(status.get('created') or '')}.</p>{error}"
            f"<p>To run it again: <code>{html.escape(status.get('command') or '')}</code></p>"
            f'<p>{files} · <a href="/runs">all runs</a></p>{table}</div>')


def run_page(book_page, executed, status, *, page_url):
    """The book's page of a notebook with a run's outputs in place and its banner on top.

    Parameters
    ----------
    book_page : str
        The built book's HTML page of the notebook.
    executed : path
        The run's executed notebook.
    status : dict
        The run's state (:meth:`lupikit._book.pageruns.RunQueue.status`), with its claims.
    page_url : str
        The book page's address on the server (``/notebooks/<part>/<name>.html``):
        its relative links are made absolute from there.

    Returns
    -------
    str
        The page's HTML.
    """
    soup = BeautifulSoup(book_page, "html.parser")
    _absolute(soup, page_url)
    markdown = MarkdownIt("commonmark").enable("table")
    nb = nbformat.read(str(executed), as_version=4)
    run_cells = [c for c in nb.cells if c.cell_type == "code"]
    injected = next((c for c in run_cells if "injected-parameters" in c.metadata.get("tags", [])), None)
    article = soup.select_one("article.bd-article") or soup.body
    unmatched, start = 0, 0
    for div in article.select("div.cell"):
        pre = div.select_one("div.cell_input pre")
        if pre is None:
            continue
        code = _norm(pre.get_text())
        found = next((i for i in range(start, len(run_cells)) if _norm(run_cells[i].source) == code), None)
        old = div.select_one("div.cell_output")
        if found is None:
            unmatched += 1
            if old is not None:
                old["class"] = old.get("class", []) + ["lupikit-not-this-run"]
                old.insert(0, BeautifulSoup('<p class="lupikit-note">(the book\'s output: this cell is not '
                                            "in the run's notebook)</p>", "html.parser"))
            continue
        start = found + 1
        cell = run_cells[found]
        outputs = "".join(_output_html(o, markdown) for o in cell.outputs)
        new = BeautifulSoup(f'<div class="cell_output docutils container lupikit-run-output">{outputs}</div>',
                            "html.parser")
        if old is not None:
            old.replace_with(new)
        elif outputs:
            div.append(new)
        if injected is not None and "parameters" in cell.metadata.get("tags", []):
            div.insert_after(BeautifulSoup(
                '<div class="cell tag_injected-parameters docutils container"><div class="cell_input docutils '
                'container"><div class="highlight-ipython3 notranslate"><div class="highlight"><pre>'
                f"{html.escape(injected.source)}</pre></div></div></div></div>", "html.parser"))
    status = {**status, "unmatched": unmatched}
    article.insert(0, BeautifulSoup(banner_html(status) + (
        f'<p class="lupikit-note">{unmatched} cell(s) of this page are not in the run\'s notebook (the book '
        "was built from another version of it): they keep the book's outputs, marked.</p>" if unmatched else ""),
        "html.parser"))
    for script in soup.find_all("script"):
        if script.string and "window.MathJax" in script.string:
            script.string = _MATHJAX
    if soup.title is not None:
        soup.title.string = f"A run: {soup.title.get_text()}"
    head = soup.head or soup
    head.append(BeautifulSoup('<link rel="stylesheet" href="/_lupikit/panel.css">'
                              f'<meta name="lupikit-run" content="{html.escape(str(status.get("id")))}">',
                              "html.parser"))
    return str(soup)


def themed_page(shell, title, body, *, page_url="/index.html"):
    """A page of the server's own (the Runs page) in the book's theme: ``shell``'s article replaced by ``body``.

    Parameters
    ----------
    shell : str
        A built page of the book (its navigation and style are kept).
    title : str
        The page's title.
    body : str
        The article's HTML.
    page_url : str
        ``shell``'s address on the server, from which its relative links are made absolute.
    """
    soup = BeautifulSoup(shell, "html.parser")
    _absolute(soup, page_url)
    article = soup.select_one("article.bd-article")
    if article is None:
        return f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title></head><body>{body}</body></html>"
    article.clear()
    article.append(BeautifulSoup(f'<section id="lupikit-served"><h1>{html.escape(title)}</h1>{body}</section>',
                                 "html.parser"))
    # the contents, the previous/next links and the downloads of the shell's page are not this page's
    for toc in soup.select(".bd-sidebar-secondary, .bd-toc, .prev-next-area, .dropdown-download-buttons"):
        toc.decompose()
    for item in soup.select(".bd-sidebar-primary .current, .bd-sidebar-primary .active"):
        item["class"] = [c for c in item.get("class", []) if c not in ("current", "active")]
    if soup.title is not None:
        soup.title.string = title
    (soup.head or soup).append(BeautifulSoup('<link rel="stylesheet" href="/_lupikit/panel.css">', "html.parser"))
    return str(soup)
