"""Packaging and architecture rules, checked on the source tree."""

import ast
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lupikit"
PARTS = ("boosting", "twinsvm", "relevance", "oblivious")
#: the library's shared modules: a part may import them, they import no part
COMMON = ("datasets", "metrics", "kernels", "seeding", "_validation", "_progress", "_loops")
#: the papers' claims as records: the notebooks import it, the book's machinery reads it back
CLAIMS = ("claims",)
#: beside the library: the book's machinery, the command, the classroom edition
MACHINERY = ("_book", "cli", "classroom")
SHARED = COMMON + CLAIMS


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_extras_and_console_script():
    meta = pyproject()["project"]
    extras = meta["optional-dependencies"]
    assert {"test", "book", "all"} <= set(extras)
    assert any(r.startswith("lupikit[") and "test" in r and "book" in r for r in extras["all"])
    assert meta["scripts"]["lupikit"] == "lupikit.cli:main"
    jb = [r for r in extras["book"] if r.startswith("jupyter-book")]
    assert jb and "<2" in jb[0], "jupyter-book 2.x cannot build offline: pin <2"


def test_environment_yml_consistent_with_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    pythons = [d for d in deps if isinstance(d, str) and d.startswith("python")]
    assert pythons == ["python=3.11"]
    pip = [d for d in deps if isinstance(d, dict) and "pip" in d]
    assert pip and pip[0]["pip"] == ['-e ".[all]"'] or pip[0]["pip"] == ["-e .[all]"]
    requires = pyproject()["project"]["requires-python"]
    assert requires.startswith(">=3.") and int(requires.split(".")[1]) <= 11
    # every extra named in "all" exists
    extras = pyproject()["project"]["optional-dependencies"]
    all_line = extras["all"][0]
    named = all_line[all_line.index("[") + 1 : all_line.index("]")].split(",")
    assert all(n.strip() in extras for n in named)


def _imports(path):
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # resolve relative imports against the module's package
                pkg = path.relative_to(SRC.parent).with_suffix("").parts[:-1]
                base = list(pkg[: len(pkg) - node.level + 1])
                mod = ".".join(base + ([node.module] if node.module else []))
                out.add(mod)
                out.update(f"{mod}.{a.name}" for a in node.names)
            elif node.module:
                out.add(node.module)
    return {m for m in out if m.startswith("lupikit")}


def _module_files(name):
    p = SRC / name
    if p.is_dir():
        return sorted(p.rglob("*.py"))
    return [SRC / f"{name}.py"] if (SRC / f"{name}.py").exists() else []


@pytest.mark.parametrize("part", PARTS)
def test_parts_do_not_import_each_other(part):
    for f in _module_files(part):
        for mod in _imports(f):
            other = mod.split(".")[1] if mod.count(".") >= 1 else None
            assert other not in set(PARTS) - {part}, f"{f} imports {mod}"


def test_the_package_holds_the_library_and_three_packages_beside_it():
    """The map of ``lupikit/__init__.py``: four parts, the shared modules, claims, and the machinery."""
    entries = {p.stem for p in SRC.iterdir() if p.name != "__pycache__" and not p.name.endswith(".egg-info")}
    assert entries == set(PARTS + COMMON + CLAIMS + MACHINERY) | {"__init__"}
    doc = (SRC / "__init__.py").read_text()
    for name in PARTS + COMMON + CLAIMS + MACHINERY:
        assert f"lupikit.{name}" in doc, f"lupikit/__init__.py's map does not name lupikit.{name}"


@pytest.mark.parametrize("shared", SHARED + MACHINERY)
def test_shared_modules_and_machinery_import_no_part(shared):
    for f in _module_files(shared):
        for mod in _imports(f):
            parts = mod.split(".")
            assert len(parts) < 2 or parts[1] not in PARTS, f"{f} imports {mod}"


def _top(module):
    return module.split(".")[1] if module.count(".") else module


@pytest.mark.parametrize("module, forbidden", [
    ("shared", MACHINERY),            # the library knows nothing of the book
    ("_book", ("cli",)),              # the machinery is driven by the command, never the reverse
    ("classroom", ("_book", "cli")),  # the classroom edition stands alone
])
def test_who_may_import_whom(module, forbidden):
    graph = _graph()
    sources = SHARED if module == "shared" else (module,)
    for name, deps in graph.items():
        if _top(name) not in sources:
            continue
        bad = sorted(d for d in deps if _top(d) in forbidden)
        assert not bad, f"{name} imports {bad}"


