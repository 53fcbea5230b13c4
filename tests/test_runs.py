"""``lupikit run``, ``sweep`` and ``paper`` on a toy notebook, end to end.

The toy notebook has the book's conventions (a parameters cell, presets, a
``Claims`` recorder, a joblib loop); each test executes it in a real kernel.
"""

import csv
import json
import os
import re
import subprocess
import sys

import nbformat
import pytest

from lupikit._book import records, seeds
from lupikit._book.harness import kernel_environment
from lupikit._book.sweep import plot_sweep, sweep_rows
from lupikit.claims import read_claims
from lupikit.cli import main, read_presets
from local_cluster import local_cluster  # tests/ is on pytest's pythonpath

TOY = [
    ("markdown", "# A toy notebook\n\nIts claim: the scaled mean is small, $\\bar x / n < t$.\n\n"
                 "$$\\sum_{i=0}^{n-1} \\sqrt{i}$$"),
    ("parameters", 'preset: str = "default"  # "default" or "paper"\n'
                   "n: int = 10  # values [≥ 1]\n"
                   "threshold: float = 0.5  # what the claim needs\n"
                   "n_jobs: int = 1  # joblib workers [≠ 0]"),
    ("code", 'if preset == "paper":\n    n = 20\n'
             "from lupikit.claims import Claims\n\n"
             'claims = Claims("toy/claims", preset=preset, parameters=dict(n=n, threshold=threshold))'),
    ("markdown", "## The mean"),
    ("code", "import numpy as np\nfrom joblib import Parallel, delayed\n\n"
             "vals = Parallel(n_jobs=n_jobs)(delayed(np.sqrt)(i) for i in range(n))\n"
             "scaled = float(np.mean(vals)) / n\n"
             'claims.check("toy.mean", "The scaled mean is small", scaled, "<", threshold,\n'
             '             paper="< 0.5", source="Table 1", section="The mean")\n'
             'claims.not_runnable("toy.offline", "A claim on data we lack", paper="1.0",\n'
             '                    reason="the data are not available offline")'),
]


def make_toy(folder, name="toy/claims", cells=TOY):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for kind, src in cells:
        if kind == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell(src))
        else:
            cell = nbformat.v4.new_code_cell(src)
            if kind == "parameters":
                cell.metadata["tags"] = ["parameters"]
            nb.cells.append(cell)
    path = folder / "notebooks" / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


@pytest.fixture
def toy(tmp_path):
    make_toy(tmp_path)
    return tmp_path


def cli(toy, *args):
    return main(["--notebooks-dir", str(toy / "notebooks"), *args])


def test_presets_are_read_from_the_code(toy):
    assert read_presets(toy / "notebooks" / "toy" / "claims.ipynb") == ["default", "paper"]


def test_unknown_preset_is_an_error_listing_the_presets(toy, capsys):
    assert cli(toy, "run", "toy/claims", "--preset", "fast") == 2
    err = capsys.readouterr().err
    assert "unknown preset 'fast'" in err and "'default', 'paper'" in err


def test_run_evaluates_every_claim_and_exits_1_when_one_fails(toy, capsys):
    """A failed claim stops nothing: every claim is printed, the notebook and its HTML are written."""
    out = toy / "out"
    assert cli(toy, "run", "toy/claims", "-p", "threshold", "0.01", "--out", str(out)) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    mean = next(l for l in lines if "toy.mean" in l)
    assert mean.strip().startswith("✘ toy.mean: measured 0.1") and mean.endswith("needs < 0.01 — not reproduced")
    assert any(l.strip() == "– toy.offline: not runnable offline — the data are not available offline"
               for l in lines)  # the claim after the failed one was evaluated too
    assert "2 claims: 1 not reproduced, 1 not runnable offline" in captured.out
    assert "1 claim(s) not as the book states: toy.mean" in captured.err
    executed = next(out.rglob("*.ipynb"))
    assert executed.with_suffix(".html").is_file()
    assert [r["verdict"] for r in read_claims(executed)] == ["not reproduced", "not runnable offline"]


