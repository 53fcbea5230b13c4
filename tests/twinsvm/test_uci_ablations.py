"""The ablations of notebooks/twinsvm/uci.ipynb, checked against independent references."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler

from lupikit.twinsvm import PCAPrivileged
from lupikit.twinsvm.experiments import cross_validate_lupi
from lupikit.twinsvm.uci import (ablation_summary, all_rows_check, load_uci, majority_rate, make_models,
                                 rows_sweep, run_benchmark, solver_times, tuning_ablation)

GRID = {"C": [0.1, 1.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}


@pytest.mark.parametrize("name", ["haberman", "glass", "iris"])
def test_majority_rate_is_the_constant_classifier(name):
    X, y = load_uci(name)
    ref = 100 * DummyClassifier(strategy="most_frequent").fit(X, y).score(X, y)
    assert majority_rate(y) == pytest.approx(ref)


def test_ablation_summary_by_hand():
    scores = pd.DataFrame({"model": ["a", "a", "a", "b", "b"],
                           "params": [{}] * 5,
                           "acc_eval": [80.0, 90.0, 70.0, 60.0, 65.0],
                           "acc_tune": [95.0, 85.0, 95.0, 50.0, 55.0]})
    out = ablation_summary(scores)
    # a: ties on the tuning folds go to the first candidate (80); the oracle is the max (90)
    assert out.loc["a", "cv_tuned"] == 80.0 and out.loc["a", "oracle"] == 90.0
    assert out.loc["b", "cv_tuned"] == 65.0 and out.loc["b", "oracle"] == 65.0


def test_tuning_ablation_scores_are_cross_validation():
    scores = tuning_ablation("iris", "linear", GRID, models=("Pin-TWSVM",), seed=3)
    assert len(scores) == 4  # C1 x C2
    est = make_models("linear")["Pin-TWSVM"].set_params(**scores["params"].iloc[1])
    X, y = load_iris_rows()
    for col, s in (("acc_eval", 3), ("acc_tune", 4)):
        ref = 100 * cross_validate_lupi(est, X, y, random_state=s)["accuracy"].mean()
        assert scores[col].iloc[1] == pytest.approx(ref)
    summary = ablation_summary(scores)
    assert (summary["oracle"] >= summary["cv_tuned"]).all()


def load_iris_rows():
    return load_uci("iris")


def test_solver_times_same_models_other_solver():
    res = run_benchmark(["iris"], ["linear"], GRID)
    timed = solver_times(res, solver="cvxopt", models=("Pin-SVM", "Pin-TWSVMPI"))
    assert list(timed["model"]) == ["Pin-SVM", "Pin-TWSVMPI"]
    assert (timed["time"] > 0).all()
    # the same convex problems: cvxopt and SMO reach (nearly) the same accuracy
    ref = res.set_index("model").loc[["Pin-SVM", "Pin-TWSVMPI"], "acc"].to_numpy()
    assert np.abs(timed["acc"].to_numpy() - ref).max() <= 2.0


def test_majority_rate_over_folds_is_the_dummy_classifier():
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    X, y = load_uci("haberman")
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=2)
    ref = 100 * cross_val_score(DummyClassifier(strategy="most_frequent"), X, y, cv=cv).mean()
    assert majority_rate(y, n_splits=5, random_state=2) == pytest.approx(ref)


def test_all_rows_check_is_cross_validation_of_the_tuned_models_on_every_row():
    # tuned on a 200-row subsample of Ecoli's 327 rows, cross-validated on all of them
    res = run_benchmark(["ecoli"], ["linear"], GRID, max_samples=200, seed=1)
    full = all_rows_check(res, "ecoli", models=("Pin-TWSVM",), seed=1)
    X, y = load_uci("ecoli")
    params = res.set_index("model").loc["Pin-TWSVM", "params"]
    ref = cross_validate_lupi(make_models("linear")["Pin-TWSVM"].set_params(**params), X, y, random_state=1)
    assert full.loc["Pin-TWSVM", "n_rows"] == len(y) == 327
    assert full.loc["Pin-TWSVM", "acc"] == pytest.approx(100 * ref["accuracy"].mean())
    assert full.loc["Pin-TWSVM", "params"] == params


def test_all_rows_check_names_what_is_missing():
    res = run_benchmark(["iris"], ["linear"], GRID)
    with pytest.raises(ValueError, match=r"results holds no \('linear', 'wine'\) row"):
        all_rows_check(res, "wine")
    with pytest.raises(ValueError, match="models names unknown models"):
        all_rows_check(res, "iris", models=("SVM",))


def _collapsed_pairs_by_hand(est, X, y, train):
    """Fit as a fold does, then count the binary models whose ``degenerate`` flags are set."""
    fitted = clone(est).fit(StandardScaler().fit_transform(X[train]), y[train],
                               privileged_features=PCAPrivileged(n_components=0.95).fit_transform(X[train]))
    return sum(any(m.degenerate) for m in fitted.models_)


def test_collapsed_planes_are_counted_fold_by_fold():
    # on Haberman, c2 = 0.1 against c1 = 1 collapses a plane in most folds
    X, y = load_uci("haberman")
    est = make_models("linear")["Pin-TWSVMPI"].set_params(C1=1.0, C2=0.1, tau=0.5, correction_weight=1.0)
    with pytest.warns(UserWarning, match="collapsed to w = 0"):
        res = cross_validate_lupi(est, X, y, random_state=1)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=1).split(X, y)
    by_hand = [_collapsed_pairs_by_hand(est, X, y, train) for train, _ in folds]
    assert res["n_collapsed_planes"].tolist() == by_hand and sum(by_hand) > 0


def test_rows_sweep_refits_the_tuned_model_on_more_rows():
    res = run_benchmark(["haberman"], ["linear"], GRID, max_samples=200, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sweep = rows_sweep(res, "haberman", sizes=(60, 160, 10_000), seed=1)
    train, test = next(StratifiedKFold(n_splits=5, shuffle=True, random_state=1).split(*load_uci("haberman")))
    # 10,000 rows cannot be drawn from the fold's 244: left out; all of them come last
    assert sweep.index.tolist() == [60, 160, train.size]
    assert sweep["acc"].between(0, 100).all() and (sweep["unconverged"] == 0).all()
    X, y = load_uci("haberman")
    est = make_models("linear")["Pin-TWSVMPI"].set_params(
        **res.set_index("model").loc["Pin-TWSVMPI", "params"])
    assert sweep["collapsed"].iloc[-1] == _collapsed_pairs_by_hand(est, X, y, train)
    with pytest.raises(ValueError, match="sizes must be integers"):
        rows_sweep(res, "haberman", sizes=(1,))
    with pytest.raises(ValueError, match="model must be one of"):
        rows_sweep(res, "haberman", model="SVM")
