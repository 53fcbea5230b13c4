"""Shared machinery of the boosting estimators, and the exact engine (private).

The estimators run on one of two engines: ``"hist"`` (XGBoost's histogram
trees on soft labels, :mod:`._hist` and :mod:`._hist_dask`) or ``"exact"``,
implemented here. One stage of the exact engine fits, for every tree-space column ``k``, a scikit-learn
:class:`~sklearn.tree.DecisionTreeRegressor` to the negative gradient (the
regression trees that :class:`~sklearn.ensemble.GradientBoostingClassifier`
grows, up to the breaking of ties between splits of equal gain, see the Notes
of :class:`~lupikit.boosting.PrivilegedBoostingClassifier`), then optionally
replaces each leaf value by a Newton step ``sum(g) / sum(h)`` over the leaf. ``X`` is converted once to a C-contiguous
float32 array and trees are fitted with ``check_input=False``.
"""

import numbers
from numbers import Integral

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils import Bunch, check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    UNIT_OPEN,
    check_privileged_features,
)
from ._hist import (
    check_float32_range,
    engine_params,
    margin_to_proba,
    predict_margin,
)
from ._hist_dask import (
    as_dask_array,
    check_aligned,
    is_dask_collection,
    predict_proba_dask,
    random_split,
    require_client,
    y_unique,
)
from ._losses import _tree_space_proba, raw_to_proba

_MAX_SEED = np.iinfo(np.int32).max
_TREE_LEAF = -1
ENGINES = ("hist", "exact")


def _numeric_column(column):
    """Whether a pandas column converts to float64 (numeric, boolean, or
    objects that are all numbers)."""
    if pd.api.types.is_numeric_dtype(column.dtype):
        return True
    try:
        np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


#: why the exact engine refuses categorical and other non-numeric columns
EXACT_NUMBERS_ONLY = ("engine='exact' grows scikit-learn's trees, which take numbers only. Encode "
                      "it as numbers, or use engine='hist' (the default), which splits on "
                      "pandas' categorical columns.")


def frame_categories(X, name, categories_ok, why_not=EXACT_NUMBERS_ONLY):
    """Positions of the categorical columns of a pandas DataFrame ``X``.

    Anything but a DataFrame has none (an empty list). A column that is
    neither numeric nor categorical (strings, objects) raises a TypeError
    naming it, and so does a categorical one unless ``categories_ok``;
    ``why_not`` ends the message where categories are refused.
    """
    if not isinstance(X, pd.DataFrame):
        return []
    cats = []
    for j, dtype in enumerate(X.dtypes):
        col = X.columns[j]
        if isinstance(dtype, pd.CategoricalDtype):
            if not categories_ok:
                raise TypeError(f"{name} column {col!r} is categorical (pandas' category "
                                f"dtype): {why_not}")
            cats.append(j)
        elif not _numeric_column(X.iloc[:, j]):
            how = (f"convert it to pandas' category dtype ({name}[{col!r}].astype('category')), "
                   "on which engine='hist' splits, or encode it as numbers."
                   if categories_ok else why_not)
            raise TypeError(f"{name} column {col!r} has the non-numeric dtype {dtype}: {how}")
    return cats


def categorical_names(X):
    """Names of the pandas categorical columns of ``X`` (a tuple; empty for
    anything but a DataFrame)."""
    if not isinstance(X, pd.DataFrame):
        return ()
    return tuple(X.columns[j] for j, dtype in enumerate(X.dtypes)
                 if isinstance(dtype, pd.CategoricalDtype))


def codes_frame(X, cats):
    """``X`` with its categorical columns (positions ``cats``) replaced by
    their category codes as floats (NaN where missing): a numeric stand-in
    with the same columns, for scikit-learn's checks of shape and names."""
    Z = X.copy(deep=False)
    for j in cats:
        codes = X.iloc[:, j].cat.codes.to_numpy()
        Z.isetitem(j, np.where(codes >= 0, codes, np.nan))
    return Z


def take_rows(X, rows):
    """Rows ``rows`` of an array or (by position) of a pandas DataFrame."""
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


def _exact_nan_error(owner, name, exc):
    """The ValueError for NaN in ``name`` with ``engine="exact"`` (``exc``:
    scikit-learn's), pointing to this class's own engine for missing values;
    ``exc`` itself for any other error."""
    if "NaN" not in str(exc):
        return exc
    return ValueError(
        f"{name} contains NaN (a missing value): {owner}(engine='exact') grows scikit-learn's "
        f"exact trees, which take no missing values. {owner}'s default engine='hist' "
        "(XGBoost's histogram trees) routes them by learned default directions: use "
        "engine='hist', or impute them first.")


