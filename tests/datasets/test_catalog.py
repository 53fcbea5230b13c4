"""The catalogue of the papers' data sets, from which the book's Data page is generated."""

import pytest

import lupikit.datasets as ds
from lupikit.datasets import FILES, MISSING, catalog, data_table


def test_every_entry_names_a_public_loader_or_a_reason():
    for info in catalog():
        if info.missing:
            assert info.loader is None and len(info.missing) > 40
        else:
            assert info.loader in ds.__all__ or info.loader.startswith("sklearn.datasets."), info.name
            assert info.source and info.licence, info.name


def test_every_registered_file_is_read_by_some_data_set():
    read = {f for info in catalog() for f in info.files}
    unread = {p for p in FILES if p not in read}
    # registered (so their checksums are known) but read by no loader: the survey's copies of
    # data sets we load from elsewhere (COMPAS, German credit: vendored from their original
    # sources) or that no paper of the book uses (law school, Ricci), and the diabetes ID table
    assert unread <= {"fairness/IDs_mapping.csv.gz",
                      "fairness/compas-scores-two-years_clean.csv.gz",
                      "fairness/german_data_credit.csv.gz",
                      "fairness/law_school_clean.csv.gz",
                      "fairness/ricci_race.csv.gz"}, unread


def test_missing_ones_come_last():
    entries = catalog()
    assert entries[-len(MISSING):] == MISSING


def test_table_without_a_data_home_names_the_files(tmp_path, monkeypatch):
    monkeypatch.setenv("LUPIKIT_DATA", str(tmp_path))
    rows = data_table(load=False)
    assert len(rows) == len(catalog())
    for row, info in zip(rows, catalog()):
        if info.missing:
            assert row["status"].startswith("missing: ")
        elif info.files:
            # the file, by its registered name, and what to set; no folder of the machine
            assert info.files[0] in row["status"] and str(tmp_path) not in row["status"]
            assert "LUPIKIT_DATA" in row["status"] and "$" not in row["status"]
        else:  # vendored: always there
            assert row["status"] == "ok"


def test_table_loads_the_vendored_sets(tmp_path, monkeypatch):
    monkeypatch.setenv("LUPIKIT_DATA", str(tmp_path))
    rows = [r for r in data_table() if r["status"] == "ok"]
    assert rows and all(r["shape"][0] > 0 and r["shape"][1] > 0 for r in rows)


def test_bad_part_is_refused(monkeypatch):
    from lupikit.datasets import _catalog

    monkeypatch.setattr(_catalog, "MISSING", MISSING + [
        ds.DatasetInfo("x", ("nowhere",), None, "none", "-", missing="because")])
    with pytest.raises(ValueError, match="unknown parts"):
        _catalog.catalog()


def _home_entries():
    return [info for info in catalog() if info.files]


@pytest.mark.parametrize("info", _home_entries(), ids=lambda i: i.name)
def test_loader_refuses_a_missing_data_home(info, tmp_path):
    from lupikit.datasets._catalog import _loader

    with pytest.raises(FileNotFoundError, match="not an existing folder"):
        _loader(info.loader)(**info.kwargs, data_home=tmp_path / "nowhere")


@pytest.mark.parametrize("info", _home_entries(), ids=lambda i: i.name)
def test_loader_refuses_an_edited_file(info, tmp_path, monkeypatch):
    """A truncated, edited or other data set's file under the expected name is never parsed."""
    from lupikit.datasets._catalog import _loader

    monkeypatch.setenv("LUPIKIT_CACHE", str(tmp_path / "cache"))
    for f in info.files:
        target = tmp_path / f
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"a,b\n1,2\n")  # another (tiny) data set under the expected name
    with pytest.raises(ValueError, match="not the registered .* nothing was loaded"):
        _loader(info.loader)(**info.kwargs, data_home=tmp_path, download_if_missing=False)
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


@pytest.mark.parametrize("info", _home_entries(), ids=lambda i: i.name)
def test_loader_names_a_missing_file(info, tmp_path):
    from lupikit.datasets._catalog import _loader

    with pytest.raises(FileNotFoundError) as err:
        _loader(info.loader)(**info.kwargs, data_home=tmp_path, download_if_missing=False)
    assert any(f in str(err.value) for f in info.files) and str(tmp_path) in str(err.value)
