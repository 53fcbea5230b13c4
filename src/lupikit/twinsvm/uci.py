"""The UCI benchmark of Section 5.1 of the paper: Tables 1-3 and Figure 4.

The data (:func:`load_uci`), the paper's numbers (:data:`TABLE1`,
:data:`TABLE2`, :data:`TABLE3`, :data:`TABLE3_F1`), the five models
(:func:`make_models`), their hyperparameter candidates (:func:`candidates`)
and the whole run (:func:`run_benchmark`) of ``notebooks/twinsvm/uci.ipynb``.

What the paper states of its protocol, and what we do:

- **Tuning.** "Optimal value of c1, c2, gamma, tau, and kernel parameter
  sigma were obtained by using a tuning set comprising of 10 percent of the
  data set which is further sent back to the training dataset."
  :func:`~lupikit.twinsvm.experiments.holdout_tune` holds out a stratified
  10%, scores each candidate trained on the other 90% and keeps the best.
  All five hyperparameters are tuned: ``C1`` and ``C2`` separately (``C``
  for the single-plane SVMs), ``tau`` (pinball models), the correcting
  weight ``correction_weight`` (the paper's gamma; privileged models) and
  the RBF width (``gamma = factor / n_features`` on standardised features,
  i.e. multiples of scikit-learn's ``"scale"``). The paper gives no grid;
  ours is :data:`PAPER_GRID`. Where a model's full grid has more than
  ``n_candidates`` points, that many are drawn at random (without
  replacement) from it, the same draw for every data set: a random search
  on the paper's tuning set instead of an exhaustive one.
- **Evaluation.** "Generalization error was determined by following the
  standard 5-fold cross-validation methodology": stratified 5-fold
  cross-validation of the tuned model on all the rows
  (:func:`~lupikit.twinsvm.experiments.cross_validate_lupi`), accuracy
  (mean and standard deviation over folds), F1 and training time.
- **F1.** The paper's Table 3 gives "F1-measure" for Pin-TWSVM and
  Pin-TWSVMPI without saying how it averages over classes; we report the
  macro average (its values, e.g. 0.63 on Ecoli at 90% accuracy, fit a
  macro average over unequal classes, not a micro one, which equals the
  accuracy).
- **Multi-class.** The paper does not say how its binary models handle the
  two- to seven-class data sets of Table 1. We use one-vs-one (the
  estimators' default, as :class:`sklearn.svm.SVC`), the same for all five
  models.
- **Privileged features.** Principal components of the standardised
  training features keeping 95% of the variance (Section 5.1, after Pal &
  Rastogi), recomputed inside every training set.
- **Missing values** "were replaced by the mean value of their corresponding
  column": none of our copies has any (see the loaders).
"""

import numpy as np
import pandas as pd
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import ParameterGrid, ParameterSampler, StratifiedKFold, StratifiedShuffleSplit

from ..datasets import (load_compound, load_dermatology, load_ecoli, load_glass, load_haberman,
                        load_page_blocks, load_soybean_small, load_zoo)
from ._svm import PinballSVC, SVMPlus
from ._twin import PinballTwinSVC, PrivilegedPinballTwinSVC, PrivilegedTwinSVC
from ..seeding import spawn_seeds
from .experiments import _fold, cross_validate_lupi, holdout_tune

__all__ = [
    "UCI_SETS",
    "NAMES",
    "DATA_FILES",
    "MODELS",
    "TABLE1",
    "TABLE2",
    "TABLE3",
    "TABLE2_STD",
    "TABLE3_STD",
    "TABLE3_F1",
    "PAPER_GRID",
    "load_uci",
    "make_models",
    "candidates",
    "run_benchmark",
    "majority_rate",
    "protocol_draw",
    "tuning_ablation",
    "ablation_summary",
    "all_rows_check",
    "rows_sweep",
    "solver_times",
]

#: The paper's ten UCI data sets (Tables 2 and 3), in its order.
UCI_SETS = ("iris", "compound", "wine", "ecoli", "dermatology", "zoo", "glass", "haberman",
            "soybean", "page_blocks")

#: The names the paper gives them.
NAMES = {"iris": "Iris", "compound": "Compound", "wine": "Wine", "ecoli": "Ecoli",
         "dermatology": "Dermatology", "zoo": "Zoo", "glass": "Glass", "haberman": "Haberman",
         "soybean": "Soybean", "page_blocks": "Page Block"}

