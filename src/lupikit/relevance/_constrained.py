"""Relevance intervals with some features' weights fixed, and groups of redundant features.

Fixing a feature at a relevance value ``v`` (``|w_j| = v``) splits the budget
set into two convex pieces, ``w_j = +v`` and ``w_j = -v`` (one for ``v = 0``).
On each piece every other feature's minrel and maxrel are linear programs of
the same form as the unconstrained ones, with the fixed weights' columns
bounded to their value; the bounds on the union are the smallest minrel and
the largest maxrel over the pieces that meet the budget. With ``m`` features
fixed at non-zero values there are ``2**m`` pieces.
"""

import itertools

import numpy as np
from scipy.sparse.csgraph import connected_components

from ._highs import LinearProgramError
from ._tasks import RelevanceTask

__all__ = ["constrained_bounds", "redundancy_groups", "redundancy_links"]


def constrained_bounds(make_lp, fixed, features, budget):
    """Bounds ``(lo, hi)`` of ``features`` with the weights in ``fixed`` held at their values.

    Parameters
    ----------
    make_lp : callable
        Returns a fresh :class:`~lupikit.relevance.OrdinalLP` of the fitted model
        (no probe slot; primal route: the fixed weights are column bounds).
    fixed : dict
        ``{feature: |w_j|}`` in the LP's units.
    features : sequence of int
        The features whose bounds are recomputed.
    budget : float
        The unconstrained fit's budget ``(1 + delta) mu``.

    Returns
    -------
    lo, hi : ndarray of shape (len(features),)
        In the LP's units.

    Raises
    ------
    ValueError
        If no piece meets the budget (the values cannot all hold together).
    """
    items = sorted(fixed.items())
    signs = [(1.0, -1.0) if value > 0 else (1.0,) for _, value in items]
    lo = np.full(len(features), np.inf)
    hi = np.full(len(features), -np.inf)
    feasible = False
    for combo in itertools.product(*signs):
        lp = make_lp()
        for (j, value), s in zip(items, combo):
            plus, minus = lp.w_cols(j)
            lp.bounds[plus] = (value, value) if s > 0 else (0.0, 0.0)
            lp.bounds[minus] = (0.0, 0.0) if s > 0 else (value, value)
        try:
            model = lp.solve_model()
        except LinearProgramError:
            continue
        if model.fun > budget * (1 + 1e-7) + 1e-9:
            continue  # this piece does not meet the budget
        # a value at the end of its interval (a maxrel) puts this piece's optimum on the
        # budget itself: within the LP tolerance, the budget is taken to include it
        feasible = True
        tasks = [RelevanceTask(kind, k) for k in features for kind in ("min", "max")]
        values = np.asarray(lp.run_tasks(tasks, max(budget, model.fun)), dtype=float)
        lo = np.minimum(lo, values[0::2])
        hi = np.maximum(hi, values[1::2])
    if not feasible:
        raise ValueError(
            f"No model within the budget has the fixed relevances {dict(items)} "
            "(in the LP's units) together; choose values inside the features' "
            "constrained intervals.")
    return lo, hi


def redundancy_links(constrained, features, weak, threshold):
    """Which weakly relevant features stand in for each other, by fixing them at 0.

    Every weak feature ``j`` is fixed at 0 in turn; ``k`` is linked to it if its
    minrel then exceeds ``threshold[k]`` (``k`` became indispensable). Weak
    features left without a link (members of larger groups) are then fixed at 0
    in pairs ``(a, b)``: features this makes indispensable are linked to both,
    and a pair that no model within the budget can do without is linked itself.

    Parameters
    ----------
    constrained : callable
        ``constrained(fixed, features=...)``, as
        :meth:`FeatureRelevanceBounds.constrained_intervals`.
    features : ndarray of int
        The relevant features (the rows and columns of the results).
    weak : list of int
        The weakly relevant ones among them.
    threshold : ndarray of shape (n_features,)
        The minrel above which a feature counts as indispensable.

    Returns
    -------
    need : ndarray of shape (m, m)
        ``need[a, b]``: feature ``b``'s minrel with feature ``a`` fixed at 0.
    link : ndarray of bool of shape (m, m)
    """
    where = {int(j): i for i, j in enumerate(features)}
    need = np.zeros((len(features), len(features)))
    link = np.zeros_like(need, dtype=bool)
    for j in weak:
        others = [k for k in weak if k != j]
        if not others:
            continue
        pinned = constrained({j: 0.0}, features=others)
        for k in others:
            need[where[j], where[k]] = pinned[k, 0]
            link[where[j], where[k]] = pinned[k, 0] > threshold[k]
    alone = [j for j in weak if not (link[where[j]].any() or link[:, where[j]].any())]
    for a, b in itertools.combinations(alone, 2):
        others = [k for k in alone if k not in (a, b)]
        if not others:
            continue
        try:
            pinned = constrained({a: 0.0, b: 0.0}, features=others)
        except ValueError:  # a and b together carry something nothing else can
            link[where[a], where[b]] = True
            continue
        for k in others:
            if pinned[k, 0] > threshold[k]:
                link[where[a], where[k]] = link[where[b], where[k]] = True
    return need, link


def redundancy_groups(features, link, strong):
    """Groups of features: connected components of the ``link`` matrix.

    Parameters
    ----------
    features : sequence of int
        The relevant features, in the order of ``link``'s rows and columns.
    link : ndarray of bool of shape (m, m)
        ``link[a, b]``: features ``a`` and ``b`` stand in for each other (the
        matrix is symmetrised).
    strong : sequence of bool
        Which of ``features`` are strongly relevant: they stand alone.

    Returns
    -------
    list of ndarray
        Every feature of ``features`` in exactly one group, groups ordered by
        their first feature.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.relevance._constrained import redundancy_groups
    >>> link = np.zeros((4, 4), dtype=bool); link[1, 2] = True
    >>> [g.tolist() for g in redundancy_groups([0, 3, 4, 7], link, [True, False, False, False])]
    [[0], [3, 4], [7]]
    """
    features = np.asarray(features, dtype=int)
    strong = np.asarray(strong, dtype=bool)
    link = np.asarray(link, dtype=bool)
    link = (link | link.T) & ~strong[:, None] & ~strong[None, :]
    np.fill_diagonal(link, False)
    _, labels = connected_components(link, directed=False)
    groups = [np.sort(features[labels == g]) for g in np.unique(labels)]
    return sorted(groups, key=lambda g: g[0])
