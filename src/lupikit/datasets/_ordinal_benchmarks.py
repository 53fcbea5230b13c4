"""The ten real ordinal benchmark sets of Part III (Gutierrez et al., 2016).

The relevance paper's authors evaluate their ordinal models on ten sets of the
ordinal-regression benchmark of Gutierrez et al. (IEEE TKDE 28(1), 2016),
folder ``gpor``: automobile, bondrate, contact-lenses, eucalyptus,
newthyroid, pasture, squash-stored, squash-unstored, tae and
winequality-red. The data home holds the benchmark's first hold-out split of
each (``ordinal/<name>/train_<name>.0`` and ``test_<name>.0``, copied from
``ayrna/orca-python``): whitespace-separated numbers, nominal inputs already
one-hot encoded by the benchmark, the last column the ordinal label ``1..K``.
The two files of a split together are the whole data set, which
:func:`load_ordinal_benchmark` returns (training rows first), so that a
protocol can draw its own stratified splits from it.

Feature names are those of the UCI source where the benchmark's columns could
be identified (numeric ranges, and one-hot columns by their counts, see each
set's ``DESCR``); elsewhere the columns are numbered ``x1 .. xd``.
"""

import numpy as np
from sklearn.utils import Bunch

from ._home import FILES, fetch_file
from ._info import DatasetInfo

__all__ = ["ORDINAL_BENCHMARKS", "load_ordinal_benchmark", "CATALOG"]

#: The ten sets, as the benchmark (and the data home) names them.
ORDINAL_BENCHMARKS = (
    "automobile", "bondrate", "contact-lenses", "eucalyptus", "newthyroid", "pasture",
    "squash-stored", "squash-unstored", "tae", "winequality-red",
)

#: The names the authors' experiment code gives them (lpfann/squamish_experiments).
_DISPLAY = {
    "automobile": "Automobile", "bondrate": "Bondrate", "contact-lenses": "Contact-lenses",
    "eucalyptus": "Eucalyptus", "newthyroid": "Newthyroid", "pasture": "Pasture",
    "squash-stored": "Squash-stored", "squash-unstored": "Squash-unstored", "tae": "TAE",
    "winequality-red": "Winequality-red",
}

_CITATION = ("P. A. Gutierrez, M. Perez-Ortiz, J. Sanchez-Monedero, F. Fernandez-Navarro and "
             "C. Hervas-Martinez, 'Ordinal regression methods: survey and experimental study', "
             "IEEE Trans. Knowledge and Data Engineering 28(1):127-146, 2016.")

_AUTO_MAKES = ("toyota", "mazda", "mitsubishi", "dodge", "nissan", "jaguar", "peugot",
               "chevrolet", "bmw", "volkswagen", "plymouth", "isuzu", "mercury", "subaru",
               "audi", "honda", "mercedes-benz", "renault", "saab", "volvo", "alfa-romero",
               "porsche")


def _one_hot(attribute, values):
    return [f"{attribute}={v}" for v in values]


_AUTOMOBILE = (
    ["normalized-losses"] + _one_hot("make", _AUTO_MAKES)
    + ["fuel-type=gas", "aspiration=turbo", "num-of-doors=two"]
    + _one_hot("body-style", ("hardtop", "wagon", "sedan", "hatchback", "convertible"))
    + _one_hot("drive-wheels", ("4wd", "fwd", "rwd")) + ["engine-location=rear"]
    + ["wheel-base", "length", "width", "height", "curb-weight"]
    + _one_hot("engine-type", ("dohc", "dohcv", "l", "ohc", "ohcf", "ohcv", "rotor"))
    + _one_hot("num-of-cylinders", ("eight", "five", "four", "six", "three", "twelve", "two"))
    + ["engine-size"]
    + _one_hot("fuel-system", ("1bbl", "2bbl", "4bbl", "idi", "mfi", "mpfi", "spdi", "spfi"))
    + ["bore", "stroke", "compression-ratio", "horsepower", "peak-rpm", "city-mpg",
       "highway-mpg", "price"]
)

