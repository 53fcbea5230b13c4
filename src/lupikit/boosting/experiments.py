"""The protocol of the Part I notebooks (``notebooks/boosting``): repeated-split comparisons.

Helpers for reproducing the experiments of Yan et al. (2023), not estimators:

- :func:`compare_models` fits a dictionary of estimators on repeated
  stratified splits of a task of :func:`~lupikit.datasets.load_privileged_task`
  and scores them (AUC-ROC, precision, recall, accuracy and the fairness
  metrics of :mod:`lupikit.metrics`); :func:`compare_on_tasks` does it for
  several tasks, skipping (and saying why) those whose data-home files are
  missing;
- :func:`metric_table` is Table 2 / Table 3 (mean ± standard deviation over
  the splits), :func:`paired_test` the paired test over the splits of one
  data set, :func:`count_wins` the paper's counts ("improvement on 18 of 19
  data sets", ...), :func:`across_datasets` the Wilcoxon signed-rank test
  over data sets and :func:`gain_correlation` the Pearson correlation of the
  privileged-only AUC with the gains;
- the ablations of the notebooks: :func:`tuned_comparison` (alpha and the
  number of trees chosen per data set on a validation split shared by NF,
  KbPIB and JPIB, all fitted on the same rows, without JPIB's private
  early-stopping hold-out), :func:`select_on_validation` and
  :func:`proxy_ablation` (how well ``X`` predicts the sensitive attribute,
  and KbPIB with its strongest proxies removed).

The estimators are in :mod:`lupikit.boosting`.
"""

import numbers
import os

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.metrics import accuracy_score, precision_score, recall_score, roc_auc_score
from scipy import stats
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.validation import check_memory

from .._progress import progress as show_progress
from ._hist import predict_margin
from ._privileged import PrivilegedBoostingClassifier
from ..datasets import load_privileged_task, task_status
from ..metrics import (
    beta_dependence,
    demographic_parity_difference,
    equalized_odds_difference,
)

__all__ = ["compare_models", "compare_on_tasks", "metric_table", "paired_test", "count_wins", "split_draws",
           "guard_margin",
           "across_datasets", "gain_correlation", "tuned_comparison", "select_on_validation",
           "variable_groups", "proxy_ablation", "PAPER_COUNTS"]

#: The counts of Yan et al. (2023) over their 19 data sets (Sec. 4, Tables 2 and 3):
#: ``key: (count, n)``.
PAPER_COUNTS = {
    "auc_improved": (18, 19),          # KbPIB or JPIB above NF in AUC
    "precision_and_recall": (6, 19),   # KbPIB or JPIB above NF in precision and in recall
    "jpib_above_kbpib": (10, 19),      # JPIB's AUC above KbPIB's
    "jpib_at_least_kbpib": (14, 19),   # ... at least as high
    "jpib_precision_above": (10, 19),  # JPIB's precision above KbPIB's
    "jpib_precision_at_least": (11, 19),
    "jpib_recall_above": (6, 19),
    "jpib_recall_at_least": (7, 19),
}


def _top_rate(proba, rate):
    """Predict positive for the ``round(rate * n)`` highest scores."""
    k = int(round(rate * len(proba)))
    pred = np.zeros(len(proba), dtype=int)
    pred[np.argsort(-proba, kind="stable")[:k]] = 1
    return pred


def _score(y, proba, sensitive, base_rate):
    pred = (proba >= 0.5).astype(int)
    row = {
        "auc": roc_auc_score(y, proba),
        "precision": precision_score(y, pred, zero_division=0.0),
        "recall": recall_score(y, pred, zero_division=0.0),
        "accuracy": accuracy_score(y, pred),
        "positive_rate": float(pred.mean()),
    }
    if sensitive is not None:
        row["dp_diff"] = demographic_parity_difference(pred, sensitive)
        row["eo_diff"] = equalized_odds_difference(y, pred, sensitive)
        row["e_beta"] = beta_dependence(pred, sensitive)
        # the same metrics when every model predicts the training base rate
        pred_b = _top_rate(proba, base_rate)
        row["dp_diff_at_base_rate"] = demographic_parity_difference(pred_b, sensitive)
        row["eo_diff_at_base_rate"] = equalized_odds_difference(y, pred_b, sensitive)
        row["e_beta_at_base_rate"] = beta_dependence(pred_b, sensitive)
    return row


def _fit_predict(est, X_train, y_train, Xs_train, X_test):
    """Fit a clone of ``est`` (with ``privileged_features=Xs_train`` unless None) and predict P(y = 1) on ``X_test``.

    A pure function of its arguments, so that :func:`compare_models` can cache
    it on disk (``memory``): another notebook fitting the same estimator on the
    same rows reads the predictions back instead of fitting again.
    """
    m = clone(est)
    kw = {} if Xs_train is None else {"privileged_features": Xs_train}
    m.fit(X_train, y_train, **kw)
    return m.predict_proba(X_test)[:, 1]


