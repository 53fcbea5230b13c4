"""The static book's own extensions, each in a Sphinx build of a page or two (fast: no book build).

What every page of the built book must show is checked on the book itself in
``tests/test_book.py`` (marked ``book``); here each extension of
:mod:`lupikit._book` is built alone, with and without it, so that a check
that passes is seen to fail without the extension:

- ``sphinx_offline``: no page names sphinx-thebe's CDN;
- ``sphinx_footer``: every page names the repository and its commit, never
  a local path, and links an http(s) address without its credentials;
- ``sphinx_downloads``: a notebook page offers its executed notebook, written
  beside it, and the book's PDF at that page;
- ``sphinx_api_links``: a class named in the prose links its API entry;
- the API reference: a page per public module, none for a private one;
- the PDF: a bookmark per part and chapter (with Chromium, marked ``book``).
"""

import importlib
import json
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sphinx_build(src, out, extensions, conf="", pages=None):
    """Build ``src`` (its pages written from ``pages``: name to text) with ``extensions``; the output folder."""
    for name, text in (pages or {}).items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, encoding="utf-8")
    (src / "conf.py").write_text(f"extensions = {extensions!r}\nexclude_patterns = ['_build']\n" + conf)
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-E", "-b", "html", "-q", "-W", "--keep-going",
                           str(src), str(out)], capture_output=True, text=True, cwd=src)
    assert proc.returncode == 0, proc.stderr[-5000:]
    return out


# ---------------------------------------------------------------------------
# sphinx_offline: sphinx-thebe's CDN address is on no page
# ---------------------------------------------------------------------------


def test_no_page_names_thebes_cdn(tmp_path):
    pytest.importorskip("sphinx_thebe")
    pages = {"index.md": "# Page\n\nText.\n"}
    base = ["myst_parser", "sphinx_thebe"]
    html = (sphinx_build(tmp_path / "src", tmp_path / "with", base + ["lupikit._book.sphinx_offline"], pages=pages)
            / "index.html").read_text()
    assert "THEBE_JS_URL" not in html and "unpkg.com" not in html and "sphinx-thebe" not in html
    # without the extension, sphinx-thebe names its CDN on the page (so the check can fail)
    plain = (sphinx_build(tmp_path / "src", tmp_path / "without", base) / "index.html").read_text()
    assert "THEBE_JS_URL" in plain and "https://unpkg.com/" in plain


# ---------------------------------------------------------------------------
# sphinx_footer: the repository and its commit, never a local path
# ---------------------------------------------------------------------------