#: Per set: (feature names or None for x1..xd, target names or None for "1".."K", notes).
_SETS = {
    "automobile": (
        _AUTOMOBILE, ("-2", "-1", "0", "1", "2", "3"),
        "UCI Automobile (Schlimmer 1987): the insurance risk rating 'symboling' (-2 .. 3, "
        "labels 1 .. 6) from 25 attributes of 205 cars of 1985. The 15 numeric columns are "
        "identified by their ranges (UCI's documented ones); the one-hot columns of each "
        "attribute by their counts, which match UCI's: make (in the benchmark's order, not "
        "alphabetical; the makes of equal counts told apart by their diesel and turbo "
        "shares and mean price), body-style and drive-wheels by their counts, engine-type, "
        "num-of-cylinders and fuel-system in alphabetical order (checked: the 'l' engines "
        "are the Peugeots', the 'three' and 'twelve' cylinders the smallest and the "
        "largest engine). The binary attributes are single columns (1 = gas, turbo, two "
        "doors, rear engine). UCI's missing values (normalized-losses, bore, stroke, "
        "horsepower, peak-rpm, price, num-of-doors) were filled in by the benchmark; how "
        "is not documented."),
    "bondrate": (
        None, None,
        "Bond rating (5 ordered classes); 4 numeric and 33 one-hot columns, not named by "
        "the benchmark. The top class has a single bond (label 5), so a stratified split "
        "can only keep it in training."),
    "contact-lenses": (
        ("age=young", "age=pre-presbyopic", "age=presbyopic", "prescription=hypermetrope",
         "astigmatic=yes", "tear-production=normal"),
        ("none", "soft", "hard"),
        "Cendrowska's contact lenses (UCI): all 24 combinations of age (one-hot, 3), "
        "spectacle prescription, astigmatism and tear production; label 1 = no lenses, "
        "2 = soft, 3 = hard. The columns are identified from the data set's rules (reduced "
        "tear production always gives no lenses, hard lenses only with astigmatism)."),
    "eucalyptus": (
        None, ("none", "low", "average", "good", "best"),
        "Eucalyptus soil conservation (Bulloch 1991, WEKA/OpenML): the utility of a seedlot "
        "(5 levels, counts as OpenML's) from 14 numeric and 77 one-hot columns, not named by "
        "the benchmark. Missing values are coded -2147483648 in columns x86, x89 and x91 "
        "(94, 69 and 69 rows): kept as the benchmark has them."),
    "newthyroid": (
        ("T3-resin uptake", "total serum thyroxin", "total serum triiodothyronine",
         "basal TSH", "max abs diff TSH after TRH"),
        ("hypothyroid", "normal", "hyperthyroid"),
        "UCI Thyroid Disease, 'new-thyroid' (Quinlan): five laboratory tests, in UCI's "
        "order (ranges checked); label 1 = hypothyroid (30), 2 = normal (150), "
        "3 = hyperthyroid (35)."),
    "pasture": (
        None, ("low", "medium", "high"),
        "Pasture production (WEKA/OpenML): production class low/medium/high (12 each) from "
        "20 numeric and 5 one-hot columns, not named by the benchmark."),
    "squash-stored": (
        None, None,
        "Squash harvest, stored fruit (WEKA/OpenML): acceptability (3 ordered levels) from "
        "21 numeric and 30 one-hot columns, not named by the benchmark."),
    "squash-unstored": (
        None, None,
        "Squash harvest, unstored fruit (WEKA/OpenML): acceptability (3 ordered levels), "
        "not named by the benchmark."),
    "tae": (
        ("non-native English speaker",) + tuple(f"instructor={k}" for k in range(1, 26))
        + tuple(f"course={k}" for k in range(1, 27)) + ("regular semester", "class size"),
        ("low", "medium", "high"),
        "UCI Teaching Assistant Evaluation (Loh & Shih): the evaluation of 151 teaching "
        "assistants (low/medium/high) from whether the TA is a native English speaker "
        "(1 = not: 122 of 151, as UCI's code 2), the course instructor (one-hot, 25), the "
        "course (one-hot, 26), the semester (1 = regular: 128, UCI's code 2) and the class "
        "size."),
    "winequality-red": (
        ("fixed acidity", "volatile acidity", "citric acid", "residual sugar", "chlorides",
         "free sulfur dioxide", "total sulfur dioxide", "density", "pH", "sulphates",
         "alcohol"),
        ("3", "4", "5", "6", "7", "8"),
        "UCI Wine Quality, red (Cortez et al. 2009): the sensory quality 3 .. 8 (labels "
        "1 .. 6) from 11 physico-chemical tests, in UCI's order (ranges checked)."),
}


def _files(name):
    return (f"ordinal/{name}/train_{name}.0", f"ordinal/{name}/test_{name}.0")


def _check_name(name):
    if not isinstance(name, str) or name not in ORDINAL_BENCHMARKS:
        raise ValueError(f"name must be one of the ordinal benchmark sets "
                         f"{', '.join(ORDINAL_BENCHMARKS)}; got {name!r}.")
    return name


def _parse(path, name):
    """The numbers of one split file as a 2-D array (a clear ValueError otherwise)."""
    try:
        table = np.loadtxt(path, ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{path} is not a whitespace-separated table of numbers as the "
                         f"ordinal benchmark's {name} files are: {exc}") from None
    if table.shape[1] < 2:
        raise ValueError(f"{path} has {table.shape[1]} column(s); the ordinal benchmark's files "
                         "have the features and then the label.")
    return table


