"""Feature relevance intervals (minrel, maxrel) with permutation noise thresholds."""

import copy
import itertools
import numbers
import os
import threading
import warnings
from collections import Counter
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted
from tqdm import tqdm

from .._validation import NON_NEGATIVE, POSITIVE, UNIT_OPEN
from ._constrained import constrained_bounds, redundancy_groups, redundancy_links
from ._cv import _CV, _N_JOBS, C_GRID, GAMMA_GRID, _check_grid, _select_C, _select_C_gamma
from ._engine import FALLBACKS, SOLVERS
from ._lp import OrdinalLP
from ._ordinal import CONSTRAINTS, OrdinalRegressionLP, check_fit_inputs
from ._regression import L1SVR, check_regression_inputs
from ._tasks import Probe, RelevanceTask
from ._thresholds import TOL, classify_relevance, prediction_interval

__all__ = ["FeatureRelevanceBounds"]

_PROBES = ("append", "replace")
#: ``screening="auto"`` screens from this many features on.
SCREENING_MIN_FEATURES = 100
#: Below this share of the optimal model's objective (of 1 if that is smaller), its
#: L1 penalty is within the LP solver's tolerances (HiGHS': 1e-7) of the loss, so
#: which near-optimal model HiGHS returns, and the normalised bounds, are decided by
#: those tolerances rather than by the data.
MIN_PENALTY_SHARE = 1e-6


#: Progress bars of running parallel fits in this process: token -> (bar, lock).
_BARS = {}
_BAR_TOKENS = itertools.count()


class _BarHandle:
    """A picklable handle on a progress bar of the process that fits.

    Chunks that run in threads of that process (joblib's default here) move
    the bar task by task, under a lock; in another process (loky or Dask
    workers) :meth:`update` does nothing and the parent moves the bar when the
    chunk returns.
    """

    def __init__(self, token):
        self.pid, self.token = os.getpid(), token

    def update(self, n=1):
        """Move the bar by ``n``; return whether it moved."""
        entry = _BARS.get(self.token) if os.getpid() == self.pid else None
        if entry is None:
            return False
        bar, lock = entry
        with lock:
            bar.update(n)
        return True


class _ChunkProgress:
    """Counts the tasks of one chunk that reached the bar."""

    def __init__(self, handle):
        self.handle, self.shown = handle, 0

    def update(self, n=1):
        if self.handle.update(n):
            self.shown += n


def _run_chunk(c, lp, tasks, budget, handle=None, screen_below=None):
    """Chunk ``c`` of the tasks; returns ``(c, values, screened, tasks shown on the bar,
    engine)`` (the copy's engine: its fallbacks and failed probes)."""
    # a private copy per chunk: probe columns are written into the LP and HiGHS
    # instances hold state, so threads must not share them (the copy drops the
    # HiGHS instances; each chunk builds its own)
    progress = None if handle is None else _ChunkProgress(handle)
    own = copy.deepcopy(lp)
    values = own.run_tasks(tasks, budget, progress=progress, screen_below=screen_below)
    screened = [t.target in own.engine.screened for t in tasks]
    return c, values, screened, (0 if progress is None else progress.shown), own.engine


def _normalised(values, scale):
    """``values`` divided by ``scale``, with values up to 1e-11 set to 0 (NaN stays NaN)."""
    values = np.asarray(values, dtype=float) / scale
    return np.where(values <= 1e-11, 0.0, values)


