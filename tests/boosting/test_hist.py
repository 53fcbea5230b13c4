"""The histogram engine (XGBoost on soft labels) against independent references.

References: finite differences of the paper's objective, XGBoost called
directly with its own objectives, a brute-force JPIB loop that hands XGBoost
the paper's gradient and hessian every round, and the exact engine.
"""

import numpy as np
import pytest
import xgboost as xgb
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from lupikit.boosting import (
    PrivilegedBoostingClassifier,
    SoftLabelBoostingClassifier,
    privileged_hessian,
    privileged_loss,
    privileged_negative_gradient,
)
from lupikit.datasets import load_privileged_task, make_lupi_classification
from lupikit.boosting._hist import (
    SOFTMAX_HESSIAN_SCALE,
    soft_label_gradient,
    soft_label_objective,
)

PBC = PrivilegedBoostingClassifier
PARAMS = {"tree_method": "hist", "max_depth": 3, "learning_rate": 0.1, "max_bin": 256,
          "reg_lambda": 0.0, "min_child_weight": 0.0, "nthread": 1}


def start_score(y, K):
    prior = np.bincount(y, minlength=K) / len(y)
    return np.array([np.log(prior[1] / prior[0])]) if K == 2 else np.log(prior)


def base_margin(init, n):
    return np.full(n, init[0]) if init.size == 1 else np.tile(init, (n, 1))


# ------------------------------------------------------------ derivatives
@pytest.mark.parametrize("K", [2, 4])
@pytest.mark.parametrize("alpha", [0.0, 0.5, 3.0])
def test_soft_label_gradient_is_the_papers_by_finite_differences(K, alpha):
    """w (p - T) and w p (1 - p), with T = (Y + alpha q)/(1 + alpha) and w = 1 + alpha,
    are the gradient and diagonal hessian of NLL + alpha KL(q || p)."""
    rng = np.random.RandomState(K)
    n, cols = 400, (1 if K == 2 else K)
    raw = rng.normal(scale=2.0, size=(n, cols))
    y = rng.randint(0, K, n)
    q = rng.dirichlet(np.ones(K), size=n)
    T = (np.eye(K)[y] + alpha * q) / (1 + alpha)
    w = np.full(n, 1 + alpha)
    g, h = soft_label_gradient(raw if K > 2 else raw[:, 0], T if K > 2 else T[:, 1], w)
    g, h = g.reshape(n, cols), h.reshape(n, cols)
    eps = 1e-6
    fd_g, fd_h = np.zeros_like(raw), np.zeros_like(raw)
    for k in range(cols):
        e = np.zeros_like(raw)
        e[:, k] = eps
        fd_g[:, k] = (privileged_loss(raw + e, y, q, alpha) - privileged_loss(raw - e, y, q, alpha)) / (2 * eps)
        gp, _ = soft_label_gradient(raw + e if K > 2 else (raw + e)[:, 0], T if K > 2 else T[:, 1], w)
        gm, _ = soft_label_gradient(raw - e if K > 2 else (raw - e)[:, 0], T if K > 2 else T[:, 1], w)
        fd_h[:, k] = (gp.reshape(n, cols)[:, k] - gm.reshape(n, cols)[:, k]) / (2 * eps)
    rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)  # noqa: E731
    assert rel(g, fd_g) < 1e-6
    assert rel(h, fd_h) < 1e-6
    # and they are the library's own closed forms
    np.testing.assert_allclose(-g, privileged_negative_gradient(raw, y, q, alpha), atol=1e-12)
    np.testing.assert_allclose(h, privileged_hessian(raw, alpha), atol=1e-12)


def test_softmax_objective_reads_soft_labels_and_weights_from_the_matrix():
    rng = np.random.RandomState(0)
    n, K = 50, 3
    T = rng.dirichlet(np.ones(K), size=n)
    w = rng.uniform(1, 3, n)
    raw = rng.normal(size=(n, K))
    d = xgb.DMatrix(rng.normal(size=(n, 2)), label=T, weight=w)
    g, h = soft_label_objective(raw.astype(np.float32), d)
    g_ref, h_ref = soft_label_gradient(raw.astype(np.float32), T.astype(np.float32), w.astype(np.float32))
    np.testing.assert_allclose(g, g_ref, rtol=1e-6)
    np.testing.assert_allclose(h, SOFTMAX_HESSIAN_SCALE * h_ref, rtol=1e-6)


