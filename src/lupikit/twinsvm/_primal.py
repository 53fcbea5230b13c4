"""Direct primal solves with cvxopt: the independent check of the duals.

The primal problems are solved in explicit feature coordinates. For the
linear kernel those are the features themselves; for any other kernel we use
the exact finite-dimensional feature map of the training sample,
``Phi = V diag(sqrt(lambda))`` from the eigendecomposition ``K = V diag(lambda) V'``
(``Phi Phi' = K``), so no kernel trick and no dual enters the computation.
"""

import numpy as np

from ._base import _KernelSpec
from ._svm import PinballSVC, SVMPlus
from ._twin import _BaseTwin

__all__ = ["solve_primal"]


def _features(spec, X):
    if spec.kernel == "linear":
        return X.copy()
    K = spec(X)
    lam, V = np.linalg.eigh(0.5 * (K + K.T))
    keep = lam > 1e-12 * max(1.0, lam.max())
    return V[:, keep] * np.sqrt(lam[keep])


def _qp(P, q, G, h, tol=1e-9):
    from cvxopt import matrix, solvers

    sol = solvers.qp(matrix(P), matrix(q), matrix(G), matrix(h),
                     options=dict(show_progress=False, abstol=tol, reltol=tol, feastol=tol,
                                  maxiters=200))
    x = np.array(sol["x"]).ravel()
    return x, float(0.5 * x @ P @ x + q @ x), sol["status"]


def _block_quadratic(Phi_o, reg):
    """Quadratic form of ``reg/2 |w|^2 + 1/2 |Phi_o w + e b|^2`` in (w, b)."""
    d = Phi_o.shape[1]
    H = np.zeros((d + 1, d + 1))
    H[:d, :d] = reg * np.eye(d) + Phi_o.T @ Phi_o
    H[:d, d] = H[d, :d] = Phi_o.sum(axis=0)
    H[d, d] = Phi_o.shape[0]
    return H


