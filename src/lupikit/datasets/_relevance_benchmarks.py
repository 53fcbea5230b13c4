"""The synthetic ordinal benchmark of the relevance paper (Part III), with the truth.

The authors of Part III's paper (Pfannschmidt et al.) published the settings
of their synthetic feature-selection experiments with their package ``fri``;
this module regenerates data of the same kind with our own code:

- :func:`make_fri_ordinal` -- the generative model of their ordinal toy data
  (``genOrdinalRegressionData`` of ``fri`` 7.x, since 8.0 in the PyPI package
  ``arfs-gen``, which ``fri`` 9.0.0 imports), any size;
- :func:`make_ordinal_benchmark` -- their numbered "Sets" (``FRI_SETS``).

What the published settings say (read from the authors' repositories
``lpfann/fri``, tag ``esann_paper_experiments``, and
``lpfann/squamish_experiments``, folder ``runner/``; facts only, no code):

- Sets 1-5 (the table of the ESANN script ``experiments4.py``, the same in
  ``runner/experiment_pipeline.py``), as ``(n, strong, weak, irrelevant)``:
  (150, 6, 0, 6), (150, 0, 6, 6), (150, 3, 4, 3), (256, 6, 6, 6),
  (512, 1, 2, 11). ``squamish_experiments`` adds Set 6 (200, 1, 20, 0),
  Set 7 (200, 1, 20, 20) and Set 8 (2000, 10, 10, 50), used there for
  *classification* data; here they are generated as ordinal data.
- One standard-normal latent per strongly relevant feature and one per group
  of weakly relevant features (one group holding all of them unless a
  partition is given); the real-valued target is ``0.3 * sum of the latents``
  (no noise), cut into ``n_target_bins = 3`` equal-frequency classes (each
  ``floor(n / 3)`` samples, the remainder to the top class).
- A strongly relevant feature is its latent; a weakly relevant feature is its
  group's latent plus a constant drawn from ``U(1, 2)``; an irrelevant one is
  standard normal; the rows are shuffled. The experiment scripts standardise
  ``X`` (``StandardScaler``) before every method.

The generator of the 2018 ESANN tag itself was older: a weak feature was its
latent *times* a factor from ``U(-1, 1)`` and the target came from
``sklearn.datasets.make_regression`` (random coefficients). After
standardisation a constant shift vanishes and a factor only flips the sign,
so the two differ in the target's coefficients and in those signs only.
"""

import numbers

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ._info import DatasetInfo

__all__ = ["FRI_SETS", "make_fri_ordinal", "make_ordinal_benchmark", "CATALOG"]

#: The authors' synthetic sets, ``set_id -> (n_samples, n_strong, n_weak, n_irrelevant)``.
#: Sets 1-5: the ordinal feature-selection table of Part III's experiments; Sets 6-8:
#: the larger sets of ``squamish_experiments`` (classification there).
FRI_SETS = {
    1: (150, 6, 0, 6),
    2: (150, 0, 6, 6),
    3: (150, 3, 4, 3),
    4: (256, 6, 6, 6),
    5: (512, 1, 2, 11),
    6: (200, 1, 20, 0),
    7: (200, 1, 20, 20),
    8: (2000, 10, 10, 50),
}

#: Coefficient of every latent in the real-valued target.
LATENT_COEF = 0.3
#: Range of the constant that shifts each weakly relevant feature.
WEAK_SHIFT = (1.0, 2.0)

_SOURCE = ("Pfannschmidt et al.'s published experiment settings: repositories lpfann/fri "
           "(tag esann_paper_experiments, experiments4.py; generator fri/toydata/gen_data.py "
           "of fri 7.x, PyPI arfs-gen 1.2) and lpfann/squamish_experiments (runner/)")


