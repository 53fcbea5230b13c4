"""What each page offers to download: the notebook as written and as executed, the book's PDF at that page.

A Sphinx extension (private) that extends the download menu of
sphinx-book-theme (``html: use_download_button: true``), which offers the
page's source and the browser's printing of the page:

- on a notebook page, the **executed notebook** (with the outputs the page
  shows), written beside the page (``notebooks/twinsvm/uci.html`` gets
  ``notebooks/twinsvm/uci.ipynb``); its source, without outputs, stays the
  theme's ``_sources`` copy. With myst-nb's ``cache`` execution the
  notebook is the source merged with its execution in the jupyter-cache, as
  myst-nb renders it (myst-nb's own copy in ``_build/jupyter_execute`` is
  then the source without outputs); otherwise it is myst-nb's copy;
- on every page, **the book's PDF at this page** (``make book`` prints it
  before the HTML when Chromium is here), when the build finds it (``_build/pdf/lupikit.pdf`` beside the HTML output): it is
  copied to ``lupikit.pdf`` at the top of the HTML book, and the link opens
  it at the page's named destination, ``#nameddest=document-<page>``
  (Chromium's print of the single-page book names each page's anchor
  ``document-<page>``; the first page opens it at ``#page=1``).

Everything is a file of the static book: no server, no script. The hidden
tests of the exercise notebooks are taken out of the copies by
:mod:`lupikit._book.sphinx_editions`, after this extension has written them
(at the end of the build). Listed in ``_config.yml`` under
``sphinx.extra_extensions``. This module imports no part of the library.
"""

import shutil
from pathlib import Path

import nbformat

__all__ = ["PDF_NAME", "book_pdf", "executed_notebook", "pdf_destination", "setup"]

#: the book's PDF, as ``make book`` writes it and as the HTML book holds it
PDF_NAME = "lupikit.pdf"


def book_pdf(outdir):
    """The PDF of the book beside an HTML output folder (``_build/pdf/lupikit.pdf``), or None."""
    pdf = Path(outdir).parent / "pdf" / PDF_NAME
    return pdf if pdf.is_file() else None


def pdf_destination(pagename, root_doc):
    """The fragment of the PDF's address that opens it at a page: its named destination.

    The book's first page (``root_doc``) opens the PDF at its first sheet:
    the single page is that page, with no anchor of its own.

    Examples
    --------
    >>> pdf_destination("notebooks/twinsvm/uci", "book/index"), pdf_destination("book/index", "book/index")
    ('nameddest=document-notebooks/twinsvm/uci', 'page=1')
    """
    return "page=1" if pagename == root_doc else f"nameddest=document-{pagename}"


def _offer_pdf(app, config):
    """Whether this build links the book's PDF (a configuration value: a change rewrites every page)."""
    config.lupikit_book_pdf = book_pdf(app.outdir) is not None


def _is_notebook(app, pagename):
    return pagename in app.env.all_docs and str(app.env.doc2path(pagename)).endswith(".ipynb")


def _download_menu(context):
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            return button["buttons"]
    return None


def _add_downloads(app, pagename, templatename, context, doctree):
    menu = _download_menu(context)
    if menu is None or doctree is None:
        return
    pathto = context["pathto"]
    for button in menu:  # (the theme's: the source file, and printing the page)
        if button.get("label") == "download-source-button":
            button["tooltip"] = "Download the page's source"
            if _is_notebook(app, pagename):
                button["text"] = ".ipynb (source)"
                button["tooltip"] = "Download the notebook as written, without outputs"
        elif button.get("label") == "download-pdf-button":
            button["text"] = "print this page"
    extra = []
    if _is_notebook(app, pagename):
        extra.append({"type": "link", "url": pathto(f"{pagename}.ipynb", 1), "text": ".ipynb (executed)",
                      "tooltip": "Download the notebook as executed for this page, with its outputs",
                      "icon": "fas fa-code", "label": "download-executed-notebook-button"})
    if app.config.lupikit_book_pdf:
        destination = pdf_destination(pagename, app.config.root_doc)
        extra.append({"type": "link", "url": f"{pathto(PDF_NAME, 1)}#{destination}",
                      "text": "the book's PDF", "tooltip": "The whole book as one PDF, opened at this page",
                      "icon": "fas fa-file-pdf", "label": "download-book-pdf-button"})
    labels = [button.get("label") for button in menu]
    after = labels.index("download-source-button") + 1 if "download-source-button" in labels else 0
    menu[after:after] = extra


def executed_notebook(app, docname):
    """The executed notebook of a notebook page, as the page shows it (a notebook node), or None."""
    config = app.env.mystnb_config
    if config.execution_mode == "cache":
        from jupyter_cache import get_cache

        cache = Path(app.srcdir, config.execution_cache_path)  # (an absolute path stays as it is)
        source = nbformat.read(str(app.env.doc2path(docname)), as_version=4)
        try:
            return get_cache(str(cache)).merge_match_into_notebook(source)[1]
        except KeyError:  # not in the cache: myst-nb executed it in place, and wrote it
            pass
    written = Path(config.output_folder, f"{docname}.ipynb")
    return nbformat.read(str(written), as_version=4) if written.is_file() else None


def _copy_downloads(app, exception):
    """The executed notebooks beside their pages, and the book's PDF at the top."""
    if exception is not None or app.builder.name != "html":
        return
    for docname in sorted(app.env.found_docs):
        notebook = executed_notebook(app, docname) if _is_notebook(app, docname) else None
        if notebook is not None:
            target = Path(app.outdir, f"{docname}.ipynb")
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook, str(target))
    pdf = book_pdf(app.outdir)
    if app.config.lupikit_book_pdf and pdf is not None:
        shutil.copyfile(pdf, Path(app.outdir, PDF_NAME))


def setup(app):
    app.add_config_value("lupikit_book_pdf", False, "html")
    app.connect("config-inited", _offer_pdf)
    # after sphinx-book-theme has made its buttons (priority 501)
    app.connect("html-page-context", _add_downloads, priority=600)
    # before sphinx_editions takes the hidden tests out of every published notebook (priority 500)
    app.connect("build-finished", _copy_downloads, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
