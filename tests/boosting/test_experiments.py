"""Tasks and the repeated-split comparison used by the Part I notebooks."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.metrics import roc_auc_score

from lupikit.boosting import (
    TASKS,
    PrivilegedBoostingClassifier,
    compare_models,
    load_privileged_task,
)
from lupikit.boosting._benchmarks import _top_rate
from lupikit.metrics import demographic_parity_difference


@pytest.mark.parametrize("name", TASKS)
def test_tasks_shapes_and_no_leak(name):
    t = load_privileged_task(name, n_samples=300, random_state=0)
    assert t.X.shape[0] == t.X_star.shape[0] == t.y.shape[0] == 300
    assert set(np.unique(t.y)) == {0, 1}
    assert np.isfinite(t.X).all() and np.isfinite(t.X_star).all()
    assert len(t.feature_names) == t.X.shape[1]
    assert len(t.privileged_names) == t.X_star.shape[1]
    if name in ("adult", "compas", "german"):
        assert t.sensitive.shape == (300,)
        # sensitive attributes are privileged, never regular features
        for col in t.feature_names:
            assert not col.startswith(("sex", "race", "status_sex")), col
        assert any(c.startswith("sex") for c in t.privileged_names)
    else:
        assert t.sensitive is None


def test_adult_task_keeps_missing_rows_as_nan():
    t = load_privileged_task("adult", keep_missing=True)
    assert t.X.shape[0] == t.y.shape[0] == t.sensitive.shape[0] == 48842
    rows = np.isnan(t.X).any(axis=1)
    assert rows.sum() == 3620 and np.isfinite(t.X_star).all()
    # a missing category makes all of that column's dummies NaN, and only those
    work = [j for j, c in enumerate(t.feature_names) if c.startswith("workclass_")]
    nan_work = np.isnan(t.X[:, work])
    assert np.all(nan_work.all(axis=1) | ~nan_work.any(axis=1))
    assert np.all(np.nansum(t.X[:, work], axis=1)[~nan_work.any(axis=1)] == 1)
    with pytest.raises(TypeError, match="keep_missing"):
        load_privileged_task("adult", keep_missing="yes")


def test_stratified_subsample_keeps_base_rate():
    full = load_privileged_task("compas")
    sub = load_privileged_task("compas", n_samples=1000, random_state=1)
    assert abs(sub.y.mean() - full.y.mean()) < 0.005


def test_bad_task_arguments():
    with pytest.raises(ValueError, match="name"):
        load_privileged_task("iris")
    with pytest.raises(ValueError, match="n_samples"):
        load_privileged_task("german", n_samples=3)


def test_top_rate_brute_force():
    rng = np.random.RandomState(0)
    p = rng.rand(101)
    pred = _top_rate(p, 0.3)
    assert pred.sum() == 30
    assert p[pred == 1].min() > p[pred == 0].max()


def test_compare_models_against_manual_loop():
    task = load_privileged_task("german", n_samples=400, random_state=0)
    models = {"NF": PrivilegedBoostingClassifier(mode="nf", n_estimators=10, random_state=0),
              "KbPIB": PrivilegedBoostingClassifier(n_estimators=10, random_state=0),
              "PF": PrivilegedBoostingClassifier(mode="nf", n_estimators=10, random_state=0)}
    res = compare_models(models, task, n_repeats=2, privileged_only="PF", random_state=3)
    assert res.shape[0] == 6
    sss = StratifiedShuffleSplit(n_splits=2, test_size=0.3, random_state=np.random.RandomState(3))
    for rep, (tr, te) in enumerate(sss.split(task.X, task.y)):
        kb = PrivilegedBoostingClassifier(n_estimators=10, random_state=0)
        kb.fit(task.X[tr], task.y[tr], privileged_features=task.X_star[tr])
        p = kb.predict_proba(task.X[te])[:, 1]
        row = res[(res.model == "KbPIB") & (res.rep == rep)].iloc[0]
        assert row.positive_rate == pytest.approx(np.mean(p >= 0.5))
        assert row.auc == pytest.approx(roc_auc_score(task.y[te], p))
        assert row.dp_diff == pytest.approx(
            demographic_parity_difference((p >= 0.5).astype(int), task.sensitive[te]))
        pf = PrivilegedBoostingClassifier(mode="nf", n_estimators=10, random_state=0)
        pf.fit(task.X_star[tr], task.y[tr])
        row = res[(res.model == "PF") & (res.rep == rep)].iloc[0]
        assert row.auc == pytest.approx(
            roc_auc_score(task.y[te], pf.predict_proba(task.X_star[te])[:, 1]))
    with pytest.raises(ValueError, match="privileged_only"):
        compare_models(models, task, privileged_only="XX")
    # the notebooks' n_jobs: parallel splits give the same table
    par = compare_models(models, task, n_repeats=2, privileged_only="PF", random_state=3, n_jobs=2)
    cols = ["model", "rep", "auc", "positive_rate", "dp_diff"]
    assert par[cols].sort_values(["model", "rep"]).reset_index(drop=True).equals(
        res[cols].sort_values(["model", "rep"]).reset_index(drop=True))
