"""The tags of Part I's estimators (their ``check_estimator`` cases are
``tests/conformance/boosting.py``, run by ``tests/test_common.py``)."""

import pytest
from lupikit.boosting import PrivilegedBoostingClassifier, SoftLabelBoostingClassifier



@pytest.mark.parametrize("engine, allow_nan", [("hist", True), ("exact", False)])
def test_tags(engine, allow_nan):
    from sklearn.utils import get_tags

    for est in (PrivilegedBoostingClassifier(engine=engine),
                SoftLabelBoostingClassifier(engine=engine)):
        tags = get_tags(est)
        assert tags.estimator_type == "classifier"
        assert tags.target_tags.required
        assert tags.input_tags.allow_nan is allow_nan  # XGBoost routes NaN; sklearn trees do not
        assert not tags.input_tags.sparse