def _one_split(models, task, tr, te, rep, privileged_only, memory):
    X, Xs, y, S = task.X, task.X_star, task.y, task.sensitive
    S_te = None if S is None else S[te]
    fit_predict = memory.cache(_fit_predict)
    # the split's rows, taken once for all the models
    X_tr, Xs_tr, y_tr, X_te = X[tr], Xs[tr], y[tr], X[te]
    rows = []
    for name, est in models.items():
        if privileged_only and name == privileged_only:
            proba = fit_predict(est, Xs_tr, y_tr, None, Xs[te])
        else:
            params = est.get_params()
            uses_priv = "teacher" in params or params.get("mode", "nf") != "nf"
            proba = fit_predict(est, X_tr, y_tr, Xs_tr if uses_priv else None, X_te)
        rows.append({"dataset": task.name, "model": name, "rep": rep, "train_rows": _rows_hash(tr),
                     **_score(y[te], proba, S_te, float(np.mean(y_tr)))})
    return rows


def _rows_hash(rows):
    """12 hex digits of a split's training row indices (what the split drew)."""
    import hashlib

    return hashlib.blake2b(np.ascontiguousarray(np.asarray(rows, dtype=np.int64)).tobytes(),
                           digest_size=6).hexdigest()


def split_draws(results):
    """What each split (replication) of :func:`compare_on_tasks` drew: one item per split.

    A split draws the training rows of every data set; the item is the
    sorted ``"dataset:hash"`` strings of its training rows (``train_rows``),
    for :meth:`lupikit.claims.Claims.draws`.

    Examples
    --------
    >>> import pandas as pd
    >>> res = pd.DataFrame({"dataset": ["a", "a", "b"], "rep": [0, 1, 0], "train_rows": ["x", "y", "z"]})
    >>> [d.tolist() for d in split_draws(res)]
    [['a:x', 'b:z'], ['a:y']]
    """
    out = []
    for _, part in results.groupby("rep", sort=True):
        pairs = part[["dataset", "train_rows"]].drop_duplicates()
        out.append(np.array(sorted(f"{d}:{h}" for d, h in zip(pairs["dataset"], pairs["train_rows"]))))
    return out


def guard_margin(auc_model, auc_plain, positive_rate, base_rate, *, auc_tolerance=0.01, rate_tolerance=0.5):
    """How far a model stays from buying a fairness gain by predicting one class (>= 0: it does not).

    The smaller of two normalised margins: the AUC's, ``(auc_model - auc_plain
    + auc_tolerance) / auc_tolerance`` (>= 0 where the model's AUC is no more
    than ``auc_tolerance`` below the plain model's), and the positive
    rate's, ``(rate_tolerance - |positive_rate - base_rate| / base_rate) /
    rate_tolerance`` (>= 0 where the rate is within ``rate_tolerance`` of the
    base rate, relatively). Pass ``positive_rate=None`` for a comparison at
    the base rate, where the rate is the base rate by construction.
    Arrays (one entry per data set) give the worst data set.

    Examples
    --------
    >>> round(guard_margin(0.80, 0.805, 0.20, 0.25), 6)
    0.5
    >>> guard_margin(0.80, 0.80, 0.01, 0.25) < 0  # almost nobody predicted positive
    True
    """
    auc = (np.asarray(auc_model, dtype=float) - np.asarray(auc_plain, dtype=float) + auc_tolerance) / auc_tolerance
    worst = float(np.min(auc))
    if positive_rate is not None:
        base = np.asarray(base_rate, dtype=float)
        rel = np.abs(np.asarray(positive_rate, dtype=float) - base) / base
        worst = min(worst, float(np.min((rate_tolerance - rel) / rate_tolerance)))
    return worst


