"""The layout of the L1-regularised large-margin ordinal regression LP: matrix and named columns.

One :class:`OrdinalLayout` holds the constraint matrix of the ordinal SVM of
Chu & Keerthi (2005) with an L1 penalty, in either threshold form, optionally
with the privileged correcting functions of the LUPI variant, plus one *probe
slot* (an extra regular and an extra privileged feature column, switched off
by zero bounds unless a probe is loaded). Everything that the relevance LPs of
:class:`~lupikit.relevance.FeatureRelevanceBounds` change between solves is an
objective vector, a bound, the right-hand side of the budget row or the values
of a probe column: the sparse matrix is built once and those few numbers are
overwritten in place. The layout solves nothing (that is
:mod:`lupikit.relevance._engine`'s job); the solvers above it address its
columns by name (:meth:`OrdinalLayout.w_cols`, :meth:`~OrdinalLayout.v_cols`,
:meth:`~OrdinalLayout.probe_cols`, ...), never by offset arithmetic.

Variables (in this order)::

    w+ (D), w- (D)      regular weights, D = d (+1 probe slot)
    b (K)               thresholds, K = n_bins - 1, free
    s (R)               slacks, one per margin row          (plain model)
    v+ (2, P), v- (2, P), e (2)                             (LUPI model)
                        the two privileged correcting functions
                        g_0(x*) = x* . v_0 + e_0 (for "below" rows) and
                        g_1(x*) = x* . v_1 + e_1 (for "above" rows),
                        P = n_privileged (+1 probe slot)

Rows (all ``<=``)::

    R margin rows     sigma_r (x_i . w - b_k) - slack_r <= -1
    R nonneg rows     -g(x*_i) <= 0                          (LUPI only)
    K-1 order rows    b_k - b_{k+1} <= 0                     (explicit only)
    1 budget row      objective(x) <= (1 + delta) mu

with ``slack_r = s_r`` (plain) or ``g_{group(r)}(x*_i)`` (LUPI); sigma_r = +1
for a "below threshold k" row and -1 for an "above threshold k" row.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["OrdinalLayout"]


class OrdinalLayout:
    """The constraint matrix of the L1 ordinal SVM (plain or LUPI), built once.

    Parameters
    ----------
    X, yb, n_bins, C, constraints, X_star, gamma, probe
        As for :class:`~lupikit.relevance.OrdinalLP` (which adds ``solver``):
        the features, bin indices and number of bins, the slack weight, the
        threshold form, the privileged features (or None), the correcting
        functions' weight and whether to reserve a probe slot.
    epsilon : float or None
        None: the ordinal model. A float: the L1 support vector regression
        with an epsilon-insensitive loss (``yb`` then holds the real-valued
        targets, ``n_bins`` and ``constraints`` are ignored, and the single
        threshold ``b`` is minus the intercept); see :meth:`_margin_rows`.

    Attributes
    ----------
    A : sparse array of shape (n_rows, n_vars)
        The rows of the module docstring; the last one is the budget row.
    b : ndarray of shape (n_rows,)
        Right-hand sides (the budget's is set per solve: :meth:`rhs`).
    bounds : ndarray of shape (n_vars, 2)
        Column bounds (the probe slot's are 0 unless a probe is switched on).
    c_model : ndarray of shape (n_vars,)
        The model's objective (the budget row as a dense vector).
    r_budget : int
        Index of the budget row; the model's own rows are ``A[:r_budget]``.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.relevance._layout import OrdinalLayout
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> layout = OrdinalLayout(X, np.array([0, 1, 2]), 3, 1.0)
    >>> layout.A.shape, layout.w_cols(0), layout.threshold_cols()
    ((6, 8), (0, 1), slice(2, 4, None))
    """

    def __init__(self, X, yb, n_bins, C, constraints="explicit", X_star=None,
                 gamma=1.0, probe=False, epsilon=None):
        self.X = X
        self.yb = yb
        self.n, self.d = X.shape
        self.epsilon = None if epsilon is None else float(epsilon)
        self.regression = epsilon is not None
        self.K = 1 if self.regression else n_bins - 1
        self.C = float(C)
        self.constraints = constraints
        self.lupi = X_star is not None
        self.X_star = X_star
        self.gamma = float(gamma)
        self.probe = probe
        self.p = X_star.shape[1] if self.lupi else 0
        self._build()

    # ------------------------------------------------------------- named columns
    def w_cols(self, j):
        """Columns ``(w+_j, w-_j)`` of regular weight ``j`` (the probe slot: ``D - 1``)."""
        return self.o_wp + j, self.o_wm + j

    def v_cols(self, g, j):
        """Columns ``(v+_gj, v-_gj)`` of privileged weight ``j`` in correcting function ``g``."""
        return self.o_vp + g * self.P + j, self.o_vm + g * self.P + j

    def weight_pair_cols(self):
        """``(plus, minus)``: arrays of every weight's two columns, the regular weights
        first, then the privileged ones of functions 0 and 1 (LUPI)."""
        plus = [self.w_cols(j)[0] for j in range(self.D)]
        minus = [self.w_cols(j)[1] for j in range(self.D)]
        if self.lupi:
            plus += [self.v_cols(g, j)[0] for g in (0, 1) for j in range(self.P)]
            minus += [self.v_cols(g, j)[1] for g in (0, 1) for j in range(self.P)]
        return np.array(plus), np.array(minus)

    def threshold_cols(self):
        """Slice of the K thresholds ``b``."""
        return slice(self.o_b, self.o_b + self.K)

    def offset_cols(self):
        """Slice of the correcting functions' offsets ``e_0, e_1`` (LUPI)."""
        return slice(self.o_e, self.o_e + 2)

    def slack_cols(self):
        """Slice of the R slacks (plain model)."""
        return slice(self.o_s, self.o_s + self.R)

    def free_cols(self):
        """Indices of the free columns: thresholds, then (LUPI) offsets."""
        free = list(range(self.o_b, self.o_b + self.K))
        if self.lupi:
            free += [self.o_e, self.o_e + 1]
        return np.array(free)

    def probe_cols(self, privileged):
        """Columns of the regular (two) or privileged (four) probe slot."""
        if privileged:
            pairs = [self.v_cols(g, self.P - 1) for g in (0, 1)]
            return [pairs[0][0], pairs[1][0], pairs[0][1], pairs[1][1]]
        return list(self.w_cols(self.D - 1))

    def column(self, col):
        """``(rows, values)`` of column ``col`` of :attr:`A` (views, not copies)."""
        sl = self._col_slice(col)
        return self.A.indices[sl], self.A.data[sl]

    def rhs(self, budget):
        """The right-hand side with the budget row at ``budget``."""
        b = self.b.copy()
        b[self.r_budget] = budget
        return b

    def bounds_without(self, zero_feature):
        """The column bounds with a feature removed (``("regular"|"privileged", k)``:
        its weights fixed at 0), or :attr:`bounds` itself for None."""
        if zero_feature is None:
            return self.bounds
        bounds = self.bounds.copy()
        which, k = zero_feature
        if which == "regular":
            bounds[list(self.w_cols(k)), 1] = 0.0
        else:
            for g in (0, 1):
                bounds[list(self.v_cols(g, k)), 1] = 0.0
        return bounds

    # ------------------------------------------------------------------ layout
    def _margin_rows(self):
        """``(sample, threshold, sign, rhs)`` of every margin row
        ``sign (x_i . w - b_k) - slack <= rhs``.

        Ordinal: a "below threshold k" (+1) and an "above threshold k" (-1)
        row per sample and threshold it must respect, ``rhs = -1`` (the
        margin). Regression (``epsilon`` given): the epsilon tube around
        ``f(x) = x . w - b`` with one threshold ``b`` (minus the intercept):
        ``f(x_i) - y_i <= epsilon + slack`` (+1, ``rhs = epsilon + y_i``) and
        ``y_i - f(x_i) <= epsilon + slack`` (-1, ``rhs = epsilon - y_i``).
        """
        n, K, yb = self.n, self.K, self.yb
        if self.regression:
            y = np.asarray(yb, dtype=float)
            ri = np.r_[np.arange(n), np.arange(n)]
            rs = np.r_[np.ones(n), -np.ones(n)]
            rhs = np.r_[self.epsilon + y, self.epsilon - y]
            return ri, np.zeros(2 * n, dtype=int), rs, rhs
        if self.constraints == "explicit":
            below = np.flatnonzero(yb < K)
            above = np.flatnonzero(yb > 0)
            ri = np.concatenate([below, above])
            rk = np.concatenate([yb[below], yb[above] - 1])
            rs = np.concatenate([np.ones(below.size), -np.ones(above.size)])
        else:
            kk, ii = np.meshgrid(np.arange(K), np.arange(n), indexing="ij")
            ri, rk = ii.ravel(), kk.ravel()
            rs = np.where(yb[ri] <= rk, 1.0, -1.0)
        return ri, rk, rs, -np.ones(ri.size)

    def _build(self):
        n, K = self.n, self.K
        ri, rk, rs, rhs = self._margin_rows()
        self.row_i, self.row_k, self.row_sign = ri, rk, rs
        self.row_group = (rs < 0).astype(int)  # 0: below, 1: above
        R = ri.size
        self.R = R
        D = self.d + (1 if self.probe else 0)
        P = self.p + (1 if (self.probe and self.lupi) else 0)
        self.D, self.P = D, P

        # column offsets (read them through the named accessors above)
        self.o_wp, self.o_wm, self.o_b = 0, D, 2 * D
        off = 2 * D + K
        if self.lupi:
            self.o_vp = off            # v+ of function g: o_vp + g * P + j
            self.o_vm = off + 2 * P
            self.o_e = off + 4 * P
            self.n_vars = off + 4 * P + 2
        else:
            self.o_s = off
            self.n_vars = off + R
        # row offsets
        self.r_nonneg = R
        self.n_order = K - 1 if self.constraints == "explicit" and not self.regression else 0
        self.r_order = R + (R if self.lupi else 0)
        self.r_budget = self.r_order + self.n_order
        self.n_rows = self.r_budget + 1

        rows, cols, vals = [], [], []

        def add(r, c, v):
            rows.append(np.asarray(r, dtype=np.int64).ravel())
            cols.append(np.broadcast_to(np.asarray(c, dtype=np.int64), np.shape(r)).ravel())
            vals.append(np.broadcast_to(np.asarray(v, dtype=float), np.shape(r)).ravel())

        zeros_n = np.zeros(n)
        for j in range(D):
            x = self.X[:, j] if j < self.d else zeros_n
            plus, minus = self.w_cols(j)
            r, v = self._regular_column(x)
            add(r, plus, v)
            r, v = self._regular_column(x, negative=True)
            add(r, minus, v)
        # thresholds: margin rows -sigma_r, order rows
        add(np.arange(R), self.o_b + rk, -rs)
        if self.n_order:
            kk = np.arange(K - 1)
            add(self.r_order + kk, self.o_b + kk, 1.0)
            add(self.r_order + kk, self.o_b + kk + 1, -1.0)
        if self.lupi:
            zeros_p = np.zeros(n)
            for g in (0, 1):
                for j in range(P):
                    xs = self.X_star[:, j] if j < self.p else zeros_p
                    plus, minus = self.v_cols(g, j)
                    r, v = self._privileged_column(xs, g)
                    add(r, plus, v)
                    r, v = self._privileged_column(xs, g, negative=True)
                    add(r, minus, v)
                mask = np.flatnonzero(self.row_group == g)
                add(mask, self.o_e + g, -1.0)
                add(self.r_nonneg + mask, self.o_e + g, -1.0)
                add([self.r_budget], self.o_e + g, self.C * mask.size)
        else:
            add(np.arange(R), self.o_s + np.arange(R), -1.0)
            add(np.full(R, self.r_budget), self.o_s + np.arange(R), self.C)

        A = sp.csc_array(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(self.n_rows, self.n_vars),
        )
        A.sort_indices()
        self.A = A
        self.b = np.zeros(self.n_rows)
        self.b[:R] = rhs
        self.b[self.r_budget] = np.inf  # set per solve (rhs)
        self.c_model = A[[self.r_budget], :].toarray().ravel()
        lo = np.zeros(self.n_vars)
        hi = np.full(self.n_vars, np.inf)
        lo[self.threshold_cols()] = -np.inf
        if self.lupi:
            lo[self.offset_cols()] = -np.inf
        self.bounds = np.column_stack([lo, hi])
        if self.probe:
            self.set_probe_bounds(regular=False, privileged=False)

    def _regular_column(self, x, negative=False):
        sgn = -1.0 if negative else 1.0
        r = np.concatenate([np.arange(self.R), [self.r_budget]])
        v = np.concatenate([sgn * self.row_sign * x[self.row_i], [0.5]])
        return r, v

    def _privileged_column(self, xs, g, negative=False):
        sgn = -1.0 if negative else 1.0
        mask = np.flatnonzero(self.row_group == g)
        vals = xs[self.row_i[mask]]
        r = np.concatenate([mask, self.r_nonneg + mask, [self.r_budget]])
        v = np.concatenate([
            -sgn * vals, -sgn * vals,
            [0.5 * self.gamma + sgn * self.C * vals.sum()],
        ])
        return r, v

    # ------------------------------------------------------------ probe slot
    def _col_slice(self, col):
        return slice(self.A.indptr[col], self.A.indptr[col + 1])

    def _overwrite(self, col, values):
        sl = self._col_slice(col)
        if sl.stop - sl.start != values.size:  # pragma: no cover - structural
            raise RuntimeError("probe column structure mismatch")
        self.A.data[sl] = values

    def set_probe(self, values, privileged=False):
        """Load ``values`` (length n) into the regular or privileged probe slot."""
        if not self.probe:
            raise RuntimeError("this LP has no probe slot")
        values = np.asarray(values, dtype=float)
        if privileged:
            j = self.P - 1
            for g in (0, 1):
                plus, minus = self.v_cols(g, j)
                self._overwrite(plus, self._privileged_column(values, g)[1])
                self._overwrite(minus, self._privileged_column(values, g, negative=True)[1])
                # the budget row's entries are the model's costs
                self.c_model[plus] = self.A.data[self._col_slice(plus)][-1]
                self.c_model[minus] = self.A.data[self._col_slice(minus)][-1]
        else:
            plus, minus = self.w_cols(self.D - 1)
            self._overwrite(plus, self._regular_column(values)[1])
            self._overwrite(minus, self._regular_column(values, negative=True)[1])

    def set_probe_bounds(self, regular, privileged):
        """Switch the regular and privileged probe slots on (free weights) or off (0)."""
        if not self.probe:
            return
        for col in self.probe_cols(privileged=False):
            self.bounds[col, 1] = np.inf if regular else 0.0
        if self.lupi:
            for col in self.probe_cols(privileged=True):
                self.bounds[col, 1] = np.inf if privileged else 0.0

    # ------------------------------------------------------------- solutions
    def cost_parts(self):
        """``(c_reg, c_loss)`` with model objective ``c_reg + C * c_loss``."""
        c_reg = np.zeros(self.n_vars)
        plus, minus = self.weight_pair_cols()
        c_reg[plus[: self.D]] = c_reg[minus[: self.D]] = 0.5
        if self.lupi:
            c_reg[plus[self.D:]] = c_reg[minus[self.D:]] = 0.5 * self.gamma
        return c_reg, (self.c_model - c_reg) / self.C

    def point(self, w, b):
        """The plain LP's solution vector for weights ``w`` and thresholds ``b``."""
        x = np.zeros(self.n_vars)
        x[self.o_wp:self.o_wp + self.d] = np.maximum(w[: self.d], 0.0)
        x[self.o_wm:self.o_wm + self.d] = np.maximum(-w[: self.d], 0.0)
        x[self.threshold_cols()] = b
        f = self.X @ w[: self.d]
        x[self.slack_cols()] = np.maximum(
            self.row_sign * (f[self.row_i] - b[self.row_k]) - self.b[: self.R], 0.0)
        return x

    def split(self, x):
        """Named parts of a solution vector: ``w``, ``b`` and ``s`` (plain) or
        ``v`` (shape ``(p, 2)``) and ``e`` (LUPI)."""
        out = {
            "w": x[self.o_wp:self.o_wp + self.d] - x[self.o_wm:self.o_wm + self.d],
            "b": x[self.threshold_cols()].copy(),
        }
        if self.lupi:
            P, p = self.P, self.p
            vp = x[self.o_vp:self.o_vp + 2 * P].reshape(2, P)[:, :p]
            vm = x[self.o_vm:self.o_vm + 2 * P].reshape(2, P)[:, :p]
            out["v"] = (vp - vm).T  # (p, 2)
            out["e"] = x[self.offset_cols()].copy()
        else:
            out["s"] = x[self.slack_cols()].copy()
        return out

    def weight(self, x, kind, j):
        """The weight a relevance bound of ``kind`` measures at ``x``: ``|w_j|``, or
        ``|v_0j| + |v_1j|`` for ``pmin``/``pmax``."""
        if kind in ("min", "max"):
            plus, minus = self.w_cols(j)
            return abs(x[plus] - x[minus])
        return sum(abs(x[p] - x[m]) for p, m in (self.v_cols(g, j) for g in (0, 1)))

    # ----------------------------------------------------- relevance problems
    def relevance_objectives(self, kind, j):
        """Objective vectors whose LP values give a relevance bound.

        Returns a list of ``(c, sign)``: the bound is ``sign * min c.x``
        (aggregated by max over the list for upper bounds).
        """
        c_list = []
        n = self.n_vars
        if kind in ("min", "max"):
            cp, cm = self.w_cols(j)
            if kind == "min":
                c = np.zeros(n)
                c[cp] = c[cm] = 1.0
                c_list.append((c, 1.0))
            else:
                for s in (1.0, -1.0):
                    c = np.zeros(n)
                    c[cp], c[cm] = -s, s
                    c_list.append((c, -1.0))
        else:  # privileged feature j: relevance |v_0j| + |v_1j|
            cols_p = [self.v_cols(g, j)[0] for g in (0, 1)]
            cols_m = [self.v_cols(g, j)[1] for g in (0, 1)]
            if kind == "pmin":
                c = np.zeros(n)
                c[cols_p + cols_m] = 1.0
                c_list.append((c, 1.0))
            else:
                for s0 in (1.0, -1.0):
                    for s1 in (1.0, -1.0):
                        c = np.zeros(n)
                        c[cols_p[0]], c[cols_m[0]] = -s0, s0
                        c[cols_p[1]], c[cols_m[1]] = -s1, s1
                        c_list.append((c, -1.0))
        return c_list
