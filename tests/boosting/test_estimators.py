"""Behaviour of PrivilegedBoostingClassifier and SoftLabelBoostingClassifier.

Tests that hold on both engines take the ``engine`` fixture; those that check
the exact engine against scikit-learn or a brute-force re-implementation use
``EX`` (``engine="exact"``). The histogram engine's own checks are in
``test_hist.py`` and ``test_dask.py``.
"""

from functools import partial

import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_iris
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_validate,
    train_test_split,
)
from sklearn.tree import DecisionTreeRegressor

from lupikit.boosting import PrivilegedBoostingClassifier, SoftLabelBoostingClassifier

PBC = PrivilegedBoostingClassifier
EX = partial(PrivilegedBoostingClassifier, engine="exact")


@pytest.fixture(params=["hist", "exact"])
def engine(request):
    return request.param


# ----------------------------------------------------------------- equalities
@pytest.mark.parametrize("mode", ["kbpib", "jpib"])
@pytest.mark.parametrize("which", ["data", "data3"])
def test_alpha_zero_equals_nf_exactly(mode, which, request, engine):
    X, Xs, y = request.getfixturevalue(which)
    kw = dict(n_estimators=25, random_state=3, engine=engine)
    nf = PBC(mode="nf", **kw).fit(X, y)
    m = PBC(mode=mode, alpha=0.0, **kw).fit(X, y, privileged_features=Xs)
    np.testing.assert_array_equal(m.predict_proba(X), nf.predict_proba(X))


@pytest.mark.parametrize("which", ["data", "data3"])
def test_nf_reproduces_sklearn_gradient_boosting(which, request):
    X, _, y = request.getfixturevalue(which)
    kw = dict(n_estimators=15, learning_rate=0.2, max_depth=2, random_state=0)
    ours = EX(mode="nf", **kw).fit(X, y)
    ref = GradientBoostingClassifier(**kw).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-9)


def _reference_boost(X, Y, Q_fn, alpha, n_iter, lr, depth, X_priv=None):
    """Plain re-implementation with mean-gradient leaves (binary, tree.predict)."""
    prior = Y.mean()
    F = np.full(len(Y), np.log(prior / (1 - prior)))
    G = F.copy()
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    for _ in range(n_iter):
        p = sig(F)
        q = Q_fn(sig(G))
        r = (Y - p) - alpha * (p - q)
        t = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, r)
        F = F + lr * t.predict(X)
        if X_priv is not None:
            p = sig(F)
            r2 = (Y - q) - alpha * (q - p)
            t2 = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X_priv, r2)
            G = G + lr * t2.predict(X_priv)
    return sig(F)


def test_jpib_matches_brute_force_reference(data):
    X, Xs, y = data
    X = X.astype(np.float32).astype(np.float64)
    Xs = Xs.astype(np.float32).astype(np.float64)
    m = EX(mode="jpib", alpha=0.8, n_estimators=6, learning_rate=0.3, max_depth=2,
           leaf_values="gradient", random_state=0).fit(X, y, privileged_features=Xs)
    ref = _reference_boost(X, y.astype(float), lambda q: q, 0.8, 6, 0.3, 2, X_priv=Xs)
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], ref, rtol=1e-6)


def test_kbpib_with_given_probabilities_matches_reference(data):
    X, _, y = data
    X = X.astype(np.float32).astype(np.float64)
    q = np.clip(0.2 + 0.6 * y + 0.1 * np.tanh(X[:, 0]), 0, 1)
    m = EX(mode="kbpib", alpha=2.0, teacher=q, n_estimators=6, learning_rate=0.3,
           max_depth=2, leaf_values="gradient", random_state=0).fit(X, y)
    ref = _reference_boost(X, y.astype(float), lambda _: q, 2.0, 6, 0.3, 2)
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], ref, rtol=1e-6)


def test_newton_leaf_values_brute_force(data):
    X, Xs, y = data
    alpha = 1.3
    m = EX(mode="kbpib", alpha=alpha, n_estimators=1, max_depth=2,
           random_state=0).fit(X, y, privileged_features=Xs)
    q = m.teacher_proba_[:, 1]
    p = np.full(len(y), y.mean())
    g = (y - p) - alpha * (p - q)
    h = (1 + alpha) * p * (1 - p)
    tree = m.estimators_[0, 0]
    leaves = tree.apply(X.astype(np.float32))
    for leaf in np.unique(leaves):
        mask = leaves == leaf
        expected = g[mask].sum() / h[mask].sum()
        assert tree.tree_.value[leaf, 0, 0] == pytest.approx(expected, rel=1e-10)


