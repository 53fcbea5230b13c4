"""The histogram engine of Part I: XGBoost's ``hist`` trees on soft labels (private).

Every mode of Part I is gradient boosting of the log-loss to *soft labels*
``T`` with per-row weights ``w`` (the soft-label identity of the theory
chapter): the objective ``NLL + alpha KL(q || p)`` of example ``i`` equals
``(1 + alpha) CE(T_i, p_i)`` plus a constant, with
``T_i = (Y_i + alpha q_i) / (1 + alpha)``, so its gradient ``(1 + alpha) p_i
- Y_i - alpha q_i`` and hessian ``(1 + alpha) p_i (1 - p_i)`` are those of the
weighted cross-entropy with ``w_i = 1 + alpha``.

=============  ==========================================  ======
mode           soft labels ``T``                            ``w``
=============  ==========================================  ======
NF             ``Y``                                        1
KbPIB          ``(Y + alpha q) / (1 + alpha)``, ``q`` fixed  1 + alpha
soft labels    ``(1 - lambda) Y + lambda q``                1
JPIB           as KbPIB, ``q`` the privileged model's now;   1 + alpha
               its own labels use the student's ``p``
=============  ==========================================  ======

Two classes use XGBoost's own ``binary:logistic``, which accepts labels in
[0, 1] and weights: no Python runs per tree. More classes use the custom
objective :func:`soft_label_objective` on a label *matrix* ``T`` (one column
per class, one tree per class and round, as ``multi:softprob``), with the
hessian convention of XGBoost's ``multi:softprob`` (twice the diagonal of the
softmax hessian), so that ``alpha = 0`` continues XGBoost's own model. NF with
more classes calls ``multi:softprob`` itself.

Raw scores carry a start score ``init`` (the log-odds or log class priors of
the training labels, as the exact engine), passed to XGBoost as the
``base_margin`` of every matrix; a booster therefore holds only trees.

This module runs on NumPy arrays on one machine; :mod:`._hist_dask` runs the
same recipes on dask collections through ``xgboost.dask``.
"""

import hashlib
import threading
from collections import OrderedDict

import numpy as np
import xgboost as xgb
from joblib import effective_n_jobs
from scipy.special import expit, logsumexp

__all__ = [
    "SOFTMAX_HESSIAN_SCALE",
    "engine_params",
    "soft_label_gradient",
    "soft_label_objective",
    "margin_to_proba",
    "mean_log_loss",
    "boost",
    "boost_jpib",
    "predict_margin",
    "check_float32_range",
]

#: XGBoost's ``multi:softprob`` uses ``2 p (1 - p)`` as the hessian of class ``k``.
SOFTMAX_HESSIAN_SCALE = 2.0
_HESS_FLOOR = 1e-16  # XGBoost's floor on the hessian of its softmax objective


def engine_params(*, max_depth, learning_rate, max_bins, n_jobs, seed, n_classes, builtin):
    """XGBoost parameters shared by every booster of one estimator.

    Leaf values are unregularised Newton steps (``reg_lambda=0``,
    ``min_child_weight=0``, ``gamma=0``), as in the exact engine and the paper.
    ``builtin`` selects XGBoost's own objective (``binary:logistic``, which
    takes soft labels, or ``multi:softprob``); otherwise the caller passes
    :func:`soft_label_objective`.
    """
    params = {
        "tree_method": "hist",
        "learning_rate": float(learning_rate),
        "max_bin": int(max_bins),
        "reg_lambda": 0.0,
        "reg_alpha": 0.0,
        "min_child_weight": 0.0,
        "gamma": 0.0,
        "seed": int(seed),
        "verbosity": 0,
        "disable_default_eval_metric": 1,
    }
    if max_depth is None:
        params.update(max_depth=0, grow_policy="lossguide")
    else:
        params["max_depth"] = int(max_depth)
    threads = n_threads(n_jobs)
    if threads is not None:
        params["nthread"] = threads
    if builtin and n_classes == 2:
        params.update(objective="binary:logistic", base_score=0.5)
    elif builtin:
        params.update(objective="multi:softprob", num_class=int(n_classes))
    # base_score never matters: every matrix carries the start score as its base margin
    return params


