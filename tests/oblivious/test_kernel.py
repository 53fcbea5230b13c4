"""ObliviousKernel against a loop implementation of Algorithm 1 and closed forms."""

import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils._param_validation import InvalidParameterError

from lupikit.oblivious import CellPartition, ObliviousKernel
from oblivious_reference import algorithm1_loop  # tests/ is on pytest's pythonpath


def rbf(gamma):
    def kk(x, y):
        return math.exp(-gamma * sum((p - q) ** 2 for p, q in zip(x, y)))

    return kk


def _data(n, m, seed=0, n_groups=3):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, n_groups, n + m).astype(float)
    X = np.c_[S + rng.normal(size=n + m), rng.normal(size=n + m)]
    return X[:n], S[:n], X[n:], S[n:]


def test_gram_matches_algorithm1_loop():
    X, S, Xe, Se = _data(25, 30)
    ok = ObliviousKernel(kernel="rbf", gamma=0.5).fit(Xe, Se)
    O = ok.gram(X, S)

    ref = algorithm1_loop(rbf(0.5), X, S.astype(int).tolist(), Xe, Se.astype(int).tolist())
    np.testing.assert_allclose(O, ref, rtol=0, atol=1e-10)


def test_cross_matches_loop_and_grid_with_empty_cells():
    rng = np.random.default_rng(1)
    Se = rng.uniform(0, 1, 40)
    Se = Se[(Se < 0.4) | (Se > 0.6)]  # leaves cells in the middle empty
    Xe = (Se + rng.normal(size=Se.size) * 0.3)[:, None]
    ok = ObliviousKernel(kernel="rbf", gamma=1.0, n_bins=8, partition="grid").fit(Xe, Se)
    Sn = np.array([0.05, 0.5, 0.55, 0.95, 1.3, -0.2])  # empty cells and outside the range
    Xn = rng.normal(size=(6, 1))
    S = rng.uniform(0, 1, 10)
    X = rng.normal(size=(10, 1))
    C = ok.cross(Xn, Sn, X, S)
    cells_e = np.clip(np.floor((Se - Se.min()) / (Se.max() - Se.min()) * 8), 0, 7).astype(int)

    def cell(s):
        return int(np.clip(np.floor((s - Se.min()) / (Se.max() - Se.min()) * 8), 0, 7))

    ref = algorithm1_loop(
        rbf(1.0),
        Xn, [cell(s) for s in Sn], Xe, cells_e.tolist(), X, [cell(s) for s in S],
    )
    np.testing.assert_allclose(C, ref, atol=1e-10)


def test_gram_symmetric_psd_and_cross_equals_gram():
    X, S, Xe, Se = _data(120, 150, seed=3)
    for kernel in ("rbf", "linear", "poly"):
        ok = ObliviousKernel(kernel=kernel, gamma=0.3).fit(Xe, Se)
        O = ok.gram(X, S)
        np.testing.assert_allclose(O, O.T, atol=1e-12)
        assert np.linalg.eigvalsh(O).min() > -1e-9 * np.abs(O).max()
        np.testing.assert_allclose(ok.cross(X, S, X, S), O, atol=1e-10)
        np.testing.assert_allclose(ok.diag(X, S), np.diag(O), atol=1e-10)


def test_single_cell_gives_plain_kernel():
    X, S, Xe, Se = _data(50, 60, seed=4)
    one = ObliviousKernel(gamma=0.7, partition=lambda s: np.zeros(len(s), dtype=int))
    one.fit(Xe, Se)
    np.testing.assert_allclose(one.gram(X, S), rbf_kernel(X, gamma=0.7), atol=1e-12)
    # a constant S (one discrete value) too
    c = ObliviousKernel(gamma=0.7).fit(Xe, np.zeros(len(Xe)))
    np.testing.assert_allclose(c.gram(X, np.zeros(len(X))), rbf_kernel(X, gamma=0.7),
                               atol=1e-12)


def test_linear_kernel_closed_form_features():
    # linear kernel: Z = x - mean_{cell}(x_est) + mean(x_est) explicitly
    X, S, Xe, Se = _data(30, 80, seed=5)
    ok = ObliviousKernel(kernel="linear").fit(Xe, Se)
    mu = Xe.mean(axis=0)
    Z = np.array([x - Xe[Se == s].mean(axis=0) + mu for x, s in zip(X, S)])
    np.testing.assert_allclose(ok.gram(X, S), Z @ Z.T, atol=1e-10)
    np.testing.assert_allclose(ok.cross(X, S, X), Z @ X.T, atol=1e-10)


def test_empty_cell_mean_convention():
    rng = np.random.default_rng(6)
    Se = rng.uniform(0, 0.4, 50)
    Xe = rng.normal(size=(50, 1))
    ok = ObliviousKernel(gamma=1.0, n_bins=4, partition="grid", grid_range=(0, 1),
                         empty_cell="mean").fit(Xe, Se)
    X = rng.normal(size=(5, 1))
    S = np.full(5, 0.9)  # empty cell -> Z = phi(x)
    np.testing.assert_allclose(ok.gram(X, S), rbf_kernel(X, gamma=1.0), atol=1e-12)
    ok0 = ObliviousKernel(gamma=1.0, n_bins=4, partition="grid", grid_range=(0, 1)).fit(Xe, Se)
    # paper's convention: Z = phi(x) + mu  ->  <Z_i, Z_j> = k + rho_i + rho_j + |mu|^2
    rho = rbf_kernel(X, Xe, gamma=1.0).mean(axis=1)
    mu2 = rbf_kernel(Xe, gamma=1.0).mean()
    ref = rbf_kernel(X, gamma=1.0) + rho[:, None] + rho[None, :] + mu2
    np.testing.assert_allclose(ok0.gram(X, S), ref, atol=1e-12)


