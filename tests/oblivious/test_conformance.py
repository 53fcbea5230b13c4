"""The tags of Part IV's estimators (their ``check_estimator`` cases are
``tests/conformance/oblivious.py``, run by ``tests/test_common.py``)."""

import numpy as np
import pytest
from lupikit.oblivious import FERM, ObliviousKernel, ObliviousRidge, ObliviousSVC



def test_tags_match_behaviour():
    X = np.random.default_rng(0).normal(size=(40, 2))
    S = (X[:, 0] > 0).astype(float)
    # ObliviousRidge fits a 2-D y (one ridge per column): multi_output
    tags = ObliviousRidge().__sklearn_tags__()
    assert tags.target_tags.multi_output and tags.target_tags.single_output
    Y = np.c_[X[:, 1], -X[:, 1]]
    pred = ObliviousRidge(estimation_fraction=1.0).fit(X, Y, sensitive_features=S).predict(
        X, sensitive_features=S)
    assert pred.shape == (40, 2)
    # FERM is binary only; the oblivious SVM is multiclass
    assert not FERM().__sklearn_tags__().classifier_tags.multi_class
    assert ObliviousSVC().__sklearn_tags__().classifier_tags.multi_class
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        FERM().fit(X, np.arange(40) % 3, sensitive_features=S)
    for est in (ObliviousKernel(), ObliviousRidge(), ObliviousSVC(), FERM()):
        assert est.__sklearn_tags__().requires_fit
