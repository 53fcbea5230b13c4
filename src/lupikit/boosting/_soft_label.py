"""Soft-label distillation baseline: boosting on blended teacher labels."""

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from .._validation import check_privileged_features
from ._base import _BaseGradientBoosting, _seeds, _check_int, _check_real
from ._losses import privileged_loss
from ._privileged import _is_fitted, _teacher_matrix

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
        Classifier with ``predict_proba`` fitted on ``(X*, y)`` (a clone, unless
        already fitted and ``teacher_cv`` is None). ``None`` uses
        ``GradientBoostingClassifier`` with the same ``n_estimators``,
        ``learning_rate`` and ``max_depth``.
    teacher_cv : int or None, default=None
        If an int, the soft labels are out-of-fold teacher predictions from
        that many stratified folds; None uses in-sample predictions.
    n_estimators, learning_rate, max_depth, leaf_values, min_samples_split, \
min_samples_leaf, validation_fraction, n_iter_no_change, tol, random_state
        As in :class:`PrivilegedBoostingClassifier`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, as in :class:`PrivilegedBoostingClassifier`.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    estimators_ : ndarray of DecisionTreeRegressor
        The trees, as in :class:`PrivilegedBoostingClassifier`.
    n_estimators_ : int
        Number of iterations kept.
    best_iteration_ : int
        Best validation iteration (with early stopping).
    validation_score_ : ndarray
        Validation log-loss per iteration, as in :class:`PrivilegedBoostingClassifier`.
    train_score_ : ndarray of shape (n_iterations,)
        Mean cross-entropy to the soft labels per iteration.
    teacher_ : estimator
        The teacher fitted on all training rows.
    soft_labels_ : ndarray of shape (n_train, n_classes)
        The blended targets.

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

    def fit(self, X, y, privileged_features=None):
        """Fit the teacher on ``X*`` and the student on blended soft labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        privileged_features : array-like of shape (n_samples, n_privileged)
            Required.

        Returns
        -------
        self : SoftLabelBoostingClassifier
        """
        lam = _check_real(self.soft_weight, "soft_weight", low=0.0, high=1.0, high_open=True)
        _check_int(self.teacher_cv, "teacher_cv", 2, allow_none=True)
        self._validate_common()
        if self.teacher is not None and not hasattr(self.teacher, "predict_proba"):
            raise TypeError(
                f"teacher must have a predict_proba method; "
                f"{type(self.teacher).__name__} has none."
            )
        X32, y_enc = self._validate_Xy(X, y)
        n = X32.shape[0]
        K = self.n_classes_
        X_star = check_privileged_features(privileged_features, n, required=True)
        rs_student, teacher_seed = _seeds(self.random_state)
        tr, va = self._split(n, y_enc)
        sub = (lambda a: a[tr]) if va is not None else (lambda a: a)
        Xs_tr, yl_tr = sub(X_star), self.classes_[sub(y_enc)]
        if self.teacher is None:
            teacher = GradientBoostingClassifier(
                n_estimators=self.n_estimators, learning_rate=self.learning_rate,
                max_depth=self.max_depth, random_state=teacher_seed,
            )
        else:
            teacher = self.teacher
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