def _git(folder, *args):
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def checkout(tmp_path):
    """A git checkout with one page, committed, whose remote ``origin`` is a local path."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text("# Page\n\nText.\n")
    _git(src, "init", "-q")
    _git(src, "add", "index.md")
    _git(src, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "page")
    _git(src, "remote", "add", "origin", str(tmp_path / "upstream" / "lupikit.git"))
    return src


def _footer(html):
    match = re.search(r'<p class="lupikit-source">(.*?)</p>', html, re.S)
    assert match, "no footer naming the repository"
    return match.group(1)


def test_every_page_names_the_repository_and_its_commit_but_no_local_path(checkout, tmp_path):
    pytest.importorskip("sphinx_book_theme")
    commit = _git(checkout, "rev-parse", "--short", "HEAD")
    extensions = ["myst_parser", "lupikit._book.sphinx_footer"]
    theme = "html_theme = 'sphinx_book_theme'\n"
    html = (sphinx_build(checkout, tmp_path / "local", extensions, theme) / "index.html").read_text()
    footer = _footer(html)
    assert "lupikit" in footer and f"<code>{commit}</code>" in footer and "href" not in footer
    assert str(tmp_path) not in html  # (the remote is a path on this machine: not shown)
    # an http(s) remote is linked, without the credentials it holds
    _git(checkout, "remote", "set-url", "origin", "https://someone:s3cret@example.org/group/lupikit.git")
    html = (sphinx_build(checkout, tmp_path / "remote", extensions, theme) / "index.html").read_text()
    assert '<a href="https://example.org/group/lupikit">lupikit</a>' in _footer(html)
    assert "s3cret" not in html and "someone" not in html
    # the configured address comes first
    conf = theme + "html_theme_options = {'repository_url': 'https://github.com/example/lupikit'}\n"
    html = (sphinx_build(checkout, tmp_path / "configured", extensions, conf) / "index.html").read_text()
    assert 'href="https://github.com/example/lupikit"' in _footer(html)
    # without the extension there is no footer (so the check can fail)
    html = (sphinx_build(checkout, tmp_path / "without", ["myst_parser"], theme) / "index.html").read_text()
    assert 'class="lupikit-source"' not in html


# ---------------------------------------------------------------------------
# sphinx_downloads: the executed notebook beside its page, the PDF at the page
# ---------------------------------------------------------------------------


def test_a_notebook_page_offers_its_executed_notebook_and_the_pdf_at_that_page(tmp_path):
    """The book's notebooks come from a jupyter-cache, as in ``make book``: the copy has the cached outputs."""
    pytest.importorskip("myst_nb")
    pytest.importorskip("sphinx_book_theme")
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    src, build = tmp_path / "src", tmp_path / "_build"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A notebook\n\nText."),
                                         nbformat.v4.new_code_cell("print(6 * 7)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (src / "notebooks").mkdir(parents=True)
    nbformat.write(nb, src / "notebooks" / "a.ipynb")
    executed = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    executed.cells[1].execution_count = 1
    executed.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    get_cache(str(build / "cache")).cache_notebook_bundle(CacheBundleIn(executed, str(src / "notebooks" / "a.ipynb")))
    (build / "pdf").mkdir(parents=True)
    (build / "pdf" / "lupikit.pdf").write_bytes(b"%PDF-1.4 stand-in")
    pages = {"index.md": "# Book\n\n```{toctree}\nnotebooks/a\n```\n"}
    conf = ("html_theme = 'sphinx_book_theme'\nnb_execution_mode = 'cache'\n"
            f"nb_execution_cache_path = {str(build / 'cache')!r}\n")
    out = sphinx_build(src, build / "html", ["myst_nb", "lupikit._book.sphinx_downloads"], conf, pages)
    page = (out / "notebooks" / "a.html").read_text()
    assert "42" in page  # (the page shows the cached output)
    assert 'href="a.ipynb"' in page  # the executed notebook, beside the page
    copy = json.loads((out / "notebooks" / "a.ipynb").read_text())
    assert "".join(copy["cells"][1]["outputs"][0]["text"]) == "42\n"
    assert 'href="../_sources/notebooks/a.ipynb"' in page  # the source stays offered
    assert 'href="../lupikit.pdf#nameddest=document-notebooks/a"' in page
    assert (out / "lupikit.pdf").read_bytes() == b"%PDF-1.4 stand-in"
    # a page that is not a notebook offers the PDF but no executed notebook
    index = (out / "index.html").read_text()
    assert 'href="lupikit.pdf#page=1"' in index and "executed" not in index  # (the first page: the PDF's start)
    # without a PDF beside the build, no page links one
    (build / "pdf" / "lupikit.pdf").unlink()
    out = sphinx_build(src, tmp_path / "other" / "html", ["myst_nb", "lupikit._book.sphinx_downloads"], conf)
    assert "lupikit.pdf" not in (out / "notebooks" / "a.html").read_text()


# ---------------------------------------------------------------------------
# sphinx_api_links: the prose links the API where it names a class
# ---------------------------------------------------------------------------


API_PAGE = """# API

```{py:module} lupikit.fake
```

```{py:class} Estimator(alpha=1.0)

An estimator.
```

```{py:function} helper_function(x)

A helper; `Estimator` is named in its own entry's neighbour.
```
"""

PROSE_PAGE = """# Prose

Fit `Estimator`, `lupikit.fake.Estimator` or `Estimator(alpha=2)`, with `helper_function` in
`lupikit.fake`; `fit`, `Unknown` and `lupikit._private` are not public names.

```python
Estimator()  # code, not prose
```
"""


def test_a_page_that_names_a_class_in_its_prose_links_its_api_entry(tmp_path):
    pages = {"index.md": "# Book\n\n```{toctree}\napi\nprose\n```\n", "api.md": API_PAGE, "prose.md": PROSE_PAGE}
    out = sphinx_build(tmp_path / "src", tmp_path / "with", ["myst_parser", "lupikit._book.sphinx_api_links"],
                       pages=pages)
    html = (out / "prose.html").read_text()
    links = re.findall(r'<a class="reference internal" href="api.html#([^"]+)"[^>]*><code[^>]*>(.*?)</code></a>',
                       html, re.S)
    linked = {re.sub(r"<[^>]+>", "", text): target for target, text in links}
    assert linked == {"Estimator": "lupikit.fake.Estimator", "lupikit.fake.Estimator": "lupikit.fake.Estimator",
                      "Estimator(alpha=2)": "lupikit.fake.Estimator",
                      "helper_function": "lupikit.fake.helper_function", "lupikit.fake": "module-lupikit.fake"}
    assert html.count('href="api.html#') == len(links)  # (the code block links nothing)
    # without the extension the prose links nothing (so the check can fail)
    out = sphinx_build(tmp_path / "src", tmp_path / "without", ["myst_parser"])
    assert 'href="api.html#' not in (out / "prose.html").read_text()


# ---------------------------------------------------------------------------
# The API reference: a page per public module, none for a private one
# ---------------------------------------------------------------------------


def public_modules():
    """The library's public modules: no part of the name starts with ``_``, and the module has ``__all__``.

    The ``lupikit`` command's modules, one per subcommand, are described on the command's page.
    """
    import lupikit

    found = []
    for info in pkgutil.walk_packages(lupikit.__path__, "lupikit."):
        if any(part.startswith("_") for part in info.name.split(".")) or info.name.startswith("lupikit.cli."):
            continue
        if hasattr(importlib.import_module(info.name), "__all__"):
            found.append(info.name)
    return found


def documented_modules():
    """``{module: API page}`` of every ``automodule`` of the API pages."""
    found = {}
    for page in sorted((ROOT / "book" / "api").glob("*.md")):
        for name in re.findall(r"^\.\. automodule:: (\S+)", page.read_text(encoding="utf-8"), re.M):
            found.setdefault(name, page.relative_to(ROOT).as_posix())
    return found


def test_every_public_module_has_an_api_page_and_no_private_one_is_documented():
    documented = documented_modules()
    pages = {}
    for module in public_modules():
        assert module in documented, f"{module} has no API page (book/api/*.md)"
        pages.setdefault(documented[module], []).append(module)
    assert all(len(modules) == 1 for modules in pages.values()), f"one public module per page: {pages}"
    private = [m for m in documented if any(part.startswith("_") for part in m.split("."))]
    assert not private, f"private modules documented: {private}"
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert all(f"file: {page.removesuffix('.md')}\n" in toc for page in pages), "every API page is in _toc.yml"


# ---------------------------------------------------------------------------
# The PDF's bookmarks: a part's heading before its first chapter, and the outline
# ---------------------------------------------------------------------------


def pdf_outline(pdf):
    """The PDF's bookmarks as ``[(title, [children])]`` (poppler's ``pdftohtml -xml``)."""
    import xml.etree.ElementTree as ET

    xml = subprocess.run(["pdftohtml", "-xml", "-i", "-stdout", "-q", "-f", "1", "-l", "1", str(pdf)],
                         capture_output=True, text=True, check=True).stdout
    root = ET.fromstring(xml.split("?>", 1)[1].split("]>", 1)[-1] if "<!DOCTYPE" in xml else xml)
    outline = root.find("outline")

    def read(node):
        items, children = [], list(node)
        for i, child in enumerate(children):
            if child.tag == "item":
                nested = children[i + 1] if i + 1 < len(children) and children[i + 1].tag == "outline" else None
                items.append(((child.text or "").strip(), read(nested) if nested is not None else []))
        return items

    return [] if outline is None else read(outline)


@pytest.mark.book
def test_the_pdf_has_a_bookmark_per_part_and_chapter(tmp_path):
    """A page of two parts printed as the book is: each part a bookmark, its chapters below it, each
    bookmark with its heading's words (Chromium's own joins the lines of a wrapped heading)."""
    from lupikit._book.pdf import fix_outline_titles, print_page, with_part_headings

    if shutil.which("chromium") is None or shutil.which("pdftohtml") is None:
        pytest.skip("chromium and poppler-utils are needed (tools/ensure_system_packages.sh)")
    long = "Chapter A2, whose title is long enough to wrap over two lines of the printed page"
    chapters = [("a1", "Chapter A1"), ("a2", long), ("b1", r"Chapter B1: \(\alpha\) and \(X^*\)")]
    body = "".join(f'<span id="document-{p}"></span><section><h2>{t}</h2><p>Text.</p></section>'
                   for p, t in chapters)
    page = with_part_headings(f"<html><body><h1>The book</h1>{body}</body></html>",
                              [("Part A: first", "a1"), ("Part B: second", "b1")])
    page = page.replace("<body>", "<style>@page { size: A6; } h2 { font-size: 32px; }</style><body>")
    (tmp_path / "index.html").write_text(page)
    assert print_page(tmp_path, "index.html", tmp_path / "out.pdf", tmp_path / "profile", budget_ms=5000) == 0
    # (the check below can fail: Chromium's own title of the wrapped heading is not the heading)
    assert pdf_outline(tmp_path / "out.pdf")[1][1][1][0] != long
    assert fix_outline_titles(tmp_path / "out.pdf", page) >= 1
    assert pdf_outline(tmp_path / "out.pdf") == [
        ("The book", []),
        ("Part A: first", [("Chapter A1", []), (long, [])]),
        # (no math is typeset in this page: its TeX is text, and the bookmark gives it plain)
        ("Part B: second", [("Chapter B1: α and X*", [])]),
    ]
