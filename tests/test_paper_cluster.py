"""``lupikit paper --scheduler``: each notebook × seed a task on a Dask cluster.

A ``distributed.LocalCluster`` of two worker processes (``local_cluster``),
started before any command prepares the kernels: what the workers' kernels
get of the harness, they get from the tasks. The toy notebook has a seed, a
joblib loop, and a cell that sleeps 3 s while a file ``slow`` sits beside it
(so that a test can kill a worker while its task runs).
"""

import json
import os
import signal
import threading
import time

import pytest

distributed = pytest.importorskip("distributed")

from lupikit._book import records  # noqa: E402
from lupikit.cli import main  # noqa: E402
from local_cluster import local_cluster  # noqa: E402  (tests/ is on pytest's pythonpath)
from test_runs import make_toy  # noqa: E402

SHORT = "toy/seeded"
CELLS = [
    ("parameters", 'preset: str = "default"  # "default" or "paper"\n'
                   "seed: int = 3  # random seed [≥ 0]\n"
                   "n_jobs: int = 2  # joblib workers [≠ 0]"),
    ("code", "from lupikit.claims import Claims\n\n"
             'claims = Claims("toy/seeded", preset=preset, parameters=dict(seed=seed))\n'
             'if preset == "paper":\n    pass'),
    ("code", "import os, pathlib, time\n"
             "from joblib import Parallel, delayed\n\n"
             "if pathlib.Path('slow').exists():\n"
             "    pathlib.Path(f'started-{seed}').touch()\n"
             "    time.sleep(3)\n"
             "total = sum(Parallel(n_jobs=n_jobs)(delayed(abs)(-i) for i in range(4)))\n"
             "print('harness:', os.environ.get('IPYTHONDIR'), os.environ.get('LUPIKIT_CLAIMS'),\n"
             "      os.environ.get('LUPIKIT_SCHEDULER'), _lupikit_client)"),
    ("code", 'claims.check("toy.below-five", "Holds below seed 5", float(seed), "<", 5.0, paper="always")\n'
             'claims.check("toy.total", "The loop adds up", float(total), "==", 6.0, paper="6")'),
]


@pytest.fixture(scope="module")
def cluster():
    with local_cluster(distributed) as (cluster, client, finished):
        yield cluster, client, finished


@pytest.fixture
def toy(tmp_path):
    make_toy(tmp_path, SHORT, cells=CELLS)
    return tmp_path


def paper(toy, cluster, *args):
    return main(["--notebooks-dir", str(toy / "notebooks"), "paper", SHORT, "--seeds", "3",
                 "--results", str(toy / "results"), "--scheduler", cluster[0].scheduler_address, *args])


def ours(finished):
    """The keys of this module's paper tasks among the tasks the cluster finished."""
    return [k for k in finished if isinstance(k, str) and k.startswith(f"paper-{SHORT}-seed")]


def test_paper_runs_each_seed_as_a_task_and_records_where(toy, cluster, capsys):
    _, client, finished = cluster
    before = len(finished)
    assert paper(toy, cluster) == 0
    out = capsys.readouterr().out
    assert "each notebook × seed a task on the Dask cluster at tcp://" in out
    # three tasks, nothing else: the notebooks' joblib loops stayed on their workers
    assert len(ours(finished[before:])) == 3 and len(finished) - before == 3
    rec = records.read_paper_result(toy / "results", SHORT)
    assert tuple(rec) == records.RESULT_KEYS and rec["seeds"] == [3, 4, 5]
    workers = set(client.nthreads())
    assert len(rec["ran_on"]) == 3
    assert all(place.split(" ")[0] in workers for place in rec["ran_on"]), rec["ran_on"]
    assert [c["seeds"]["values"] for c in rec["claims"]] == [[3.0, 4.0, 5.0], [6.0, 6.0, 6.0]]
    for seed, place in zip(rec["seeds"], rec["ran_on"]):
        executed = toy / "_build" / "paper" / "toy" / "seeded" / f"seed{seed}.ipynb"
        assert executed.is_file()
        assert f"toy/seeded seed {seed}: " in out and f" on {place}; " in out
        # the worker's kernel had the harness of this run (not the workers' own environment)
        nb = json.loads(executed.read_text())
        text = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
        assert f"harness: {toy / '_build' / '.ipython'} record None None" in text