def n_threads(n_jobs):
    """XGBoost's ``nthread`` from scikit-learn's ``n_jobs`` (None: XGBoost's default)."""
    if n_jobs is None:
        return None
    return int(effective_n_jobs(n_jobs))


def margin_to_proba(margin):
    """Class probabilities (n, K) from XGBoost margins (n,) or (n, K)."""
    margin = np.asarray(margin, dtype=np.float64)
    if margin.ndim == 1:
        p1 = expit(margin)
        return np.column_stack([1.0 - p1, p1])
    return np.exp(margin - logsumexp(margin, axis=1, keepdims=True))


def _tree_space_proba(margin):
    margin = np.asarray(margin, dtype=np.float64)
    if margin.ndim == 1:
        return expit(margin)
    return np.exp(margin - logsumexp(margin, axis=1, keepdims=True))


def soft_label_gradient(raw, T, weight=None):
    """Gradient and diagonal hessian of ``w * CE(T, p)`` in tree space.

    Parameters
    ----------
    raw : ndarray of shape (n,) or (n, K)
        Raw scores: log-odds of class 1 (two classes) or softmax scores.
    T : ndarray of shape (n,) or (n, K)
        Soft labels: ``P(y = 1)`` (two classes) or one probability per class.
    weight : ndarray of shape (n,) or None
        Row weights ``w`` (None: all 1).

    Returns
    -------
    grad, hess : ndarray of the shape of ``raw``
        ``w (p - T)`` and ``w p (1 - p)`` (the exact diagonal; the XGBoost
        objective scales it by :data:`SOFTMAX_HESSIAN_SCALE` for K > 2).
    """
    raw = np.asarray(raw, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64).reshape(raw.shape)
    P = _tree_space_proba(raw)
    grad = P - T
    hess = P * (1.0 - P)
    if weight is not None:
        w = np.asarray(weight, dtype=np.float64)
        w = w if raw.ndim == 1 else w[:, None]
        grad, hess = w * grad, w * hess
    return grad, hess


def soft_label_objective(predt, dtrain, n_outputs=None):
    """XGBoost custom objective: cross-entropy to the soft labels of the matrix.

    The soft labels are the matrix's labels (shape ``(n, K)`` for ``K > 2``
    classes, ``(n,)`` with ``P(y = 1)`` for two) and the row weights its
    weights, so the same function runs on one machine and, with
    ``xgboost.dask``, on every worker's own rows (possibly none: then the
    number of model outputs ``n_outputs``, bound with ``functools.partial``,
    gives the shape of the empty gradient). With more than two classes the
    hessian follows ``multi:softprob`` (:data:`SOFTMAX_HESSIAN_SCALE`); with
    two it is ``binary:logistic``'s.
    """
    predt = np.asarray(predt, dtype=np.float64)
    n = dtrain.num_row()
    if n == 0:  # a worker that holds no rows of this matrix
        shape = predt.shape if n_outputs is None else ((0,) if n_outputs == 1 else (0, n_outputs))
        return np.zeros(shape), np.zeros(shape)
    binary = predt.ndim == 1 or predt.shape[-1] == 1
    raw = predt.reshape(n) if binary else predt.reshape(n, -1)
    T = dtrain.get_label().reshape(raw.shape)
    w = dtrain.get_weight()
    grad, hess = soft_label_gradient(raw, T, w if w.size else None)
    scale = 1.0 if binary else SOFTMAX_HESSIAN_SCALE
    return grad.reshape(predt.shape), np.maximum(scale * hess, _HESS_FLOOR).reshape(predt.shape)


def mean_log_loss(margin, Y):
    """Mean log-loss of one-hot labels ``Y`` (n, K) under margins (n,) or (n, K)."""
    margin = np.asarray(margin, dtype=np.float64)
    if margin.ndim == 1:
        return float(np.mean(np.logaddexp(0.0, margin) - Y[:, 1] * margin))
    return float(np.mean(logsumexp(margin, axis=1) - (Y * margin).sum(axis=1)))


