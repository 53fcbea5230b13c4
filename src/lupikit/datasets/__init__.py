"""Data generators and vendored real datasets used by the book.

Everything here works offline: real data sets are shipped compressed in
``lupikit/datasets/data/`` (see ``data/README.md`` for sources and licences).
"""

from ._fairness import load_adult, load_adult_donini, load_compas, load_german
from ._ordinal import (
    bin_target,
    load_anes96,
    load_binned_regression,
    load_fair,
    make_lupi_ordinal,
    make_ordinal_relevance,
)
from ._synthetic import make_lupi_classification
from ._uci import load_breast_cancer_wisconsin, load_glass, load_haberman, load_mnist_5_8

__all__ = [
    "make_lupi_classification",
    "load_adult",
    "load_adult_donini",
    "load_compas",
    "load_german",
    "load_breast_cancer_wisconsin",
    "load_haberman",
    "load_glass",
    "load_mnist_5_8",
    "make_ordinal_relevance",
    "make_lupi_ordinal",
    "bin_target",
    "load_anes96",
    "load_fair",
    "load_binned_regression",
]
