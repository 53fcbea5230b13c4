"""Full grids and the crossed design of draws (lupikit.twinsvm.selection), against independent references."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from lupikit.twinsvm.experiments import cross_validate_lupi, holdout_tune
from lupikit.twinsvm.selection import draw_effects, grid_scores, variance_components
from lupikit.twinsvm.uci import ablation_summary, candidates, load_uci, make_models
from lupikit.seeding import spawn_seeds

GRID = {"C": [0.1, 1.0, 10.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}


def _anova_by_regression(a):
    """Sums of squares of the two-way additive model from least squares on dummy columns."""
    r, c = a.shape
    y = a.ravel()
    rows, cols = np.repeat(np.arange(r), c), np.tile(np.arange(c), r)
    one = np.ones((r * c, 1))
    R = np.eye(r)[rows][:, 1:]
    C = np.eye(c)[cols][:, 1:]

    def rss(X):
        beta = np.linalg.lstsq(X, y, rcond=None)[0]
        return float(((y - X @ beta) ** 2).sum())

    full = rss(np.hstack([one, R, C]))
    ss_rows = rss(np.hstack([one, C])) - full
    ss_cols = rss(np.hstack([one, R])) - full
    return ss_rows / (r - 1), ss_cols / (c - 1), full / ((r - 1) * (c - 1))


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 6)),
              elements=st.floats(-100, 100, allow_nan=False)))
def test_mean_squares_match_a_least_squares_fit(a):
    vc = variance_components(a)
    ms_r, ms_c, ms_e = _anova_by_regression(a)
    scale = 1.0 + float(np.abs(a).max()) ** 2
    assert vc["ms_rows"] == pytest.approx(ms_r, abs=1e-9 * scale)
    assert vc["ms_cols"] == pytest.approx(ms_c, abs=1e-9 * scale)
    assert vc["ms_resid"] == pytest.approx(ms_e, abs=1e-9 * scale)
    assert 0.0 <= vc["p_rows"] <= 1.0 and 0.0 <= vc["p_cols"] <= 1.0
    assert vc["share_rows"] + vc["share_cols"] <= 1.0 + 1e-12


def test_variance_components_are_unbiased_on_simulated_draws():
    """Averaged over many simulated tables, the moment estimates recover the true components."""
    rng = np.random.default_rng(0)
    r = c = 5
    est = np.array([[v["var_rows"], v["var_cols"], v["var_resid"]] for v in (
        variance_components(rng.normal(0, 1.0, (r, 1)) + rng.normal(0, 3.0, (1, c)) + rng.normal(0, 2.0, (r, c)))
        for _ in range(4000))])
    assert est.mean(axis=0) == pytest.approx([1.0, 9.0, 4.0], rel=0.08)


def test_a_column_effect_is_found_and_an_absent_row_effect_is_not():
    rng = np.random.default_rng(1)
    t = np.add.outer(np.zeros(5), [0.0, 5.0, 10.0, 15.0, 20.0]) + rng.normal(0, 1, (5, 5))
    vc = variance_components(t)
    assert vc["p_cols"] < 1e-6 and vc["var_cols"] > 30
    assert vc["p_rows"] > 0.01 and vc["var_rows"] < vc["var_cols"] / 10


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((1, 4)), np.array([[1.0, np.nan], [0.0, 1.0]])])
def test_bad_tables_are_refused(bad):
    with pytest.raises(ValueError, match="table must be"):
        variance_components(bad)


def test_grid_scores_are_every_candidate_cross_validated_directly():
    scores = grid_scores("iris", "linear", GRID, models=("Pin-SVM", "Pin-TWSVMPI"), seed=3)
    X, y = load_uci("iris")
    est = make_models("linear")["Pin-TWSVMPI"]
    cands = candidates("Pin-TWSVMPI", "linear", X.shape[1], GRID)
    sub = scores[scores["model"] == "Pin-TWSVMPI"]
    assert len(sub) == len(cands) == 9
    tune_seed = spawn_seeds(3, 1, stream="full-grid tuning folds")[0]
    for (_, row), cand in zip(sub.iterrows(), cands):
        fitted = est.set_params(**{k: v[0] for k, v in cand.items()})
        assert row["acc_eval"] == pytest.approx(
            100 * cross_validate_lupi(fitted, X, y, random_state=3)["accuracy"].mean())
        assert row["acc_tune"] == pytest.approx(
            100 * cross_validate_lupi(fitted, X, y, random_state=tune_seed)["accuracy"].mean())
    summary = ablation_summary(scores)
    assert (summary["oracle"] >= summary["cv_tuned"]).all()
    only_eval = grid_scores("iris", "linear", GRID, models=("Pin-SVM",), tuning_folds=False, seed=3)
    assert "acc_tune" not in only_eval and len(only_eval) == 3


def test_grid_scores_refuse_an_unknown_model():
    with pytest.raises(ValueError, match="unknown models"):
        grid_scores("iris", "linear", GRID, models=("SVM",))


def test_each_cell_of_the_design_is_the_protocol_run_with_its_two_seeds():
    table = draw_effects("iris", "linear", GRID, model="Pin-SVM", n_candidates=2, n_fold_draws=2,
                         n_candidate_draws=3, seed=5)
    assert table.shape == (2, 3)
    X, y = load_uci("iris")
    est = make_models("linear")["Pin-SVM"]
    fs = spawn_seeds(5, 2, stream="fold draws")[1]
    cs = spawn_seeds(5, 3, stream="candidate draws")[2]
    cands = candidates("Pin-SVM", "linear", X.shape[1], GRID, n_candidates=2, random_state=cs)
    best = holdout_tune(est, cands, X, y, random_state=fs)
    acc = 100 * cross_validate_lupi(est.set_params(**best), X, y, random_state=fs)["accuracy"].mean()
    assert table.iloc[1, 2] == pytest.approx(acc)


def test_the_design_needs_two_draws_each():
    with pytest.raises(ValueError, match="at least 2"):
        draw_effects("iris", "linear", GRID, n_fold_draws=1)
