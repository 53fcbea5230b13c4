"""pandas categorical columns with the histogram engine; NaN with the exact engine (issue 26)."""

import pickle

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb

from lupikit.boosting import PrivilegedBoostingClassifier, SoftLabelBoostingClassifier


def _frames(n=400, seed=0):
    """X with a categorical column whose effect no ordering of its codes makes
    monotone; X* with a categorical column too."""
    rng = np.random.default_rng(seed)
    cat = rng.choice(list("xyzw"), n)
    a = rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": rng.normal(size=n),
                      "cat": pd.Categorical(cat, categories=list("wxyz"))})
    y = (np.isin(cat, ["y", "w"]) ^ (a > 1.0)).astype(int)
    flip = rng.random(n) < 0.05
    y[flip] = 1 - y[flip]
    Xs = pd.DataFrame({"p": a + 0.1 * rng.normal(size=n),
                       "g": pd.Categorical(np.where(np.isin(cat, ["y", "w"]), "in", "out"))})
    return X, Xs, y


SMALL = dict(n_estimators=25, max_depth=3, learning_rate=0.1, random_state=0)


def test_nf_on_categorical_column_is_xgboost_own_categorical_model():
    X, _, y = _frames()
    ours = PrivilegedBoostingClassifier(mode="nf", **SMALL).fit(X, y)
    # XGBoost's own estimator on the same DataFrame, categories enabled, no one-hot:
    # the engine's settings (unregularised Newton leaves, the prior's log-odds as start)
    ref = xgb.XGBClassifier(n_estimators=25, max_depth=3, learning_rate=0.1, tree_method="hist",
                            enable_categorical=True, reg_lambda=0.0, min_child_weight=0.0,
                            gamma=0.0, max_bin=256, base_score=float(y.mean())).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert ours.score(X, y) > 0.9
    np.testing.assert_array_equal(ours.feature_names_in_, ["a", "b", "cat"])
    # the categories are matched by value, not by code: reordering them changes nothing
    X2 = X.assign(cat=X["cat"].cat.reorder_categories(list("zyxw")))
    np.testing.assert_array_equal(ours.predict_proba(X2), ours.predict_proba(X))
    # a categorical column beats its codes taken as numbers (no threshold on codes
    # w < x < y < z separates {w, y}) with stumps
    stumps = dict(SMALL, max_depth=1, n_estimators=10)
    cat_model = PrivilegedBoostingClassifier(mode="nf", **stumps).fit(X, y)
    codes = X.assign(cat=X["cat"].cat.codes.astype(float))
    code_model = PrivilegedBoostingClassifier(mode="nf", **stumps).fit(codes, y)
    assert cat_model.score(X, y) > code_model.score(codes, y) + 0.05
    # pickling keeps the categories
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(ours)).predict_proba(X),
                                  ours.predict_proba(X))


@pytest.mark.parametrize("mode", ["kbpib", "jpib"])
def test_privileged_modes_with_categorical_columns(mode):
    X, Xs, y = _frames()
    clf = PrivilegedBoostingClassifier(mode=mode, alpha=1.0, **SMALL).fit(
        X, y, privileged_features=Xs)
    assert clf.predict(X).shape == y.shape and clf.score(X, y) > 0.9
    assert clf.predict_privileged_proba(Xs).shape == (y.size, 2)
    # the privileged model on a categorical X* is the NF model on it: the teacher of
    # KbPIB, and with alpha = 0 the privileged trees of JPIB
    nf_priv = PrivilegedBoostingClassifier(mode="nf", **SMALL).fit(Xs, y)
    ref = PrivilegedBoostingClassifier(mode=mode, alpha=0.0, **SMALL).fit(
        X, y, privileged_features=Xs)
    np.testing.assert_allclose(ref.predict_privileged_proba(Xs), nf_priv.predict_proba(Xs),
                               atol=1e-6)
    with pytest.raises(TypeError, match="privileged_features column 'g' was categorical"):
        clf.predict_privileged_proba(Xs.assign(g=Xs["g"].cat.codes))