def test_a_second_run_runs_nothing(toy, cluster, capsys):
    _, _, finished = cluster
    assert paper(toy, cluster) == 0
    first = records.read_paper_result(toy / "results", SHORT)
    # the record is lost (a run stopped before writing it): the seeds' checkpoints are kept, no task runs
    (toy / "results" / "toy" / "seeded.json").unlink()
    capsys.readouterr()
    before = len(finished)
    assert paper(toy, cluster) == 0
    assert capsys.readouterr().out.count("(kept from the run of ") == 3
    second = records.read_paper_result(toy / "results", SHORT)
    assert second["claims"] == first["claims"] and second["ran_on"] == first["ran_on"]
    # the record is current: nothing is planned
    assert paper(toy, cluster) == 0
    assert "every paper-scale result is up to date" in capsys.readouterr().out
    assert len(finished) == before


def test_a_worker_lost_mid_task_costs_only_its_task(toy, cluster, capsys):
    _, client, _ = cluster
    folder = toy / "notebooks" / "toy"
    (folder / "slow").touch()
    result = {}
    run = threading.Thread(target=lambda: result.update(code=paper(toy, cluster)))
    run.start()
    try:
        victim, _ = kill_a_worker_in_its_slow_cell(client, folder)
    finally:
        run.join(timeout=90)
    assert not run.is_alive() and result["code"] == 0
    rec = records.read_paper_result(toy / "results", SHORT)
    assert rec["seeds"] == [3, 4, 5] and len(rec["ran_on"]) == 3
    # the lost task ran again on another worker: no seed is recorded as run on the dead one
    assert all(place.startswith("tcp://") and not place.startswith(victim + " ") for place in rec["ran_on"])
    assert "FAILED" not in capsys.readouterr().out


def kill_a_worker_in_its_slow_cell(client, folder):
    """Kill (SIGKILL) the worker whose task has started the toy's slow cell.

    Its address, and the seeds of the tasks it held (the one it ran, and one
    the scheduler may have queued on it: Dask's worker-saturation).
    """
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        started = {int(p.name.split("-")[1]) for p in folder.glob("started-*")}
        for worker, keys in client.processing().items():
            seeds = {int(str(k).split("-seed")[1].split("-")[0]) for k in keys}
            if seeds & started:
                os.kill(client.run(os.getpid, workers=[worker])[worker], signal.SIGKILL)
                return worker, seeds
        time.sleep(0.1)
    raise AssertionError("no task started its slow cell")


def test_a_task_lost_for_good_fails_its_seed_only(toy, capsys):
    """With no failure allowed, the killed worker's tasks are lost (KilledWorker): their seeds fail,
    the run ends, the other seeds are kept, and the next run runs the lost seeds alone."""
    import dask

    folder = toy / "notebooks" / "toy"
    (folder / "slow").touch()
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            local_cluster(distributed) as (cluster, client, finished):
        result = {}
        run = threading.Thread(target=lambda: result.update(code=paper(toy, (cluster,))))
        run.start()
        try:
            _, held = kill_a_worker_in_its_slow_cell(client, folder)
        finally:
            run.join(timeout=90)
        assert not run.is_alive() and result["code"] == 2
        captured = capsys.readouterr()
        lost = sorted(int(line.split(" seed ")[1].split(":")[0]) for line in captured.out.splitlines()
                      if "FAILED: KilledWorker" in line)
        assert lost == sorted(held) and len(lost) < 3, captured.out
        assert f"toy/seeded: FAILED at seed(s) {', '.join(map(str, lost))}: KilledWorker" in captured.out
        assert "1 notebook(s) failed: toy/seeded" in captured.err
        assert records.read_paper_result(toy / "results", SHORT) is None
        (folder / "slow").unlink()
        assert paper(toy, (cluster,)) == 0
        out = capsys.readouterr().out
        assert out.count("(kept from the run of ") == 3 - len(lost)
        assert all(f"toy/seeded seed {seed}: " in out for seed in lost)
        assert len(ours(finished)) == 3  # the seeds that finished in the first run, the lost ones now
    assert records.read_paper_result(toy / "results", SHORT)["seeds"] == [3, 4, 5]
