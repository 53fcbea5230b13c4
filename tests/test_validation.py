import numpy as np
import pytest

from lupikit._validation import (
    check_n_samples_match,
    check_privileged_features,
    check_sensitive_features,
)


def test_privileged_valid_is_float_2d():
    Xs = check_privileged_features([[1, 2], [3, 4], [5, 6]], 3)
    assert Xs.dtype == np.float64 and Xs.shape == (3, 2)
    np.testing.assert_array_equal(Xs, [[1, 2], [3, 4], [5, 6]])


def test_privileged_row_mismatch_names_argument():
    with pytest.raises(ValueError, match=r"privileged_features has 2 rows but X has 3"):
        check_privileged_features(np.ones((2, 2)), 3)


def test_privileged_nan_names_argument():
    Xs = np.ones((3, 2))
    Xs[1, 0] = np.nan
    with pytest.raises(ValueError, match="privileged_features"):
        check_privileged_features(Xs, 3)


def test_privileged_inf_rejected():
    Xs = np.ones((3, 2))
    Xs[0, 1] = np.inf
    with pytest.raises(ValueError, match="privileged_features"):
        check_privileged_features(Xs, 3)


def test_privileged_1d_rejected_with_hint():
    with pytest.raises(ValueError, match=r"2-D.*reshape"):
        check_privileged_features(np.ones(3), 3)


def test_privileged_none_required_and_optional():
    with pytest.raises(ValueError, match="privileged_features is required"):
        check_privileged_features(None, 3)
    assert check_privileged_features(None, 3, required=False) is None


def test_privileged_non_numeric_is_type_error():
    with pytest.raises(TypeError, match="privileged_features must be numeric"):
        check_privileged_features(np.array([["a"], ["b"]]), 2)


def test_sensitive_1d_becomes_column():
    S = check_sensitive_features([0, 1, 1, 0], 4)
    assert S.shape == (4, 1)


def test_sensitive_strings_rejected_unless_allowed():
    with pytest.raises(TypeError, match="sensitive_features must be numeric"):
        check_sensitive_features(["m", "f"], 2)
    S = check_sensitive_features(["m", "f"], 2, dtype=None)
    assert S.shape == (2, 1) and S[1, 0] == "f"


def test_sensitive_pandas_series_and_mismatch():
    pd = pytest.importorskip("pandas")
    S = check_sensitive_features(pd.Series([1.0, 2.0, 3.0]), 3)
    assert S.shape == (3, 1)
    with pytest.raises(ValueError, match="sensitive_features has 3 rows but X has 5"):
        check_sensitive_features(pd.Series([1.0, 2.0, 3.0]), 5)


def test_check_n_samples_match():
    check_n_samples_match(np.ones((3, 2)), np.ones(3), "w")
    with pytest.raises(ValueError, match="w has 4 rows"):
        check_n_samples_match(np.ones((3, 2)), np.ones(4), "w")
