"""The data home: where files are looked for, checksums, downloads and the parsed cache.

Downloads are tested against a web server on 127.0.0.1 that serves files made
here; nothing goes to the internet.
"""

import gzip
import hashlib
import http.server
import threading
from functools import partial

import pandas as pd
import pytest

from lupikit.datasets import _home
from lupikit.datasets._home import DataFile, cached_frame, fetch_file, file_status, get_data_home

CONTENT = b"a,b,label\n1,2,0\n3,4,1\n"
SHA = hashlib.sha256(CONTENT).hexdigest()


@pytest.fixture
def server(tmp_path):
    """A web server on 127.0.0.1 serving ``tmp_path/served``; yields its base URL."""
    root = tmp_path / "served"
    root.mkdir()
    (root / "toy.csv").write_bytes(CONTENT)
    (root / "other.csv").write_bytes(b"x,y\n5,6\n")
    handler = partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


@pytest.fixture
def register(monkeypatch):
    """Register extra DataFile entries for one test."""
    def add(entry):
        monkeypatch.setitem(_home.FILES, entry.path, entry)
        return entry
    return add


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty data home in ``LUPIKIT_DATA`` and a private cache home."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("LUPIKIT_DATA", str(path))
    monkeypatch.setenv("LUPIKIT_CACHE", str(tmp_path / "cache"))
    return path


# ---------------------------------------------------------------- data home

def test_data_home_order(tmp_path, monkeypatch):
    monkeypatch.delenv("LUPIKIT_DATA", raising=False)
    assert get_data_home().name == "lupikit_data"
    monkeypatch.setenv("LUPIKIT_DATA", str(tmp_path))
    assert get_data_home() == tmp_path
    other = tmp_path / "other"
    other.mkdir()
    assert get_data_home(other) == other  # the argument wins over the variable


def test_missing_data_home_is_named(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="data_home names .*nowhere.*not an existing folder"):
        get_data_home(tmp_path / "nowhere")
    monkeypatch.setenv("LUPIKIT_DATA", str(tmp_path / "gone"))
    with pytest.raises(FileNotFoundError, match="LUPIKIT_DATA environment variable names .*gone"):
        fetch_file("uci/compound.arff")


def test_data_home_type():
    with pytest.raises(TypeError, match="data_home must be a folder's path"):
        get_data_home(3)


def test_unknown_file_is_a_value_error(home):
    with pytest.raises(ValueError, match="'uci/nope.csv' is not a registered data file"):
        fetch_file("uci/nope.csv")


# ---------------------------------------------------------------- checksums

def test_missing_file_names_file_folder_and_source(home, register):
    register(DataFile("toy/toy.csv", SHA, "the toy repository, commit 0", "CC0"))
    with pytest.raises(FileNotFoundError) as info:
        fetch_file("toy/toy.csv")
    msg = str(info.value)
    assert "toy/toy.csv" in msg and str(home) in msg and "the toy repository" in msg
    # the status names the file and what to set, not the folder (it is printed in the book)
    status = file_status("toy/toy.csv")
    assert "toy/toy.csv" in status and str(home) not in status and "LUPIKIT_DATA" in status


def test_good_file_is_returned(home, register):
    register(DataFile("toy/toy.csv", SHA, "src", "CC0"))
    (home / "toy").mkdir()
    (home / "toy" / "toy.csv").write_bytes(CONTENT)
    assert fetch_file("toy/toy.csv") == home / "toy" / "toy.csv"
    assert file_status("toy/toy.csv") == "ok"


@pytest.mark.parametrize("damage", [
    lambda b: b[:-5],                    # truncated
    lambda b: b.replace(b"3", b"8"),     # edited
    lambda b: b"x,y\n5,6\n",             # another data set under this name
])
def test_bad_checksum_is_refused(home, register, damage):
    register(DataFile("toy/toy.csv", SHA, "the toy repository", "CC0"))
    (home / "toy").mkdir()
    (home / "toy" / "toy.csv").write_bytes(damage(CONTENT))
    with pytest.raises(ValueError, match="not the registered .*nothing was loaded.*toy repository"):
        fetch_file("toy/toy.csv")


def test_every_registered_file_of_the_shared_data_checks(repo_root):
    shared = repo_root.parent / "shared" / "data"
    if not shared.is_dir():
        pytest.skip(f"no shared data folder at {shared}")
    bad = {p: file_status(p, data_home=shared) for p in _home.FILES}
    assert {p: s for p, s in bad.items() if s != "ok"} == {}