def tile_init(init, n):
    """Start scores as a base margin: (n,) for two classes, (n, K) otherwise."""
    init = np.asarray(init, dtype=np.float64)
    if init.shape[0] == 1:
        return np.full(n, init[0])
    return np.tile(init, (n, 1))


#: quantile sketches kept per thread (see :func:`_train_matrix`)
_SKETCHES = threading.local()
#: enough for a tuning grid's models on one split (X and X*, unweighted and at
#: each KL weight); a sketch holds the rows' bin indices, a byte or two a value
_MAX_SKETCHES = 16


def _sketch_key(X, weight, params):
    """What a QuantileDMatrix's bins depend on: the rows' bytes, the weights
    (a constant weight by its value: XGBoost's weighted sketch differs from
    the unweighted one), ``max_bin`` and the threads; None for a pandas
    frame (not cached)."""
    if not isinstance(X, np.ndarray):
        return None
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((X.shape, X.dtype.str)).encode())
    digest.update(np.ascontiguousarray(X).data)
    if weight is not None and np.ndim(weight):
        weight = np.asarray(weight, dtype=np.float64)
        if np.all(weight == weight[0]):
            weight = float(weight[0])
        else:
            digest.update(weight.tobytes())
            weight = "rows"
    elif weight is not None:
        weight = float(weight)
    return digest.hexdigest(), weight, params["max_bin"], params.get("nthread", -1) or -1


def _train_matrix(X, label, weight, init, params):
    """The training matrix of ``X`` with its labels, weights and start score.

    Its quantile sketch (the bins, a pass over every row and most of a small
    model's fit) is reused within a thread for the same rows, weights and
    ``max_bin``: the models of one comparison fitted on the same training
    rows (NF, KbPIB, soft labels, JPIB, their tuning grids) sketch them
    once. Labels, weights and the base margin are set on every use, and the
    matrix is the one a fresh sketch would give (same key, same bins).
    """
    if weight is not None and np.ndim(weight) == 0:
        weight = np.full(X.shape[0], float(weight))
    margin = tile_init(init, X.shape[0])
    key = _sketch_key(X, weight, params)
    cache = getattr(_SKETCHES, "matrices", None)
    if cache is None:
        cache = _SKETCHES.matrices = OrderedDict()
    if key is not None and key in cache:
        cache.move_to_end(key)
        dtrain = cache[key]
        dtrain.set_label(label)
        if weight is not None:
            dtrain.set_weight(weight)
        dtrain.set_base_margin(margin)
        return dtrain
    # enable_categorical: pandas' categorical columns are split on as categories
    dtrain = xgb.QuantileDMatrix(
        X, label=label, weight=weight, base_margin=margin,
        max_bin=params["max_bin"], nthread=params.get("nthread", -1) or -1,
        enable_categorical=True,
    )
    if key is not None:
        cache[key] = dtrain
        while len(cache) > _MAX_SKETCHES:
            cache.popitem(last=False)
    return dtrain


class _Validation:
    """The student's validation log-loss after every round, and its best round.

    The same rule as the exact engine: a round improves if its loss is below
    the best so far minus ``tol``; boosting stops after ``patience`` rounds
    without. The validation matrix joins the booster's prediction cache, so
    each round costs the newest tree only.
    """

    def __init__(self, X_val, Y_val, init, params, patience, tol):
        self.dval = xgb.DMatrix(X_val, base_margin=tile_init(init, X_val.shape[0]),
                                nthread=params.get("nthread", -1) or -1, enable_categorical=True)
        self.Y_val, self.patience, self.tol = Y_val, patience, tol
        self.scores, self.best, self.best_round, self.since = [], np.inf, 0, 0

    def stop_after(self, booster):
        score = mean_log_loss(booster.predict(self.dval, output_margin=True), self.Y_val)
        self.scores.append(score)
        if score < self.best - self.tol:
            self.best, self.best_round, self.since = score, len(self.scores), 0
        else:
            self.since += 1
        return self.since >= self.patience

    def cut(self, booster):
        """``booster`` cut to the best round (at least one)."""
        return _slice(booster, max(self.best_round, 1))


def _validation(X_val, Y_val, init, params, patience, tol):
    return None if X_val is None else _Validation(X_val, Y_val, init, params, patience, tol)


