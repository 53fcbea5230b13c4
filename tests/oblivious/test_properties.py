"""Property-based tests of Part IV (hypothesis): the oblivious kernel and every estimator.

The strategies draw well-posed problems (20-200 rows, 1-30 columns that may
be scaled, collinear, constant, integer or one-hot, 2-6 sensitive groups or
a continuous ``S``, 2-5 classes with a class down to about 5 %) and
hyperparameters, and assert what must always hold:

- the oblivious Gram matrix is symmetric, positive semi-definite up to
  rounding relative to the kernel's scale, consistent with ``cross`` and
  ``diag``, and on small cases equal to the paper's Algorithm 1 computed by
  the loops of ``test_kernel.algorithm1_loop``, with cells computed here;
- ``ObliviousRidge``, ``ObliviousSVC`` and ``FERM`` fit, or raise the
  documented ValueError exactly when the problem is not solvable (the split
  cannot hold every group / class, FERM's group without a positive example);
  their outputs are finite and the predictions are classes of ``y``;
- ``manifold_projection`` returns candidates and non-negative distances.

Profiles: ``tests/conftest.py`` (``LUPIKIT_HYPOTHESIS=slow`` for many more).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lupikit.oblivious import (
    FERM,
    ObliviousKernel,
    ObliviousRidge,
    ObliviousSVC,
    manifold_distance,
    manifold_projection,
)
from oblivious_reference import algorithm1_loop
from properties import examples

pytestmark = pytest.mark.property



COLUMN_KINDS = ["normal", "normal", "scaled", "collinear", "constant", "integer", "onehot"]
PSD_KERNELS = ["rbf", "linear", "poly", "laplacian"]


@st.composite
def designs(draw, n_min=20, n_max=200, d_max=30, n_new=20):
    """``(X, rng)``: ``n + n_new`` rows of 1-``d_max`` columns of mixed kinds."""
    n = draw(st.integers(n_min, n_max), label="n")
    d = draw(st.integers(1, d_max), label="d")
    kinds = draw(st.lists(st.sampled_from(COLUMN_KINDS), min_size=d, max_size=d), label="kinds")
    scales = draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d), label="log10 scales")
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    m = n + n_new
    Z = rng.normal(size=(m, d))
    cat = rng.integers(0, 4, m)
    X = np.empty((m, d))
    for j, kind in enumerate(kinds):
        if kind == "scaled":
            X[:, j] = (Z[:, j] + rng.normal()) * 10.0 ** scales[j]
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


def _skewed(draw, K, label):
    """Class or group probabilities, each at least ~5 % (relative weights 0.05-1)."""
    w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=K, max_size=K), label=label))
    return w / w.sum()


@st.composite
def sensitive(draw, m, n, rng):
    """``(S, discrete)``: 2-6 groups (integer labels, 1 or 2 columns) or a continuous S;
    every group present in the first ``n`` rows (if ``n`` allows)."""
    kind = draw(st.sampled_from(["groups", "groups", "two columns", "continuous"]), label="S kind")
    if kind == "continuous":
        return rng.uniform(-5, 5, m), False
    G = draw(st.integers(2, 6), label="n_groups")
    codes = rng.choice(G, size=m, p=_skewed(draw, G, "group weights"))
    k = min(G, n)
    codes[rng.choice(n, size=k, replace=False)] = np.arange(k)
    if kind == "two columns":
        return np.c_[codes % 2, codes // 2].astype(float), True
    labels = np.array(draw(st.lists(st.integers(-3, 20), min_size=G, max_size=G, unique=True),
                           label="group labels"), dtype=float)
    return labels[codes], True


@st.composite
def fair_problems(draw, n_max=200, d_max=30, n_classes=None):
    """``(X, S, y, X_new, S_new, discrete)`` with ``y`` a class label (2-5 classes)
    that depends on ``X`` and ``S``."""
    n_new = 20
    X, rng = draw(designs(n_max=n_max, d_max=d_max, n_new=n_new))
    m = X.shape[0]
    n = m - n_new
    S, discrete = draw(sensitive(m, n, rng))
    S2 = S.reshape(m, -1)
    # X depends on S (what the oblivious features remove)
    X += np.where(X.std(axis=0) > 0, X.std(axis=0), 0.0) * S2.sum(axis=1, keepdims=True) * 0.3
    K = draw(st.integers(2, 5), label="n_classes") if n_classes is None else n_classes
    score = X @ rng.normal(size=X.shape[1]) / np.maximum(X.std(), 1e-12) + S2.sum(axis=1)
    cuts = np.quantile(score, np.cumsum(_skewed(draw, K, "class weights"))[:-1])
    y = np.searchsorted(cuts, score)
    noise = rng.random(m) < draw(st.sampled_from([0.0, 0.1, 0.5]), label="label noise")
    y[noise] = rng.integers(0, K, noise.sum())
    y[rng.choice(n, size=K, replace=False)] = np.arange(K)  # every class in training
    return X[:n], S[:n], y[:n], X[n:], S[n:], discrete


def _fit(est, *args, **kwargs):
    with warnings.catch_warnings():  # warnings (convergence) are allowed, exceptions not
        warnings.simplefilter("ignore")
        return est.fit(*args, **kwargs)


def _group_codes(S):
    return np.unique(S.reshape(len(S), -1), axis=0, return_inverse=True)[1].ravel()


def _split_feasible(S, y, n_est, discrete):
    """Oracle of the random split (see test_split._feasible): every group in the
    estimation part (discrete S) and every class (y given) in the fitting part."""
    n = len(S)
    groups = _group_codes(S) if discrete else np.zeros(n, dtype=int)
    G = groups.max() + 1 if discrete else 0
    if y is None:
        return n_est >= G
    classes = np.unique(y, return_inverse=True)[1].ravel()
    K = classes.max() + 1
    if n_est < G or n - n_est < K:
        return False
    if not discrete:
        return True
    parent = list(range(G + K))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for g, c in zip(groups, classes):
        parent[find(g)] = find(G + c)
    roots = np.array([find(v) for v in range(G + K)])
    edges = np.bincount([find(g) for g in groups], minlength=G + K)
    return bool(np.all(edges >= np.bincount(roots, minlength=G + K)))


def _estimator_params(draw, kernel_choices=PSD_KERNELS):
    kernel = draw(st.sampled_from(kernel_choices), label="kernel")
    return dict(
        kernel=kernel,
        gamma=draw(st.sampled_from(["scale", "auto", 0.1, 1.0]), label="gamma"),
        degree=draw(st.integers(1, 3), label="degree"),
        n_bins=draw(st.sampled_from([2, 4, 16]), label="n_bins"),
        markov=draw(st.booleans(), label="markov"),
        estimation_fraction=draw(st.sampled_from([0.2, 0.5, 0.8, 1.0]), label="fraction"),
        empty_cell=draw(st.sampled_from(["zero", "mean"]), label="empty_cell"),
        random_state=draw(st.integers(0, 100), label="random_state"),
    )


def _discrete_partition(est, S):
    """Whether the estimator cuts ``S`` into its distinct values (partition=None:
    integer-valued with at most ``n_bins`` values per column, on the whole sample)."""
    if est.partition is not None:
        return est.partition == "discrete"
    S = S.reshape(len(S), -1)
    return bool(np.all(S == np.round(S))
                and all(np.unique(col).size <= est.n_bins for col in S.T))


def _expect_split(est, S, y):
    """None if the split is possible, else the ValueError message it must raise."""
    frac = est.estimation_fraction
    if frac == 1.0:
        return None
    n_est = int(round(frac * len(S)))
    feasible = _split_feasible(S, y, n_est, _discrete_partition(est, S))
    return None if feasible else r"sensitive groups|classes of y|No split"


def _check_split(est, S, y=None):
    e, f = est.estimation_indices_, est.fit_indices_
    if est.estimation_fraction < 1.0:
        assert len(e) == int(round(est.estimation_fraction * len(S)))
        np.testing.assert_array_equal(np.sort(np.r_[e, f]), np.arange(len(S)))
    if _discrete_partition(est, S):
        assert len(np.unique(S[e], axis=0)) == len(np.unique(S, axis=0))
    if y is not None:
        assert set(y[f]) == set(y)


@given(problem=fair_problems(), data=st.data())
@examples(cost=1)
def test_oblivious_svc_fits_or_raises_documented_error(problem, data):
    X, S, y, X_new, S_new, discrete = problem
    params = _estimator_params(data.draw)
    params.update(C=data.draw(st.sampled_from([0.1, 1.0, 100.0]), label="C"),
                  class_weight=data.draw(st.sampled_from([None, "balanced"]), label="class_weight"))
    est = ObliviousSVC(**params)
    err = _expect_split(est, S, y)
    if err is not None:
        with pytest.raises(ValueError, match=err):
            _fit(est, X, y, sensitive_features=S)
        return
    _fit(est, X, y, sensitive_features=S)
    np.testing.assert_array_equal(est.classes_, np.unique(y))
    _check_split(est, S, y)
    # new points: sensitive values seen in training (every group is in the estimation part)
    for Xq, Sq in ((X, S), (X_new, S_new)):
        pred = est.predict(Xq, sensitive_features=Sq)
        assert set(np.unique(pred)) <= set(np.unique(y))
        assert np.all(np.isfinite(est.decision_function(Xq, sensitive_features=Sq)))


@given(problem=fair_problems(), data=st.data())
@examples(cost=1)
def test_oblivious_ridge_fits_or_raises_documented_error(problem, data):
    X, S, y, X_new, S_new, discrete = problem
    rng = np.random.default_rng(0)
    target = X[:, 0] + S.reshape(len(S), -1).sum(axis=1) + rng.normal(size=len(y))
    if data.draw(st.booleans(), label="two targets"):
        target = np.c_[target, y]
    params = _estimator_params(data.draw)
    params.update(alpha=data.draw(st.sampled_from([1e-3, 1.0, 100.0]), label="alpha"))
    est = ObliviousRidge(**params)
    err = _expect_split(est, S, None)
    if err is not None:
        with pytest.raises(ValueError, match=err):
            _fit(est, X, target, sensitive_features=S)
        return
    _fit(est, X, target, sensitive_features=S)
    _check_split(est, S)
    for Xq, Sq in ((X, S), (X_new, S_new)):
        pred = est.predict(Xq, sensitive_features=Sq)
        assert pred.shape == (len(Xq),) + target.shape[1:]
        assert np.all(np.isfinite(pred))


@given(problem=fair_problems(n_classes=2), data=st.data())
@examples(cost=2)
def test_ferm_fits_or_raises_documented_error(problem, data):
    X, S, y, X_new, _, discrete = problem
    S = S.reshape(len(S), -1)[:, 0]
    if discrete:
        S = (S == S.max()).astype(float)  # FERM: a binary sensitive attribute
    else:
        S = (S > 0).astype(float)
    assume(np.unique(S).size == 2)
    kernel = data.draw(st.sampled_from(["linear", "rbf", "poly"]), label="kernel")
    epsilon = data.draw(st.sampled_from([0.0, 0.0, 0.1]), label="epsilon")
    est = FERM(C=data.draw(st.sampled_from([0.1, 1.0, 10.0]), label="C"), kernel=kernel,
               degree=2, epsilon=epsilon)
    positive = y == np.unique(y)[1]
    if not all(np.any(positive & (S == g)) for g in np.unique(S)):
        with pytest.raises(ValueError, match="has no positive example"):
            _fit(est, X, y, sensitive_features=S)
        return
    _fit(est, X, y, sensitive_features=S)
    for Xq in (X, X_new):
        assert np.all(np.isfinite(est.decision_function(Xq)))
        assert set(np.unique(est.predict(Xq))) <= set(np.unique(y))


# ---------------------------------------------------------------------------
# The oblivious kernel
# ---------------------------------------------------------------------------
@st.composite
def kernel_problems(draw, n_max=60, m_max=80, d_max=6):
    """``(X_est, S_est, X, S, params)``: an estimation sample and evaluation points."""
    X_all, rng = draw(designs(n_min=4, n_max=n_max + m_max, d_max=d_max, n_new=0))
    total = X_all.shape[0]
    m = draw(st.integers(2, max(2, min(m_max, total - 2))), label="m")
    S_all, discrete = draw(sensitive(total, m, rng))
    params = dict(
        kernel=draw(st.sampled_from(PSD_KERNELS), label="kernel"),
        gamma=draw(st.sampled_from(["scale", 0.5]), label="gamma"),
        degree=draw(st.integers(1, 3), label="degree"),
        coef0=draw(st.sampled_from([0.0, 1.0]), label="coef0"),
        n_bins=draw(st.sampled_from([1, 3, 8]), label="n_bins"),
        partition=draw(st.sampled_from([None, "grid"] + (["discrete"] if discrete else [])),
                       label="partition"),
        empty_cell=draw(st.sampled_from(["zero", "mean"]), label="empty_cell"),
        handle_unknown="empty",
    )
    return X_all[:m], S_all[:m], X_all[m:], S_all[m:], params


def _psd_tolerance(ok, X, O):
    scale = max(np.abs(ok._k(X)).max(), np.abs(O).max(), 1e-300)
    return 1e-9 * len(X) * scale


@given(kernel_problems())
@examples(cost=1)
def test_oblivious_gram_is_symmetric_psd_and_consistent(problem):
    X_est, S_est, X, S, params = problem
    ok = _fit(ObliviousKernel(**params), X_est, S_est)
    O = ok.gram(X, S)
    assert O.shape == (len(X), len(X)) and np.all(np.isfinite(O))
    tol = _psd_tolerance(ok, X, O)
    np.testing.assert_allclose(O, O.T, rtol=0, atol=tol / len(X))
    assert np.linalg.eigvalsh(0.5 * (O + O.T)).min() >= -tol
    np.testing.assert_allclose(ok.cross(X, S, X, S), O, rtol=0, atol=tol / len(X))
    np.testing.assert_allclose(ok.diag(X, S), np.diag(O), rtol=0, atol=tol / len(X))
    # the estimation sample's own oblivious features: PSD as well
    O_est = ok.gram(X_est, S_est)
    assert np.linalg.eigvalsh(0.5 * (O_est + O_est.T)).min() >= -_psd_tolerance(ok, X_est, O_est)


def _scalar_kernel(name, gamma, degree, coef0):
    """The kernel of ``lupikit.kernels`` as a function of two points (plain Python)."""
    if name == "rbf":
        return lambda x, z: math.exp(-gamma * sum((a - b) ** 2 for a, b in zip(x, z)))
    if name == "laplacian":
        return lambda x, z: math.exp(-gamma * sum(abs(a - b) for a, b in zip(x, z)))
    if name == "linear":
        return lambda x, z: sum(a * b for a, b in zip(x, z))
    return lambda x, z: (gamma * sum(a * b for a, b in zip(x, z)) + coef0) ** degree


def _reference_cells(S_est, S, partition, n_bins):
    """Cells computed independently: distinct values (discrete) or the equal-width grid
    over the estimation sample's range; an unseen value gets a cell of its own."""
    S_est = S_est.reshape(len(S_est), -1)
    S = S.reshape(len(S), -1)
    if partition == "discrete":
        keys = {tuple(row) for row in S_est.tolist()}
        return ([tuple(r) for r in S_est.tolist()],
                [tuple(r) if tuple(r) in keys else ("unseen",) for r in S.tolist()])
    low, high = S_est.min(axis=0), S_est.max(axis=0)

    def cell(row):
        out = []
        for v, lo, hi in zip(row, low, high):
            out.append(0 if hi <= lo else int(min(max(math.floor((v - lo) / (hi - lo) * n_bins),
                                                      0), n_bins - 1)))
        return tuple(out)

    return [cell(r) for r in S_est.tolist()], [cell(r) for r in S.tolist()]


