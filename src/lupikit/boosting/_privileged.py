"""Privileged-information gradient boosting: NF, KbPIB and JPIB."""

from functools import partial

import numpy as np
from sklearn.base import _fit_context, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._validation import NON_NEGATIVE
from ._base import (
    _MAX_SEED,
    COMMON_CONSTRAINTS,
    TEACHER,
    _BaseGradientBoosting,
    _mean_log_loss,
    _seeds,
    categorical_names,
    frame_categories,
)
from ._hist import boost, boost_jpib, margin_to_proba, predict_margin, soft_label_objective
from ._hist_dask import (
    as_dask_array,
    boost_dask,
    check_aligned,
    boost_jpib_dask,
    is_dask_collection,
    predict_proba_dask,
)
from ._losses import privileged_loss, raw_to_proba

__all__ = ["PrivilegedBoostingClassifier"]


def _decode_block(block, classes):
    return classes[block]


def _is_fitted(est):
    try:
        check_is_fitted(est)
    except (NotFittedError, TypeError):
        return False
    return True


def _teacher_matrix(proba, classes, teacher_classes=None):
    """Teacher probabilities as an (n, K) matrix in the order of ``classes``."""
    K = classes.shape[0]
    Q = np.asarray(proba, dtype=np.float64)
    if Q.ndim == 1:
        if K != 2:
            raise ValueError(
                "teacher probabilities given as a 1-D array are read as "
                f"P(y = classes_[1]) and need 2 classes; y has {K}."
            )
        Q = np.column_stack([1.0 - Q, Q])
    if teacher_classes is not None:
        teacher_classes = np.asarray(teacher_classes)
        if teacher_classes.shape[0] != K or not np.all(teacher_classes == classes):
            raise ValueError(
                f"teacher.classes_ {teacher_classes.tolist()} differ from the "
                f"classes of y {classes.tolist()}."
            )
    if Q.ndim != 2 or Q.shape[1] != K:
        raise ValueError(
            f"teacher probabilities must have {K} columns (one per class), got "
            f"shape {Q.shape}."
        )
    if not np.all(np.isfinite(Q)) or Q.min() < 0 or Q.max() > 1:
        raise ValueError("teacher probabilities must be finite and lie in [0, 1].")
    if not np.allclose(Q.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError("teacher probabilities must sum to 1 over the classes.")
    return Q


class PrivilegedBoostingClassifier(_BaseGradientBoosting):
    """Gradient boosting that uses privileged features at training time only.

    The student is a sum of regression trees on the regular features ``X``.
    Each tree is fitted to the per-example negative gradient of

    .. math::

        -\\log P(y_i \\mid x_i; F) + \\alpha\\,
        \\mathrm{KL}\\bigl(P(\\cdot \\mid x_i^*; G) \\,\\|\\, P(\\cdot \\mid x_i; F)\\bigr),

    i.e. ``(Y_ik - p_ik) - alpha * (p_ik - q_ik)``, where ``p`` are the
    student's probabilities and ``q`` those of a model ``G`` on the privileged
    features ``X*`` (KbPIB and JPIB of Yan et al., 2023).

    - ``mode="nf"``: no privileged features, ordinary gradient boosting.
    - ``mode="kbpib"`` (Algorithm 1): the teacher ``G`` is learned on ``X*``
      first (an NF booster with the same settings, or ``teacher``), then the
      student follows the KL-guided gradient.
    - ``mode="jpib"`` (Algorithm 2): one tree on ``X`` and one tree on ``X*``
      alternate, each following the gradient guided by the other
      (``(Y - q) - alpha (q - p)`` for the privileged trees).

    ``alpha=0`` gives exactly the NF model in every mode. Binary and
    multi-class (softmax, one tree per class and iteration) targets are
    supported. Predictions use ``X`` only.

    Two engines grow the trees. ``engine="hist"`` (the default) boosts
    XGBoost's histogram trees on the soft labels ``(Y + alpha q) / (1 + alpha)``
    with row weights ``1 + alpha``, which is the same objective (its gradient
    and hessian are those above): NF is XGBoost's own log-loss model, two
    classes run entirely inside XGBoost, and inputs may hold missing values
    (NaN, routed by XGBoost's learned default directions), be pandas
    DataFrames with categorical columns (split on as categories) or be dask
    collections, fitted on the active ``distributed.Client``'s cluster.
    ``engine="exact"`` grows scikit-learn regression trees on the gradients
    (exact splits, the reference implementation). Its NF runs the algorithm of
    scikit-learn's ``GradientBoostingClassifier`` and grows the same trees up
    to the first split that ties in gain with another, which the two may break
    differently (see Notes): the training probabilities then usually still
    agree, those of new points often do not.

    Parameters
    ----------
    mode : {"kbpib", "jpib", "nf"}, default="kbpib"
        Which algorithm to run.
    alpha : float, default=1.0
        Weight (>= 0) of the KL term that pulls the student to the teacher.
    n_estimators : int, default=100
        Number of boosting iterations (student trees per class).
    learning_rate : float, default=0.1
        Shrinkage applied to every tree.
    max_depth : int or None, default=3
        Depth of the regression trees.
    teacher : None, estimator or array-like, default=None
        Only for ``mode="kbpib"``. ``None`` learns a teacher on ``X*``; an
        estimator (with ``fit`` and ``predict_proba``) is used on ``X*`` as
        given if it is fitted (else a clone is fitted on ``(X*, y)``); an array of shape
        ``(n_samples, n_classes)`` (or ``(n_samples,)`` with ``P(y=1)`` for two
        classes) gives the teacher's probabilities on the training rows
        directly, in which case ``privileged_features`` is not needed (such an
        array cannot follow cross-validation splits).
    leaf_values : {"newton", "gradient"}, default="newton"
        ``"newton"`` replaces each leaf value by ``sum(g) / sum(h)`` with the
        hessian ``h = (1 + alpha) p (1 - p)`` (scikit-learn's choice for the
        log-loss); ``"gradient"`` keeps the tree's mean negative gradient
        (Friedman's least-squares boosting, the paper's functional-gradient
        view). With ``"gradient"`` the KL term also scales the step by
        ``1 + alpha``.
    min_samples_split : int, default=2
        Passed to the trees.
    min_samples_leaf : int, default=1
        Passed to the trees.
    validation_fraction : float, default=0.1
        Fraction of the training rows held out for early stopping (used only
        if ``n_iter_no_change`` is set).
    n_iter_no_change : int or None, default=None
        If set, stop when the student's validation log-loss has not improved
        by ``tol`` for this many iterations and keep the best iteration.
    tol : float, default=1e-4
        Minimal improvement of the validation log-loss.
    random_state : int, RandomState instance or None, default=None
        Seeds the trees (feature permutations of the exact engine) and the
        validation split.
    engine : {"hist", "exact"}, default="hist"
        ``"hist"``: XGBoost's histogram trees (``tree_method="hist"``) on soft
        labels; ``"exact"``: scikit-learn's exact regression trees. What
        differs between them: the hist engine bins every feature into at most
        ``max_bins`` quantile bins and chooses splits by XGBoost's Newton gain
        (the exact engine by the squared error of the gradients); it has no
        count-based limits (``min_samples_split`` and ``min_samples_leaf`` must
        keep their defaults), only Newton leaves (``leaf_values="newton"``),
        and no leaf-value regularisation (``reg_lambda=0``,
        ``min_child_weight=0``, as the exact engine); for more than two
        classes its Newton step uses XGBoost's hessian ``2 p (1 - p)`` where
        the exact engine uses scikit-learn's ``K / (K - 1) p (1 - p)``; and it
        does not evaluate the training objective (``train_score_`` is empty),
        as XGBoost does not by default.
    n_jobs : int or None, default=None
        Threads of the hist engine (None: XGBoost's default, all cores unless
        ``OMP_NUM_THREADS`` says otherwise; -1: all cores). The exact engine
        uses one thread.
    max_bins : int, default=256
        Hist engine: the largest number of bins per feature (XGBoost's
        ``max_bin``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen in :meth:`fit`.
    booster_ : xgboost.Booster
        Hist engine: the student's trees (start score excluded).
    privileged_booster_ : xgboost.Booster or None
        Hist engine, JPIB only: the trees on ``X*``.
    estimators_ : ndarray of DecisionTreeRegressor, shape (n_estimators, K) with ``n_estimators = n_estimators_``
        Exact engine: the student trees (``K = 1`` for two classes).
    privileged_estimators_ : ndarray of DecisionTreeRegressor
        Exact engine, JPIB only: the trees on ``X*``.
    teacher_ : estimator or None
        KbPIB only: the fitted teacher (None if probabilities were given).
    teacher_proba_ : ndarray of shape (n_train, n_classes) or None
        KbPIB only: the teacher's probabilities on the rows used for training
        (None after a fit on dask collections: they stay on the cluster).
    n_estimators_ : int
        Number of iterations kept (the best one with early stopping).
    best_iteration_ : int
        Iteration with the smallest validation log-loss (= ``n_estimators_``).
    train_score_ : ndarray of shape (n_iterations,)
        Exact engine: mean training objective (NLL + alpha KL for the
        student) per iteration. Empty for the hist engine.
    validation_score_ : ndarray or None
        Student's validation log-loss per iteration (early stopping only).

    See Also
    --------
    SoftLabelBoostingClassifier : distillation with blended soft labels.

    Notes
    -----
    With a fixed teacher and Newton leaves, KbPIB is the soft-label
    cross-entropy boosting on the targets ``(Y + alpha q) / (1 + alpha)``:
    the factor ``1 + alpha`` cancels between gradient and hessian.

    ``mode="nf", engine="exact"`` and scikit-learn's
    ``GradientBoostingClassifier`` with the same ``n_estimators``,
    ``learning_rate``, ``max_depth``, ``min_samples_split``,
    ``min_samples_leaf`` and ``random_state`` share the start score, the
    gradients, the split criterion (squared error; scikit-learn's
    ``friedman_mse`` ranks splits alike), the random feature order of every
    tree and the Newton leaf values, all up to rounding. What is equal is
    therefore: every tree, node for node (features, thresholds, leaf values),
    up to the first node where two candidate splits have the same gain; there
    the two implementations, whose start scores and gradients differ in the
    last bits, may pick different splits of equal gain (the same to about
    1e-15 of the tree's total squared error). Such ties are common: two
    features that order a small node's rows alike, duplicated, scaled or
    one-hot columns, and the first trees, whose gradients take one value per
    class. A tie between splits that send the same training rows each way
    leaves the training probabilities equal (to about 1e-15) and can change
    the probabilities of new points; a tie between different partitions of
    equal gain (rarer) changes the training probabilities too. On 16 random
    problems (``max_depth=3``, 30 stages; the generator of
    ``tests/boosting/test_nf_reference.py``) the training probabilities agreed
    to 1e-15 on 15 with rounded, one-hot and scaled-copy columns and on 14
    with continuous columns without duplicated values, the test probabilities
    on 3 and 1 only (elsewhere they differed by up to 0.25 and 0.41); with
    ``min_samples_leaf=10`` no node tied on 13 of the continuous problems,
    whose train and test probabilities then agreed to 1e-15.

    References
    ----------
    Yan, Odom, Pasunuri, Kersting and Natarajan (2023), "Learning with
    privileged and sensitive information: a gradient-boosting approach",
    Frontiers in Artificial Intelligence 6. Friedman (2001), "Greedy function
    approximation: a gradient boosting machine", Annals of Statistics 29(5).

    Examples
    --------
    >>> from lupikit.datasets import make_lupi_classification
    >>> from lupikit.boosting import PrivilegedBoostingClassifier
    >>> X, X_star, y = make_lupi_classification(300, random_state=0)
    >>> clf = PrivilegedBoostingClassifier(mode="jpib", alpha=1.0,
    ...                                    n_estimators=20, random_state=0)
    >>> clf = clf.fit(X, y, privileged_features=X_star)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    >>> clf.privileged_booster_.num_boosted_rounds()
    20
    >>> exact = PrivilegedBoostingClassifier(mode="jpib", engine="exact",
    ...                                      n_estimators=20, random_state=0)
    >>> exact.fit(X, y, privileged_features=X_star).privileged_estimators_.shape
    (20, 1)

    On a Dask cluster (``pip install 'lupikit[dask]'``), with ``X``, ``y`` and
    ``X_star`` as dask arrays partitioned alike by rows::

        from distributed import Client
        client = Client("tcp://scheduler:8786")
        clf.fit(dX, dy, privileged_features=dX_star)   # trains on the workers
        clf.predict_proba(dX)                           # a dask array
    """

    _parameter_constraints = {
        "mode": [StrOptions({"kbpib", "jpib", "nf"})],
        "alpha": [NON_NEGATIVE],
        # an estimator fitted on (X*, y), or the teacher's probabilities themselves
        "teacher": [None, TEACHER, "array-like"],
        **COMMON_CONSTRAINTS,
    }

    def __init__(
        self,
        mode="kbpib",
        alpha=1.0,
        n_estimators=100,
        learning_rate=0.1,
        max_depth=3,
        teacher=None,
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
        self.mode = mode
        self.alpha = alpha
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.teacher = teacher
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

    def _nf_copy(self, random_state):
        return PrivilegedBoostingClassifier(
            mode="nf", alpha=0.0, n_estimators=self.n_estimators,
            learning_rate=self.learning_rate, max_depth=self.max_depth,
            leaf_values=self.leaf_values, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            validation_fraction=self.validation_fraction,
            n_iter_no_change=self.n_iter_no_change, tol=self.tol,
            random_state=random_state, engine=self.engine, n_jobs=self.n_jobs,
            max_bins=self.max_bins,
        )

    # the teacher is a user's estimator, fitted inside: its own parameters are validated
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, privileged_features=None):
        """Fit the student (and, for KbPIB/JPIB, the privileged model).

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_features)
            Regular features (available at test time). The hist engine
            accepts NaN as a missing value, pandas DataFrames with
            categorical columns (pandas' ``category`` dtype, split on as
            categories by XGBoost; prediction then takes a DataFrame with the
            same categorical columns), and dask arrays or dataframes
            (then ``y`` and ``privileged_features`` must be dask collections
            partitioned alike, and the fit runs on the active
            ``distributed.Client``'s cluster). Other non-numeric columns
            raise a TypeError naming them, and so do categorical ones with
            ``engine="exact"``.
        y : array-like or dask collection of shape (n_samples,)
            Class labels.
        privileged_features : array-like or dask collection of shape (n_samples, n_privileged), default=None
            Privileged features ``X*`` (training only). Required for
            ``mode="jpib"`` and for ``mode="kbpib"`` unless ``teacher`` is an
            array of probabilities; ignored for ``mode="nf"``. With the hist
            engine they may have categorical columns as ``X``.

        Returns
        -------
        self : PrivilegedBoostingClassifier

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            If a hyperparameter is invalid (its message names it), e.g. a
            ``teacher`` that is neither None, an estimator with ``fit`` and
            ``predict_proba`` nor an array of probabilities.
        """
        alpha = float(self.alpha)
        self._validate_common()
        teacher = self.teacher
        if teacher is not None and self.mode != "kbpib":
            raise ValueError(
                f"teacher is only used with mode='kbpib', got mode={self.mode!r}."
            )
        # an estimator has fit and predict_proba (the constraint); anything else that
        # passed it is array-like: the teacher's probabilities
        teacher_is_array = teacher is not None and not hasattr(teacher, "fit") \
            and not hasattr(teacher, "predict_proba")
        if teacher_is_array:
            usable = isinstance(teacher, (list, tuple)) or hasattr(teacher, "__array__")
        else:
            usable = teacher is None or TEACHER.is_satisfied_by(teacher)
        if not usable:
            # what scikit-learn calls array-like by its length alone (a dict, a Pipeline
            # without predict_proba) but is neither probabilities nor a teacher
            raise InvalidParameterError(
                f"The 'teacher' parameter of {type(self).__name__} must be None, an estimator "
                "with fit and predict_proba or an array of probabilities. Got "
                f"{type(teacher).__name__} instead."
            )

        if self._engine == "hist":
            return self._fit_hist(X, y, privileged_features, alpha, teacher, teacher_is_array)
        if any(is_dask_collection(a) for a in (X, y, privileged_features)):
            raise TypeError("engine='exact' takes NumPy or pandas input; fit dask collections "
                            "with engine='hist'.")
        return self._fit_exact(X, y, privileged_features, alpha, teacher, teacher_is_array)

    def _fit_exact(self, X, y, privileged_features, alpha, teacher, teacher_is_array):
        """The exact engine: scikit-learn trees on the gradients (``_base``)."""
        X32, y_enc = self._validate_Xy(X, y)
        n = X32.shape[0]
        K = self.n_classes_
        Y = np.eye(K)[y_enc]
        X_star = None
        if self.mode == "jpib" or (self.mode == "kbpib" and not teacher_is_array):
            X_star = self._check_privileged_exact(privileged_features, n)
        elif privileged_features is not None and self.mode == "kbpib":
            X_star = self._check_privileged_exact(privileged_features, n)

        rs_student, priv_seed = _seeds(self.random_state)
        tr, va = self._split(n, y_enc)
        X_tr = X32[tr] if va is not None else X32
        Y_tr = Y[tr] if va is not None else Y
        X_val = X32[va] if va is not None else None
        Y_val = Y[va] if va is not None else None
        cols = slice(1, 2) if K == 2 else slice(None)

        self.teacher_ = None
        self.teacher_proba_ = None
        if self.mode == "nf":
            def grad(P, Q):
                return Y_tr[:, cols] - P, P * (1.0 - P)

            def loss(raw, raw_p):
                return _mean_log_loss(raw, Y_tr)

            return self._boost(X_tr, Y_tr, gradient_fn=grad, loss_fn=loss,
                               X_val=X_val, Y_val=Y_val, rs=rs_student)

        if self.mode == "kbpib":
            if teacher_is_array:
                Qfull = _teacher_matrix(teacher, self.classes_)
                if Qfull.shape[0] != n:
                    raise ValueError(
                        f"teacher has {Qfull.shape[0]} rows of probabilities but X "
                        f"has {n} samples."
                    )
                Q_tr = Qfull[tr] if va is not None else Qfull
            else:
                Xs_tr = X_star[tr] if va is not None else X_star
                y_tr = self.classes_[y_enc[tr]] if va is not None else self.classes_[y_enc]
                if teacher is None:
                    fitted = self._nf_copy(priv_seed).fit(Xs_tr, y_tr)
                elif _is_fitted(teacher):
                    fitted = teacher
                else:
                    fitted = clone(teacher).fit(Xs_tr, y_tr)
                self.teacher_ = fitted
                Q_tr = _teacher_matrix(
                    fitted.predict_proba(Xs_tr), self.classes_,
                    getattr(fitted, "classes_", None),
                )
            self.teacher_proba_ = Q_tr
            Qc = np.ascontiguousarray(Q_tr[:, cols])
            scale = 1.0 + alpha

            def grad(P, Q):
                return (Y_tr[:, cols] - P) - alpha * (P - Qc), scale * P * (1.0 - P)

            def loss(raw, raw_p):
                return float(np.mean(privileged_loss(raw, Y_tr, Q_tr, alpha)))

            return self._boost(X_tr, Y_tr, gradient_fn=grad, loss_fn=loss,
                               X_val=X_val, Y_val=Y_val, rs=rs_student)

        # JPIB
        Xs32 = np.ascontiguousarray(X_star, dtype=np.float32)
        Xs_tr = Xs32[tr] if va is not None else Xs32
        self._n_privileged = X_star.shape[1]
        scale = 1.0 + alpha

        def grad(P, Q):
            return (Y_tr[:, cols] - P) - alpha * (P - Q), scale * P * (1.0 - P)

        def pgrad(Q, P):
            return (Y_tr[:, cols] - Q) - alpha * (Q - P), scale * Q * (1.0 - Q)

        def loss(raw, raw_p):
            q = raw_to_proba(raw_p)
            return float(np.mean(privileged_loss(raw, Y_tr, q, alpha)))

        return self._boost(X_tr, Y_tr, gradient_fn=grad, loss_fn=loss,
                           X_val=X_val, Y_val=Y_val, rs=rs_student,
                           X_priv=Xs_tr, rs_priv=np.random.RandomState(priv_seed),
                           priv_gradient_fn=pgrad)

    def _fit_hist(self, X, y, privileged_features, alpha, teacher, teacher_is_array):
        """The histogram engine: XGBoost on soft labels (``_hist``, ``_hist_dask``)."""
        need_priv = self.mode == "jpib" or (self.mode == "kbpib" and not teacher_is_array)
        d = self._prepare_hist(X, y, privileged_features if self.mode != "nf" else None,
                               need_priv)
        self._privileged_categorical_columns = categorical_names(d.Xs)
        K = self.n_classes_
        rs_student, priv_seed = _seeds(self.random_state)
        seed = int(rs_student.randint(_MAX_SEED))
        dist = d.client is not None
        run = partial(boost_dask, d.client) if dist else boost
        run_jpib = partial(boost_jpib_dask, d.client) if dist else boost_jpib
        early = dict(X_val=d.X_val, Y_val=d.Y_val, n_iter_no_change=self.n_iter_no_change,
                     tol=self.tol)
        stops = d.X_val is not None
        own = dict(params=self._hist_params(seed, builtin=True, distributed=dist), objective=None)
        custom = dict(params=self._hist_params(seed, builtin=False, distributed=dist),
                      objective=partial(soft_label_objective, n_outputs=1 if K == 2 else K))
        # XGBoost's own objectives where they apply; the soft-label objective for
        # soft labels of more than two classes, and on a cluster when it stops
        # early (its validation metric must see margins, see _hist_dask)
        own_or_custom = custom if dist and stops else own
        soft = own_or_custom if K == 2 else custom
        nf_label = (d.Y[:, 1] if K == 2 else d.y) if own_or_custom is own else (
            d.Y[:, 1] if K == 2 else d.Y)
        self.teacher_ = self.teacher_proba_ = self.privileged_booster_ = None
        if self.mode == "kbpib":
            Q = self._teacher_proba_hist(d, teacher, teacher_is_array, priv_seed)
            self.teacher_proba_ = None if dist else Q  # on a cluster Q stays there
        if self.mode == "nf" or alpha == 0:
            # no KL term: the engine's own model; JPIB's privileged trees do not
            # feed back and are the NF model on X* for as many rounds
            self.booster_, val = run(d.X, nf_label, None, d.init, n_rounds=self._n_est,
                                     **own_or_custom, **early)
            if self.mode == "jpib":
                self.privileged_booster_, _ = run(
                    d.Xs, d.Y[:, 1] if K == 2 else d.y, None, d.init, **own,
                    n_rounds=int(self.booster_.num_boosted_rounds()))
        elif self.mode == "kbpib":
            T = (d.Y + alpha * Q) / (1.0 + alpha)
            self.booster_, val = run(d.X, T[:, 1] if K == 2 else T, 1.0 + alpha, d.init,
                                     n_rounds=self._n_est, **soft, **early)
        else:
            self.booster_, self.privileged_booster_, val = run_jpib(
                d.X, d.Xs, d.Y, alpha, d.init, n_rounds=self._n_est, **soft, **early)
        if self.mode == "jpib":
            self._n_privileged = d.Xs.shape[1]
        return self._finish_hist(d.init, val)

    def _teacher_proba_hist(self, d, teacher, teacher_is_array, priv_seed):
        """The teacher's probabilities on the training rows (KbPIB, hist engine)."""
        n = d.X.shape[0]
        if d.client is not None and (teacher_is_array or (teacher is not None and not _is_fitted(teacher))):
            raise TypeError(
                "with dask collections, teacher must be None (a booster on X* is fitted on the "
                "cluster) or a fitted estimator whose predict_proba takes a dask array."
            )
        if teacher_is_array:
            Qfull = _teacher_matrix(teacher, self.classes_)
            n_all = n if d.rows is None else n + d.X_val.shape[0]
            if Qfull.shape[0] != n_all:
                raise ValueError(
                    f"teacher has {Qfull.shape[0]} rows of probabilities but X has {n_all} samples."
                )
            return Qfull if d.rows is None else Qfull[d.rows]
        labels = self.classes_[d.y] if d.client is None else d.y.map_blocks(
            _decode_block, self.classes_, dtype=self.classes_.dtype)
        if teacher is None:
            fitted = self._nf_copy(priv_seed).fit(d.Xs, labels)
        elif _is_fitted(teacher):
            fitted = teacher
        else:
            fitted = clone(teacher).fit(d.Xs, labels)
        self.teacher_ = fitted
        if d.client is None:
            return _teacher_matrix(fitted.predict_proba(d.Xs), self.classes_,
                                   getattr(fitted, "classes_", None))
        # on a cluster: ask for one row first, so that a teacher that does not
        # take dask arrays cannot pull X* to the client
        probe = fitted.predict_proba(d.Xs[:1])
        if not is_dask_collection(probe):
            raise TypeError(
                f"teacher {type(fitted).__name__}.predict_proba returned "
                f"{type(probe).__name__} for a dask array; it must return a dask array."
            )
        _teacher_matrix(np.asarray(probe.compute()), self.classes_, getattr(fitted, "classes_", None))
        Q = as_dask_array(fitted.predict_proba(d.Xs), "teacher.predict_proba(privileged_features)", 2)
        check_aligned(d.Xs, {"teacher.predict_proba(privileged_features)": Q})
        return Q

    # pandas' categorical columns of X* go to this class's own boosters (the NF
    # teacher of KbPIB, the privileged trees of JPIB) as they are
    _privileged_categories = True

    def _privileged_rows(self, privileged_features):
        """Privileged rows to predict from (histogram engine): a float array, or
        a DataFrame whose categorical columns are those of the fit."""
        n = np.shape(privileged_features)[0] if np.ndim(privileged_features) else 0
        fitted = getattr(self, "_privileged_categorical_columns", ())
        cats = frame_categories(privileged_features, "privileged_features", True)
        if fitted or cats:
            self._check_categorical_columns(privileged_features, cats, fitted,
                                            name="privileged_features")
        return self._check_privileged_hist(privileged_features, n)

    def predict_privileged_proba(self, privileged_features):
        """Probabilities of the privileged model (the teacher) from ``X*``.

        Available for ``mode="jpib"`` and for ``mode="kbpib"`` when the teacher
        is an estimator. Useful to measure how informative ``X*`` is.

        Parameters
        ----------
        privileged_features : array-like of shape (n_samples, n_privileged)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        if privileged_features is None:
            raise ValueError("privileged_features is required: the privileged model's "
                             "probabilities are computed from X*.")
        hist = getattr(self, "_engine", "exact") == "hist"
        if hist and self.mode == "jpib":
            if is_dask_collection(privileged_features):
                Xs = as_dask_array(privileged_features, "privileged_features", 2)
            else:
                Xs = self._privileged_rows(privileged_features)
            if Xs.shape[1] != self._n_privileged:
                raise ValueError(
                    f"privileged_features has {Xs.shape[1]} columns but the model "
                    f"was fitted with {self._n_privileged}."
                )
            if is_dask_collection(Xs):
                return predict_proba_dask(self.privileged_booster_, Xs, self._init)
            return margin_to_proba(predict_margin(self.privileged_booster_, Xs, self._init))
        if self.mode == "kbpib" and self.teacher_ is not None and is_dask_collection(privileged_features):
            return self.teacher_.predict_proba(privileged_features)
        Xs = self._privileged_rows(privileged_features) if hist else self._check_privileged_exact(
            privileged_features, np.asarray(privileged_features).shape[0])
        if self.mode == "jpib":
            if Xs.shape[1] != self._n_privileged:
                raise ValueError(
                    f"privileged_features has {Xs.shape[1]} columns but the model "
                    f"was fitted with {self._n_privileged}."
                )
            Xs32 = np.ascontiguousarray(Xs, dtype=np.float32)
            return raw_to_proba(self._raw_predict_with(self.privileged_estimators_, Xs32))
        if self.mode == "kbpib" and self.teacher_ is not None:
            return self.teacher_.predict_proba(Xs)
        raise ValueError(
            "predict_privileged_proba needs mode='jpib' or a KbPIB teacher "
            f"estimator (mode={self.mode!r}, teacher_={self.teacher_!r})."
        )