def test_early_stopping_splits_a_frame_by_position():
    X, Xs, y = _frames(500)
    clf = PrivilegedBoostingClassifier(mode="kbpib", n_estimators=200, n_iter_no_change=3,
                                       random_state=0).fit(X, y, privileged_features=Xs)
    assert 1 <= clf.n_estimators_ < 200
    assert clf.validation_score_.size >= clf.n_estimators_


def test_non_numeric_and_refused_columns_are_named():
    X, Xs, y = _frames(120)
    strings = X.assign(cat=X["cat"].astype(str).astype(object))
    with pytest.raises(TypeError, match=r"X column 'cat' has the non-numeric dtype object: "
                                        r"convert it to pandas' category dtype"):
        PrivilegedBoostingClassifier(mode="nf").fit(strings, y)
    with pytest.raises(TypeError, match=r"X column 'cat' has the non-numeric dtype .*"
                                        r"engine='exact' grows scikit-learn's trees"):
        PrivilegedBoostingClassifier(mode="nf", engine="exact").fit(strings, y)
    with pytest.raises(TypeError, match=r"X column 'cat' is categorical .*engine='hist'"):
        PrivilegedBoostingClassifier(mode="nf", engine="exact").fit(X, y)
    with pytest.raises(TypeError, match=r"privileged_features column 'g' is categorical"):
        PrivilegedBoostingClassifier(mode="jpib", engine="exact").fit(
            X.drop(columns="cat"), y, privileged_features=Xs)
    with pytest.raises(TypeError, match=r"privileged_features column 'g' is categorical.*"
                                        r"SoftLabelBoostingClassifier"):
        SoftLabelBoostingClassifier(n_estimators=5).fit(X, y, privileged_features=Xs)
    # numbers stored as objects still convert, as before
    numbers = X.drop(columns="cat").assign(b=X["b"].astype(object))
    PrivilegedBoostingClassifier(mode="nf", n_estimators=3).fit(numbers, y)
    # predicting: the categorical columns of the fit, as categories again
    clf = PrivilegedBoostingClassifier(mode="nf", n_estimators=5).fit(X, y)
    with pytest.raises(TypeError, match="X column 'cat' was categorical"):
        clf.predict(X.assign(cat=X["cat"].cat.codes))
    with pytest.raises(TypeError, match=r"X must be a pandas DataFrame.*\['cat'\]"):
        clf.predict(X.assign(cat=X["cat"].cat.codes).to_numpy())
    plain = PrivilegedBoostingClassifier(mode="nf", n_estimators=5).fit(
        X.assign(cat=X["cat"].cat.codes), y)
    with pytest.raises(TypeError, match="X column 'cat' is categorical .* but was not"):
        plain.predict(X)


@pytest.mark.parametrize("cls", [PrivilegedBoostingClassifier, SoftLabelBoostingClassifier])
def test_nan_with_exact_engine_points_to_this_class_hist_engine(data, cls):
    X, Xs, y = data
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    name = cls.__name__
    expected = rf"{name}'s default engine='hist'"
    with pytest.raises(ValueError, match=rf"X contains NaN.*{expected}") as info:
        cls(engine="exact", n_estimators=3).fit(X_nan, y, privileged_features=Xs)
    assert "HistGradientBoosting" not in str(info.value)
    Xs_nan = Xs.copy()
    Xs_nan[1, 0] = np.nan
    kwargs = {"mode": "jpib"} if cls is PrivilegedBoostingClassifier else {}
    with pytest.raises(ValueError, match=rf"privileged_features contains NaN.*{expected}"):
        cls(engine="exact", n_estimators=3, **kwargs).fit(X, y, privileged_features=Xs_nan)
    fitted = cls(engine="exact", n_estimators=3, **kwargs).fit(X, y, privileged_features=Xs)
    with pytest.raises(ValueError, match=rf"X contains NaN.*{expected}") as info:
        fitted.predict(X_nan)
    assert "HistGradientBoosting" not in str(info.value)
    # and the default engine takes them
    hist = cls(n_estimators=3, **kwargs).fit(X_nan, y, privileged_features=Xs_nan)
    assert np.all(np.isfinite(hist.predict_proba(X_nan)))
