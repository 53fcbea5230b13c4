"""Pin-TWSVMPI's dual and decision rule as the paper states them (Section 3.1), to test them.

The book derives the dual of each plane from the primal (``duals_kkt``);
these functions take the paper's own statements at their word, so that a
notebook can measure how far they are from the primal they claim to solve:

- :func:`paper_dual_plane1` solves the Wolfe dual the paper gives for the
  first plane of the linear model (its objective with the two equality
  constraints, over ``alpha_1 .. alpha_4 >= 0``) with cvxopt and recovers the
  plane by the paper's formulas (30), (31), (33) and (34);
- :func:`paper_rule_decision` is the paper's decision rule (41): the
  distance of a point to a plane taken as ``|x'w + b| / ||w||^2``.

Where the paper's statement is not well formed, the reading that can only
help it is taken (and said): ``e_2' alpha_2`` of its objective, whose
dimensions do not match when the classes differ in size, is read as the sum
of ``alpha_2``; its intercept ``b_1 = (alpha_1 - A w_1) / l``, a vector, is
read as the scalar ``e_1'(alpha_1 - A w_1) / l`` with ``l`` the number of
rows of the plane's own class, the mean of that vector.
"""

import numpy as np

__all__ = ["paper_dual_plane1", "paper_rule_decision"]


def paper_dual_plane1(A, B, A_star, B_star, *, c1, tau, gamma, tol=1e-9):
    """Solve the paper's stated dual of Pin-TWSVMPI's first plane and recover the plane by its formulas.

    Parameters
    ----------
    A, B : ndarray of shape (m1, n), (m2, n)
        The plane's own class and the other class (normal features).
    A_star, B_star : ndarray of shape (m1, n*), (m2, n*)
        Their privileged features.
    c1, tau, gamma : float
        The paper's ``c_1``, ``tau`` (> 0: its constraints divide by it) and
        ``gamma`` (the correcting-space weight).
    tol : float, default=1e-9
        cvxopt's tolerances.

    Returns
    -------
    dict
        ``objective`` (the optimum of the paper's dual, as a minimum),
        ``status`` (cvxopt's), ``alpha`` (the four blocks), ``w``, ``b``
        (the plane by Eqs. (30) and (33)), ``w_star``, ``b_star`` (the
        correcting function by Eqs. (31) and (34)).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.twinsvm._paper_dual import paper_dual_plane1
    >>> rng = np.random.default_rng(0)
    >>> A, B = rng.normal(size=(8, 2)) + 1, rng.normal(size=(7, 2)) - 1
    >>> out = paper_dual_plane1(A, B, A[:, :1], B[:, :1], c1=0.1, tau=0.5, gamma=1.0)
    >>> out["w"].shape, sorted(out)[:3]
    ((2,), ['alpha', 'b', 'b_star'])
    """
    from cvxopt import matrix, solvers

    A, B = np.asarray(A, float), np.asarray(B, float)
    As, Bs = np.asarray(A_star, float), np.asarray(B_star, float)
    m1, m2 = A.shape[0], B.shape[0]
    if not tau > 0:
        raise ValueError(f"the paper's dual divides by tau: tau must be > 0, got {tau!r}.")
    nv = 2 * m1 + 2 * m2
    s1, s2, s3, s4 = slice(0, m1), slice(m1, 2 * m1), slice(2 * m1, 2 * m1 + m2), slice(2 * m1 + m2, nv)
    # the objective is 1/2 |A'a1 + B'(a4 - a3)|^2 + 1/(2 gamma) |B*'g - A*'a2|^2 + e'(a3 - a2)
    # with g = a3 + a4 / tau - c1 e: two linear maps of x = (a1, a2, a3, a4)
    L1 = np.zeros((A.shape[1], nv))
    L1[:, s1], L1[:, s3], L1[:, s4] = A.T, -B.T, B.T
    L2 = np.zeros((As.shape[1], nv))
    L2[:, s2], L2[:, s3], L2[:, s4] = -As.T, Bs.T, Bs.T / tau
    c2 = -c1 * Bs.T @ np.ones(m2)  # the constant part of B*'g
    P = L1.T @ L1 + L2.T @ L2 / gamma
    q = L2.T @ c2 / gamma
    q[s3] += 1.0
    q[s2] -= 1.0
    const = float(c2 @ c2) / (2 * gamma)
    # e1'a1 - e2'(a4 - a3) = 0 and e1*'a2 - e2*'(a3 + a4 / tau - c1 e2*) = 0
    E = np.zeros((2, nv))
    E[0, s1], E[0, s3], E[0, s4] = 1.0, 1.0, -1.0
    E[1, s2], E[1, s3], E[1, s4] = 1.0, -1.0, -1.0 / tau
    d = np.array([0.0, -c1 * m2])
    P = 0.5 * (P + P.T) + 1e-12 * np.trace(P) / nv * np.eye(nv)
    sol = solvers.qp(matrix(P), matrix(q), matrix(-np.eye(nv)), matrix(np.zeros(nv)), matrix(E), matrix(d),
                     options=dict(show_progress=False, abstol=tol, reltol=tol, feastol=tol, maxiters=200))
    x = np.array(sol["x"]).ravel()
    a1, a2, a3, a4 = x[s1], x[s2], x[s3], x[s4]
    w = B.T @ (a4 - a3) - A.T @ a1  # (30)
    w_star = (Bs.T @ (a3 + a4 / tau - c1 * np.ones(m2)) - As.T @ a2) / gamma  # (31)
    b = float(np.mean(a1 - A @ w))  # (33), read as a scalar
    b_star = float(np.mean(a2 - As @ w_star))  # (34), read as a scalar
    return {"objective": float(0.5 * x @ P @ x + q @ x + const), "status": sol["status"],
            "alpha": (a1, a2, a3, a4), "w": w, "b": b, "w_star": w_star, "b_star": b_star}


def paper_rule_decision(f1, f2, w1_norm, w2_norm):
    """The paper's decision rule (41): the class of the plane with the smaller ``|f| / ||w||^2``.

    Parameters
    ----------
    f1, f2 : ndarray
        The two planes' values ``x'w + b`` at the points.
    w1_norm, w2_norm : float
        The planes' norms ``||w||`` (in the RKHS for a kernel model).

    Returns
    -------
    ndarray
        Positive where the point goes to the first plane's class (as
        :meth:`decision_function` of the twin models), negative otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.twinsvm._paper_dual import paper_rule_decision
    >>> # distances 1.5 and 1: nearer the second plane, but the rule gives the first
    >>> paper_rule_decision(np.array([3.0]), np.array([1.0]), 2.0, 1.0)
    array([0.25])
    """
    return np.abs(f2) / w2_norm ** 2 - np.abs(f1) / w1_norm ** 2
