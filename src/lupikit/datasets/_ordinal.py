"""Ordinal data: generators with known feature relevance, and real ordinal sets.

Generators
    :func:`make_ordinal_relevance` -- strongly relevant, weakly relevant
    (redundant pairs) and irrelevant features with the ground truth;
    :func:`make_lupi_ordinal` -- the LUPI variant: privileged features are the
    clean signal, regular features a noisy view.

Real data (offline)
    :func:`load_anes96` (party identification, 7 levels) and
    :func:`load_fair` (marriage rating, 5 levels) from ``statsmodels``'
    bundled data sets; :func:`load_binned_regression` bins a regression
    target into equal-frequency ordinal levels (:func:`bin_target`), as in the
    ordinal-regression benchmarks of Chu & Ghahramani (2005).

``statsmodels`` is an optional dependency (extra ``datasets``); it is
imported only inside the loaders that need it.
"""

import numbers

import numpy as np
from sklearn.utils import Bunch, check_random_state

__all__ = [
    "make_ordinal_relevance",
    "make_lupi_ordinal",
    "make_regression_relevance",
    "make_lupi_regression",
    "bin_target",
    "load_anes96",
    "load_fair",
    "load_binned_regression",
]


def _int(value, name, minimum):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def _nonneg(value, name):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not value >= 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}.")
    return float(value)


def _check_sizes(n_samples, n_strong, n_weak, n_irrelevant, n_bins, noise):
    """Validate the arguments shared by the two ordinal generators."""
    sizes = (_int(n_samples, "n_samples", 2), _int(n_strong, "n_strong", 0),
             _int(n_weak, "n_weak", 0), _int(n_irrelevant, "n_irrelevant", 0),
             _int(n_bins, "n_bins", 2), _nonneg(noise, "noise"))
    if sizes[1] + sizes[2] == 0:
        raise ValueError("n_strong + n_weak must be positive: y needs a signal.")
    return sizes


def bin_target(y, n_bins=5):
    """Bin a continuous target into ``n_bins`` equal-frequency ordinal levels.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Continuous target.
    n_bins : int, default=5
        Number of levels (at least 2).

    Returns
    -------
    levels : ndarray of int of shape (n_samples,)
        Labels ``0 .. n_bins - 1`` (ties at a quantile go to the lower bin).

    Examples
    --------
    >>> from lupikit.datasets import bin_target
    >>> bin_target([0.1, 0.5, 0.2, 0.9, 0.7, 0.3], n_bins=3).tolist()
    [0, 1, 0, 2, 2, 1]
    """
    n_bins = _int(n_bins, "n_bins", 2)
    y = np.asarray(y, dtype=float).ravel()
    if y.size == 0:
        raise ValueError("y is empty: there is nothing to bin.")
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity.")
    edges = np.quantile(y, np.linspace(0, 1, n_bins + 1)[1:-1])
    return np.searchsorted(edges, y, side="left").astype(np.int64)