def compare_models(models, task, *, n_repeats=3, test_size=0.3, privileged_only=None,
                   random_state=None, n_jobs=None, progress=False, memory=None):
    """Fit and score several models on repeated stratified splits of a task.

    Parameters
    ----------
    models : dict of str to estimator
        Estimators are cloned for every split. Those that take privileged
        features (a ``teacher`` parameter or ``mode`` other than ``"nf"``)
        receive ``privileged_features=X*`` in ``fit``; all predict from ``X``.
    task : Bunch
        As returned by :func:`~lupikit.datasets.load_privileged_task`.
    n_repeats : int, default=3
        Number of random train/test splits.
    test_size : float, default=0.3
        Test fraction of every split.
    privileged_only : str or None, default=None
        Name of a model in ``models`` to fit and evaluate on ``X*`` instead of
        ``X`` (the "privileged features only" reference of the paper).
    random_state : int, RandomState instance or None, default=None
        Seeds the splits.
    n_jobs : int or None, default=None
        Splits run in parallel with joblib.
    progress : bool, default=False
        Show a tqdm progress bar over the splits (only on a terminal; ``lupikit
        run`` shows it in any case).
    memory : str, path-like, :class:`joblib.Memory` or None, default=None
        Where to cache each fit's test predictions on disk (as scikit-learn's
        ``Pipeline(memory=...)``): a fit of the same estimator (same
        parameters, ``random_state`` included) on the same rows is read back,
        not run again, by this or any later call, in any process. None: no cache.
        The key is the estimator's parameters and the data, not the code that
        fits: use a new folder after upgrading lupikit, XGBoost or
        scikit-learn (``lupikit paper`` names its folder by their versions and
        lupikit's code). An estimator with ``random_state=None`` reads back the
        first draw.

    Returns
    -------
    results : :class:`pandas.DataFrame`
        One row per (model, split) with ``auc``, ``precision``, ``recall``,
        ``accuracy``, ``positive_rate`` (fraction predicted positive) and, if the task has a sensitive attribute, ``dp_diff``,
        ``eo_diff`` and ``e_beta`` at the 0.5 threshold, and the same three
        with suffix ``_at_base_rate`` when each model labels positive the
        same fraction of test rows as the training base rate (its top scores),
        which removes differences in calibration.

    Examples
    --------
    >>> from lupikit.boosting import PrivilegedBoostingClassifier
    >>> from lupikit.boosting.experiments import compare_models
    >>> from lupikit.datasets import load_privileged_task
    >>> task = load_privileged_task("breast_cancer")
    >>> res = compare_models({"NF": PrivilegedBoostingClassifier(mode="nf", n_estimators=20)},
    ...                      task, n_repeats=2, random_state=0)
    >>> res.shape[0]
    2
    """
    if not isinstance(n_repeats, numbers.Integral) or n_repeats < 1:
        raise ValueError(f"n_repeats must be a positive integer, got {n_repeats!r}.")
    if privileged_only is not None and privileged_only not in models:
        raise ValueError(f"privileged_only={privileged_only!r} is not a key of models.")
    memory = check_memory(os.fspath(memory) if isinstance(memory, os.PathLike) else memory)
    sss = StratifiedShuffleSplit(n_splits=n_repeats, test_size=test_size,
                                 random_state=check_random_state(random_state))
    splits = list(sss.split(task.X, task.y))
    bar = show_progress(enumerate(splits), total=n_repeats, desc=str(task.get("name", "task")),
                        enabled=progress)
    out = Parallel(n_jobs=n_jobs)(
        delayed(_one_split)(models, task, tr, te, r, privileged_only, memory) for r, (tr, te) in bar
    )
    return pd.DataFrame([row for rows in out for row in rows])


def compare_on_tasks(models, names, *, n_samples=None, n_repeats=3, test_size=0.3,
                     privileged_only=None, with_privileged=None, keep_missing=False,
                     random_state=None, n_jobs=None, data_home=None, progress=False,
                     verbose=True, memory=None, return_tasks=False):
    """:func:`compare_models` on several tasks; those whose data cannot be read are skipped.

    Parameters
    ----------
    models : dict of str to estimator
        As for :func:`compare_models`.
    names : list of str
        Tasks of :func:`~lupikit.datasets.load_privileged_task`.
    n_samples : int, dict or None, default=None
        Rows subsampled (stratified by the label) from every task (None: all
        rows); a dict gives the number per task name (missing names: all rows).
    n_repeats, test_size, privileged_only, random_state, n_jobs, progress, memory
        As for :func:`compare_models`; every task gets the same ``random_state``.
    with_privileged : str or None, default=None
        Name under which ``models[with_privileged]`` is also fitted on ``X``
        and ``X*`` together (the sensitive attributes used openly: "ALL"
        below), on the same splits; the row's model is ``"ALL"``.
    keep_missing : bool, default=False
        Passed to :func:`~lupikit.datasets.load_privileged_task` (Adult).
    data_home : str or path-like, default=None
        See :func:`~lupikit.datasets.get_data_home`.
    verbose : bool, default=True
        Print every task's shape and description, and why a task is skipped.
    return_tasks : bool, default=False
        Also return ``tasks``, the table of what was run (to show as one table
        instead of the printed lines).

    Returns
    -------
    results : :class:`pandas.DataFrame`
        The rows of :func:`compare_models` for every task that ran.
    skipped : dict of str to str
        The tasks not run, with the reason (:func:`~lupikit.datasets.task_status`:
        the missing file, the folder searched and its public source).
    tasks : :class:`pandas.DataFrame`
        Only with ``return_tasks=True``: one row per task of ``names``, in
        their order, with the rows used, the number of columns of ``X`` and of
        ``X*`` (after encoding), the share of positive labels and the task's
        description, or, for a skipped task, the reason in ``description``
        and missing values elsewhere.

    Examples
    --------
    >>> from lupikit.boosting import PrivilegedBoostingClassifier
    >>> from lupikit.boosting.experiments import compare_on_tasks
    >>> nf = PrivilegedBoostingClassifier(mode="nf", n_estimators=10)
    >>> res, skipped = compare_on_tasks({"NF": nf}, ["german"], n_samples=200, n_repeats=2,
    ...                                 random_state=0, verbose=False)
    >>> res.shape[0], skipped
    (2, {})
    >>> res, skipped, tasks = compare_on_tasks({"NF": nf}, ["german"], n_samples=200, n_repeats=2,
    ...                                        random_state=0, verbose=False, return_tasks=True)
    >>> tasks.loc["german", ["rows", "X columns", "X* columns"]].tolist()
    [200, 56, 3]
    """
    if with_privileged is not None and with_privileged not in models:
        raise ValueError(f"with_privileged={with_privileged!r} is not a key of models.")
    frames, skipped, described = [], {}, {}
    for name in names:
        status = task_status(name, data_home=data_home)
        if status != "ok":
            skipped[name] = status
            described[name] = {"description": f"skipped: {status}"}
            if verbose:
                print(f"{name}: skipped. {status}")
            continue
        n = n_samples.get(name) if isinstance(n_samples, dict) else n_samples
        task = load_privileged_task(name, n_samples=n, random_state=random_state,
                                    keep_missing=keep_missing, data_home=data_home)
        described[name] = {"rows": task.X.shape[0], "X columns": task.X.shape[1],
                           "X* columns": task.X_star.shape[1], "positive": float(np.mean(task.y)),
                           "description": task.DESCR}
        if verbose:
            print(f"{name:19s} X {task.X.shape}, X* {task.X_star.shape}, "
                  f"{task.y.mean():.0%} positive: {task.DESCR}")
        frames.append(compare_models(models, task, n_repeats=n_repeats, test_size=test_size,
                                     privileged_only=privileged_only, random_state=random_state,
                                     n_jobs=n_jobs, progress=progress, memory=memory))
        if with_privileged is not None:
            both = Bunch(**{**task, "X": np.hstack([task.X, task.X_star])})
            res = compare_models({"ALL": models[with_privileged]}, both, n_repeats=n_repeats,
                                 test_size=test_size, random_state=random_state, n_jobs=n_jobs,
                                 progress=progress, memory=memory)
            frames.append(res)
    results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["dataset", "model", "rep"])
    if not return_tasks:
        return results, skipped
    columns = ["rows", "X columns", "X* columns", "positive", "description"]
    tasks = pd.DataFrame.from_dict(described, orient="index").reindex(columns=columns)
    for col in ("rows", "X columns", "X* columns"):
        tasks[col] = tasks[col].astype("Int64")
    tasks.index.name = "data set"
    return results, skipped, tasks