def test_xgboost_logistic_on_soft_labels_is_boosting_the_papers_gradient(data):
    """XGBoost's own binary:logistic on (T, w) grows the trees that the paper's
    gradient and hessian, handed over each round, grow."""
    X, Xs, y = data
    alpha = 1.5
    q = LogisticRegression().fit(Xs, y).predict_proba(Xs)[:, 1]
    T = (y + alpha * q) / (1 + alpha)
    init = start_score(y, 2)
    bm = base_margin(init, len(y))
    own = xgb.train({**PARAMS, "objective": "binary:logistic"},
                    xgb.DMatrix(X, label=T, weight=np.full(len(y), 1 + alpha), base_margin=bm), 20)
    d = xgb.DMatrix(X, label=y, base_margin=bm)
    ref = xgb.Booster(PARAMS, [d])
    for m in range(20):
        ref.update(d, m, fobj=lambda raw, _: (
            -privileged_negative_gradient(raw, y, q, alpha)[:, 0], privileged_hessian(raw, alpha)[:, 0]))
    dt = xgb.DMatrix(X, base_margin=bm)
    np.testing.assert_allclose(own.predict(dt, output_margin=True), ref.predict(dt, output_margin=True),
                               atol=1e-5)


# ------------------------------------------------------- the engine's own model
@pytest.mark.parametrize("which", ["data", "data3"])
@pytest.mark.parametrize("mode", ["nf", "kbpib", "jpib"])
def test_alpha_zero_is_xgboosts_own_log_loss_model(which, mode, request):
    X, Xs, y = request.getfixturevalue(which)
    K = len(np.unique(y))
    ours = PBC(mode=mode, alpha=0.0, n_estimators=30, n_jobs=1, random_state=0)
    ours.fit(X, y, privileged_features=Xs)
    init = start_score(y, K)
    objective = {"objective": "binary:logistic"} if K == 2 else {"objective": "multi:softprob",
                                                                "num_class": K}
    own = xgb.train({**PARAMS, **objective}, xgb.DMatrix(X, label=y, base_margin=base_margin(init, len(y))),
                    30)
    margin = own.predict(xgb.DMatrix(X, base_margin=base_margin(init, len(y))), output_margin=True)
    np.testing.assert_allclose(ours.decision_function(X), margin, atol=1e-8, rtol=0)
    P = ours.predict_proba(X)
    own_P = own.predict(xgb.DMatrix(X, base_margin=base_margin(init, len(y))))
    np.testing.assert_allclose(P[:, 1] if K == 2 else P, own_P, atol=1e-6)


@pytest.mark.parametrize("which", ["data", "data3"])
def test_soft_label_identity_on_the_engine(which, request):
    """KbPIB with a fixed teacher is XGBoost's log-loss on (Y + alpha q)/(1 + alpha) with weight 1 + alpha."""
    X, Xs, y = request.getfixturevalue(which)
    K = len(np.unique(y))
    alpha = 2.0
    teacher = LogisticRegression().fit(Xs, y)
    ours = PBC(mode="kbpib", alpha=alpha, teacher=teacher, n_estimators=25, n_jobs=1, random_state=0)
    ours.fit(X, y, privileged_features=Xs)
    T = (np.eye(K)[y] + alpha * teacher.predict_proba(Xs)) / (1 + alpha)
    init = start_score(y, K)
    bm = base_margin(init, len(y))
    w = np.full(len(y), 1 + alpha)
    if K == 2:
        own = xgb.train({**PARAMS, "objective": "binary:logistic"},
                        xgb.DMatrix(X, label=T[:, 1], weight=w, base_margin=bm), 25)
    else:
        own = xgb.train(PARAMS, xgb.DMatrix(X, label=T, weight=w, base_margin=bm), 25,
                        obj=soft_label_objective)
    margin = own.predict(xgb.DMatrix(X, base_margin=bm), output_margin=True)
    np.testing.assert_allclose(ours.decision_function(X), margin, atol=1e-8, rtol=0)