#: ``n_jobs`` as joblib reads it: None, or a non-zero integer (-1: all cores).
N_JOBS = [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left"),
          None]
#: What a teacher estimator must provide: it is fitted on ``(X*, y)`` (a clone,
#: unless already fitted) and asked for probabilities.
TEACHER = HasMethods(["fit", "predict_proba"])

#: The hyperparameters that both boosting estimators share (scikit-learn's
#: parameter validation; each subclass adds its own).
COMMON_CONSTRAINTS = {
    "n_estimators": [POSITIVE_INT],
    "learning_rate": [POSITIVE],
    "max_depth": [POSITIVE_INT, None],
    "leaf_values": [StrOptions({"newton", "gradient"})],
    "min_samples_split": [Interval(Integral, 2, None, closed="left")],
    "min_samples_leaf": [POSITIVE_INT],
    "validation_fraction": [UNIT_OPEN],
    "n_iter_no_change": [POSITIVE_INT, None],
    "tol": [NON_NEGATIVE],
    "random_state": ["random_state"],
    "engine": [StrOptions(set(ENGINES))],
    "n_jobs": N_JOBS,
    "max_bins": [Interval(Integral, 2, None, closed="left")],
}


def _seeds(random_state):
    """Random streams shared by the boosting estimators.

    The student's trees draw from ``check_random_state(random_state)`` exactly
    as :class:`~sklearn.ensemble.GradientBoostingClassifier` does (so that
    ``mode="nf"`` grows its trees, up to the breaking of ties between splits of
    equal gain); the privileged model gets an
    independent seed that does not consume the student's stream for an int or
    None ``random_state``.
    """
    if random_state is None or isinstance(random_state, numbers.Integral):
        other = int(np.random.SeedSequence(random_state).generate_state(1)[0] % _MAX_SEED)
        return check_random_state(random_state), other
    rs = check_random_state(random_state)
    return rs, int(rs.randint(_MAX_SEED))


def _init_raw(Y):
    """Prior raw score: log-odds (binary) or log class priors (multi-class)."""
    return _init_from_prior(Y.mean(axis=0))


def _init_from_prior(prior):
    """Start score from the class frequencies ``prior`` (shape (K,))."""
    prior = np.clip(np.asarray(prior, dtype=np.float64), 1e-12, 1 - 1e-12)
    if prior.shape[0] == 2:
        return np.array([np.log(prior[1] / prior[0])])
    return np.log(prior)


def _one_hot_block(block, n_classes):
    return np.eye(n_classes)[block]


def _encode_block(block, classes):
    return np.searchsorted(classes, block)


def _stage_trees(X32, neg_grad, hess, raw, *, lr, tree_params, random_state,
                 leaf_values, newton_factor):
    """Fit one tree per tree-space column and update ``raw`` in place."""
    trees = []
    for k in range(neg_grad.shape[1]):
        g = np.ascontiguousarray(neg_grad[:, k])
        tree = DecisionTreeRegressor(
            criterion="squared_error", splitter="best", random_state=random_state,
            **tree_params,
        )
        tree.fit(X32, g, check_input=False)
        t = tree.tree_
        leaves = t.apply(X32)
        values = t.value[:, 0, 0]  # a writable view on the tree's node values
        if leaf_values == "newton":
            num = np.bincount(leaves, weights=g, minlength=t.node_count)
            den = np.bincount(leaves, weights=hess[:, k], minlength=t.node_count)
            is_leaf = t.children_left == _TREE_LEAF
            step = np.zeros(t.node_count)
            ok = is_leaf & (np.abs(den) > 1e-150)
            step[ok] = newton_factor * num[ok] / den[ok]
            values[is_leaf] = step[is_leaf]
            t.value[:, 0, 0] = values
        raw[:, k] += lr * t.value[:, 0, 0].take(leaves)
        trees.append(tree)
    return trees


def _predict_trees(trees, X32, raw, lr):
    for k, tree in enumerate(trees):
        raw[:, k] += lr * tree.predict(X32, check_input=False)


def _mean_log_loss(raw, Y):
    if raw.shape[1] == 1:
        z = raw[:, 0]
        # -[y log s(z) + (1-y) log s(-z)] = log(1+e^z) - y z
        return float(np.mean(np.logaddexp(0.0, z) - Y[:, 1] * z))
    return float(np.mean(logsumexp(raw, axis=1) - (Y * raw).sum(axis=1)))


