"""The tags of Part II's estimators (their ``check_estimator`` cases are
``tests/conformance/twinsvm.py``, run by ``tests/test_common.py``)."""

import pytest
from sklearn.utils import get_tags

from lupikit import twinsvm as tw


def _id(estimator):
    inner = getattr(estimator, "estimator", None)
    name = type(estimator).__name__
    return f"{name}({type(inner).__name__})" if inner is not None else name


CLASSIFIERS = [tw.TwinSVC(), tw.PinballTwinSVC(), tw.PrivilegedTwinSVC(), tw.PrivilegedPinballTwinSVC(),
               tw.PinballSVC(), tw.SVMPlus(), tw.PCAPrivilegedClassifier(tw.PrivilegedTwinSVC())]


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=_id)
def test_classifier_tags(estimator):
    # multi-class by one-vs-one / one-vs-rest; dense 2-D input without NaN
    tags = get_tags(estimator)
    assert tags.estimator_type == "classifier"
    assert tags.requires_fit
    assert tags.classifier_tags.multi_class
    assert not tags.classifier_tags.multi_label
    assert not tags.input_tags.sparse and not tags.input_tags.allow_nan
    assert not tags.input_tags.pairwise
    assert tags.target_tags.required


def test_wrapper_tags_follow_the_wrapped_estimator():
    class BinaryOnly(tw.PrivilegedTwinSVC):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.classifier_tags.multi_class = False
            return tags

    assert not get_tags(tw.PCAPrivilegedClassifier(BinaryOnly())).classifier_tags.multi_class


def test_pca_privileged_tags():
    tags = get_tags(tw.PCAPrivileged())
    assert tags.transformer_tags is not None and tags.requires_fit
    assert not tags.target_tags.required
