"""The valid ranges of the notebooks' parameters: the minimum runs, one below it is refused.

A parameter's help comment ends with its range (``[≥ 10]``, ``[0, 1]``,
``[each > 0]``, see :func:`lupikit.cli.parse_range`); ``lupikit run`` and
``sweep`` refuse a value outside it before starting a kernel. Here three of
the cheapest notebooks are run at the minimum of every size they take, one at
a time (a few seconds each), and one below each minimum is refused.
"""

from pathlib import Path

import pytest

from lupikit import cli

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"

MINIMA = {
    "twinsvm/pinball_loss": {"n_train": 10, "n_reps": 1},
    "twinsvm/duals_kkt": {"n_samples": 10},
    "oblivious/estimation": {"n_max": 200, "n_reps": 1, "n_conc_reps": 2},
}


def run_cli(*args):
    return cli.main(["--notebooks-dir", str(NB_DIR), *args])


@pytest.mark.parametrize("short", sorted(MINIMA))
def test_the_minima_are_the_ranges_lower_ends(short):
    params = cli.read_parameters(NB_DIR / f"{short}.ipynb")
    for name, value in MINIMA[short].items():
        assert params[name].range in (f"[≥ {value}]",), (name, params[name].range)


@pytest.mark.parametrize("short", sorted(MINIMA))
def test_one_below_the_minimum_is_refused_before_running(short, tmp_path, capsys):
    for name, value in MINIMA[short].items():
        assert run_cli("run", short, "-p", name, str(value - 1), "--out", str(tmp_path)) == 2
        err = capsys.readouterr().err
        assert f"parameter '{name}' must be in [≥ {value}]" in err and f"{value - 1} is outside it" in err
    assert not any(tmp_path.iterdir()), "nothing may run"


def test_the_issue_example_is_refused_with_the_range(capsys):
    """`-p n_samples 5` ended in scikit-learn's 'n_splits=5 cannot be greater than ...' after a kernel start."""
    assert run_cli("run", "intro/lupi_setting", "-p", "n_samples", "5") == 2
    assert "parameter 'n_samples' must be in [≥ 10] (training examples per repetition): 5 is outside it" in (
        capsys.readouterr().err)


@pytest.mark.parametrize("short", sorted(MINIMA))
def test_the_notebook_runs_at_its_minima(short, tmp_path, capsys):
    args = [a for name, value in MINIMA[short].items() for a in ("-p", name, str(value))]
    code = run_cli("run", short, *args, "--out", str(tmp_path))
    captured = capsys.readouterr()
    # claims may fail at such sizes (exit 1), but every cell runs
    assert code in (0, 1), captured.err
    assert "a cell raised" not in captured.err, captured.err
    assert "claims:" in captured.out and next(tmp_path.rglob("*.html")).is_file()
