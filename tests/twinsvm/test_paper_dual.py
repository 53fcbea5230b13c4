"""The paper's stated dual and decision rule (lupikit.twinsvm._paper_dual), tested against the primal."""

import numpy as np

from lupikit.datasets import make_lupi_classification
from lupikit.twinsvm import PrivilegedPinballTwinSVC, solve_primal
from lupikit.twinsvm._paper_dual import paper_dual_plane1, paper_rule_decision


def test_paper_dual_goes_below_minus_the_primal_optimum():
    X, Xs, y = make_lupi_classification(80, n_features=4, n_privileged=2, random_state=3)
    pos, neg = y == 1, y == 0
    p_star = solve_primal(PrivilegedPinballTwinSVC(tau=0.5, kernel="linear", C1=0.1), X, y,
                          privileged_features=Xs)[0]["objective"]
    out = paper_dual_plane1(X[pos], X[neg], Xs[pos], Xs[neg], c1=0.1, tau=0.5, gamma=1.0)
    a1, a2, a3, a4 = out["alpha"]
    assert min(a.min() for a in out["alpha"]) > -1e-6  # a (nearly) feasible point of the stated dual
    assert abs(a1.sum() - (a4 - a3).sum()) < 1e-2 * max(1.0, a1.sum())
    # a Wolfe dual (as a minimum) is >= -p* at every feasible point: the stated one is not
    assert out["objective"] < -abs(p_star)


def test_paper_rule_is_the_distance_rule_only_for_equal_norms():
    rng = np.random.default_rng(0)
    f1, f2 = rng.normal(size=200), rng.normal(size=200)
    dist = np.abs(f2) / 1.0 - np.abs(f1) / 1.0
    assert np.array_equal(np.sign(paper_rule_decision(f1, f2, 1.0, 1.0)), np.sign(dist))
    dist = np.abs(f2) / 1.0 - np.abs(f1) / 2.0
    assert (np.sign(paper_rule_decision(f1, f2, 2.0, 1.0)) != np.sign(dist)).any()