def test_kernel_side_and_pages_load_no_nbgrader():
    """The grader's kernels and the book's pages import the classroom without nbgrader."""
    import subprocess
    import sys

    code = ("import sys, lupikit.classroom._answers, lupikit.classroom._markup, lupikit.classroom._written, "
            "lupikit._book.pages, lupikit.cli\n"
            "from lupikit.classroom import read_questions, is_exercise_notebook\n"
            "assert 'nbgrader' not in sys.modules, 'nbgrader was imported'\n"
            )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]


def test_no_test_loads_code_by_its_path():
    """Tests import modules (``tests/`` is on pytest's pythonpath); none executes a file by its path."""
    found = []
    for f in sorted((ROOT / "tests").rglob("*.py")):
        text = f.read_text()
        if "spec_from_file_location" in text.replace('"spec_from_file_location"', ""):
            found.append(str(f.relative_to(ROOT)))
    assert found == []


def test_vendored_data_documented():
    data = SRC / "datasets" / "data"
    readme = (data / "README.md").read_text()
    for f in data.iterdir():
        if f.name != "README.md":
            assert f.name.split(".")[0] in readme, f"{f.name} has no source/licence entry"


def test_readme_python_example_runs():
    """The library example in README.md runs as written (a user's first contact)."""
    import re

    import sklearn

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    assert blocks
    with sklearn.config_context():  # the example switches metadata routing on globally
        for code in blocks:
            exec(compile(code, "README.md", "exec"), {})


# --------------------------------------------------------------------------
# The import graph: no cycles, no imports hidden in functions
# --------------------------------------------------------------------------
def _module_name(path):
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _graph():
    """``{module: set of lupikit modules it imports at module level}``."""
    files = sorted(SRC.rglob("*.py"))
    modules = {_module_name(f): f for f in files}
    graph = {}
    for name, f in modules.items():
        deps = set()
        for mod in _imports_at(f, top_level=True):
            # "pkg.mod.name" may be a module or a name inside "pkg.mod"
            while mod and mod not in modules:
                mod = mod.rpartition(".")[0]
            if mod and mod != name:
                deps.add(mod)
        graph[name] = deps
    return graph


def _imports_at(path, *, top_level):
    """The lupikit imports of a file, at module level (top_level) or inside functions."""
    tree = ast.parse(path.read_text())
    pkg = path.relative_to(SRC.parent).with_suffix("").parts[:-1]
    if path.name == "__init__.py":
        pkg = path.relative_to(SRC.parent).parts[:-1]

    def names(node):
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        if node.level:
            base = list(pkg[: len(pkg) - node.level + 1])
            mod = ".".join(base + ([node.module] if node.module else []))
        else:
            mod = node.module or ""
        # each imported name resolves (in _graph) to the module that holds it
        return [f"{mod}.{a.name}" for a in node.names]

    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function != top_level:
                out.extend(n for n in names(child) if n.startswith("lupikit"))
            visit(child, inner)

    visit(tree, False)
    return out


def test_no_import_cycle_inside_lupikit():
    graph = _graph()
    assert len(graph) > 40
    state, stack = {}, []

    def dfs(u):
        state[u] = "open"
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == "open":
                cycle = stack[stack.index(v):] + [v]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if v not in state:
                dfs(v)
        stack.pop()
        state[u] = "done"

    for module in sorted(graph):
        if module not in state:
            dfs(module)


def _cross_package_private_imports(path, text=None):
    """``from`` imports of ``path`` (or of ``text`` as if it were that file) that
    reach into another package of lupikit by a private submodule
    (``lupikit.classroom._notebooks``) or take a private name."""
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    package = parts[1] if len(parts) > 2 else None
    found = []
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name.split(".")
                if target[0] == "lupikit" and len(target) > 2 and target[1] != package:
                    private = [t for t in target[2:] if t.startswith("_")]
                    if private:
                        found.append(f"{alias.name} ({', '.join(private)})")
            continue
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = list(parts[: len(parts) - node.level])
            target = base + (node.module.split(".") if node.module else [])
        elif (node.module or "").startswith("lupikit"):
            target = node.module.split(".")
        else:
            continue
        other = target[1] if len(target) > 1 else None
        if other == package:
            continue
        private = [t for t in target[2:] if t.startswith("_")]
        private += [a.name for a in node.names if a.name.startswith("_")]
        if private:
            found.append(f"{'.'.join(target)} ({', '.join(private)})")
    return found


