"""Shared machinery of the classifiers: validation, kernels, multi-class.

Every classifier of this part solves *binary* problems (positive class =
the larger label). With more than two classes it trains one binary model per
pair of classes (``multi_class="ovo"``, the default, as :class:`sklearn.svm.SVC`)
or per class against the rest (``"ovr"``), passing the matching rows of the
privileged features to each binary model.

Hyperparameters are validated by scikit-learn's system: each estimator
declares ``_parameter_constraints`` (extending the base class's dict) and
``fit`` runs under ``_fit_context``, so a bad value raises
:class:`~sklearn.utils._param_validation.InvalidParameterError` naming it.
"""

import contextlib
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (KERNEL, KERNEL_PARAMS, GAMMA, POSITIVE, POSITIVE_INT,
                           check_kernel_output, check_privileged_features)
from ..kernels import kernel_matrix, resolve_gamma
from ._qp import (FALLBACK_KEYS, SOLVERS, certificate_failures, no_fallbacks, qp_matrix,
                  refine_dual, rounding_floor, solve_dual)
from ._smo import _blas_controller

__all__ = ["BaseLUPIClassifier"]

#: fits on at most this many samples run with one BLAS thread (see ``fit``)
_SINGLE_THREAD_MAX_SAMPLES = 3000

#: polishing rounds at most for a dual whose recovered primal fails its
#: certificate (each an SMO solve from the current solution, tighter ``tol``)
_MAX_POLISH = 3

#: constraints of the hyperparameters of the privileged estimators' correcting space
PRIVILEGED_PARAMS = {
    "correction_weight": [POSITIVE],
    "privileged_kernel": [*KERNEL, None],
    "privileged_gamma": GAMMA,
}


def _abs_matvec(K, c, block=512):
    """``|K| @ |c|`` in row blocks (no full-size temporary)."""
    c = np.abs(c)
    out = np.empty(K.shape[0])
    for i in range(0, K.shape[0], block):
        out[i:i + block] = np.abs(K[i:i + block]) @ c
    return out


def _primal_rounding(terms, objective, C):
    """Estimated rounding errors of a primal recovered in kernel form.

    ``terms`` lists ``(weight, coef, K, eta, loss_rows)`` for each function
    ``f = K coef + b`` of the primal: its squared norm enters the objective
    as ``weight * coef'K coef`` (plus ``weight * |eta|^2`` for ``eta =
    (rows, values)``, the values of ``f`` on those rows, if not None) and
    ``C sum`` of a loss of ``f`` over ``loss_rows`` (None: no loss). The
    computed ``f`` is off by about ``eps (|K||coef|)_j`` on row ``j``:
    large when the kernel is badly scaled and the expansion cancels. Returns
    ``{"gap": relative error of the objective, "feasibility": absolute error
    of a constraint}`` (times a safety factor of 4).
    """
    eps = 4 * np.finfo(np.float64).eps
    err, feas = 0.0, 0.0
    for weight, c, K, eta, loss_rows in terms:
        u = _abs_matvec(K, c)
        err += weight * float(np.abs(c) @ u)
        if eta is not None:
            rows, values = eta
            err += 2.0 * weight * float(u[rows] @ np.abs(values))
        if loss_rows is not None:
            err += C * float(u[loss_rows].sum())
            feas = max(feas, float(u[loss_rows].max(initial=0.0)))
    return {"gap": eps * err / max(1.0, abs(objective)), "feasibility": eps * feas}


class _KernelSpec:
    """A (validated) kernel with its width resolved on training data.

    A callable kernel's output is checked at every call: a finite array with
    one row per row of ``X`` and one column per row of ``Y``.
    """

    def __init__(self, kernel, gamma, degree, coef0, X, name="kernel"):
        self.kernel = kernel
        self.name = name
        self.gamma = None if callable(kernel) else resolve_gamma(gamma, X)
        self.degree = degree
        self.coef0 = coef0

    def __call__(self, X, Y=None):
        K = kernel_matrix(X, Y, kernel=self.kernel, gamma=self.gamma,
                          degree=self.degree, coef0=self.coef0)
        if callable(self.kernel):
            K = check_kernel_output(K, X.shape[0], (X if Y is None else Y).shape[0],
                                    name=self.name)
        return K


