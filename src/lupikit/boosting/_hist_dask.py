"""The histogram engine on a Dask cluster, through ``xgboost.dask`` (private).

The recipes are those of :mod:`._hist`: every mode boosts the log-loss to
soft labels with row weights. Here ``X``, ``X*``, the labels and the weights
are dask arrays partitioned alike by rows; ``xgboost.dask`` trains on the
workers that hold the partitions, and only boosters come back to the client.

- NF, KbPIB and the soft-label baseline are one ``xgboost.dask.train`` call
  each (the KbPIB teacher first, its probabilities then stay on the cluster as
  a dask array). Early stopping uses XGBoost's ``EarlyStopping`` callback on a
  validation log-loss computed from the margins (so such fits use the
  soft-label objective, two classes too: a custom metric of XGBoost's own
  objectives would see float32 probabilities) and summed over the workers (an
  allreduce), so that every worker stops at the same round.
- JPIB alternates: every round is one ``xgboost.dask.train`` call of one
  round per model, continuing its booster (``xgb_model``); the soft labels of
  each model are recomputed on the cluster from the other's current margins,
  which are kept there as persisted dask arrays and advanced by the newest
  tree's contribution.

Dask and distributed are optional (``pip install lupikit[dask]``).
"""

import numbers

import numpy as np
import xgboost as xgb
from xgboost import collective

from ._hist import margin_to_proba, predict_margin

try:  # optional: lupikit[dask]
    import dask
    import dask.array as da
    import xgboost.dask as xgb_dask
    from distributed import get_client
except ImportError:  # pragma: no cover - exercised only without the extra
    dask = da = xgb_dask = get_client = None

__all__ = [
    "is_dask_collection",
    "require_client",
    "as_dask_array",
    "check_aligned",
    "random_split",
    "y_unique",
    "predict_proba_dask",
    "boost_dask",
    "boost_jpib_dask",
]

_METRIC = "val_log_loss"


def is_dask_collection(obj):
    """True for dask arrays, dataframes and series (False without dask installed)."""
    return dask is not None and dask.is_dask_collection(obj)


def require_client():
    """The active ``distributed.Client``, or a clear error."""
    if get_client is None:
        raise ImportError("fitting on dask collections needs dask and distributed: "
                          "pip install 'lupikit[dask]'.")
    try:
        return get_client()
    except ValueError:
        raise ValueError(
            "fit on dask collections runs on a Dask cluster: create a client first, "
            "e.g. distributed.Client('tcp://scheduler:8786') or Client(LocalCluster())."
        ) from None


def as_dask_array(obj, name, ndim):
    """A dask array of ``ndim`` dimensions from a dask array, dataframe or series."""
    if not is_dask_collection(obj):
        raise TypeError(
            f"{name} must be a dask collection like X (got {type(obj).__name__}); pass X, y "
            "and privileged_features all as dask arrays or dataframes, partitioned alike."
        )
    if hasattr(obj, "to_dask_array"):  # dataframe or series
        obj = obj.to_dask_array(lengths=True)
    if not isinstance(obj, da.Array):
        raise TypeError(f"{name} must be a dask array, dataframe or series, got {type(obj).__name__}.")
    if ndim == 1 and obj.ndim == 2 and obj.shape[1] == 1:
        obj = obj[:, 0]
    if obj.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got a dask array of shape {obj.shape}.")
    if ndim == 2 and obj.numblocks[1] != 1:
        obj = obj.rechunk({1: -1})
    return obj


def y_unique(y):
    """The distinct labels of a dask array (computed on the cluster)."""
    return da.unique(y).compute()


def check_aligned(reference, others):
    """Raise a ValueError naming the first array whose row partitions differ from X's."""
    for name, arr in others.items():
        if arr.chunks[0] != reference.chunks[0]:
            raise ValueError(
                f"{name} is partitioned differently from X by rows ({len(arr.chunks[0])} "
                f"partitions of sizes {arr.chunks[0][:3]}... against X's {len(reference.chunks[0])} "
                f"of sizes {reference.chunks[0][:3]}...); partition X, y and "
                "privileged_features alike."
            )


