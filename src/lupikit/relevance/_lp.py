"""Sparse linear programs of the L1-regularised large-margin ordinal regression.

:class:`OrdinalLP` is the top of Part III's solver: an
:class:`~lupikit.relevance._layout.OrdinalLayout` (the matrix and its named
columns) that solves itself through its
:class:`~lupikit.relevance._engine.RelevanceEngine` (see
:mod:`lupikit.relevance._highs` for the layers below).
"""

from ._engine import SOLVERS, RelevanceEngine
from ._highs import LinearProgramError, solve_lp
from ._layout import OrdinalLayout
from ._tasks import Probe, RelevanceTask

__all__ = ["LinearProgramError", "OrdinalLP", "Probe", "RelevanceTask", "SOLVERS", "solve_lp"]


class OrdinalLP(OrdinalLayout):
    """The L1 ordinal SVM or L1 SVR (plain or LUPI) as one LP, built once, with its solvers.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Regular features.
    yb : ndarray of shape (n,)
        Bin indices ``0..n_bins-1``.
    n_bins : int
        Number of ordered bins (at least 2).
    C : float
        Weight of the slacks (or correcting functions).
    constraints : {"explicit", "implicit"}
        Threshold form of Chu & Keerthi (2005).
    X_star : ndarray of shape (n, p) or None
        Privileged features; enables the LUPI model (explicit form only).
    gamma : float
        Weight of the L1 norm of the correcting functions (LUPI only).
    probe : bool
        Reserve a probe slot (one extra regular and, with LUPI, one extra
        privileged feature column).
    solver : {"auto", "primal", "dual"}
        How :meth:`run_tasks` computes upper bounds: warm-started primal
        simplex, the parametric dual search of
        ``lupikit.relevance._dual_path`` (plain model only), or ``"auto"``,
        the dual search from ``MIN_MARGIN_ROWS`` margin rows on, and for a
        LUPI model with a probe slot the primal simplex behind the
        weak-duality certificates of ``lupikit.relevance._lupi_dual``. Also
        how :meth:`solve_path` solves: on the model's LP dual unless
        ``"primal"``. ``lupikit.relevance._engine.choose_route`` decides.
    epsilon : float or None
        None for the ordinal model; a float for the L1 support vector
        regression with this epsilon-insensitive tube (then ``yb`` holds the
        targets and ``n_bins`` and ``constraints`` are ignored).

    Attributes
    ----------
    engine : lupikit.relevance._engine.RelevanceEngine
        Owns the HiGHS backends and the caches of :meth:`run_tasks`.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import make_ordinal_relevance
    >>> from lupikit.relevance import OrdinalLP
    >>> from lupikit.relevance._tasks import RelevanceTask
    >>> X, y, _ = make_ordinal_relevance(n_samples=60, random_state=0)
    >>> lp = OrdinalLP(X, y, np.unique(y).size, 1.0)
    >>> budget = 1.1 * lp.solve_model().fun
    >>> lo, hi = lp.run_tasks([RelevanceTask("min", 0), RelevanceTask("max", 0)], budget)
    >>> bool(abs(hi - lp.solve_relevance("max", 0, budget)) < 1e-7), bool(0 <= lo <= hi)
    (True, True)
    """

    def __init__(self, X, yb, n_bins, C, constraints="explicit", X_star=None,
                 gamma=1.0, probe=False, solver="auto", epsilon=None):
        super().__init__(X, yb, n_bins, C, constraints, X_star=X_star, gamma=gamma,
                         probe=probe, epsilon=epsilon)
        self.solver = solver
        self.engine = RelevanceEngine(self, solver)

    def solve_model(self):
        """Solve the ordinal SVM itself (no budget row); return the result.

        See ``RelevanceEngine.solve_model`` in ``lupikit.relevance._engine``.
        """
        return self.engine.solve_model()

    def solve_path(self, C_values, gammas=None, samples=None):
        """Solve the model for several C (and gamma), each warm-started from the last;
        with ``samples``, the model of those samples alone (a training fold).

        See ``RelevanceEngine.solve_path`` in ``lupikit.relevance._engine``.
        """
        return self.engine.solve_path(C_values, gammas, samples)

    def run_tasks(self, tasks, budget, progress=None, screen_below=None):
        """Solve a list of :class:`RelevanceTask`; return their values in order.

        See ``RelevanceEngine.run_tasks`` in ``lupikit.relevance._engine``
        (``screen_below``: certified screening against a noise threshold).
        """
        return self.engine.run_tasks(tasks, budget, progress=progress,
                                     screen_below=screen_below)

    def solve_relevance(self, kind, j, budget, *, zero_feature=None):
        """Solve one relevance bound from scratch (min or max of ``abs(w_j)``, or of a
        privileged feature): the cold reference of :meth:`run_tasks`.

        Parameters
        ----------
        kind : {"min", "max", "pmin", "pmax"}
        j : int
            Column (the probe slot is ``D - 1`` / ``P - 1``).
        budget : float
            Right-hand side of the budget row.
        zero_feature : tuple or None
            ``("regular"|"privileged", index)`` of a feature removed from the
            model (bounds fixed at zero), for probes that replace a column.
        """
        return self.engine.solve_relevance(kind, j, budget, zero_feature=zero_feature)