class _DualMatrix:
    """Rebuilds the matrix ``P`` of a fitted dual QP from the training data.

    A fitted model keeps its dual QPs without ``P`` (quadratic in the number
    of samples; see :meth:`~._qp.DualQP.drop_matrix`) and with this object in
    its place: ``build(K, Ks, **params)`` returns ``P`` (before
    :func:`~._qp.qp_matrix`) from the kernel matrix ``K`` of the rows
    ``order`` of ``X`` and ``Ks``, the privileged kernel matrix of the same
    rows of ``Xs`` (None without privileged features). ``X`` and ``Xs`` are
    the arrays the model was fitted on (shared, not copied). Picklable when
    ``build`` is a module-level function and the kernels are picklable.
    """

    def __init__(self, build, X, kernel, Xs=None, privileged_kernel=None, order=None,
                 assume_symmetric=False, **params):
        self.build = build
        self.X = X
        self.kernel = kernel
        self.Xs = Xs
        self.privileged_kernel = privileged_kernel
        self.order = order
        self.assume_symmetric = assume_symmetric
        self.params = params

    def __call__(self):
        rows = slice(None) if self.order is None else self.order
        K = self.kernel(self.X[rows])
        Ks = None if self.Xs is None else self.privileged_kernel(self.Xs[rows])
        return qp_matrix(self.build(K, Ks, **self.params), self.assume_symmetric)


