"""What the Data page of the book says about one data set: :class:`DatasetInfo`.

Every loader module lists the data sets it loads in a module-level
``CATALOG`` (a list of :class:`DatasetInfo`); :func:`lupikit.datasets.catalog`
gathers them, with the data sets the papers use that we cannot have, into the
table of the book's Data page. This module imports nothing of the package, so
that every loader module can import it; :func:`check_flag` is the loaders'
shared check of their True/False arguments.
"""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["DatasetInfo", "PARTS", "check_flag"]

#: The parts of the book, by the name of their subpackage.
PARTS = ("boosting", "twinsvm", "relevance", "oblivious")


@dataclass(frozen=True)
class DatasetInfo:
    """One data set of the papers, for the Data page.

    Attributes
    ----------
    name : str
        The data set's name as the paper gives it.
    parts : tuple of str
        The parts (``PARTS``) whose paper uses it.
    loader : str or None
        The name of its loader in :mod:`lupikit.datasets`; None if we lack it.
    source : str
        Where our copy comes from ("vendored: ..." or "data home: ...").
    licence : str
        The licence under which the data may be used and shared.
    preprocessing : str
        Every step between the source file and what the loader returns.
    kwargs : dict
        Arguments of ``loader`` for the row of the table (e.g. a subject).
    files : tuple of str
        The registered data-home files it reads (empty if vendored).
    paper_shape : str or None
        The size the paper gives, as the paper gives it (e.g. "327 x 7").
    roles : str
        The sensitive attributes or privileged features a paper uses, and why.
    missing : str or None
        Why we lack it (then ``loader`` is None).
    """

    name: str
    parts: tuple
    loader: str | None
    source: str
    licence: str
    preprocessing: str = ""
    kwargs: dict = field(default_factory=dict)
    files: tuple = ()
    paper_shape: str | None = None
    roles: str = ""
    missing: str | None = None


def check_flag(value, name):
    """Raise a TypeError naming ``name`` unless ``value`` is a bool (the loaders' flags)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