def test_jpib_matches_a_brute_force_loop_with_the_papers_gradients(data):
    """JPIB's soft labels reset every round equal handing XGBoost (Y - p) - alpha (p - q)
    for the student and (Y - q) - alpha (q - p) for the privileged trees."""
    X, Xs, y = data
    alpha, rounds = 0.8, 15
    ours = PBC(mode="jpib", alpha=alpha, n_estimators=rounds, n_jobs=1, random_state=0)
    ours.fit(X, y, privileged_features=Xs)
    init = start_score(y, 2)
    bm = base_margin(init, len(y))
    ds, dp = xgb.DMatrix(X, label=y, base_margin=bm), xgb.DMatrix(Xs, label=y, base_margin=bm)
    F, G = xgb.Booster(PARAMS, [ds]), xgb.Booster(PARAMS, [dp])
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    for m in range(rounds):
        q = sig(G.predict(dp, output_margin=True)) if m else sig(bm)
        F.update(ds, m, fobj=lambda raw, _: (
            -privileged_negative_gradient(raw, y, q, alpha)[:, 0], privileged_hessian(raw, alpha)[:, 0]))
        p = sig(F.predict(ds, output_margin=True))
        G.update(dp, m, fobj=lambda raw, _: (
            -privileged_negative_gradient(raw, y, p, alpha)[:, 0], privileged_hessian(raw, alpha)[:, 0]))
    np.testing.assert_allclose(ours.decision_function(X), F.predict(xgb.DMatrix(X, base_margin=bm),
                                                                      output_margin=True), atol=1e-4)
    np.testing.assert_allclose(ours.predict_privileged_proba(Xs)[:, 1],
                               sig(G.predict(xgb.DMatrix(Xs, base_margin=bm), output_margin=True)),
                               atol=1e-4)


def test_soft_label_baseline_is_xgboost_on_blended_labels(data):
    X, Xs, y = data
    teacher = LogisticRegression().fit(Xs, y)
    lam = 0.4
    ours = SoftLabelBoostingClassifier(soft_weight=lam, teacher=teacher, n_estimators=20, n_jobs=1,
                                       random_state=0).fit(X, y, privileged_features=Xs)
    T = (1 - lam) * y + lam * teacher.predict_proba(Xs)[:, 1]
    init = start_score(y, 2)
    bm = base_margin(init, len(y))
    own = xgb.train({**PARAMS, "objective": "binary:logistic"}, xgb.DMatrix(X, label=T, base_margin=bm), 20)
    np.testing.assert_allclose(ours.decision_function(X),
                               own.predict(xgb.DMatrix(X, base_margin=bm), output_margin=True), atol=1e-8)


# ------------------------------------------------------- against the exact engine
@pytest.mark.parametrize("task", ["breast_cancer", "lupi_synthetic", "compas"])
@pytest.mark.parametrize("mode", ["nf", "kbpib", "jpib"])
def test_exact_and_histogram_engines_agree_in_auc(task, mode):
    t = load_privileged_task(task, n_samples=None if task == "breast_cancer" else 4000, random_state=0)
    X_tr, X_te, Xs_tr, _, y_tr, y_te = train_test_split(t.X, t.X_star, t.y, test_size=0.4,
                                                        random_state=0, stratify=t.y)
    auc = {}
    for engine in ("hist", "exact"):
        m = PBC(mode=mode, alpha=1.0, n_estimators=100, random_state=0, engine=engine, n_jobs=1)
        m.fit(X_tr, y_tr, privileged_features=Xs_tr)
        auc[engine] = roc_auc_score(y_te, m.predict_proba(X_te)[:, 1])
    assert abs(auc["hist"] - auc["exact"]) < 0.01, auc