def _count(value, name, minimum=0):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def _partition(partition, n_weak):
    """Sizes of the groups of weakly relevant features (each sharing one latent)."""
    if partition is None:
        if n_weak == 1:
            raise ValueError("n_weak must be 0 or at least 2: a weakly relevant feature needs "
                             "another one that can replace it (one alone would be strongly "
                             "relevant).")
        return [n_weak] if n_weak else []
    if isinstance(partition, (str, bytes)) or not hasattr(partition, "__iter__"):
        raise TypeError(f"partition must be a sequence of group sizes, got {partition!r}.")
    sizes = [_count(s, "every group size in partition", 2) for s in partition]
    if sum(sizes) != n_weak:
        raise ValueError(f"partition must add up to n_weak={n_weak}, got {list(partition)} "
                         f"(sum {sum(sizes)}).")
    return sizes


def _describe(n_samples, n_strong, n_weak, n_irrelevant, n_classes, sizes, noise, standardize,
              title):
    return (
        f"{title}\n\n"
        f"n = {n_samples} samples, {n_strong} strongly relevant, {n_weak} weakly relevant "
        f"(groups of sizes {sizes}), {n_irrelevant} irrelevant features, in that column order; "
        f"{n_classes} ordinal classes.\n\n"
        "Generative model: one N(0, 1) latent per strongly relevant feature and per group of "
        f"weakly relevant features; target {LATENT_COEF} * (sum of the latents) cut into "
        f"{n_classes} equal-frequency classes (floor(n / {n_classes}) samples each, the "
        "remainder to the top class); a strongly relevant feature is its latent, a weakly "
        f"relevant one its group's latent plus a constant from U{WEAK_SHIFT}, an irrelevant one "
        "N(0, 1); rows shuffled"
        + (f"; Gaussian noise of standard deviation {noise} added to every feature" if noise
           else "")
        + ("; every column standardised (mean 0, standard deviation 1), as the authors' "
           "experiments do before fitting" if standardize else "")
        + f".\n\nSource: {_SOURCE}. Our own code; the random stream differs from theirs."
    )


