import json
import re
from pathlib import Path

import pytest

from lupikit import cli
from lupikit._book.values import split_values

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
    assert "int" in line and "200" in line and "training examples" in line and "[≥ 10]" in line


def test_list_takes_notebook_names_and_shows_presets_and_ranges(capsys):
    assert run_cli("list", "intro/lupi_setting", "twinsvm/pinball_loss") == 0
    out = capsys.readouterr().out
    names = [l for l in out.splitlines() if not l.startswith(" ")]
    assert names == ["intro/lupi_setting", "twinsvm/pinball_loss"]
    assert ("    presets: default; paper (sets n_train=200, n_reps=30, "
            "noise_levels=[0.0, 0.5, 1.0, 1.5, 2.0, 3.0])") in out
    assert "[each 0, 1]" in next(l for l in out.splitlines() if l.strip().startswith("taus"))
    assert run_cli("list", "intro/nope") == 2


def test_a_preset_refuses_a_parameter_it_sets():
    """The issue's example: --preset paper would have run n_train=200, n_reps=30, not the -p values."""
    params = cli.read_parameters(NB_DIR / "twinsvm" / "pinball_loss.ipynb")
    path = NB_DIR / "twinsvm" / "pinball_loss.ipynb"
    with pytest.raises(cli.CLIError) as err:
        cli.validate_parameters(params, [("n_reps", "2"), ("n_train", "50")], "paper", cli.read_presets(path),
                                cli.read_preset_settings(path))
    msg = str(err.value)
    assert msg.startswith("preset 'paper' sets n_train=200, n_reps=30, noise_levels=[0.0, 0.5, 1.0, 1.5, 2.0, 3.0]; "
                          "-p n_reps, -p n_train conflict with it")
    # the command that runs what was meant, without --preset
    assert "-p n_train 50 -p n_reps 2 -p noise_levels '[0.0, 0.5, 1.0, 1.5, 2.0, 3.0]'" in msg
    # a parameter the preset does not set is fine
    values = cli.validate_parameters(params, [("C", "1.0")], "paper", cli.read_presets(path),
                                     cli.read_preset_settings(path))
    assert values == {"C": 1.0, "preset": "paper"}


def test_preset_settings_are_read_statically(tmp_path):
    path = write_notebook(tmp_path, 'preset: str = "default"  # which\nn: int = 1  # n\nm: int = 2  # m\n'
                          'grid: list = [1]  # g\nk: int = 0  # k',
                          'if preset == "paper":\n    n, m = 10, 20\n    grid = [round(0.5 * i, 1) for i in range(3)]\n'
                          'elif preset in ("big", "huge"):\n    k = K_DEFAULT\n    n = m = 7\n    n += 1\n'
                          'elif preset != "default":\n    raise ValueError(preset)\n'
                          'if preset == "paper" and n > 5:\n    extra = {"a": 1}')
    settings = cli.read_preset_settings(path)
    assert {k: (v.literal, v.value) for k, v in settings["paper"].items()} == {
        "n": (True, 10), "m": (True, 20), "grid": (True, [0.0, 0.5, 1.0]), "extra": (True, {"a": 1})}
    assert settings["big"] == settings["huge"]
    assert settings["big"]["k"].literal is False and settings["big"]["k"].source == "K_DEFAULT"
    assert settings["big"]["m"].value == 7 and settings["big"]["n"].source == "n += 1"
    assert "default" not in settings
    assert cli.read_presets(path) == ["default", "paper", "big", "huge"]


