"""The layers of Part III's solver: who may import whom, one route choice, task keys."""

import ast
import copy
import inspect
import pickle
from pathlib import Path

import numpy as np
import pytest

import lupikit.relevance as relevance
from lupikit.datasets import make_lupi_ordinal, make_ordinal_relevance
from lupikit.relevance import OrdinalLP, Probe, RelevanceTask
from lupikit.relevance import _engine

PACKAGE = Path(relevance.__file__).parent

#: bottom to top; a module may import only from modules of a lower layer
LAYERS = {
    "_highs": 0, "_thresholds": 0,
    "_layout": 1, "_tasks": 1,
    "_primal": 2, "_dual_path": 2, "_lupi_dual": 2,
    "_engine": 3,
    "_lp": 4,
    "_ordinal": 5,
    "_regression": 6, "_constrained": 6, "_cv": 6, "_logistic": 6, "_lupi_residual": 6,
    "_bounds": 7, "_holdout": 7,
    "_selection": 8,
    "__init__": 9,
}


def _relative_imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                yield node.module
            else:
                yield from (alias.name for alias in node.names)


def test_every_module_has_a_layer():
    assert {p.stem for p in PACKAGE.glob("*.py")} == set(LAYERS)


@pytest.mark.parametrize("module", sorted(LAYERS))
def test_modules_import_only_from_lower_layers(module):
    for imported in _relative_imports(PACKAGE / f"{module}.py"):
        assert LAYERS[imported] < LAYERS[module], f"{module} imports {imported}"


def test_one_function_chooses_the_route():
    # the choice between the routes (primal, dual, certified) and the size switch are
    # made in choose_route only (FeatureRelevanceBounds may still reject solver="dual"
    # with privileged features before it starts: that is validation, not a route)
    for path in PACKAGE.glob("*.py"):
        source = path.read_text()
        if path.stem == "_engine":
            body = inspect.getsource(_engine.choose_route)
            rest = source.replace(body, "")
        else:
            rest = source
        for needle in ('solver == "primal"', 'solver != "primal"', 'solver == "auto"',
                       ">= _dual_path.MIN_MARGIN_ROWS", ">= MIN_MARGIN_ROWS", "_wants_dual"):
            assert needle not in rest, f"{path.name} decides a route ({needle!r})"


def test_routes():
    X, y, _ = make_ordinal_relevance(n_samples=60, random_state=0)
    small = OrdinalLP(X, y, np.unique(y).size, 1.0, probe=True)
    big = OrdinalLP(np.tile(X, (5, 1)), np.tile(y, 5), np.unique(y).size, 1.0, probe=True)
    Xl, Xs, yl, _, _ = make_lupi_ordinal(n_samples=60, random_state=0)
    lupi = OrdinalLP(Xl, yl, np.unique(yl).size, 1.0, X_star=Xs, probe=True)
    lupi_model = OrdinalLP(Xl, yl, np.unique(yl).size, 1.0, X_star=Xs)
    route = _engine.choose_route
    assert [route(lp, "auto", "bounds") for lp in (small, big, lupi, lupi_model)] == [
        "primal", "dual_path", "lupi_certified", "primal"]
    assert [route(lp, "auto", "path") for lp in (small, big, lupi, lupi_model)] == [
        "dual_path", "dual_path", "primal", "lupi_dual"]
    assert route(big, "primal", "bounds") == route(big, "primal", "path") == "primal"
    assert route(small, "dual", "bounds") == "dual_path"
    with pytest.raises(ValueError, match="plain model only"):
        route(lupi, "dual", "bounds")
    with pytest.raises(ValueError, match="purpose"):
        route(small, "auto", "cv")


def test_tasks_compare_by_what_they_ask():
    v = np.arange(4.0)
    a, b = Probe(0, False, v), Probe(0, False, v.copy())
    assert a == b and hash(a) == hash(b)
    assert Probe(0, False, v) != Probe(1, False, v)
    assert Probe(0, False, v) != Probe(0, False, v + 1)  # other values: another probe
    assert Probe(0, False, v) != Probe(0, False, v, replaces=2)
    assert RelevanceTask("min", 3, a).target == RelevanceTask("max", 3, b).target
    assert RelevanceTask("pmax", 1).target != RelevanceTask("max", 1).target
    assert RelevanceTask("max", 3, Probe(0, False, v, replaces=2)).zero_feature == ("regular", 2)
    with pytest.raises(ValueError, match="kind must be one of"):
        RelevanceTask("mid", 0)
    with pytest.raises(ValueError, match="privileged"):
        RelevanceTask("pmax", 0, a)


def test_caches_survive_copies_and_pickling():
    # the engine's caches are keyed by task, not by object identity: a copy (as each
    # worker gets) reuses them and gives the same values
    X, y, _ = make_ordinal_relevance(n_samples=80, random_state=1)
    lp = OrdinalLP(X, y, np.unique(y).size, 1.0, probe=True)
    budget = 1.1 * lp.solve_model().fun
    rng = np.random.default_rng(0)
    probe = Probe(0, False, X[rng.permutation(X.shape[0]), 0])
    tasks = [RelevanceTask(k, j) for j in range(X.shape[1]) for k in ("min", "max")]
    tasks += [RelevanceTask(k, lp.D - 1, probe) for k in ("min", "max")]
    first = lp.run_tasks(tasks, budget)
    for twin in (copy.deepcopy(lp), pickle.loads(pickle.dumps(lp))):
        assert twin.engine._signed.keys() == lp.engine._signed.keys()
        assert twin.engine.route == lp.engine.route
        np.testing.assert_allclose(twin.run_tasks(tasks, budget), first, rtol=0, atol=1e-12)
    ref = OrdinalLP(X, y, np.unique(y).size, 1.0)
    cold = [ref.solve_relevance(t.kind, t.column, budget) for t in tasks[:-2]]
    np.testing.assert_allclose(first[:-2], cold, atol=1e-7)
