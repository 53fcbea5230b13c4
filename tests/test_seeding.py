"""Independent replications: every random draw derives from the run's seed through SeedSequence.

``lupikit.seeding`` spawns the seeds; the notebooks and the library never do
arithmetic on a seed (an offset by the replication index makes two consecutive seeds share all
but one of their draws), nor seed a draw with a constant that ignores it.
"""

import ast
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lupikit.seeding import spawn_seeds, spawn_sequences

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
LIBRARY = sorted((ROOT / "src" / "lupikit").rglob("*.py"))
#: the names that carry a seed
_SEEDY = ("seed", "random_state", "rng_seed")
#: calls that take a seed as their first argument or as random_state
_DRAWS = ("default_rng", "RandomState", "SeedSequence", "check_random_state", "seed")


def _is_seedy(node):
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return any(s == name.lower() or name.lower().endswith("_" + s) or name.lower().startswith(s + "_")
               for s in _SEEDY)


def _arithmetic(tree):
    """``(line, text)`` of every arithmetic on a seed, and every draw seeded by arithmetic on constants."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            if _is_seedy(node.left) or _is_seedy(node.right):
                found.append((node.lineno, ast.unparse(node)))
        if isinstance(node, ast.Call):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = list(node.args[:1]) if func in _DRAWS else []
            args += [k.value for k in node.keywords if k.arg in ("random_state", "seed")]
            for a in args:
                if isinstance(a, ast.BinOp) and isinstance(a.op, (ast.Add, ast.Sub, ast.Mult)):
                    found.append((node.lineno, ast.unparse(node)))
    return found


def _code(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            lines = [ln for ln in "".join(cell["source"]).splitlines() if not ln.lstrip().startswith(("%", "!"))]
            yield k, "\n".join(lines)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.relative_to(ROOT / "notebooks").as_posix() for p in NOTEBOOKS])
def test_no_notebook_does_arithmetic_on_a_seed(path):
    bad = [f"cell {k}, line {line}: {text}" for k, source in _code(path)
           for line, text in _arithmetic(ast.parse(source))]
    assert not bad, "seed arithmetic (use lupikit.seeding.spawn_seeds):\n" + "\n".join(bad)


def test_no_library_module_does_arithmetic_on_a_seed():
    bad = [f"{p.relative_to(ROOT)}:{line}: {text}" for p in LIBRARY
           for line, text in _arithmetic(ast.parse(p.read_text(encoding="utf-8")))]
    assert not bad, "seed arithmetic (use lupikit.seeding.spawn_seeds):\n" + "\n".join(bad)


def test_the_check_catches_what_it_is_for():
    caught = _arithmetic(ast.parse(
        "a = f(random_state=seed + r)\nb = np.random.default_rng(1000 + variant)\n"
        "c = g(100000 * seed + 500)\nd = h(random_state=rs)\ne = spawn_seeds(seed, 3)"))
    assert sorted({line for line, _ in caught}) == [1, 2, 3]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 2**31), st.integers(1, 30))
def test_two_seeds_spawn_disjoint_replications(a, b, n):
    if a == b:
        b = a + 1
    sa, sb = spawn_seeds(a, n, stream="x"), spawn_seeds(b, n, stream="x")
    assert len(set(sa)) == n and not set(sa) & set(sb)
    assert spawn_seeds(a, n, stream="x") == sa  # reproducible
    assert not set(sa) & set(spawn_seeds(a, n, stream="y"))  # two loops of one run draw apart
    # the draws of the children differ too (not only their integer seeds)
    first = [np.random.default_rng(s).random() for s in sa]
    assert len(set(first)) == n


def test_spawned_sequences_are_numpys_children():
    children = spawn_sequences(7, 3)
    reference = np.random.SeedSequence(7).spawn(3)
    assert [c.generate_state(2).tolist() for c in children] == [c.generate_state(2).tolist() for c in reference]


def test_bad_seeds_name_the_argument():
    with pytest.raises(ValueError, match="seed must be"):
        spawn_seeds(-1, 3)
    with pytest.raises(ValueError, match="n must be"):
        spawn_seeds(0, -3)
    with pytest.raises(TypeError, match="stream"):
        spawn_seeds(0, 3, stream=1.5)