#: The data-home file each data set needs (the others are vendored or scikit-learn's).
DATA_FILES = {"compound": "uci/compound.arff", "soybean": "uci/soybean-small.data"}

#: The five models of Tables 2 and 3, in the paper's column order.
MODELS = ("SVMPI", "TWSVMPI", "Pin-SVM", "Pin-TWSVM", "Pin-TWSVMPI")

#: Table 1: (instances, features, classes) as the paper gives them (no row for Glass).
TABLE1 = {"iris": (150, 4, 3), "compound": (399, 2, 6), "wine": (178, 13, 3),
          "ecoli": (327, 7, 5), "dermatology": (358, 34, 6), "zoo": (101, 17, 7),
          "haberman": (303, 3, 2), "soybean": (47, 35, 4), "page_blocks": (5473, 10, 5)}

#: Table 2 (linear kernel): mean 5-fold accuracy (%) of the :data:`MODELS`.
TABLE2 = {
    "iris": (95.65, 95.66, 95.89, 96.24, 98.01),
    "compound": (81.72, 82.02, 82.31, 82.78, 84.78),
    "wine": (95.45, 96.00, 96.12, 96.45, 97.54),
    "ecoli": (82.28, 82.76, 82.88, 83.04, 85.68),
    "dermatology": (93.01, 94.52, 94.21, 94.04, 95.98),
    "zoo": (91.65, 92.00, 92.41, 93.00, 94.31),
    "glass": (55.69, 56.66, 56.40, 56.68, 58.62),
    "haberman": (70.02, 70.16, 71.67, 71.74, 73.88),
    "soybean": (97.64, 100.00, 98.86, 100.00, 100.00),
    "page_blocks": (88.14, 90.47, 89.74, 90.11, 92.14),
}

#: Table 3 (RBF kernel): mean 5-fold accuracy (%) of the :data:`MODELS`.
TABLE3 = {
    "iris": (96.61, 96.66, 96.78, 97.04, 98.85),
    "compound": (96.41, 97.21, 96.87, 97.85, 98.93),
    "wine": (98.12, 98.85, 98.45, 98.81, 98.96),
    "ecoli": (87.63, 88.00, 87.94, 88.50, 90.11),
    "dermatology": (94.89, 95.71, 95.00, 95.78, 96.88),
    "zoo": (94.00, 95.00, 94.15, 95.45, 96.79),
    "glass": (62.84, 63.33, 63.04, 63.84, 65.61),
    "haberman": (75.16, 75.40, 75.64, 76.14, 77.78),
    "soybean": (100.00, 100.00, 100.00, 100.00, 100.00),
    "page_blocks": (91.76, 92.74, 90.75, 92.74, 94.45),
}

#: Table 2 (linear kernel): the standard deviations (over the folds, %) it gives beside :data:`TABLE2`.
TABLE2_STD = {
    "iris": (4.36, 4.21, 3.01, 3.87, 2.87),
    "compound": (4.07, 5.05, 4.87, 5.41, 3.66),
    "wine": (3.54, 3.58, 5.30, 4.65, 3.86),
    "ecoli": (3.35, 5.87, 4.77, 5.01, 4.68),
    "dermatology": (3.76, 2.64, 2.22, 4.02, 3.38),
    "zoo": (3.43, 3.14, 3.65, 2.06, 2.11),
    "glass": (4.11, 5.07, 4.78, 4.54, 2.94),
    "haberman": (4.12, 4.89, 3.36, 5.04, 3.03),
    "soybean": (1.08, 0.00, 2.11, 0.00, 0.00),
    "page_blocks": (1.21, 0.88, 1.34, 1.23, 0.21),
}

#: Table 3 (RBF kernel): the standard deviations (over the folds, %) it gives beside :data:`TABLE3`.
TABLE3_STD = {
    "iris": (3.36, 5.32, 3.12, 4.01, 4.08),
    "compound": (3.98, 5.74, 5.78, 5.14, 3.08),
    "wine": (3.74, 4.02, 2.65, 3.78, 4.14),
    "ecoli": (4.87, 4.97, 5.47, 4.68, 4.67),
    "dermatology": (3.14, 2.78, 2.74, 3.47, 2.09),
    "zoo": (3.54, 3.28, 3.78, 5.09, 4.08),
    "glass": (3.12, 4.47, 2.68, 4.65, 3.88),
    "haberman": (4.08, 5.21, 4.98, 6.06, 4.67),
    "soybean": (0.00, 0.00, 0.00, 0.00, 0.00),
    "page_blocks": (1.87, 1.44, 2.07, 1.21, 1.00),
}

