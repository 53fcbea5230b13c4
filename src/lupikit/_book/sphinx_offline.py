"""The static book asks no other host for anything: sphinx-thebe's assets are left out (a Sphinx extension, private).

jupyter-book 1.x always loads ``sphinx_thebe``, which adds to every page a
script naming thebe's bundle on a CDN (``const THEBE_JS_URL =
"https://unpkg.com/..."``), its loader ``sphinx-thebe.js`` and its style
sheet, whether or not thebe is used. The book does not use it (``_config.yml``:
``launch_buttons: thebe: false``; it has no server to run code on), so this
extension drops those three assets from each page's context before the page
is written. With thebe turned on they are kept. Listed in ``_config.yml``
under ``sphinx.extra_extensions``.

This module imports no part of the library.
"""

import posixpath

__all__ = ["is_thebe_asset", "setup"]


def is_thebe_asset(asset):
    """Whether a page's script or style sheet is sphinx-thebe's.

    ``asset`` is one of Sphinx's page assets (its ``filename`` and
    ``attributes``; the inline script has no file name and its code in the
    ``body`` attribute) or, in old-style themes, a file name.

    Examples
    --------
    >>> from types import SimpleNamespace as Asset
    >>> is_thebe_asset(Asset(filename="_static/sphinx-thebe.js", attributes={}))
    True
    >>> is_thebe_asset(Asset(filename=None, attributes={"body": 'const THEBE_JS_URL = "https://x"'}))
    True
    >>> is_thebe_asset(Asset(filename="_static/mathjax/tex-chtml-full.js", attributes={}))
    False
    """
    filename = str(getattr(asset, "filename", asset) or "")
    body = str((getattr(asset, "attributes", None) or {}).get("body", ""))
    return posixpath.basename(filename).startswith("sphinx-thebe.") or "THEBE_JS_URL" in body


def _thebe_on(config):
    return bool((config.html_theme_options or {}).get("launch_buttons", {}).get("thebe"))


def _drop_thebe(app, pagename, templatename, context, doctree):
    if _thebe_on(app.config):
        return
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [asset for asset in context[key] if not is_thebe_asset(asset)]


def setup(app):
    app.connect("html-page-context", _drop_thebe)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