def test_kbpib_equals_soft_labels_with_same_teacher(data, engine):
    X, Xs, y = data
    teacher = LogisticRegression().fit(Xs, y)
    alpha = 1.5
    kb = PBC(mode="kbpib", alpha=alpha, teacher=teacher, n_estimators=20,
             random_state=0, engine=engine).fit(X, y, privileged_features=Xs)
    sl = SoftLabelBoostingClassifier(soft_weight=alpha / (1 + alpha), teacher=teacher,
                                     n_estimators=20, random_state=0, engine=engine)
    sl.fit(X, y, privileged_features=Xs)
    # equal up to rounding (the gradient is scaled by 1 + alpha before the tree fit)
    np.testing.assert_allclose(kb.predict_proba(X), sl.predict_proba(X), atol=1e-5)


# --------------------------------------------------------------- behaviour
def test_large_alpha_pulls_student_to_teacher(data, engine):
    X, Xs, y = data
    teacher = LogisticRegression(C=100.0).fit(Xs, y)
    q = teacher.predict_proba(Xs)[:, 1]
    gaps = []
    for alpha in [0.0, 1.0, 10.0, 100.0]:
        m = PBC(mode="kbpib", alpha=alpha, teacher=teacher, n_estimators=150,
                max_depth=4, learning_rate=0.3, random_state=0, engine=engine)
        p = m.fit(X, y, privileged_features=Xs).predict_proba(X)[:, 1]
        gaps.append(np.mean(np.abs(p - q)))
    assert all(a > b for a, b in zip(gaps, gaps[1:]))
    assert gaps[-1] < 0.05 and gaps[0] > 2 * gaps[-1]


def test_jpib_large_alpha_couples_student_and_privileged_model(data, engine):
    X, Xs, y = data
    gaps = []
    for alpha in [0.0, 20.0]:
        m = PBC(mode="jpib", alpha=alpha, n_estimators=60, random_state=0, engine=engine)
        m.fit(X, y, privileged_features=Xs)
        gaps.append(np.mean(np.abs(m.predict_proba(X) - m.predict_privileged_proba(Xs))))
    assert gaps[1] < 0.5 * gaps[0]


def test_training_objective_decreases(data):
    X, Xs, y = data
    for mode in ["nf", "kbpib"]:
        m = EX(mode=mode, alpha=1.0, n_estimators=40, random_state=0)
        m.fit(X, y, privileged_features=Xs)
        assert np.all(np.diff(m.train_score_) < 1e-12)


@pytest.mark.parametrize("mode", ["jpib", "kbpib", "nf"])
def test_early_stopping_returns_best_validation_iteration(data, engine, mode):
    X, Xs, y = data
    m = PBC(mode=mode, alpha=1.0, n_estimators=400, learning_rate=0.5, max_depth=4,
            n_iter_no_change=10, validation_fraction=0.25, random_state=5, engine=engine)
    m.fit(X, y, privileged_features=Xs)
    vs = m.validation_score_
    assert len(vs) < 400  # it stopped
    assert m.best_iteration_ == int(np.argmin(vs)) + 1 == m.n_estimators_
    assert len(vs) >= m.best_iteration_ + 10
    # independent recomputation on the held-out rows
    _, va = train_test_split(np.arange(len(y)), test_size=0.25, random_state=5,
                             stratify=y)
    assert log_loss(y[va], m.predict_proba(X[va])) == pytest.approx(vs.min(), rel=1e-6)
    if mode == "jpib" and engine == "exact":
        assert m.privileged_estimators_.shape[0] == m.best_iteration_
    elif mode == "jpib":
        assert m.privileged_booster_.num_boosted_rounds() == m.best_iteration_


