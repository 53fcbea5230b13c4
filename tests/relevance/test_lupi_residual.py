"""The cited LUPI model (correcting functions plus a residual slack) against Part III's own LPs."""

import numpy as np
import pytest

from lupikit.datasets import make_lupi_ordinal
from lupikit.relevance import OrdinalRegressionLP
from lupikit.relevance._lupi_residual import OrdinalLUPIResidualLP, select_C_gamma_rho


@pytest.fixture(scope="module")
def data():
    X, Xs, y, _, _ = make_lupi_ordinal(n_samples=80, random_state=3)
    return X, Xs, y


@pytest.mark.parametrize("C", [0.1, 1.0])
def test_rho_one_is_the_plain_model(data, C):
    # at rho = 1 the correcting functions cost as much as the slack they replace: the plain optimum
    X, Xs, y = data
    plain = OrdinalRegressionLP(C=C).fit(X, y)
    cited = OrdinalLUPIResidualLP(C=C, gamma=1.0, rho=1.0).fit(X, y, privileged_features=Xs)
    assert cited.objective_ == pytest.approx(plain.objective_, rel=1e-7)
    # and the LP with the correcting functions in it has the same optimum (built explicitly)
    from lupikit.relevance._lupi_residual import solve_residual_lp
    classes, yb = np.unique(y, return_inverse=True)
    obj = solve_residual_lp(X, yb, classes.size, Xs, C, 1.0, 1.0)[-1]
    assert obj == pytest.approx(plain.objective_, rel=1e-7)


@pytest.mark.parametrize("gamma", [0.1, 10.0])
def test_rho_inf_is_the_books_lupi_model(data, gamma):
    X, Xs, y = data
    book = OrdinalRegressionLP(C=1.0, gamma=gamma).fit(X, y, privileged_features=Xs)
    cited = OrdinalLUPIResidualLP(C=1.0, gamma=gamma, rho=np.inf).fit(X, y, privileged_features=Xs)
    assert cited.objective_ == pytest.approx(book.objective_, rel=1e-7)
    assert cited.residual_share_ == 0.0


def test_objective_between_the_two_ends(data):
    # a dearer residual can only raise the optimum: plain <= rho=3 <= book's LUPI model
    X, Xs, y = data
    objs = [OrdinalLUPIResidualLP(C=1.0, gamma=1.0, rho=r).fit(X, y, privileged_features=Xs).objective_
            for r in (1.0, 3.0, 10.0, np.inf)]
    assert np.all(np.diff(objs) >= -1e-7)


def test_without_privileged_features_is_plain(data):
    X, _, y = data
    plain = OrdinalRegressionLP(C=0.5).fit(X, y)
    cited = OrdinalLUPIResidualLP(C=0.5).fit(X, y)
    assert cited.objective_ == pytest.approx(plain.objective_, rel=1e-7)
    np.testing.assert_array_equal(cited.predict(X), plain.predict(X))


def test_rho_below_one_rejected(data):
    X, Xs, y = data
    with pytest.raises(ValueError, match="'rho' parameter"):
        OrdinalLUPIResidualLP(rho=0.5).fit(X, y, privileged_features=Xs)


@pytest.mark.parametrize("params, message", [
    ({"C": 0.0}, "'C' parameter"), ({"C": -1.0}, "'C' parameter"), ({"gamma": -1.0}, "'gamma' parameter"),
    ({"rho": np.nan}, "'rho' parameter")])
def test_a_bad_parameter_is_refused_by_name(data, params, message):
    """A non-positive weight made the LP unbounded (a RuntimeError of HiGHS), C = 0 a constant model."""
    X, Xs, y = data
    with pytest.raises(ValueError, match=message):
        OrdinalLUPIResidualLP(**params).fit(X, y, privileged_features=Xs)


@pytest.mark.parametrize("labels, message", [
    (lambda y: np.zeros_like(y), "only one class"),
    (lambda y: np.where(y > 0, "high", "low"), "integer ordinal labels"),
    (lambda y: y + 0.5, "non-integer"),
    (lambda y: y[:-1], "labels but X has")])
def test_labels_are_checked_as_the_other_ordinal_models_check_them(data, labels, message):
    """One class was fitted to a constant, and string labels were ordered alphabetically."""
    X, Xs, y = data
    with pytest.raises(ValueError, match=message):
        OrdinalLUPIResidualLP().fit(X, labels(np.asarray(y)), privileged_features=Xs)
    with pytest.raises(ValueError, match=message):
        OrdinalRegressionLP().fit(X, labels(np.asarray(y)))


def test_rho_inf_and_misaligned_privileged_features(data):
    X, Xs, y = data
    assert OrdinalLUPIResidualLP(rho=np.inf).fit(X, y, privileged_features=Xs).residual_share_ == 0.0
    with pytest.raises(ValueError, match="privileged_features"):
        OrdinalLUPIResidualLP().fit(X, y, privileged_features=Xs[:-1])


def test_select_grid_shape(data):
    X, Xs, y = data
    best, scores = select_C_gamma_rho(X, y, Xs, C_grid=[0.1, 1.0], gamma_grid=[1.0],
                                      rho_grid=[1.0, 3.0], cv=3, random_state=0)
    assert scores.shape == (2, 2, 1)
    assert best[2] in (1.0, 3.0)