def test_no_private_name_imported_across_packages():
    """A package uses another's public names only: a private module or name stays
    inside its package (a shared helper is made public where it lives). The
    top-level modules and packages whose own names start with ``_``
    (``_validation``, ``_book``) are lupikit's shared internals by design: the
    rule applies below them."""
    found = {str(f.relative_to(ROOT)): _cross_package_private_imports(f) for f in sorted(SRC.rglob("*.py"))}
    assert {f: v for f, v in found.items() if v} == {}


def test_the_private_import_check_catches_one():
    paths = SRC / "_book" / "paths.py"
    assert _cross_package_private_imports(paths) == []
    text = ("from ..classroom._notebooks import is_exercise_notebook\n"
            "from lupikit.claims import _fmt\nfrom .errors import _private_is_fine_here\n"
            "import lupikit.claims._recorder\n")
    assert len(_cross_package_private_imports(paths, text)) == 3


def test_no_lupikit_import_inside_a_function():
    """Imports of lupikit's own modules sit at module level (none hides a cycle)."""
    hidden = {str(f.relative_to(ROOT)): _imports_at(f, top_level=False)
              for f in sorted(SRC.rglob("*.py"))}
    assert {f: m for f, m in hidden.items() if m} == {}


def test_parts_import_only_the_common_modules():
    graph = _graph()
    for module, deps in graph.items():
        part = module.split(".")[1] if module.count(".") else None
        if part not in PARTS:
            continue
        for dep in deps:
            top = dep.split(".")[1] if dep.count(".") else dep
            assert top == part or top in COMMON, f"{module} imports {dep}"


# --------------------------------------------------------------------------
# A lean library install
# --------------------------------------------------------------------------
LEAN_SCRIPT = r"""
import importlib.util, sys
import numpy as np
for heavy in ("papermill", "nbconvert", "ipykernel", "matplotlib", "nbformat"):
    assert importlib.util.find_spec(heavy) is None, heavy + " was installed by a library install"
from sklearn.datasets import make_classification
from lupikit.boosting import PrivilegedBoostingClassifier
from lupikit.twinsvm import PrivilegedPinballTwinSVC
from lupikit.relevance import FeatureRelevanceBounds
from lupikit.oblivious import ObliviousSVC
from lupikit.datasets import load_adult, make_ordinal_relevance
import lupikit.metrics, lupikit.kernels, lupikit.claims
X, y = make_classification(n_samples=120, n_features=6, random_state=0)
Xs, S = X[:, :2] + 0.1, (X[:, 0] > 0).astype(int)
PrivilegedBoostingClassifier(n_estimators=5).fit(X, y, privileged_features=Xs).predict(X)
PrivilegedPinballTwinSVC().fit(X, y, privileged_features=Xs).predict(X)
ObliviousSVC().fit(X, y, sensitive_features=S).predict(X, sensitive_features=S)
Xo, yo = make_ordinal_relevance(n_samples=80, n_strong=1, n_weak=2, n_irrelevant=1, random_state=0)[:2]
FeatureRelevanceBounds(C=1.0, n_permutations=5, random_state=0).fit(Xo, yo)
assert load_adult().data.shape[0] > 30000
print("lean install ok")
"""


def test_library_installs_without_the_notebook_stack(tmp_path):
    """The wheel without extras: every part imports and fits; the command names its extra."""
    import subprocess
    import sys

    import shutil

    # build from a copy: setuptools leaves build/ and *.egg-info next to the sources
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "src", tree / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels),
                    str(tree)], check=True)
    (wheel,) = wheels.glob("lupikit-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", str(wheel)], check=True)
    out = subprocess.run([str(py), "-c", LEAN_SCRIPT], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "lean install ok" in out.stdout
    cmd = subprocess.run([str(venv / "bin" / "lupikit"), "list"], capture_output=True, text=True)
    assert cmd.returncode == 2
    assert "pip install 'lupikit[cli]'" in cmd.stderr, cmd.stderr