def test_multiclass_kbpib_and_jpib(engine):
    X, y = load_iris(return_X_y=True)
    Xs = X[:, 2:]  # petal measurements as privileged
    Xr = X[:, :2]
    for mode in ["kbpib", "jpib"]:
        m = PBC(mode=mode, alpha=1.0, n_estimators=30, random_state=0, engine=engine)
        m.fit(Xr, y, privileged_features=Xs)
        P = m.predict_proba(Xr)
        assert P.shape == (150, 3)
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        if engine == "exact":
            assert m.estimators_.shape == (30, 3)
        else:
            assert m.booster_.num_boosted_rounds() == 30
            assert len(m.booster_.get_dump()) == 90  # one tree per class and round
        assert m.score(Xr, y) > 0.75


def test_string_labels_and_teacher_class_order(data, engine):
    X, Xs, y = data
    ys = np.where(y == 1, "yes", "no")
    teacher = LogisticRegression().fit(Xs, ys)
    m = PBC(mode="kbpib", teacher=teacher, n_estimators=10, random_state=0, engine=engine)
    m.fit(X, ys, privileged_features=Xs)
    assert set(m.predict(X)) <= {"yes", "no"}
    bad = LogisticRegression().fit(Xs, y)  # classes 0/1, not yes/no
    with pytest.raises(ValueError, match="classes"):
        PBC(mode="kbpib", teacher=bad, n_estimators=5, engine=engine).fit(
            X, ys, privileged_features=Xs)


def test_unfitted_teacher_is_cloned_and_fitted(data, engine):
    X, Xs, y = data
    t = LogisticRegression()
    m = PBC(mode="kbpib", teacher=t, n_estimators=5, engine=engine).fit(
        X, y, privileged_features=Xs)
    assert not hasattr(t, "coef_") and hasattr(m.teacher_, "coef_")


def test_soft_label_out_of_fold_teacher(data, engine):
    X, Xs, y = data
    m = SoftLabelBoostingClassifier(teacher_cv=3, n_estimators=20, random_state=0, engine=engine)
    m.fit(X, y, privileged_features=Xs)
    T = m.soft_labels_
    np.testing.assert_allclose(T.sum(axis=1), 1.0)
    assert roc_auc_score(y, m.predict_proba(X)[:, 1]) > 0.7


def test_gradient_leaves_are_mean_gradients(data):
    X, _, y = data
    m = EX(mode="nf", n_estimators=1, max_depth=2, leaf_values="gradient").fit(X, y)
    tree = m.estimators_[0, 0]
    r = y - y.mean()
    leaves = tree.apply(X.astype(np.float32))
    for leaf in np.unique(leaves):
        assert tree.tree_.value[leaf, 0, 0] == pytest.approx(r[leaves == leaf].mean())


# --------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "params, kwargs, exc, match",
    [
        (dict(alpha=-1.0), {}, ValueError, "alpha"),
        (dict(mode="foo"), {}, ValueError, "mode"),
        (dict(n_estimators=0), {}, ValueError, "n_estimators"),
        (dict(learning_rate=0.0), {}, ValueError, "learning_rate"),
        (dict(leaf_values="exact"), {}, ValueError, "leaf_values"),
        (dict(teacher=LinearRegression()), {}, TypeError, "predict_proba"),
        (dict(mode="jpib", teacher=LogisticRegression()), {}, ValueError, "teacher"),
        (dict(), dict(privileged_features=None), ValueError, "privileged_features"),
        (dict(), dict(rows=5), ValueError, "privileged_features"),
        (dict(mode="jpib"), dict(nan_priv=True), ValueError, "privileged_features"),
        (dict(teacher=np.full(7, 0.5)), {}, ValueError, "teacher"),
        (dict(teacher=np.full(400, 1.5)), {}, ValueError, "teacher"),
        (dict(teacher=object()), {}, TypeError, "teacher"),
        (dict(n_jobs=0), {}, ValueError, "n_jobs"),
        (dict(max_bins=1), {}, ValueError, "max_bins"),
    ],
)
def test_bad_input(data, params, kwargs, exc, match, engine):
    X, Xs, y = data
    Xs = Xs.copy()
    fit_kw = {"privileged_features": Xs}
    if "privileged_features" in kwargs:
        fit_kw["privileged_features"] = None
    if "rows" in kwargs:
        fit_kw["privileged_features"] = Xs[: kwargs["rows"]]
    if kwargs.get("nan_priv"):
        Xs[3, 1] = np.nan
    if kwargs.get("nan_priv") and engine == "hist":
        Xs[3, 1] = np.inf  # the histogram engine takes NaN as missing; inf is still an error
    with pytest.raises(exc, match=match):
        PBC(**{"n_estimators": 3, "engine": engine, **params}).fit(X, y, **fit_kw)