#: Table 3 (RBF kernel): F1 of Pin-TWSVM and Pin-TWSVMPI (none for Soybean).
TABLE3_F1 = {"iris": (0.75, 0.80), "compound": (0.75, 0.80), "wine": (0.7105, 0.8840),
             "ecoli": (0.6042, 0.6291), "dermatology": (0.7584, 0.8045),
             "zoo": (0.7202, 0.8211), "glass": (0.5980, 0.6333),
             "haberman": (0.5043, 0.5539), "page_blocks": (0.7986, 0.8655)}

#: Our grid for the paper preset (the paper gives none). ``gamma`` holds factors
#: of ``1 / n_features`` (the RBF width on standardised features).
PAPER_GRID = {"C": (0.01, 0.1, 1.0, 10.0, 100.0), "tau": (0.1, 0.5, 1.0),
              "correction_weight": (0.1, 1.0, 10.0), "gamma": (0.25, 1.0, 4.0)}

_LOADERS = {"compound": load_compound, "ecoli": load_ecoli, "dermatology": load_dermatology,
            "zoo": load_zoo, "glass": load_glass, "haberman": load_haberman,
            "soybean": load_soybean_small, "page_blocks": load_page_blocks}


def load_uci(name, *, data_home=None, max_samples=None, random_state=0):
    """``(X, y)`` of one of the paper's UCI data sets, as Table 1 uses it.

    Parameters
    ----------
    name : str
        One of :data:`UCI_SETS`.
    data_home : str or path-like, default=None
        For Compound and Soybean (see :func:`lupikit.datasets.fetch_file`).
    max_samples : int or None, default=None
        Keep a stratified random subsample of at most this many rows (None:
        all rows).
    random_state : int, default=0
        Seed of the subsample.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)

    Examples
    --------
    >>> from lupikit.twinsvm.uci import load_uci
    >>> X, y = load_uci("ecoli")
    >>> X.shape
    (327, 7)
    >>> load_uci("page_blocks", max_samples=500)[0].shape
    (500, 10)
    """
    if name not in UCI_SETS:
        raise ValueError(f"name must be one of {list(UCI_SETS)}, got {name!r}.")
    if max_samples is not None and (isinstance(max_samples, bool)
                                    or not isinstance(max_samples, (int, np.integer))
                                    or max_samples < 2):
        raise ValueError(f"max_samples must be None or an integer >= 2, got {max_samples!r}.")
    if name == "iris":
        X, y = load_iris(return_X_y=True)
    elif name == "wine":
        X, y = load_wine(return_X_y=True)
    elif name in DATA_FILES:
        X, y = _LOADERS[name](data_home=data_home, download_if_missing=False, return_X_y=True)
    else:
        X, y = _LOADERS[name](return_X_y=True)
    if max_samples is not None and max_samples < len(y):
        split = StratifiedShuffleSplit(n_splits=1, train_size=max_samples,
                                       random_state=random_state)
        idx = np.sort(next(split.split(X, y))[0])
        X, y = X[idx], y[idx]
    return X, y


def make_models(kernel, *, solver="smo"):
    """The five models of Tables 2 and 3 with one kernel, by the paper's names.

    Parameters
    ----------
    kernel : {"linear", "rbf"}
    solver : {"smo", "cvxopt"}, default="smo"

    Returns
    -------
    dict
        ``{"SVMPI": SVMPlus, "TWSVMPI": PrivilegedTwinSVC, "Pin-SVM":
        PinballSVC, "Pin-TWSVM": PinballTwinSVC, "Pin-TWSVMPI":
        PrivilegedPinballTwinSVC}``, one-vs-one for more than two classes.

    Examples
    --------
    >>> from lupikit.twinsvm.uci import make_models
    >>> list(make_models("linear"))
    ['SVMPI', 'TWSVMPI', 'Pin-SVM', 'Pin-TWSVM', 'Pin-TWSVMPI']
    """
    if kernel not in ("linear", "rbf"):
        raise ValueError(f"kernel must be 'linear' or 'rbf', got {kernel!r}.")
    kw = dict(kernel=kernel, solver=solver, multi_class="ovo")
    return {
        "SVMPI": SVMPlus(**kw),
        "TWSVMPI": PrivilegedTwinSVC(**kw),
        "Pin-SVM": PinballSVC(**kw),
        "Pin-TWSVM": PinballTwinSVC(**kw),
        "Pin-TWSVMPI": PrivilegedPinballTwinSVC(**kw),
    }


