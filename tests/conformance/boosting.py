"""Part I's cases of scikit-learn's ``check_estimator`` (run by tests/test_common.py).

Each entry of ``ESTIMATORS`` is ``(estimator, expected_failed_checks)``. The
privileged modes need ``privileged_features``, which scikit-learn's checks do
not pass: they run through the small wrappers below, which derive the
privileged features per sample from ``X`` (so that every check on subsets,
orders and copies of the rows still sees matching ``X*``). The NF mode takes
none and is checked as it is, on both engines.
"""

from lupikit.boosting import PrivilegedBoostingClassifier, SoftLabelBoostingClassifier
from side_features import derived_privileged_features  # tests/ is on pytest's pythonpath


class PrivilegedFromX(PrivilegedBoostingClassifier):
    """:class:`PrivilegedBoostingClassifier` with ``X*`` derived from ``X`` in ``fit``."""

    def fit(self, X, y):
        return super().fit(X, y, privileged_features=derived_privileged_features(X))


class SoftLabelFromX(SoftLabelBoostingClassifier):
    """:class:`SoftLabelBoostingClassifier` with ``X*`` derived from ``X`` in ``fit``."""

    def fit(self, X, y):
        return super().fit(X, y, privileged_features=derived_privileged_features(X))


ESTIMATORS = [
    (PrivilegedBoostingClassifier(mode="nf", n_estimators=10, engine=engine), {})
    for engine in ("hist", "exact")
] + [
    (PrivilegedFromX(mode=mode, n_estimators=10, engine=engine), {})
    for mode in ("kbpib", "jpib") for engine in ("hist", "exact")
] + [
    (SoftLabelFromX(n_estimators=10, engine=engine), {}) for engine in ("hist", "exact")
]
