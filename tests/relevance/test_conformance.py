"""The tags of Part III's estimators (their ``check_estimator`` cases are
``tests/conformance/relevance.py``, run by ``tests/test_common.py``)."""

from sklearn.utils import get_tags
from lupikit.relevance import FeatureRelevanceBounds, OrdinalRegressionLP



def test_tags():
    tags = get_tags(FeatureRelevanceBounds())
    assert tags.target_tags.required  # the ordinal labels
    assert tags.transformer_tags.preserves_dtype == ["float64", "float32"]
    assert not tags.input_tags.allow_nan and not tags.input_tags.sparse
    tags = get_tags(OrdinalRegressionLP())
    assert tags.estimator_type == "classifier" and tags.target_tags.required
    assert not tags.input_tags.allow_nan and not tags.input_tags.sparse