def test_claim_ids_are_read_statically(tmp_path):
    path = write_notebook(tmp_path, 'preset: str = "default"  # which',
                          'claims.check("a.one", "s", 1, ">", 0, paper="p")\n'
                          'claims.not_runnable("a.two", "s", paper="p", reason="r")\n'
                          'for k in ("x", "y"):\n    claims.check(f"a.three-{k}", "s", 1, ">", 0, paper="p")\n'
                          'for cid, what in [("a.four", 1), ("a.five", 2)]:\n'
                          '    claims.check(cid, "s", what, ">", 0, paper="p")\n'
                          'name = f"a.six-{preset}"\nclaims.not_computable(name, "s", paper="p", reason="r")')
    ids = cli.read_claim_ids(path)
    assert sorted(ids.ids) == ["a.five", "a.four", "a.one", "a.two"]
    assert sorted(src for src, _ in ids.patterns) == ["f'a.six-{preset}'", "f'a.three-{k}'"]
    assert not ids.unresolved
    assert ids.matches("a.three-x") and ids.matches("a.six-paper") and not ids.matches("a.three-")
    assert not ids.matches("a.seven")
    unresolved = cli.read_claim_ids(write_notebook(
        tmp_path, 'preset: str = "default"  # which', 'def f(i):\n    claims.check(i, "s", 1, ">", 0, paper="p")',
        name="u"))
    assert unresolved.unresolved and unresolved.ids == []


def test_every_notebook_claim_id_is_found_statically():
    """--plot checks a claim id before running: the ids the notebooks record must be found in their code."""
    import json as _json

    for result in sorted((ROOT / "results" / "paper").rglob("*.json")):
        short = result.relative_to(ROOT / "results" / "paper").with_suffix("").as_posix()
        ids = cli.read_claim_ids(NB_DIR / f"{short}.ipynb")
        recorded = [c["id"] for c in _json.loads(result.read_text())["claims"]]
        source = (NB_DIR / f"{short}.ipynb").read_text()
        # a claim the notebook no longer names is a stale record in results/paper, not a miss here
        missing = [i for i in recorded if not ids.matches(i) and i in source]
        assert missing == [], short


@pytest.mark.parametrize("text, each, alternatives", [
    ("[≥ 20]", False, [[("≥", 20)]]),
    ("[> 0, < 1]", False, [[(">", 0), ("<", 1)]]),
    ("[0, 1]", False, [[("≥", 0), ("≤", 1)]]),
    ("[each ≥ 10]", True, [[("≥", 10)]]),
    ("[each 0.5, 2.5]", True, [[("≥", 0.5), ("≤", 2.5)]]),
    ("[0 or ≥ 200]", False, [[("==", 0)], [("≥", 200)]]),
    ("[≠ 0]", False, [[("≠", 0)]]),
    ("[>= 1e-3]", False, [[(">=", 0.001)]]),
])
def test_parse_range(text, each, alternatives):
    assert cli.parse_range(text) == (each, alternatives)


@pytest.mark.parametrize("text", ["≥ 1", "[between 1 and 2]", "[2, 1]", "[≥]", "[each]"])
def test_parse_range_refuses_what_it_cannot_read(text):
    with pytest.raises(ValueError):
        cli.parse_range(text)


@pytest.mark.parametrize("ptype, rng, value, problem", [
    ("int", "[≥ 20]", 20, None), ("int", "[≥ 20]", 19, "19 is outside it"),
    ("float", "[> 0, < 1]", 0.0, "0.0 is outside it"), ("float", "[> 0, < 1]", 0.5, None),
    ("float", "[0, 1]", float("nan"), "nan is not a number"),
    ("int", "[0 or ≥ 200]", 0, None), ("int", "[0 or ≥ 200]", 100, "100 is outside it"),
    ("int", "[≠ 0]", -1, None), ("int", "[≠ 0]", 0, "0 is outside it"),
    ("list", "[each ≥ 10]", [10, 20], None), ("list", "[each ≥ 10]", [20, 5], "5 (in [20, 5]) is outside it"),
    ("list", "[each ≥ 10]", [], "the list is empty"), ("list", "[each 0, 1]", ["a"], "'a' (in ['a']) is not a number"),
    ("int", "", -5, None),
])
def test_parameter_range_check(ptype, rng, value, problem):
    assert cli.Parameter("x", ptype, None, "", rng).check(value) == problem


