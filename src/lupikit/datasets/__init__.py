"""Data generators, vendored real datasets and the task wrappers used by the book.

Everything here works offline: real data sets are shipped compressed in
``lupikit/datasets/data/`` (see ``data/README.md`` for sources and licences).
Beside the raw loaders, every data set an experiment of the book prepares in
its own way has its wrapper here (the parts hold estimators and protocols,
never data): the LUPI tasks of Part I (:func:`load_privileged_task`), the
Adult subsample of Part IV (:func:`load_adult_fairness`) and the synthetic
data of Part IV (:func:`make_additive_dependence`,
:func:`make_student_grades`, :func:`make_oblivious_regression`).
"""

from ._fairness import load_adult, load_adult_donini, load_adult_fairness, load_compas, load_german
from ._ordinal import (
    bin_target,
    load_anes96,
    load_binned_regression,
    load_fair,
    make_lupi_ordinal,
    make_lupi_regression,
    make_ordinal_relevance,
    make_regression_relevance,
)
from ._privileged_tasks import TASKS, load_privileged_task
from ._synthetic import (
    make_additive_dependence,
    make_lupi_classification,
    make_oblivious_regression,
    make_student_grades,
)
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
    "make_regression_relevance",
    "make_lupi_regression",
    "bin_target",
    "load_anes96",
    "load_fair",
    "load_binned_regression",
    "TASKS",
    "load_privileged_task",
    "load_adult_fairness",
    "make_additive_dependence",
    "make_student_grades",
    "make_oblivious_regression",
]
