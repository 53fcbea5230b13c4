"""Data generators, the papers' real data sets and the task wrappers used by the book.

Two kinds of real data sets:

- *vendored* ones, shipped compressed in ``lupikit/datasets/data/`` (see
  ``data/README.md`` for their sources and licences), copied from registry
  packages: always available;
- *data-home* ones, public files that no registry package ships, read from the
  folder :func:`get_data_home` returns (``data_home``, else ``LUPIKIT_DATA``,
  else ``~/lupikit_data``) and checked against their registered SHA-256
  (``FILES``, :func:`fetch_file`). A missing file raises
  :class:`FileNotFoundError` naming the file, the folder and the public source.

:func:`catalog` lists every data set of the four papers (with those we lack,
and why); the book's Data page is generated from :func:`data_table`.
Beside the raw loaders, every data set an experiment of the book prepares in
its own way has its wrapper here (the parts hold estimators and protocols,
never data): the LUPI tasks of Part I (:func:`load_privileged_task`), the
Adult subsample of Part IV (:func:`load_adult_fairness`) and the synthetic
data of Part IV (:func:`make_additive_dependence`,
:func:`make_student_grades`, :func:`make_oblivious_regression`).
"""

from ._home import (CACHE_ENV, DATA_ENV, FILES, DataFile, fetch_file, file_status, get_cache_home, get_data_home,
                    sha256_of)
from ._info import DatasetInfo
from ._catalog import MISSING, catalog, data_table
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
from ._privileged_tasks import PAPER_FAIRNESS_TASKS, TASK_FILES, task_status
from ._privileged_tasks import SURVEY_ROWS, fairness_benchmark_sizes
from ._fairness_survey import (
    load_bank_marketing,
    load_census_kdd,
    load_communities_crime,
    load_compas_violent,
    load_credit_card_clients,
    load_diabetes_hospitals,
    load_dutch_census,
    load_oulad,
    load_student_performance,
)
from ._ordinal_benchmarks import ORDINAL_BENCHMARKS, load_ordinal_benchmark
from ._lupi_control import make_lupi_ordinal_noise
from ._relevance_benchmarks import FRI_SETS, make_fri_ordinal, make_ordinal_benchmark
from ._synthetic import (
    make_additive_dependence,
    make_lupi_classification,
    make_oblivious_regression,
    make_student_grades,
)
from ._uci import load_breast_cancer_wisconsin, load_glass, load_haberman, load_mnist_5_8
from ._uci_more import (load_compound, load_dermatology, load_ecoli, load_page_blocks,
                        load_soybean_small, load_zoo)

__all__ = [
    "CACHE_ENV",
    "DATA_ENV",
    "DataFile",
    "DatasetInfo",
    "catalog",
    "data_table",
    "fetch_file",
    "sha256_of",
    "file_status",
    "get_cache_home",
    "get_data_home",
    "make_lupi_classification",
    "load_adult",
    "load_adult_donini",
    "load_compas",
    "load_german",
    "load_breast_cancer_wisconsin",
    "load_haberman",
    "load_glass",
    "load_mnist_5_8",
    "load_ecoli",
    "load_dermatology",
    "load_zoo",
    "load_page_blocks",
    "load_compound",
    "load_soybean_small",
    "make_ordinal_relevance",
    "make_lupi_ordinal",
    "make_lupi_ordinal_noise",
    "make_regression_relevance",
    "make_lupi_regression",
    "bin_target",
    "load_anes96",
    "load_fair",
    "load_binned_regression",
    "ORDINAL_BENCHMARKS",
    "load_ordinal_benchmark",
    "FRI_SETS",
    "make_fri_ordinal",
    "make_ordinal_benchmark",
    "TASKS",
    "load_privileged_task",
    "PAPER_FAIRNESS_TASKS",
    "TASK_FILES",
    "task_status",
    "SURVEY_ROWS",
    "fairness_benchmark_sizes",
    "load_dutch_census",
    "load_bank_marketing",
    "load_credit_card_clients",
    "load_compas_violent",
    "load_student_performance",
    "load_oulad",
    "load_communities_crime",
    "load_diabetes_hospitals",
    "load_census_kdd",
    "load_adult_fairness",
    "make_additive_dependence",
    "make_student_grades",
    "make_oblivious_regression",
]
