import json
from pathlib import Path

import pytest

from lupikit import cli

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"


def run_cli(*args):
    return cli.main(["--notebooks-dir", str(NB_DIR), *args])


def test_list_shows_parameters(capsys):
    assert run_cli("list") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = lines.index("intro/lupi_setting")
    block = lines[start + 1 :]
    block = block[: next((i for i, l in enumerate(block) if not l.startswith(" ")), len(block))]
    line = next(l for l in block if l.strip().startswith("n_samples"))
    assert "int" in line and "200" in line and "training examples" in line


def test_read_parameters_types_and_help():
    params = cli.read_parameters(NB_DIR / "intro" / "lupi_setting.ipynb")
    assert params["n_samples"].type == "int" and params["n_samples"].default == 200
    assert params["noise"].type == "float"
    assert params["curve_sizes"].type == "list"
    assert params["preset"].default == "default"


@pytest.mark.parametrize(
    "ptype, text, expected",
    [("int", "500", 500), ("float", "0.5", 0.5), ("bool", "false", False), ("bool", "Yes", True),
     ("str", "paper", "paper"), ("list", "[1, 2]", [1, 2]), ("list", "0.1,0.5", [0.1, 0.5])],
)
def test_convert(ptype, text, expected):
    assert cli.Parameter("x", ptype, None, "").convert(text) == expected


def test_unknown_parameter_is_clear(capsys):
    assert run_cli("run", "intro/lupi_setting", "-p", "n_sample", "500") == 2
    err = capsys.readouterr().err
    assert "unknown parameter 'n_sample'" in err
    assert "n_samples: int = 200" in err  # lists the valid parameters


def test_wrong_type_is_clear(capsys):
    assert run_cli("run", "intro/lupi_setting", "-p", "n_samples", "many") == 2
    err = capsys.readouterr().err
    assert "parameter 'n_samples': expected an int, got 'many'" in err
    assert "Valid parameters" in err


def test_unknown_notebook_is_clear(capsys):
    assert run_cli("run", "intro/nope") == 2
    err = capsys.readouterr().err
    assert "no notebook 'intro/nope'" in err and "intro/lupi_setting" in err


def test_short_name_and_path_resolve():
    target = (NB_DIR / "intro" / "lupi_setting.ipynb").resolve()
    assert cli.resolve_notebook("intro/lupi_setting", NB_DIR) == target
    assert cli.resolve_notebook(str(target), NB_DIR) == target
    assert cli.resolve_notebook("lupi_setting", NB_DIR) == target


def test_bad_parameters_cell_is_reported(tmp_path):
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "x = 1\n",
                     "outputs": [], "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    p = tmp_path / "bad.ipynb"
    p.write_text(json.dumps(nb))
    with pytest.raises(cli.CLIError, match="not of the form"):
        cli.read_parameters(p)


def test_run_executes_into_build_runs_and_renders_html(tmp_path, capsys):
    """The issue's example, `lupikit run intro/lupi_setting -p n_samples 500`."""
    source = NB_DIR / "intro" / "lupi_setting.ipynb"
    before = source.read_bytes()
    assert run_cli("run", "intro/lupi_setting", "-p", "n_samples", "500", "--out", str(tmp_path)) == 0
    out = capsys.readouterr().out
    executed = sorted(tmp_path.rglob("*.ipynb"))
    assert len(executed) == 1 and executed[0].with_suffix(".html").is_file()
    assert str(executed[0]) in out
    nb = json.loads(executed[0].read_text())
    injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and "n_samples = 500" in "".join(injected[0]["source"])
    assert source.read_bytes() == before, "the source notebook must never be overwritten"
