"""Oblivious features and kernels for fairness (Part IV).

Grünewälder & Khaleghi (2021) replace the feature map :math:`\\varphi(X)` by
the oblivious features :math:`Z = \\varphi(X) - E_S\\varphi(X) + E\\varphi(X)`,
the best :math:`H`-independent approximation of :math:`\\varphi(X)`, with the
conditional expectation estimated by a plug-in partition estimator.

- :class:`ObliviousKernel` -- plug-in estimate and the oblivious Gram / cross
  matrices (Algorithm 1, Appendix E);
- :class:`ObliviousRidge` -- ORR and M-ORR (Section 6.4);
- :class:`ObliviousSVC` -- SVM on oblivious features (Section 7.1);
- :class:`FERM` -- the equal-opportunity SVM of Donini et al. (2018), baseline;
- :func:`manifold_projection`, :func:`manifold_distance` -- Appendix E.3 and
  the empirical :math:`d_n(Z + h', M)` of Eq. (5);
- :class:`CellPartition` -- partitions of the sensitive space.

The protocols of the notebooks are in :mod:`lupikit.oblivious.experiments`,
their data generators and the Adult subsample in :mod:`lupikit.datasets`.
"""

from ._estimators import ObliviousRidge, ObliviousSVC
from ._ferm import FERM
from ._kernel import ObliviousKernel
from ._manifold import manifold_distance, manifold_projection
from ._partition import CellPartition

__all__ = [
    "ObliviousKernel",
    "ObliviousRidge",
    "ObliviousSVC",
    "FERM",
    "CellPartition",
    "manifold_projection",
    "manifold_distance",
]