class _BaseGradientBoosting(ClassifierMixin, BaseEstimator):
    """Common fit/predict machinery; subclasses define the gradients."""

    # ------------------------------------------------------------ validation
    def _validate_common(self):
        """Derived settings and the checks between parameters.

        Each parameter on its own is validated by ``_parameter_constraints``
        (``fit`` runs in scikit-learn's ``_fit_context``); what remains are the
        combinations that one engine does not support.
        """
        self._n_est = int(self.n_estimators)
        self._lr = float(self.learning_rate)
        self._engine = self._validate_engine()
        self._forget_other_engine()

    def _validate_engine(self):
        """The engine name, after checking the parameters that only one engine has."""
        if self.engine == "hist":
            if self.leaf_values != "newton":
                raise ValueError(
                    f"leaf_values={self.leaf_values!r} needs engine='exact': the histogram "
                    "engine's leaf values are Newton steps (leaf_values='newton')."
                )
            if self.min_samples_split != 2 or self.min_samples_leaf != 1:
                raise ValueError(
                    "min_samples_split and min_samples_leaf apply to engine='exact' only "
                    f"(got {self.min_samples_split!r} and {self.min_samples_leaf!r}); XGBoost's "
                    "histogram trees have no count-based limits."
                )
        return self.engine

    def _tree_params(self):
        return dict(
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
        )

    def _validate_Xy(self, X, y):
        hist = self._engine == "hist"
        cats = frame_categories(X, "X", hist)
        self._categorical_columns = tuple(X.columns[j] for j in cats)
        if cats:
            # XGBoost splits on pandas' categories (enable_categorical): the
            # DataFrame goes to it as it is; its codes stand in for the checks
            Xv, y = validate_data(self, codes_frame(X, cats), y, dtype=[np.float64, np.float32],
                                  ensure_all_finite="allow-nan")
            check_float32_range(Xv, "X")
        elif hist:  # XGBoost takes float64 or float32 as given, and NaN as missing
            X, y = validate_data(self, X, y, dtype=[np.float64, np.float32],
                                 ensure_all_finite="allow-nan")
            check_float32_range(X, "X")
        else:
            try:
                X, y = validate_data(self, X, y, dtype=np.float32, order="C")
            except ValueError as exc:
                raise _exact_nan_error(type(self).__name__, "X", exc) from None
        check_classification_targets(y)
        enc = LabelEncoder().fit(y)
        self._set_classes(enc.classes_)
        y_enc = enc.transform(y)
        return X, y_enc

    def _set_classes(self, classes):
        self.classes_ = classes
        if self.classes_.shape[0] < 2:
            raise ValueError(
                "y contains only one class "
                f"({self.classes_[0]!r}); a classifier needs at least 2 classes."
            )
        self.n_classes_ = self.classes_.shape[0]

    # ------------------------------------------------- the histogram engine
    def _hist_params(self, seed, *, builtin, distributed=False):
        """XGBoost parameters: ``builtin`` for its own objectives, else the soft-label one.

        On a cluster only a positive ``n_jobs`` is sent: None or -1 leave every
        worker its own thread count (it would otherwise be the client's).
        """
        n_jobs = self.n_jobs if not distributed or (self.n_jobs or 0) > 0 else None
        return engine_params(max_depth=self.max_depth, learning_rate=self._lr,
                             max_bins=self.max_bins, n_jobs=n_jobs, seed=seed,
                             n_classes=self.n_classes_, builtin=builtin)

    def _prepare_hist(self, X, y, privileged_features, need_privileged):
        """Training and validation parts for the histogram engine.

        Returns a Bunch with ``X``, ``Xs`` (or None), ``Y`` (one-hot), ``y``
        (class codes) of the training rows, ``X_val``/``Y_val`` (None without
        early stopping), the start score ``init``, the row index ``rows`` of
        the training part (NumPy; None without a split) and ``client`` (the
        Dask client, None for NumPy input).
        """
        if is_dask_collection(X):
            return self._prepare_hist_dask(X, y, privileged_features, need_privileged)
        if is_dask_collection(privileged_features) or is_dask_collection(y):
            raise TypeError(
                "X is a NumPy/pandas array but y or privileged_features is a dask collection; "
                "pass X, y and privileged_features all as NumPy or all as dask collections."
            )
        X, y_enc = self._validate_Xy(X, y)
        n = X.shape[0]
        Xs = None
        if need_privileged or privileged_features is not None:
            Xs = self._check_privileged_hist(privileged_features, n, required=need_privileged)
        Y = np.eye(self.n_classes_)[y_enc]
        tr, va = self._split(n, y_enc)
        if va is None:
            return Bunch(X=X, Xs=Xs, Y=Y, y=y_enc, X_val=None, Y_val=None, rows=None,
                         init=_init_raw(Y), client=None)
        return Bunch(X=take_rows(X, tr), Xs=None if Xs is None else take_rows(Xs, tr),
                     Y=Y[tr], y=y_enc[tr], X_val=take_rows(X, va), Y_val=Y[va], rows=tr,
                     init=_init_raw(Y[tr]), client=None)

    #: whether pandas' categorical columns in the privileged features are
    #: accepted by the histogram engine (they go to this class's own boosters)
    _privileged_categories = False
    #: why they are not (see :func:`frame_categories`)
    _privileged_categories_refused = "the teacher takes numbers only; encode it as numbers."

    def _check_privileged_hist(self, privileged_features, n, *, required=True):
        """Privileged features for the histogram engine: a float array (NaN
        allowed), or a pandas DataFrame with categorical columns where this
        class accepts them (``_privileged_categories``)."""
        cats = frame_categories(privileged_features, "privileged_features",
                                self._privileged_categories,
                                self._privileged_categories_refused)
        if not cats:
            Xs = check_privileged_features(privileged_features, n, required=required,
                                           allow_nan=True)
            check_float32_range(Xs, "privileged_features")
            return Xs
        codes = check_privileged_features(codes_frame(privileged_features, cats), n,
                                          allow_nan=True)
        check_float32_range(codes, "privileged_features")
        return privileged_features

    def _check_privileged_exact(self, privileged_features, n, *, required=True):
        """Privileged features for the exact engine (finite floats); NaN points
        to the histogram engine."""
        frame_categories(privileged_features, "privileged_features", False)
        try:
            return check_privileged_features(privileged_features, n, required=required)
        except ValueError as exc:
            raise _exact_nan_error(type(self).__name__, "privileged_features", exc) from None

    def _prepare_hist_dask(self, X, y, privileged_features, need_privileged):
        X = as_dask_array(X, "X", 2)
        y = as_dask_array(y, "y", 1)
        if X.dtype.kind not in "fiub":
            raise TypeError(f"X must be numeric, got a dask array of dtype {X.dtype}.")
        Xs = None
        if need_privileged or privileged_features is not None:
            if privileged_features is None:
                raise ValueError(
                    "privileged_features is required by this estimator but was None; pass it "
                    "as fit(X, y, privileged_features=...)."
                )
            Xs = as_dask_array(privileged_features, "privileged_features", 2)
            if Xs.dtype.kind not in "fiub":
                raise TypeError(f"privileged_features must be numeric, got dtype {Xs.dtype}.")
        check_aligned(X, {"y": y, **({} if Xs is None else {"privileged_features": Xs})})
        client = require_client()
        self._categorical_columns = ()
        self.n_features_in_ = int(X.shape[1])
        if hasattr(self, "feature_names_in_"):  # from an earlier fit on a DataFrame
            del self.feature_names_in_
        self._set_classes(np.unique(np.asarray(y_unique(y))))
        K = self.n_classes_
        y_enc = y.map_blocks(_encode_block, self.classes_, dtype=np.int64)
        Y = y_enc.map_blocks(_one_hot_block, K, dtype=np.float64, new_axis=1,
                             chunks=(y_enc.chunks[0], (K,)))
        parts = {"X": X, "Xs": Xs, "Y": Y, "y": y_enc}
        val = None
        if self.n_iter_no_change is not None:
            mask = random_split(X, self.validation_fraction, self.random_state)
            val = {k: v[mask] for k, v in parts.items() if k in ("X", "Y")}
            parts = {k: None if v is None else v[~mask] for k, v in parts.items()}
            for group in (parts, val):
                for k, v in group.items():
                    if v is not None:
                        group[k] = v.compute_chunk_sizes()
        prior = parts["Y"].mean(axis=0).compute()
        return Bunch(X=parts["X"], Xs=parts["Xs"], Y=parts["Y"], y=parts["y"],
                     X_val=None if val is None else val["X"], Y_val=None if val is None else val["Y"],
                     rows=None, init=_init_from_prior(prior), client=client)

    def _check_dask_X(self, X):
        X = as_dask_array(X, "X", 2)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return X

    def _forget_other_engine(self):
        """Drop the fitted state of the engine not used by this fit (a refit may switch)."""
        other = ("booster_", "privileged_booster_") if self._engine == "exact" else (
            "estimators_", "privileged_estimators_")
        for name in other:
            if hasattr(self, name):
                delattr(self, name)

    def _finish_hist(self, init, val_scores):
        self._init = init
        self.n_estimators_ = int(self.booster_.num_boosted_rounds())
        self.best_iteration_ = self.n_estimators_
        self.validation_score_ = val_scores
        self.train_score_ = np.empty(0)
        return self

    def _split(self, n, y_enc):
        """Indices of the training and validation parts (all / none without early stop)."""
        if self.n_iter_no_change is None:
            return np.arange(n), None
        idx = np.arange(n)
        try:
            tr, va = train_test_split(
                idx, test_size=self.validation_fraction, random_state=self.random_state,
                stratify=y_enc,
            )
        except ValueError:  # a class too small to stratify
            tr, va = train_test_split(
                idx, test_size=self.validation_fraction, random_state=self.random_state,
            )
            # every class keeps at least one training row (else the start score
            # and a teacher would not know it)
            missing = np.setdiff1d(np.unique(y_enc), y_enc[tr])
            moved = np.array([va[y_enc[va] == k][0] for k in missing], dtype=int)
            tr, va = np.concatenate([tr, moved]), np.setdiff1d(va, moved)
        return np.sort(tr), np.sort(va)

    # ---------------------------------------------------------- the loop
    def _boost(self, X32, Y, *, gradient_fn, X_val=None, Y_val=None, rs,
               X_priv=None, rs_priv=None, priv_gradient_fn=None, loss_fn=None,
               verbose_name="student"):
        """Run the boosting loop.

        ``gradient_fn(P, Q) -> (neg_grad, hess)`` gives the student's gradient
        from its tree-space probabilities ``P`` and the partner's ``Q`` (None
        when there is no privileged ensemble); ``priv_gradient_fn(Q, P)`` does
        the same for the privileged ensemble of JPIB.
        """
        n, K = Y.shape
        lr = self._lr
        init = _init_raw(Y)
        k_cols = init.shape[0]
        newton_factor = 1.0 if K == 2 else (K - 1) / K
        tree_params = self._tree_params()
        raw = np.tile(init, (n, 1))
        raw_p = np.tile(init, (n, 1)) if X_priv is not None else None
        early = X_val is not None
        if early:
            raw_val = np.tile(init, (X_val.shape[0], 1))
            best, best_it, since = np.inf, 0, 0
            val_scores = []
        estimators, priv_estimators, train_scores = [], [], []
        for m in range(self._n_est):
            P = _tree_space_proba(raw)
            Q = _tree_space_proba(raw_p) if raw_p is not None else None
            g, h = gradient_fn(P, Q)
            trees = _stage_trees(X32, g, h, raw, lr=lr, tree_params=tree_params,
                                 random_state=rs, leaf_values=self.leaf_values,
                                 newton_factor=newton_factor)
            estimators.append(trees)
            if raw_p is not None:
                P = _tree_space_proba(raw)
                gp, hp = priv_gradient_fn(Q, P)
                ptrees = _stage_trees(X_priv, gp, hp, raw_p, lr=lr,
                                      tree_params=tree_params, random_state=rs_priv,
                                      leaf_values=self.leaf_values,
                                      newton_factor=newton_factor)
                priv_estimators.append(ptrees)
            if loss_fn is not None:
                train_scores.append(loss_fn(raw, raw_p))
            if early:
                _predict_trees(trees, X_val, raw_val, lr)
                score = _mean_log_loss(raw_val, Y_val)
                val_scores.append(score)
                if score < best - self.tol:
                    best, best_it, since = score, m + 1, 0
                else:
                    since += 1
                    if since >= self.n_iter_no_change:
                        break
        n_iter = len(estimators)
        if early:
            self.validation_score_ = np.asarray(val_scores)
            self.best_iteration_ = max(best_it, 1)
            n_keep = self.best_iteration_
        else:
            self.validation_score_ = None
            self.best_iteration_ = n_iter
            n_keep = n_iter
        self._init = init
        self.estimators_ = np.empty((n_keep, k_cols), dtype=object)
        for m in range(n_keep):
            self.estimators_[m, :] = estimators[m]
        if X_priv is not None:
            self.privileged_estimators_ = np.empty((n_keep, k_cols), dtype=object)
            for m in range(n_keep):
                self.privileged_estimators_[m, :] = priv_estimators[m]
        self.n_estimators_ = n_keep
        self.train_score_ = np.asarray(train_scores)
        return self

    # ---------------------------------------------------------- prediction
    def _raw_predict_with(self, estimators, X32):
        raw = np.tile(self._init, (X32.shape[0], 1))
        for trees in estimators:
            _predict_trees(trees, X32, raw, self._lr)
        return raw

    def _check_X(self, X):
        check_is_fitted(self)
        if getattr(self, "_engine", "exact") == "hist":
            if is_dask_collection(X):
                raise TypeError("this method takes NumPy rows; predict_proba and predict take "
                                "dask arrays.")
            fitted = getattr(self, "_categorical_columns", ())
            cats = frame_categories(X, "X", True)
            if fitted or cats:
                self._check_categorical_columns(X, cats, fitted)
                Xv = validate_data(self, codes_frame(X, cats), dtype=[np.float64, np.float32],
                                   reset=False, ensure_all_finite="allow-nan")
                check_float32_range(Xv, "X")
                return X
            X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False,
                              ensure_all_finite="allow-nan")
            check_float32_range(X, "X")
            return X
        frame_categories(X, "X", False)
        try:
            return validate_data(self, X, dtype=np.float32, order="C", reset=False)
        except ValueError as exc:
            raise _exact_nan_error(type(self).__name__, "X", exc) from None

    def _check_categorical_columns(self, X, cats, fitted, name="X"):
        """The categorical columns of ``X`` (positions ``cats``) are those of
        the fit (names ``fitted``)."""
        if not isinstance(X, pd.DataFrame):
            raise TypeError(
                f"{name} must be a pandas DataFrame: the model was fitted on one with the "
                f"categorical columns {list(fitted)}, got {type(X).__name__}.")
        now = [X.columns[j] for j in cats]
        for col in fitted:
            if col not in now:
                raise TypeError(f"{name} column {col!r} was categorical (pandas' category dtype) "
                                "when the model was fitted; pass it as categorical again.")
        for col in now:
            if col not in fitted:
                raise TypeError(f"{name} column {col!r} is categorical (pandas' category dtype) "
                                "but was not when the model was fitted.")

    def _hist_input(self, X):
        """Validated NumPy rows, or a dask array checked against the fitted width."""
        check_is_fitted(self)
        if is_dask_collection(X):
            return self._check_dask_X(X)
        return self._check_X(X)

    def decision_function(self, X):
        """Raw scores: log-odds of ``classes_[1]`` (binary) or softmax scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        if getattr(self, "_engine", None) == "hist":
            X = self._check_X(X)
            return np.asarray(predict_margin(self.booster_, X, self._init), dtype=np.float64)
        X32 = self._check_X(X)
        raw = self._raw_predict_with(self.estimators_, X32)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X):
        """Class probabilities from the regular features ``X`` only.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
            A dask array (histogram engine) gives a dask array, computed
            block by block where the blocks are.

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_classes)
        """
        if getattr(self, "_engine", None) == "hist":
            X = self._hist_input(X)
            if is_dask_collection(X):
                return predict_proba_dask(self.booster_, X, self._init)
            return margin_to_proba(predict_margin(self.booster_, X, self._init))
        X32 = self._check_X(X)
        return raw_to_proba(self._raw_predict_with(self.estimators_, X32))

    def predict(self, X):
        """Most probable class from ``X`` only.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)

        Returns
        -------
        ndarray or dask array of shape (n_samples,)
        """
        proba = self.predict_proba(X)
        if is_dask_collection(proba):
            classes = self.classes_
            return proba.map_blocks(lambda b: classes[np.argmax(b, axis=1)], drop_axis=1,
                                    dtype=classes.dtype)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X):
        """Yield the class probabilities after each boosting iteration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples, n_classes)
        """
        if getattr(self, "_engine", None) == "hist":
            X = self._check_X(X)
            for m in range(1, self.n_estimators_ + 1):
                yield margin_to_proba(predict_margin(self.booster_, X, self._init, (0, m)))
            return
        X32 = self._check_X(X)
        raw = np.tile(self._init, (X32.shape[0], 1))
        for trees in self.estimators_:
            _predict_trees(trees, X32, raw, self._lr)
            yield raw_to_proba(raw)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.engine == "hist"
        return tags