def _model_grid(model, kernel, n_features, grid):
    twin = model in ("TWSVMPI", "Pin-TWSVM", "Pin-TWSVMPI")
    space = {"C1": list(grid["C"]), "C2": list(grid["C"])} if twin else {"C": list(grid["C"])}
    if model.startswith("Pin-"):
        space["tau"] = list(grid["tau"])
    if model.endswith("PI"):
        space["correction_weight"] = list(grid["correction_weight"])
    if kernel == "rbf":
        space["gamma"] = [float(f) / n_features for f in grid["gamma"]]
    return space


def candidates(model, kernel, n_features, grid, *, n_candidates=None, random_state=0):
    """The hyperparameter candidates of one model, for :func:`~lupikit.twinsvm.experiments.holdout_tune`.

    Parameters
    ----------
    model : str
        One of :data:`MODELS`.
    kernel : {"linear", "rbf"}
    n_features : int
        Number of features (the RBF widths are ``factor / n_features``).
    grid : dict
        Values of ``"C"`` (both ``C1`` and ``C2`` of the twin models),
        ``"tau"``, ``"correction_weight"`` and ``"gamma"`` (factors), as
        :data:`PAPER_GRID`; each model uses the keys it has.
    n_candidates : int or None, default=None
        At most this many candidates: a random draw without replacement from
        the model's full grid when it is larger (None: the full grid).
    random_state : int, default=0
        Seed of the draw.

    Returns
    -------
    list of dict
        One dict of one-element lists per candidate, in the full grid's
        order (so that ties on the tuning set go to the earlier one).

    Examples
    --------
    >>> from lupikit.twinsvm.uci import candidates
    >>> grid = {"C": [0.1, 1.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    >>> candidates("Pin-SVM", "linear", 4, grid)
    [{'C': [0.1], 'tau': [0.5]}, {'C': [1.0], 'tau': [0.5]}]
    >>> len(candidates("Pin-TWSVMPI", "rbf", 4, grid, n_candidates=3))
    3
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {list(MODELS)}, got {model!r}.")
    space = _model_grid(model, kernel, n_features, grid)
    full = list(ParameterGrid(space))
    if n_candidates is not None and n_candidates < len(full):
        drawn = list(ParameterSampler(space, n_iter=n_candidates, random_state=random_state))
        order = {tuple(sorted(p.items())): i for i, p in enumerate(full)}
        full = sorted(drawn, key=lambda p: order[tuple(sorted(p.items()))])
    return [{k: [v] for k, v in p.items()} for p in full]


def run_benchmark(datasets, kernels, grid, *, n_candidates=None, max_samples=None, seed=0,
                  n_jobs=None, solver="smo", data_home=None):
    """Tune and cross-validate the five models on UCI data sets (Tables 2 and 3).

    Parameters
    ----------
    datasets : list of str
        Among :data:`UCI_SETS`.
    kernels : list of str
        Among ``"linear"`` (Table 2) and ``"rbf"`` (Table 3).
    grid : dict
        See :func:`candidates`.
    n_candidates : int or None, default=None
        See :func:`candidates`.
    max_samples : int or None, default=None
        Stratified subsample of the larger data sets (see :func:`load_uci`).
    seed : int, default=0
        Seed of the tuning split, the folds, the subsample and the draw of
        candidates.
    n_jobs : int or None, default=None
        Fits in parallel (joblib); the results do not depend on it.
    solver : {"smo", "cvxopt"}, default="smo"
    data_home : str or path-like, default=None
        For Compound and Soybean.

    Returns
    -------
    pandas.DataFrame
        One row per (kernel, data set, model): ``acc`` and ``std`` (mean and
        standard deviation over folds, %), ``f1`` (macro, mean over folds),
        ``time`` (mean training time per fold, seconds), ``params`` (the
        tuned hyperparameters), ``n_candidates``, ``unconverged_folds``
        (folds whose dual solver stopped at ``max_iter``) and
        ``collapsed_folds`` (folds with a plane collapsed to w = 0).

    Examples
    --------
    >>> from lupikit.twinsvm.uci import run_benchmark
    >>> grid = {"C": [0.1], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    >>> res = run_benchmark(["iris"], ["linear"], grid)
    >>> res.shape[0], bool(res["acc"].min() > 80)
    (5, True)
    """
    records = []
    for name in datasets:
        X, y = load_uci(name, data_home=data_home, max_samples=max_samples, random_state=seed)
        for kernel in kernels:
            for model, est in make_models(kernel, solver=solver).items():
                cands = candidates(model, kernel, X.shape[1], grid, n_candidates=n_candidates,
                                   random_state=seed)
                best = holdout_tune(est, cands, X, y, random_state=seed, n_jobs=n_jobs)
                res = cross_validate_lupi(est.set_params(**best), X, y, random_state=seed,
                                          n_jobs=n_jobs)
                records.append({
                    "kernel": kernel, "dataset": name, "model": model,
                    "acc": 100 * res["accuracy"].mean(), "std": 100 * res["accuracy"].std(),
                    "f1": res["f1"].mean(), "time": res["fit_time"].mean(), "params": best,
                    "n_candidates": len(cands),
                    "unconverged_folds": int((res["n_convergence_warnings"] > 0).sum()),
                    "collapsed_folds": int((res["n_collapsed_planes"] > 0).sum()),
                })
    return pd.DataFrame(records)


def majority_rate(y, *, n_splits=None, random_state=0):
    """The accuracy (%) of the constant classifier that predicts the most frequent class.

    With ``n_splits``, its mean accuracy over the stratified folds of
    :func:`~lupikit.twinsvm.experiments.cross_validate_lupi` (the same
    ``random_state``), each fold predicting the majority class of its
    training rows: the floor a model's cross-validated accuracy must beat.

    Examples
    --------
    >>> from lupikit.twinsvm.uci import load_uci, majority_rate
    >>> y = load_uci("haberman")[1]
    >>> float(round(majority_rate(y), 2)), float(round(majority_rate(y, n_splits=5), 3))
    (73.53, 73.533)
    """
    y = np.asarray(y)
    if n_splits is None:
        _, counts = np.unique(y, return_counts=True)
        return 100.0 * counts.max() / counts.sum()
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    accs = []
    for tr, te in cv.split(np.zeros((len(y), 1)), y):
        labels, counts = np.unique(y[tr], return_counts=True)
        accs.append(np.mean(y[te] == labels[np.argmax(counts)]))
    return 100.0 * float(np.mean(accs))


def protocol_draw(name, *, max_samples=None, seed=0, data_home=None):
    """What one seed of :func:`run_benchmark` draws on a data set: its rows, tuning set and folds.

    For :meth:`lupikit.claims.Claims.draws`: the rows kept (the subsample of
    :func:`load_uci`, all rows otherwise), the 10% tuning set of
    :func:`~lupikit.twinsvm.experiments.holdout_tune` and the test fold of
    every row in the stratified 5-fold cross-validation, all of ``seed``.

    Returns
    -------
    ndarray of int
        The kept rows' indices, then a 0/1 tuning-set mark and the test fold
        (0 to 4) of each kept row.

    Examples
    --------
    >>> from lupikit.twinsvm.uci import protocol_draw
    >>> d0, d1 = protocol_draw("iris", seed=0), protocol_draw("iris", seed=1)
    >>> d0.shape, bool((d0 == protocol_draw("iris", seed=0)).all()), bool((d0 == d1).all())
    ((450,), True, False)
    """
    from sklearn.model_selection import train_test_split

    _, y_all = load_uci(name, data_home=data_home)
    rows = np.arange(len(y_all))
    if max_samples is not None and max_samples < len(y_all):
        split = StratifiedShuffleSplit(n_splits=1, train_size=max_samples, random_state=seed)
        rows = np.sort(next(split.split(np.zeros((len(y_all), 1)), y_all))[0])
    y = y_all[rows]
    tune = np.zeros(len(y), dtype=int)
    tune[train_test_split(np.arange(len(y)), test_size=0.1, stratify=y, random_state=seed)[1]] = 1
    fold = np.zeros(len(y), dtype=int)
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    for k, (_, te) in enumerate(cv.split(np.zeros((len(y), 1)), y)):
        fold[te] = k
    return np.r_[rows, tune, fold]


def tuning_ablation(name, kernel, grid, *, n_candidates=None, max_samples=None, seed=0, n_jobs=None,
                    solver="smo", data_home=None, models=MODELS):
    """Every candidate of every model scored by 5-fold cross-validation: the tuning ablation.

    For one (data set, kernel) pair and each model, the same number of
    candidates (its full grid, or ``n_candidates`` drawn as in
    :func:`candidates`, the draw of :func:`run_benchmark`) is scored twice by
    stratified 5-fold cross-validation on all the rows: on the evaluation
    folds of :func:`run_benchmark` (``seed``), and on other folds, the
    tuning criterion, whose seed is a child of ``SeedSequence(seed)`` (stream
    ``"ablation tuning folds"``, :func:`lupikit.seeding.spawn_seeds`), so
    that no two seeds share the tuning folds or the evaluation folds. Two protocols follow (see
    :func:`ablation_summary`): *cv-tuned* (each model takes the candidate
    with the best accuracy on the other folds, then is scored on the
    evaluation folds; an equal budget for every model, tuned on all the rows
    rather than on 10% of them) and *oracle* (each model takes the candidate
    with the best accuracy on the evaluation folds themselves: an upper bound
    of what any tuning protocol can reach with these candidates).

    Returns
    -------
    pandas.DataFrame
        One row per (model, candidate): ``model``, ``params``, ``acc_eval``
        and ``acc_tune`` (mean accuracy, %, over the evaluation folds and over
        the tuning folds).

    Examples
    --------
    >>> from lupikit.twinsvm.uci import tuning_ablation, ablation_summary
    >>> grid = {"C": [0.1, 1.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    >>> scores = tuning_ablation("iris", "linear", grid, models=("Pin-SVM",))
    >>> len(scores), sorted(ablation_summary(scores).columns)
    (2, ['cv_tuned', 'oracle'])
    """
    X, y = load_uci(name, data_home=data_home, max_samples=max_samples, random_state=seed)
    tune_seed = spawn_seeds(seed, 1, stream="ablation tuning folds")[0]
    all_models = make_models(kernel, solver=solver)
    rows = []
    for model in models:
        est = all_models[model]
        for cand in candidates(model, kernel, X.shape[1], grid, n_candidates=n_candidates,
                               random_state=seed):
            params = {k: v[0] for k, v in cand.items()}
            fitted = est.set_params(**params)
            acc = [100 * cross_validate_lupi(fitted, X, y, random_state=s, n_jobs=n_jobs)["accuracy"].mean()
                   for s in (seed, tune_seed)]
            rows.append({"model": model, "params": params, "acc_eval": acc[0], "acc_tune": acc[1]})
    return pd.DataFrame(rows)


def all_rows_check(results, name, kernel="linear", *, models=("Pin-TWSVM", "Pin-TWSVMPI"), seed=0,
                   n_jobs=None, solver="smo", data_home=None):
    """The models tuned on a subsample, cross-validated on all the rows of the data set.

    :func:`run_benchmark` may run a large data set on a stratified subsample
    (``max_samples``: Page Blocks' 5,472 rows cut to 500). This takes each
    model's hyperparameters as the benchmark tuned them on the subsample
    (``results``, its frame) and scores them by stratified 5-fold
    cross-validation on every row (folds of ``seed``), which tells how far
    the subsample moves the accuracy the tables compare. Tuning on all the
    rows too would fit every candidate on about 4,900 rows.

    Parameters
    ----------
    results : pandas.DataFrame
        A :func:`run_benchmark` frame that holds ``(kernel, name, model)``.
    name : str
        One of :data:`UCI_SETS`.
    kernel : {"linear", "rbf"}, default="linear"
    models : tuple of str, default=("Pin-TWSVM", "Pin-TWSVMPI")
        Among :data:`MODELS`.
    seed : int, default=0
        Seed of the folds.
    n_jobs : int or None, default=None
        Folds fitted in parallel (joblib).
    solver : {"smo", "cvxopt"}, default="smo"
    data_home : str or path-like, default=None

    Returns
    -------
    pandas.DataFrame
        One row per model, indexed by model: ``acc`` and ``std`` (mean and
        standard deviation over the folds, %), ``f1``, ``time`` (mean
        training time per fold, seconds), ``params``, ``n_rows``,
        ``unconverged_folds`` and ``collapsed_folds`` (folds in which a
        binary problem's plane collapsed to w = 0: see
        :class:`~lupikit.twinsvm.DegeneratePlaneWarning`).

    Examples
    --------
    >>> from lupikit.twinsvm.uci import all_rows_check, run_benchmark
    >>> grid = {"C": [1.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    >>> res = run_benchmark(["iris"], ["linear"], grid, max_samples=100)
    >>> full = all_rows_check(res, "iris", models=("Pin-TWSVMPI",))
    >>> int(full.loc["Pin-TWSVMPI", "n_rows"]), bool(full.loc["Pin-TWSVMPI", "acc"] > 80)
    (150, True)
    """
    unknown = sorted(set(models) - set(MODELS))
    if unknown:
        raise ValueError(f"models names unknown models {unknown}; choose among {list(MODELS)}.")
    keys = ["kernel", "dataset", "model"]
    if results.duplicated(keys).any():
        raise ValueError("results holds several rows for one (kernel, dataset, model); pass the frame of one "
                         "run_benchmark call (one seed).")
    tuned = results.set_index(keys)["params"]
    missing = [m for m in models if (kernel, name, m) not in tuned.index]
    if missing:
        raise ValueError(f"results holds no ({kernel!r}, {name!r}) row for {missing}: run run_benchmark "
                         f"on {name!r} with the {kernel} kernel first.")
    X, y = load_uci(name, data_home=data_home)
    all_models = make_models(kernel, solver=solver)
    rows = {}
    for model in models:
        params = tuned[(kernel, name, model)]
        res = cross_validate_lupi(all_models[model].set_params(**params), X, y, random_state=seed,
                                  n_jobs=n_jobs)
        rows[model] = {"acc": 100 * res["accuracy"].mean(), "std": 100 * res["accuracy"].std(),
                       "f1": res["f1"].mean(), "time": res["fit_time"].mean(), "params": params,
                       "n_rows": len(y), "unconverged_folds": int((res["n_convergence_warnings"] > 0).sum()),
                       "collapsed_folds": int((res["n_collapsed_planes"] > 0).sum())}
    return pd.DataFrame.from_dict(rows, orient="index")


def rows_sweep(results, name, kernel="linear", *, model="Pin-TWSVMPI", sizes=(400, 1000, 2000), seed=0,
               solver="smo", data_home=None):
    """The hyperparameters tuned on a subsample, refitted on ever more rows of one fold.

    :func:`all_rows_check` scores the hyperparameters that
    :func:`run_benchmark` tuned on a subsample on every row of the data set.
    Where they do much worse there, this tells whether the number of rows is
    the cause: the first of the stratified 5 folds of ``seed`` (the folds of
    :func:`all_rows_check`) keeps its test rows, and the model, with the same
    hyperparameters, is fitted on stratified draws of ``sizes`` of its
    training rows and on all of them. Each fit reports its accuracy on the
    fold's test rows and the binary problems whose plane collapsed to w = 0
    (:class:`~lupikit.twinsvm.DegeneratePlaneWarning`).

    Parameters
    ----------
    results : pandas.DataFrame
        A :func:`run_benchmark` frame (one seed) that holds ``(kernel, name, model)``.
    name : str
        One of :data:`UCI_SETS`.
    kernel : {"linear", "rbf"}, default="linear"
    model : str, default="Pin-TWSVMPI"
        One of :data:`MODELS`.
    sizes : sequence of int, default=(400, 1000, 2000)
        Numbers of training rows (each at least the number of classes), drawn
        from the fold's training rows; a size too large to draw is left out.
        All the fold's training rows are always fitted, last.
    seed : int, default=0
        Seed of the folds and of the draws of rows.
    solver : {"smo", "cvxopt"}, default="smo"
    data_home : str or path-like, default=None

    Returns
    -------
    pandas.DataFrame
        One row per number of training rows (its index, ``n_train``):
        ``acc`` (% on the fold's test rows), ``f1`` (macro), ``collapsed``
        (binary problems with a collapsed plane), ``time`` (seconds) and
        ``unconverged`` (ConvergenceWarnings of the fit).

    Examples
    --------
    >>> from lupikit.twinsvm.uci import rows_sweep, run_benchmark
    >>> grid = {"C": [1.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    >>> res = run_benchmark(["iris"], ["linear"], grid, max_samples=100)
    >>> sweep = rows_sweep(res, "iris", sizes=(60,))
    >>> sweep.index.tolist(), bool((sweep["collapsed"] == 0).all())
    ([60, 120], True)
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {list(MODELS)}, got {model!r}.")
    tuned = results.set_index(["kernel", "dataset", "model"])["params"]
    if (kernel, name, model) not in tuned.index:
        raise ValueError(f"results holds no ({kernel!r}, {name!r}, {model!r}) row: run run_benchmark "
                         f"on {name!r} with the {kernel} kernel first.")
    X, y = load_uci(name, data_home=data_home)
    n_classes = np.unique(y).size
    bad = [n for n in sizes if not isinstance(n, (int, np.integer)) or n < n_classes]
    if bad:
        raise ValueError(f"sizes must be integers of at least the number of classes ({n_classes}), got {bad}.")
    train, test = next(StratifiedKFold(n_splits=5, shuffle=True, random_state=seed).split(X, y))
    est = make_models(kernel, solver=solver)[model].set_params(**tuned[(kernel, name, model)])
    uses_priv = getattr(est, "_uses_privileged", False)
    rows = {}
    # (a draw must leave at least a row of each class out of it)
    for n in [int(n) for n in sorted(set(sizes)) if n <= train.size - n_classes] + [train.size]:
        fit_rows = train if n == train.size else train[next(StratifiedShuffleSplit(
            n_splits=1, train_size=n, random_state=seed).split(train, y[train]))[0]]
        acc, f1, seconds, n_not_converged, n_collapsed = _fold(est, X, y, fit_rows, test, 0.95, uses_priv)
        rows[n] = {"acc": 100 * acc, "f1": f1, "collapsed": int(n_collapsed), "time": seconds,
                   "unconverged": int(n_not_converged)}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "n_train"
    return out


def ablation_summary(scores):
    """Per model, the evaluation accuracy (%) under the *cv-tuned* and the *oracle* protocols.

    ``scores`` is a :func:`tuning_ablation` frame; ties in the tuning
    accuracy go to the earlier candidate (the grid's order), as in
    :func:`~lupikit.twinsvm.experiments.holdout_tune`.
    """
    out = {}
    for model, sub in scores.groupby("model", sort=False):
        pick = sub["acc_tune"].to_numpy()
        chosen = int(np.flatnonzero(pick >= pick.max() - 1e-9)[0])
        out[model] = {"cv_tuned": float(sub["acc_eval"].iloc[chosen]), "oracle": float(sub["acc_eval"].max())}
    return pd.DataFrame(out).T


def solver_times(results, *, solver="cvxopt", max_samples=None, seed=0, data_home=None, models=MODELS):
    """Mean training time per fold (s) of the tuned models of ``results``, refitted with another solver.

    ``results`` is a :func:`run_benchmark` frame; each of its (kernel, data
    set, model) rows among ``models`` is cross-validated again (the same
    folds, the same tuned hyperparameters) with ``solver``. Returns a copy of
    those rows whose ``time`` is the new one (and ``acc``, for the record).

    Examples
    --------
    >>> from lupikit.twinsvm.uci import run_benchmark, solver_times
    >>> grid = {"C": [0.1], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    >>> res = run_benchmark(["iris"], ["linear"], grid)
    >>> solver_times(res, models=("Pin-SVM",)).shape[0]
    1
    """
    rows = []
    data = {}
    for _, row in results[results["model"].isin(models)].iterrows():
        if row["dataset"] not in data:
            data[row["dataset"]] = load_uci(row["dataset"], data_home=data_home, max_samples=max_samples,
                                            random_state=seed)
        X, y = data[row["dataset"]]
        est = make_models(row["kernel"], solver=solver)[row["model"]].set_params(**row["params"])
        res = cross_validate_lupi(est, X, y, random_state=seed)
        new = row.copy()
        new["time"], new["acc"] = res["fit_time"].mean(), 100 * res["accuracy"].mean()
        rows.append(new)
    return pd.DataFrame(rows).reset_index(drop=True)