def test_run_with_a_cell_error_renders_what_ran_and_lists_the_claims_not_evaluated(toy, capsys):
    cells = TOY + [
        ("code", 'claims.check("toy.nan", "A t-test of one value", float("nan"), "<", 0.05, paper="p < 0.05")'),
        ("code", 'raise ValueError("boom")'),
        ("code", 'claims.check("toy.after", "Never reached", 1.0, ">", 0.0, paper="> 0")'),
    ]
    make_toy(toy, "toy/broken", cells=cells)
    out = toy / "out"
    assert cli(toy, "run", "toy/broken", "--out", str(out)) == 1
    captured = capsys.readouterr()
    assert "? toy.nan: not computable — the measured value is nan (needs < 0.05)" in captured.out
    assert "a cell raised ValueError: boom" in captured.err
    assert "not evaluated (the run stopped): toy.after" in captured.err
    executed = next(out.rglob("*.ipynb"))
    html = executed.with_suffix(".html").read_text()
    assert "boom" in html and "toy.nan" not in html.split("<body", 1)[0]
    assert [r["verdict"] for r in read_claims(executed)] == ["reproduced", "not runnable offline",
                                                            "not computable"]


def test_a_not_computable_claim_is_no_failure(toy, capsys):
    make_toy(toy, "toy/nan", cells=TOY + [
        ("code", 'claims.check("toy.nan", "A t-test of one value", float("nan"), "<", 0.05, paper="p < 0.05")')])
    assert cli(toy, "run", "toy/nan", "--out", str(toy / "out")) == 0
    assert "3 claims: 1 reproduced, 1 not runnable offline, 1 not computable" in capsys.readouterr().out


def test_run_prints_the_parameters_read_back_from_the_run(toy, capsys):
    assert cli(toy, "run", "toy/claims", "--preset", "paper", "--out", str(toy / "out")) == 0
    out = capsys.readouterr().out
    # the paper preset sets n = 20 after the parameters cell: the run says so, not the command line
    assert "parameters of the run (read back from it): n=20, threshold=0.5, preset='paper'" in out


@pytest.mark.parametrize("args, message", [
    (["--preset", "paper", "-p", "n", "5"],
     "preset 'paper' sets n=20; -p n conflicts with it"),
    (["-p", "preset", "paper", "-p", "n", "5"], "-p n 5"),
    (["-p", "n", "0"], "parameter 'n' must be in [≥ 1] (values): 0 is outside it"),
    (["-p", "n_jobs", "0"], "parameter 'n_jobs' must be in [≠ 0]"),
])
def test_run_refuses_before_running(toy, capsys, args, message):
    assert cli(toy, "run", "toy/claims", *args, "--out", str(toy / "out")) == 2
    assert message in capsys.readouterr().err
    assert not (toy / "out").exists()


