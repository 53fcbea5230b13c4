"""Sensitive features at prediction time (issue 26).

A missing ``S`` is reported by the method that needs it (not as ``fit``),
and ``S`` reaches ``predict`` through the routes scikit-learn supports: a
:class:`~sklearn.pipeline.Pipeline` routes it (``set_predict_request``);
:class:`~sklearn.model_selection.GridSearchCV` routes it to ``score`` but its
``predict`` takes no metadata, so the documented way is
``search.best_estimator_.predict(X, sensitive_features=S)``.
"""

import inspect

import numpy as np
import pytest
import sklearn
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from lupikit.oblivious import (FERM, ObliviousKernel, ObliviousRidge, ObliviousSVC,
                               manifold_projection)


def _data(n=150, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 2, n).astype(float)
    X = np.c_[rng.normal(size=n) + S, rng.normal(size=n)]
    y_reg = X[:, 0] ** 2 + S + 0.1 * rng.normal(size=n)
    y_cls = (X[:, 0] + 0.5 * rng.normal(size=n) > 0.5).astype(int)
    return X, S, y_reg, y_cls


@pytest.mark.parametrize("cls, target, methods", [
    (ObliviousRidge, "reg", ["predict", "score"]),
    (ObliviousSVC, "cls", ["predict", "decision_function", "score"]),
])
def test_missing_sensitive_features_names_the_method(cls, target, methods):
    X, S, y_reg, y_cls = _data()
    y = y_reg if target == "reg" else y_cls
    est = cls(random_state=0).fit(X, y, sensitive_features=S)
    for method in methods:
        args = (X, y) if method == "score" else (X,)
        with pytest.raises(ValueError) as info:
            getattr(est, method)(*args)
        msg = str(info.value)
        assert f"required by {cls.__name__}.{method} but was None" in msg
        call = f"{method}(X, y, sensitive_features=...)" if method == "score" else \
            f"{method}(X, sensitive_features=...)"
        assert f"pass it as {call}" in msg
        assert f"set_{method}_request(sensitive_features=True)" in msg
        assert "fit(" not in msg
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.fit but was None; pass it as "
                                         r"fit\(X, y, sensitive_features=\.\.\.\)"):
        cls().fit(X, y)
    # the prediction methods point past GridSearchCV's predict, which passes no metadata
    with pytest.raises(ValueError, match=r"search\.best_estimator_\.predict\(X, "):
        est.predict(X)


def test_missing_sensitive_features_kernel_and_functions():
    X, S, _, y = _data(60)
    ok = ObliviousKernel().fit(X, S)
    for call, where, how in [
        (lambda: ObliviousKernel().fit(X, None), "ObliviousKernel.fit",
         "fit(X, sensitive_features)"),
        (lambda: ok.gram(X, None), "ObliviousKernel.gram", "gram(X, sensitive_features)"),
        (lambda: ok.diag(X, None), "ObliviousKernel.diag", "diag(X, sensitive_features)"),
        (lambda: ok.cross(X, None, X), "ObliviousKernel.cross", "cross(X_new, S_new, X, S=None)"),
        (lambda: ok.cells(None), "ObliviousKernel.cells", "cells(sensitive_features)"),
        (lambda: FERM().fit(X, y), "FERM.fit", "fit(X, y, sensitive_features=...)"),
        (lambda: manifold_projection(ok, X, None, X), "manifold_projection",
         "manifold_projection(oblivious_kernel, X, sensitive_features, candidates)"),
    ]:
        with pytest.raises(ValueError) as info:
            call()
        msg = str(info.value)
        assert f"sensitive_features is required by {where} but was None" in msg, msg
        assert f"pass it as {how}" in msg, msg