def metric_table(results, metric, *, models=None, datasets=None, decimals=3):
    """Table 2 / Table 3: a metric's mean and standard deviation over the splits.

    Parameters
    ----------
    results : DataFrame
        Rows of :func:`compare_models` (columns ``dataset``, ``model``, ``rep``
        and the metric).
    metric : str
        A column of ``results``, e.g. ``"auc"``.
    models, datasets : list of str or None
        Columns and rows, in this order (None: in order of appearance).
    decimals : int, default=3
        Rounding of the text table.

    Returns
    -------
    mean, sd : DataFrame
        Data sets x models (``sd`` is the sample standard deviation, ddof=1).
    text : DataFrame
        ``"mean ± sd"`` strings.

    Examples
    --------
    >>> import pandas as pd
    >>> from lupikit.boosting.experiments import metric_table
    >>> res = pd.DataFrame({"dataset": ["a"] * 4, "model": ["NF", "KbPIB"] * 2,
    ...                     "rep": [0, 0, 1, 1], "auc": [0.8, 0.82, 0.9, 0.9]})
    >>> metric_table(res, "auc")[2].loc["a", "NF"]
    '0.850 ± 0.071'
    """
    g = results.groupby(["dataset", "model"], sort=False)[metric]
    mean, sd = g.mean().unstack(), g.std().unstack()
    models = list(mean.columns) if models is None else list(models)
    datasets = list(mean.index) if datasets is None else [d for d in datasets if d in mean.index]
    mean, sd = mean.loc[datasets, models], sd.loc[datasets, models]
    fmt = f"{{:.{decimals}f}}"
    text = mean.map(fmt.format) + " ± " + sd.map(fmt.format)
    return mean, sd, text


def paired_test(results, a, b, *, metric="auc", test="t", alternative="greater"):
    """Per data set, a paired test over the splits of model ``a`` against model ``b``.

    Both models are scored on the same train/test splits (``rep``), so the
    test is on the per-split differences ``a - b``.

    Parameters
    ----------
    results : DataFrame
        Rows of :func:`compare_models`.
    a, b : str
        Models.
    metric : str, default="auc"
    test : {"t", "wilcoxon"}, default="t"
        ``"t"``: the paired t-test (:func:`scipy.stats.ttest_1samp` of the
        differences against 0); ``"wilcoxon"``: the Wilcoxon signed-rank
        test (:func:`scipy.stats.wilcoxon`, exact for few splits; with 5
        splits its smallest one-sided p-value is 1/32).
    alternative : {"greater", "less", "two-sided"}, default="greater"
        ``"greater"``: is ``a`` above ``b``?

    Returns
    -------
    DataFrame
        Per data set: ``n`` (splits), ``mean_diff`` and ``pvalue`` (1.0 with
        fewer than two splits or when all differences are 0).

    Examples
    --------
    >>> import pandas as pd
    >>> from lupikit.boosting.experiments import paired_test
    >>> res = pd.DataFrame({"dataset": ["a"] * 6, "model": ["NF", "KbPIB"] * 3,
    ...                     "rep": [0, 0, 1, 1, 2, 2],
    ...                     "auc": [0.80, 0.82, 0.90, 0.91, 0.85, 0.87]})
    >>> round(float(paired_test(res, "KbPIB", "NF").loc["a", "pvalue"]), 3)
    0.019
    """
    if test not in ("t", "wilcoxon"):
        raise ValueError(f"test must be 't' or 'wilcoxon', got {test!r}.")
    wide = results.pivot_table(index=["dataset", "rep"], columns="model", values=metric)
    diff = (wide[a] - wide[b]).dropna()
    rows = {}
    for name, d in diff.groupby(level="dataset", sort=False):
        d = d.to_numpy()
        if len(d) < 2 or np.all(d == 0):
            p = 1.0
        elif test == "t":
            p = float(stats.ttest_1samp(d, 0.0, alternative=alternative).pvalue)
            p = 1.0 if np.isnan(p) else p
        else:
            p = float(stats.wilcoxon(d, alternative=alternative).pvalue)
        rows[name] = {"n": len(d), "mean_diff": float(d.mean()), "pvalue": p}
    order = list(dict.fromkeys(results["dataset"]))
    return pd.DataFrame.from_dict(rows, orient="index").reindex(
        [d for d in order if d in rows])


