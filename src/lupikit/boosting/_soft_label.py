"""Soft-label distillation baseline: boosting on blended teacher labels."""

from functools import partial
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context, clone
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.utils._param_validation import Interval

from ._base import _MAX_SEED, COMMON_CONSTRAINTS, TEACHER, _BaseGradientBoosting, _seeds
from ._hist import boost, soft_label_objective
from ._hist_dask import as_dask_array, boost_dask, is_dask_collection
from ._losses import privileged_loss
from ._privileged import PrivilegedBoostingClassifier, _decode_block, _is_fitted, _teacher_matrix

__all__ = ["SoftLabelBoostingClassifier"]


class SoftLabelBoostingClassifier(_BaseGradientBoosting):
    """Distillation baseline: boosting with the cross-entropy on soft labels.

    The practitioner's recipe for "privileged information" in LightGBM or
    XGBoost (``objective="cross_entropy"`` on labels in [0, 1]): fit a teacher
    on ``X*``, blend its probabilities ``q`` into the labels,
    ``t = (1 - soft_weight) * Y + soft_weight * q``, and boost on ``X`` with the
    cross-entropy to ``t`` (negative gradient ``t - p``, hessian ``p (1 - p)``).

    With an in-sample teacher and Newton leaves this equals
    :class:`PrivilegedBoostingClassifier` (KbPIB) with
    ``alpha = soft_weight / (1 - soft_weight)`` and the same teacher; the
    difference in practice is the teacher (scikit-learn's
    :class:`~sklearn.ensemble.GradientBoostingClassifier` by default) and the
    option ``teacher_cv`` of out-of-fold soft labels, as is usual for tabular
    distillation.

    Parameters
    ----------
    soft_weight : float, default=0.5
        Weight in [0, 1) of the teacher in the blended target.
    teacher : None or estimator, default=None
        Classifier (with ``fit`` and ``predict_proba``) fitted on ``(X*, y)`` (a clone, unless
        already fitted and ``teacher_cv`` is None). ``None`` uses a booster of
        the same engine with the same ``n_estimators``, ``learning_rate`` and
        ``max_depth``: XGBoost's own log-loss model (``engine="hist"``) or
        scikit-learn's ``GradientBoostingClassifier`` (``engine="exact"``).
    teacher_cv : int or None, default=None
        If an int, the soft labels are out-of-fold teacher predictions from
        that many stratified folds; None uses in-sample predictions.
    n_estimators, learning_rate, max_depth, leaf_values, min_samples_split, \
min_samples_leaf, validation_fraction, n_iter_no_change, tol, random_state, \
engine, n_jobs, max_bins
        As in :class:`PrivilegedBoostingClassifier`. The hist engine boosts
        XGBoost's ``binary:logistic`` on the soft labels (two classes) or the
        soft-label softmax objective (more).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, as in :class:`PrivilegedBoostingClassifier`.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    booster_ : xgboost.Booster
        Hist engine: the trees, as in :class:`PrivilegedBoostingClassifier`.
    estimators_ : ndarray of DecisionTreeRegressor
        Exact engine: the trees, as in :class:`PrivilegedBoostingClassifier`.
    n_estimators_ : int
        Number of iterations kept.
    best_iteration_ : int
        Best validation iteration (with early stopping).
    validation_score_ : ndarray
        Validation log-loss per iteration, as in :class:`PrivilegedBoostingClassifier`.
    train_score_ : ndarray of shape (n_iterations,)
        Exact engine: mean cross-entropy to the soft labels per iteration
        (empty for the hist engine).
    teacher_ : estimator
        The teacher, fitted on the training part (all rows without early
        stopping).
    soft_labels_ : ndarray of shape (n_train, n_classes) or None
        The blended targets (None after a fit on dask collections: they stay on
        the cluster).

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_classification
    >>> from lupikit.boosting import SoftLabelBoostingClassifier
    >>> X, X_star, y = make_lupi_classification(300, random_state=0)
    >>> clf = SoftLabelBoostingClassifier(soft_weight=0.5, n_estimators=20,
    ...                                   random_state=0)
    >>> clf.fit(X, y, privileged_features=X_star).soft_labels_.shape
    (300, 2)
    """

    #: pandas' categorical columns of X* are refused: X* goes to a teacher that,
    #: by default, is scikit-learn's GradientBoostingClassifier
    _privileged_categories_refused = (
        "the teacher of SoftLabelBoostingClassifier (scikit-learn's GradientBoostingClassifier "
        "by default) is given numbers only; encode it as numbers.")

    _parameter_constraints = {
        "soft_weight": [Interval(Real, 0, 1, closed="left")],
        "teacher": [None, TEACHER],
        "teacher_cv": [Interval(Integral, 2, None, closed="left"), None],
        **COMMON_CONSTRAINTS,
    }

    def __init__(
        self,
        soft_weight=0.5,
        teacher=None,
        teacher_cv=None,
        n_estimators=100,
        learning_rate=0.1,
        max_depth=3,
        leaf_values="newton",
        min_samples_split=2,
        min_samples_leaf=1,
        validation_fraction=0.1,
        n_iter_no_change=None,
        tol=1e-4,
        random_state=None,
        engine="hist",
        n_jobs=None,
        max_bins=256,
    ):
        self.soft_weight = soft_weight
        self.teacher = teacher
        self.teacher_cv = teacher_cv
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.leaf_values = leaf_values
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.random_state = random_state
        self.engine = engine
        self.n_jobs = n_jobs
        self.max_bins = max_bins

    # the teacher is a user's estimator, fitted inside: its own parameters are validated
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, privileged_features=None):
        """Fit the teacher on ``X*`` and the student on blended soft labels.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_features)
            As in :meth:`PrivilegedBoostingClassifier.fit`.
        y : array-like or dask collection of shape (n_samples,)
        privileged_features : array-like or dask collection of shape (n_samples, n_privileged)
            Required; numeric (the teacher is given numbers: a categorical
            column raises a TypeError naming it).

        Returns
        -------
        self : SoftLabelBoostingClassifier

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            If a hyperparameter is invalid (its message names it), e.g. a
            ``teacher`` without ``fit`` or ``predict_proba``.
        """
        lam = float(self.soft_weight)
        self._validate_common()
        if self._engine == "hist":
            return self._fit_hist(X, y, privileged_features, lam)
        if any(is_dask_collection(a) for a in (X, y, privileged_features)):
            raise TypeError("engine='exact' takes NumPy or pandas input; fit dask collections "
                            "with engine='hist'.")
        return self._fit_exact(X, y, privileged_features, lam)

    def _default_teacher(self, seed):
        if self._engine == "hist":
            return PrivilegedBoostingClassifier(
                mode="nf", n_estimators=self.n_estimators, learning_rate=self.learning_rate,
                max_depth=self.max_depth, random_state=seed, engine="hist",
                n_jobs=self.n_jobs, max_bins=self.max_bins,
            )
        return GradientBoostingClassifier(
            n_estimators=self.n_estimators, learning_rate=self.learning_rate,
            max_depth=self.max_depth, random_state=seed,
        )

    def _fit_hist(self, X, y, privileged_features, lam):
        d = self._prepare_hist(X, y, privileged_features, True)
        K = self.n_classes_
        rs_student, teacher_seed = _seeds(self.random_state)
        teacher = self._default_teacher(teacher_seed) if self.teacher is None else self.teacher
        if d.client is None:
            labels = self.classes_[d.y]
            if self.teacher_cv is not None:
                cv = StratifiedKFold(self.teacher_cv, shuffle=True, random_state=teacher_seed)
                proba = cross_val_predict(clone(teacher), d.Xs, labels, cv=cv, method="predict_proba")
                self.teacher_ = clone(teacher).fit(d.Xs, labels)
            else:
                self.teacher_ = teacher if (self.teacher is not None and _is_fitted(teacher)) \
                    else clone(teacher).fit(d.Xs, labels)
                proba = self.teacher_.predict_proba(d.Xs)
            Q = _teacher_matrix(proba, self.classes_, getattr(self.teacher_, "classes_", None))
        else:
            if self.teacher_cv is not None or self.teacher is not None:
                raise TypeError("with dask collections, teacher must be None and teacher_cv None "
                                "(the teacher is a booster fitted on the cluster).")
            labels = d.y.map_blocks(_decode_block, self.classes_, dtype=self.classes_.dtype)
            self.teacher_ = clone(teacher).fit(d.Xs, labels)
            Q = as_dask_array(self.teacher_.predict_proba(d.Xs), "teacher probabilities", 2)
        T = (1.0 - lam) * d.Y + lam * Q
        dist = d.client is not None
        self.soft_labels_ = None if dist else T  # on a cluster they stay there
        seed = int(rs_student.randint(_MAX_SEED))
        run = partial(boost_dask, d.client) if dist else boost
        if K == 2 and not (dist and d.X_val is not None):  # see PrivilegedBoostingClassifier._fit_hist
            kw = dict(params=self._hist_params(seed, builtin=True), objective=None)
        else:
            kw = dict(params=self._hist_params(seed, builtin=False, distributed=dist),
                      objective=partial(soft_label_objective, n_outputs=1 if K == 2 else K))
        self.booster_, val = run(d.X, T[:, 1] if K == 2 else T, None, d.init, n_rounds=self._n_est,
                                 X_val=d.X_val, Y_val=d.Y_val,
                                 n_iter_no_change=self.n_iter_no_change, tol=self.tol, **kw)
        return self._finish_hist(d.init, val)

    def _fit_exact(self, X, y, privileged_features, lam):
        X32, y_enc = self._validate_Xy(X, y)
        n = X32.shape[0]
        K = self.n_classes_
        X_star = self._check_privileged_exact(privileged_features, n)
        rs_student, teacher_seed = _seeds(self.random_state)
        tr, va = self._split(n, y_enc)
        sub = (lambda a: a[tr]) if va is not None else (lambda a: a)
        Xs_tr, yl_tr = sub(X_star), self.classes_[sub(y_enc)]
        teacher = self._default_teacher(teacher_seed) if self.teacher is None else self.teacher
        if self.teacher_cv is not None:
            cv = StratifiedKFold(self.teacher_cv, shuffle=True, random_state=teacher_seed)
            proba = cross_val_predict(clone(teacher), Xs_tr, yl_tr, cv=cv,
                                      method="predict_proba")
            self.teacher_ = clone(teacher).fit(Xs_tr, yl_tr)
        else:
            self.teacher_ = teacher if (self.teacher is not None and _is_fitted(teacher)) \
                else clone(teacher).fit(Xs_tr, yl_tr)
            proba = self.teacher_.predict_proba(Xs_tr)
        Q = _teacher_matrix(proba, self.classes_, getattr(self.teacher_, "classes_", None))
        Y = np.eye(K)[y_enc]
        T = (1.0 - lam) * sub(Y) + lam * Q
        self.soft_labels_ = T
        cols = slice(1, 2) if K == 2 else slice(None)
        Tc = np.ascontiguousarray(T[:, cols])

        def grad(P, _):
            return Tc - P, P * (1.0 - P)

        def loss(raw, _):
            return float(np.mean(privileged_loss(raw, T, None)))

        X_val = X32[va] if va is not None else None
        Y_val = Y[va] if va is not None else None
        return self._boost(sub(X32), T, gradient_fn=grad, loss_fn=loss, X_val=X_val,
                           Y_val=Y_val, rs=rs_student)