def test_pipeline_routes_sensitive_features_to_predict():
    X, S, y, y_cls = _data()
    scaler = StandardScaler().fit(X)
    ref = ObliviousRidge(random_state=0).fit(scaler.transform(X), y, sensitive_features=S)
    ref_svc = ObliviousSVC(random_state=0).fit(scaler.transform(X), y_cls, sensitive_features=S)
    with sklearn.config_context(enable_metadata_routing=True):
        est = (ObliviousRidge(random_state=0)
               .set_fit_request(sensitive_features=True)
               .set_predict_request(sensitive_features=True)
               .set_score_request(sensitive_features=True))
        pipe = make_pipeline(StandardScaler(), est).fit(X, y, sensitive_features=S)
        np.testing.assert_allclose(pipe.predict(X, sensitive_features=S),
                                   ref.predict(scaler.transform(X), sensitive_features=S),
                                   rtol=1e-12, atol=1e-12)
        assert pipe.score(X, y, sensitive_features=S) == pytest.approx(
            ref.score(scaler.transform(X), y, sensitive_features=S), rel=1e-12)
        svc = (ObliviousSVC(random_state=0)
               .set_fit_request(sensitive_features=True)
               .set_predict_request(sensitive_features=True)
               .set_decision_function_request(sensitive_features=True))
        pipe = make_pipeline(StandardScaler(), svc).fit(X, y_cls, sensitive_features=S)
        np.testing.assert_array_equal(pipe.predict(X, sensitive_features=S),
                                      ref_svc.predict(scaler.transform(X), sensitive_features=S))
        np.testing.assert_allclose(
            pipe.decision_function(X, sensitive_features=S),
            ref_svc.decision_function(scaler.transform(X), sensitive_features=S), atol=1e-12)
        # without the predict request the pipeline refuses to pass S on
        unrequested = ObliviousRidge(random_state=0).set_fit_request(sensitive_features=True)
        pipe = make_pipeline(StandardScaler(), unrequested).fit(X, y, sensitive_features=S)
        with pytest.raises(UnsetMetadataPassedError, match="set_predict_request"):
            pipe.predict(X, sensitive_features=S)
        # and without S the estimator names its predict
        with pytest.raises(ValueError, match=r"ObliviousRidge\.predict but was None"):
            pipe.predict(X)


def test_gridsearch_documented_prediction_route():
    X, S, y, _ = _data()
    with sklearn.config_context(enable_metadata_routing=True):
        est = (ObliviousRidge(random_state=0)
               .set_fit_request(sensitive_features=True)
               .set_predict_request(sensitive_features=True)
               .set_score_request(sensitive_features=True))
        search = GridSearchCV(est, {"alpha": [0.1, 1.0]}, cv=3).fit(
            X, y, sensitive_features=S)
        best = ObliviousRidge(random_state=0, **search.best_params_).fit(
            X, y, sensitive_features=S)
        expected = best.predict(X, sensitive_features=S)
        # the documented way (README): the refitted best estimator's predict
        np.testing.assert_allclose(search.best_estimator_.predict(X, sensitive_features=S),
                                   expected, rtol=1e-12, atol=1e-12)
        # score routes S (to the estimator's score through the passthrough scorer)
        assert search.score(X, y, sensitive_features=S) == pytest.approx(
            best.score(X, y, sensitive_features=S), rel=1e-12)
        # the installed scikit-learn's GridSearchCV.predict takes no metadata
        takes_params = any(p.kind is p.VAR_KEYWORD
                           for p in inspect.signature(GridSearchCV.predict).parameters.values())
        if takes_params:  # pragma: no cover - a future scikit-learn
            np.testing.assert_allclose(search.predict(X, sensitive_features=S), expected)
        else:
            with pytest.raises(TypeError, match="sensitive_features"):
                search.predict(X, sensitive_features=S)
        # a search over a pipeline: the same route
        pipe = make_pipeline(StandardScaler(), est)
        search = GridSearchCV(pipe, {"obliviousridge__alpha": [0.1, 1.0]}, cv=3).fit(
            X, y, sensitive_features=S)
        assert search.best_estimator_.predict(X, sensitive_features=S).shape == (X.shape[0],)
