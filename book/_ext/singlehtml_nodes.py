"""Give the single-page HTML builder the HTML visitors of every extension node.

sphinx-proof registers its nodes (propositions, proofs, definitions) for the
``html`` builder only, so ``jupyter-book build --builder singlehtml`` (which
``python -m lupikit._book pdf`` prints to PDF) stops at the first proposition.
The single-page builder is an HTML builder, so the same visitors are right.

Sphinx also decides per page whether to load MathJax, from the page's own
equations; the single page's root document has none of its own, so MathJax
would be left out of the PDF. The single-page build therefore always loads it.
"""


def _copy_html_handlers(app):
    if app.builder.name != "singlehtml":
        return
    app.set_html_assets_policy("always")
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node, visitors in handlers.get("html", {}).items():
        single.setdefault(node, visitors)


def setup(app):
    app.connect("builder-inited", _copy_html_handlers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
