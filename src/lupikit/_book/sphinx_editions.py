"""The public book does not publish the exercises' hidden tests (a Sphinx extension, private).

The exercise notebooks are the instructor edition's source: a check cell
holds public checks and, between ``### BEGIN HIDDEN TESTS`` and
``### END HIDDEN TESTS``, the hidden tests that grade a class. The public
book runs them (its build checks that every solution passes) but shows, in
place of each hidden region, one comment saying where it is
(:func:`lupikit.classroom.hide_hidden_tests`), in its pages and in the
notebooks its download menu offers (the sources in ``_sources``, the executed
notebooks beside their pages); the student edition
(``lupikit classroom``) drops it altogether. Listed in ``_config.yml`` under
``sphinx.extra_extensions``.
"""

import json
from pathlib import Path

from docutils import nodes

from ..classroom import hide_hidden_tests

__all__ = ["setup"]


def _strip(app, doctree):
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        shown = hide_hidden_tests(text)
        if shown != text:
            block.replace_self(nodes.literal_block(shown, shown, **block.attributes))


def _strip_sources(app, exception):
    """Every published copy of the notebooks (``**/*.ipynb`` in the output) without the hidden tests."""
    if exception is not None:
        return
    for path in Path(app.outdir).rglob("*.ipynb"):
        text = path.read_text(encoding="utf-8")
        if "### BEGIN HIDDEN TESTS" not in text:
            continue
        nb = json.loads(text)
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "code":
                source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                cell["source"] = hide_hidden_tests(source)
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def setup(app):
    app.connect("doctree-read", _strip)
    app.connect("build-finished", _strip_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
