"""Notebook figures that a reader can cite: one caption per image, numbered (a Sphinx extension, private).

A notebook cell gives its figure a caption and an alt text in its metadata
(``mystnb.figure.caption``, ``mystnb.image.alt``). myst-nb wraps *every*
rich output of such a cell in a figure with that caption, the cell's claim
lines and tables included. This extension, run when a page has been read,
keeps the figure only around outputs that hold an image, gives each such
figure a target ``fig-<page>-<k>`` (numbered in page order, so Sphinx
numbers it and ``{numref}`` can cite it) and unwraps the others: their
content stays, without a caption. A name cannot be given in the metadata,
since myst-nb would attach it to every output of the cell, a duplicate
target. Listed in ``_config.yml`` under ``sphinx.extra_extensions``.

This module imports no part of the library.
"""

import re

from docutils import nodes

__all__ = ["figure_target", "setup"]


def figure_target(docname, k):
    """The target of the ``k``-th figure (from 1) of the page ``docname``.

    Examples
    --------
    >>> figure_target("notebooks/twinsvm/uci", 1)
    'fig-twinsvm-uci-1'
    """
    page = re.sub(r"^notebooks/", "", docname)
    return "fig-" + re.sub(r"[^a-z0-9]+", "-", page.lower()).strip("-") + f"-{k}"


def _holds_image(figure):
    for node in figure.findall(nodes.Element):
        if isinstance(node, nodes.image):
            return True
        if str(node.get("mime_type", "")).startswith("image/"):
            return True
    return False


def _number_figures(app, doctree):
    docname = app.env.docname
    if not docname.startswith("notebooks/"):
        return
    k = 0
    for figure in list(doctree.findall(nodes.figure)):
        if not any(isinstance(c, nodes.container) and c.get("nb_element") == "mime_bundle" for c in figure.children):
            continue  # not one of myst-nb's output figures
        if not _holds_image(figure):
            figure.replace_self([c for c in figure.children if not isinstance(c, (nodes.caption, nodes.legend))])
            continue
        if figure["names"]:
            continue
        k += 1
        name = figure_target(docname, k)
        figure["names"].append(name)
        doctree.note_explicit_target(figure, figure)


def setup(app):
    app.connect("doctree-read", _number_figures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
