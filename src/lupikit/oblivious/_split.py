"""The estimation / fitting split of the oblivious estimators (private).

:class:`~lupikit.oblivious.ObliviousRidge` and
:class:`~lupikit.oblivious.ObliviousSVC` estimate the conditional mean
embeddings on one part of the training sample (the *estimation* part) and fit
the kernel method on the other (the *fitting* part). Two kinds of rows must be
on a given side, or the fit fails:

- with a discrete partition of ``S`` (and ``handle_unknown="error"``) every
  sensitive group must be in the estimation part, or its conditional mean
  cannot be estimated;
- for the classifier every class of ``y`` must be in the fitting part.

:func:`random_split` draws a random split meeting both whenever some split of
the requested sizes does, and otherwise raises a :class:`ValueError` saying
why and what would be needed. Beyond these it keeps every group with at least
two rows on *both* sides where the sizes allow. The split of earlier versions
(:func:`legacy_split`) is returned unchanged whenever it does all this, so
results that did not fail before stay bit for bit the same.
"""

from collections import deque

import numpy as np
from sklearn.model_selection import train_test_split

__all__ = ["random_split", "legacy_split", "check_ordered_split"]

_FREE, _EST, _FIT = -1, 0, 1


def _fmt(value):
    """A group's value for a message: a number, or a list for several columns."""
    value = np.asarray(value)
    return value.item() if value.size == 1 else value.tolist()


def _smallest_group(codes, values):
    cnt = np.bincount(codes, minlength=len(values))
    g = int(np.argmin(cnt))
    return f"the smallest group, {_fmt(values[g])}, has {cnt[g]} sample(s)"


def _fraction_range(n, n_est_min, n_fit_min):
    """The smallest and largest ``estimation_fraction`` (2 decimals, below 1) giving
    at least ``n_est_min`` estimation and ``n_fit_min`` fitting rows, or None."""
    ok = [h / 100.0 for h in range(1, 100)
          if int(round(h / 100.0 * n)) >= n_est_min and n - int(round(h / 100.0 * n)) >= n_fit_min]
    return (ok[0], ok[-1]) if ok else None