# ------------------------------------------------------------ missing values
def test_missing_values_are_handled_as_xgboost_handles_them(data):
    X, Xs, y = data
    rng = np.random.RandomState(0)
    Xn, Xsn = X.copy(), Xs.copy()
    Xn[rng.rand(*X.shape) < 0.1] = np.nan
    Xsn[rng.rand(*Xs.shape) < 0.1] = np.nan
    nf = PBC(mode="nf", n_estimators=20, n_jobs=1).fit(Xn, y)
    init = start_score(y, 2)
    own = xgb.train({**PARAMS, "objective": "binary:logistic"},
                    xgb.DMatrix(Xn, label=y, base_margin=base_margin(init, len(y))), 20)
    np.testing.assert_allclose(
        nf.decision_function(Xn),
        own.predict(xgb.DMatrix(Xn, base_margin=base_margin(init, len(y))), output_margin=True), atol=1e-8)
    for mode in ("kbpib", "jpib"):
        m = PBC(mode=mode, n_estimators=20, n_jobs=1).fit(Xn, y, privileged_features=Xsn)
        P = m.predict_proba(Xn)
        assert np.isfinite(P).all() and roc_auc_score(y, P[:, 1]) > 0.7
    assert np.isfinite(SoftLabelBoostingClassifier(n_estimators=10).fit(
        Xn, y, privileged_features=Xsn).predict_proba(Xn)).all()


def test_exact_engine_rejects_missing_values(data):
    X, Xs, y = data
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PBC(mode="nf", engine="exact", n_estimators=3).fit(Xn, y)
    with pytest.raises(ValueError, match="NaN"):
        PBC(mode="nf", engine="exact", n_estimators=3).fit(X, y).predict(Xn)


# ------------------------------------------------------------ parameters
@pytest.mark.parametrize(
    "params, match",
    [
        (dict(engine="lightgbm"), "engine"),
        (dict(engine=None), "engine"),
        (dict(leaf_values="gradient"), "leaf_values"),
        (dict(min_samples_leaf=5), "min_samples_leaf"),
        (dict(min_samples_split=4), "min_samples_split"),
        (dict(max_bins=1), "max_bins"),
        (dict(max_bins=2.5), "max_bins"),
        (dict(n_jobs=0), "n_jobs"),
        (dict(n_jobs="all"), "n_jobs"),
    ],
)
def test_bad_engine_parameters(data, params, match):
    X, Xs, y = data
    for est in (PBC(n_estimators=3, **params), SoftLabelBoostingClassifier(n_estimators=3, **params)):
        with pytest.raises(ValueError, match=match):
            est.fit(X, y, privileged_features=Xs)


def test_threads_and_bins(data):
    X, Xs, y = data
    one = PBC(n_estimators=20, n_jobs=1, random_state=0).fit(X, y, privileged_features=Xs)
    two = PBC(n_estimators=20, n_jobs=2, random_state=0).fit(X, y, privileged_features=Xs)
    np.testing.assert_allclose(one.predict_proba(X), two.predict_proba(X), atol=1e-7)
    coarse = PBC(mode="nf", n_estimators=5, max_bins=4, n_jobs=1).fit(X, y)
    # with 4 bins a feature offers at most 3 thresholds
    for j in range(X.shape[1]):
        splits = {line.split("<")[1].split("]")[0] for line in coarse.booster_.get_dump()[0].split()
                  if f"[f{j}<" in line}
        assert len(splits) <= 3


def test_staged_predict_proba_ends_at_predict_proba(data3):
    X, Xs, y = data3
    m = PBC(mode="jpib", n_estimators=12, n_jobs=1, random_state=0).fit(X, y, privileged_features=Xs)
    stages = list(m.staged_predict_proba(X))
    assert len(stages) == 12
    np.testing.assert_allclose(stages[-1], m.predict_proba(X))
    assert m.train_score_.size == 0  # the hist engine does not evaluate the training objective


def test_values_beyond_float32_are_a_clear_error(data):
    X, Xs, y = data
    big = X.copy()
    big[0, 1] = 1e39
    with pytest.raises(ValueError, match="X has values beyond the float32 range"):
        PBC(mode="nf", n_estimators=2).fit(big, y)
    with pytest.raises(ValueError, match="privileged_features has values beyond"):
        PBC(n_estimators=2).fit(X, y, privileged_features=np.where(Xs > 1, 1e39, Xs))
    m = PBC(mode="nf", n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="float32"):
        m.predict_proba(big)


def test_every_class_keeps_a_training_row_when_stratifying_fails():
    X, Xs, y = make_lupi_classification(60, 4, 2, n_classes=3, random_state=0)
    y = y.copy()
    y[7] = 3  # a class with one member cannot be stratified
    for seed in range(30):
        for engine in ("hist", "exact"):
            m = PBC(mode="kbpib", n_estimators=5, n_iter_no_change=2, validation_fraction=0.3,
                    random_state=seed, engine=engine).fit(X, y, privileged_features=Xs)
            assert np.isfinite(m.predict_proba(X)).all()
            assert m.teacher_proba_.shape[1] == 4


