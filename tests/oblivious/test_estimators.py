"""ORR / M-ORR / oblivious SVM against closed forms; metadata routing."""

import numpy as np
import pytest
import sklearn
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.svm import SVC
from sklearn.utils._param_validation import InvalidParameterError

from lupikit.oblivious import ObliviousKernel, ObliviousRidge, ObliviousSVC


def _reg(n=200, seed=0, gamma=0.3):
    rng = np.random.default_rng(seed)
    S = rng.uniform(-5, 5, n)
    U = rng.uniform(-5, 5, n)
    X = (gamma * U + (1 - gamma) * S)[:, None]
    y = X[:, 0] ** 2 + S**2 + rng.normal(scale=0.3, size=n)
    return X, S, y


def test_orr_closed_form():
    X, S, y = _reg()
    orr = ObliviousRidge(alpha=0.5, gamma=1.0, partition="grid", grid_range=(-5, 5),
                         random_state=0).fit(X, y, sensitive_features=S)
    e, f = orr.estimation_indices_, orr.fit_indices_
    assert len(e) == 100 and len(f) == 100 and not set(e) & set(f)
    ok = ObliviousKernel(gamma=1.0, partition="grid", grid_range=(-5, 5)).fit(X[e], S[e])
    O = ok.gram(X[f], S[f])
    alpha = np.linalg.solve(O + 0.5 * np.eye(len(f)), y[f])
    np.testing.assert_allclose(orr.dual_coef_, alpha, rtol=1e-8, atol=1e-8)
    Xn, Sn, _ = _reg(30, seed=1)
    np.testing.assert_allclose(orr.predict(Xn, sensitive_features=Sn),
                               ok.cross(Xn, Sn, X[f], S[f]) @ alpha, rtol=1e-8, atol=1e-8)
    # the ridge objective's gradient vanishes at alpha (Appendix D)
    grad = O @ (O @ alpha - y[f]) + 0.5 * O @ alpha
    assert np.abs(grad).max() < 1e-6 * np.abs(O @ y[f]).max()


def test_morr_is_krr_with_oblivious_test_features():
    X, S, y = _reg(seed=2)
    m = ObliviousRidge(alpha=0.25, gamma=1.0, markov=True, random_state=3)
    m.fit(X, y, sensitive_features=S)
    f, e = m.fit_indices_, m.estimation_indices_
    K = rbf_kernel(X[f], gamma=1.0)
    alpha = np.linalg.solve(K + 0.25 * np.eye(len(f)), y[f])
    np.testing.assert_allclose(m.dual_coef_, alpha, rtol=1e-8, atol=1e-8)
    # explicit formula: <Z, phi(x_i)> = k(x, x_i) + <mu - mu_{c(s)}, phi(x_i)>
    Xn, Sn, _ = _reg(20, seed=4)
    ok = m.kernel_
    cells_e = ok.cells(S[e])
    cells_n = ok.cells(Sn)
    Kfe = rbf_kernel(X[f], X[e], gamma=1.0)
    mu = Kfe.mean(axis=1)
    C = rbf_kernel(Xn, X[f], gamma=1.0)
    for r in range(len(Xn)):
        a = cells_n[r]
        mu_a = Kfe[:, cells_e == a].mean(axis=1) if a < ok.n_cells_ else 0.0
        C[r] += mu - mu_a
    np.testing.assert_allclose(m.predict(Xn, sensitive_features=Sn), C @ alpha, atol=1e-8)


def test_estimation_fraction_one_uses_all_points():
    X, S, y = _reg(80)
    m = ObliviousRidge(alpha=1.0, gamma=1.0, estimation_fraction=1.0).fit(
        X, y, sensitive_features=S)
    np.testing.assert_array_equal(m.fit_indices_, np.arange(80))
    np.testing.assert_array_equal(m.estimation_indices_, np.arange(80))


def test_ordered_split_first_rows_fit_last_rows_estimate():
    """split="ordered": the authors' layout, first half trains, second half estimates."""
    rng = np.random.default_rng(11)
    S = rng.integers(0, 2, 201)
    X = np.c_[rng.normal(size=201) + S, rng.normal(size=201)]
    y = (X[:, 0] + X[:, 1] > 0.5).astype(int)
    clf = ObliviousSVC(kernel="linear", C=1.0, split="ordered").fit(X, y, sensitive_features=S)
    n_est = int(round(0.5 * 201))
    np.testing.assert_array_equal(clf.fit_indices_, np.arange(201 - n_est))
    np.testing.assert_array_equal(clf.estimation_indices_, np.arange(201 - n_est, 201))
    f, e = clf.fit_indices_, clf.estimation_indices_
    ok = ObliviousKernel(kernel="linear").fit(X[e], S[e])
    ref = SVC(C=1.0, kernel="precomputed").fit(ok.gram(X[f], S[f]), y[f])
    np.testing.assert_allclose(clf.decision_function(X[:20], sensitive_features=S[:20]),
                               ref.decision_function(ok.cross(X[:20], S[:20], X[f], S[f])),
                               atol=1e-8)
    # deterministic (no random_state involved) and the same for ridge
    again = ObliviousSVC(kernel="linear", C=1.0, split="ordered", random_state=5).fit(
        X, y, sensitive_features=S)
    np.testing.assert_array_equal(again.decision_function(X, sensitive_features=S),
                                  clf.decision_function(X, sensitive_features=S))
    r = ObliviousRidge(kernel="linear", split="ordered", estimation_fraction=0.25).fit(
        X, y.astype(float), sensitive_features=S)
    np.testing.assert_array_equal(r.estimation_indices_, np.arange(201 - 50, 201))
    with pytest.raises(ValueError, match="split"):
        ObliviousSVC(split="file").fit(X, y, sensitive_features=S)


