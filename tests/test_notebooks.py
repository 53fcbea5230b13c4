"""Conventions every notebook of the book must follow."""

import json
from pathlib import Path

import pytest

from lupikit._book.build import toc_files as _toc_files
from lupikit._book.paths import BookPaths, is_exercise_notebook
from lupikit.cli import read_parameters

ROOT = Path(__file__).resolve().parents[1]
ALL = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
ALL_IDS = [p.relative_to(ROOT / "notebooks").with_suffix("").as_posix() for p in ALL]
# the chapters check the papers' claims; the exercise notebooks (classroom edition) are graded
NOTEBOOKS = [p for p in ALL if not is_exercise_notebook(p)]
IDS = [p.relative_to(ROOT / "notebooks").with_suffix("").as_posix() for p in NOTEBOOKS]
EXERCISES = [p for p in ALL if is_exercise_notebook(p)]
EXERCISE_IDS = [p.relative_to(ROOT / "notebooks").with_suffix("").as_posix() for p in EXERCISES]


def toc_files():
    return _toc_files(BookPaths(ROOT))


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found"


def test_every_toc_entry_exists():
    for f in toc_files():
        assert (ROOT / f"{f}.md").exists() or (ROOT / f"{f}.ipynb").exists(), f


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_conventions(path):
    nb = json.loads(path.read_text())
    cells = nb["cells"]
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3", "kernelspec python3"
    assert cells[0]["cell_type"] == "markdown" and "".join(cells[0]["source"]).lstrip().startswith("# "), (
        "a notebook starts with a Markdown title and the paper's claim"
    )
    code = [c for c in cells if c["cell_type"] == "code"]
    assert not any(c.get("outputs") for c in code), "stored outputs"
    assert not any(c.get("execution_count") for c in code), "stored execution counts"
    tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged 'parameters'"
    params = read_parameters(path)
    assert params, "the parameters cell declares parameters"
    assert "preset" in params and params["preset"].default == "default", "a 'preset' parameter"
    for p in params.values():
        assert p.help, f"parameter {p.name} has no help comment"
        if p.type in ("int", "float", "bool", "str", "list"):
            expected = {"int": int, "float": (int, float), "bool": bool, "str": str, "list": list}[p.type]
            assert isinstance(p.default, expected), f"{p.name}: default does not match its type"
    src = "\n".join("".join(c["source"]) for c in code)
    assert "claims.check(" in src, "checks its paper's claims with lupikit.claims (Claims.check)"
    assert "Claims(" in src and f'"{path.relative_to(ROOT / "notebooks").with_suffix("").as_posix()}"' in src, (
        "creates its Claims recorder with its own short name")
    assert '"paper"' in src or "'paper'" in src, "has a paper-scale preset"


@pytest.mark.parametrize("path", EXERCISES, ids=EXERCISE_IDS)
def test_exercise_notebook_conventions(path):
    """An exercise notebook: a title, no outputs, one parameter ``variant`` that makes its data."""
    nb = json.loads(path.read_text())
    cells = nb["cells"]
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3", "kernelspec python3"
    assert cells[0]["cell_type"] == "markdown" and "".join(cells[0]["source"]).lstrip().startswith("# ")
    code = [c for c in cells if c["cell_type"] == "code"]
    assert not any(c.get("outputs") for c in code), "stored outputs"
    assert not any(c.get("execution_count") for c in code), "stored execution counts"
    params = read_parameters(path)
    assert list(params) == ["variant"] and params["variant"].default == 0 and params["variant"].help
    src = "\n".join("".join(c["source"]) for c in code)
    assert "default_rng(variant)" in src, "the variant seeds the exercises' data"
    assert "lupikit" in nb["metadata"] and "prerequisites" in nb["metadata"]["lupikit"]


@pytest.mark.parametrize("path", ALL, ids=ALL_IDS)
def test_parameters_cell_parses_in_papermill_too(path):
    """papermill's own inspector (``papermill --help-notebook``) sees every parameter."""
    import papermill

    assert set(papermill.inspect_notebook(str(path))) == set(read_parameters(path))


#: the width of the book's code column: a longer code line wraps on the page
CODE_COLUMN = 100


@pytest.mark.parametrize("path", ALL, ids=ALL_IDS)
def test_code_lines_fit_the_code_column(path):
    """Every line of a notebook's code is at most ``CODE_COLUMN`` characters long."""
    name = path.relative_to(ROOT / "notebooks").with_suffix("").as_posix()
    nb = json.loads(path.read_text(encoding="utf-8"))
    long = [f"  cell {k} (id {cell.get('id')}), line {j}: {len(line)} characters: {line[:60]}..."
            for k, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code"
            for j, line in enumerate("".join(cell["source"]).split("\n"), start=1) if len(line) > CODE_COLUMN]
    assert not long, (f"{name}: {len(long)} code line(s) longer than {CODE_COLUMN} characters (continue a "
                      "long string as \"...\" \"...\" on the next line, a parameter's help on comment "
                      "lines right after it):\n" + "\n".join(long))


@pytest.mark.parametrize("path", ALL, ids=ALL_IDS)
def test_notebook_is_in_the_book(path):
    rel = path.relative_to(ROOT).with_suffix("").as_posix()
    assert rel in toc_files(), f"{rel} is not listed in _toc.yml"
