"""The protocols of the Part IV notebooks (``notebooks/oblivious``).

Helpers for reproducing the experiments of Grünewälder & Khaleghi (2021), not
estimators: the best constant predictor of Section 7.2
(:func:`best_constant_mse`), one repetition of its ridge-regression
experiment (:func:`ridge_experiment`) and the estimation error of the plug-in
conditional mean embedding of Section 6.2 (:func:`embedding_error`). The
estimators are in :mod:`lupikit.oblivious`; the data generators and the Adult
subsample of these experiments are in :mod:`lupikit.datasets`
(:func:`~lupikit.datasets.make_additive_dependence`,
:func:`~lupikit.datasets.make_student_grades`,
:func:`~lupikit.datasets.make_oblivious_regression`,
:func:`~lupikit.datasets.load_adult_fairness`).
"""

import numpy as np
from sklearn.utils import check_random_state

from ..datasets import make_oblivious_regression
from ._kernel import ObliviousKernel
from ._partition import CellPartition

__all__ = ["best_constant_mse", "ridge_experiment", "embedding_error"]


def best_constant_mse(experiment=1, noise_var=0.1):
    """Smallest MSE of an S-independent predictor at gamma = 0 (Section 7.2).

    At ``gamma = 0`` we have ``X = S``, so a predictor independent of ``S`` is
    a constant ``c``; ``E(Y - c)^2`` is smallest at ``c = E Y`` and equals
    ``Var(Y) = k^2 Var(S^2) + noise_var`` with ``k = 1`` (Experiment 1) or
    ``k = 2`` (Experiment 2) and ``Var(S^2) = E S^4 - (E S^2)^2 = 125 - 625/9
    = 500/9`` for ``S ~ U[-5, 5]``.

    Examples
    --------
    >>> from lupikit.oblivious.experiments import best_constant_mse
    >>> round(best_constant_mse(1), 2), round(best_constant_mse(2), 2)
    (55.66, 222.32)
    """
    k = 1.0 if experiment == 1 else 2.0
    return k**2 * 500.0 / 9.0 + noise_var


def _ridge_path(M, y, alphas):
    """Dual coefficients (M + a I)^{-1} y for every a, from one eigendecomposition."""
    lam, V = np.linalg.eigh(M)
    Vy = V.T @ y
    return [V @ (Vy / (lam + a)) for a in alphas]


def ridge_experiment(gamma, *, experiment=1, n_est=500, n_train=500, n_val=100, n_test=100,
                     alphas=None, kernel_gamma=1.0, n_bins=16, noise_var=0.1,
                     random_state=None):
    """One repetition of Section 7.2: test MSE of KRR, ORR and M-ORR.

    ``n_est`` points estimate the conditional means (ORR, M-ORR only), the
    same ``n_train`` points fit all three ridge regressions, the ridge
    parameter is chosen from ``alphas`` (default :math:`2^{-5}, \\dots, 2^5`)
    on ``n_val`` validation points and the MSE is measured on ``n_test``
    points. The partition of ``S`` is the ``n_bins``-cell equal-width grid on
    ``[-5, 5]``; the kernel is ``exp(-kernel_gamma (x - y)^2)``.

    The three estimators are exactly those of
    :class:`~lupikit.oblivious.ObliviousRidge` (ORR: ``markov=False``, M-ORR:
    ``markov=True``) and :class:`sklearn.kernel_ridge.KernelRidge`; for speed
    the whole path over ``alphas`` is computed from one eigendecomposition of
    each Gram matrix.

    Returns
    -------
    dict
        ``{"KRR": mse, "ORR": mse, "M-ORR": mse}`` and the chosen
        ``alpha_<name>``.

    Examples
    --------
    >>> from lupikit.oblivious.experiments import ridge_experiment
    >>> r = ridge_experiment(0.5, n_est=60, n_train=60, n_val=30, n_test=30,
    ...                      alphas=[0.1, 1.0], random_state=0)
    >>> sorted(k for k in r if not k.startswith("alpha"))
    ['KRR', 'M-ORR', 'ORR']
    """

    rng = check_random_state(random_state)
    if alphas is None:
        alphas = [2.0**k for k in range(-5, 6)]
    sizes = (n_est, n_train, n_val, n_test)
    X, S, y = make_oblivious_regression(sum(sizes), gamma, experiment=experiment,
                                        noise_var=noise_var, random_state=rng)
    cuts = np.cumsum((0,) + sizes)
    (Xe, Xtr, Xva, Xte), (Se, Str, Sva, Ste), (_, ytr, yva, yte) = (
        [A[cuts[i]:cuts[i + 1]] for i in range(4)] for A in (X, S, y))
    ok = ObliviousKernel(kernel="rbf", gamma=kernel_gamma, n_bins=n_bins, partition="grid",
                         grid_range=(-5.0, 5.0)).fit(Xe, Se)
    K = ok._k(Xtr)
    O = ok.gram(Xtr, Str)
    right = {  # (Gram matrix for fitting, validation rows, test rows)
        "KRR": (K, ok._k(Xva, Xtr), ok._k(Xte, Xtr)),
        "ORR": (O, ok.cross(Xva, Sva, Xtr, Str), ok.cross(Xte, Ste, Xtr, Str)),
        "M-ORR": (K, ok.cross(Xva, Sva, Xtr), ok.cross(Xte, Ste, Xtr)),
    }
    out = {}
    for name, (M, Cva, Cte) in right.items():
        path = _ridge_path(M, ytr, alphas)
        val = [np.mean((Cva @ a - yva) ** 2) for a in path]
        best = int(np.argmin(val))
        out[name] = float(np.mean((Cte @ path[best] - yte) ** 2))
        out["alpha_" + name] = alphas[best]
    return out


