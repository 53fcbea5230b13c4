"""Part I on a Dask cluster: a ``distributed.LocalCluster`` with two worker processes.

The same fit on NumPy arrays and on dask arrays (partitioned by rows) must
give the same model up to XGBoost's distributed quantile sketch: test AUC
within 0.005 on 100 000 training rows.
"""

import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from lupikit.boosting import PrivilegedBoostingClassifier, SoftLabelBoostingClassifier  # noqa: E402
from lupikit.boosting import _hist_dask  # noqa: E402
from lupikit.datasets import make_lupi_classification  # noqa: E402
from local_cluster import local_cluster  # noqa: E402

PBC = PrivilegedBoostingClassifier
N_TRAIN, CHUNK = 100_000, 25_000


def best_round(scores, tol):
    """The last round that beat the best before it by more than ``tol``, by a plain loop.

    A later round within ``tol`` of the best is no improvement, so ``argmin`` alone
    can name a later round than early stopping keeps (the cluster's float sums vary).
    """
    best, kept = np.inf, 0
    for i, score in enumerate(scores):
        if score < best - tol:
            best, kept = score, i + 1
    return kept


@pytest.fixture(scope="module")
def client():
    with local_cluster(distributed) as (_, c, _):
        yield c


@pytest.fixture(scope="module")
def big():
    X, Xs, y = make_lupi_classification(N_TRAIN + 20_000, 20, 5, random_state=0)
    tr, te = slice(0, N_TRAIN), slice(N_TRAIN, None)
    return X[tr], Xs[tr], y[tr], X[te], y[te]


def as_dask(*arrays, chunk=CHUNK):
    return [da.from_array(a, chunks=(chunk,) + a.shape[1:]) for a in arrays]


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sending large graph")
        yield


@pytest.mark.parametrize("mode, kw", [
    ("nf", {}),
    ("kbpib", {}),
    ("kbpib", {"n_iter_no_change": 5}),
    ("jpib", {"n_estimators": 8}),
])
def test_dask_fit_matches_numpy_fit(client, big, mode, kw):
    X, Xs, y, X_te, y_te = big
    params = {"mode": mode, "alpha": 1.0, "n_estimators": 40, "random_state": 0, "n_jobs": 1, **kw}
    local = PBC(**params).fit(X, y, privileged_features=Xs)
    dX, dXs, dy = as_dask(X, Xs, y)
    remote = PBC(**params).fit(dX, dy, privileged_features=dXs)
    proba = remote.predict_proba(as_dask(X_te, chunk=5000)[0])
    assert isinstance(proba, da.Array) and proba.chunks[0] == (5000,) * 4
    auc_remote = roc_auc_score(y_te, proba.compute()[:, 1])
    auc_local = roc_auc_score(y_te, local.predict_proba(X_te)[:, 1])
    assert abs(auc_remote - auc_local) < 0.005, (auc_local, auc_remote)
    # the fitted model is an ordinary booster: NumPy rows predict without the cluster
    np.testing.assert_allclose(remote.predict_proba(X_te[:100]), proba[:100].compute())
    if kw.get("n_iter_no_change"):
        assert remote.n_estimators_ == best_round(remote.validation_score_, remote.tol)
    if mode == "jpib":
        assert remote.privileged_booster_.num_boosted_rounds() == remote.n_estimators_
        assert remote.predict_privileged_proba(dXs).shape == (N_TRAIN, 2)
    labels = remote.predict(as_dask(X_te, chunk=5000)[0])
    assert isinstance(labels, da.Array) and set(np.unique(labels.compute())) <= {0, 1}


def test_dask_jpib_early_stopping_keeps_the_best_round(client):
    X, Xs, y = make_lupi_classification(20_000, 10, 4, random_state=3)
    dX, dXs, dy = as_dask(X, Xs, y, chunk=5000)
    m = PBC(mode="jpib", n_estimators=60, learning_rate=0.8, max_depth=5, n_iter_no_change=3,
            random_state=0, n_jobs=1).fit(dX, dy, privileged_features=dXs)
    vs = m.validation_score_
    assert len(vs) < 60 and len(vs) == best_round(vs, m.tol) + m.n_iter_no_change
    assert m.n_estimators_ == best_round(vs, m.tol)
    assert m.privileged_booster_.num_boosted_rounds() == m.n_estimators_


