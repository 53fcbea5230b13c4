"""Model selection on the UCI benchmark: full grids, equal budgets, and what moves a tuned accuracy.

The UCI notebook gives every model 15 candidates, drawn at random from its
grid: the whole grid of SVM+ and Pin-SVM with the linear kernel, 15 of
Pin-TWSVMPI's 225 (linear) or 675 (RBF). This module removes that
inequality and measures what it leaves:

- :func:`grid_scores` scores *every* candidate of each model's own full grid
  by stratified 5-fold cross-validation on all the rows, on the evaluation
  folds and on other folds (the tuning criterion). With
  :func:`lupikit.twinsvm.uci.ablation_summary` it gives each model the same
  budget, its whole grid, tuned by cross-validation (*cv-tuned*), and the
  full-grid *oracle* (the candidate best on the evaluation folds
  themselves): no tuning protocol over the grid can do better.
- :func:`draw_effects` separates the two random draws of one run of the
  paper's protocol (a 10% tuning set and 15 candidates, then 5-fold
  cross-validation): a crossed design of fold draws (the tuning split and
  the folds) and candidate draws, and :func:`variance_components` the
  two-way analysis of variance of that table.
"""

import numpy as np
import pandas as pd
from scipy import stats

from ..seeding import spawn_seeds
from .experiments import cross_validate_lupi, holdout_tune
from .uci import MODELS, candidates, load_uci, make_models

__all__ = ["grid_scores", "draw_effects", "variance_components"]


def grid_scores(name, kernel, grid, *, models=MODELS, tuning_folds=True, max_samples=None, seed=0,
                n_jobs=None, solver="smo", data_home=None):
    """Every candidate of each model's full grid, scored by 5-fold cross-validation on all the rows.

    Parameters
    ----------
    name : str
        One of :data:`lupikit.twinsvm.uci.UCI_SETS`.
    kernel : {"linear", "rbf"}
    grid : dict
        As :data:`lupikit.twinsvm.uci.PAPER_GRID`; each model takes its own
        full grid of it (:func:`lupikit.twinsvm.uci.candidates` with no
        ``n_candidates``).
    models : sequence of str, default=MODELS
    tuning_folds : bool, default=True
        Score each candidate on a second set of folds too (the tuning
        criterion of the *cv-tuned* protocol). False scores the evaluation
        folds only (enough for the oracle), at half the cost.
    max_samples : int or None, default=None
        Stratified subsample of a larger data set (see
        :func:`lupikit.twinsvm.uci.load_uci`).
    seed : int, default=0
        Seed of the evaluation folds (as in
        :func:`lupikit.twinsvm.uci.run_benchmark`); the tuning folds' seed is
        a child of ``SeedSequence(seed)`` (stream ``"full-grid tuning
        folds"``).
    n_jobs : int or None, default=None
        Folds fitted in parallel (joblib); the scores do not depend on it.
    solver : {"smo", "cvxopt"}, default="smo"
    data_home : str or path-like, default=None

    Returns
    -------
    pandas.DataFrame
        One row per (model, candidate): ``model``, ``params``, ``acc_eval``
        and, with ``tuning_folds``, ``acc_tune`` (mean accuracy over the
        folds, %).

    Examples
    --------
    >>> from lupikit.twinsvm.selection import grid_scores
    >>> from lupikit.twinsvm.uci import ablation_summary
    >>> grid = {"C": [0.1, 1.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    >>> scores = grid_scores("iris", "linear", grid, models=("Pin-SVM", "Pin-TWSVM"))
    >>> scores.groupby("model", sort=False).size().to_dict()
    {'Pin-SVM': 2, 'Pin-TWSVM': 4}
    >>> sorted(ablation_summary(scores).columns)
    ['cv_tuned', 'oracle']
    """
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        raise ValueError(f"models names unknown models {unknown}; choose among {list(MODELS)}.")
    X, y = load_uci(name, data_home=data_home, max_samples=max_samples, random_state=seed)
    fold_seeds = [seed] + (spawn_seeds(seed, 1, stream="full-grid tuning folds") if tuning_folds else [])
    estimators = make_models(kernel, solver=solver)
    rows = []
    for model in models:
        for cand in candidates(model, kernel, X.shape[1], grid):
            params = {k: v[0] for k, v in cand.items()}
            est = estimators[model].set_params(**params)
            acc = [100 * cross_validate_lupi(est, X, y, random_state=s, n_jobs=n_jobs)["accuracy"].mean()
                   for s in fold_seeds]
            row = {"model": model, "params": params, "acc_eval": acc[0]}
            if tuning_folds:
                row["acc_tune"] = acc[1]
            rows.append(row)
    return pd.DataFrame(rows)


