"""The prose links the API where it names a class or function of lupikit (a Sphinx extension, private).

A code span of the prose (Markdown's backticks, in a page or a notebook's
Markdown cell) whose text is a public name of the library becomes a link to
that name's entry in the API reference:

- the full name, ``lupikit.twinsvm.PinballTwinSVC``;
- the name without ``lupikit.``, ``twinsvm.PinballTwinSVC``;
- the bare name, ``PinballTwinSVC``, when one public module holds it, or
  when several do and one of them is of the page's own part; a bare name
  that reads as a word (lower case, without ``_``: ``deo``, ``fingerprint``)
  is left as it is, since prose names fields and commands that way too;
- any of these called, ``PinballTwinSVC(kernel="rbf")``;
- a public module by its full name, ``lupikit.twinsvm.experiments``.

A public name is a class, exception or function that the API reference
documents in a public module, or such a module (no part of its dotted path
starts with ``_``): the Python domain's entries, so a name links only where
its entry exists. Code cells and their outputs, code blocks, titles, and
code spans that already link are left alone.

The links are made after every page has been read (a post-transform), when
the API pages' entries are known. Listed in ``_config.yml`` under
``sphinx.extra_extensions``. This module imports no part of the library.
"""

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.nodes import make_refnode

from .sphinx_numbering import PARTS

__all__ = ["ApiLinks", "public_names", "resolve", "setup"]

#: the kinds of documented objects a code span may name
KINDS = ("class", "exception", "function")

_NAME = re.compile(r"^((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?:\(.*\))?$", re.S)

#: where a code span is not prose, or already links
_SKIP = (nodes.reference, addnodes.pending_xref, nodes.title, nodes.literal_block, addnodes.desc_signature,
         nodes.raw, nodes.FixedTextElement)


def public_names(objects, modules):
    """``{full name: (page, anchor, kind)}`` of the public classes, exceptions, functions and modules.

    ``objects`` and ``modules`` are the Python domain's: name to an entry with
    ``docname``, ``node_id`` and (objects) ``objtype``.

    Examples
    --------
    >>> from types import SimpleNamespace as Entry
    >>> objects = {"lupikit.twinsvm.TwinSVC": Entry(docname="api/t", node_id="a", objtype="class"),
    ...            "lupikit.twinsvm.TwinSVC.fit": Entry(docname="api/t", node_id="b", objtype="method"),
    ...            "lupikit._book.errors.BookError": Entry(docname="api/c", node_id="c", objtype="exception")}
    >>> modules = {"lupikit.twinsvm": Entry(docname="api/t", node_id="module-lupikit.twinsvm"),
    ...            "lupikit._book.errors": Entry(docname="api/c", node_id="module-lupikit._book.errors")}
    >>> public_names(objects, modules)  # doctest: +NORMALIZE_WHITESPACE
    {'lupikit.twinsvm': ('api/t', 'module-lupikit.twinsvm', 'module'),
     'lupikit.twinsvm.TwinSVC': ('api/t', 'a', 'class')}
    """
    def public(name):
        return not any(p.startswith("_") for p in name.split("."))

    found = {name: (entry.docname, entry.node_id, "module") for name, entry in modules.items() if public(name)}
    for name, entry in objects.items():
        if entry.objtype in KINDS and name.rpartition(".")[0] in found and public(name):
            found[name] = (entry.docname, entry.node_id, entry.objtype)
    return found


def resolve(text, names, part=None):
    """The full public name a code span's text names, or None.

    ``names``: :func:`public_names` (or any mapping of the full names to
    entries whose last item is the kind); ``part``: the page's part folder
    (``"twinsvm"``), which decides between modules that hold the same bare name.

    Examples
    --------
    >>> names = dict.fromkeys(["lupikit.twinsvm.TwinSVC", "lupikit.twinsvm.uci.load_uci", "lupikit.metrics.deo",
    ...                        "lupikit.boosting.experiments.split_draws", "lupikit.twinsvm.selection.split_draws"],
    ...                       ("page", "anchor", "function"))
    >>> names["lupikit.twinsvm"] = ("page", "anchor", "module")
    >>> resolve("TwinSVC", names), resolve("twinsvm.TwinSVC", names), resolve('TwinSVC(kernel="rbf")', names)
    ('lupikit.twinsvm.TwinSVC', 'lupikit.twinsvm.TwinSVC', 'lupikit.twinsvm.TwinSVC')
    >>> resolve("split_draws", names), resolve("split_draws", names, part="twinsvm")
    (None, 'lupikit.twinsvm.selection.split_draws')
    >>> resolve("lupikit.twinsvm", names), resolve("twinsvm", names)
    ('lupikit.twinsvm', None)
    >>> resolve("deo", names), resolve("metrics.deo", names)
    (None, 'lupikit.metrics.deo')
    >>> resolve("fit", names), resolve("x = TwinSVC()", names), resolve("twinsvm/uci", names)
    (None, None, None)
    """
    match = _NAME.match(text.strip())
    if match is None:
        return None
    name = match.group(1)
    if name in names:
        return name
    if "." in name:
        return f"lupikit.{name}" if f"lupikit.{name}" in names else None
    if name.islower() and "_" not in name:
        return None  # (a word)
    candidates = [n for n, entry in names.items() if n.rpartition(".")[2] == name and entry[-1] != "module"]
    if len(candidates) > 1 and part is not None:
        candidates = [n for n in candidates if n.startswith(f"lupikit.{part}.")]
    return candidates[0] if len(candidates) == 1 else None


def _part(docname):
    """The part folder of a page (``notebooks/twinsvm/uci``: ``twinsvm``), or None."""
    folders = docname.split("/")
    return folders[1] if len(folders) > 2 and folders[1] in PARTS else None


class ApiLinks(SphinxPostTransform):
    """Turn the code spans of the prose that name a public name into links to its API entry."""

    # before Sphinx resolves the pages' own references (priority 10)
    default_priority = 5

    def run(self, **kwargs):
        domain = self.env.get_domain("py")
        names = public_names(domain.objects, domain.modules)
        if not names:
            return
        docname = self.env.docname
        for literal in list(self.document.findall(nodes.literal)):
            if "xref" in literal["classes"] or _inside(literal, _SKIP):
                continue
            full = resolve(literal.astext(), names, _part(docname))
            if full is None:
                continue
            todoc, anchor, _ = names[full]
            if todoc == docname and _inside_entry(literal, anchor):
                continue  # (an entry's own docstring naming it)
            copy = literal.deepcopy()
            copy["classes"] += ["xref", "py", "lupikit-api-link"]
            literal.replace_self(make_refnode(self.app.builder, docname, todoc, anchor, copy, title=full))


def _inside(node, kinds):
    parent = node.parent
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        parent = parent.parent
    return False


def _inside_entry(node, anchor):
    parent = node.parent
    while parent is not None:
        if isinstance(parent, addnodes.desc):
            return any(anchor in sig.get("ids", []) for sig in parent.findall(addnodes.desc_signature))
        parent = parent.parent
    return False


def setup(app):
    app.add_post_transform(ApiLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