def test_ranges_are_read_from_the_help_comment(tmp_path):
    path = write_notebook(tmp_path, 'preset: str = "default"  # which\n'
                          "n: int = 200  # training rows [≥ 20]\n"
                          "p: float = 0.5  # a probability [0, 1]\n"
                          "sizes: list = [50, 100]  # sizes [each ≥ 10]\n"
                          "note: str = \"x\"  # a list of things [see below]")
    params = cli.read_parameters(path)
    assert (params["n"].help, params["n"].range) == ("training rows", "[≥ 20]")
    assert params["p"].range == "[0, 1]" and params["sizes"].range == "[each ≥ 10]"
    assert params["note"].range == "" and params["note"].help == "a list of things [see below]"
    assert params["n"].describe() == "n: int = 200  # training rows [≥ 20]"
    with pytest.raises(cli.CLIError, match=r"parameter 'n' must be in \[≥ 20\] \(training rows\): 5 is outside it"):
        cli.validate_parameters(params, [("n", "5")])
    with pytest.raises(cli.CLIError, match=r"5 \(in \[5\]\) is outside it"):
        cli.validate_parameters(params, [("sizes", "5")])
    assert cli.validate_parameters(params, [("sizes", "10")]) == {"sizes": [10]}


@pytest.mark.parametrize("line, message", [
    ("n: int = 5  # rows [≥ 20]", "the default of 'n' is outside its range [≥ 20]"),
    ("n: int = 5  # rows [≥ x]", "cannot read the range"),
    ("n: int = 5  # rows [>= 1]", "more than one '='"),
])
def test_a_bad_range_in_a_notebook_is_reported(tmp_path, line, message):
    with pytest.raises(cli.CLIError, match=re.escape(message)):
        cli.read_parameters(write_notebook(tmp_path, line))


def test_every_preset_value_is_in_its_range():
    for path in sorted(NB_DIR.rglob("*.ipynb")):
        params = cli.read_parameters(path)
        for preset, settings in cli.read_preset_settings(path).items():
            for name, setting in settings.items():
                if name in params and setting.literal:
                    assert params[name].check(setting.value) is None, (path.stem, preset, name, setting.value)


def test_every_numeric_size_parameter_has_a_range():
    """Sizes, counts, probabilities and seeds are annotated so that a bad value is refused up front."""
    pattern = re.compile(r"^(n_\w+|.*_samples|.*_reps|.*_repeats|seed|tau|taus|alpha|alphas|level|p|cv|delta|"
                         r"noise|label_noise|C|Cs|.*_subsample|.*_sizes|.*_grid|.*_levels|.*_d|.*_n)$")
    missing = []
    for path in sorted(NB_DIR.rglob("*.ipynb")):
        for p in cli.read_parameters(path).values():
            numeric = p.type in ("int", "float") or (
                p.type == "list" and p.default and all(isinstance(v, (int, float)) for v in p.default))
            if numeric and pattern.match(p.name) and not p.range:
                missing.append(f"{path.parent.name}/{path.stem}:{p.name}")
    assert missing == []


def test_read_parameters_types_and_help():
    params = cli.read_parameters(NB_DIR / "intro" / "lupi_setting.ipynb")
    assert params["n_samples"].type == "int" and params["n_samples"].default == 200
    assert params["noise"].type == "float"
    assert params["curve_sizes"].type == "list"
    assert params["preset"].default == "default"


@pytest.mark.parametrize(
    "ptype, text, expected",
    [("int", "500", 500), ("float", "0.5", 0.5), ("bool", "false", False), ("bool", "Yes", True),
     ("str", "paper", "paper"), ("list", "[1, 2]", [1, 2]), ("list", "0.1,0.5", [0.1, 0.5]),
     ("list", "50", [50]), ("list", "adult", ["adult"]), ("list", "adult,kdd", ["adult", "kdd"]),
     ("list", "'a;b'", ["a;b"])],
)
def test_convert(ptype, text, expected):
    assert cli.Parameter("x", ptype, None, "").convert(text) == expected