def test_refit_with_the_other_engine_forgets_the_first(data):
    X, Xs, y = data
    m = PBC(mode="jpib", n_estimators=3).fit(X, y, privileged_features=Xs)
    assert hasattr(m, "booster_")
    m.set_params(engine="exact").fit(X, y, privileged_features=Xs)
    assert not hasattr(m, "booster_") and not hasattr(m, "privileged_booster_")
    m.set_params(engine="hist").fit(X, y, privileged_features=Xs)
    assert not hasattr(m, "estimators_") and not hasattr(m, "privileged_estimators_")
    with pytest.raises(ValueError, match="privileged_features is required"):
        m.predict_privileged_proba(None)


def test_soft_label_objective_on_an_empty_matrix():
    # a Dask worker may hold no rows of a matrix
    for shape in ((0,), (0, 3)):
        d = xgb.DMatrix(np.empty((0, 2)), label=np.empty(shape))
        g, h = soft_label_objective(np.empty(shape, dtype=np.float32), d)
        assert g.shape == h.shape == shape


def _count_sketches(monkeypatch):
    """Record the shape of every QuantileDMatrix built."""
    from lupikit.boosting import _hist
    built, real = [], _hist.xgb.QuantileDMatrix

    def counted(X, *args, **kwargs):
        built.append(X.shape)
        return real(X, *args, **kwargs)

    monkeypatch.setattr(_hist.xgb, "QuantileDMatrix", counted)
    return built


def _fresh_sketches(monkeypatch):
    """No quantile sketch is reused: every fit sketches its rows itself."""
    from lupikit.boosting import _hist
    monkeypatch.setattr(_hist, "_MAX_SKETCHES", 0)
    _hist._SKETCHES.matrices = None


@pytest.mark.parametrize("K", [2, 3])
def test_reused_quantile_sketches_give_the_models_of_fresh_ones(K, monkeypatch):
    # one comparison's models on the same rows, in an order that reuses every
    # sketch (NF unweighted, KbPIB and JPIB weighted), are those fitted with a
    # sketch of their own, to the bit
    X, Xs, y = make_lupi_classification(n_samples=600, n_classes=K, random_state=3)[:3]
    specs = [("nf", 0.0), ("kbpib", 1.0), ("jpib", 1.0), ("nf", 0.0), ("jpib", 1.0), ("kbpib", 1.0)]

    def fit_all():
        out = []
        for mode, a in specs:
            m = PBC(mode=mode, alpha=a, n_estimators=15, max_depth=3, random_state=0, n_jobs=1)
            m.fit(X, y, privileged_features=Xs)
            out.append(m.predict_proba(X))
        return out

    built = _count_sketches(monkeypatch)
    reused = fit_all()
    # NF sketches X unweighted, KbPIB and JPIB X weighted, KbPIB's teacher X*
    # unweighted and JPIB's privileged trees X* weighted: four sketches serve the
    # ten training matrices of the six fits
    assert len(built) == 4
    with monkeypatch.context() as mp:
        _fresh_sketches(mp)
        fresh = fit_all()
    for a, b in zip(reused, fresh):
        np.testing.assert_array_equal(a, b)


def test_jpib_with_the_privileged_features_equal_to_x_shares_one_matrix(monkeypatch):
    # X* = X: one matrix serves the student and the privileged model, whose labels
    # differ every round; each update sets its own first
    X, _, y = make_lupi_classification(n_samples=400, random_state=4)[:3]
    fit = lambda: PBC(mode="jpib", alpha=1.0, n_estimators=10, random_state=0,  # noqa: E731
                      n_jobs=1).fit(X, y, privileged_features=X.copy())
    built = _count_sketches(monkeypatch)
    reused = fit()
    assert len(built) == 1  # one matrix for the student and the privileged model
    with monkeypatch.context() as mp:
        _fresh_sketches(mp)
        fresh = fit()
    np.testing.assert_array_equal(reused.predict_proba(X), fresh.predict_proba(X))
    np.testing.assert_array_equal(reused.predict_privileged_proba(X), fresh.predict_privileged_proba(X))
