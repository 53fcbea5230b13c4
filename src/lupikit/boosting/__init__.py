"""Part I: privileged-information gradient boosting (NF, KbPIB, JPIB).

- :class:`PrivilegedBoostingClassifier` — functional gradient boosting with a
  KL term to a model on the privileged features (KbPIB, Algorithm 1), the
  joint alternating version (JPIB, Algorithm 2), or none (NF).
- :class:`SoftLabelBoostingClassifier` — the soft-label distillation baseline.
- :func:`privileged_loss`, :func:`privileged_negative_gradient`,
  :func:`privileged_hessian`, :func:`raw_to_proba` — the objective and its
  derivatives, for checks and notebooks.

The repeated-split comparison of the experiments and fairness notebooks is
:func:`lupikit.boosting.experiments.compare_models`; their tasks come from
:func:`lupikit.datasets.load_privileged_task`.
"""

from ._losses import (
    privileged_hessian,
    privileged_loss,
    privileged_negative_gradient,
    raw_to_proba,
)
from ._privileged import PrivilegedBoostingClassifier
from ._soft_label import SoftLabelBoostingClassifier

__all__ = [
    "PrivilegedBoostingClassifier",
    "SoftLabelBoostingClassifier",
    "privileged_loss",
    "privileged_negative_gradient",
    "privileged_hessian",
    "raw_to_proba",
]