def test_a_semicolon_in_a_run_list_points_to_the_sweep_syntax(capsys):
    assert run_cli("run", "intro/lupi_setting", "-p", "curve_sizes", "50;100") == 2
    assert "';' separates the values of a sweep" in capsys.readouterr().err


def test_sweep_list_values_are_semicolon_separated():
    param = cli.Parameter("curve_sizes", "list", [50], "")
    assert split_values(param, "[50,100];[200]") == [[50, 100], [200]]
    assert split_values(param, "50;100") == [[50], [100]]
    assert split_values(param, "50,100") == [[50, 100]]


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


def write_notebook(folder, params_source, *code, name="nb"):
    cells = [{"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": params_source,
              "outputs": [], "execution_count": None}]
    cells += [{"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
              for src in code]
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_bad_parameters_cell_is_reported(tmp_path):
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "x = 1\n",
                     "outputs": [], "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    p = tmp_path / "bad.ipynb"
    p.write_text(json.dumps(nb))
    with pytest.raises(cli.CLIError, match="not of the form"):
        cli.read_parameters(p)


def test_a_help_continues_on_comment_lines(tmp_path):
    """A help too long for its line continues on the comment lines right after the parameter's first
    line (a scalar's, or a list's opened on it), joined with one space; papermill sees the same names."""
    from papermill.translators import PythonTranslator

    source = (
        'preset: str = "default"  # "default" (< 1 min on 2 cores) or\n'
        '                         # "paper" (the paper\'s setting)\n'
        "n_train: int = 400  # training points of the subsample\n"
        "                    # (the paper: 1628) [≥ 50]\n"
        "sets: list = [  # benchmark sets profiled\n"
        "              # (paper: all ten)\n"
        '    "winequality-red", "tae",\n'
        "]\n"
        "seed: int = 0  # random seed [≥ 0]\n")
    params = cli.read_parameters(write_notebook(tmp_path, source))
    assert params["preset"].help == '"default" (< 1 min on 2 cores) or "paper" (the paper\'s setting)'
    assert (params["n_train"].help, params["n_train"].range) == ("training points of the subsample "
                                                                 "(the paper: 1628)", "[≥ 50]")
    assert params["sets"].default == ["winequality-red", "tae"]
    assert params["sets"].help == "benchmark sets profiled (paper: all ten)"
    assert (params["seed"].help, params["seed"].range) == ("random seed", "[≥ 0]")
    assert {p.name for p in PythonTranslator.inspect({"source": source})} == set(params)


def test_run_executes_into_build_runs_and_renders_html(tmp_path, capsys):
    """`lupikit run NOTEBOOK -p NAME VALUE` on a real notebook (a cheap one, at a small size)."""
    source = NB_DIR / "twinsvm" / "pinball_loss.ipynb"
    before = source.read_bytes()
    code = run_cli("run", "twinsvm/pinball_loss", "-p", "n_reps", "2", "-p", "n_train", "40", "--out", str(tmp_path))
    captured = capsys.readouterr()
    assert code in (0, 1) and "a cell raised" not in captured.err, captured.err  # 1: a claim failed at n = 40
    out = captured.out
    executed = sorted(tmp_path.rglob("*.ipynb"))
    assert len(executed) == 1 and executed[0].with_suffix(".html").is_file()
    assert str(executed[0]) in out
    assert "parameters of the run (read back from it): n_train=40, n_reps=2, noise_levels=[0.0, 1.0, 2.0]" in out
    assert "✔ twinsvm.pinball-tau0-is-hinge: measured 0" in out
    nb = json.loads(executed[0].read_text())
    injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and "n_reps = 2" in "".join(injected[0]["source"])
    assert source.read_bytes() == before, "the source notebook must never be overwritten"
