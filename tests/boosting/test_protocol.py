"""The tables, counts and tests of the Part I notebooks (lupikit.boosting.experiments)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from lupikit.boosting import PrivilegedBoostingClassifier
from lupikit.boosting.experiments import (
    PAPER_COUNTS,
    across_datasets,
    compare_models,
    compare_on_tasks,
    count_wins,
    gain_correlation,
    metric_table,
    paired_test,
)
from lupikit.datasets import load_privileged_task


def fake_results(table, reps=3, seed=0):
    """Rows of compare_models from {dataset: {model: (auc, precision, recall)}} plus small noise."""
    rng = np.random.RandomState(seed)
    rows = []
    for d, models in table.items():
        for rep in range(reps):
            shift = rng.normal(0, 0.01)  # shared by the models of one split: what pairing removes
            for m, (auc, p, r) in models.items():
                rows.append({"dataset": d, "model": m, "rep": rep, "auc": auc + shift + rng.normal(0, 1e-4),
                             "precision": p, "recall": r})
    return pd.DataFrame(rows)


def test_metric_table_mean_sd_and_order():
    res = fake_results({"b": {"NF": (0.8, .5, .5), "KbPIB": (0.9, .5, .5)},
                        "a": {"NF": (0.7, .5, .5), "KbPIB": (0.6, .5, .5)}})
    mean, sd, text = metric_table(res, "auc", models=["KbPIB", "NF"], datasets=["a", "b", "zz"])
    assert list(mean.index) == ["a", "b"] and list(mean.columns) == ["KbPIB", "NF"]
    g = res[(res.dataset == "a") & (res.model == "NF")].auc
    assert mean.loc["a", "NF"] == pytest.approx(g.mean()) and sd.loc["a", "NF"] == pytest.approx(g.std())
    assert text.loc["a", "NF"] == f"{g.mean():.3f} ± {g.std():.3f}"


def test_paired_test_is_paired():
    # a constant gain of 0.01 hidden in a split-to-split spread of 0.01: paired, it is clear
    res = fake_results({"a": {"NF": (0.80, .5, .5), "KbPIB": (0.81, .5, .5)}}, reps=5)
    p = paired_test(res, "KbPIB", "NF").loc["a"]
    assert p["n"] == 5 and p["mean_diff"] == pytest.approx(0.01, abs=1e-3) and p["pvalue"] < 1e-4
    wide = res.pivot_table(index="rep", columns="model", values="auc")
    assert p["pvalue"] == pytest.approx(
        stats.ttest_rel(wide["KbPIB"], wide["NF"], alternative="greater").pvalue)
    w = paired_test(res, "KbPIB", "NF", test="wilcoxon").loc["a", "pvalue"]
    assert w == pytest.approx(1 / 32)  # all five differences positive: the exact one-sided minimum
    assert paired_test(res, "NF", "KbPIB").loc["a", "pvalue"] > 0.99
    with pytest.raises(ValueError, match="test"):
        paired_test(res, "KbPIB", "NF", test="z")


def test_paired_test_degenerate_cases():
    one = fake_results({"a": {"NF": (0.8, .5, .5), "KbPIB": (0.9, .5, .5)}}, reps=1)
    assert paired_test(one, "KbPIB", "NF").loc["a", "pvalue"] == 1.0
    same = fake_results({"a": {"NF": (0.8, .5, .5)}}, reps=3)
    same = pd.concat([same, same.assign(model="KbPIB")])
    assert paired_test(same, "KbPIB", "NF").loc["a", "pvalue"] == 1.0


def test_count_wins_by_hand():
    res = fake_results({
        # KbPIB up in AUC, both up in precision and recall
        "a": {"NF": (0.80, .50, .50), "KbPIB": (0.82, .60, .60), "JPIB": (0.79, .40, .60)},
        # nobody up; JPIB equal to KbPIB at three decimals
        "b": {"NF": (0.90, .50, .50), "KbPIB": (0.85, .60, .40), "JPIB": (0.85, .60, .40)},
        # JPIB up in AUC; precision up, recall down
        "c": {"NF": (0.70, .50, .50), "KbPIB": (0.69, .60, .40), "JPIB": (0.75, .70, .30)},
    }, reps=4)
    c = count_wins(res)
    assert set(PAPER_COUNTS) <= set(c)
    assert c["n"] == 3
    assert c["auc_improved"] == 2 and c["auc_improved_significant"] == 2
    assert c["precision_and_recall"] == 1
    assert c["jpib_above_kbpib"] == 1 and c["jpib_at_least_kbpib"] == 2
    assert c["jpib_precision_above"] == 1 and c["jpib_precision_at_least"] == 2
    assert c["jpib_recall_above"] == 0 and c["jpib_recall_at_least"] == 2
    assert c["kbpib_below_nf"] == 2 and c["both_at_least_nf"] == 0
    assert count_wins(res, datasets=["a"])["n"] == 1


def test_across_datasets_matches_scipy():
    mean = pd.DataFrame({"NF": [0.8, 0.7, 0.9, 0.6, 0.75, 0.65],
                         "KbPIB": [0.81, 0.69, 0.93, 0.62, 0.76, 0.64]})
    out = across_datasets(mean, "KbPIB", "NF")
    ref = stats.wilcoxon(mean.KbPIB - mean.NF, alternative="greater")
    assert out.pvalue == pytest.approx(ref.pvalue) and out.statistic == pytest.approx(ref.statistic)
    assert out.n == 6 and out.positive == 4
    assert np.isnan(across_datasets(mean.iloc[:1], "KbPIB", "NF").pvalue)
    assert np.isnan(across_datasets(mean.assign(KbPIB=mean.NF), "KbPIB", "NF").pvalue)


def test_gain_correlation_matches_pearson():
    rng = np.random.RandomState(1)
    mean = pd.DataFrame({"PF": rng.rand(8), "NF": rng.rand(8), "KbPIB": rng.rand(8), "JPIB": rng.rand(8)})
    out = gain_correlation(mean)
    ref = stats.pearsonr(mean.PF, mean.JPIB - mean.NF)
    assert out.loc["JPIB", "r"] == pytest.approx(ref.statistic)
    assert out.loc["JPIB", "pvalue"] == pytest.approx(ref.pvalue) and out.loc["JPIB", "n"] == 8
    assert np.isnan(gain_correlation(mean.iloc[:2]).loc["KbPIB", "r"])


def test_compare_on_tasks_skips_missing_data_and_adds_all(tmp_path):
    nf = PrivilegedBoostingClassifier(mode="nf", n_estimators=5, random_state=0)
    res, skipped = compare_on_tasks({"NF": nf}, ["german", "dutch"], n_samples={"german": 200},
                                    n_repeats=2, with_privileged="NF", random_state=0,
                                    data_home=tmp_path, verbose=False)
    assert set(skipped) == {"dutch"} and "fairness/dutch.csv.gz" in skipped["dutch"]
    assert sorted(res.model.unique()) == ["ALL", "NF"] and (res.dataset == "german").all()
    # the same splits as compare_models on the task itself
    task = load_privileged_task("german", n_samples=200, random_state=0)
    ref = compare_models({"NF": nf}, task, n_repeats=2, random_state=0)
    np.testing.assert_allclose(res[res.model == "NF"].auc.to_numpy(), ref.auc.to_numpy())
    with pytest.raises(ValueError, match="with_privileged"):
        compare_on_tasks({"NF": nf}, ["german"], with_privileged="XX", verbose=False)


def test_compare_on_tasks_returns_the_table_of_what_it_ran(tmp_path, capsys):
    nf = PrivilegedBoostingClassifier(mode="nf", n_estimators=5, random_state=0)
    res, skipped, tasks = compare_on_tasks({"NF": nf}, ["dutch", "german"], n_samples={"german": 150},
                                           n_repeats=2, random_state=0, data_home=tmp_path, verbose=False,
                                           return_tasks=True)
    assert capsys.readouterr().out == ""  # the table replaces the printed lines
    assert list(tasks.index) == ["dutch", "german"]  # every task asked for, in order
    task = load_privileged_task("german", n_samples=150, random_state=0)
    row = tasks.loc["german"]
    assert (row["rows"], row["X columns"], row["X* columns"]) == (150, task.X.shape[1], task.X_star.shape[1])
    assert row["positive"] == pytest.approx(task.y.mean()) and row["description"] == task.DESCR
    assert tasks.loc["dutch", "description"] == f"skipped: {skipped['dutch']}"
    assert tasks.loc["dutch", ["rows", "X columns", "X* columns", "positive"]].isna().all()
