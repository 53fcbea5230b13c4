"""The UCI benchmark helpers of Section 5.1 (lupikit.twinsvm.uci)."""

import numpy as np
import pytest
from sklearn.model_selection import ParameterGrid

from lupikit.twinsvm.uci import (MODELS, PAPER_GRID, TABLE1, TABLE2, TABLE3, TABLE3_F1, UCI_SETS,
                                 candidates, load_uci, make_models, run_benchmark)


def test_paper_tables_are_complete():
    assert len(UCI_SETS) == 10 and set(TABLE2) == set(TABLE3) == set(UCI_SETS)
    assert set(TABLE1) == set(UCI_SETS) - {"glass"}  # Glass is not in Table 1
    assert set(TABLE3_F1) == set(UCI_SETS) - {"soybean"}
    for table in (TABLE2, TABLE3):
        # the paper's Pin-TWSVMPI is bold (the best, ties included) on every row
        assert all(row[4] == max(row) and len(row) == len(MODELS) for row in table.values())


def test_candidates_cover_each_model_s_hyperparameters():
    keys = {m: set(candidates(m, "rbf", 4, PAPER_GRID)[0]) for m in MODELS}
    assert keys["SVMPI"] == {"C", "correction_weight", "gamma"}
    assert keys["TWSVMPI"] == {"C1", "C2", "correction_weight", "gamma"}
    assert keys["Pin-SVM"] == {"C", "tau", "gamma"}
    assert keys["Pin-TWSVM"] == {"C1", "C2", "tau", "gamma"}
    assert keys["Pin-TWSVMPI"] == {"C1", "C2", "tau", "correction_weight", "gamma"}
    full = candidates("Pin-TWSVMPI", "rbf", 4, PAPER_GRID)
    assert len(full) == 5 * 5 * 3 * 3 * 3
    assert {c["gamma"][0] for c in full} == {0.0625, 0.25, 1.0}  # factors / n_features
    assert "gamma" not in candidates("Pin-TWSVM", "linear", 4, PAPER_GRID)[0]


def test_random_draw_is_a_subset_in_grid_order_and_reproducible():
    full = candidates("Pin-TWSVMPI", "rbf", 7, PAPER_GRID)
    drawn = candidates("Pin-TWSVMPI", "rbf", 7, PAPER_GRID, n_candidates=16, random_state=3)
    assert len(drawn) == 16 and len({str(c) for c in drawn}) == 16
    positions = [full.index(c) for c in drawn]
    assert positions == sorted(positions)
    assert drawn == candidates("Pin-TWSVMPI", "rbf", 7, PAPER_GRID, n_candidates=16,
                               random_state=3)
    # a grid smaller than n_candidates is used whole, each candidate one point of a ParameterGrid
    small = candidates("Pin-SVM", "linear", 7, PAPER_GRID, n_candidates=16)
    assert len(small) == 15 and len(list(ParameterGrid(small))) == 15
    with pytest.raises(ValueError, match="model"):
        candidates("SVM", "rbf", 4, PAPER_GRID)


def test_load_uci_subsample_is_stratified():
    X, y = load_uci("page_blocks", max_samples=500, random_state=0)
    assert X.shape == (500, 10)
    full = np.bincount(load_uci("page_blocks")[1]) / 5472
    assert np.all(np.abs(np.bincount(y) / 500 - full) < 0.01)
    assert load_uci("ecoli", max_samples=500)[0].shape == (327, 7)  # smaller: all rows
    with pytest.raises(ValueError, match="name"):
        load_uci("iris2")
    with pytest.raises(ValueError, match="max_samples"):
        load_uci("iris", max_samples=1)


def test_make_models_and_a_tiny_run():
    models = make_models("rbf")
    assert list(models) == list(MODELS)
    assert all(m.multi_class == "ovo" and m.kernel == "rbf" for m in models.values())
    with pytest.raises(ValueError, match="kernel"):
        make_models("poly")
    grid = {"C": [1.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    res = run_benchmark(["wine"], ["rbf"], grid)
    assert res["model"].tolist() == list(MODELS) and (res["n_candidates"] == 1).all()
    assert res["acc"].between(85, 100).all() and res["f1"].between(0.8, 1).all()