def embedding_error(n_samples, *, s_dim=0, n_bins=None, tau=0.5, kernel_gamma=1.0,
                    n_eval=2000, random_state=None):
    """Estimation error of the plug-in conditional mean embedding (Section 6.2).

    Model: ``X = m(S) + U`` with ``U ~ N(0, tau^2)`` and the RBF kernel
    ``exp(-kernel_gamma (x - y)^2)``, for which the true conditional mean
    embedding :math:`\\mu_s = E[\\varphi(m(s) + U)]` has closed-form inner
    products (Gaussian convolutions):

    .. math::

        \\langle\\varphi(x), \\mu_s\\rangle = c_1 e^{-\\gamma (x - m(s))^2 / (1 + 2\\gamma\\tau^2)},
        \\quad \\|\\mu_s\\|^2 = c_2,

    with :math:`c_1 = (1 + 2\\gamma\\tau^2)^{-1/2}`, :math:`c_2 = (1 +
    4\\gamma\\tau^2)^{-1/2}`. The returned error is
    :math:`\\|E^S_n\\varphi(X) - E_S\\varphi(X)\\|_{2,n} = (E_{S}\\|\\hat\\mu_{c(S)} -
    \\mu_S\\|^2)^{1/2}`, the expectation over a fresh ``S`` taken exactly for a
    finite ``S`` and by Monte Carlo (``n_eval`` draws) otherwise.

    Parameters
    ----------
    n_samples : int
        Size of the estimation sample.
    s_dim : int, default=0
        0: finite ``S`` in {0, 1, 2} with probabilities (0.5, 0.3, 0.2) and
        ``m(s) = s`` (Proposition 5). ``d >= 1``: ``S ~ U[0, 1]^d`` and
        ``m(s) = 2 (s_1 + ... + s_d)`` (Proposition 6).
    n_bins : int or None
        Cells per dimension for ``s_dim >= 1``; None uses Proposition 6's
        choice :math:`\\ell = \\lceil n^{1/(2(d+1))}\\rceil`.
    tau, kernel_gamma, n_eval, random_state
        See above.

    Returns
    -------
    float

    Examples
    --------
    >>> from lupikit.oblivious.experiments import embedding_error
    >>> e1 = embedding_error(100, random_state=0)
    >>> e2 = embedding_error(10000, random_state=0)
    >>> bool(e2 < e1)
    True
    """
    rng = check_random_state(random_state)
    g = kernel_gamma
    c1 = (1.0 + 2 * g * tau**2) ** -0.5
    w1 = g / (1.0 + 2 * g * tau**2)
    c2 = (1.0 + 4 * g * tau**2) ** -0.5
    if s_dim == 0:
        values = np.array([0.0, 1.0, 2.0])
        probs = np.array([0.5, 0.3, 0.2])
        S = rng.choice(values, size=n_samples, p=probs)[:, None]
        m_S = S[:, 0]
        part = CellPartition("discrete", handle_unknown="empty").fit(S)
        S_eval, weights, m_eval = values[:, None], probs, values
    else:
        S = rng.uniform(size=(n_samples, s_dim))
        m_S = 2.0 * S.sum(axis=1)
        if n_bins is None:
            n_bins = int(np.ceil(n_samples ** (1.0 / (2 * (s_dim + 1)))))
        part = CellPartition("grid", n_bins=n_bins, grid_range=(0.0, 1.0)).fit(S)
        S_eval = rng.uniform(size=(n_eval, s_dim))
        weights = np.full(n_eval, 1.0 / n_eval)
        m_eval = 2.0 * S_eval.sum(axis=1)
    X = m_S + tau * rng.normal(size=n_samples)
    cells = part.transform(S)
    cells_eval = part.transform(S_eval)
    err2 = np.full(S_eval.shape[0], c2)  # empty cell: mu_hat = 0
    for a in range(part.n_cells_):
        xa = X[cells == a]
        sel = np.flatnonzero(cells_eval == a)
        if sel.size == 0:
            continue
        self_term = 0.0
        for start in range(0, xa.size, 2048):  # blocks keep memory at O(2048 n)
            d = xa[start:start + 2048, None] - xa[None, :]
            self_term += np.exp(-g * d**2).sum()
        self_term /= xa.size**2
        cross = c1 * np.exp(-w1 * (xa[None, :] - m_eval[sel, None]) ** 2).mean(axis=1)
        err2[sel] = self_term - 2.0 * cross + c2
    return float(np.sqrt(max(np.sum(weights * err2), 0.0)))