def legacy_split(n, n_est, seed, groups, y_codes):
    """The split of lupikit before issue 24 (kept for results that did not fail).

    ``train_test_split`` seeded by ``seed``, stratified by the distinct rows of
    ``S`` (codes ``groups``) when there are few of them and none is a
    singleton; for a classifier (``y_codes`` given) a class missing from the
    fitting part is then swapped in (:func:`_keep_classes`).
    """
    idx = np.arange(n)
    cnt = np.bincount(groups)
    strat = None
    if cnt.size <= max(2, min(n_est, n - n_est) // 2) and cnt.min() >= 2:
        strat = groups
    try:
        est_idx, fit_idx = train_test_split(idx, train_size=n_est, random_state=seed,
                                            stratify=strat)
    except ValueError:  # (a part smaller than the number of groups: was an error)
        est_idx, fit_idx = train_test_split(idx, train_size=n_est, random_state=seed)
    if y_codes is not None:
        est_idx, fit_idx = _keep_classes(est_idx, fit_idx, y_codes, groups, seed)
    return np.sort(est_idx), np.sort(fit_idx)


def _keep_classes(est_idx, fit_idx, y, groups, seed):
    """Move a point of each class missing from the fitting part into it.

    Each missing class swaps one of its points in the estimation part with a
    point of the fitting part whose class is there at least twice, chosen in
    the same sensitive group when possible (so the group counts of both parts
    are unchanged). A split already holding every class is returned unchanged.
    The caller has checked that the fitting part has room for every class.
    """
    missing = np.setdiff1d(np.unique(y), y[fit_idx])
    if missing.size == 0:
        return est_idx, fit_idx
    rng = np.random.RandomState(seed)
    est_idx, fit_idx = est_idx.copy(), fit_idx.copy()
    for c in missing:
        e = rng.choice(np.flatnonzero(y[est_idx] == c))
        _, inv, cnt = np.unique(y[fit_idx], return_inverse=True, return_counts=True)
        spare = cnt[inv.ravel()] >= 2
        same = spare & (groups[fit_idx] == groups[est_idx[e]])
        f = rng.choice(np.flatnonzero(same if same.any() else spare))
        est_idx[e], fit_idx[f] = fit_idx[f], est_idx[e]
    return est_idx, fit_idx


def _check_sizes(n, n_est, frac, groups, values, groups_required, y_codes, classes):
    """Raise if the parts are too small for every required group or class."""
    n_fit = n - n_est
    n_classes = 0 if y_codes is None else len(classes)
    n_groups = len(values) if groups_required else 0
    feasible = _fraction_range(n, max(n_groups, 1), max(n_classes, 1))
    if n_fit < n_classes:
        hint = (f" (estimation_fraction <= {feasible[1]:.2f})" if feasible is not None else "")
        raise ValueError(
            f"The fitting part of the split has {n_fit} samples, fewer than the {n_classes} "
            f"classes of y; every class must be in it. Lower estimation_fraction{hint} or "
            "use estimation_fraction=1.0."
        )
    if n_est < n_groups:
        need = (f"estimation_fraction >= {feasible[0]:.2f} (at least {n_groups} estimation "
                "samples), " if feasible is not None else "")
        raise ValueError(
            f"estimation_fraction={frac!r} leaves {n_est} of the {n} samples for estimation, "
            f"fewer than the {n_groups} sensitive groups of sensitive_features; every group "
            "must be in the estimation part (its conditional mean is estimated there, the "
            f"discrete partition knows no other group); {_smallest_group(groups, values)}. "
            f"Use {need}estimation_fraction=1.0 (the whole sample for both parts) or "
            "handle_unknown='empty' (an unseen group is treated as an empty cell)."
        )


class _Needs:
    """Distinct representative rows for the required groups (estimation side)
    and classes (fitting side): a bipartite matching by augmenting paths.

    A row belongs to one group and one class, so it can serve at most one
    requirement of each side, and never both (it is in one part only).
    """

    def __init__(self, n):
        self.owner = np.full(n, -1)  # the requirement a row represents
        self.cands, self.side, self.match = [], [], []

    def add(self, rows, side):
        self.cands.append(rows)
        self.side.append(side)
        self.match.append(-1)

    def solve(self, order):
        """Match the requirements in ``order``; return the first that cannot be met."""
        for k in order:
            free = self.cands[k][self.owner[self.cands[k]] == -1]
            if free.size:  # the common case: an unclaimed row
                self.owner[free[0]] = k
                self.match[k] = free[0]
            elif not self._augment(k):
                return k
        return None

    def _augment(self, start):
        parent = {start: None}
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for r in self.cands[u]:
                v = self.owner[r]
                if v == -1:  # free row: shift the representatives along the path
                    cur, row = u, r
                    while cur is not None:
                        old = self.match[cur]
                        self.match[cur], self.owner[row] = row, cur
                        cur, row = parent[cur], old
                    return True
                if v not in parent:
                    parent[v] = u
                    queue.append(v)
        return False


def _rows_by_code(codes, n_codes, rank):
    """The rows of each code ``0 .. n_codes - 1``, each list in increasing ``rank``."""
    order = np.lexsort((rank, codes))
    return np.split(order, np.cumsum(np.bincount(codes, minlength=n_codes))[:-1])


def _construct(n, n_est, seed, groups, values, groups_required, y_codes, classes):
    """A split meeting every requirement, built row by row (see :func:`random_split`)."""
    rs = np.random.RandomState(seed)
    prio = rs.permutation(n)  # candidates are tried in this random order
    rank = np.empty(n, dtype=np.int64)
    rank[prio] = np.arange(n)
    group_rows = _rows_by_code(groups, len(values), rank)
    needs = _Needs(n)
    if groups_required:
        for rows in group_rows:
            needs.add(rows, _EST)
    if y_codes is not None:
        for rows in _rows_by_code(y_codes, len(classes), rank):
            needs.add(rows, _FIT)
    order = sorted(range(len(needs.cands)), key=lambda k: (needs.cands[k].size, k))
    failed = needs.solve(order)
    if failed is not None:
        n_groups = len(values) if groups_required else 0
        if needs.side[failed] == _EST:
            what = (f"sensitive group {_fmt(values[failed])} ({group_rows[failed].size} "
                    "sample(s)) must be in the estimation part, but each of its samples is "
                    "the only one left of a class of y that the fitting part must hold")
        else:
            c = failed - n_groups
            what = (f"class {_fmt(classes[c])!r} of y ({needs.cands[failed].size} sample(s)) "
                    "must be in the fitting part, but each of its samples is the only one left of a "
                    "sensitive group that the estimation part must hold")
        raise ValueError(
            f"No split of the {n} samples puts every sensitive group in the estimation part "
            f"and every class of y in the fitting part: {what}; "
            f"{_smallest_group(groups, values)}. Use estimation_fraction=1.0 (the whole "
            "sample for both parts) or handle_unknown='empty' (an unseen group is treated "
            "as an empty cell)."
        )
    side = np.full(n, _FREE)
    for k, r in enumerate(needs.match):
        side[r] = needs.side[k]
    room = {_EST: n_est - np.sum(side == _EST), _FIT: n - n_est - np.sum(side == _FIT)}
    # where the sizes allow, every group on both sides (estimation first: there a
    # group's absence changes its conditional mean)
    for want in (_EST, _FIT):
        for rows in group_rows:
            if room[want] > 0 and not np.any(side[rows] == want):
                free = rows[side[rows] == _FREE]
                if free.size:
                    side[free[0]] = want
                    room[want] -= 1
    # the remaining rows fill both parts at random
    rest = prio[side[prio] == _FREE]
    side[rest[: room[_EST]]] = _EST
    side[rest[room[_EST]:]] = _FIT
    return np.flatnonzero(side == _EST), np.flatnonzero(side == _FIT)


def _coverage(est_idx, fit_idx, groups, n_groups):
    """Groups present in the estimation part, and the number of (group, side) pairs held."""
    in_est = np.bincount(groups[est_idx], minlength=n_groups) > 0
    in_fit = np.bincount(groups[fit_idx], minlength=n_groups) > 0
    return in_est, int(in_est.sum() + in_fit.sum())


def _meets(split, y_codes, n_classes, groups, n_groups, groups_required, target):
    est_idx, fit_idx = split
    if y_codes is not None and np.unique(y_codes[fit_idx]).size < n_classes:
        return False
    in_est, held = _coverage(est_idx, fit_idx, groups, n_groups)
    return (not groups_required or in_est.all()) and held >= target


def random_split(n, n_est, *, seed, frac, S, discrete, groups_required, y=None):
    """Estimation and fitting rows of a random split; see the module docstring.

    Parameters
    ----------
    n, n_est : int
        Sample size and estimation-part size (``1 <= n_est < n``).
    seed : int
        Seeds every random choice (deterministic).
    frac : float
        ``estimation_fraction``, for messages.
    S : ndarray of shape (n, n_s)
        Sensitive features.
    discrete : bool
        Whether the partition is discrete: its cells are the distinct rows of
        ``S`` (the *groups*). Without it no group is required anywhere (a cell
        unseen in the estimation part is an empty cell).
    groups_required : bool
        Whether every group must be in the estimation part
        (``handle_unknown="error"``); else that is kept where possible only.
    y : ndarray of shape (n,) or None
        Class labels (classifier): every class must be in the fitting part.

    Returns
    -------
    est_idx, fit_idx : ndarray of int, sorted

    Raises
    ------
    ValueError
        If no split of these sizes meets the requirements: naming the
        requirement, the smallest group (its value and size) and the
        ``estimation_fraction`` that would do.
    """
    values, groups = np.unique(S, axis=0, return_inverse=True)
    groups = groups.ravel()
    classes = y_codes = None
    if y is not None:
        classes, y_codes = np.unique(y, return_inverse=True)
        y_codes = y_codes.ravel()
    groups_required = groups_required and discrete
    _check_sizes(n, n_est, frac, groups, values, groups_required, y_codes, classes)
    legacy = legacy_split(n, n_est, seed, groups, y_codes)
    if not discrete:
        return legacy
    built = _construct(n, n_est, seed, groups, values, groups_required, y_codes, classes)
    G, K = len(values), (0 if classes is None else len(classes))
    _, target = _coverage(*built, groups, G)
    if _meets(legacy, y_codes, K, groups, G, groups_required, target):
        return legacy
    # a split stratified by (group, class), or by group, keeps the proportions
    joint = groups if y_codes is None else groups * K + y_codes
    for strat in (joint, groups):
        try:
            est_idx, fit_idx = train_test_split(np.arange(n), train_size=n_est,
                                                random_state=seed, stratify=strat)
        except ValueError:  # a stratum with one row, or more strata than rows on a side
            continue
        split = (np.sort(est_idx), np.sort(fit_idx))
        if _meets(split, y_codes, K, groups, G, groups_required, target):
            return split
    return built


def check_ordered_split(fit_idx, est_idx, S, discrete, groups_required, y=None):
    """Raise if the ordered split misses a required group or class (it cannot be repaired)."""
    n_fit, n_est = fit_idx.size, est_idx.size
    if y is not None:
        missing = np.setdiff1d(np.unique(y), y[fit_idx])
        if missing.size:
            raise ValueError(
                f"split='ordered' fits on the first {n_fit} rows, which hold no sample of "
                f"class(es) {missing.tolist()} of y; every class must be in the fitting part. "
                "Reorder the rows, use split='random' or estimation_fraction=1.0."
            )
    if discrete and groups_required:
        values = np.unique(S, axis=0)
        seen = np.unique(S[est_idx], axis=0)
        if len(seen) < len(values):
            missing = [_fmt(v) for v in values if not (seen == v).all(axis=1).any()]
            raise ValueError(
                f"split='ordered' estimates on the last {n_est} rows, which hold no sample of "
                f"sensitive group(s) {missing[:5]} of sensitive_features; every group must be "
                "in the estimation part. Reorder the rows, use split='random', "
                "estimation_fraction=1.0 or handle_unknown='empty'."
            )