def count_wins(results, *, datasets=None, level=0.05, decimals=3):
    """The paper's counts over data sets (Sec. 4: "improvement in 18 out of 19 datasets", ...).

    Models ``NF``, ``KbPIB`` and ``JPIB`` must be in ``results``. Means are
    over the splits; "at least as high" compares the means rounded to
    ``decimals`` (the paper's tables print three decimals).

    Parameters
    ----------
    results : DataFrame
        Rows of :func:`compare_models`.
    datasets : list of str or None
        The data sets counted (None: all in ``results``).
    level : float, default=0.05
        Level of the one-sided paired t-tests (:func:`paired_test`) of the
        ``*_significant`` counts.
    decimals : int, default=3

    Returns
    -------
    counts : dict
        ``n`` (data sets) and the counts of the keys of :data:`PAPER_COUNTS`
        (``auc_improved``: KbPIB's or JPIB's mean AUC above NF's;
        ``precision_and_recall``: KbPIB or JPIB above NF in both mean
        precision and mean recall; ``jpib_above_kbpib``,
        ``jpib_at_least_kbpib`` and the same for precision and recall), and
        ``auc_improved_significant`` (KbPIB or JPIB significantly above NF),
        ``jpib_above_kbpib_significant``, ``kbpib_below_nf`` (KbPIB's mean
        AUC below NF's) and ``both_at_least_nf`` (KbPIB and JPIB at least as
        high as NF, rounded).

    Examples
    --------
    >>> import pandas as pd
    >>> from lupikit.boosting.experiments import count_wins
    >>> res = pd.DataFrame({"dataset": ["a"] * 3, "model": ["NF", "KbPIB", "JPIB"], "rep": 0,
    ...                     "auc": [0.80, 0.81, 0.79], "precision": 0.5, "recall": 0.5})
    >>> c = count_wins(res)
    >>> c["n"], c["auc_improved"], c["jpib_above_kbpib"]
    (1, 1, 0)
    """
    if datasets is not None:
        results = results[results["dataset"].isin(list(datasets))]
    mean = results.groupby(["dataset", "model"])[["auc", "precision", "recall"]].mean()

    def m(metric, model):
        return mean[metric].unstack()[model]

    def r(metric, model):
        return m(metric, model).round(decimals)

    auc_nf, auc_kb, auc_jp = m("auc", "NF"), m("auc", "KbPIB"), m("auc", "JPIB")
    higher_pr = [(m("precision", k) > m("precision", "NF")) & (m("recall", k) > m("recall", "NF"))
                 for k in ("KbPIB", "JPIB")]
    sig = {k: paired_test(results, k, "NF")["pvalue"].reindex(auc_nf.index) < level
           for k in ("KbPIB", "JPIB")}
    sig_jk = paired_test(results, "JPIB", "KbPIB")["pvalue"].reindex(auc_nf.index) < level
    counts = {
        "n": int(len(auc_nf)),
        "auc_improved": int(((auc_kb > auc_nf) | (auc_jp > auc_nf)).sum()),
        "precision_and_recall": int((higher_pr[0] | higher_pr[1]).sum()),
        "jpib_above_kbpib": int((auc_jp > auc_kb).sum()),
        "jpib_at_least_kbpib": int((r("auc", "JPIB") >= r("auc", "KbPIB")).sum()),
        "jpib_precision_above": int((m("precision", "JPIB") > m("precision", "KbPIB")).sum()),
        "jpib_precision_at_least": int((r("precision", "JPIB")
                                        >= r("precision", "KbPIB")).sum()),
        "jpib_recall_above": int((m("recall", "JPIB") > m("recall", "KbPIB")).sum()),
        "jpib_recall_at_least": int((r("recall", "JPIB") >= r("recall", "KbPIB")).sum()),
        "auc_improved_significant": int((sig["KbPIB"] | sig["JPIB"]).sum()),
        "jpib_above_kbpib_significant": int(sig_jk.sum()),
        "kbpib_below_nf": int((auc_kb < auc_nf).sum()),
        "both_at_least_nf": int(((r("auc", "KbPIB") >= r("auc", "NF"))
                                 & (r("auc", "JPIB") >= r("auc", "NF"))).sum()),
    }
    return counts