def test_svc_matches_precomputed_svc():
    rng = np.random.default_rng(5)
    S = rng.integers(0, 2, 300).astype(float)
    X = np.c_[rng.normal(size=300) + 1.5 * S, rng.normal(size=300)]
    y = (X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=300) > 0.8).astype(int)
    clf = ObliviousSVC(C=2.0, gamma=0.5, random_state=0).fit(X, y, sensitive_features=S)
    e, f = clf.estimation_indices_, clf.fit_indices_
    # stratified split: both groups in the estimation part
    assert set(S[e]) == {0.0, 1.0}
    ok = ObliviousKernel(gamma=0.5).fit(X[e], S[e])
    ref = SVC(C=2.0, kernel="precomputed").fit(ok.gram(X[f], S[f]), y[f])
    Xn = rng.normal(size=(50, 2))
    Sn = rng.integers(0, 2, 50).astype(float)
    np.testing.assert_allclose(
        clf.decision_function(Xn, sensitive_features=Sn),
        ref.decision_function(ok.cross(Xn, Sn, X[f], S[f])), atol=1e-8)
    assert 0.5 < clf.score(Xn, (Xn[:, 0] + Xn[:, 1] > 0.8).astype(int),
                           sensitive_features=Sn) <= 1.0


def test_oblivious_linear_svm_removes_group_mean_shift():
    # linear kernel: <w, Z> has the same mean in both groups (Section 6.5)
    rng = np.random.default_rng(6)
    S = rng.integers(0, 2, 2000).astype(float)
    X = np.c_[rng.normal(size=2000) + 2 * S, rng.normal(size=2000)]
    y = (X[:, 0] > 1).astype(int)
    clf = ObliviousSVC(kernel="linear", C=1.0, random_state=0).fit(
        X, y, sensitive_features=S)
    f = clf.decision_function(X, sensitive_features=S)
    ok = clf.kernel_
    # exact on the estimation sample (empirical conditional means)
    e = clf.estimation_indices_
    fe = f[e]
    assert abs(fe[S[e] == 0].mean() - fe[S[e] == 1].mean()) < 1e-8
    assert ok.n_cells_ == 2


def test_metadata_routing_gridsearch_and_cross_validate():
    X, S, y = _reg(240, seed=7)
    with sklearn.config_context(enable_metadata_routing=True):
        est = (ObliviousRidge(gamma=1.0, random_state=0)
               .set_fit_request(sensitive_features=True)
               .set_score_request(sensitive_features=True))
        gs = GridSearchCV(est, {"alpha": [0.1, 1.0], "markov": [False, True]}, cv=3)
        gs.fit(X, y, sensitive_features=S)
        best = gs.best_estimator_  # refitted on all 240 rows with the routed S
        np.testing.assert_array_equal(best.S_fit_[:, 0], S[best.fit_indices_])
        res = cross_validate(est, X, y, cv=3, params={"sensitive_features": S})
        assert res["test_score"].shape == (3,)
        rng = np.random.default_rng(8)
        Sc = rng.integers(0, 2, 240).astype(float)
        yc = (X[:, 0] + Sc > 0).astype(int)
        clf = (ObliviousSVC(gamma=1.0, random_state=0)
               .set_fit_request(sensitive_features=True)
               .set_score_request(sensitive_features=True))
        gs = GridSearchCV(clf, {"C": [0.5, 2.0]}, cv=3).fit(X, yc, sensitive_features=Sc)
        assert gs.best_score_ > 0.5
    # without S the estimators refuse to fit
    with pytest.raises(ValueError, match="sensitive_features is required"):
        ObliviousRidge().fit(X, y)


def test_bad_inputs_estimators():
    X, S, y = _reg(50)
    with pytest.raises(ValueError, match="sensitive_features has 49 rows"):
        ObliviousRidge().fit(X, y, sensitive_features=S[:-1])
    with pytest.raises(InvalidParameterError, match="'alpha' parameter"):
        ObliviousRidge(alpha=0.0).fit(X, y, sensitive_features=S)
    with pytest.raises(InvalidParameterError, match="'estimation_fraction' parameter"):
        ObliviousRidge(estimation_fraction=1.5).fit(X, y, sensitive_features=S)
    with pytest.raises(InvalidParameterError, match="'markov' parameter"):
        ObliviousRidge(markov="yes").fit(X, y, sensitive_features=S)
    with pytest.raises(TypeError, match="numeric"):
        ObliviousSVC().fit(X, (y > 5).astype(int), sensitive_features=np.array(["m"] * 50))
    m = ObliviousRidge(gamma=1.0).fit(X, y, sensitive_features=S)
    with pytest.raises(ValueError, match="sensitive_features"):
        m.predict(X[:3], sensitive_features=[0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="sensitive_features is required"):
        m.predict(X[:3])


def test_markov_svc_uses_plain_kernel_for_training():
    rng = np.random.default_rng(9)
    S = rng.integers(0, 2, 200).astype(float)
    X = np.c_[rng.normal(size=200) + S, rng.normal(size=200)]
    y = (X[:, 0] > 0.5).astype(int)
    clf = ObliviousSVC(C=1.0, gamma=0.5, markov=True, random_state=1).fit(
        X, y, sensitive_features=S)
    f = clf.fit_indices_
    ref = SVC(C=1.0, kernel="precomputed").fit(rbf_kernel(X[f], gamma=0.5), y[f])
    Xn, Sn = X[:20], S[:20]
    C = clf.kernel_.cross(Xn, Sn, X[f])  # <Z_new, phi(x_i)>
    np.testing.assert_allclose(clf.decision_function(Xn, sensitive_features=Sn),
                               ref.decision_function(C), atol=1e-8)
