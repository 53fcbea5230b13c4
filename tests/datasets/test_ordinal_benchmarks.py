"""The ten ordinal benchmark sets of Part III (data home: ordinal/)."""

import os
from pathlib import Path

import numpy as np
import pytest

from lupikit.datasets import ORDINAL_BENCHMARKS, file_status, load_ordinal_benchmark
from lupikit.datasets._ordinal_benchmarks import CATALOG

SHARED = Path("/work/shared/data")

#: (samples, features, labels) of Gutierrez et al. (2016), Table of the data sets.
SHAPES = {
    "automobile": (205, 71, 6), "bondrate": (57, 37, 5), "contact-lenses": (24, 6, 3),
    "eucalyptus": (736, 91, 5), "newthyroid": (215, 5, 3), "pasture": (36, 25, 3),
    "squash-stored": (52, 51, 3), "squash-unstored": (52, 52, 3), "tae": (151, 54, 3),
    "winequality-red": (1599, 11, 6),
}


@pytest.fixture
def data_home(monkeypatch):
    """The shared data home when LUPIKIT_DATA is unset; skip if a file is missing."""
    if not os.environ.get("LUPIKIT_DATA") and SHARED.is_dir():
        monkeypatch.setenv("LUPIKIT_DATA", str(SHARED))
    for name in ORDINAL_BENCHMARKS:
        for split in ("train", "test"):
            status = file_status(f"ordinal/{name}/{split}_{name}.0")
            if status != "ok":
                pytest.skip(status)


def test_ten_sets():
    assert len(ORDINAL_BENCHMARKS) == 10 == len(set(ORDINAL_BENCHMARKS)) == len(CATALOG)
    assert [info.kwargs["name"] for info in CATALOG] == list(ORDINAL_BENCHMARKS)
    assert all(info.loader == "load_ordinal_benchmark" and len(info.files) == 2 for info in CATALOG)


@pytest.mark.parametrize("name", ["iris", "TAE", "", None, 3])
def test_unknown_name_lists_the_known_ones(name):
    with pytest.raises(ValueError, match="automobile, bondrate, .*winequality-red"):
        load_ordinal_benchmark(name)


def test_missing_file_names_file_and_source(tmp_path):
    with pytest.raises(FileNotFoundError, match="ordinal/tae/train_tae.0.*orca-python"):
        load_ordinal_benchmark("tae", data_home=tmp_path, download_if_missing=False)


@pytest.mark.parametrize("name", ORDINAL_BENCHMARKS)
def test_shapes_and_labels(name, data_home):
    d = load_ordinal_benchmark(name)
    n, p, k = SHAPES[name]
    assert d.data.shape == (n, p) and d.data.dtype == np.float64
    assert d.target.shape == (n,) and d.target.dtype.kind == "i"
    # contiguous labels 1..K, every level present
    assert np.unique(d.target).tolist() == list(range(1, k + 1))
    assert len(d.feature_names) == p == len(set(d.feature_names))
    assert len(d.target_names) == k
    assert 0 < d.n_train_split0 < n
    assert "Gutierrez" in d.DESCR and "orca-python" in d.DESCR
    assert f"train_{name}.0" in d.DESCR and f"test_{name}.0" in d.DESCR
    X, y = load_ordinal_benchmark(name, return_X_y=True)
    np.testing.assert_array_equal(X, d.data)
    np.testing.assert_array_equal(y, d.target)


def test_identified_columns(data_home):
    """The named columns are what their names say (one-hot blocks sum to one)."""
    auto = load_ordinal_benchmark("automobile")
    cols = {n: j for j, n in enumerate(auto.feature_names)}
    for attr in ("make", "body-style", "drive-wheels", "engine-type", "num-of-cylinders",
                 "fuel-system"):
        block = [j for n, j in cols.items() if n.startswith(attr + "=")]
        assert np.all(auto.data[:, block].sum(axis=1) == 1), attr
    assert auto.data[:, cols["make=toyota"]].sum() == 32
    assert auto.data[:, cols["engine-type=l"]] @ auto.data[:, cols["make=peugot"]] == 11
    tae = load_ordinal_benchmark("tae")
    assert tae.data[:, 0].sum() == 122 and tae.data[:, -2].sum() == 128
    lenses = load_ordinal_benchmark("contact-lenses")
    reduced = lenses.data[:, lenses.feature_names.index("tear-production=normal")] == 0
    assert np.all(lenses.target[reduced] == 1)  # reduced tear production: no lenses
