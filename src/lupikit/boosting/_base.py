"""Shared functional-gradient-boosting engine (private).

One stage fits, for every tree-space column ``k``, a scikit-learn
:class:`~sklearn.tree.DecisionTreeRegressor` to the negative gradient (the
same squared-error trees that :class:`~sklearn.ensemble.GradientBoostingClassifier`
grows), then optionally replaces each leaf value by a Newton step
``sum(g) / sum(h)`` over the leaf. ``X`` is converted once to a C-contiguous
float32 array and trees are fitted with ``check_input=False``.
"""

import numbers

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._losses import _tree_space_proba, raw_to_proba

_MAX_SEED = np.iinfo(np.int32).max
_TREE_LEAF = -1


def _check_int(value, name, minimum, allow_none=False):
    if value is None and allow_none:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def _check_real(value, name, *, low=None, low_open=False, high=None, high_open=False):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}.")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {value!r}.")
    if high is not None and (value > high or (high_open and value == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}, got {value!r}.")
    return float(value)


def _seeds(random_state):
    """Random streams shared by the boosting estimators.

    The student's trees draw from ``check_random_state(random_state)`` exactly
    as :class:`~sklearn.ensemble.GradientBoostingClassifier` does (so
    ``mode="nf"`` reproduces it tree for tree); the privileged model gets an
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
    prior = np.clip(Y.mean(axis=0), 1e-12, 1 - 1e-12)
    if Y.shape[1] == 2:
        return np.array([np.log(prior[1] / prior[0])])
    return np.log(prior)


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
        self._n_est = _check_int(self.n_estimators, "n_estimators", 1)
        self._lr = _check_real(self.learning_rate, "learning_rate", low=0.0, low_open=True)
        _check_int(self.max_depth, "max_depth", 1, allow_none=True)
        _check_int(self.min_samples_split, "min_samples_split", 2)
        _check_int(self.min_samples_leaf, "min_samples_leaf", 1)
        if self.leaf_values not in ("newton", "gradient"):
            raise ValueError(
                f"leaf_values must be 'newton' or 'gradient', got {self.leaf_values!r}."
            )
        _check_int(self.n_iter_no_change, "n_iter_no_change", 1, allow_none=True)
        _check_real(self.validation_fraction, "validation_fraction",
                    low=0.0, low_open=True, high=1.0, high_open=True)
        _check_real(self.tol, "tol", low=0.0)

    def _tree_params(self):
        return dict(
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
        )

    def _validate_Xy(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float32, order="C")
        check_classification_targets(y)
        enc = LabelEncoder().fit(y)
        self.classes_ = enc.classes_
        if self.classes_.shape[0] < 2:
            raise ValueError(
                "y contains only one class "
                f"({self.classes_[0]!r}); a classifier needs at least 2 classes."
            )
        self.n_classes_ = self.classes_.shape[0]
        y_enc = enc.transform(y)
        return X, y_enc

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
        except ValueError:
            tr, va = train_test_split(
                idx, test_size=self.validation_fraction, random_state=self.random_state,
            )
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
        return validate_data(self, X, dtype=np.float32, order="C", reset=False)

    def decision_function(self, X):
        """Raw scores: log-odds of ``classes_[1]`` (binary) or softmax scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        X32 = self._check_X(X)
        raw = self._raw_predict_with(self.estimators_, X32)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X):
        """Class probabilities from the regular features ``X`` only.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        X32 = self._check_X(X)
        return raw_to_proba(self._raw_predict_with(self.estimators_, X32))

    def predict(self, X):
        """Most probable class from ``X`` only.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        proba = self.predict_proba(X)
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
        X32 = self._check_X(X)
        raw = np.tile(self._init, (X32.shape[0], 1))
        for trees in self.estimators_:
            _predict_trees(trees, X32, raw, self._lr)
            yield raw_to_proba(raw)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
