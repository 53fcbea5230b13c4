"""The repeated-split comparison used by the Part I notebooks (lupikit.boosting.experiments)."""

import numpy as np
import pandas as pd
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


def _fit_rows(task, n_repeats, seed, validation_fraction=0.2):
    from sklearn.model_selection import train_test_split
    sss = StratifiedShuffleSplit(n_splits=n_repeats, test_size=0.3, random_state=np.random.RandomState(seed))
    # each split's validation rows from its own child of SeedSequence(seed)
    children = np.random.SeedSequence(seed).spawn(n_repeats)
    for rep, (tr, te) in enumerate(sss.split(task.X, task.y)):
        fit, val = train_test_split(tr, test_size=validation_fraction, stratify=task.y[tr],
                                    random_state=int(children[rep].generate_state(1)[0]))
        yield rep, fit, val, te


def test_tuned_comparison_checkpoints_are_separate_fits():
    # the score after t trees of one long fit equals a t-tree model fitted on its own
    from lupikit.boosting.experiments import tuned_comparison
    task = load_privileged_task("german", n_samples=300, random_state=0)
    grid = tuned_comparison(task, alphas=(1.0, 4.0), checkpoints=(4, 9), n_repeats=2, random_state=1)
    assert len(grid) == 2 * 5 * 2
    for rep, fit, val, te in _fit_rows(task, 2, 1):
        for mode, a, t in (("nf", 0.0, 4), ("kbpib", 4.0, 9), ("jpib", 1.0, 4), ("jpib", 4.0, 9)):
            m = PrivilegedBoostingClassifier(mode=mode, alpha=a, n_estimators=t, max_depth=3, learning_rate=0.1,
                                             random_state=1, n_jobs=1)
            m.fit(task.X[fit], task.y[fit], **({} if mode == "nf" else {"privileged_features": task.X_star[fit]}))
            row = grid[(grid.rep == rep) & (grid.model == mode.upper().replace("KBPIB", "KbPIB"))
                       & (grid.alpha == a) & (grid.n_trees == t)].iloc[0]
            assert row.auc == pytest.approx(roc_auc_score(task.y[te], m.predict_proba(task.X[te])[:, 1]), abs=1e-6)
            assert row.val_auc == pytest.approx(roc_auc_score(task.y[val], m.predict_proba(task.X[val])[:, 1]),
                                                abs=1e-6)


def test_select_on_validation_brute_force():
    import pandas as pd
    from lupikit.boosting.experiments import select_on_validation
    rng = np.random.RandomState(0)
    rows = [{"dataset": d, "rep": r, "model": m, "alpha": a, "n_trees": t,
             "val_auc": round(rng.rand(), 1), "auc": rng.rand()}
            for d in "ab" for r in range(3) for m in ("NF", "KbPIB") for a in (0.5, 1.0) for t in (10, 20)]
    grid = pd.DataFrame(rows)
    best = select_on_validation(grid)
    assert len(best) == 2 * 3 * 2
    for _, b in best.iterrows():
        part = [r for r in rows if (r["dataset"], r["rep"], r["model"]) == (b.dataset, b.rep, b.model)]
        top = max(r["val_auc"] for r in part)
        first = min((r for r in part if r["val_auc"] == top), key=lambda r: (r["alpha"], r["n_trees"]))
        assert (b.alpha, b.n_trees, b.auc) == (first["alpha"], first["n_trees"], first["auc"])


def test_variable_groups_one_hot():
    from lupikit.boosting.experiments import variable_groups
    names = ["age", "education_num", "education_Bachelors", "education_HS-grad", "marital_status_Divorced",
             "marital_status_Never-married", "relationship_Wife", "sex"]
    X = np.array([[30, 9, 1, 0, 1, 0, 1, 0], [40, 13, 0, 1, 0, 1, 0, 1]], dtype=float)
    assert variable_groups(X, names) == ["age", "education_num", "education", "education", "marital_status",
                                         "marital_status", "relationship_Wife", "sex"]


def test_proxy_ablation_against_manual_fit():
    from lupikit.boosting.experiments import proxy_ablation, variable_groups
    task = load_privileged_task("german", n_samples=400, random_state=0)
    res = proxy_ablation(task, n_proxies=1, n_estimators=15, n_repeats=1, random_state=2)
    sss = StratifiedShuffleSplit(n_splits=1, test_size=0.3, random_state=np.random.RandomState(2))
    tr, te = next(sss.split(task.X, task.y))
    kw = dict(mode="nf", n_estimators=15, max_depth=3, learning_rate=0.1, random_state=2, n_jobs=1)
    s_model = PrivilegedBoostingClassifier(**kw).fit(task.X[tr], task.sensitive[tr])
    assert res.s_auc[0] == pytest.approx(roc_auc_score(task.sensitive[te], s_model.predict_proba(task.X[te])[:, 1]))
    groups = variable_groups(task.X, list(task.feature_names))
    gain = {}
    for key, g in s_model.booster_.get_score(importance_type="total_gain").items():
        gain[groups[int(key[1:])]] = gain.get(groups[int(key[1:])], 0.0) + g
    assert res.removed[0] == max(gain, key=gain.get)
    keep = np.array([g != res.removed[0] for g in groups])
    nf = PrivilegedBoostingClassifier(**kw).fit(task.X[tr][:, keep], task.y[tr])
    assert res.NF_auc[0] == pytest.approx(roc_auc_score(task.y[te], nf.predict_proba(task.X[te][:, keep])[:, 1]))


def test_compare_models_reads_cached_fits_back(tmp_path, monkeypatch):
    """With ``memory`` a second call (another notebook, another process) reads the fits back:
    the same table, and no estimator is fitted again."""
    from lupikit.boosting import PrivilegedBoostingClassifier
    from lupikit.boosting import experiments
    from lupikit.datasets import load_privileged_task

    task = load_privileged_task("breast_cancer")
    models = {"NF": PrivilegedBoostingClassifier(mode="nf", n_estimators=5, random_state=0),
              "KbPIB": PrivilegedBoostingClassifier(mode="kbpib", n_estimators=5, random_state=0),
              "PF": PrivilegedBoostingClassifier(mode="nf", n_estimators=5, random_state=0)}
    plain = experiments.compare_models(models, task, n_repeats=2, privileged_only="PF", random_state=1)
    first = experiments.compare_models(models, task, n_repeats=2, privileged_only="PF", random_state=1,
                                       memory=tmp_path)
    pd.testing.assert_frame_equal(first, plain)

    def refuse(*args, **kwargs):
        raise AssertionError("fitted again")

    monkeypatch.setattr(experiments, "clone", refuse)
    again = experiments.compare_models(models, task, n_repeats=2, privileged_only="PF", random_state=1,
                                       memory=str(tmp_path))
    pd.testing.assert_frame_equal(again, plain)
    # another split, or another parameter, is a new fit
    with pytest.raises(AssertionError, match="fitted again"):
        experiments.compare_models(models, task, n_repeats=2, privileged_only="PF", random_state=2,
                                   memory=tmp_path)
