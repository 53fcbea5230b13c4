"""The protocol helpers of the Part IV ablations, against independent references."""

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.svm import SVC

from lupikit.oblivious import FERM
from lupikit.oblivious.experiments import grades_authors_protocol, linear_svm_qp, table1_grid_distance


def _primal(F, y, w, b, C):
    ys = np.where(y == y.max(), 1.0, -1.0)
    return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - ys * (F @ w + b)).sum()


@pytest.mark.parametrize("C", [0.1, 4.0])
def test_linear_svm_qp_matches_libsvm(C):
    rng = np.random.default_rng(0)
    F = rng.normal(size=(150, 2))
    y = (F[:, 0] + 0.5 * F[:, 1] + 0.7 * rng.normal(size=150) > 0).astype(int)
    w, b = linear_svm_qp(F, y, C)
    ref = SVC(kernel="linear", C=C, tol=1e-8).fit(F, y)
    w_ref, b_ref = ref.coef_[0], ref.intercept_[0]
    assert abs(_primal(F, y, w, b, C) - _primal(F, y, w_ref, b_ref, C)) <= 1e-4 * _primal(F, y, w_ref, b_ref, C)
    assert np.allclose(w, w_ref, atol=1e-3)
    assert np.mean((F @ w + b > 0) == (ref.decision_function(F) > 0)) >= 0.99


def test_linear_svm_qp_constraint_is_linear_ferm():
    rng = np.random.default_rng(1)
    S = rng.integers(0, 2, 160)
    F = np.c_[rng.normal(size=160) + S, rng.normal(size=160)]
    y = (F[:, 0] + F[:, 1] + 0.5 * rng.normal(size=160) > 0.5).astype(int)
    pos = y == 1
    u = F[pos & (S == 0)].mean(axis=0) - F[pos & (S == 1)].mean(axis=0)
    w, b = linear_svm_qp(F, y, 1.0, orthogonal_to=u)
    assert abs(w @ u) < 1e-7  # equal average scores of the positives of both groups
    ref = FERM(C=1.0, kernel="linear", solver="cvxopt").fit(F, y, sensitive_features=S)
    w_ref = ref.dual_coef_ @ ref.X_fit_
    # both solve the same constrained problem: the same w (the intercepts may be computed differently)
    assert np.allclose(w, w_ref, atol=1e-3)


def test_grades_authors_protocol_selection():
    r = grades_authors_protocol(150, Cs=[0.01, 1.0], random_state=0)
    assert set(r["selection"]) == {"test", "validation"} and len(r) == 6
    t = r[r["selection"] == "test"].set_index("method")
    v = r[r["selection"] == "validation"].set_index("method")
    # choosing C by the test error can only lower the observed test error
    assert (t["observed error"] <= v["observed error"] + 1e-12).all()
    one = grades_authors_protocol(150, Cs=[1.0], random_state=0)
    a, b = (one[one["selection"] == s].drop(columns="selection").reset_index(drop=True)
            for s in ("test", "validation"))
    pd.testing.assert_frame_equal(a, b)


def test_table1_grid_distance_brute_force():
    rng = np.random.default_rng(2)
    cells = list(itertools.product([1.0, 4.0, 16.0], [0.01, 0.1]))
    cols = pd.MultiIndex.from_product([["SVM", "FERM", "Obl"], ["error", "DEO"]])
    grid = pd.DataFrame(rng.uniform(size=(len(cells), len(cols))), index=pd.MultiIndex.from_tuples(cells),
                        columns=cols)
    published = {k: float(rng.uniform()) for k in cols}
    d = table1_grid_distance(grid, published)
    common = min(max(abs(grid.loc[c, k] - published[k]) for k in cols) for c in cells)
    per = max(min(max(abs(grid.loc[c, (m, t)] - published[(m, t)]) for t in ("error", "DEO")) for c in cells)
              for m in ("SVM", "FERM", "Obl"))
    assert d["common"] == pytest.approx(common) and d["per_method"] == pytest.approx(per)
    assert d["per_method"] <= d["common"] + 1e-12
