"""The repeated-split comparison used by the Part I notebooks (lupikit.boosting.experiments)."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.metrics import roc_auc_score

from lupikit.boosting import PrivilegedBoostingClassifier
from lupikit.boosting.experiments import _top_rate, compare_models
from lupikit.datasets import load_privileged_task
from lupikit.metrics import demographic_parity_difference


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
