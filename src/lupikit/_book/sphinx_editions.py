"""The public book does not publish the exercises' hidden tests (a Sphinx extension, private).

The exercise notebooks are the instructor edition's source: a check cell
holds public checks and, between ``### BEGIN HIDDEN TESTS`` and
``### END HIDDEN TESTS``, the hidden tests that grade a class. The public
book runs them (its build checks that every solution passes) but shows, in
place of each hidden region, one comment saying where it is; the student
edition (``lupikit classroom``) drops it altogether. Listed in
``_config.yml`` under ``sphinx.extra_extensions``.

This module imports no part of the library.

Examples
--------
>>> print(hide_hidden_tests("check(x)\\n### BEGIN HIDDEN TESTS\\nassert x == 3\\n### END HIDDEN TESTS"))
check(x)
# (hidden tests: in the instructor edition only)
"""

import re

from docutils import nodes

__all__ = ["HIDDEN_NOTE", "hide_hidden_tests", "setup"]

#: What a reader of the public book sees in place of the hidden tests.
HIDDEN_NOTE = "(hidden tests: in the instructor edition only)"

_REGION = re.compile(r"^([ \t]*)### BEGIN HIDDEN TESTS[ \t]*\n.*?^[ \t]*### END HIDDEN TESTS[ \t]*$", re.M | re.S)


def hide_hidden_tests(source):
    """``source`` with each hidden-test region replaced by one comment at its indentation."""
    return _REGION.sub(lambda m: f"{m.group(1)}# {HIDDEN_NOTE}", source)


def _strip(app, doctree):
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        if "### BEGIN HIDDEN TESTS" not in text:
            continue
        shown = hide_hidden_tests(text)
        new = nodes.literal_block(shown, shown, **block.attributes)
        block.replace_self(new)


def setup(app):
    app.connect("doctree-read", _strip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