def load_ordinal_benchmark(name, *, data_home=None, download_if_missing=True, return_X_y=False):
    """Load one of the ten ordinal benchmark sets of Part III (whole data set).

    The union of the benchmark's first hold-out split files
    ``ordinal/<name>/train_<name>.0`` and ``test_<name>.0`` (training rows
    first): the whole data set, from which a protocol draws its own splits.

    Parameters
    ----------
    name : str
        One of ``ORDINAL_BENCHMARKS``.
    data_home : str or path-like, default=None
        See :func:`lupikit.datasets.get_data_home`.
    download_if_missing : bool, default=True
        Download missing files from their public source if the machine is online.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of the Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (ndarray of float, the benchmark's columns: nominal inputs
        one-hot encoded, nothing else changed), ``target`` (int labels
        ``1 .. K``, all of them present), ``feature_names``, ``target_names``
        (the meaning of the labels ``1 .. K``, where known; else ``"1" .. "K"``),
        ``n_train_split0`` (the first rows, the benchmark's training part of its
        first split), ``DESCR``.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Raises
    ------
    ValueError
        If ``name`` is not one of the ten sets (the message lists them), or a
        file's checksum differs from the registered one.
    FileNotFoundError
        If a file is not in the data home and cannot be downloaded; the message
        names the file, the folder and the public source.

    Examples
    --------
    >>> from lupikit.datasets import load_ordinal_benchmark
    >>> d = load_ordinal_benchmark("tae")  # doctest: +SKIP
    >>> d.data.shape, sorted(set(d.target.tolist()))  # doctest: +SKIP
    ((151, 54), [1, 2, 3])
    >>> load_ordinal_benchmark("iris")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: name must be one of the ordinal benchmark sets automobile, ...
    """
    _check_name(name)
    train_file, test_file = _files(name)
    tables = [_parse(fetch_file(f, data_home=data_home, download_if_missing=download_if_missing),
                     name) for f in (train_file, test_file)]
    if tables[0].shape[1] != tables[1].shape[1]:
        raise ValueError(f"{train_file} and {test_file} have different numbers of columns "
                         f"({tables[0].shape[1]} and {tables[1].shape[1]}).")
    table = np.vstack(tables)
    X, labels = table[:, :-1], table[:, -1]
    if not np.all(labels == np.round(labels)):
        raise ValueError(f"the last column of {train_file} / {test_file} holds non-integer labels.")
    y = labels.astype(np.int64)
    n_classes = int(y.max())
    if y.min() != 1 or np.unique(y).size != n_classes:
        raise ValueError(f"the labels of {name} are not 1 .. K with every level present "
                         f"(found {np.unique(y).tolist()}).")
    if return_X_y:
        return X, y
    names, targets, notes = _SETS[name]
    feature_names = list(names) if names is not None else [f"x{j + 1}" for j in range(X.shape[1])]
    if len(feature_names) != X.shape[1]:  # pragma: no cover - the checksums fix the files
        raise ValueError(f"{name} has {X.shape[1]} columns, its names {len(feature_names)}.")
    target_names = (list(targets) if targets is not None
                    else [str(k) for k in range(1, n_classes + 1)])
    entry = FILES[train_file]
    descr = (
        f"{_DISPLAY[name]}: {X.shape[0]} samples, {X.shape[1]} features, {n_classes} ordered "
        f"labels (1 .. {n_classes}; counts {np.bincount(y)[1:].tolist()}). {notes}\n\n"
        f"Source: the ordinal-regression benchmark of Gutierrez et al. (2016), folder gpor, as "
        f"copied in ayrna/orca-python (commit 0610f48, orca_python/tests/test_datasets/"
        f"test_redsvm_svorex_load_dataset/{name}/); licence {entry.licence}. Citation: "
        f"{_CITATION}\n\n"
        f"Preprocessing: the rows of {train_file} ({tables[0].shape[0]}) followed by those of "
        f"{test_file} ({tables[1].shape[0]}), the benchmark's first 75/25 hold-out split, "
        "together the whole data set; the last column is the label (as int), the others the "
        "features as the benchmark stores them (nominal inputs one-hot encoded by the "
        "benchmark; nothing standardised, imputed or dropped here).")
    return Bunch(data=X, target=y, feature_names=feature_names, target_names=target_names,
                 n_train_split0=int(tables[0].shape[0]), DESCR=descr)


def _info(name):
    names, _, notes = _SETS[name]
    roles = ""
    if name == "tae":
        roles = ("'non-native English speaker' is a critical feature in the sense of the "
                 "paper's Sec. 1 (origin of the teaching assistant): Part III's real-data "
                 "page quantifies its possible impact.")
    elif name == "contact-lenses":
        roles = ("age is a critical feature in the sense of the paper's Sec. 1 (age, gender, "
                 "ethnicity).")
    return DatasetInfo(
        _DISPLAY[name], ("relevance",), "load_ordinal_benchmark",
        source=(f"data home: ordinal/{name}/ (train_{name}.0 and test_{name}.0 of "
                "ayrna/orca-python, commit 0610f48, the gpor benchmark of Gutierrez et al. 2016)"),
        licence="BSD-3-Clause (orca-python); the data are public (UCI / WEKA collections)",
        preprocessing=("union of the benchmark's first hold-out split (training rows first); "
                       "nominal inputs one-hot encoded by the benchmark, nothing else changed; "
                       "labels 1 .. K. " + notes),
        kwargs={"name": name}, files=_files(name),
        # the text of the paper we work from lost its Sec. 6 with the sizes
        paper_shape=None, roles=roles)


#: The ten sets for the book's Data page.
CATALOG = [_info(name) for name in ORDINAL_BENCHMARKS]
