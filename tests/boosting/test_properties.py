"""Property-based tests of Part I (hypothesis): every public estimator, both engines.

The strategies draw well-posed problems (20-200 rows, 1-30 columns that may
be scaled, collinear, constant, integer or one-hot, 2-5 classes with a class
down to about 5 %, informative or pure-noise privileged features) and
hyperparameters, and assert what must always hold: the fit finishes (no
solver or internal exception on a solvable problem), the probabilities are
finite, in [0, 1] and sum to 1 over the classes, and the predictions are
classes of ``y``. The objective's functions are checked against finite
differences. Profiles: ``tests/conftest.py`` (``LUPIKIT_HYPOTHESIS=slow`` for
many more examples).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lupikit.boosting import (
    PrivilegedBoostingClassifier,
    SoftLabelBoostingClassifier,
    privileged_hessian,
    privileged_loss,
    privileged_negative_gradient,
    raw_to_proba,
)
from properties import examples

pytestmark = pytest.mark.property

COLUMN_KINDS = ["normal", "normal", "scaled", "collinear", "constant", "integer", "onehot"]


@st.composite
def designs(draw, n_min=20, n_max=200, d_max=30):
    """``(X, X_new)``: a design matrix and new rows drawn alike (2-D, float64)."""
    n = draw(st.integers(n_min, n_max), label="n")
    d = draw(st.integers(1, d_max), label="d")
    kinds = draw(st.lists(st.sampled_from(COLUMN_KINDS), min_size=d, max_size=d), label="kinds")
    scales = draw(st.lists(st.integers(-4, 4), min_size=d, max_size=d), label="log10 scales")
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    m = n + 30  # the last 30 rows are new points
    Z = rng.normal(size=(m, d))
    cat = rng.integers(0, 4, m)
    X = np.empty((m, d))
    for j, kind in enumerate(kinds):
        if kind == "scaled":
            X[:, j] = Z[:, j] * 10.0 ** scales[j] + rng.normal() * 10.0 ** scales[j]
        elif kind == "collinear" and j >= 1:
            a, b = rng.normal(size=2)
            X[:, j] = a * X[:, rng.integers(j)] + b * X[:, rng.integers(j)]
        elif kind == "constant":
            X[:, j] = rng.normal()
        elif kind == "integer":
            X[:, j] = np.round(2 * Z[:, j])
        elif kind == "onehot":
            X[:, j] = cat == j % 4
        else:
            X[:, j] = Z[:, j]
    return X, rng


@st.composite
def labels(draw, n, rng, n_present):
    """Labels of ``n`` rows: 2-5 classes, each at least ~5 % likely and present
    in the first ``n_present`` rows (the training rows)."""
    K = draw(st.integers(2, 5), label="n_classes")
    w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=K, max_size=K), label="weights"))
    p = w / w.sum()
    y = rng.choice(K, size=n, p=p)
    y[rng.choice(n_present, size=K, replace=False)] = np.arange(K)  # every class present
    kind = draw(st.sampled_from(["int", "str", "shifted"]), label="label kind")
    if kind == "str":
        return np.array(["c%d" % k for k in range(K)])[y]
    return y if kind == "int" else 3 * y - 7


def _informative(X, y, rng, strength):
    """Make the non-constant columns depend on the class (in place)."""
    codes = np.unique(y, return_inverse=True)[1].ravel()
    shift = rng.normal(size=(codes.max() + 1, X.shape[1])) * strength
    scale = X.std(axis=0)
    X += shift[codes] * np.where(scale > 0, scale, 0.0)


@st.composite
def lupi_problems(draw, n_max=200, d_max=30):
    """``(X, X_star, y, X_new)``: a classification problem with privileged features."""
    X, rng = draw(designs(n_max=n_max, d_max=d_max))
    n = X.shape[0] - 30
    y_all = draw(labels(X.shape[0], rng, n))
    _informative(X, y_all, rng, draw(st.sampled_from([0.0, 0.5, 2.0]), label="signal"))
    d_star = draw(st.integers(1, 10), label="d_star")
    codes = np.unique(y_all, return_inverse=True)[1].ravel()
    X_star = rng.normal(size=(X.shape[0], d_star))
    if draw(st.booleans(), label="informative X*"):
        X_star[:, 0] += 2.0 * codes
    return X[:n], X_star[:n], y_all[:n], X[n:]


def _common_params(draw, engine):
    params = dict(
        n_estimators=draw(st.integers(1, 8), label="n_estimators"),
        learning_rate=draw(st.sampled_from([0.05, 0.3, 1.0]), label="learning_rate"),
        max_depth=draw(st.sampled_from([1, 2, 3, None]), label="max_depth"),
        random_state=draw(st.integers(0, 100), label="random_state"),
        engine=engine,
    )
    if draw(st.booleans(), label="early stopping"):
        params.update(n_iter_no_change=draw(st.integers(1, 3)),
                      validation_fraction=draw(st.sampled_from([0.1, 0.25])))
    if engine == "hist":
        params.update(n_jobs=1, max_bins=draw(st.sampled_from([2, 16, 256]), label="max_bins"))
    else:
        params.update(leaf_values=draw(st.sampled_from(["newton", "gradient"])),
                      min_samples_leaf=draw(st.sampled_from([1, 3])))
    return params


def _check_probabilities(P, n, classes):
    assert P.shape == (n, len(classes))
    assert np.all(np.isfinite(P))
    assert P.min() >= 0.0 and P.max() <= 1.0
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-9)


def _check_classifier(est, X, y, X_new):
    classes = np.unique(y)
    np.testing.assert_array_equal(est.classes_, classes)
    for Z in (X, X_new):
        P = est.predict_proba(Z)
        _check_probabilities(P, Z.shape[0], classes)
        pred = est.predict(Z)
        assert set(np.unique(pred)) <= set(classes)
        np.testing.assert_array_equal(pred, classes[np.argmax(P, axis=1)])
        assert np.all(np.isfinite(est.decision_function(Z)))
    assert est.n_estimators_ >= 1


def _fit(est, *args, **kwargs):
    # a ConvergenceWarning or the like is allowed; an exception is not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(*args, **kwargs)


@pytest.mark.parametrize("engine", ["hist", "exact"])
@given(problem=lupi_problems(), data=st.data())
@examples(cost=1)
def test_privileged_boosting_fits_and_predicts_distributions(engine, problem, data):
    X, X_star, y, X_new = problem
    mode = data.draw(st.sampled_from(["nf", "kbpib", "jpib"]), label="mode")
    params = _common_params(data.draw, engine)
    params.update(mode=mode, alpha=data.draw(st.sampled_from([0.0, 0.5, 1.0, 5.0]), label="alpha"))
    K = len(np.unique(y))
    if mode == "kbpib" and data.draw(st.booleans(), label="teacher probabilities"):
        rng = np.random.default_rng(0)
        params["teacher"] = rng.dirichlet(np.ones(K), size=len(y))
    est = _fit(PrivilegedBoostingClassifier(**params), X, y, privileged_features=X_star)
    _check_classifier(est, X, y, X_new)
    if mode == "jpib":
        _check_probabilities(est.predict_privileged_proba(X_star), len(y), np.unique(y))
    if mode == "kbpib" and est.teacher_proba_ is not None:
        _check_probabilities(est.teacher_proba_, est.teacher_proba_.shape[0], np.unique(y))


@pytest.mark.parametrize("engine", ["hist", "exact"])
@given(problem=lupi_problems(), data=st.data())
@examples(cost=1)
def test_soft_label_boosting_fits_and_predicts_distributions(engine, problem, data):
    X, X_star, y, X_new = problem
    params = _common_params(data.draw, engine)
    params.update(soft_weight=data.draw(st.sampled_from([0.0, 0.3, 0.9]), label="soft_weight"),
                  teacher_cv=data.draw(st.sampled_from([None, 2, 3]), label="teacher_cv"))
    est = _fit(SoftLabelBoostingClassifier(**params), X, y, privileged_features=X_star)
    _check_classifier(est, X, y, X_new)
    T = est.soft_labels_
    assert np.all(np.isfinite(T)) and T.min() >= 0
    np.testing.assert_allclose(T.sum(axis=1), 1.0, atol=1e-9)


@st.composite
def raw_scores(draw):
    n = draw(st.integers(1, 30))
    K = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([0.1, 3.0, 30.0]))
    raw = rng.normal(size=(n, 1 if K == 2 else K)) * scale
    y = rng.integers(0, K, n)
    Q = rng.dirichlet(np.full(K, draw(st.sampled_from([0.2, 1.0, 10.0]))), size=n)
    alpha = draw(st.sampled_from([0.0, 0.3, 1.0, 4.0]))
    return raw, y, Q, alpha


@given(raw_scores())
@examples(cost=1)
def test_loss_gradient_and_hessian_are_consistent(case):
    raw, y, Q, alpha = case
    K = Q.shape[1]
    P = raw_to_proba(raw)
    _check_probabilities(P, raw.shape[0], np.arange(K))
    loss = privileged_loss(raw, y, Q, alpha)
    assert np.all(np.isfinite(loss)) and loss.min() >= -1e-12  # NLL >= 0, KL >= 0
    g = privileged_negative_gradient(raw, y, Q, alpha)
    h = privileged_hessian(raw, alpha)
    assert g.shape == h.shape == raw.shape
    assert np.all(np.isfinite(g)) and np.all(h >= 0)
    # central differences of the loss (each row's loss depends on its own raw only)
    eps = 1e-6
    for k in range(raw.shape[1]):
        step = np.zeros_like(raw)
        step[:, k] = eps
        fd = (privileged_loss(raw + step, y, Q, alpha)
              - privileged_loss(raw - step, y, Q, alpha)) / (2 * eps)
        np.testing.assert_allclose(-g[:, k], fd, rtol=1e-4, atol=1e-6 * (1 + alpha))
