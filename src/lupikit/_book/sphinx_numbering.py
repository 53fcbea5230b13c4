"""Numbers that restart with each part: Proposition IV.3, Exercise II.1, Figure III.5 (a Sphinx extension, private).

Sphinx numbers every enumerable node (figures, tables, code blocks and the
propositions, lemmas, definitions and exercises of ``sphinx-proof`` and
``sphinx-exercise``) in one sequence over the whole book, so that a reader
of Part IV meets "Proposition 15" after fourteen others in parts she has not
read. Once Sphinx has numbered them (``env-get-updated``), this extension
renumbers each kind within its part, in book order, and prefixes the part's
numeral: the numbers of titles, of ``{prf:ref}``, ``{ref}`` and ``{numref}``
references and of the PDF all come from the same table, so they agree.
Pages outside the four parts (the introduction, the scorecard) keep one
plain sequence of their own. Listed in ``_config.yml`` under
``sphinx.extra_extensions``.

This module imports no part of the library.
"""

__all__ = ["PARTS", "part_of", "renumber", "setup"]

#: the book's parts, by the folder of their pages, and their numerals
PARTS = {"boosting": "I", "twinsvm": "II", "relevance": "III", "oblivious": "IV"}


def part_of(docname):
    """The numeral of the part a page belongs to, or None.

    Examples
    --------
    >>> part_of("book/oblivious/theory"), part_of("notebooks/twinsvm/duals_kkt"), part_of("book/intro/setting")
    ('IV', 'II', None)
    """
    folders = docname.split("/")
    return PARTS.get(folders[1]) if len(folders) > 2 else None


def renumber(toc_fignumbers):
    """Sphinx's table of numbers, renumbered per part (a new dict).

    ``toc_fignumbers`` maps a page to its kinds (``"proposition"``,
    ``"figure"``, ...) and each kind to ``{node id: number tuple}``; pages
    come in book order and the numbers within a page in page order.

    Examples
    --------
    >>> renumber({"book/boosting/theory": {"proposition": {"a": (1,), "b": (2,)}},
    ...           "book/oblivious/theory": {"proposition": {"c": (3,)}, "lemma": {"d": (1,)}},
    ...           "book/intro/setting": {"figure": {"e": (1,)}}})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'book/boosting/theory': {'proposition': {'a': ('I', 1), 'b': ('I', 2)}},
     'book/oblivious/theory': {'proposition': {'c': ('IV', 1)}, 'lemma': {'d': ('IV', 1)}},
     'book/intro/setting': {'figure': {'e': (1,)}}}
    """
    counters = {}
    out = {}
    for docname, kinds in toc_fignumbers.items():
        part = part_of(docname)
        out[docname] = {}
        for kind, numbers in kinds.items():
            count = counters.setdefault((part, kind), [0])
            new = {}
            for node_id, _ in sorted(numbers.items(), key=lambda item: tuple(item[1])):
                count[0] += 1
                new[node_id] = (count[0],) if part is None else (part, count[0])
            out[docname][kind] = new
    return out


def _renumber_env(app, env):
    old = env.toc_fignumbers
    env.toc_fignumbers = renumber(old)
    return [d for d, kinds in env.toc_fignumbers.items() if kinds != old.get(d)]


def setup(app):
    # after Sphinx's own numbering (the toctree collector, priority 500)
    app.connect("env-get-updated", _renumber_env, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
