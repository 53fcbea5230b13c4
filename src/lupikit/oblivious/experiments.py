"""The protocols of the Part IV notebooks (``notebooks/oblivious``).

Helpers for reproducing the experiments of Grünewälder & Khaleghi (2021), not
estimators: the best constant predictor of Section 7.2
(:func:`best_constant_mse`), one repetition of its ridge-regression
experiment (:func:`ridge_experiment`), the estimation error of the plug-in
conditional mean embedding of Section 6.2 (:func:`embedding_error`), the
student-grades experiment of Section 7.1 under the authors' script's protocol
(:func:`grades_authors_protocol`, with the exact linear SVM
:func:`linear_svm_qp`) and the distance of a grid of Adult results to the
published Table 1 (:func:`table1_grid_distance`). The
estimators are in :mod:`lupikit.oblivious`; the data generators and the Adult
subsample of these experiments are in :mod:`lupikit.datasets`
(:func:`~lupikit.datasets.make_additive_dependence`,
:func:`~lupikit.datasets.make_student_grades`,
:func:`~lupikit.datasets.make_oblivious_regression`,
:func:`~lupikit.datasets.load_adult_fairness`).
"""

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from ..datasets import make_oblivious_regression, make_student_grades
from ..metrics import beta_dependence
from ._kernel import ObliviousKernel
from ._partition import CellPartition

__all__ = ["best_constant_mse", "ridge_experiment", "embedding_error", "linear_svm_qp",
           "grades_authors_protocol", "table1_grid_distance"]


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
        # blocks of 2048 rows keep memory at O(2048 n), computed in place in one buffer
        buf = np.empty((min(2048, xa.size), xa.size))
        for start in range(0, xa.size, 2048):
            d = buf[:min(2048, xa.size - start)]
            np.subtract(xa[start:start + 2048, None], xa[None, :], out=d)
            np.square(d, out=d)
            d *= -g
            self_term += np.exp(d, out=d).sum()
        self_term /= xa.size**2
        cross = c1 * np.exp(-w1 * (xa[None, :] - m_eval[sel, None]) ** 2).mean(axis=1)
        err2[sel] = self_term - 2.0 * cross + c2
    return float(np.sqrt(max(np.sum(weights * err2), 0.0)))



def linear_svm_qp(F, y, C, *, orthogonal_to=None):
    """The linear soft-margin SVM with a free intercept, solved exactly as a primal QP.

    Minimises :math:`\\frac12\\|w\\|^2 + C\\sum_i \\max(0, 1 - y_i(w^\\top f_i + b))`
    over :math:`(w, b)` with cvxopt (sparse constraints, interior point), so
    that the solution does not depend on how many SMO iterations a very large
    ``C`` would need (the authors' student-grades script uses ``C`` up to
    :math:`2^{19}`, where libsvm runs for minutes). With ``orthogonal_to=u``
    the constraint :math:`w^\\top u = 0` is added: for
    ``u`` the difference of the mean features of the positive examples of the
    two groups this is linear FERM (equal average scores of the positives,
    Donini et al., 2018).

    Parameters
    ----------
    F : array-like of shape (n, d)
        Explicit features (``d`` small: the QP has ``n + d + 1`` variables).
    y : array-like of shape (n,)
        Binary labels; the larger value is the positive class.
    C : float
        Regularisation parameter (> 0).
    orthogonal_to : array-like of shape (d,) or None

    Returns
    -------
    w : ndarray of shape (d,)
    b : float

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.oblivious.experiments import linear_svm_qp
    >>> F = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> w, b = linear_svm_qp(F, [0, 0, 1, 1], C=10.0)
    >>> np.round([w[0], b], 6).tolist()
    [1.0, -2.0]
    """
    from cvxopt import matrix, solvers, spmatrix

    F = np.asarray(F, dtype=float)
    y = np.asarray(y)
    n, d = F.shape
    ys = np.where(y == np.max(y), 1.0, -1.0)
    nv = d + 1 + n  # (w, b, xi)
    P = spmatrix([1.0] * d, range(d), range(d), (nv, nv))
    q = matrix(np.r_[np.zeros(d + 1), float(C) * np.ones(n)])
    YF = -(ys[:, None] * np.c_[F, np.ones(n)])  # -y_i (w.f_i + b) - xi_i <= -1; -xi_i <= 0
    rows = np.r_[np.tile(np.arange(n), d + 1), np.arange(n), np.arange(n, 2 * n)]
    cols = np.r_[np.repeat(np.arange(d + 1), n), np.arange(d + 1, nv), np.arange(d + 1, nv)]
    vals = np.r_[YF.T.ravel(), -np.ones(2 * n)]
    G = spmatrix(vals.tolist(), rows.tolist(), cols.tolist(), (2 * n, nv))
    h = matrix(np.r_[-np.ones(n), np.zeros(n)])
    kw = {}
    if orthogonal_to is not None:
        u = np.asarray(orthogonal_to, dtype=float).ravel()
        kw = dict(A=matrix(np.r_[u, 0.0, np.zeros(n)][None, :]), b=matrix(0.0))
    options = {"show_progress": False, "abstol": 1e-9, "reltol": 1e-9, "feastol": 1e-9}
    sol = solvers.qp(P, q, G, h, options=options, **kw)
    x = np.asarray(sol["x"]).ravel()
    return x[:d], float(x[d])


