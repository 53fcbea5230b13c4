"""Packaging and architecture rules, checked on the source tree."""

import ast
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "lupikit"
PARTS = ("boosting", "twinsvm", "relevance", "oblivious")
SHARED = ("datasets", "metrics", "kernels", "_validation", "claims", "_progress", "_harness", "_runs")


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


@pytest.mark.parametrize("shared", SHARED + ("cli",))
def test_shared_modules_and_cli_import_no_part(shared):
    for f in _module_files(shared):
        for mod in _imports(f):
            parts = mod.split(".")
            assert len(parts) < 2 or parts[1] not in PARTS, f"{f} imports {mod}"


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
