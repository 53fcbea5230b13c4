"""Part III: feature relevance intervals for ordinal regression and LUPI.

Pfannschmidt, Hammer et al., *Feature relevance determination for ordinal
regression in the context of feature redundancies and privileged
information*.

- :class:`OrdinalRegressionLP` -- L1-regularised large-margin ordinal
  regression (explicit or implicit thresholds, optional privileged
  correcting functions) solved as one LP with HiGHS;
- :class:`L1SVR` -- L1-regularised support vector regression
  (epsilon-insensitive loss, optional correcting functions), also an LP;
- :class:`FeatureRelevanceBounds` -- minrel/maxrel relevance intervals,
  permutation noise thresholds and strong/weak/irrelevant classes, a
  scikit-learn feature selector;
- :func:`prediction_interval`, :func:`classify_relevance` -- the noise
  thresholds of Section 3.3;
- :func:`ordinal_holdout`, :func:`stratified_holdout_splits` -- the real-data
  benchmark's protocol (30 stratified 75/25 hold-out splits, MZE and MAE);
- :class:`OrdinalElasticNet` -- all-threshold logistic regression with an
  elastic-net penalty, the ordinal baseline of both benchmarks;
- :func:`selection_benchmark` -- the synthetic feature-selection experiment
  of Section 6.1 (precision, recall, F1 against the truth), with the
  baselines :class:`OrdinalElasticNet` + RFECV and lasso/ridge +
  ``SelectFromModel`` (:func:`select_features`, :func:`selection_scores`,
  :func:`selection_table`);
- :func:`select_C`, :func:`select_C_gamma`, :func:`check_ordinal_labels`, :func:`solve_lp`,
  :class:`OrdinalLP`, :class:`RelevanceTask`, :class:`Probe`,
  :class:`LinearProgramError` -- building blocks;
- :class:`OrdinalLUPIResidualLP`, :func:`select_C_gamma_rho` -- the cited LUPI model (correcting
  functions plus a residual slack), for the ablation of the LUPI accuracy claims.
"""

from ._bounds import FeatureRelevanceBounds
from ._cv import select_C, select_C_gamma
from ._highs import LinearProgramError, solve_lp
from ._holdout import ordinal_holdout, stratified_holdout_splits
from ._logistic import OrdinalElasticNet
from ._lupi_residual import OrdinalLUPIResidualLP, select_C_gamma_rho
from ._lp import OrdinalLP
from ._ordinal import OrdinalRegressionLP, check_ordinal_labels
from ._regression import L1SVR
from ._selection import (SELECTION_METHODS, select_features,
                         selection_benchmark, selection_scores, selection_table)
from ._tasks import Probe, RelevanceTask
from ._thresholds import classify_relevance, prediction_interval

__all__ = [
    "OrdinalRegressionLP",
    "L1SVR",
    "FeatureRelevanceBounds",
    "prediction_interval",
    "classify_relevance",
    "select_C",
    "select_C_gamma",
    "check_ordinal_labels",
    "solve_lp",
    "OrdinalLP",
    "RelevanceTask",
    "Probe",
    "LinearProgramError",
    "ordinal_holdout",
    "stratified_holdout_splits",
    "OrdinalElasticNet",
    "OrdinalLUPIResidualLP",
    "select_C_gamma_rho",
    "SELECTION_METHODS",
    "select_features",
    "selection_scores",
    "selection_benchmark",
    "selection_table",
]