def grades_authors_protocol(n_samples, *, threshold=2.5, Cs=None, random_state=None):
    """One repetition of the student-grades experiment (Section 7.1) under the authors' protocol.

    The authors' script (https://github.com/azalk/Oblivious, ``SVM_Example.py``)
    draws a training sample, a *separate* sample of the same size that only
    estimates the conditional means of the oblivious SVM, and a test sample;
    it uses ``threshold = 2.5`` (the paper's text: 2), the linear kernel,
    ``C`` in :math:`2^{16}, \\dots, 2^{19}`, and keeps the ``C`` with the
    smallest observed-label error **on the test sample**, at which it reports
    the true (fair-label) error and :math:`e_\\beta`. The script has only the
    oblivious SVM; the baselines (linear SVM and linear FERM on ``(X, S)``)
    get the same grid and the same selection here. A fourth sample of the
    same size (validation) gives the honest alternative: ``C`` chosen by the
    observed error on it. All three models are solved exactly by
    :func:`linear_svm_qp`; the oblivious SVM is the linear SVM on the explicit
    oblivious features :math:`z = x - \\hat E(X\\mid S = s) + \\hat E X`
    (the means from the estimation sample), which is what the oblivious Gram
    matrix of the linear kernel is the Gram matrix of.

    Returns
    -------
    pandas.DataFrame
        One row per (selection, method), ``selection`` in {"test", "validation"};
        columns ``C``, ``observed error``, ``true error``, ``e_beta`` (Eq. 14
        scale) measured on the test sample.

    Examples
    --------
    >>> from lupikit.oblivious.experiments import grades_authors_protocol
    >>> r = grades_authors_protocol(200, Cs=[1.0], random_state=0)
    >>> sorted(set(r["method"]))
    ['Linear FERM', 'Linear SVM', 'Oblivious SVM']
    """
    rng = check_random_state(random_state)
    Cs = [2.0**k for k in range(16, 20)] if Cs is None else list(Cs)
    tr, est, va, te = (make_student_grades(n_samples, threshold=threshold, random_state=rng)
                       for _ in range(4))

    def oblivious(X, S):  # z = x - E_n(X | S = s) + E_n X, the means from the estimation sample
        Xe, Se = est[0][:, 0], est[1]
        means = {s: Xe[Se == s].mean() for s in np.unique(Se)}
        return (X[:, 0] - np.array([means[s] for s in S]) + Xe.mean())[:, None]

    feats = {"Linear SVM": lambda X, S: np.c_[X, S], "Linear FERM": lambda X, S: np.c_[X, S],
             "Oblivious SVM": oblivious}
    rows = []
    for name, f in feats.items():
        Ftr = f(tr[0], tr[1])
        u = None
        if name == "Linear FERM":
            pos = tr[2] == 1
            u = Ftr[pos & (tr[1] == 0)].mean(axis=0) - Ftr[pos & (tr[1] == 1)].mean(axis=0)
        per_C = []
        for C in Cs:
            w, b = linear_svm_qp(Ftr, tr[2], C, orthogonal_to=u)
            p_va = (f(va[0], va[1]) @ w + b > 0).astype(int)
            p_te = (f(te[0], te[1]) @ w + b > 0).astype(int)
            per_C.append({"C": C, "val": np.mean(p_va != va[2]), "observed error": np.mean(p_te != te[2]),
                          "true error": np.mean(p_te != te[3]), "e_beta": beta_dependence(p_te, te[1])})
        for selection, key in (("test", "observed error"), ("validation", "val")):
            best = per_C[int(np.argmin([r[key] for r in per_C]))]  # first minimum, as the script
            rows.append({"selection": selection, "method": name,
                         **{k: best[k] for k in ("C", "observed error", "true error", "e_beta")}})
    return pd.DataFrame(rows)


def table1_grid_distance(grid, published):
    """How close a grid of results comes to a row block of a published table.

    Parameters
    ----------
    grid : pandas.DataFrame
        One row per grid cell (e.g. per ``(C, gamma)``), columns
        ``(method, metric)`` (a two-level column index) holding the measured values.
    published : dict
        ``{(method, metric): value}``, the published numbers (every key a column of ``grid``).

    Returns
    -------
    dict
        ``"common"``: the smallest, over the cells, of the largest
        ``|measured - published|`` over all numbers (every method at the same
        cell), with ``"common_cell"`` its cell; ``"per_method"``: each method
        at its own best cell, the largest over methods of (the smallest over
        cells of the largest deviation of that method's numbers), with
        ``"per_method_cells"``: ``{method: cell}``; ``"per_method_distance"``:
        ``{method: distance}``.

    Examples
    --------
    >>> import pandas as pd
    >>> g = pd.DataFrame({("A", "err"): [0.1, 0.3], ("B", "err"): [0.5, 0.2]}, index=["c1", "c2"])
    >>> d = table1_grid_distance(g, {("A", "err"): 0.1, ("B", "err"): 0.2})
    >>> round(d["common"], 3), d["common_cell"], round(d["per_method"], 3)
    (0.2, 'c2', 0.0)
    """
    keys = list(published)
    dev = pd.DataFrame({k: (grid[k] - published[k]).abs() for k in keys}, index=grid.index)
    worst = dev.max(axis=1)
    out = {"common": float(worst.min()), "common_cell": worst.idxmin()}
    methods = list(dict.fromkeys(k[0] for k in keys))
    per, cells = {}, {}
    for m in methods:
        w = dev[[k for k in keys if k[0] == m]].max(axis=1)
        per[m], cells[m] = float(w.min()), w.idxmin()
    out.update(per_method=max(per.values()), per_method_cells=cells, per_method_distance=per)
    return out
