"""The public book does not publish the exercises' hidden tests (a Sphinx extension, private).

The exercise notebooks are the instructor edition's source: a check cell
holds public checks and, between ``### BEGIN HIDDEN TESTS`` and
``### END HIDDEN TESTS``, the hidden tests that grade a class. The public
book runs them (its build checks that every solution passes) but shows, in
place of each hidden region, one comment saying where it is
(:func:`lupikit.classroom.hide_hidden_tests`); the student edition
(``lupikit classroom``) drops it altogether. Listed in ``_config.yml`` under
``sphinx.extra_extensions``.
"""

from docutils import nodes

from ..classroom import hide_hidden_tests

__all__ = ["setup"]


def _strip(app, doctree):
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        shown = hide_hidden_tests(text)
        if shown != text:
            block.replace_self(nodes.literal_block(shown, shown, **block.attributes))


def setup(app):
    app.connect("doctree-read", _strip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