def across_datasets(mean, a, b, *, alternative="greater"):
    """The Wilcoxon signed-rank test over data sets of the mean differences ``a - b``.

    The paper's "improvement on 18 of 19 data sets" is a statement across
    data sets; this is its paired test: each data set contributes the
    difference of the two models' means over its splits, and
    :func:`scipy.stats.wilcoxon` (exact for fewer than 50 data sets without
    ties) tests whether they are centred above 0.

    Parameters
    ----------
    mean : DataFrame
        Data sets x models, e.g. the first output of :func:`metric_table`.
    a, b : str
        Models (columns of ``mean``).
    alternative : {"greater", "less", "two-sided"}, default="greater"

    Returns
    -------
    Bunch
        ``n`` (data sets), ``positive`` (how many differences are > 0),
        ``median_diff``, ``statistic`` and ``pvalue`` (nan with fewer than
        two data sets or when all differences are 0).

    Examples
    --------
    >>> import pandas as pd
    >>> from lupikit.boosting.experiments import across_datasets
    >>> mean = pd.DataFrame({"NF": [0.8, 0.7, 0.9, 0.6, 0.75],
    ...                      "KbPIB": [0.81, 0.72, 0.91, 0.62, 0.76]})
    >>> round(float(across_datasets(mean, "KbPIB", "NF").pvalue), 4)
    0.0312
    """
    d = (mean[a] - mean[b]).dropna().to_numpy()
    p = stat = float("nan")
    if len(d) >= 2 and np.any(d != 0):
        res = stats.wilcoxon(d, alternative=alternative)
        p, stat = float(res.pvalue), float(res.statistic)
    return Bunch(n=int(len(d)), positive=int((d > 0).sum()),
                 median_diff=float(np.median(d)) if len(d) else float("nan"),
                 statistic=stat, pvalue=p)


def gain_correlation(mean, *, privileged="PF", baseline="NF", models=("KbPIB", "JPIB")):
    """Pearson correlation, across data sets, of the privileged-only AUC with each model's gain.

    The paper's measure of "the quality of the privileged information" is
    the AUC of a model trained and tested on ``X*`` alone (``privileged``);
    the gain of a model is its AUC minus the baseline's.

    Parameters
    ----------
    mean : DataFrame
        Data sets x models of mean AUCs (:func:`metric_table`).
    privileged, baseline : str, default="PF", "NF"
    models : tuple of str, default=("KbPIB", "JPIB")

    Returns
    -------
    DataFrame
        Per model: ``r`` (Pearson's r), ``pvalue`` (two-sided, of
        :func:`scipy.stats.pearsonr`) and ``n``; nan with fewer than three
        data sets.

    Examples
    --------
    >>> import pandas as pd
    >>> from lupikit.boosting.experiments import gain_correlation
    >>> mean = pd.DataFrame({"PF": [0.5, 0.6, 0.7, 0.8], "NF": [0.8] * 4,
    ...                      "KbPIB": [0.80, 0.81, 0.82, 0.83], "JPIB": [0.8, 0.8, 0.8, 0.81]})
    >>> gain_correlation(mean)["r"].round(3).tolist()
    [1.0, 0.775]
    """
    rows = {}
    for k in models:
        gain = mean[k] - mean[baseline]
        ok = gain.notna() & mean[privileged].notna()
        n = int(ok.sum())
        r = p = float("nan")
        if n >= 3 and gain[ok].std() > 0 and mean[privileged][ok].std() > 0:
            res = stats.pearsonr(mean[privileged][ok], gain[ok])
            r, p = float(res.statistic), float(res.pvalue)
        rows[k] = {"r": r, "pvalue": p, "n": n}
    return pd.DataFrame.from_dict(rows, orient="index")


def _grid_split(task, tr, te, rep, *, alphas, checkpoints, params, validation_fraction, seed):
    """Fit NF, KbPIB and JPIB (every alpha) once with max(checkpoints) trees on the same rows.

    ``seed`` (a :class:`numpy.random.SeedSequence`, this split's own) draws
    the validation rows."""
    from sklearn.model_selection import train_test_split

    X, Xs, y = task.X, task.X_star, task.y
    fit, val = train_test_split(tr, test_size=validation_fraction, stratify=y[tr],
                                random_state=int(seed.generate_state(1)[0]))
    n_max = max(checkpoints)
    grid = [("NF", 0.0)] + [(m, float(a)) for m in ("KbPIB", "JPIB") for a in alphas]
    # the rows, taken once for all the models
    X_fit, Xs_fit, y_fit, X_val, X_te = X[fit], Xs[fit], y[fit], X[val], X[te]
    rows = []
    for name, a in grid:
        est = PrivilegedBoostingClassifier(mode=name.lower(), alpha=a, n_estimators=n_max,
                                           n_iter_no_change=None, **params)
        kw = {} if name == "NF" else {"privileged_features": Xs_fit}
        est.fit(X_fit, y_fit, **kw)
        Xv, Xt = est._check_X(X_val), est._check_X(X_te)
        for t in checkpoints:
            m_val = predict_margin(est.booster_, Xv, est._init, (0, t))
            m_te = predict_margin(est.booster_, Xt, est._init, (0, t))
            pred = (np.asarray(m_te) > 0).astype(int)
            rows.append({"dataset": task.name, "rep": rep, "model": name, "alpha": a, "n_trees": int(t),
                         "val_auc": roc_auc_score(y[val], m_val), "auc": roc_auc_score(y[te], m_te),
                         "precision": precision_score(y[te], pred, zero_division=0.0),
                         "recall": recall_score(y[te], pred, zero_division=0.0)})
    return rows