def test_one_class_and_nan_X(data):
    X, Xs, y = data
    with pytest.raises(ValueError, match="class"):
        PBC(mode="nf", n_estimators=3).fit(X, np.zeros(len(y)))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        EX(mode="kbpib", n_estimators=3).fit(Xn, y, privileged_features=Xs)
    Xsn = Xs.copy()
    Xsn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        EX(mode="jpib", n_estimators=3).fit(X, y, privileged_features=Xsn)
    with pytest.raises(ValueError, match="soft_weight"):
        SoftLabelBoostingClassifier(soft_weight=1.0).fit(X, y, privileged_features=Xs)
    with pytest.raises(TypeError, match="predict_proba"):
        SoftLabelBoostingClassifier(teacher=LinearRegression()).fit(
            X, y, privileged_features=Xs)


def test_predict_privileged_proba_errors(data, engine):
    X, Xs, y = data
    m = PBC(mode="nf", n_estimators=3, engine=engine).fit(X, y)
    with pytest.raises(ValueError, match="jpib"):
        m.predict_privileged_proba(Xs)
    j = PBC(mode="jpib", n_estimators=3, engine=engine).fit(X, y, privileged_features=Xs)
    with pytest.raises(ValueError, match="columns"):
        j.predict_privileged_proba(Xs[:, :2])


# --------------------------------------------------------------- sklearn API
# (scikit-learn's common checks of every mode are in test_conformance.py)
@pytest.fixture
def routing():
    sklearn.set_config(enable_metadata_routing=True)
    yield
    sklearn.set_config(enable_metadata_routing=False)


@pytest.mark.parametrize(
    "est",
    [
        PBC(mode="kbpib", n_estimators=15, random_state=0),
        PBC(mode="jpib", n_estimators=15, random_state=0),
        SoftLabelBoostingClassifier(n_estimators=15, random_state=0),
    ],
    ids=["kbpib", "jpib", "soft"],
)
def test_grid_search_routes_privileged_features(routing, data, est, engine):
    X, Xs, y = data
    est = sklearn.clone(est).set_params(engine=engine).set_fit_request(privileged_features=True)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    key = "soft_weight" if isinstance(est, SoftLabelBoostingClassifier) else "alpha"
    grid = [0.2, 0.6] if key == "soft_weight" else [0.0, 2.0]
    gs = GridSearchCV(est, {key: grid}, cv=cv, scoring="roc_auc")
    gs.fit(X, y, privileged_features=Xs)
    # independent manual loop over the same folds
    for i, val in enumerate(grid):
        scores = []
        for tr, te in cv.split(X, y):
            m = sklearn.clone(est).set_params(**{key: val})
            m.fit(X[tr], y[tr], privileged_features=Xs[tr])
            scores.append(roc_auc_score(y[te], m.predict_proba(X[te])[:, 1]))
        assert gs.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(scores))


def test_cross_validate_routes_privileged_features(routing, data, engine):
    X, Xs, y = data
    est = PBC(mode="kbpib", n_estimators=10, random_state=0, engine=engine).set_fit_request(
        privileged_features=True)
    res = cross_validate(est, X, y, cv=3, params={"privileged_features": Xs})
    assert len(res["test_score"]) == 3
    # without the routed features the privileged mode must fail clearly
    with pytest.raises(ValueError, match="privileged_features"):
        PBC(mode="kbpib", n_estimators=3).fit(X, y)


def test_soft_label_train_score_is_cross_entropy(data):
    X, Xs, y = data
    m = SoftLabelBoostingClassifier(n_estimators=15, random_state=0, engine="exact")
    m.fit(X, y, privileged_features=Xs)
    P = m.predict_proba(X)
    ce = -np.mean((m.soft_labels_ * np.log(P)).sum(axis=1))
    assert m.train_score_.shape == (15,)
    assert m.train_score_[-1] == pytest.approx(ce, rel=1e-5)
    assert np.all(np.diff(m.train_score_) < 1e-12)
