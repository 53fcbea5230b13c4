"""``lupikit run``, ``sweep`` and ``paper`` on a toy notebook, end to end.

The toy notebook has the book's conventions (a parameters cell, presets, a
``Claims`` recorder, a joblib loop); each test executes it in a real kernel.
"""

import csv
import json
import subprocess
import sys

import nbformat
import pytest

from lupikit import _runs
from lupikit.claims import read_claims
from lupikit.cli import main, read_presets
from local_cluster import local_cluster  # tests/ is on pytest's pythonpath

TOY = [
    ("markdown", "# A toy notebook\n\nIts claim: the scaled mean is small."),
    ("parameters", 'preset: str = "default"  # "default" or "paper"\n'
                   "n: int = 10  # values\n"
                   "threshold: float = 0.5  # what the claim needs\n"
                   "n_jobs: int = 1  # joblib workers"),
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


def test_run_reports_a_failed_claim_by_id_value_and_threshold(toy, capsys):
    assert cli(toy, "run", "toy/claims", "-p", "threshold", "0.01", "--out", str(toy / "out")) == 2
    err = capsys.readouterr().err
    assert "claim toy.mean (The scaled mean is small) does not hold: measured 0.1" in err
    assert "needs < 0.01" in err


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
    assert [(r["threshold"], r["n"], r["toy.mean:holds"]) for r in rows] == [
        ("0.01", "5", "False"), ("0.01", "10", "False"), ("1.0", "5", "True"), ("1.0", "10", "True")]
    assert all(float(r["toy.mean"]) > 0 and not r["error"] for r in rows)
    assert (out / "toy.mean-vs-n.png").stat().st_size > 1000
    assert "claims table:" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["-p", "nope", "1,2"], "unknown sweep parameter 'nope'"),
    (["-p", "n", "1,x"], "parameter 'n': expected an int"),
    ([], "give at least one parameter"),
    (["-p", "n", "1,2", "--plot", "toy.mean", "threshold"], "not a swept parameter"),
    (["-p", "n", "1,2", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
])
def test_sweep_errors_are_clear(toy, capsys, args, message):
    assert cli(toy, "sweep", "toy/claims", *args) == 2
    assert message in capsys.readouterr().err


def test_paper_results_have_the_schema_and_go_stale(toy, capsys):
    make_toy(toy, "toy/other")
    results = toy / "results"
    assert cli(toy, "paper", "--jobs", "2", "--results", str(results)) == 0
    for short in ("toy/claims", "toy/other"):
        rec = json.loads((results / f"{short}.json").read_text())
        assert tuple(rec) == _runs.RESULT_KEYS
        # the values that ran: the paper preset sets n = 20 after the parameters cell (10)
        assert rec["parameters"]["preset"] == "paper" and rec["parameters"]["n"] == 20
        assert rec["parameters"]["threshold"] == 0.5 and rec["parameters"]["n_jobs"] == 1
        assert [c["id"] for c in rec["claims"]] == ["toy.mean", "toy.offline"]
        assert rec["seconds"] > 0 and rec["git_commit"] and rec["machine"]
    # unchanged notebooks are not run again
    capsys.readouterr()
    assert cli(toy, "paper", "--results", str(results)) == 0
    assert "every paper-scale result is up to date" in capsys.readouterr().out
    # changing one notebook makes only its result stale
    path = toy / "notebooks" / "toy" / "other.ipynb"
    nb = nbformat.read(str(path), 4)
    nb.cells[0].source += "\n\nOne more sentence."
    nbformat.write(nb, str(path))
    stale = {s: _runs.is_stale(_runs.read_paper_result(results, s), toy / "notebooks" / f"{s}.ipynb", s)
             for s in ("toy/claims", "toy/other")}
    assert stale == {"toy/claims": False, "toy/other": True}


def test_a_notebook_changed_during_its_paper_run_is_recorded_stale(toy):
    # the record's fingerprint is the code as it was when the run started: an edit
    # made while a long run goes on must leave the result stale, not current
    edit = ("code", 'if preset == "paper":\n'
                    "    import nbformat\n"
                    '    nb = nbformat.read("selfedit.ipynb", 4)\n'
                    '    nb.cells.append(nbformat.v4.new_markdown_cell("Edited during the run."))\n'
                    '    nbformat.write(nb, "selfedit.ipynb")')
    path = make_toy(toy, "toy/selfedit", cells=TOY + [edit])
    results = toy / "results"
    assert cli(toy, "paper", "toy/selfedit", "--results", str(results)) == 0
    record = _runs.read_paper_result(results, "toy/selfedit")
    assert "Edited during the run." in path.read_text()
    assert _runs.is_stale(record, path, "toy/selfedit")


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


def test_kernels_get_one_openmp_thread_when_several_run(tmp_path):
    """XGBoost (loaded after threadpoolctl runs) must not start a thread per core in each kernel."""
    from lupikit._harness import kernel_environment

    env = kernel_environment(tmp_path, blas_threads=1, base={})
    assert env["LUPIKIT_BLAS_THREADS"] == "1" and env["OMP_NUM_THREADS"] == "1"
    assert kernel_environment(tmp_path, blas_threads=1, base={"OMP_NUM_THREADS": "3"})["OMP_NUM_THREADS"] == "3"
    assert "OMP_NUM_THREADS" not in kernel_environment(tmp_path, base={})