@given(kernel_problems(n_max=12, m_max=14, d_max=3))
@examples(cost=1)
def test_oblivious_gram_equals_algorithm1_loops(problem):
    X_est, S_est, X, S, params = problem
    params["empty_cell"] = "zero"  # Algorithm 1's convention (an empty sum is 0)
    ok = _fit(ObliviousKernel(**params), X_est, S_est)
    kind = ok.partition_.kind_
    cells_est, cells = _reference_cells(S_est, S, kind, params["n_bins"])
    gamma = ok.gamma_ if ok.gamma_ is not None else 0.0
    kk = _scalar_kernel(params["kernel"], gamma, params["degree"], params["coef0"])
    ref = algorithm1_loop(kk, X.tolist(), cells, X_est.tolist(), cells_est)
    O = ok.gram(X, S)
    scale = max(np.abs(ok._k(np.r_[X, X_est])).max(), 1e-300)
    np.testing.assert_allclose(O, ref, rtol=0, atol=1e-9 * scale)
    # cross products of new points with the estimation sample's features, too
    ref_c = algorithm1_loop(kk, X.tolist(), cells, X_est.tolist(), cells_est,
                            X_est.tolist(), cells_est)
    np.testing.assert_allclose(ok.cross(X, S, X_est, S_est), ref_c, rtol=0, atol=1e-9 * scale)


@given(kernel_problems(n_max=40, m_max=40, d_max=3), st.integers(1, 30))
@examples(cost=1)
def test_manifold_projection_returns_candidates_and_distances(problem, n_candidates):
    X_est, S_est, X, S, params = problem
    ok = _fit(ObliviousKernel(**params), X_est, S_est)
    candidates = np.r_[X_est, X][:n_candidates]
    W, dist = manifold_projection(ok, X, S, candidates)
    assert W.shape == X.shape and dist.shape == (len(X),)
    assert np.all(np.isfinite(dist)) and dist.min() >= 0
    # every projection is a candidate, the nearest one up to rounding
    assert all((candidates == w).all(axis=1).any() for w in W)
    assert manifold_distance(ok, X, S, candidates) == pytest.approx(dist.mean())
