r"""Text for the book's generated Markdown pages: values, table cells, anchors (private).

Examples
--------
>>> fmt(0.123456), fmt(None), fmt(True)
('0.1235', '–', 'yes')
>>> brief("word " * 30, 20)
'word word word word…'
>>> print(inline("1. first"))
1\. first
"""

import re

from mdit_py_plugins.anchors.index import slugify

from ..claims import _fmt

__all__ = ["BRIEF", "anchor", "brief", "table_cell", "fmt", "inline", "one_line"]

#: characters of a reason or of the paper's words in the compact tables
BRIEF = 60


def fmt(value):
    """A recorded value as the pages show it: ``–`` for None, yes/no, else as a claim's line shows it."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return _fmt(value)


def table_cell(text):
    """Text for a cell of a pipe table: no ``|``, one line."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def anchor(section):
    """``#slug`` of a notebook's section heading as MyST makes it, or ``""`` where it cannot be predicted."""
    if not section or any(ch in section for ch in "$`{*_['’") or section != section.strip():
        return ""
    return "#" + slugify(section)


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