def _slice(booster, n_rounds):
    return booster if booster.num_boosted_rounds() == n_rounds else booster[:n_rounds]


def boost(X, label, weight, init, *, params, n_rounds, objective=None,
          X_val=None, Y_val=None, n_iter_no_change=None, tol=0.0):
    """Boost one model on fixed (soft) labels; return ``(booster, val_scores)``.

    ``label`` is ``T`` (two classes, or more with ``objective``) or the integer
    classes (``multi:softprob``); ``weight`` an array, one number for every
    row, or None. With ``X_val`` the student's validation
    log-loss of ``Y_val`` (one-hot) is recorded after every round, boosting
    stops after ``n_iter_no_change`` rounds without improvement, and the
    booster is cut to its best round.
    """
    dtrain = _train_matrix(X, label, weight, init, params)
    val = _validation(X_val, Y_val, init, params, n_iter_no_change, tol)
    booster = xgb.Booster(params, [dtrain] + ([val.dval] if val else []))
    for m in range(n_rounds):
        booster.update(dtrain, m, fobj=objective)
        if val is not None and val.stop_after(booster):
            break
    if val is None:
        return booster, None
    return val.cut(booster), np.asarray(val.scores)


def boost_jpib(X, X_star, Y, alpha, init, *, params, n_rounds, objective=None,
               X_val=None, Y_val=None, n_iter_no_change=None, tol=0.0):
    """JPIB: one tree on ``X`` and one on ``X*`` per round, each on soft labels from the other.

    Round ``m`` first grows the student's tree on ``T = (Y + alpha q) / (1 +
    alpha)`` with ``q`` the privileged model's current probabilities, then the
    privileged model's tree on ``(Y + alpha p) / (1 + alpha)`` with the
    student's updated ``p`` (the order of Algorithm 2 and of the exact
    engine); both weigh rows by ``1 + alpha``. Returns ``(student booster,
    privileged booster, val_scores)``, both cut to the student's best round.
    """
    binary = Y.shape[1] == 2
    hard = Y[:, 1] if binary else Y
    w = np.full(X.shape[0], 1.0 + alpha)
    # (X* equal to X gives one matrix for both: each update sets its labels first)
    d_s = _train_matrix(X, hard, w, init, params)
    d_p = _train_matrix(X_star, hard, w, init, params)
    val = _validation(X_val, Y_val, init, params, n_iter_no_change, tol)
    student = xgb.Booster(params, [d_s] + ([val.dval] if val else []))
    privileged = xgb.Booster(params, [d_p])
    q = _tree_space_proba(tile_init(init, X.shape[0]))  # the privileged model's start
    for m in range(n_rounds):
        d_s.set_label((hard + alpha * q) / (1.0 + alpha))
        student.update(d_s, m, fobj=objective)
        p = _tree_space_proba(student.predict(d_s, output_margin=True))
        d_p.set_label((hard + alpha * p) / (1.0 + alpha))
        privileged.update(d_p, m, fobj=objective)
        q = _tree_space_proba(privileged.predict(d_p, output_margin=True))
        if val is not None and val.stop_after(student):
            break
    if val is None:
        return student, privileged, None
    return val.cut(student), val.cut(privileged), np.asarray(val.scores)


def predict_margin(booster, X, init, iteration_range=(0, 0)):
    """Raw scores (start score plus trees) of NumPy rows ``X``, or of a pandas
    DataFrame (categorical columns are matched to the fit's categories by
    XGBoost, whatever the order of their categories)."""
    return booster.inplace_predict(
        X, predict_type="margin", base_margin=tile_init(init, X.shape[0]),
        iteration_range=iteration_range,
    )


def check_float32_range(X, name):
    """XGBoost stores features as float32: larger finite values would become inf."""
    if X is None or X.dtype != np.float64 or X.size == 0:
        return
    limit = np.finfo(np.float32).max
    if np.nanmax(X, initial=-np.inf) > limit or np.nanmin(X, initial=np.inf) < -limit:
        raise ValueError(
            f"{name} has values beyond the float32 range (|x| > {limit:.3g}); XGBoost stores "
            "features as float32. Rescale them."
        )