def tuned_comparison(task, *, alphas=(0.25, 1.0, 4.0), checkpoints=(25, 50, 100, 200), n_repeats=3,
                     test_size=0.3, validation_fraction=0.2, max_depth=3, learning_rate=0.1,
                     random_state=0, n_jobs=None):
    """NF, KbPIB and JPIB on the same rows, over a grid of alpha and numbers of trees.

    The splits are those of :func:`compare_models` with the same
    ``random_state`` and ``n_repeats``. In every split the training rows are
    cut once more (stratified, drawn from that split's own child of
    ``numpy.random.SeedSequence(random_state)``) into fitting rows and a validation part,
    shared by all models; each model is fitted once per alpha on the fitting
    rows with ``max(checkpoints)`` trees, without early stopping (JPIB's
    private hold-out is off), and scored after each checkpoint's number of
    trees (the first ``t`` trees of a boosted model are the ``t``-tree
    model: no tree depends on a later one). NF has the alpha 0.

    Parameters
    ----------
    task : Bunch
        As returned by :func:`~lupikit.datasets.load_privileged_task`.
    alphas : sequence of float, default=(0.25, 1.0, 4.0)
        KL weights of KbPIB and JPIB (each > 0 for a model that uses ``X*``).
    checkpoints : sequence of int, default=(25, 50, 100, 200)
        Numbers of trees scored.
    n_repeats, test_size, random_state, n_jobs
        As for :func:`compare_models` (``random_state`` an int).
    validation_fraction : float, default=0.2
        Fraction of the training rows held out for the choice.
    max_depth, learning_rate : int, float
        Tree settings of all models.

    Returns
    -------
    DataFrame
        One row per (split, model, alpha, number of trees): ``val_auc`` on
        the validation rows, ``auc``, ``precision`` and ``recall`` (at 0.5)
        on the test rows. :func:`select_on_validation` makes the tuned models.

    Examples
    --------
    >>> from lupikit.boosting.experiments import tuned_comparison
    >>> from lupikit.datasets import load_privileged_task
    >>> task = load_privileged_task("german", n_samples=300, random_state=0)
    >>> grid = tuned_comparison(task, alphas=(1.0,), checkpoints=(5, 10), n_repeats=2)
    >>> grid.shape[0]  # 2 splits x (NF, KbPIB, JPIB) x 2 checkpoints
    12
    """
    if not isinstance(random_state, numbers.Integral):
        raise ValueError(f"random_state must be an int, got {random_state!r}.")
    if not checkpoints or min(checkpoints) < 1:
        raise ValueError(f"checkpoints must be positive integers, got {checkpoints!r}.")
    sss = StratifiedShuffleSplit(n_splits=n_repeats, test_size=test_size,
                                 random_state=check_random_state(random_state))
    params = dict(max_depth=max_depth, learning_rate=learning_rate, random_state=random_state, n_jobs=1)
    # each split's validation rows from its own child of random_state
    seeds = np.random.SeedSequence(random_state).spawn(n_repeats)
    out = Parallel(n_jobs=n_jobs)(
        delayed(_grid_split)(task, tr, te, r, alphas=tuple(alphas), checkpoints=tuple(sorted(checkpoints)),
                             params=params, validation_fraction=validation_fraction, seed=seeds[r])
        for r, (tr, te) in enumerate(sss.split(task.X, task.y)))
    return pd.DataFrame([row for rows in out for row in rows])


def select_on_validation(grid):
    """Per split and model, the (alpha, number of trees) with the best validation AUC.

    Ties go to the smaller alpha, then to fewer trees.

    Parameters
    ----------
    grid : DataFrame
        Rows of :func:`tuned_comparison` (possibly of several data sets).

    Returns
    -------
    DataFrame
        One row per (dataset, model, rep), in the format of
        :func:`compare_models` (``auc``, ``precision``, ``recall`` on the
        test rows), with the chosen ``alpha`` and ``n_trees``.

    Examples
    --------
    >>> import pandas as pd
    >>> from lupikit.boosting.experiments import select_on_validation
    >>> grid = pd.DataFrame({"dataset": "a", "rep": 0, "model": "KbPIB", "alpha": [1.0, 1.0, 4.0],
    ...                      "n_trees": [10, 20, 10], "val_auc": [0.7, 0.8, 0.8], "auc": [0.6, 0.7, 0.9]})
    >>> select_on_validation(grid)[["alpha", "n_trees", "auc"]].values.tolist()
    [[1.0, 20.0, 0.7]]
    """
    ordered = grid.assign(_neg=-grid["val_auc"]).sort_values(
        ["dataset", "model", "rep", "_neg", "alpha", "n_trees"], kind="stable")
    best = ordered.groupby(["dataset", "model", "rep"], sort=False).head(1).drop(columns="_neg")
    return best.reset_index(drop=True)


