"""Data shared by the Part I tests: small LUPI problems with two and three classes."""

import pytest

from lupikit.datasets import make_lupi_classification


@pytest.fixture(scope="module")
def data():
    """400 rows, 8 regular and 4 privileged features, two classes."""
    return make_lupi_classification(400, 8, 4, random_state=0)


@pytest.fixture(scope="module")
def data3():
    """450 rows, 8 regular and 4 privileged features, three classes."""
    return make_lupi_classification(450, 8, 4, n_classes=3, random_state=1)


@pytest.fixture(autouse=True)
def no_sketches_kept_between_tests():
    """Every test starts with no quantile sketch kept from another test."""
    from lupikit.boosting import _hist

    _hist._SKETCHES.matrices = None
    yield
    _hist._SKETCHES.matrices = None
