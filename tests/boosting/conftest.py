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