class FeatureRelevanceBounds(SelectorMixin, BaseEstimator):
    r"""All-relevant feature selection by relevance intervals (ordinal or regression).

    Fits the L1 ordinal SVM (:class:`OrdinalRegressionLP`), or with
    ``problem="regression"`` the L1 support vector regression
    (:class:`L1SVR`), with optimum :math:`\mu_X`, then, for every feature
    :math:`j`, solves the linear programs

    .. math::

        &\mathrm{minrel}(j) = \min |w_j|, \qquad
        \mathrm{maxrel}(j) = \max |w_j| \\
        &\quad \text{s.t. the margin constraints and}\quad
        \tfrac12\|w\|_1 + C\textstyle\sum\text{slacks} \le (1+\delta)\mu_X

    (``maxrel`` as the larger of two LPs, :math:`\max \pm w_j`). The
    interval ``[minrel, maxrel]`` is the range of weights that
    near-optimal models give the feature. Noise thresholds follow Section 3.3
    of Pfannschmidt et al.: ``n_permutations`` permuted copies of randomly
    drawn features (probes) give populations of minrel and maxrel for
    irrelevant features, and a Student-t prediction interval with coverage
    ``p`` decides whether a feature's bounds exceed the noise.

    With ``fit(X, y, privileged_features=X_star)`` the LUPI model is used
    (slacks replaced by privileged correcting functions) and the privileged
    features get their own intervals (relevance
    :math:`|v_{0k}| + |v_{1k}|` of privileged feature :math:`k` in the two
    correcting functions), probes and classes.

    :meth:`constrained_intervals` recomputes the intervals with some
    features' relevance fixed, and :meth:`get_grouping` groups the weakly
    relevant features that stand in for each other.

    Parameters
    ----------
    C : float or None, default=None
        Slack weight; ``None`` chooses it among ``C_grid`` by ``cv``-fold
        cross-validated macro-averaged MAE.
    delta : float, default=0.1
        Tolerated relative increase of the objective, :math:`\delta \ge 0`.
    n_permutations : int, default=50
        Number of probes per population (at least 2).
    p : float, default=0.999
        Coverage probability of the prediction intervals, in (0, 1).
    constraints : {"explicit", "implicit"}, default="explicit"
        Threshold form of the ordinal model (LUPI needs ``"explicit"``).
    probes : {"append", "replace"}, default="append"
        ``"append"``: a probe is an extra column (a permuted copy of a feature)
        added to the data, so its LP is always feasible; ``"replace"``: the
        probe replaces the feature it was drawn from, as in the paper's
        :math:`X^{p(\mathcal I)}` (probes whose LP becomes infeasible, because
        the model cannot do without that feature, are dropped, as in ``fri``).
    gamma : float or None, default=None
        Weight of the correcting functions' L1 norm (LUPI only). ``None``
        chooses it by cross-validation among ``gamma_grid``, jointly with C
        when ``C=None`` (:func:`select_C_gamma`; validation predicts from the
        regular features only).
    C_grid : sequence of float or None, default=None
        Candidates for C when ``C=None`` (default ``logspace(-2, 2, 9)``).
    gamma_grid : sequence of float or None, default=None
        Candidates for gamma when ``gamma=None`` (default ``(0.1, 1, 10)``).
    cv : int, default=5
        Folds for the choice of C (and gamma).
    n_jobs : int or None, default=None
        Parallel LP solves and cross-validation folds with joblib (``None``:
        sequential). Threads by default, since HiGHS releases the GIL while it
        solves; a backend set by the caller (``joblib.parallel_config``, e.g.
        Dask) takes precedence.
    random_state : int, RandomState instance or None, default=None
        Probes and cross-validation folds.
    solver : {"auto", "primal", "dual"}, default="auto"
        How the upper bounds (maxrel, and the minrel read off them) are
        computed; the bounds agree to the LP tolerance either way.
        ``"primal"``: HiGHS' simplex on each relevance LP, restarted from the
        optimal model's basis. ``"dual"``: a parametric search over the LP's
        Lagrangian dual, exact by a chord certificate (plain model only;
        faster with many samples, see the chapter on the theory). ``"auto"``:
        ``"dual"`` for the plain model with at least 200 margin rows (about
        125 samples with five levels), else ``"primal"``; the cross-validation
        path over C (and gamma) runs on the model's LP dual unless
        ``solver="primal"``. Replacing probes always use the primal simplex,
        and so does the LUPI model for every relevance LP it solves; with
        ``"auto"`` one solve of the tilted model's LP dual first rules out
        most of a LUPI bound's other signed LPs (weak duality, the same
        bounds; see ``lupikit.relevance._lupi_dual``), ``"primal"`` solves
        them all.
    screening : "auto" or bool, default="auto"
        Certified screening of irrelevant features on the dual route (plain
        model, ``solver`` ``"auto"`` or ``"dual"`` with enough samples): the
        probes are solved first, then each feature's two signed maxrel
        searches stop at the first certified upper bound (weak duality; the
        optimal model's own multipliers, or a checked evaluation of the
        tilted dual) below the probes' noise threshold, once a model with
        that sign of the weight (or 0) is known on the side (else that side
        runs to its exact maximum). A feature whose maxrel is so bounded below
        the threshold is irrelevant for certain; the bound is reported as its
        maxrel (``screened_`` marks it) and its minrel stays exact (0 unless
        the weight keeps one sign on every model within the budget).
        Otherwise the searches run to its exact bounds. The classes are those
        of the exhaustive computation.
        ``"auto"``: from 100 features on (where the saving pays for the
        ordering); ``True``: whenever on the dual route; ``False``: never.
    problem : {"ordinal", "regression"}, default="ordinal"
        The model whose relevance is bounded: the L1 ordinal SVM
        (:class:`OrdinalRegressionLP`; two labels give the binary SVM), or the
        L1 support vector regression (:class:`L1SVR`, real-valued ``y``), each
        with its LUPI variant when ``privileged_features`` are given. Bounds,
        probes, thresholds and classes are the same for both; C is chosen by
        the cross-validated macro-MAE (ordinal) or mean absolute error
        (regression). ``constraints`` concerns the ordinal model only.
    epsilon : float, default=0.1
        Half-width of the regression's insensitive tube, in the units of ``y``
        (``problem="regression"`` only; standardise ``y`` or scale it along).
    verbose : bool or int, default=False
        Show a tqdm progress bar over the bounds (one step per minrel or maxrel
        of a feature or probe). With ``n_jobs``, worker threads move it as
        each bound is done; worker processes (a caller's loky or Dask backend)
        cannot reach it, so it moves when each of their chunks returns.

    Attributes
    ----------
    C_ : float
        The C used.
    gamma_ : float or None
        The gamma used (None without privileged features).
    cv_scores_ : numpy.ndarray or None
        Mean validation macro-MAE of every candidate C (LUPI with
        ``gamma=None``: of every pair, shape ``(len(C_grid), len(gamma_grid))``);
        None if nothing was chosen.
    estimator_ : OrdinalRegressionLP or L1SVR
        The optimal model.
    mu_ : float
        Its objective :math:`\mu_X`.
    scale_ : float
        The L1 norm of the optimal model's weights (regular plus privileged)
        by which all bounds are divided.
    interval_ : numpy.ndarray
        ``[minrel, maxrel]`` of every regular feature, shape
        ``(n_features, 2)``, divided by ``scale_``. Exact, except for the
        features marked in ``screened_``: their maxrel is a certified upper
        bound (the exact value lies between minrel and it, below the noise
        threshold); their minrel is exact too.
    screened_ : numpy.ndarray of bool
        Which features were screened (see ``screening``), shape ``(n_features,)``.
    n_screened_ : int
        How many.
    budget_ : float
        The budget :math:`(1+\delta)\mu_X` of the relevance LPs (LP units).
    relevance_classes_ : numpy.ndarray
        0 irrelevant, 1 weakly relevant, 2 strongly relevant, shape
        ``(n_features,)``.
    probe_values_ : dict
        ``{"min": array, "max": array}`` normalised bounds of the probes
        (NaN for dropped infeasible probes).
    prediction_intervals_ : dict
        ``{"min": (low, high), "max": (low, high)}``.
    interval_privileged_ : numpy.ndarray or None
        Intervals of the privileged features, shape ``(n_privileged, 2)``.
    relevance_classes_privileged_ : numpy.ndarray or None
        Classes of the privileged features.
    probe_values_privileged_ : dict or None
        Probe bounds of the privileged population.
    prediction_intervals_privileged_ : dict or None
        Noise intervals of the privileged population.
    n_lps_ : int
        Number of linear programs of the formulation (minrel 1, maxrel 2 per
        regular feature or probe, 1 and 4 per privileged one); fewer are
        solved: a regular minrel is read off its two maxrel LPs, a
        privileged one is skipped when a known solution certifies 0, and on
        the dual route the second of a regular feature's (or probe's) two
        maxrel LPs stops early once a certificate shows it cannot change
        either bound.
    fallbacks_ : dict
        How often each fast path of the solver failed during ``fit`` and its
        exact route answered instead (every key of
        ``lupikit.relevance._engine.FALLBACKS``, with counts; all 0 in an
        ordinary fit): ``"fold_path"`` (a cross-validation fold solved as its
        own LP), ``"model_path"``, ``"screening"``, ``"dual_search"`` (a bound
        settled by the primal LP), ``"tight_retry"``, ``"warm_start"`` (a
        bound settled by a cold solve) and ``"lp_retry"`` (a cold solve
        decided by HiGHS' interior point or at tight tolerances). The answers
        are the exact route's; only the time differs.
    n_probes_failed_ : int
        Probes (regular and privileged) whose LP no route could decide (cold,
        interior point, tight tolerances); like infeasible probes they are
        dropped from the noise population, with a warning.
    n_features_in_ : int
        Number of regular features.

    Examples
    --------
    >>> from lupikit.datasets import make_ordinal_relevance
    >>> from lupikit.relevance import FeatureRelevanceBounds
    >>> X, y, truth = make_ordinal_relevance(
    ...     n_samples=150, n_strong=2, n_weak=2, n_irrelevant=3, random_state=0)
    >>> frb = FeatureRelevanceBounds(C=1.0, n_permutations=20, random_state=0).fit(X, y)
    >>> frb.interval_.shape
    (7, 2)
    >>> frb.relevance_classes_.tolist()
    [2, 2, 1, 1, 0, 0, 0]
    >>> frb.get_support().tolist() == (truth > 0).tolist()
    True
    """

    _parameter_constraints = {
        "C": [POSITIVE, None],
        "delta": [NON_NEGATIVE],
        "n_permutations": [Interval(Integral, 2, None, closed="left")],
        "p": [UNIT_OPEN],
        "constraints": [CONSTRAINTS],
        "probes": [StrOptions(set(_PROBES))],
        "gamma": [POSITIVE, None],
        # each value is checked in fit (check_nonempty_grid)
        "C_grid": ["array-like", None],
        "gamma_grid": ["array-like", None],
        "cv": [_CV],
        "n_jobs": _N_JOBS,
        "random_state": ["random_state"],
        "solver": [StrOptions(set(SOLVERS))],
        "screening": [StrOptions({"auto"}), "boolean"],
        "problem": [StrOptions({"ordinal", "regression"})],
        "epsilon": [NON_NEGATIVE],
        "verbose": ["verbose"],
    }

    def __init__(self, C=None, delta=0.1, n_permutations=50, p=0.999,
                 constraints="explicit", probes="append", gamma=None, C_grid=None,
                 gamma_grid=None, cv=5, n_jobs=None, random_state=None, solver="auto",
                 screening="auto", problem="ordinal", epsilon=0.1, verbose=False):
        self.C = C
        self.delta = delta
        self.n_permutations = n_permutations
        self.p = p
        self.constraints = constraints
        self.probes = probes
        self.gamma = gamma
        self.C_grid = C_grid
        self.gamma_grid = gamma_grid
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.solver = solver
        self.screening = screening
        self.problem = problem
        self.epsilon = epsilon
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # the ordinal labels y
        # transform selects columns of X as given
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    # ------------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, privileged_features=None):
        """Compute relevance intervals and classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Integer ordinal labels (two labels: binary classification).
        privileged_features : array-like of shape (n_samples, n_privileged), default=None
            Privileged features (training only).

        Returns
        -------
        self

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            If a hyperparameter is invalid (its message names it), NaN and
            infinity included, or ``C_grid`` / ``gamma_grid`` is empty or holds
            a value that is not a finite number > 0.
        ValueError
            If the features' magnitude is out of the LP solver's range
            (``1e15`` or more), or the labels are not ordinal.
        RuntimeError
            If fewer than two probes of a population give a feasible LP (with
            ``probes="replace"`` and a small ``delta`` no feature may be
            replaceable by noise within the budget): there is no noise
            threshold.

        Warns
        -----
        UserWarning
            If probes were dropped: infeasible ones (``probes="replace"``), or
            ones whose LP HiGHS could not decide by any route
            (``n_probes_failed_``).
        UserWarning
            If the optimal model's L1 penalty is a share below
            ``MIN_PENALTY_SHARE`` (1e-6) of its objective: the features' scale
            (or C) is then outside what the LP solver's tolerances handle, and
            the bounds and classes depend on those tolerances. Standardise the
            features (or lower C).
        """
        C_grid, gamma_grid = self._check_grids()
        X, Xs, classes, yb, y_lab, epsilon = self._check_data(X, y, privileged_features)
        rng = check_random_state(self.random_state)
        fallbacks = Counter()
        gamma = self._choose_C_gamma(X, y_lab, Xs, C_grid, gamma_grid, epsilon, rng, fallbacks)
        lp, budget = self._fit_optimum(X, yb, Xs, classes, epsilon, gamma)
        tasks, n_real = self._relevance_tasks(X, Xs, lp, rng)
        scale = self._bound_scale(Xs)
        real, probe, flags = self._solve_bounds(lp, tasks, n_real, budget, scale, fallbacks)
        self._record_solves(lp, fallbacks, flags, X.shape[1])
        self._classify(real, probe, X.shape[1], Xs)
        return self

    # the stages of fit, in their order
    def _check_grids(self):
        """The candidate grids ``(C_grid, gamma_grid)``, checked (None where not given)."""
        C_grid = None if self.C_grid is None else _check_grid(self.C_grid, "C_grid")
        gamma_grid = None if self.gamma_grid is None else _check_grid(self.gamma_grid,
                                                                       "gamma_grid")
        return C_grid, gamma_grid

    def _check_data(self, X, y, privileged_features):
        """Check the data of ``fit``.

        Returns
        -------
        X, Xs : ndarray
            The regular and the privileged features (``Xs`` None without them).
        classes : ndarray or None
            The ordinal labels (None for regression).
        yb : ndarray
            The target of the LP: label indices, or the regression's values.
        y_lab : ndarray
            The target of the cross-validation: the labels, or the values.
        epsilon : float or None
            The regression's tube half-width (None for the ordinal model).
        """
        if self.problem == "regression":
            X, yb, Xs = check_regression_inputs(self, X, y, privileged_features)
            classes, y_lab, epsilon = None, yb, float(self.epsilon)
        else:
            X, classes, yb, Xs = check_fit_inputs(self, X, y, privileged_features)
            y_lab, epsilon = classes[yb], None
        if Xs is not None and self.solver == "dual":
            raise ValueError(
                "solver='dual' covers the plain model only; with privileged_features "
                "use solver='auto' or 'primal'.")
        return X, Xs, classes, yb, y_lab, epsilon

    def _choose_C_gamma(self, X, y_lab, Xs, C_grid, gamma_grid, epsilon, rng, fallbacks):
        """Set ``C_``, ``gamma_`` and ``cv_scores_``, cross-validating what is not given;
        return the gamma of the model's LP (1 without privileged features)."""
        grid = C_GRID if C_grid is None else tuple(C_grid)
        if self.C is not None:
            grid = (float(self.C),)
        if Xs is not None and self.gamma is None:
            g_grid = GAMMA_GRID if gamma_grid is None else tuple(gamma_grid)
            self.C_, self.gamma_, self.cv_scores_ = _select_C_gamma(
                X, y_lab, Xs, list(grid), list(g_grid), self.cv, rng, self.n_jobs,
                self.solver, epsilon, fallbacks)
        else:
            self.gamma_ = None if Xs is None else float(self.gamma)
            if self.C is None:
                self.C_, self.cv_scores_ = _select_C(
                    X, y_lab, Xs, list(grid), self.constraints,
                    1.0 if self.gamma_ is None else self.gamma_, self.cv, rng, self.n_jobs,
                    self.solver, epsilon, fallbacks)
            else:
                self.C_, self.cv_scores_ = float(self.C), None
        if self.C is not None:
            self.C_ = float(self.C)
        return 1.0 if self.gamma_ is None else self.gamma_

    def _fit_optimum(self, X, yb, Xs, classes, epsilon, gamma):
        """Solve the optimal model: set ``estimator_``, ``mu_`` and ``budget_``.

        Returns
        -------
        lp : OrdinalLP
            The model's LP, with a probe slot.
        budget : float
            The budget of the relevance LPs (LP units).
        """
        regression = classes is None
        lp = OrdinalLP(X, yb, 2 if regression else classes.size, self.C_, self.constraints,
                       X_star=Xs, gamma=gamma, probe=True, solver=self.solver, epsilon=epsilon)
        if regression:
            self.estimator_ = L1SVR(C=self.C_, epsilon=epsilon, gamma=gamma)._store(lp)
        else:
            self.estimator_ = OrdinalRegressionLP(
                C=self.C_, constraints=self.constraints, gamma=gamma)._store(lp, classes)
        mu = self.estimator_.objective_
        self.mu_ = mu
        self._warn_if_beyond_tolerances(X, Xs, gamma)
        budget = (1 + self.delta) * mu + 1e-7 * max(1.0, abs(mu))
        self.budget_ = float(budget)
        # what constrained_intervals needs to build the same LP again (copies of the data)
        self._model_data = dict(X=X, y=yb, n_bins=2 if regression else classes.size, C=self.C_,
                                constraints=self.constraints, X_star=Xs, gamma=gamma,
                                epsilon=epsilon)
        return lp, budget

    def _relevance_tasks(self, X, Xs, lp, rng):
        """The relevance LPs to solve, and set ``n_lps_``.

        Returns
        -------
        tasks : list of RelevanceTask
            The (minrel, maxrel) pairs of the regular features, of the privileged
            ones, then of the regular probes and of the privileged probes.
        n_real : int
            How many of them are features' (not probes').
        """
        d, p_ = X.shape[1], (0 if Xs is None else Xs.shape[1])
        tasks = [RelevanceTask(kind, j) for j in range(d) for kind in ("min", "max")]
        tasks += [RelevanceTask(kind, k) for k in range(p_) for kind in ("pmin", "pmax")]
        n_real = len(tasks)
        tasks += self._probe_tasks(X, lp.D - 1, "regular", rng)
        if Xs is not None:
            tasks += self._probe_tasks(Xs, lp.P - 1, "privileged", rng)

        # LP count: minrel 1, maxrel 2 (regular) / 4 (privileged) each
        per = {"min": 1, "max": 2, "pmin": 1, "pmax": 4}
        self.n_lps_ = int(sum(per[t.kind] for t in tasks))
        return tasks, n_real

    def _bound_scale(self, Xs):
        """Set ``scale_`` and return it: the optimal model's L1 norm (1 if it is 0)."""
        w_l1 = np.abs(self.estimator_.coef_).sum()
        if Xs is not None:
            w_l1 += np.abs(self.estimator_.coef_privileged_).sum()
        if w_l1 <= 1e-12:
            warnings.warn(
                "The optimal model has all weights zero (C too small for the scale of the "
                "features?); relevance bounds are reported unnormalised.", UserWarning,
                stacklevel=4)  # the caller of fit (behind _fit_context's wrapper)
            w_l1 = 1.0
        self.scale_ = float(w_l1)
        return w_l1

    def _solve_bounds(self, lp, tasks, n_real, budget, scale, fallbacks):
        """Solve the relevance LPs (screening if it applies, see ``_screens``).

        Returns
        -------
        real, probe : ndarray
            The normalised values of the features' and of the probes' tasks.
        flags : list of bool
            Whether each feature's task was screened.
        """
        screening = self._screens(lp, lp.d)  # (lp.d: the regular features)
        self._failed_probes = set()
        if screening:
            return self._solve_screened(lp, tasks, n_real, budget, scale, fallbacks)
        values, flags = self._solve_all(lp, tasks, budget, fallbacks)
        values = _normalised(values, scale)
        return values[:n_real], values[n_real:], flags

    def _solve_screened(self, lp, tasks, n_real, budget, scale, fallbacks):
        """:meth:`_solve_bounds` with screening: the probes first, since their noise
        threshold decides which features need an exact maxrel (see screened_)."""
        probe, _ = self._solve_all(lp, tasks[n_real:], budget, fallbacks)
        probe = _normalised(probe, scale)
        m = self.n_permutations
        maxima = probe[1:2 * m:2]
        threshold = None  # (too few feasible probes: the exact bounds, and fit raises)
        if np.count_nonzero(~np.isnan(maxima)) >= 2:
            high = prediction_interval(maxima, self.p)[1]
            # certified below the threshold that classify_relevance applies (LP units)
            threshold = (high + TOL) * scale * (1.0 - 1e-9)
        real, flags = self._solve_all(lp, tasks[:n_real], budget, fallbacks,
                                      screen_below=threshold)
        return _normalised(real, scale), probe, flags

    def _record_solves(self, lp, fallbacks, flags, d):
        """Set ``fallbacks_``, ``n_probes_failed_``, ``screened_`` and ``n_screened_``."""
        fallbacks.update(lp.engine.fallbacks)  # the model's own solves
        self.fallbacks_ = {key: int(fallbacks[key]) for key in FALLBACKS}
        self.n_probes_failed_ = len(self._failed_probes)
        self.screened_ = np.array([flags[2 * j + 1] for j in range(d)], dtype=bool)
        self.n_screened_ = int(self.screened_.sum())

    def _classify(self, real, probe, d, Xs):
        """Set the intervals, the probes' values, their noise intervals and the classes,
        of the regular features and of the privileged ones (None without them)."""
        self.interval_ = real[: 2 * d].reshape(d, 2)
        m = self.n_permutations
        self.probe_values_ = {"min": probe[0:2 * m:2], "max": probe[1:2 * m:2]}
        self.prediction_intervals_ = self._intervals(self.probe_values_, "regular")
        self.relevance_classes_ = classify_relevance(
            self.interval_, self.prediction_intervals_["min"], self.prediction_intervals_["max"])
        if Xs is not None:
            self.interval_privileged_ = real[2 * d:].reshape(Xs.shape[1], 2)
            self.probe_values_privileged_ = {
                "min": probe[2 * m::2], "max": probe[2 * m + 1::2]}
            self.prediction_intervals_privileged_ = self._intervals(
                self.probe_values_privileged_, "privileged")
            self.relevance_classes_privileged_ = classify_relevance(
                self.interval_privileged_, self.prediction_intervals_privileged_["min"],
                self.prediction_intervals_privileged_["max"])
        else:
            self.interval_privileged_ = None
            self.probe_values_privileged_ = None
            self.prediction_intervals_privileged_ = None
            self.relevance_classes_privileged_ = None

    def _warn_if_beyond_tolerances(self, X, Xs, gamma):
        """Warn if the optimal model's L1 penalty is lost in the LP solver's tolerances.

        The relevance LPs weigh the penalty against the loss: with features on a
        large scale (or a large C) the optimal weights, and so the penalty, are
        tiny next to the loss, and the model that HiGHS returns among the
        near-optimal ones, its L1 norm ``scale_`` and the bounds are then
        decided by its tolerances (all of them move when ``X`` is multiplied by
        a constant, though the problem only changes its scale).
        """
        est = self.estimator_
        penalty = 0.5 * np.abs(est.coef_).sum()
        if Xs is not None:
            penalty += 0.5 * gamma * np.abs(est.coef_privileged_).sum()
        share = penalty / max(abs(self.mu_), 1.0)
        if 0 < share < MIN_PENALTY_SHARE:
            big = np.abs(X).max(initial=0.0)
            if Xs is not None:
                big = max(big, np.abs(Xs).max(initial=0.0))
            warnings.warn(
                f"The optimal model's L1 penalty is only {share:.1e} of its objective: "
                f"the scale of the features (largest |value| {big:.3g}) with C={self.C_:g} is "
                "outside what the LP solver's tolerances (about 1e-7) handle, so the "
                "relevance bounds and classes depend on those tolerances, not on the data. "
                "Standardise the features (e.g. sklearn.preprocessing.StandardScaler) or "
                "lower C.", UserWarning, stacklevel=5)  # fit's caller (via _fit_optimum)

    def _screens(self, lp, d):
        """Whether this fit screens features (see the ``screening`` parameter)."""
        if self.screening is False or lp.engine.route != "dual_path":
            return False
        return self.screening is True or d >= SCREENING_MIN_FEATURES

    def _probe_tasks(self, Z, slot, which, rng):
        m = self.n_permutations
        feats = rng.choice(Z.shape[1], size=m, replace=True)
        kinds = ("min", "max") if which == "regular" else ("pmin", "pmax")
        tasks = []
        for i, f in enumerate(feats):
            probe = Probe(i, which == "privileged", Z[rng.permutation(Z.shape[0]), f],
                          None if self.probes == "append" else int(f))
            tasks += [RelevanceTask(kinds[0], slot, probe), RelevanceTask(kinds[1], slot, probe)]
        return tasks

    def _intervals(self, pop, which):
        out = {}
        for key in ("min", "max"):
            v = pop[key]
            ok = np.count_nonzero(~np.isnan(v))
            if ok < 2:
                raise RuntimeError(
                    f"Only {ok} of {v.size} {which} probes gave a feasible LP; the noise "
                    "threshold needs at least 2. Use probes='append' or a larger delta.")
            out[key] = prediction_interval(v, self.p)
        dropped = int(np.count_nonzero(np.isnan(pop["max"])))
        failed = sum(priv == (which == "privileged") for priv, _ in self._failed_probes)
        if dropped - failed:
            warnings.warn(
                f"{dropped - failed} of {pop['max'].size} {which} probes were infeasible "
                "(their feature cannot be replaced by noise within the budget) and were "
                "dropped.", UserWarning, stacklevel=5)  # fit's caller (via _classify)
        if failed:
            warnings.warn(
                f"{failed} of {pop['max'].size} {which} probes were dropped because HiGHS "
                "could not decide their LP (numerical difficulties cold, by interior "
                "point and at tight tolerances; see n_probes_failed_). Standardising the "
                "features usually avoids this.", UserWarning, stacklevel=5)  # (as above)
        return out

    def _solve_all(self, lp, tasks, budget, fallbacks, screen_below=None):
        """The tasks' values, and whether each was screened (see ``run_tasks``); the
        fast paths that failed in a worker's copy of ``lp`` are added to ``fallbacks``
        (those of ``lp`` itself are read at the end of ``fit``), the probes that no
        route decided to ``_failed_probes``."""
        n_jobs = self.n_jobs
        if n_jobs in (None, 1):
            with tqdm(total=len(tasks), disable=not self.verbose, desc="relevance bounds",
                      leave=False) as bar:
                values = lp.run_tasks(tasks, budget, progress=bar, screen_below=screen_below)
            self._failed_probes |= lp.engine.failed_probes
            return values, [t.target in lp.engine.screened for t in tasks]
        k = max(1, effective_n_jobs(n_jobs))
        # tasks come in (lower, upper) pairs of one feature or probe; a pair stays in
        # one chunk, so that the lower bound can be read off its two upper-bound LPs
        pairs = [list(range(i, min(i + 2, len(tasks)))) for i in range(0, len(tasks), 2)]
        idx = [[t for pair in pairs[c::k] for t in pair] for c in range(k)]
        # threads by default: HiGHS releases the GIL while it solves, so threads scale
        # without the start-up of worker processes (a backend set by the caller, e.g.
        # Dask, takes precedence)
        out = [None] * len(tasks)
        flags = [False] * len(tasks)
        with tqdm(total=len(tasks), disable=not self.verbose, desc="relevance bounds",
                  leave=False) as bar:
            token = next(_BAR_TOKENS) if self.verbose else None
            if token is not None:
                _BARS[token] = (bar, threading.Lock())
            handle = None if token is None else _BarHandle(token)
            try:
                done = Parallel(n_jobs=k, prefer="threads", return_as="generator_unordered")(
                    delayed(_run_chunk)(c, lp, [tasks[t] for t in ix], budget, handle,
                                        screen_below)
                    for c, ix in enumerate(idx))
                for c, values, screened, shown, engine in done:
                    for t, v, f in zip(idx[c], values, screened):
                        out[t], flags[t] = v, f
                    fallbacks.update(engine.fallbacks)
                    self._failed_probes |= engine.failed_probes
                    if token is not None and len(values) > shown:
                        # the chunk ran in another process: count it now
                        with _BARS[token][1]:
                            bar.update(len(values) - shown)
            finally:
                _BARS.pop(token, None)
        return out, flags

    # --------------------------------------------------- constrained intervals
    def constrained_intervals(self, fixed, features=None):
        """Relevance intervals with some features' relevance fixed.

        Every model within the fit's budget that gives the features in
        ``fixed`` exactly those (normalised) relevances is a candidate; the
        other features' intervals are recomputed over those models, exactly
        (the same LPs as ``fit``'s, with the fixed weights held; a non-zero
        value can be taken with either sign of the weight, and the interval
        covers both). Fixing a weakly relevant feature at 0 shows what its
        redundant partners must then carry (their minrel rises; see
        :meth:`get_grouping`). Under the paper's single budget a feature
        usually reaches its maxrel by cancelling against a partner of
        opposite sign, so fixing it at its maxrel pushes the partner away from
        0 rather than to it, and it uses the whole budget: every other
        interval then shrinks to (nearly) one point.

        Parameters
        ----------
        fixed : dict
            ``{feature index: relevance}`` with relevances on the scale of
            ``interval_`` (divided by ``scale_``), each inside the feature's
            interval.
        features : sequence of int or None, default=None
            The features whose intervals are recomputed (default: all); the
            others' rows are NaN.

        Returns
        -------
        intervals : ndarray of shape (n_features, 2)
            ``[minrel, maxrel]`` per feature on the scale of ``interval_``;
            the fixed features' rows are ``[value, value]``.

        Raises
        ------
        ValueError
            If ``fixed`` is not a non-empty dict, names an unknown feature, or
            holds a value that is not a finite number inside the feature's
            interval, or if no model within the budget has all the fixed values
            together.

        Examples
        --------
        >>> from lupikit.datasets import make_ordinal_relevance
        >>> from lupikit.relevance import FeatureRelevanceBounds
        >>> X, y, _ = make_ordinal_relevance(n_samples=150, n_strong=1, n_weak=2,
        ...                                  n_irrelevant=2, redundancy_noise=0.0,
        ...                                  random_state=0)
        >>> frb = FeatureRelevanceBounds(C=1.0, n_permutations=10, random_state=0).fit(X, y)
        >>> float(frb.interval_[2, 0])     # an exact copy of feature 1: replaceable
        0.0
        >>> pinned = frb.constrained_intervals({1: 0.0})
        >>> bool(pinned[2, 0] > 0.1)        # without feature 1 it is indispensable
        True
        """
        check_is_fitted(self)
        d = self.n_features_in_
        fixed = self._check_fixed(fixed, d)
        if features is None:
            features = [k for k in range(d) if k not in fixed]
        else:
            features = [self._check_index(k, d, "features") for k in features]
            features = [k for k in features if k not in fixed]
        lo, hi = constrained_bounds(self._fresh_lp, {j: v * self.scale_ for j, v in fixed.items()},
                                    features, self.budget_)
        out = np.full((d, 2), np.nan)
        for j, v in fixed.items():
            out[j] = v
        out[features, 0], out[features, 1] = lo / self.scale_, hi / self.scale_
        return np.where(np.abs(out) <= 1e-11, 0.0, out)

    def get_grouping(self, min_share=0.05, return_matrix=False):
        """Groups of relevant features that stand in for each other.

        Two weakly relevant features are redundant partners when each can
        replace the other: fixing one at relevance 0
        (:meth:`constrained_intervals`) makes the other *indispensable*, its
        minrel rising above the noise threshold of minrel (it turns strongly
        relevant), while features that carry other information stay as they
        were. Every weakly relevant feature is removed in turn, and the
        groups are the connected components of these links. A weakly
        relevant feature left without a partner (a member of a larger group,
        which the others replace together) is then removed together with each
        other such feature, and the features that this makes indispensable
        join them. Strongly relevant features stand alone; irrelevant features
        belong to no group.

        Parameters
        ----------
        min_share : float, default=0.05
            How large the forced minrel must be, as a share of the feature's
            own maxrel, besides lying above the noise threshold: when the
            probes' minrel is exactly 0 (as it usually is) the threshold alone
            would count a rise of the order of the LP tolerance, which
            correlated but not interchangeable features show.
        return_matrix : bool, default=False
            Also return the relevant features and the matrix
            ``need[a, b]``: feature ``b``'s minrel (on the scale of
            ``interval_``) when feature ``a`` is fixed at 0 (0 on the diagonal
            and in the strong features' rows).

        Returns
        -------
        groups : list of ndarray
            Every relevant feature in exactly one group, ordered by first feature.
        features, need : ndarray
            Only with ``return_matrix=True``.

        Examples
        --------
        >>> from lupikit.datasets import make_ordinal_relevance
        >>> from lupikit.relevance import FeatureRelevanceBounds
        >>> X, y, _ = make_ordinal_relevance(n_samples=200, n_strong=2, n_weak=4,
        ...                                  n_irrelevant=2, random_state=0)
        >>> frb = FeatureRelevanceBounds(C=1.0, n_permutations=10, random_state=0).fit(X, y)
        >>> [g.tolist() for g in frb.get_grouping()]
        [[0], [1], [2, 3], [4, 5]]
        """
        check_is_fitted(self)
        if isinstance(min_share, bool) or not (
                isinstance(min_share, numbers.Real) and 0 <= min_share < 1):
            raise ValueError(f"min_share must be a number in [0, 1), got {min_share!r}.")
        classes = self.relevance_classes_
        features = np.flatnonzero(classes > 0)
        weak = [int(j) for j in features if classes[j] == 1]
        # a forced minrel counts above the noise threshold and above min_share of maxrel
        threshold = np.maximum(self.prediction_intervals_["min"][1] + TOL,
                               min_share * self.interval_[:, 1])
        need, link = redundancy_links(self.constrained_intervals, features, weak, threshold)
        groups = redundancy_groups(features, link, classes[features] == 2)
        return (groups, features, need) if return_matrix else groups

    def _fresh_lp(self):
        """The fitted model's LP again, on the primal route (fixed weights are column
        bounds there), without a probe slot."""
        data = self._model_data
        return OrdinalLP(data["X"], data["y"], data["n_bins"], data["C"], data["constraints"],
                         X_star=data["X_star"], gamma=data["gamma"], solver="primal",
                         epsilon=data["epsilon"])

    @staticmethod
    def _check_index(k, d, name):
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
            raise ValueError(f"{name} must hold feature indices (integers), got {k!r}.")
        if not 0 <= k < d:
            raise ValueError(f"{name}: feature index {k} is out of range for {d} features.")
        return int(k)

    def _check_fixed(self, fixed, d):
        if not isinstance(fixed, dict) or not fixed:
            raise ValueError(
                "fixed must be a non-empty dict {feature index: relevance value}, "
                f"got {fixed!r}.")
        out = {}
        for k, v in fixed.items():
            j = self._check_index(k, d, "fixed")
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v):
                raise ValueError(f"fixed[{j}] must be a finite number, got {v!r}.")
            lo, hi = self.interval_[j]
            tol = 1e-9 * max(1.0, hi)
            if not lo - tol <= v <= hi + tol:
                raise ValueError(
                    f"fixed[{j}] = {v!r} lies outside feature {j}'s relevance interval "
                    f"[{lo:.6g}, {hi:.6g}]: no model within the budget has that relevance.")
            out[j] = float(min(max(v, lo), hi))
        return out

    def _get_support_mask(self):
        check_is_fitted(self)
        return self.relevance_classes_ > 0
