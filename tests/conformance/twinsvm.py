"""scikit-learn conformance of the twinsvm estimators (``check_estimator``).

``ESTIMATORS`` lists ``(estimator, expected_failed_checks)`` pairs; none of
the checks is expected to fail. The estimators that need no privileged
features (:class:`TwinSVC`, :class:`PinballTwinSVC`, :class:`PinballSVC`)
and :class:`PCAPrivileged` are checked directly. The privileged-only
estimators (:class:`PrivilegedTwinSVC`, :class:`PrivilegedPinballTwinSVC`,
:class:`SVMPlus`) cannot be: ``fit(X, y)`` without ``privileged_features``
is an error by design. They are checked through
:class:`PCAPrivilegedClassifier`, which derives ``X*`` from the training rows
inside ``fit``. Small ``C`` values keep the SMO runs short.
"""


from lupikit.twinsvm import (
    PCAPrivileged,
    PCAPrivilegedClassifier,
    PinballSVC,
    PinballTwinSVC,
    PrivilegedPinballTwinSVC,
    PrivilegedTwinSVC,
    SVMPlus,
    TwinSVC,
)

ESTIMATORS = [
    (TwinSVC(), {}),
    (PinballTwinSVC(tau=0.3, C1=0.1, C2=0.1), {}),
    (PinballSVC(C=0.1), {}),
    (PCAPrivileged(), {}),
    (PCAPrivilegedClassifier(PrivilegedTwinSVC(C1=0.1, C2=0.1)), {}),
    (PCAPrivilegedClassifier(PrivilegedPinballTwinSVC(tau=0.3, C1=0.1, C2=0.1)), {}),
    (PCAPrivilegedClassifier(SVMPlus(C=0.1)), {}),
]