def _latent(n_samples, n_strong, n_weak, n_bins, noise, rng):
    """``(S, U, y)``: strong and latent weak signals and the target, binned into
    ``n_bins`` levels (``n_bins=None``: the real-valued score itself)."""
    if n_weak % 2:
        raise ValueError(f"n_weak must be even (weak features come in redundant pairs), got {n_weak}.")
    S = rng.standard_normal((n_samples, n_strong))
    U = rng.standard_normal((n_samples, n_weak // 2))
    signs = rng.choice([-1.0, 1.0], size=n_strong + n_weak // 2)
    z = np.hstack([S, U]) @ signs + noise * rng.standard_normal(n_samples)
    return S, U, (z if n_bins is None else bin_target(z, n_bins))


def make_regression_relevance(n_samples=300, n_strong=3, n_weak=4, n_irrelevant=13, *,
                              noise=0.5, redundancy_noise=0.1, random_state=None):
    r"""Regression data with known strongly, weakly relevant and irrelevant features.

    The generative model of :func:`make_ordinal_relevance` without the
    binning: ``y = z`` is the real-valued latent score
    ``sum_k s_k S_k + sum_g t_g U_g + noise * eps``; the weakly relevant
    features are the redundant pairs ``U_g + redundancy_noise * noise``.

    Parameters
    ----------
    n_samples, n_strong, n_weak, n_irrelevant : int
        As in :func:`make_ordinal_relevance` (``n_weak`` even).
    noise : float, default=0.5
        Standard deviation of the noise on ``y``.
    redundancy_noise : float, default=0.1
        Noise separating the two members of a pair (0: exact copies).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_strong + n_weak + n_irrelevant)
    y : ndarray of float of shape (n_samples,)
    relevance : ndarray of int of shape (n_features,)
        Ground truth: 2 strongly relevant, 1 weakly relevant, 0 irrelevant.

    Examples
    --------
    >>> from lupikit.datasets import make_regression_relevance
    >>> X, y, relevance = make_regression_relevance(n_samples=50, random_state=0)
    >>> X.shape, y.dtype.kind, relevance.tolist()[:8]
    ((50, 20), 'f', [2, 2, 2, 1, 1, 1, 1, 0])
    """
    return _relevance_data(n_samples, n_strong, n_weak, n_irrelevant, None, noise,
                           redundancy_noise, random_state)


def make_lupi_regression(n_samples=300, n_strong=3, n_weak=4, n_irrelevant=13, *,
                         n_privileged_irrelevant=3, view_noise=0.2, noise=0.0,
                         random_state=None):
    r"""LUPI regression data: the privileged features are the clean signal.

    The generative model of :func:`make_lupi_ordinal` with the real-valued
    score as the target: ``X*`` holds the clean signals (and irrelevant
    columns), ``X`` a noisy view of every signal (the weak ones twice) and
    irrelevant columns, so ``X*`` explains which samples ``X`` fits badly.

    Parameters
    ----------
    n_samples, n_strong, n_weak, n_irrelevant, n_privileged_irrelevant : int
        As in :func:`make_lupi_ordinal`.
    view_noise : float, default=0.2
        Noise of the regular view.
    noise : float, default=0.0
        Noise on ``y`` that ``X*`` cannot explain.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X, X_star, y, relevance, relevance_privileged
        As :func:`make_lupi_ordinal`, with ``y`` real-valued.

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_regression
    >>> X, Xs, y, r, rs = make_lupi_regression(n_samples=40, random_state=0)
    >>> X.shape, Xs.shape, rs.tolist()
    ((40, 20), (40, 8), [1, 1, 1, 1, 1, 0, 0, 0])
    """
    return _lupi(n_samples, n_strong, n_weak, n_irrelevant, None, n_privileged_irrelevant,
                 view_noise, noise, random_state)


def make_ordinal_relevance(n_samples=300, n_strong=3, n_weak=4, n_irrelevant=13, *,
                           n_bins=5, noise=0.5, redundancy_noise=0.1, random_state=None):
    r"""Ordinal data with known strongly, weakly relevant and irrelevant features.

    Generative model (all draws independent standard normal)::

        S  (n_strong)       strongly relevant features
        U  (n_weak / 2)     latent signals, each observed twice:
        W[:, 2g], W[:, 2g+1] = U_g + redundancy_noise * noise   (a redundant pair)
        N  (n_irrelevant)   irrelevant features
        z  = sum_k s_k S_k + sum_g t_g U_g + noise * eps   (random signs s, t)
        y  = equal-frequency bin of z into n_bins levels

    ``X = [S, W, N]``. Each member of a pair can replace the other, so both
    are weakly relevant; no strong feature can be replaced.

    Parameters
    ----------
    n_samples : int, default=300
    n_strong : int, default=3
    n_weak : int, default=4
        Number of weakly relevant features (even: they come in pairs).
    n_irrelevant : int, default=13
    n_bins : int, default=5
        Number of ordinal levels (2 gives binary classification).
    noise : float, default=0.5
        Standard deviation of the noise on the latent score.
    redundancy_noise : float, default=0.1
        Noise separating the two members of a pair (0: exact copies).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_strong + n_weak + n_irrelevant)
    y : ndarray of int of shape (n_samples,)
        Levels ``0 .. n_bins - 1``.
    relevance : ndarray of int of shape (n_features,)
        Ground truth: 2 strongly relevant, 1 weakly relevant, 0 irrelevant.

    Examples
    --------
    >>> from lupikit.datasets import make_ordinal_relevance
    >>> X, y, relevance = make_ordinal_relevance(n_samples=50, random_state=0)
    >>> X.shape, sorted(set(y.tolist())), relevance.tolist()[:8]
    ((50, 20), [0, 1, 2, 3, 4], [2, 2, 2, 1, 1, 1, 1, 0])
    """
    return _relevance_data(n_samples, n_strong, n_weak, n_irrelevant, n_bins, noise,
                           redundancy_noise, random_state)


def _relevance_data(n_samples, n_strong, n_weak, n_irrelevant, n_bins, noise,
                    redundancy_noise, random_state):
    """The generator of :func:`make_ordinal_relevance` (``n_bins=None``: real-valued y)."""
    n_samples, n_strong, n_weak, n_irrelevant, checked_bins, noise = _check_sizes(
        n_samples, n_strong, n_weak, n_irrelevant, 2 if n_bins is None else n_bins, noise)
    n_bins = None if n_bins is None else checked_bins
    redundancy_noise = _nonneg(redundancy_noise, "redundancy_noise")
    rng = check_random_state(random_state)
    S, U, y = _latent(n_samples, n_strong, n_weak, n_bins, noise, rng)
    W = np.repeat(U, 2, axis=1) + redundancy_noise * rng.standard_normal((n_samples, n_weak))
    N = rng.standard_normal((n_samples, n_irrelevant))
    X = np.hstack([S, W, N])
    relevance = np.array([2] * n_strong + [1] * n_weak + [0] * n_irrelevant, dtype=int)
    return X, y, relevance


def make_lupi_ordinal(n_samples=300, n_strong=3, n_weak=4, n_irrelevant=13, *,
                      n_privileged_irrelevant=3, n_bins=3, view_noise=0.2, noise=0.0,
                      random_state=None):
    r"""LUPI ordinal data: privileged features are the clean signal.

    Generative model::

        S (n_strong), U (n_weak / 2)   clean latent signals
        z  = sum_k s_k S_k + sum_g t_g U_g + noise * eps,  y = equal-frequency bins of z
        X* = [S, U, M]                 privileged: the clean signals and
                                       n_privileged_irrelevant irrelevant columns M
        X  = [S + view_noise * E,      regular: a noisy view of every signal,
              U_g + view_noise * E (twice per g),   weak signals seen twice,
              N]                       and irrelevant columns

    At training time X* explains which samples are hard (their noisy view
    crossed a threshold); at test time only X is available.

    Parameters
    ----------
    n_samples, n_strong, n_weak, n_irrelevant : int
        As in :func:`make_ordinal_relevance`.
    n_privileged_irrelevant : int, default=3
        Irrelevant privileged columns.
    n_bins : int, default=3
    view_noise : float, default=0.2
        Noise of the regular view (the generator of the ``fri`` authors,
        ``arfs_gen.genLupiData``, also uses a small noise, 0.2 / std).
    noise : float, default=0.0
        Noise on the latent score (label noise that X* cannot explain).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_strong + n_weak + n_irrelevant)
    X_star : ndarray of shape (n_samples, n_strong + n_weak // 2 + n_privileged_irrelevant)
    y : ndarray of int of shape (n_samples,)
    relevance : ndarray of int
        Truth for X: 2 strong, 1 weak, 0 irrelevant.
    relevance_privileged : ndarray of int
        Truth for X*: 1 carries signal, 0 irrelevant (the strength of a
        privileged feature in the correcting functions is not fixed by the
        generator, so only relevant/irrelevant is ground truth).

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_ordinal
    >>> X, Xs, y, r, rs = make_lupi_ordinal(n_samples=40, random_state=0)
    >>> X.shape, Xs.shape, rs.tolist()
    ((40, 20), (40, 8), [1, 1, 1, 1, 1, 0, 0, 0])
    """
    return _lupi(n_samples, n_strong, n_weak, n_irrelevant, n_bins, n_privileged_irrelevant,
                 view_noise, noise, random_state)


def _lupi(n_samples, n_strong, n_weak, n_irrelevant, n_bins, n_privileged_irrelevant,
          view_noise, noise, random_state):
    """The LUPI generator (``n_bins=None``: a real-valued target)."""
    n_samples, n_strong, n_weak, n_irrelevant, checked_bins, noise = _check_sizes(
        n_samples, n_strong, n_weak, n_irrelevant, 2 if n_bins is None else n_bins, noise)
    n_bins = None if n_bins is None else checked_bins
    n_pi = _int(n_privileged_irrelevant, "n_privileged_irrelevant", 0)
    view_noise = _nonneg(view_noise, "view_noise")
    rng = check_random_state(random_state)
    S, U, y = _latent(n_samples, n_strong, n_weak, n_bins, noise, rng)
    M = rng.standard_normal((n_samples, n_pi))
    X_star = np.hstack([S, U, M])
    X = np.hstack([
        S + view_noise * rng.standard_normal(S.shape),
        np.repeat(U, 2, axis=1) + view_noise * rng.standard_normal((n_samples, n_weak)),
        rng.standard_normal((n_samples, n_irrelevant)),
    ])
    relevance = np.array([2] * n_strong + [1] * n_weak + [0] * n_irrelevant, dtype=int)
    relevance_priv = np.array([1] * (n_strong + n_weak // 2) + [0] * n_pi, dtype=int)
    return X, X_star, y, relevance, relevance_priv


def _statsmodels_datasets():
    try:
        from statsmodels import datasets
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "This loader reads a data set bundled with statsmodels, an optional "
            "dependency of lupikit. Install it with `pip install lupikit[datasets]` "
            "(or `pip install statsmodels`)."
        ) from exc
    return datasets


def load_anes96(*, return_X_y=False):
    """Load the 1996 American National Election Study extract (statsmodels).

    944 respondents; the ordinal target is party identification ``PID`` on
    seven levels (0 strong Democrat ... 6 strong Republican).

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of the Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (DataFrame of the 10 other columns), ``target`` (int levels
        0..6), ``feature_names``, ``privileged_names`` (a suggested privileged
        split: the respondent's placement of the two candidates, ``ClinLR``
        and ``DoleLR``, and the reported ``vote``, answers only collected in
        the post-election interview), ``DESCR``.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    >>> from lupikit.datasets import load_anes96
    >>> d = load_anes96()
    >>> d.data.shape, sorted(set(d.target.tolist()))
    ((944, 10), [0, 1, 2, 3, 4, 5, 6])
    """
    ds = _statsmodels_datasets().anes96.load_pandas()
    frame = ds.data
    target = frame["PID"].to_numpy().astype(np.int64)
    data = frame.drop(columns=["PID"])
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        feature_names=list(data.columns),
        privileged_names=["ClinLR", "DoleLR", "vote"],
        DESCR="ANES 1996 (statsmodels.datasets.anes96): party identification (7 levels). "
        "Source: American National Election Studies, via statsmodels (public domain).",
    )


def load_fair(*, return_X_y=False):
    """Load the Fair (1978) extramarital-affairs survey (statsmodels).

    6,366 women; the ordinal target is ``rate_marriage`` (1 very poor ...
    5 very good).

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of the Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (DataFrame: age, yrs_married, children, religious, educ,
        occupation, occupation_husb, affairs), ``target`` (int levels 1..5),
        ``feature_names``, ``privileged_names`` (``["affairs"]``: intimate
        information that would not be asked at prediction time), ``DESCR``.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    >>> from lupikit.datasets import load_fair
    >>> d = load_fair()
    >>> d.data.shape, sorted(set(d.target.tolist()))
    ((6366, 8), [1, 2, 3, 4, 5])
    """
    ds = _statsmodels_datasets().fair.load_pandas()
    frame = ds.data
    target = frame["rate_marriage"].to_numpy().astype(np.int64)
    data = frame.drop(columns=["rate_marriage"])
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        feature_names=list(data.columns),
        privileged_names=["affairs"],
        DESCR="Fair (1978) affairs survey (statsmodels.datasets.fair): rating of the "
        "marriage (5 levels). Source: Fair, R. (1978), J. Political Economy, via statsmodels.",
    )


def load_binned_regression(name="diabetes", *, n_bins=5, return_X_y=False):
    """A regression data set with its target binned into ordinal levels.

    Equal-frequency binning into 5 or 10 levels turns regression benchmarks
    into ordinal-regression benchmarks (Chu & Ghahramani, 2005).

    Parameters
    ----------
    name : {"diabetes", "star98"}, default="diabetes"
        ``"diabetes"``: scikit-learn's diabetes progression data (442 x 10,
        bundled with scikit-learn); ``"star98"``: California STAR 1998 school
        results from statsmodels (303 x 20; target: share of pupils above the
        national median in maths).
    n_bins : int, default=5
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of the Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``data`` (ndarray), ``target`` (int levels ``0 .. n_bins-1``),
        ``target_continuous``, ``feature_names``, ``DESCR``.
    (data, target) : tuple
        If ``return_X_y`` is True.

    Examples
    --------
    >>> from lupikit.datasets import load_binned_regression
    >>> d = load_binned_regression("diabetes", n_bins=10)
    >>> d.data.shape, int(d.target.max())
    ((442, 10), 9)
    """
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        raw = load_diabetes()
        X, yc, names = raw.data, raw.target, list(raw.feature_names)
        descr = "scikit-learn diabetes data (Efron et al., 2004), target binned."
    elif name == "star98":
        frame = _statsmodels_datasets().star98.load_pandas().data
        yc = (frame["NABOVE"] / (frame["NABOVE"] + frame["NBELOW"])).to_numpy()
        feats = frame.drop(columns=["NABOVE", "NBELOW"])
        X, names = feats.to_numpy(dtype=float), list(feats.columns)
        descr = "statsmodels star98 (California STAR 1998), share above median, binned."
    else:
        raise ValueError(f"name must be 'diabetes' or 'star98', got {name!r}.")
    if return_X_y:
        return np.asarray(X, dtype=float), bin_target(yc, n_bins)
    return Bunch(
        data=np.asarray(X, dtype=float),
        target=bin_target(yc, n_bins),
        target_continuous=np.asarray(yc, dtype=float),
        feature_names=names,
        DESCR=descr,
    )