def test_multicolumn_discrete_and_grid_2d():
    rng = np.random.default_rng(7)
    Se = rng.integers(0, 2, (60, 2)).astype(float)
    Xe = rng.normal(size=(60, 2)) + Se
    ok = ObliviousKernel(gamma=0.5).fit(Xe, Se)
    assert ok.partition_.kind_ == "discrete" and ok.n_cells_ == 4
    codes = (Se[:, 0] * 2 + Se[:, 1]).astype(int)
    ok2 = ObliviousKernel(gamma=0.5, partition=lambda s: (s[:, 0] * 2 + s[:, 1]).astype(int))
    ok2.fit(Xe, Se)
    X = rng.normal(size=(7, 2))
    S = rng.integers(0, 2, (7, 2)).astype(float)
    np.testing.assert_allclose(ok.gram(X, S), ok2.gram(X, S), atol=1e-12)
    assert codes.max() == 3
    # 2-D grid: each dimension cut into n_bins
    part = CellPartition("grid", n_bins=3).fit(np.array([[0.0, 0.0], [3.0, 3.0]]))
    np.testing.assert_array_equal(
        part.transform(np.array([[0.1, 0.1], [2.9, 2.9], [5.0, -1.0], [1.5, 1.5]])),
        [0, 1, 2, 2],  # the last two fall in unoccupied cells -> index n_cells_ = 2
    )


def test_auto_partition_choice():
    assert CellPartition().fit(np.array([[0.0], [1.0], [1.0]])).kind_ == "discrete"
    assert CellPartition().fit(np.array([[0.1], [1.0]])).kind_ == "grid"
    assert CellPartition(n_bins=2).fit(np.arange(5.0)[:, None]).kind_ == "grid"


def test_bad_inputs():
    X, S, Xe, Se = _data(10, 20)
    ok = ObliviousKernel(gamma=1.0).fit(Xe, Se)
    with pytest.raises(ValueError, match="sensitive_features has 9 rows"):
        ok.gram(X, S[:9])
    with pytest.raises(ValueError, match="sensitive_features"):
        ok.gram(X, np.r_[S[:-1], np.nan])
    with pytest.raises(ValueError, match=r"\[7\.0\] never seen"):
        ok.gram(X, np.r_[S[:-1], 7.0])
    with pytest.raises(TypeError, match="sensitive_features must be numeric"):
        ObliviousKernel().fit(Xe, np.array(["a", "b"] * 10))
    with pytest.raises(ValueError, match="X has 3 features"):
        ok.gram(np.ones((2, 3)), [0, 1])
    with pytest.raises(InvalidParameterError, match="'partition' parameter"):
        ObliviousKernel(partition="dyadic").fit(Xe, Se)
    with pytest.raises(InvalidParameterError, match="'n_bins' parameter"):
        ObliviousKernel(n_bins=0, partition="grid").fit(Xe, Se)
    with pytest.raises(InvalidParameterError, match="'empty_cell' parameter"):
        ObliviousKernel(empty_cell="nan").fit(Xe, Se)
    with pytest.raises(InvalidParameterError, match="'kernel' parameter"):
        ObliviousKernel(kernel="gauss").fit(Xe, Se)
    # documented fallback: unseen value treated as an empty cell (Z = phi(x) + mu)
    okf = ObliviousKernel(gamma=1.0, handle_unknown="empty").fit(Xe, Se)
    O = okf.gram(X[:1], [7.0])
    rho = rbf_kernel(X[:1], Xe, gamma=1.0).mean()
    assert O[0, 0] == pytest.approx(1.0 + 2 * rho + rbf_kernel(Xe, gamma=1.0).mean())


def test_blocked_products_match(monkeypatch):
    # the row-blocked K(X, X_est) @ V used for large samples gives the same O
    import lupikit.oblivious._kernel as kmod

    X, S, Xe, Se = _data(300, 400, seed=8)
    ref = ObliviousKernel(gamma=0.5).fit(Xe, Se)
    O_ref, C_ref = ref.gram(X, S), ref.cross(X[:50], S[:50], X)
    monkeypatch.setattr(kmod, "_BLOCK_ENTRIES", 400 * 7)  # forces blocks of 256 rows
    ok = ObliviousKernel(gamma=0.5).fit(Xe, Se)
    np.testing.assert_allclose(ok.offset_gram_, ref.offset_gram_, atol=1e-12)
    np.testing.assert_allclose(ok.gram(X, S), O_ref, atol=1e-12)
    np.testing.assert_allclose(ok.cross(X[:50], S[:50], X), C_ref, atol=1e-12)


def test_cross_against_plain_features_takes_the_new_points_cells_only(monkeypatch):
    # <Z_new, phi(X_j)> needs the new points' cells, not their projections on the
    # estimation points: the kernel against X_est is computed once (for X), not twice
    X, S, Xe, Se = _data(40, 60, seed=5)
    ok = ObliviousKernel(kernel="rbf", gamma=0.5).fit(Xe, Se)
    Xn, Sn = X[:15], S[:15]
    expected = ok.cross(Xn, Sn, X)
    calls = []
    kv = ok._kv
    monkeypatch.setattr(ok, "_kv", lambda A, *a: calls.append(A.shape[0]) or kv(A, *a))
    np.testing.assert_array_equal(ok.cross(Xn, Sn, X), expected)
    assert calls == [X.shape[0]]
    # by definition: the plain kernel plus the new point's projection term on phi(X_j)
    b = ok.cells(Sn)
    P = kv(X, ok.X_est_, ok.coef_matrix_)
    np.testing.assert_allclose(expected, ok._k(Xn, X) + P[:, b].T, atol=1e-12)