def test_dask_multiclass_and_dataframes(client):
    dd = pytest.importorskip("dask.dataframe")
    X, Xs, y = make_lupi_classification(20_000, 10, 4, n_classes=3, random_state=1)
    dX, dXs, dy = as_dask(X, Xs, y, chunk=5000)
    for mode in ("kbpib", "jpib"):
        params = dict(mode=mode, n_estimators=10 if mode == "kbpib" else 5, random_state=0, n_jobs=1)
        local = PBC(**params).fit(X, y, privileged_features=Xs)
        remote = PBC(**params).fit(dd.from_dask_array(dX), dd.from_dask_array(dy),
                                   privileged_features=dd.from_dask_array(dXs))
        assert remote.predict_proba(dX).shape == (20_000, 3)
        assert abs(remote.score(X, y) - local.score(X, y)) < 0.01
    soft = SoftLabelBoostingClassifier(n_estimators=10, random_state=0, n_jobs=1)
    assert soft.fit(dX, dy, privileged_features=dXs).score(X, y) > 0.5


def test_dask_input_errors(client, big):
    X, Xs, y, _, _ = big
    dX, dXs, dy = as_dask(X, Xs, y)
    with pytest.raises(TypeError, match="privileged_features"):
        PBC(n_estimators=2).fit(dX, dy, privileged_features=Xs)
    with pytest.raises(TypeError, match="y"):
        PBC(n_estimators=2).fit(dX, y, privileged_features=dXs)
    with pytest.raises(TypeError, match="privileged_features"):
        PBC(n_estimators=2).fit(X, y, privileged_features=dXs)
    with pytest.raises(ValueError, match="privileged_features is partitioned differently"):
        PBC(n_estimators=2).fit(dX, dy, privileged_features=dXs.rechunk((30_000, 5)))
    with pytest.raises(ValueError, match="y is partitioned differently"):
        PBC(mode="nf", n_estimators=2).fit(dX, dy.rechunk(10_000))
    with pytest.raises(TypeError, match="engine='exact'"):
        PBC(n_estimators=2, engine="exact").fit(dX, dy, privileged_features=dXs)
    m = PBC(mode="nf", n_estimators=2, n_jobs=1).fit(dX, dy)
    with pytest.raises(ValueError, match="features"):
        m.predict_proba(dX[:, :5])
    with pytest.raises(TypeError, match="NumPy rows"):
        next(m.staged_predict_proba(dX))
    with pytest.raises(TypeError, match="NumPy rows"):
        m.decision_function(dX)


def test_dask_worker_without_rows(client):
    """One partition on two workers: the other builds empty matrices and must not fail."""
    X, Xs, y = make_lupi_classification(3000, 6, 3, n_classes=3, random_state=2)
    dX, dXs, dy = as_dask(X, Xs, y, chunk=3000)
    for mode in ("kbpib", "jpib"):
        m = PBC(mode=mode, n_estimators=6, n_iter_no_change=2, random_state=0, n_jobs=1)
        m.fit(dX, dy, privileged_features=dXs)
        assert m.score(X, y) > 0.5


def test_dask_fit_without_a_client_is_a_clear_error(monkeypatch):
    def no_client():
        raise ValueError("No clients found")

    monkeypatch.setattr(_hist_dask, "get_client", no_client)
    X, Xs, y = make_lupi_classification(200, 4, 2, random_state=0)
    dX, dXs, dy = as_dask(X, Xs, y, chunk=100)
    with pytest.raises(ValueError, match="Client"):
        PBC(n_estimators=2).fit(dX, dy, privileged_features=dXs)
