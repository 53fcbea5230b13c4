"""Side features derived per sample, for the test wrappers of estimators that need them.

scikit-learn's common checks call ``fit(X, y)`` only; the wrappers in
``tests/<part>/test_conformance.py`` compute the privileged (or sensitive)
features from ``X`` row by row with these functions, so that every check on
subsets, orders and copies of the rows still sees matching side features.
"""

import numpy as np


def derived_privileged_features(X):
    """Privileged features computed row by row from ``X`` (``tanh`` of every column).

    Input that is not a 2-D numeric array gives None, so that the estimator's own
    validation of ``X`` reports what is wrong with it.
    """
    try:
        X = np.asarray(X)
        if X.dtype.kind == "c":
            return None
        X = X.astype(np.float64)
    except (TypeError, ValueError):
        return None
    return np.tanh(X) if X.ndim == 2 else None