def variable_groups(X, names):
    """Group one-hot columns back into the variables they encode.

    A column with values in {0, 1} (NaN allowed) named ``<variable>_<level>``
    belongs to ``<variable>`` when another such column shares that prefix
    (the longest shared prefix ending at an underscore); every other column
    is its own variable.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    names : sequence of str

    Returns
    -------
    list of str
        The variable of every column.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.boosting.experiments import variable_groups
    >>> X = np.array([[30, 1, 0, 2], [40, 0, 1, 3]], dtype=float)
    >>> variable_groups(X, ["age", "marital_status_Married", "marital_status_Never", "education_num"])
    ['age', 'marital_status', 'marital_status', 'education_num']
    """
    X = np.asarray(X, dtype=float)
    binary = [bool(np.all(np.isin(c[~np.isnan(c)], (0.0, 1.0)))) for c in X.T]
    out = []
    for j, name in enumerate(names):
        var = name
        if binary[j]:
            parts = name.split("_")
            for k in range(len(parts) - 1, 0, -1):
                prefix = "_".join(parts[:k]) + "_"
                if any(binary[i] and i != j and names[i].startswith(prefix) for i in range(len(names))):
                    var = prefix[:-1]
                    break
        out.append(var)
    return out


def _proxy_split(task, tr, te, rep, *, n_proxies, groups, alpha, params):

    X, Xs, y, S = task.X, task.X_star, task.y, task.sensitive
    base = float(np.mean(y[tr]))
    s_model = PrivilegedBoostingClassifier(mode="nf", **params).fit(X[tr], S[tr])
    s_auc = roc_auc_score(S[te], s_model.predict_proba(X[te])[:, 1])
    gain = s_model.booster_.get_score(importance_type="total_gain")
    by_var = pd.Series(0.0, index=list(dict.fromkeys(groups)))
    for key, g in gain.items():
        by_var[groups[int(key[1:])]] += g
    removed = list(by_var.sort_values(ascending=False, kind="stable").index[:n_proxies])
    keep = np.array([g not in removed for g in groups])
    s_red = PrivilegedBoostingClassifier(mode="nf", **params).fit(X[tr][:, keep], S[tr])
    row = {"dataset": task.name, "rep": rep, "s_auc": s_auc,
           "s_auc_reduced": roc_auc_score(S[te], s_red.predict_proba(X[te][:, keep])[:, 1]),
           "removed": ", ".join(removed)}
    for name, mode in (("NF", "nf"), ("KbPIB", "kbpib")):
        m = PrivilegedBoostingClassifier(mode=mode, alpha=alpha, **params)
        m.fit(X[tr][:, keep], y[tr], **({} if mode == "nf" else {"privileged_features": Xs[tr]}))
        scored = _score(y[te], m.predict_proba(X[te][:, keep])[:, 1], S[te], base)
        for k in ("auc", "dp_diff", "dp_diff_at_base_rate", "positive_rate"):
            row[f"{name}_{k}"] = scored[k]
    return row


def proxy_ablation(task, *, n_proxies=2, alpha=1.0, n_estimators=100, max_depth=3, learning_rate=0.1,
                   n_repeats=3, test_size=0.3, random_state=0, n_jobs=None):
    """How well ``X`` predicts the sensitive attribute, and NF and KbPIB without its strongest proxies.

    On the splits of :func:`compare_models` (same ``random_state`` and
    ``n_repeats``), a booster with the notebooks' settings learns the group
    label ``S`` from ``X`` (its test AUC is ``s_auc``); the ``n_proxies``
    variables of ``X`` with the largest total split gain in that booster
    (one-hot columns grouped by :func:`variable_groups`) are removed, and NF
    and KbPIB are fitted on the remaining columns and scored as in
    :func:`compare_models`.

    Returns
    -------
    DataFrame
        One row per split: ``s_auc``, ``s_auc_reduced`` (S from the remaining
        columns), ``removed`` (the variables), and ``NF_*``, ``KbPIB_*`` for
        ``auc``, ``dp_diff``, ``dp_diff_at_base_rate`` and ``positive_rate``.

    Examples
    --------
    >>> from lupikit.boosting.experiments import proxy_ablation
    >>> from lupikit.datasets import load_privileged_task
    >>> task = load_privileged_task("german", n_samples=300, random_state=0)
    >>> res = proxy_ablation(task, n_proxies=1, n_estimators=10, n_repeats=2)
    >>> res.shape[0], bool((res.s_auc > 0).all())
    (2, True)
    """
    if task.get("sensitive") is None:
        raise ValueError("the task has no sensitive attribute.")
    names = task.get("feature_names") or [f"x{j}" for j in range(task.X.shape[1])]
    groups = variable_groups(task.X, list(names))
    sss = StratifiedShuffleSplit(n_splits=n_repeats, test_size=test_size,
                                 random_state=check_random_state(random_state))
    params = dict(n_estimators=n_estimators, max_depth=max_depth, learning_rate=learning_rate,
                  random_state=random_state, n_jobs=1)
    out = Parallel(n_jobs=n_jobs)(
        delayed(_proxy_split)(task, tr, te, r, n_proxies=n_proxies, groups=groups, alpha=alpha,
                              params=params)
        for r, (tr, te) in enumerate(sss.split(task.X, task.y)))
    return pd.DataFrame(out)