def test_registered_checksums_are_well_formed():
    for entry in _home.FILES.values():
        assert len(entry.sha256) == 64 and int(entry.sha256, 16) >= 0
        assert entry.source and entry.licence
        if entry.url:
            assert entry.url.startswith("https://") and len(entry.url_sha256) == 64


# ---------------------------------------------------------------- downloads

def test_download_when_missing(home, register, server):
    register(DataFile("toy/toy.csv", SHA, "src", "CC0", server + "toy.csv", SHA))
    path = fetch_file("toy/toy.csv")
    assert path.read_bytes() == CONTENT
    assert [p.name for p in (home / "toy").iterdir()] == ["toy.csv"]  # no temporary left


def test_download_of_a_gzipped_file_keeps_the_source(home, register, server):
    gz_sha = hashlib.sha256(gzip.compress(CONTENT)).hexdigest()
    register(DataFile("toy/toy.csv.gz", gz_sha, "src", "CC0", server + "toy.csv", SHA))
    path = fetch_file("toy/toy.csv.gz")
    assert path == home / "toy" / "toy.csv" and path.read_bytes() == CONTENT
    # the next call finds the downloaded copy without a server
    register(DataFile("toy/toy.csv.gz", gz_sha, "src", "CC0", "https://invalid.invalid/x", SHA))
    assert fetch_file("toy/toy.csv.gz", download_if_missing=False) == path


def test_download_with_wrong_checksum_is_discarded(home, register, server):
    register(DataFile("toy/toy.csv", SHA, "src", "CC0", server + "other.csv", SHA))
    with pytest.raises(FileNotFoundError, match="Downloading it .* failed: .*discarded"):
        fetch_file("toy/toy.csv")
    assert not any((home / "toy").iterdir())


def test_download_failure_names_the_address(home, register, server):
    register(DataFile("toy/toy.csv", SHA, "src", "CC0", server + "absent.csv", SHA))
    with pytest.raises(FileNotFoundError, match="absent.csv failed: HTTP Error 404"):
        fetch_file("toy/toy.csv")


def test_no_download_when_not_allowed(home, register, server):
    register(DataFile("toy/toy.csv", SHA, "src", "CC0", server + "toy.csv", SHA))
    with pytest.raises(FileNotFoundError, match=r"download_if_missing=True"):
        fetch_file("toy/toy.csv", download_if_missing=False)
    assert not (home / "toy").exists()


# ---------------------------------------------------------------- cache

def test_cached_frame_parses_once(home, register, tmp_path):
    register(DataFile("toy/toy.csv", SHA, "src", "CC0"))
    (home / "toy").mkdir()
    (home / "toy" / "toy.csv").write_bytes(CONTENT)
    calls = []

    def parse(path):
        calls.append(path)
        return pd.read_csv(path)

    first = cached_frame(["toy/toy.csv"], parse, name="toy")
    second = cached_frame(["toy/toy.csv"], parse, name="toy")
    pd.testing.assert_frame_equal(first, second)
    assert len(calls) == 1
    assert len(list((tmp_path / "cache").glob("toy-*.parquet"))) == 1


def test_cached_frame_checks_the_source_every_time(home, register):
    register(DataFile("toy/toy.csv", SHA, "src", "CC0"))
    (home / "toy").mkdir()
    (home / "toy" / "toy.csv").write_bytes(CONTENT)
    cached_frame(["toy/toy.csv"], pd.read_csv, name="toy")
    (home / "toy" / "toy.csv").write_bytes(CONTENT + b"9,9,1\n")
    with pytest.raises(ValueError, match="not the registered"):
        cached_frame(["toy/toy.csv"], pd.read_csv, name="toy")


def test_unwritable_cache_still_loads(home, register, tmp_path, monkeypatch):
    register(DataFile("toy/toy.csv", SHA, "src", "CC0"))
    (home / "toy").mkdir()
    (home / "toy" / "toy.csv").write_bytes(CONTENT)
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("")
    monkeypatch.setenv("LUPIKIT_CACHE", str(blocker / "cache"))
    frame = cached_frame(["toy/toy.csv"], pd.read_csv, name="toy")
    assert frame.shape == (2, 3)