def make_fri_ordinal(n_samples=150, n_strong=3, n_weak=4, n_irrelevant=3, *, n_classes=3,
                     partition=None, noise=0.0, standardize=True, random_state=None,
                     return_X_y=True):
    r"""Ordinal data of the relevance paper's synthetic benchmark, with the truth.

    The generative model of the authors' ``genOrdinalRegressionData``
    (``fri`` 7.x / ``arfs-gen``), written anew::

        L  (n_strong + n_groups latents)  i.i.d. N(0, 1)
        t  = 0.3 * sum_k L_k                          (no noise on the target)
        y  = equal-frequency class of t in 0 .. n_classes - 1
        X  = [L_strong,                               strongly relevant
              L_g + c_j, c_j ~ U(1, 2)                weakly relevant, j in group g
              N(0, 1)]                                irrelevant

    then the rows are shuffled, optional feature noise is added and the
    columns are standardised. After standardisation the members of a group of
    weakly relevant features are *identical* columns (a constant shift
    vanishes): any one of them can stand in for the others, so each is weakly
    relevant; with ``noise=0`` the classes are a deterministic function of the
    latents.

    Parameters
    ----------
    n_samples : int, default=150
        At least ``n_classes``.
    n_strong : int, default=3
        Strongly relevant features.
    n_weak : int, default=4
        Weakly relevant features (0, or at least 2).
    n_irrelevant : int, default=3
        Irrelevant features.
    n_classes : int, default=3
        Ordinal classes (the authors' ``n_target_bins``).
    partition : sequence of int or None, default=None
        Sizes (each at least 2) of the groups of weakly relevant features that
        share a latent; ``None``: one group of all of them (the authors'
        default).
    noise : float, default=0.0
        Standard deviation of Gaussian noise added to every feature before
        standardisation (the authors' ``noise``; 0 in their experiments).
    standardize : bool, default=True
        Standardise the columns, as the authors' experiment scripts do.
    random_state : int, RandomState instance or None, default=None
    return_X_y : bool, default=True
        ``False`` returns a :class:`~sklearn.utils.Bunch` instead.

    Returns
    -------
    X : ndarray of shape (n_samples, n_strong + n_weak + n_irrelevant)
    y : ndarray of int of shape (n_samples,)
        Classes ``0 .. n_classes - 1``.
    relevance : ndarray of int of shape (n_features,)
        The truth: 2 strongly relevant, 1 weakly relevant, 0 irrelevant; the
        relevant mask the paper scores against is ``relevance > 0``.
    data : Bunch
        With ``return_X_y=False``: ``data``, ``target``, ``relevance``,
        ``relevant`` (the boolean mask), ``groups`` (group index of each
        weakly relevant feature, -1 elsewhere), ``feature_names`` and
        ``DESCR``.

    Raises
    ------
    ValueError
        If a size is not a non-negative integer, there is no relevant
        feature, ``n_weak`` is 1, ``partition`` does not add up to ``n_weak``
        or ``n_samples < n_classes``.

    Examples
    --------
    >>> from lupikit.datasets import make_fri_ordinal
    >>> X, y, relevance = make_fri_ordinal(n_samples=150, n_strong=3, n_weak=4,
    ...                                    n_irrelevant=3, random_state=0)
    >>> X.shape, np.bincount(y).tolist(), relevance.tolist()
    ((150, 10), [50, 50, 50], [2, 2, 2, 1, 1, 1, 1, 0, 0, 0])
    >>> bool(np.allclose(X[:, 3], X[:, 6]))  # one group: identical after standardisation
    True
    """
    n_samples = _count(n_samples, "n_samples", 2)
    n_strong = _count(n_strong, "n_strong")
    n_weak = _count(n_weak, "n_weak")
    n_irrelevant = _count(n_irrelevant, "n_irrelevant")
    n_classes = _count(n_classes, "n_classes", 2)
    if n_strong + n_weak == 0:
        raise ValueError("n_strong + n_weak must be positive: the target needs a relevant "
                         "feature.")
    if n_samples < n_classes:
        raise ValueError(f"n_samples={n_samples} is fewer than n_classes={n_classes}: every "
                         "class needs a sample.")
    if not isinstance(noise, numbers.Real) or isinstance(noise, bool) or not noise >= 0 \
            or not np.isfinite(noise):
        raise ValueError(f"noise must be a finite non-negative number, got {noise!r}.")
    if not isinstance(standardize, (bool, np.bool_)):
        raise TypeError(f"standardize must be True or False, got {standardize!r}.")
    sizes = _partition(partition, n_weak)
    rng = check_random_state(random_state)

    latents = rng.standard_normal((n_samples, n_strong + len(sizes)))
    target = LATENT_COEF * latents.sum(axis=1)
    # equal-frequency classes: floor(n / k) samples per class, the remainder to the top one
    order = np.argsort(target, kind="stable")
    per_class = n_samples // n_classes
    y = np.empty(n_samples, dtype=np.int64)
    y[order] = np.minimum(np.arange(n_samples) // per_class, n_classes - 1)

    groups = np.repeat(np.arange(len(sizes)), sizes).astype(int)
    weak = latents[:, n_strong + groups] + rng.uniform(*WEAK_SHIFT, size=n_weak)
    irrelevant = rng.standard_normal((n_samples, n_irrelevant))
    X = np.hstack([latents[:, :n_strong], weak, irrelevant])
    rows = rng.permutation(n_samples)
    X, y = X[rows], y[rows]
    if noise:
        X = X + noise * rng.standard_normal(X.shape)
    if standardize:
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    relevance = np.array([2] * n_strong + [1] * n_weak + [0] * n_irrelevant, dtype=int)
    if return_X_y:
        return X, y, relevance
    names = ([f"strong_{k}" for k in range(n_strong)]
             + [f"weak_{g}_{k}" for g, s in enumerate(sizes) for k in range(s)]
             + [f"irrelevant_{k}" for k in range(n_irrelevant)])
    return Bunch(
        data=X, target=y, relevance=relevance, relevant=relevance > 0,
        groups=np.r_[-np.ones(n_strong, int), groups, -np.ones(n_irrelevant, int)],
        feature_names=names,
        DESCR=_describe(n_samples, n_strong, n_weak, n_irrelevant, n_classes, sizes, noise,
                        standardize, "Synthetic ordinal data of the relevance paper's benchmark"),
    )


def make_ordinal_benchmark(set_id, *, random_state=None, return_X_y=True, **kwargs):
    """One of the authors' synthetic sets (``FRI_SETS``), as ordinal data.

    Parameters
    ----------
    set_id : int
        1 to 8. Sets 1-5 are the feature-selection benchmark of Part III's
        paper; Sets 6-8 the larger sets of the authors' later experiments.
    random_state : int, RandomState instance or None, default=None
        The repetition: each seed draws a new data set of the same kind.
    return_X_y : bool, default=True
        As in :func:`make_fri_ordinal`.
    **kwargs
        Further arguments of :func:`make_fri_ordinal` (``n_classes``,
        ``partition``, ``noise``, ``standardize``).

    Returns
    -------
    X, y, relevance or Bunch
        As :func:`make_fri_ordinal`.

    Examples
    --------
    >>> from lupikit.datasets import make_ordinal_benchmark
    >>> X, y, relevance = make_ordinal_benchmark(5, random_state=0)
    >>> X.shape, np.bincount(relevance).tolist()
    ((512, 14), [11, 2, 1])
    """
    if isinstance(set_id, bool) or not isinstance(set_id, numbers.Integral) \
            or int(set_id) not in FRI_SETS:
        raise ValueError(f"set_id must be one of {sorted(FRI_SETS)}, got {set_id!r}.")
    sizes = {"n_samples", "n_strong", "n_weak", "n_irrelevant"} & set(kwargs)
    if sizes:
        raise TypeError(f"make_ordinal_benchmark fixes {sorted(sizes)} by set_id; call "
                        "make_fri_ordinal for other sizes.")
    n, strong, weak, irrelevant = FRI_SETS[int(set_id)]
    out = make_fri_ordinal(n, strong, weak, irrelevant, random_state=random_state,
                           return_X_y=return_X_y, **kwargs)
    if not return_X_y:
        out.DESCR = out.DESCR.replace("Synthetic ordinal data of the relevance paper's benchmark",
                                      f"Set {int(set_id)} of the relevance paper's synthetic "
                                      "benchmark", 1)
    return out


_PREPROCESSING = (
    "Generated, not loaded: one N(0, 1) latent per strongly relevant feature and per group of "
    "weakly relevant features; target 0.3 * sum of the latents cut into 3 equal-frequency "
    "classes; weakly relevant features are their group's latent plus a constant from U(1, 2), "
    "irrelevant ones N(0, 1); rows shuffled, columns standardised. Truth: strong and weak "
    "features are relevant.")

CATALOG = [
    DatasetInfo(
        f"Synthetic Set {k}", ("relevance",), "make_ordinal_benchmark",
        source="generated: " + _SOURCE, licence="generated (no licence needed)",
        preprocessing=_PREPROCESSING,
        kwargs={"set_id": k, "random_state": 0, "return_X_y": False},
        paper_shape=f"n = {n}; {s} strong, {w} weak, {i} irrelevant",
        roles="ground truth of feature relevance: strongly relevant, weakly relevant "
              "(a group of copies of one latent), irrelevant")
    for k, (n, s, w, i) in FRI_SETS.items() if k <= 5
] + [
    DatasetInfo(
        "Synthetic Set 8 (large)", ("relevance",), "make_ordinal_benchmark",
        source="generated: " + _SOURCE, licence="generated (no licence needed)",
        preprocessing=_PREPROCESSING,
        kwargs={"set_id": 8, "random_state": 0, "return_X_y": False},
        paper_shape="n = 2000; 10 strong, 10 weak, 50 irrelevant (the authors' later, "
                    "classification experiments; used by benchmarks/bench_relevance.py)",
        roles="ground truth of feature relevance, as for Sets 1-5"),
]