def test_run_records_the_claims_and_is_quiet(toy):
    proc = subprocess.run([sys.executable, "-m", "lupikit.cli", "--notebooks-dir", str(toy / "notebooks"),
                           "run", "toy/claims", "--out", str(toy / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "2 claims: 1 reproduced, 1 not runnable offline" in proc.stdout
    # the kernel's own start-up and shutdown chatter does not reach the user
    for noise in ("Kernel is running over TCP", "KeyboardInterrupt caught", "IPKernelApp"):
        assert noise not in proc.stderr + proc.stdout
    executed = next((toy / "out").rglob("*.ipynb"))
    records = read_claims(executed)
    assert [r["id"] for r in records] == ["toy.mean", "toy.offline"]
    assert records[0]["holds"] and records[1]["verdict"] == "not runnable offline"


def test_sweep_records_failures_as_values_and_carries_on(toy, capsys):
    out = toy / "sweep"
    assert cli(toy, "sweep", "toy/claims", "-p", "threshold", "0.01,1.0", "-p", "n", "5,10",
               "--jobs", "2", "--out", str(out), "--plot", "toy.mean", "n") == 0
    rows = list(csv.DictReader((out / "claims.csv").open()))
    assert len(rows) == 4
    assert [(r["threshold"], r["n"], r["toy.mean:holds"], r["toy.mean:verdict"]) for r in rows] == [
        ("0.01", "5", "False", "not reproduced"), ("0.01", "10", "False", "not reproduced"),
        ("1.0", "5", "True", "reproduced"), ("1.0", "10", "True", "reproduced")]
    assert all(float(r["toy.mean"]) > 0 and not r["error"] for r in rows)
    # the parameters the runs used, read back from them (n_jobs was not swept)
    assert all(r["n_jobs"] == "1" and r["preset"] == "default" for r in rows)
    assert (out / "toy.mean-vs-n.png").stat().st_size > 1000
    assert sorted(p.name for p in (out / "runs").glob("*.html")) == [f"run00{i}.html" for i in range(4)]
    printed = capsys.readouterr().out
    # one line per run as it finishes, with its claims' outcomes
    assert "run 1/4 threshold=0.01, n=5: " in printed
    assert "2 claims: 1 failed, 1 not runnable offline (toy.mean)" in printed
    assert "2 claims: 1 held, 1 not runnable offline" in printed
    # the summary: how often each claim held
    summary = {r["claim"]: r for r in csv.DictReader((out / "claims-summary.csv").open())}
    assert (summary["toy.mean"]["held"], summary["toy.mean"]["failed"], summary["toy.mean"]["pass rate"]) == (
        "2", "2", "0.5")
    assert summary["toy.offline"]["not runnable offline"] == "4" and summary["toy.offline"]["pass rate"] == ""
    assert "toy.mean     held 2/4 (50%)" in printed
    assert "claims table:" in printed


def test_sweep_plot_shows_the_threshold_and_the_outcomes(toy, tmp_path):
    pytest.importorskip("matplotlib")

    out = toy / "sweep"
    assert cli(toy, "sweep", "toy/claims", "-p", "n", "5,10", "--out", str(out)) == 0
    executed = sorted((out / "runs").glob("*.ipynb"))
    runs = [({"n": n}, str(e), 1.0, "") for n, e in zip((5, 10), executed)]
    rows = sweep_rows(runs)
    import matplotlib.pyplot as plt

    created = []
    original = plt.subplots

    def spy(*a, **k):
        fig, ax = original(*a, **k)
        created.append((fig, ax))
        return fig, ax

    plt.subplots = spy
    try:
        plot_sweep(runs, rows, "toy.mean", "n", [], tmp_path / "p.png")
    finally:
        plt.subplots = original
    fig, ax = created[0]
    assert ax.get_xlabel() == "n"
    assert "The scaled mean is small" in ax.get_ylabel() and "toy.mean" in ax.get_ylabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "threshold: needs < 0.5" in labels and "claim held" in labels
    assert any(abs(line.get_ydata()[0] - 0.5) < 1e-12 and line.get_linestyle() == "--" for line in ax.get_lines())


def test_sweep_per_run_threshold_is_drawn_when_it_varies(toy, capsys):
    out = toy / "sweep"
    assert cli(toy, "sweep", "toy/claims", "-p", "threshold", "0.01,1.0", "--out", str(out),
               "--plot", "toy.mean", "threshold") == 0
    assert (out / "toy.mean-vs-threshold.png").is_file()


@pytest.mark.parametrize("args, message", [
    (["-p", "nope", "1,2"], "unknown sweep parameter 'nope'"),
    (["-p", "n", "1,x"], "parameter 'n': expected an int"),
    (["-p", "n", "1,0"], "parameter 'n' must be in [≥ 1]"),
    ([], "give at least one parameter"),
    (["-p", "n", "1,2", "--plot", "toy.mean", "threshold"], "not a swept parameter"),
    (["-p", "n", "1,2", "--plot", "toy.nope", "n"], "checks no claim 'toy.nope'; its claims: toy.mean, toy.offline"),
    (["-p", "preset", "default,paper", "-p", "n", "5,10"], "preset 'paper' sets n=20; -p n conflicts with it"),
    (["--preset", "paper", "-p", "n", "5,10"], "To sweep it, leave preset 'paper' out of the sweep"),
    (["-p", "n", "1,2", "--jobs", "0"], "--jobs must be at least 1"),
    (["-p", "n", "1,2", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
])
def test_sweep_errors_are_clear_and_come_before_any_run(toy, capsys, args, message):
    assert cli(toy, "sweep", "toy/claims", *args, "--out", str(toy / "sweep")) == 2
    assert message in capsys.readouterr().err
    assert not (toy / "sweep").exists()


def test_sweep_plot_accepts_an_f_string_claim_id(toy, capsys):
    make_toy(toy, "toy/fstring", cells=TOY + [
        ("code", 'for k in (1, 2):\n'
                 '    claims.check(f"toy.size-{k}", "A size", float(k), ">", 0.0, paper="> 0")')])
    assert cli(toy, "sweep", "toy/fstring", "-p", "n", "2,3", "--plot", "toy.size-2", "n",
               "--out", str(toy / "sweep")) == 0
    assert (toy / "sweep" / "toy.size-2-vs-n.png").is_file()
    assert cli(toy, "sweep", "toy/fstring", "-p", "n", "2,3", "--plot", "toy.other", "n") == 2
    assert "its claims: toy.mean, toy.offline, f'toy.size-{k}'" in capsys.readouterr().err


def test_paper_results_have_the_schema_and_go_stale(toy, capsys):
    make_toy(toy, "toy/other")
    results = toy / "results"
    assert cli(toy, "paper", "--jobs", "2", "--results", str(results)) == 0
    for short in ("toy/claims", "toy/other"):
        rec = json.loads((results / f"{short}.json").read_text())
        assert tuple(rec) == records.RESULT_KEYS
        # the values that ran: the paper preset sets n = 20 after the parameters cell (10)
        assert rec["parameters"]["preset"] == "paper" and rec["parameters"]["n"] == 20
        assert rec["parameters"]["threshold"] == 0.5 and rec["parameters"]["n_jobs"] == 1
        assert [c["id"] for c in rec["claims"]] == ["toy.mean", "toy.offline"]
        assert rec["seconds"] > 0 and rec["git_commit"] and rec["machine"]
    # unchanged notebooks are not run again
    capsys.readouterr()
    assert cli(toy, "paper", "--results", str(results)) == 0
    assert "every paper-scale result is up to date" in capsys.readouterr().out
    # rewording a notebook's prose leaves its result current ...
    path = toy / "notebooks" / "toy" / "other.ipynb"
    nb = nbformat.read(str(path), 4)
    nb.cells[0].source += "\n\nOne more sentence."
    nbformat.write(nb, str(path))

    def stale():
        return {s: records.is_stale(records.read_paper_result(results, s), toy / "notebooks" / f"{s}.ipynb", s)
                for s in ("toy/claims", "toy/other")}

    assert stale() == {"toy/claims": False, "toy/other": False}
    # ... changing its code makes only its result stale
    code = next(c for c in nb.cells if c.cell_type == "code" and "np.sqrt" in c.source)
    code.source = code.source.replace("np.sqrt", "np.cbrt")
    nbformat.write(nb, str(path))
    assert stale() == {"toy/claims": False, "toy/other": True}


def test_a_notebook_changed_during_its_paper_run_is_recorded_stale(toy):
    # the record's fingerprint is the code as it was when the run started: an edit
    # made while a long run goes on must leave the result stale, not current
    edit = ("code", 'if preset == "paper":\n'
                    "    import nbformat\n"
                    '    nb = nbformat.read("selfedit.ipynb", 4)\n'
                    '    nb.cells.append(nbformat.v4.new_code_cell("edited = True  # during the run"))\n'
                    '    nbformat.write(nb, "selfedit.ipynb")')
    path = make_toy(toy, "toy/selfedit", cells=TOY + [edit])
    results = toy / "results"
    assert cli(toy, "paper", "toy/selfedit", "--results", str(results)) == 0
    record = records.read_paper_result(results, "toy/selfedit")
    assert "during the run" in path.read_text()
    assert records.is_stale(record, path, "toy/selfedit")


def test_unreachable_scheduler_is_a_clear_error(toy, capsys):
    assert cli(toy, "run", "toy/claims", "--scheduler", "tcp://127.0.0.1:9") == 2
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in capsys.readouterr().err


def test_joblib_loops_on_a_local_cluster_record_the_same_values(toy):
    distributed = pytest.importorskip("distributed")
    with local_cluster(distributed, client=False) as (cluster, _, finished):
        assert cli(toy, "run", "toy/claims", "-p", "n_jobs", "-1", "--out", str(toy / "local")) == 0
        assert not finished
        assert cli(toy, "run", "toy/claims", "-p", "n_jobs", "-1", "--out", str(toy / "remote"),
                   "--scheduler", cluster.scheduler_address) == 0
        local = read_claims(next((toy / "local").rglob("*.ipynb")))
        remote = read_claims(next((toy / "remote").rglob("*.ipynb")))
        assert [r["value"] for r in remote] == [r["value"] for r in local]
        assert finished  # the notebook's joblib loop ran as tasks on the cluster


def test_sequential_loops_run_a_notebooks_joblib_loop_in_its_kernel(tmp_path):
    """With a notebook per core, `lupikit paper` runs a notebook's joblib loops one task at a time (no
    workers contending with the other notebooks); without the flag the loop has its n_jobs workers."""
    from lupikit._book.execute import execute
    from lupikit._book.harness import prepare_kernels

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import os\nfrom joblib import Parallel, delayed\n"
        "pids = set(Parallel(n_jobs=2)(delayed(os.getpid)() for _ in range(8)))\n"
        "print('in-kernel' if pids == {os.getpid()} else 'workers')")]
    source = tmp_path / "loops.ipynb"
    nbformat.write(nb, source)
    before = dict(os.environ)
    try:
        for sequential, expected in ((True, "in-kernel"), (False, "workers")):
            prepare_kernels(tmp_path / "ipython", blas_threads=1, sequential_loops=sequential)
            target = tmp_path / f"out-{sequential}.ipynb"
            seconds, error = execute(source, target, {})
            assert error is None
            out = nbformat.read(target, as_version=4).cells[0].outputs[0]["text"]
            assert out.strip() == expected
    finally:  # (prepare_kernels sets this process's environment for the kernels it starts)
        os.environ.clear()
        os.environ.update(before)


def test_kernels_get_one_openmp_thread_when_several_run(tmp_path):
    """XGBoost (loaded after threadpoolctl runs) must not start a thread per core in each kernel."""

    env = kernel_environment(tmp_path, blas_threads=1, base={})
    assert env["LUPIKIT_BLAS_THREADS"] == "1" and env["OMP_NUM_THREADS"] == "1"
    assert kernel_environment(tmp_path, blas_threads=1, base={"OMP_NUM_THREADS": "3"})["OMP_NUM_THREADS"] == "3"
    assert "OMP_NUM_THREADS" not in kernel_environment(tmp_path, base={})


def test_run_page_typesets_math_with_no_network(toy, tmp_path):
    """The HTML of a run loads no CDN script: MathJax is the book's vendored copy, next to the runs."""
    from test_book import chromium_path, external, load_page  # tests/ is on pytest's pythonpath

    out = toy / "out"
    assert cli(toy, "run", "toy/claims", "--out", str(out)) == 0
    page = next(out.rglob("*.html"))
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""<(script|link)\b[^>]*\b(src|href)\s*=\s*["']?(https?:)?//""", text), (
        "the page refers to a script or style on the network")
    assert "import mermaid" not in text and "require.min.js" not in text
    assert (out / "_static" / "mathjax" / "tex-chtml-full.js").is_file()
    chromium = chromium_path()
    if chromium is None:
        pytest.skip("chromium is not installed (run tools/ensure_system_packages.sh)")
    dom, requests = load_page(chromium, page.as_uri(), tmp_path)
    body = dom.split("<body", 1)[1]
    assert body.count("<mjx-container") >= 2, "MathJax did not typeset the page"
    assert "$$" not in body and "\\bar x" not in body, "TeX left untypeset"
    assert external(requests) == [], external(requests)


def test_a_command_leaves_the_callers_environment_as_it_was(toy, monkeypatch):
    """`run` executes in record mode; the process that called main() keeps raise mode."""
    monkeypatch.delenv("LUPIKIT_CLAIMS", raising=False)
    before = dict(os.environ)
    assert cli(toy, "run", "toy/claims", "--out", str(toy / "out")) == 0
    assert dict(os.environ) == before


SEEDED = [
    ("parameters", 'preset: str = "default"  # "default" or "paper"\n'
                   "seed: int = 3  # random seed [≥ 0]"),
    ("code", "from lupikit.claims import Claims\n\n"
             'claims = Claims("toy/seeded", preset=preset, parameters=dict(seed=seed))\n'
             'if preset == "paper":\n    pass'),
    ("code", 'claims.check("toy.clear", "Clearly positive", 0.5 + seed / 100, ">", 0.0,\n'
             '             paper="always", verdict="direction", why="a toy")\n'
             'claims.check("toy.around", "Around zero", seed - 5.0, ">", 0.0, paper="always")\n'
             'claims.check("toy.below", "Clearly negative", -1.0 - seed / 100, ">", 0.0,\n'
             '             paper="always", why="a toy")'),
]


def test_paper_with_seeds_records_the_interval_and_its_verdict(toy, capsys):
    make_toy(toy, "toy/seeded", cells=SEEDED)
    results = toy / "results"
    assert cli(toy, "paper", "toy/seeded", "--seeds", "5", "--results", str(results)) == 0
    rec = json.loads((results / "toy" / "seeded.json").read_text())
    assert tuple(rec) == records.RESULT_KEYS
    # the seeds start at the notebook's own default (3)
    assert rec["seeds"] == [3, 4, 5, 6, 7] and rec["parameters"]["seed"] == 3
    clear, around, below = rec["claims"]
    assert clear["verdict"] == "direction" and clear["rule"] == "t" and clear["interval"][0] > 0
    # held at 2 of 5 seeds (6 and 7), its interval straddles 0: inconclusive
    assert around["seeds"]["held"] == 2 and around["verdict"] == "inconclusive"
    assert around["interval"][0] < 0 < around["interval"][1] and around["value"] == 0.0
    assert below["verdict"] == "not reproduced" and below["interval"][1] < 0
    assert around["seeds"]["values"] == [-2.0, -1.0, 0.0, 1.0, 2.0] and around["n"] == 5
    assert (around["seeds"]["min"], around["seeds"]["max"]) == (-2.0, 2.0)
    for seed in rec["seeds"]:
        assert (toy / "_build" / "paper" / "toy" / "seeded" / f"seed{seed}.ipynb").is_file()
    out = capsys.readouterr().out
    assert "toy/seeded seed 5:" in out and "(5 seed(s) run, 5 recorded)" in out
    # a record with fewer seeds than asked for is run again; with as many, not
    assert cli(toy, "paper", "toy/seeded", "--seeds", "5", "--results", str(results)) == 0
    assert "not run again" in capsys.readouterr().out
    assert cli(toy, "paper", "toy/seeded", "--seeds", "0", "--results", str(results)) == 2
    assert "--seeds must be at least 1" in capsys.readouterr().err


def test_paper_adds_seeds_where_they_could_decide_a_claim(toy, capsys):
    """--max-seeds adds seeds while an inconclusive claim could be decided within the cap at its
    mean and spread; where none could, it adds none and names the claims."""
    near = ("code", 'claims.check("toy.near", "Above zero", seed - 3.5, ">", 0.0, paper="always")')
    make_toy(toy, "toy/seeded", cells=SEEDED[:2] + [near])
    results = toy / "results"
    assert cli(toy, "paper", "toy/seeded", "--seeds", "5", "--results", str(results)) == 0
    rec = json.loads((results / "toy" / "seeded.json").read_text())
    # -0.5, ..., 3.5: mean 1.5, sd 1.58; the t interval at 5 seeds straddles 0, at 10 it would not
    assert rec["claims"][0]["verdict"] == "inconclusive" and seeds.decidable(rec["claims"][0], 10)
    capsys.readouterr()
    assert cli(toy, "paper", "toy/seeded", "--seeds", "5", "--max-seeds", "10", "--results", str(results)) == 0
    out = capsys.readouterr().out
    assert "more seeds where claims are inconclusive: toy/seeded to 10 seeds" in out
    rec = json.loads((results / "toy" / "seeded.json").read_text())
    assert rec["seeds"] == list(range(3, 13)) and rec["claims"][0]["verdict"] == "reproduced"
    assert rec["claims"][0]["interval"][0] > 0 and rec["claims"][0]["n"] == 10
    # a claim whose mean sits on its threshold (-2, ..., 2) would not be decided by 10 seeds
    make_toy(toy, "toy/flat", cells=SEEDED[:2] + [
        ("code", 'claims.check("toy.around", "Around zero", seed - 5.0, ">", 0.0, paper="always")')])
    assert cli(toy, "paper", "toy/flat", "--seeds", "5", "--max-seeds", "10", "--results", str(results)) == 0
    out = capsys.readouterr().out
    assert ("toy/flat: 1 claim(s) inconclusive at 5 seeds that 10 seeds would not decide at their mean "
            "and spread: toy.around") in out
    assert "more seeds where" not in out
    assert json.loads((results / "toy" / "flat.json").read_text())["seeds"] == [3, 4, 5, 6, 7]


def test_paper_extends_a_current_record_by_the_missing_seeds_only(toy, capsys):
    """`--seeds 3` then `--seeds 5`: the second run executes seeds 6 and 7 only and gives
    the record that `--seeds 5` at once gives; a stale record runs every seed again."""
    make_toy(toy, "toy/seeded", cells=SEEDED)
    # the second results folder is outside the project (lupikit paper --results anywhere)
    at_once, step = toy / "at_once", toy.parent / f"{toy.name}-step"
    assert cli(toy, "paper", "toy/seeded", "--seeds", "5", "--results", str(at_once)) == 0
    assert cli(toy, "paper", "toy/seeded", "--seeds", "1", "--results", str(step)) == 0
    capsys.readouterr()
    assert cli(toy, "paper", "toy/seeded", "--seeds", "3", "--results", str(step)) == 0
    out = capsys.readouterr().out
    assert "seed(s) 3 recorded and current; running seed(s) 4, 5" in out
    assert "toy/seeded seed 3:" not in out
    assert cli(toy, "paper", "toy/seeded", "--seeds", "5", "--results", str(step)) == 0
    out = capsys.readouterr().out
    assert "running seed(s) 6, 7" in out and "toy/seeded seed 4:" not in out
    assert "(2 seed(s) run, 5 recorded)" in out
    assert f"-> {step / 'toy' / 'seeded.json'}" in out  # a results folder outside the project
    whole = json.loads((at_once / "toy" / "seeded.json").read_text())
    parts = json.loads((step / "toy" / "seeded.json").read_text())
    assert parts["seeds"] == whole["seeds"] == [3, 4, 5, 6, 7]
    assert parts["claims"] == whole["claims"] and parts["parameters"] == whole["parameters"]
    assert parts["parameters"]["seed"] == 3
    # the notebook's code changed: its record is stale and every seed runs again
    path = toy / "notebooks" / "toy" / "seeded.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"].append({"cell_type": "code", "metadata": {}, "source": "remark = 1", "outputs": [],
                        "execution_count": None})
    path.write_text(json.dumps(nb))
    assert cli(toy, "paper", "toy/seeded", "--seeds", "6", "--results", str(step)) == 0
    out = capsys.readouterr().out
    assert "recorded and current" not in out and "toy/seeded seed 3:" in out
    assert json.loads((step / "toy" / "seeded.json").read_text())["seeds"] == [3, 4, 5, 6, 7, 8]


def test_run_goes_on_after_a_failed_assert_of_the_notebook_and_exits_1(toy, capsys):
    # the notebook's own asserts are soft in `lupikit run` and `sweep`: every claim is evaluated
    make_toy(toy, "toy/asserting", cells=TOY[:3] + [
        ("code", "assert n > 100, f'n is {n}'"),
        ("code", 'claims.check("toy.later", "Checked after the assert", float(n), ">", 0.0, paper="> 0")')])
    assert cli(toy, "run", "toy/asserting", "--out", str(toy / "out")) == 1
    captured = capsys.readouterr()
    assert "✘ assertion of the notebook (cell 4): assert n > 100, n is 10 — failed, the run went on" in captured.out
    assert any(line.strip().startswith("✔ toy.later") for line in captured.out.splitlines())
    assert "1 assertion(s) of the notebook failed" in captured.err
    # a sweep records them per run
    out = toy / "sweep"
    assert cli(toy, "sweep", "toy/asserting", "-p", "n", "10,200", "--out", str(out)) == 0
    assert "1 assertion(s) of the notebook failed" in capsys.readouterr().out
    with (out / "claims.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["failed asserts"] for r in rows] == ["cell 4: n > 100", ""]
    assert [r["toy.later:holds"] for r in rows] == ["True", "True"]


def test_paper_resumes_an_interrupted_run_from_the_seeds_it_finished(toy, capsys):
    """A run killed after some seeds loses none: the next run keeps each finished seed whose
    checkpoint matches today's code and gives the record one uninterrupted run gives."""
    make_toy(toy, "toy/seeded", cells=SEEDED)
    whole, resumed = toy / "whole", toy / "resumed"
    assert cli(toy, "paper", "toy/seeded", "--seeds", "3", "--results", str(whole)) == 0
    runs = toy / "_build" / "paper" / "toy" / "seeded"
    # the run stopped after seeds 3 and 4: seed 5 left no checkpoint and no record was written
    (runs / "seed5.run.json").unlink()
    capsys.readouterr()
    assert cli(toy, "paper", "toy/seeded", "--seeds", "3", "--results", str(resumed)) == 0
    out = capsys.readouterr().out
    assert out.count("(kept from the run of ") == 2 and "toy/seeded seed 5: " in out
    assert "(kept from the run of" not in next(line for line in out.splitlines() if "seed 5:" in line)
    a, b = (json.loads((d / "toy" / "seeded.json").read_text()) for d in (whole, resumed))
    assert a["claims"] == b["claims"] and a["seeds"] == b["seeds"] and a["fingerprint"] == b["fingerprint"]
    # --force runs every seed again
    assert cli(toy, "paper", "toy/seeded", "--seeds", "3", "--results", str(resumed), "--force") == 0
    assert "kept from the run" not in capsys.readouterr().out
    # a changed code cell makes every checkpoint useless: every seed runs again
    path = toy / "notebooks" / "toy" / "seeded.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"].append({"cell_type": "code", "metadata": {}, "source": "remark = 1", "outputs": [],
                        "execution_count": None})
    path.write_text(json.dumps(nb))
    (resumed / "toy" / "seeded.json").unlink()
    assert cli(toy, "paper", "toy/seeded", "--seeds", "3", "--results", str(resumed)) == 0
    assert "kept from the run" not in capsys.readouterr().out


def test_paper_records_nothing_when_code_changes_between_seeds(toy, capsys):
    """Seeds that ran different code make no record; the next run keeps those that ran today's code."""
    edit = ("code", "import nbformat\n"
                    'nb = nbformat.read("mixed.ipynb", 4)\n'
                    "if seed == 4 and len(nb.cells) == 4:\n"
                    '    nb.cells.append(nbformat.v4.new_code_cell("edited = True"))\n'
                    '    nbformat.write(nb, "mixed.ipynb")')
    make_toy(toy, "toy/mixed", cells=SEEDED + [edit])
    results = toy / "results"
    assert cli(toy, "paper", "toy/mixed", "--seeds", "3", "--jobs", "1", "--results", str(results)) == 2
    out = capsys.readouterr().out
    assert "toy/mixed: NOT RECORDED: its code changed while it ran; seed(s) 3, 4 ran other code" in out
    assert records.read_paper_result(results, "toy/mixed") is None
    assert cli(toy, "paper", "toy/mixed", "--seeds", "3", "--jobs", "1", "--results", str(results)) == 0
    out = capsys.readouterr().out
    assert out.count("(kept from the run of ") == 1 and "toy/mixed seed 5: " in out
    record = records.read_paper_result(results, "toy/mixed")
    assert not records.is_stale(record, toy / "notebooks" / "toy" / "mixed.ipynb", "toy/mixed")
