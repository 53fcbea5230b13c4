"""Part II: twin support vector machines with pinball loss and privileged information.

Classifiers (scikit-learn API, ``fit(X, y, privileged_features=...)``):

- :class:`TwinSVC` (TWSVM) and :class:`PinballTwinSVC` (Pin-TWSVM);
- :class:`PrivilegedTwinSVC` (TWSVMPI) and :class:`PrivilegedPinballTwinSVC`
  (Pin-TWSVMPI, the paper's method);
- baselines :class:`SVMPlus` (SVM+, the paper's "SVMPI") and
  :class:`PinballSVC` (Pin-SVM).

Every fitted model exposes its dual QPs in standard form (``dual_problems_``),
the primal solution recovered from them (``primal_``), the duality gap and the
KKT residuals. Solvers: ``"smo"`` (:func:`smo_solve`) and ``"cvxopt"``. Every
fit is certified: a recovered primal whose duality gap or KKT residuals exceed
``tol`` is polished, and what still fails raises a ``ConvergenceWarning``;
wherever a fast route of the solvers fails an exact one takes over, counted in
``fallbacks_``.
:class:`PCAPrivileged` derives privileged features from ``X`` when no expert
provides them (Section 5.1).

The protocol of the UCI notebook (tuning on a held-out set, then k-fold
cross-validation) is in :mod:`lupikit.twinsvm.experiments`; the
UCI benchmark of Tables 1-3 (all ten data sets) in :mod:`lupikit.twinsvm.uci`.
"""

from ._losses import hinge_loss, linear_loss, pinball_loss, quadratic_loss
from ._primal import solve_primal
from ._privileged import PCAPrivileged, PCAPrivilegedClassifier
from ._qp import DualQP, cvxopt_solve, solve_dual
from ._smo import smo_solve
from ._svm import PinballSVC, SVMPlus
from ._twin import (DegeneratePlaneWarning, PinballTwinSVC, PrivilegedPinballTwinSVC,
                    PrivilegedTwinSVC, TwinSVC)

__all__ = [
    "TwinSVC",
    "PinballTwinSVC",
    "PrivilegedTwinSVC",
    "PrivilegedPinballTwinSVC",
    "PinballSVC",
    "DegeneratePlaneWarning",
    "SVMPlus",
    "PCAPrivileged",
    "PCAPrivilegedClassifier",
    "smo_solve",
    "cvxopt_solve",
    "solve_dual",
    "solve_primal",
    "DualQP",
    "linear_loss",
    "hinge_loss",
    "quadratic_loss",
    "pinball_loss",
]
