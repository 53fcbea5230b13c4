"""Defaults give competitive models: within 2 accuracy points of SVC's defaults.

The full measurement is ``benchmarks/bench_twinsvm_defaults.py``; this checks
breast cancer and iris (standardised, 5-fold stratified CV, fixed seed).
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from lupikit.twinsvm import (PCAPrivilegedClassifier, PinballSVC, PinballTwinSVC,
                             PrivilegedPinballTwinSVC, PrivilegedTwinSVC, SVMPlus, TwinSVC)

#: documented in the estimators' docstrings (breast cancer, linear kernel)
_KNOWN_GAP = {("PrivilegedPinballTwinSVC", "linear", "breast_cancer"): 2.5,
              ("SVMPlus", "linear", "breast_cancer"): 2.5}

_DATA = {"breast_cancer": load_breast_cancer, "iris": load_iris}


def _cv(est, X, y):
    scores = []
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        m = est.fit(X[tr], y[tr])
        scores.append(np.mean(m.predict(X[te]) == y[te]))
    return 100 * float(np.mean(scores))


@pytest.mark.parametrize("data", list(_DATA))
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("cls", [TwinSVC, PinballTwinSVC, PrivilegedTwinSVC,
                                 PrivilegedPinballTwinSVC, PinballSVC, SVMPlus])
def test_defaults_within_two_points_of_svc(cls, kernel, data):
    X, y = _DATA[data](return_X_y=True)
    X = StandardScaler().fit_transform(X)
    est = cls(kernel=kernel)
    if cls._uses_privileged:
        est = PCAPrivilegedClassifier(est)
    ours, ref = _cv(est, X, y), _cv(SVC(kernel=kernel), X, y)
    assert ours >= ref - _KNOWN_GAP.get((cls.__name__, kernel, data), 2.0), (ours, ref)