def draw_effects(name, kernel, grid, *, model="Pin-TWSVMPI", n_candidates=15, n_fold_draws=5,
                 n_candidate_draws=5, seed=0, n_jobs=None, solver="smo", data_home=None):
    """The paper's protocol run on a crossed design of fold draws and candidate draws.

    One run of the protocol of :func:`lupikit.twinsvm.uci.run_benchmark`
    draws two things: the 10% tuning split with the five folds (one
    ``random_state``), and the ``n_candidates`` candidates from the model's
    grid (another). Here every fold draw meets every candidate draw: cell
    ``(i, j)`` tunes on the candidates of draw ``j`` with the tuning split of
    draw ``i``, then cross-validates the chosen model on the folds of draw
    ``i``. Holding a row fixed varies the candidates only; holding a column
    fixed varies the folds only.

    Parameters
    ----------
    name : str
    kernel : {"linear", "rbf"}
    grid : dict
        As :data:`lupikit.twinsvm.uci.PAPER_GRID`.
    model : str, default="Pin-TWSVMPI"
    n_candidates : int, default=15
        Candidates per draw (the UCI notebook's budget).
    n_fold_draws, n_candidate_draws : int, default=5
        Rows and columns of the design (each at least 2).
    seed : int, default=0
        The draws' seeds are children of ``SeedSequence(seed)`` (streams
        ``"fold draws"`` and ``"candidate draws"``).
    n_jobs : int or None, default=None
    solver : {"smo", "cvxopt"}, default="smo"
    data_home : str or path-like, default=None

    Returns
    -------
    pandas.DataFrame
        Accuracy (%, mean over the five folds) with one row per fold draw
        and one column per candidate draw.

    Examples
    --------
    >>> from lupikit.twinsvm.selection import draw_effects
    >>> grid = {"C": [0.1, 1.0, 10.0], "tau": [0.5], "correction_weight": [1.0], "gamma": [1.0]}
    >>> table = draw_effects("iris", "linear", grid, model="Pin-SVM", n_candidates=2,
    ...                      n_fold_draws=2, n_candidate_draws=2)
    >>> table.shape, bool(table.to_numpy().min() > 80)
    ((2, 2), True)
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {list(MODELS)}, got {model!r}.")
    if min(n_fold_draws, n_candidate_draws) < 2:
        raise ValueError("n_fold_draws and n_candidate_draws must be at least 2 (a variance needs two draws), "
                         f"got {n_fold_draws} and {n_candidate_draws}.")
    if n_candidates < 1:
        raise ValueError(f"n_candidates must be at least 1, got {n_candidates}.")
    X, y = load_uci(name, data_home=data_home)
    fold_seeds = spawn_seeds(seed, n_fold_draws, stream="fold draws")
    cand_seeds = spawn_seeds(seed, n_candidate_draws, stream="candidate draws")
    est = make_models(kernel, solver=solver)[model]
    draws = [candidates(model, kernel, X.shape[1], grid, n_candidates=n_candidates, random_state=s)
             for s in cand_seeds]
    table = np.empty((n_fold_draws, n_candidate_draws))
    for i, fs in enumerate(fold_seeds):
        for j, cands in enumerate(draws):
            best = holdout_tune(est, cands, X, y, random_state=fs, n_jobs=n_jobs)
            res = cross_validate_lupi(est.set_params(**best), X, y, random_state=fs, n_jobs=n_jobs)
            table[i, j] = 100 * res["accuracy"].mean()
    return pd.DataFrame(table, index=pd.RangeIndex(n_fold_draws, name="fold draw"),
                        columns=pd.RangeIndex(n_candidate_draws, name="candidate draw"))


def variance_components(table):
    """Two-way analysis of variance (one value per cell) of a rows × columns table.

    The model is ``a_ij = mu + r_i + c_j + e_ij`` with random row and column
    effects; the interaction is not separable from the residual with one
    value per cell. The variance components are the unbiased
    method-of-moments estimates (they can be negative when an effect is
    absent); the F tests compare each effect's mean square with the
    residual's.

    Parameters
    ----------
    table : array-like of shape (n_rows, n_cols)
        At least 2 × 2.

    Returns
    -------
    dict
        ``ms_rows``, ``ms_cols``, ``ms_resid`` (mean squares), ``var_rows``,
        ``var_cols``, ``var_resid`` (variance components), ``p_rows``,
        ``p_cols`` (F-test p-values) and ``share_rows``, ``share_cols`` (each
        component, floored at zero, over their sum).

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.twinsvm.selection import variance_components
    >>> t = np.add.outer([0.0, 0.0, 0.0], [0.0, 3.0, 6.0]) + np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]])
    >>> vc = variance_components(t)
    >>> bool(vc["var_cols"] > vc["var_rows"]), bool(vc["p_cols"] < 0.05)
    (True, True)
    """
    a = np.asarray(table, dtype=float)
    if a.ndim != 2 or min(a.shape) < 2 or not np.isfinite(a).all():
        raise ValueError(f"table must be a finite 2-D array of at least 2 x 2, got shape {a.shape}.")
    r, c = a.shape
    grand = a.mean()
    row_eff, col_eff = a.mean(axis=1) - grand, a.mean(axis=0) - grand
    resid = a - grand - row_eff[:, None] - col_eff[None, :]
    df_r, df_c, df_e = r - 1, c - 1, (r - 1) * (c - 1)
    ms_r = c * (row_eff ** 2).sum() / df_r
    ms_c = r * (col_eff ** 2).sum() / df_c
    ms_e = (resid ** 2).sum() / df_e
    with np.errstate(divide="ignore", invalid="ignore"):
        p_r = float(stats.f.sf(ms_r / ms_e, df_r, df_e)) if ms_e > 0 else float(ms_r == 0)
        p_c = float(stats.f.sf(ms_c / ms_e, df_c, df_e)) if ms_e > 0 else float(ms_c == 0)
    var_r, var_c = (ms_r - ms_e) / c, (ms_c - ms_e) / r
    parts = np.maximum([var_r, var_c, ms_e], 0.0)
    total = parts.sum()
    share = parts / total if total > 0 else np.zeros(3)
    return {"ms_rows": float(ms_r), "ms_cols": float(ms_c), "ms_resid": float(ms_e),
            "var_rows": float(var_r), "var_cols": float(var_c), "var_resid": float(ms_e),
            "p_rows": p_r, "p_cols": p_c, "share_rows": float(share[0]), "share_cols": float(share[1])}
