"""Data generators and vendored real datasets used by the book.

Everything here works offline: real data sets are shipped compressed in
``lupikit/datasets/data/`` (see ``data/README.md`` for sources and licences).
"""

from ._fairness import load_adult, load_compas, load_german
from ._synthetic import make_lupi_classification

__all__ = [
    "make_lupi_classification",
    "load_adult",
    "load_compas",
    "load_german",
]
