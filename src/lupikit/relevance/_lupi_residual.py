"""The cited LUPI ordinal model: correcting functions of X* *plus* a residual slack.

The relevance paper's LUPI model (Section 4, and :class:`OrdinalRegressionLP`
with ``privileged_features``) replaces every slack by a correcting function of
the privileged features, as the SVM+ of Vapnik and Vashist does. The work the
paper cites for the accuracy gain of LUPI on ordinal data "refrained from fully
replacing the slack variables and combined them with a smooth function based on
PI". :class:`OrdinalLUPIResidualLP` is our model of that work, in the same
L1 large-margin LP as the rest of Part III:

.. math::

    \\min\\ \\tfrac12\\bigl(\\|w\\|_1 + \\gamma(\\|v_0\\|_1+\\|v_1\\|_1)\\bigr)
          + C\\sum_r g_{s(r)}(x^*_{i(r)}) + \\rho\\,C\\sum_r \\zeta_r

subject to, for every margin row ``r`` (sample ``i``, threshold ``k``, side
``s``: below or above), ``sigma_r (w . x_i - b_k) <= -1 + g_s(x*_i) + zeta_r``,
``g_s(x*_i) = v_s . x*_i + e_s >= 0``, ``zeta_r >= 0`` and ordered thresholds.

``rho`` prices the residual slack against the correcting function: at
``rho = 1`` a unit of slack costs the same either way, so the correcting
functions buy nothing and the model is the plain L1 ordinal SVM (same optimum);
as ``rho`` grows the residual becomes dear and the model tends to the book's
(``fri``'s) LUPI model, where the correcting functions carry all the slack
(``rho = inf`` drops the residual). Between the two the correcting functions
explain the slack where ``X*`` can and the residual pays for the rest.

Everything is solved with SciPy's HiGHS (``scipy.optimize.linprog``) from an
explicitly built sparse matrix, independently of Part III's LP engine, so the
tests can compare the two where they must agree.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.model_selection import StratifiedKFold
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import POSITIVE
from ..metrics import macro_averaged_mae
from ._ordinal import check_fit_inputs

__all__ = ["OrdinalLUPIResidualLP", "select_C_gamma_rho", "RHO_GRID"]

#: Default grid of the residual slack's price (1: the plain model, large: the book's LUPI model).
RHO_GRID = (1.0, 3.0, 10.0)


def _rows(yb, K):
    below = np.flatnonzero(yb < K)
    above = np.flatnonzero(yb > 0)
    ri = np.concatenate([below, above])
    rk = np.concatenate([yb[below], yb[above] - 1])
    rs = np.concatenate([np.ones(below.size), -np.ones(above.size)])
    return ri, rk, rs


def solve_residual_lp(X, yb, n_bins, Xs, C, gamma, rho):
    """Solve the LP of the module docstring; return ``(w, b, v, e, zeta, objective)``.

    ``Xs`` None (or ``rho = 1`` with no correcting function wanted) gives the
    plain model only when ``Xs`` is None: then the slack is ``zeta`` alone.
    """
    X = np.asarray(X, float)
    n, d = X.shape
    K = n_bins - 1
    ri, rk, rs = _rows(yb, K)
    R = ri.size
    p = 0 if Xs is None else Xs.shape[1]
    residual = Xs is None or np.isfinite(rho)
    # columns: w+ (d), w- (d), b (K), v+ (2p), v- (2p), e (2) [if Xs], zeta (R) [if residual]
    o_b = 2 * d
    o_vp = o_b + K
    o_vm = o_vp + 2 * p
    o_e = o_vm + 2 * p
    o_z = o_e + (2 if Xs is not None else 0)
    n_vars = o_z + (R if residual else 0)
    c = np.zeros(n_vars)
    c[:2 * d] = 0.5
    rows, cols, vals = [], [], []

    def add(r, cc, v):
        r, cc = np.broadcast_arrays(np.asarray(r), np.asarray(cc))
        rows.append(r.ravel())
        cols.append(cc.ravel())
        vals.append(np.broadcast_to(np.asarray(v, float), r.shape).ravel())

    # margin rows 0..R-1: sigma (x.w - b_k) - g - zeta <= -1
    xr = X[ri] * rs[:, None]
    rr = np.arange(R)[:, None]
    add(rr, np.arange(d)[None, :], xr)
    add(rr, d + np.arange(d)[None, :], -xr)
    add(np.arange(R), o_b + rk, -rs)
    grp = (rs < 0).astype(int)
    n_rows = R
    if Xs is not None:
        xs = Xs[ri]
        for g in (0, 1):
            m = np.flatnonzero(grp == g)
            vp = o_vp + g * p + np.arange(p)[None, :]
            vm = o_vm + g * p + np.arange(p)[None, :]
            for off in (0, R):  # the margin row, then the row g(x*) >= 0
                add(off + m[:, None], vp, -xs[m])
                add(off + m[:, None], vm, xs[m])
                add(off + m, o_e + g, -1.0)
            # objective: C * sum_r g(x*_r) + gamma/2 * |v|
            c[o_vp + g * p:o_vp + (g + 1) * p] = 0.5 * gamma + C * xs[m].sum(axis=0)
            c[o_vm + g * p:o_vm + (g + 1) * p] = 0.5 * gamma - C * xs[m].sum(axis=0)
            c[o_e + g] = C * m.size
        n_rows += R
    if residual:
        add(np.arange(R), o_z + np.arange(R), -1.0)
        c[o_z:] = C * (1.0 if Xs is None else rho)
    rhs = [-np.ones(R)] + ([np.zeros(R)] if Xs is not None else [])
    if K > 1:
        add(n_rows + np.arange(K - 1), o_b + np.arange(K - 1), 1.0)
        add(n_rows + np.arange(K - 1), o_b + np.arange(1, K), -1.0)
        n_rows += K - 1
        rhs.append(np.zeros(K - 1))
    A = sp.csc_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                     shape=(n_rows, n_vars))
    bounds = np.zeros((n_vars, 2))
    bounds[:, 1] = np.inf
    bounds[o_b:o_b + K] = (-np.inf, np.inf)
    if Xs is not None:
        bounds[o_e:o_e + 2] = (-np.inf, np.inf)
    res = linprog(c, A_ub=A, b_ub=np.concatenate(rhs),
                  bounds=bounds, method="highs")
    if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"HiGHS: {res.message}")
    x = res.x
    w = x[:d] - x[d:2 * d]
    b = np.sort(x[o_b:o_b + K])
    v = e = None
    if Xs is not None:
        v = np.column_stack([x[o_vp + g * p:o_vp + (g + 1) * p] - x[o_vm + g * p:o_vm + (g + 1) * p]
                             for g in (0, 1)])
        e = x[o_e:o_e + 2]
    zeta = x[o_z:] if residual else np.zeros(0)
    return w, b, v, e, zeta, float(res.fun)


class OrdinalLUPIResidualLP(ClassifierMixin, BaseEstimator):
    """L1 ordinal SVM (explicit thresholds) whose slacks are correcting functions of X* plus a
    residual slack priced ``rho`` times higher (the model of the work the paper cites).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the slack (correcting functions and residual).
    gamma : float, default=1.0
        Weight of the L1 norm of the correcting functions.
    rho : float, default=3.0
        Price of the residual slack relative to the correcting functions
        (``>= 1``; ``np.inf``: no residual, the book's LUPI model). At ``rho = 1``
        the LP's optimum is the plain model's, but degenerate (a unit of slack
        may go to either part): the fit then solves the plain model, so that
        ``rho = 1`` *is* the plain model, not an arbitrary tie.

    Attributes
    ----------
    classes_ : numpy.ndarray
        The ordered labels (int).
    n_features_in_ : int
        Number of features of ``X`` seen in ``fit``.
    coef_ : numpy.ndarray
        The weight vector ``w``, shape ``(n_features,)``.
    thresholds_ : numpy.ndarray
        Ordered thresholds, shape ``(n_classes - 1,)``.
    coef_privileged_ : numpy.ndarray
        Weights of the two correcting functions, shape ``(n_privileged, 2)``.
    intercept_privileged_ : numpy.ndarray
        Offsets of the two correcting functions, shape ``(2,)``.
    objective_ : float
        Optimal value of the LP.
    residual_share_ : float
        Share of the total slack paid by the residual (0: all by the correcting functions).

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_ordinal
    >>> X, Xs, y, _, _ = make_lupi_ordinal(n_samples=60, random_state=0)
    >>> m = OrdinalLUPIResidualLP(C=1.0, gamma=1.0, rho=3.0).fit(X, y, privileged_features=Xs)
    >>> m.predict(X).shape
    (60,)
    """

    #: The thresholds are variables of the LP (Chu and Keerthi's explicit form, the only one that
    #: takes privileged features in :func:`~lupikit.relevance._ordinal.check_fit_inputs`).
    constraints = "explicit"

    _parameter_constraints = {
        "C": [POSITIVE],
        "gamma": [POSITIVE],
        # a residual cheaper than the correcting functions would make them useless; inf drops it
        "rho": [Interval(Real, 1, np.inf, closed="both")],
    }

    def __init__(self, C=1.0, gamma=1.0, rho=3.0):
        self.C = C
        self.gamma = gamma
        self.rho = rho

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, privileged_features=None):
        """Fit on regular features ``X`` and (optionally) privileged features (training only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Regular features.
        y : array-like of shape (n_samples,)
            Ordinal labels: integers (or integer-valued floats) of at least two
            levels, ordered by value (see :func:`check_ordinal_labels`).
        privileged_features : array-like of shape (n_samples, n_privileged), default=None
            ``X*``, seen only here; None fits the plain L1 ordinal SVM.

        Returns
        -------
        self : OrdinalLUPIResidualLP
            The fitted model.
        """
        X, self.classes_, yb, Xs = check_fit_inputs(self, X, y, privileged_features)
        if self.rho == 1:  # same optimum as the plain model, whose solution breaks the ties
            Xs = None
        w, b, v, e, zeta, obj = solve_residual_lp(X, yb, self.classes_.size, Xs, float(self.C),
                                                  float(self.gamma), float(self.rho))
        self.coef_, self.thresholds_ = w, b
        self.coef_privileged_, self.intercept_privileged_ = v, e
        self.objective_ = obj
        if Xs is not None:
            ri, _, rs = _rows(yb, self.classes_.size - 1)
            grp = (rs < 0).astype(int)
            gsum = float(sum((Xs[ri[grp == g]] @ v[:, g] + e[g]).sum() for g in (0, 1)))
            total = gsum + float(zeta.sum())
            self.residual_share_ = float(zeta.sum()) / total if total > 0 else 0.0
        else:
            self.residual_share_ = 1.0
        return self

    def predict(self, X):
        """The bin of ``X @ coef_`` between the thresholds (regular features only)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=float, reset=False)
        f = X @ self.coef_
        return self.classes_[np.searchsorted(self.thresholds_, f, side="right")]


def select_C_gamma_rho(X, y, privileged_features, *, C_grid=(0.01, 0.1, 1.0, 10.0, 100.0),
                       gamma_grid=(0.1, 1.0, 10.0), rho_grid=RHO_GRID, cv=5, random_state=None):
    """Choose ``(C, gamma, rho)`` of :class:`OrdinalLUPIResidualLP` by stratified k-fold
    cross-validation on the validation macro-MAE, predicting from the regular features only.

    Ties go to the smallest ``rho`` (the plain model), then the smallest C, then gamma.

    Returns
    -------
    best : tuple ``(C, gamma, rho)``
    scores : ndarray of shape (len(rho_grid), len(C_grid), len(gamma_grid))
    """
    X = np.asarray(X, float)
    y = np.asarray(y)
    Xs = np.asarray(privileged_features, float)
    counts = np.unique(y, return_counts=True)[1]
    folds = StratifiedKFold(min(cv, int(counts.min())) if counts.min() >= 2 else 2, shuffle=True,
                            random_state=random_state).split(X, y)
    folds = list(folds)
    scores = np.zeros((len(rho_grid), len(C_grid), len(gamma_grid)))
    for tr, te in folds:
        for a, rho in enumerate(rho_grid):
            for i, C in enumerate(C_grid):
                for j, g in enumerate(gamma_grid):
                    m = OrdinalLUPIResidualLP(C=C, gamma=g, rho=rho).fit(
                        X[tr], y[tr], privileged_features=Xs[tr])
                    scores[a, i, j] += macro_averaged_mae(y[te], m.predict(X[te])) / len(folds)
    flat = np.round(scores, 12).ravel()
    a, i, j = np.unravel_index(int(np.argmin(flat)), scores.shape)
    return (float(C_grid[i]), float(gamma_grid[j]), float(rho_grid[a])), scores