def solve_primal(estimator, X, y, privileged_features=None):
    """Solve the primal problems of a binary lupikit.twinsvm model directly.

    Parameters
    ----------
    estimator : TwinSVC, PinballTwinSVC, PrivilegedTwinSVC, PrivilegedPinballTwinSVC, PinballSVC or SVMPlus
        Its hyperparameters define the problem (it need not be fitted).
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Two classes; the larger label is the positive class.
    privileged_features : ndarray of shape (n_samples, n_privileged), default=None

    Returns
    -------
    planes : list of dict
        One dict per plane (two for twin models) with ``objective`` (primal
        optimum), ``decision`` (``f`` on the training points), ``status``
        (cvxopt's) and for privileged models ``correction`` (the correcting
        function on the training points).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.twinsvm import PinballTwinSVC, solve_primal
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 2)); y = (X[:, 0] > 0).astype(int)
    >>> est = PinballTwinSVC(kernel="linear", tau=0.3)
    >>> direct = solve_primal(est, X, y)
    >>> fitted = est.fit(X, y)
    >>> bool(np.isclose(direct[0]["objective"],
    ...                 fitted.primal_[0]["primal_objective"], rtol=1e-6))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    classes, y01 = np.unique(y, return_inverse=True)
    if classes.size != 2:
        raise ValueError(f"solve_primal needs exactly two classes, got {classes.size}.")
    spec = _KernelSpec(estimator.kernel, estimator.gamma, estimator.degree, estimator.coef0, X)
    Phi = _features(spec, X)
    uses_priv = getattr(estimator, "_uses_privileged", False)
    if uses_priv:
        Xs = np.asarray(privileged_features, dtype=np.float64)
        pk = estimator.kernel if estimator.privileged_kernel is None else estimator.privileged_kernel
        sspec = _KernelSpec(pk, estimator.privileged_gamma, estimator.degree,
                            estimator.coef0, Xs)
        Phis = _features(sspec, Xs)
    n, d = Phi.shape
    if isinstance(estimator, _BaseTwin):
        tau = estimator._tau
        reg = float(estimator.reg)
        out = []
        pos, neg = np.flatnonzero(y01 == 1), np.flatnonzero(y01 == 0)
        for own, other, side, C in ((pos, neg, -1.0, estimator.C1), (neg, pos, 1.0, estimator.C2)):
            C = float(C)
            m = other.size
            Fo = np.c_[Phi[other], np.ones(m)]  # f on the other class = Fo @ (w, b)
            Hw = _block_quadratic(Phi[own], reg)
            if not uses_priv:
                nv = d + 1 + m
                P = np.zeros((nv, nv))
                P[: d + 1, : d + 1] = Hw
                q = np.r_[np.zeros(d + 1), C * np.ones(m)]
                I = np.eye(m)
                # xi >= 1 - side f  ->  -side f - xi <= -1
                G = np.vstack([np.c_[-side * Fo, -I], np.c_[tau * side * Fo, -I]])
                h = np.r_[-np.ones(m), tau * np.ones(m)]
                x, obj, status = _qp(P, q, G, h)
                out.append({"objective": obj, "decision": np.c_[Phi, np.ones(n)] @ x[: d + 1],
                            "status": status})
            else:
                gam = float(estimator.correction_weight)
                ds = Phis.shape[1]
                Hs = _block_quadratic(Phis[own], 1.0)
                nv = d + 1 + ds + 1
                P = np.zeros((nv, nv))
                P[: d + 1, : d + 1] = Hw
                P[d + 1 :, d + 1 :] = gam * Hs
                Fs = np.c_[Phis[other], np.ones(m)]
                q = np.r_[np.zeros(d + 1), C * Fs.sum(axis=0)]
                # xi(x*) >= 1 - side f  and  xi(x*) >= -tau (1 - side f)
                G = np.vstack([np.c_[-side * Fo, -Fs], np.c_[tau * side * Fo, -Fs]])
                h = np.r_[-np.ones(m), tau * np.ones(m)]
                x, obj, status = _qp(P, q, G, h)
                out.append({"objective": obj, "decision": np.c_[Phi, np.ones(n)] @ x[: d + 1],
                            "correction": np.c_[Phis, np.ones(n)] @ x[d + 1 :],
                            "status": status})
        return out
    ys = 2.0 * y01 - 1.0
    if isinstance(estimator, PinballSVC):
        C, tau = float(estimator.C), float(estimator.tau)
        nv = d + 1 + n
        P = np.zeros((nv, nv))
        P[:d, :d] = np.eye(d)
        q = np.r_[np.zeros(d + 1), C * np.ones(n)]
        YF = ys[:, None] * np.c_[Phi, np.ones(n)]
        I = np.eye(n)
        G = np.vstack([np.c_[-YF, -I], np.c_[tau * YF, -I]])
        h = np.r_[-np.ones(n), tau * np.ones(n)]
        x, obj, status = _qp(P, q, G, h)
        return [{"objective": obj, "decision": np.c_[Phi, np.ones(n)] @ x[: d + 1],
                 "status": status}]
    if isinstance(estimator, SVMPlus):
        C, gam = float(estimator.C), float(estimator.correction_weight)
        ds = Phis.shape[1]
        nv = d + 1 + ds + 1
        P = np.zeros((nv, nv))
        P[:d, :d] = np.eye(d)
        P[d + 1 : d + 1 + ds, d + 1 : d + 1 + ds] = gam * np.eye(ds)
        Fs = np.c_[Phis, np.ones(n)]
        q = np.r_[np.zeros(d + 1), C * Fs.sum(axis=0)]
        YF = ys[:, None] * np.c_[Phi, np.ones(n)]
        G = np.vstack([np.c_[-YF, -Fs], np.c_[np.zeros((n, d + 1)), -Fs]])
        h = np.r_[-np.ones(n), np.zeros(n)]
        x, obj, status = _qp(P, q, G, h)
        return [{"objective": obj, "decision": np.c_[Phi, np.ones(n)] @ x[: d + 1],
                 "correction": Fs @ x[d + 1 :], "status": status}]
    raise TypeError(f"estimator must be a lupikit.twinsvm classifier, got {type(estimator).__name__}.")
