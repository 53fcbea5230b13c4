r"""Text for the book's generated Markdown pages: values, table cells, anchors (private).

Examples
--------
>>> fmt(0.123456), fmt(None), fmt(True)
('0.1235', '–', 'yes')
>>> brief("word " * 30, 20)
'word word word word…'
>>> anchor("The $\\alpha$ trade-off"), anchor("The paper's counts")
('#the--trade-off', '#the-papers-counts')
>>> print(inline("1. first"))
1\. first
"""

import functools
import re

from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.mdit_to_docutils.base import default_slugify
from myst_parser.parsers.mdit import create_md_parser

from ..claims import format_value

__all__ = ["BRIEF", "anchor", "brief", "table_cell", "fmt", "inline", "one_line"]

#: characters of a reason or of the paper's words in the compact tables
BRIEF = 60


def fmt(value):
    """A recorded value as the pages show it: ``–`` for None, yes/no, else as a claim's line shows it."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return format_value(value)


def table_cell(text):
    """Text for a cell of a pipe table: no ``|``, one line."""
    return str(text).replace("|", "\\|").replace("\n", " ")


@functools.lru_cache(maxsize=1)
def _heading_parser():
    # the book's inline syntax that changes a heading's text: math ($...$) is not part of a slug
    config = MdParserConfig(enable_extensions={"dollarmath", "amsmath"}, heading_anchors=3)
    return create_md_parser(config, RendererHTML)


def anchor(section):
    """``#slug`` of a notebook's section heading, as MyST's ``heading_anchors`` makes it.

    The slug of the heading's text and inline code (math and markup left
    out), by MyST's own parser and slug function, so that a link
    ``notebook.ipynb#slug`` resolves. (A second heading with the same text
    gets ``-1``; this is the first one's.) ``""`` for an empty section.
    """
    if not section or not section.strip():
        return ""
    tokens = _heading_parser().parse("# " + one_line(section))
    inline = next(t for t in tokens if t.type == "inline")
    title = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
    return "#" + default_slugify(title)


def brief(text, limit=BRIEF):
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters."""
    text = one_line(text)
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    if text[limit - 1] != " ":
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(",;:.(- ") + "…"


def inline(text):
    """Text for one cell of a list-table: one line that cannot start a Markdown block."""
    text = one_line(text)
    m = re.match(r"^(\d+)([.)])(\s|$)", text)
    if m:
        return m.group(1) + "\\" + text[len(m.group(1)):]
    if text[:1] and text[0] in "#>*+-=|:" and not text.startswith("**"):
        return "\\" + text
    return text


def one_line(text):
    """``text`` with its white space folded to single spaces."""
    return " ".join(str(text).split())