class BaseLUPIClassifier(ClassifierMixin, BaseEstimator):
    """Base class: subclasses implement ``_fit_binary(X, Xs, y01, label)``.

    ``_fit_binary`` returns an object with ``decision_function(X)`` (positive
    for the positive class) and the attributes ``dual_problems``, ``primal``,
    ``duality_gap`` and ``kkt_residuals``; ``label`` names the binary
    problem in warnings. Each dual QP goes through :meth:`_solve_certified`.
    Subclasses extend ``_parameter_constraints`` with their own
    hyperparameters.
    """

    _uses_privileged = False

    _parameter_constraints = {
        **KERNEL_PARAMS,
        "solver": [StrOptions(set(SOLVERS))],
        "tol": [POSITIVE],
        "max_iter": [POSITIVE_INT, None],
        "multi_class": [StrOptions({"ovo", "ovr"})],
    }

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, privileged_features=None):
        """Fit the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features.
        y : array-like of shape (n_samples,)
            Class labels (two or more classes).
        privileged_features : array-like of shape (n_samples, n_privileged), default=None
            Privileged features ``X*`` (training only). Required by the
            privileged estimators; ignored by the others.

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if self.classes_.shape[0] < 2:
            raise ValueError(
                "y contains only one class; a classifier needs samples of at "
                f"least two classes (got one class: {self.classes_[0]!r})."
            )
        Xs = None
        if self._uses_privileged:
            Xs = check_privileged_features(privileged_features, X.shape[0], required=True)
        self.kernel_ = _KernelSpec(self.kernel, self.gamma, self.degree, self.coef0, X)
        if self._uses_privileged:
            pk = self.kernel if self.privileged_kernel is None else self.privileged_kernel
            self.privileged_kernel_ = _KernelSpec(
                pk, self.privileged_gamma, self.degree, self.coef0, Xs, name="privileged_kernel"
            )
        n_classes = self.classes_.shape[0]
        names = [repr(c) for c in self.classes_.tolist()]
        if n_classes == 2:
            problems = [(1, 0)]
        elif self.multi_class == "ovo":
            problems = [(j, i) for i in range(n_classes) for j in range(i + 1, n_classes)]
        else:
            problems = [(k, None) for k in range(n_classes)]
        self.problems_ = problems
        models = []
        # Small dense problems run with single-threaded BLAS: on a shared
        # machine a threaded BLAS spin-waits on small matrices and can be
        # many times slower; large problems keep the BLAS threads.
        if X.shape[0] <= _SINGLE_THREAD_MAX_SAMPLES:
            limit = _blas_controller().limit(limits=1, user_api="blas")
        else:
            limit = contextlib.nullcontext()
        with limit:
            for pos, neg in problems:
                if neg is None:
                    idx = np.arange(X.shape[0])
                    y01 = (y_idx == pos).astype(int)
                    label = f"class {names[pos]} vs the rest"
                else:
                    idx = np.flatnonzero((y_idx == pos) | (y_idx == neg))
                    y01 = (y_idx[idx] == pos).astype(int)
                    label = f"classes {names[pos]} (positive) vs {names[neg]}"
                models.append(
                    self._fit_binary(X[idx], None if Xs is None else Xs[idx], y01, label=label)
                )
        self.models_ = models
        self.n_iter_ = np.array([qp["n_iter"] for m in models for qp in m.dual_problems])
        return self

    # ------------------------------------------------------ certified solve
    def _solve_certified(self, qp, recover, where, partner=None):
        """Solve the dual ``qp``, recover its primal and certify it.

        ``recover(qp)`` returns ``(primal, kkt, gap, rounding)`` for the
        current solution: the primal (a dict with ``"primal_objective"``),
        its KKT residuals, the relative duality gap and a function returning
        the estimated rounding errors of the recovery
        (:func:`_primal_rounding`, computed only for a warning). The
        certificate (:func:`~._qp.certificate_failures`) asks for a gap and
        KKT residuals -- primal feasibility above all -- at most ``tol``. A
        solution that fails it is polished: :func:`~._qp.refine_dual`
        re-solves the dual from it (a Newton step on its free face, then SMO
        if needed) at a tolerance tightened by the factor of the excess,
        down to the rounding floor of the QP, at most ``_MAX_POLISH`` times;
        each round is counted in ``fallbacks_["polish"]``. A solver stopped
        by the caller's ``max_iter`` is not polished (the cap is the
        caller's). The rounding estimates only shape the warning: they are
        bounds, often far above the actual error, and polishing is cheap.

        One :class:`~sklearn.exceptions.ConvergenceWarning` per dual QP
        reports what remains: a solver stopped at ``max_iter``, and every
        failed check with its value and tolerance, naming the estimator,
        the sub-problem ``where`` and, when it explains the failure, the
        rounding error of the problem.

        Returns
        -------
        primal, kkt, gap : the recovered primal of the final solution.
        """
        solve_dual(qp, self.solver, tol=self.tol, max_iter=self.max_iter, partner=partner,
                   warn=False)
        primal, kkt, gap, rounding = recover(qp)
        bad = certificate_failures(gap, kkt, self.tol)
        capped = not qp["converged"] and self.max_iter is not None
        smo_tol, rounds = float(self.tol), 0
        n = qp["q"].size
        # SMO creeps where the face step of the polish finishes: a modest cap
        max_iter = self.max_iter if self.max_iter is not None else max(500, 5 * n)
        while bad and not capped and rounds < _MAX_POLISH:
            grad_floor, _ = rounding_floor(qp)
            excess = max(value / t if np.isfinite(value) else np.inf for _, value, t in bad)
            new_tol = max(smo_tol / min(max(2.0 * excess, 10.0), 1e6), 2.0 * grad_floor)
            if rounds and new_tol >= smo_tol and qp["converged"]:
                break  # at the rounding floor: SMO cannot do better
            smo_tol = min(new_tol, smo_tol)
            refine_dual(qp, smo_tol, max_iter=max_iter, partner=partner)
            primal, kkt, gap, rounding = recover(qp)
            bad = certificate_failures(gap, kkt, self.tol)
            rounds += 1
        if bad or capped:
            self._warn_uncertified(qp, primal, rounding, bad, where, rounds, capped)
        return primal, kkt, gap

    @staticmethod
    def _rounding_explains(qp, primal, rounding, bad):
        """Whether the estimated rounding errors reach the tolerance of every
        failed check (then the failure may be the arithmetic's, not the
        solver's)."""
        grad_floor, obj_floor = rounding_floor(qp)
        gap_floor = max(rounding["gap"],
                        obj_floor / max(1.0, abs(float(primal["primal_objective"]))))
        other_floor = max(rounding["feasibility"], grad_floor)
        return all((gap_floor if name == "duality gap" else other_floor) >= 0.5 * t
                   for name, _, t in bad)

    def _warn_uncertified(self, qp, primal, rounding, bad, where, rounds, capped):
        parts = [f"{type(self).__name__}: the dual QP of {where}"]
        if capped and qp["solver"] == "cvxopt":
            parts.append(f": cvxopt stopped with status {qp.get('status')!r} after "
                         f"{qp['n_iter']} iterations (max_iter={self.max_iter})")
        elif capped:
            parts.append(f": SMO did not converge in max_iter={self.max_iter} iterations "
                         f"(KKT violation {qp.get('violation', np.nan):.3g} > tol={self.tol:g})")
        if bad:
            checks = "; ".join(f"{name} {value:.3g} > tolerance {t:.3g}"
                               for name, value, t in bad)
            how = f" after {rounds} polishing round(s) by SMO" if rounds else ""
            parts.append(f"{';' if capped else ':'} the primal recovered from it fails its "
                         f"certificate{how} (solver={self.solver!r}, tol={self.tol:g}): {checks}")
        parts.append(".")
        rounding = rounding()
        if bad and self._rounding_explains(qp, primal, rounding, bad):
            grad_floor, obj_floor = rounding_floor(qp)
            floor = max(rounding["gap"], rounding["feasibility"], grad_floor,
                        obj_floor / max(1.0, abs(float(primal["primal_objective"]))))
            parts.append(f" Rounding error alone may reach {floor:.1g} on this problem (a "
                         "badly scaled kernel matrix, a tiny reg or a very large C): "
                         "standardise the features, increase reg or decrease C.")
        else:
            parts.append(" Increase max_iter or tol.")
        warnings.warn("".join(parts), ConvergenceWarning, stacklevel=4)

    # --------------------------------------------------------- fitted info
    def _collect(self, name):
        check_is_fitted(self, "models_")
        values = [getattr(m, name) for m in self.models_]
        return values[0] if len(values) == 1 else values

    @property
    def dual_problems_(self):
        """Dual QPs in standard form (a tuple of :class:`DualQP`; a list of
        such tuples, one per binary problem, with more than two classes).

        The fitted model stores each QP without its matrix ``P`` (quadratic
        in the number of samples): ``P`` is rebuilt from the training data
        when first read, then kept in memory (never pickled)."""
        return self._collect("dual_problems")

    @property
    def primal_(self):
        """Primal solution recovered from the dual (list of dicts per plane)."""
        return self._collect("primal")

    @property
    def duality_gap_(self):
        """Relative duality gap ``(primal - dual) / max(1, |primal|)``."""
        return self._collect("duality_gap")

    @property
    def kkt_residuals_(self):
        """KKT residuals of the primal/dual pair (dict; see the user guide)."""
        return self._collect("kkt_residuals")

    @property
    def fallbacks_(self):
        """How many times a fast route failed and an exact one took over, over
        all the dual QPs of the fit: a dict with the keys
        ``"interior_point"`` and ``"active_set"`` (a phase of SMO raised or
        returned an unusable point; plain SMO went on), ``"face_newton"``
        (the Newton steps on the free face of a polish; SMO's point was
        kept), ``"cvxopt"`` (cvxopt raised or stalled without an optimal
        status; SMO solved the QP), ``"warm_start"`` (a polish could not
        start from the solution; SMO started from the QP's ``x0``) and
        ``"polish"`` (rounds in which a recovered primal failed its
        certificate and the dual was re-solved from its solution at a
        tighter tolerance)."""
        check_is_fitted(self, "models_")
        total = no_fallbacks()
        for m in self.models_:
            for qp in m.dual_problems:
                for key in FALLBACK_KEYS:
                    total[key] += int(qp.get("fallbacks", {}).get(key, 0))
        return total

    @property
    def fit_time_(self):
        """Total time spent in the QP solver(s), in seconds."""
        check_is_fitted(self, "models_")
        return float(sum(qp["solve_time"] for m in self.models_ for qp in m.dual_problems))

    # ------------------------------------------------------------- predict
    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive means
        ``classes_[1]``), else (n_samples, n_classes): one-vs-one votes
        plus a tie-breaking confidence in (-1/3, 1/3) (``"ovo"``), or the
        one-vs-rest decision values (``"ovr"``).
        """
        check_is_fitted(self, "models_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        values = [m.decision_function(X) for m in self.models_]
        n_classes = self.classes_.shape[0]
        if n_classes == 2:
            return values[0]
        if self.multi_class == "ovr":
            return np.column_stack(values)
        votes = np.zeros((X.shape[0], n_classes))
        conf = np.zeros((X.shape[0], n_classes))
        for (pos, neg), v in zip(self.problems_, values):
            votes[:, pos] += v > 0
            votes[:, neg] += v <= 0
            conf[:, pos] += v
            conf[:, neg] -= v
        return votes + conf / (3 * (np.abs(conf) + 1))

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        d = self.decision_function(X)
        if d.ndim == 1:
            return self.classes_[(d > 0).astype(int)]
        return self.classes_[np.argmax(d, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = False
        return tags
