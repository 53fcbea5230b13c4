"""scikit-learn's common checks (``check_estimator``) on every estimator of Part III.

Each entry of ``ESTIMATORS`` is ``(estimator, expected_failed_checks)``. The
LUPI models need ``privileged_features``, which scikit-learn's checks do not
pass: they run through the small wrappers below, which derive the privileged
features per sample from ``X`` (so that every check on subsets, orders and
copies of the rows still sees matching ``X*``).

``probes="replace"`` is not among them: by design a replacing probe's LP may be
infeasible (the model cannot do without the replaced feature), and on the
checks' tiny data sets (one feature, say) all of them are, which ``fit``
reports as an error rather than a noise threshold from fewer than two probes.
"""


from lupikit.relevance import L1SVR, FeatureRelevanceBounds, OrdinalRegressionLP
from lupikit.relevance import OrdinalElasticNet, OrdinalLUPIResidualLP
from side_features import derived_privileged_features  # tests/ is on pytest's pythonpath


class OrdinalLupiFromX(OrdinalRegressionLP):
    """:class:`OrdinalRegressionLP` (LUPI model) with ``X*`` derived from ``X`` in ``fit``."""

    def fit(self, X, y):
        return super().fit(X, y, privileged_features=derived_privileged_features(X))


class L1SVRLupiFromX(L1SVR):
    """:class:`L1SVR` (LUPI model) with ``X*`` derived from ``X`` in ``fit``."""

    def fit(self, X, y):
        return super().fit(X, y, privileged_features=derived_privileged_features(X))


class RelevanceLupiFromX(FeatureRelevanceBounds):
    """:class:`FeatureRelevanceBounds` (LUPI model) with ``X*`` derived from ``X`` in ``fit``."""

    def fit(self, X, y):
        return super().fit(X, y, privileged_features=derived_privileged_features(X))


class ResidualLupiFromX(OrdinalLUPIResidualLP):
    """:class:`OrdinalLUPIResidualLP` (the cited LUPI model) with ``X*`` derived from ``X`` in ``fit``."""

    def fit(self, X, y):
        return super().fit(X, y, privileged_features=derived_privileged_features(X))


# the two common checks that do not fit an *ordinal* model
ORDINAL_XFAIL = {
    "check_classifiers_classes": "labels are ordered integer levels; string labels are "
                                 "rejected with a ValueError that says so",
    "check_classifiers_train": "its 3-class blobs are nominal classes that no single linear "
                               "score orders; the binary case is tested in test_ordinal_lp.py",
}

ESTIMATORS = [
    (OrdinalRegressionLP(constraints="explicit"), ORDINAL_XFAIL),
    (OrdinalRegressionLP(constraints="implicit"), ORDINAL_XFAIL),
    (OrdinalLupiFromX(), ORDINAL_XFAIL),
    (OrdinalElasticNet(), ORDINAL_XFAIL),
    (ResidualLupiFromX(), ORDINAL_XFAIL),
    (FeatureRelevanceBounds(C=1.0, n_permutations=5, random_state=0), {}),
    (FeatureRelevanceBounds(n_permutations=5, cv=3, random_state=0), {}),  # C by CV
    (FeatureRelevanceBounds(C=1.0, constraints="implicit", n_permutations=5,
                            random_state=0), {}),
    (RelevanceLupiFromX(C=1.0, gamma=1.0, n_permutations=5, random_state=0), {}),
    (RelevanceLupiFromX(n_permutations=5, cv=3, random_state=0), {}),  # C and gamma by CV
    (L1SVR(), {}),
    (L1SVR(epsilon=0.0), {}),
    (L1SVRLupiFromX(), {}),
    (FeatureRelevanceBounds(problem="regression", C=1.0, n_permutations=5, random_state=0), {}),
    (FeatureRelevanceBounds(problem="regression", n_permutations=5, cv=3, random_state=0), {}),
    (RelevanceLupiFromX(problem="regression", C=1.0, gamma=1.0, n_permutations=5,
                        random_state=0), {}),
]