# ---------------------------------------------------------------- predictions
def _proba_block(block, booster, init):
    return margin_to_proba(predict_margin(booster, block, init))


def predict_proba_dask(booster, X, init):
    """Class probabilities of a dask array, block by block (a dask array)."""
    n_classes = 2 if np.size(init) == 1 else np.size(init)
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    return X.map_blocks(_proba_block, booster=booster, init=init, dtype=np.float64,
                        chunks=(X.chunks[0], (n_classes,)))


def _margin_block(block, init):
    return np.broadcast_to(init if np.size(init) > 1 else init[0],
                           (block.shape[0],) + ((np.size(init),) if np.size(init) > 1 else ())).copy()


def _constant_block(block, value):
    return np.full(block.shape[0], value)


def base_margin(init, X):
    """The start score of every row of ``X`` as a dask array partitioned like it."""
    init = np.asarray(init, dtype=np.float64)
    if init.size == 1:
        return X[:, 0].map_blocks(_margin_block, init=init, dtype=np.float64)
    return X.map_blocks(_margin_block, init=init, dtype=np.float64,
                        chunks=(X.chunks[0], (init.size,)))


def tree_space_proba(margin):
    """Probabilities of the tree columns, on the cluster."""
    if margin.ndim == 1:
        return 1.0 / (1.0 + da.exp(-margin))
    z = da.exp(margin - margin.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def mean_log_loss_dask(margin, Y):
    """Mean log-loss of one-hot ``Y`` (dask) under margins (dask), as a dask scalar."""
    if margin.ndim == 1:
        return (da.logaddexp(0.0, margin) - Y[:, 1] * margin).mean()
    m = margin.max(axis=1, keepdims=True)
    lse = da.log(da.exp(margin - m).sum(axis=1)) + m[:, 0]
    return (lse - (Y * margin).sum(axis=1)).mean()


# ---------------------------------------------------------------- metrics
def _allreduce_mean(total, count):
    # every worker must call this, those with no validation rows too, or the
    # others would wait for them
    s = collective.allreduce(np.array([total, count], dtype=np.float64), collective.Op.SUM)
    return float(s[0] / s[1])


def val_metric(predt, dmat):
    """Validation log-loss from the margins (the soft-label objective's ``predt``).

    The labels are the class (two classes: 0/1) or the one-hot row; the sum
    and the count are added up over the workers.
    """
    n = dmat.num_row()
    if n == 0:
        return _METRIC, _allreduce_mean(0.0, 0.0)
    predt = np.asarray(predt, dtype=np.float64)
    label = dmat.get_label()
    if predt.ndim == 1 or predt.shape[-1] == 1:
        z = predt.reshape(n)
        total = float(np.sum(np.logaddexp(0.0, z) - label * z))
    else:
        Y = label.reshape(n, -1)
        z = predt.reshape(n, -1)
        m = z.max(axis=1)
        total = float(np.sum(np.log(np.exp(z - m[:, None]).sum(axis=1)) + m - (Y * z).sum(axis=1)))
    return _METRIC, _allreduce_mean(total, n)


# ---------------------------------------------------------------- training
def _quantile_matrix(client, X, label, weight, init, params):
    if weight is not None and np.ndim(weight) == 0:
        weight = X[:, 0].map_blocks(_constant_block, float(weight), dtype=np.float64)
    return xgb_dask.DaskQuantileDMatrix(
        client, X, label, weight=weight, base_margin=base_margin(init, X),
        max_bin=params["max_bin"],
    )


def boost_dask(client, X, label, weight, init, *, params, n_rounds, objective=None,
               X_val=None, Y_val=None, n_iter_no_change=None, tol=0.0):
    """One ``xgboost.dask.train`` call; returns ``(booster, val_scores)`` as :func:`._hist.boost`."""
    dtrain = _quantile_matrix(client, X, label, weight, init, params)
    kw = {}
    if X_val is not None:
        if objective is None:
            raise ValueError("early stopping on a cluster needs the soft-label objective, whose "
                             "metric sees margins")  # pragma: no cover - the estimators ensure it
        # the validation rows carry their class (two classes) or one-hot row
        val_label = Y_val[:, 1] if Y_val.shape[1] == 2 else Y_val
        dval = xgb_dask.DaskDMatrix(client, X_val, val_label, base_margin=base_margin(init, X_val))
        kw = dict(
            evals=[(dval, "val")],
            custom_metric=val_metric,
            callbacks=[xgb.callback.EarlyStopping(
                rounds=n_iter_no_change, min_delta=tol, metric_name=_METRIC, data_name="val",
                save_best=False)],
        )
    out = xgb_dask.train(client, params, dtrain, num_boost_round=n_rounds, obj=objective,
                         verbose_eval=False, **kw)
    booster = out["booster"]
    if X_val is None:
        return booster, None
    scores = np.asarray(out["history"]["val"][_METRIC], dtype=np.float64)
    keep = int(booster.best_iteration) + 1
    return (booster if keep == booster.num_boosted_rounds() else booster[:keep]), scores


def _zeros_block(block, n_cols):
    return np.zeros((block.shape[0], n_cols))


def _contribution(client, booster, X, m, n_cols):
    """Margins of tree round ``m`` alone on the rows of ``X`` (a dask array)."""
    # a 2-D base margin even for one column: xgboost.dask maps it block by
    # block with X, and a 1-D array would be aligned with X's columns
    zeros = X.map_blocks(_zeros_block, n_cols, dtype=np.float64, chunks=(X.chunks[0], (n_cols,)))
    return xgb_dask.inplace_predict(client, booster, X, iteration_range=(m, m + 1),
                                    predict_type="margin", base_margin=zeros)


def boost_jpib_dask(client, X, X_star, Y, alpha, init, *, params, n_rounds, objective=None,
                    X_val=None, Y_val=None, n_iter_no_change=None, tol=0.0):
    """JPIB on the cluster; returns ``(student, privileged, val_scores)`` as :func:`._hist.boost_jpib`."""
    K = Y.shape[1]
    binary = K == 2
    n_cols = 1 if binary else K
    hard = Y[:, 1] if binary else Y
    w = 1.0 + alpha
    F = base_margin(init, X).persist()  # student's margins on the training rows
    G = base_margin(init, X_star).persist()  # privileged model's margins
    F_val = base_margin(init, X_val).persist() if X_val is not None else None
    student = privileged = None
    scores, best, best_round, since = [], np.inf, 0, 0
    for m in range(n_rounds):
        T_s = ((hard + alpha * tree_space_proba(G)) / (1.0 + alpha)).persist()
        # a new matrix every round (the labels change); X and the weights do
        # not, so its bins are the same each time
        d_s = _quantile_matrix(client, X, T_s, w, init, params)
        student = xgb_dask.train(client, params, d_s, 1, obj=objective, xgb_model=student,
                                 verbose_eval=False)["booster"]
        F = (F + _contribution(client, student, X, m, n_cols)).persist()
        T_p = ((hard + alpha * tree_space_proba(F)) / (1.0 + alpha)).persist()
        d_p = _quantile_matrix(client, X_star, T_p, w, init, params)
        privileged = xgb_dask.train(client, params, d_p, 1, obj=objective, xgb_model=privileged,
                                    verbose_eval=False)["booster"]
        G = (G + _contribution(client, privileged, X_star, m, n_cols)).persist()
        if X_val is None:
            continue
        F_val = (F_val + _contribution(client, student, X_val, m, n_cols)).persist()
        score = float(mean_log_loss_dask(F_val, Y_val).compute())
        scores.append(score)
        if score < best - tol:
            best, best_round, since = score, m + 1, 0
        else:
            since += 1
            if since >= n_iter_no_change:
                break
    if X_val is None:
        return student, privileged, None
    keep = max(best_round, 1)
    cut = (lambda b: b if b.num_boosted_rounds() == keep else b[:keep])
    return cut(student), cut(privileged), np.asarray(scores)


def random_split(X, fraction, seed):
    """Row mask of a seeded random validation part, partitioned like ``X``."""
    if not isinstance(seed, numbers.Integral):
        seed = int(np.random.RandomState(seed).randint(np.iinfo(np.int32).max))
    u = da.random.RandomState(seed).random_sample(size=X.shape[0], chunks=(X.chunks[0],))
    return u < fraction
