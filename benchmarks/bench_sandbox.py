"""What the grader's sandbox costs, and how a class scales on a Dask cluster.

    python benchmarks/bench_sandbox.py [--students 3] [--jobs 2] [--repeats 2] [--quick] [--record-dir DIR]

A class of made-up students hands in the book's four exercise notebooks
answered with the instructor's solutions (every answer right). The class is
graded the same way with the sandbox (``lupikit classroom grade``, the
default) and without it (``--unsandboxed``), ``--repeats`` times each, in
the order sandbox, none, none, sandbox, ... so that a drift of the machine's
load falls on both alike. The time per notebook is the mean of the tasks'
own seconds (the student's run and the replay of the tests), the median
over the repeats; the overhead is their ratio less one (target: at most
10 %).

Without the sandbox, each notebook still runs in a process of its own (the
same runner, under the same rlimits, as the grading user): the overhead is
what the sandbox adds to the supervised run, not the supervision.

Side by side, one notebook at a time (``--jobs 1``): our grader with the
sandbox against nbgrader's ``autograde`` (what a course of this field would
otherwise run; it executes the tests in the student's own kernel, as the
grading user, with no process of its own per notebook) on the same
submissions, both wall times over the notebooks. otter-grader's container
grading needs a Docker engine; where none runs, it is not measured, and
the record says so.

Then the class is graded once more on a local Dask cluster of two worker
processes (``--scheduler``), and its wall time is set beside the threads' run.
The projection of a 1000-student, 4-notebook course on 2, 8 and 32 workers
(a worker per core, one notebook at a time) is 4000 notebooks × the
sandboxed time per notebook ÷ the workers: it assumes the exercise mix and
the machines of this run, and it leaves out the client's reading and
writing, which the two-worker run shows.

The run's record (``_record.py``) is ``results/benchmarks/sandbox.json``:
values ``students``, ``notebooks``, ``jobs``, ``repeats``,
``sandbox_seconds_per_notebook``, ``unsandboxed_seconds_per_notebook``,
``overhead_percent``, ``serial_seconds_per_notebook``,
``nbgrader_seconds_per_notebook``, ``nbgrader_scores_as_expected``,
``otter_grader`` (why it was not run, or its seconds a notebook),
``threads_wall_seconds``, ``dask_wall_seconds``, ``scores_as_expected``
("yes"/"no"); tables ``runs`` and ``projection``.
``--quick`` grades 1 student once each way and writes to a temporary folder.
"""

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import _record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lupikit.classroom import grade_submissions, is_exercise_notebook  # noqa: E402

COURSE = (1000, 4)  # students, notebooks


def _class(folder, sources, n):
    ids = [f"s{k:03d}" for k in range(n)]
    for sid in ids:
        for rel, path in sources.items():
            target = folder / sid / f"{rel}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    return ids


def _grade(subs, sources, out, ids, jobs, unsandboxed=False, scheduler=None):
    t0 = time.perf_counter()
    report = grade_submissions(subs, sources, out, roster=ids, n_jobs=jobs, unsandboxed=unsandboxed,
                               scheduler=scheduler, time_limit=600.0)
    wall = time.perf_counter() - t0
    per_notebook = statistics.fmean(report["task_seconds"].values())
    full = all(v == report["max"][c] for row in report["scores"].values() for c, v in row.items())
    return wall, per_notebook, full


def _nbgrader(folder, sources, ids):
    """nbgrader's ``autograde`` of the same class, one notebook at a time: wall seconds and whether all got full marks.

    Each part is an assignment (its notebooks share a name); the students hand in
    the instructor's notebooks, as in our run.
    """
    bin_ = Path(sys.executable).with_name("nbgrader")
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(folder)!r}\n"
        "c.CourseDirectory.course_id = 'bench'\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{folder}/gradebook.db'\n"
        "c.ExecutePreprocessor.timeout = 600\n")
    assignments = {}
    for rel, path in sources.items():
        assignment = rel.replace("/", "-")
        assignments[assignment] = path.name
        (folder / "source" / assignment).mkdir(parents=True)
        shutil.copy(path, folder / "source" / assignment / path.name)
        for sid in ids:
            (folder / "submitted" / sid / assignment).mkdir(parents=True)
            shutil.copy(path, folder / "submitted" / sid / assignment / path.name)
    # nbgrader runs alembic, from its own environment, to make the gradebook
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_.parent), os.environ.get("PATH", "")])}
    quiet = {"cwd": folder, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True, "env": env}
    for assignment in assignments:
        subprocess.run([str(bin_), "db", "assignment", "add", assignment], **quiet)
        subprocess.run([str(bin_), "generate_assignment", assignment, "--force"], **quiet)
    t0 = time.perf_counter()
    for assignment in assignments:
        subprocess.run([str(bin_), "autograde", assignment, "--create", "--force"], **quiet)
    wall = time.perf_counter() - t0
    subprocess.run([str(bin_), "export", "--to", str(folder / "grades.csv")], **quiet)
    with (folder / "grades.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    full = len(rows) == len(ids) * len(assignments) and all(
        float(r["score"]) == float(r["max_score"]) > 0 for r in rows)
    return wall, full


def _otter():
    """Why otter-grader's container grading was not measured here ('' where a Docker engine answers)."""
    docker = shutil.which("docker")
    if docker is None:
        return "no Docker client on this machine"
    try:
        info = subprocess.run([docker, "info"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "the Docker client did not answer"
    return "" if info.returncode == 0 else "no Docker engine runs on this machine (only the client)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    _record.add_arguments(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.students, args.repeats = 1, 1
    nb_dir = ROOT / "notebooks"
    sources = {p.relative_to(nb_dir).with_suffix("").as_posix(): p for p in sorted(nb_dir.rglob("*.ipynb"))
               if ".ipynb_checkpoints" not in p.parts and is_exercise_notebook(p)}
    record = _record.Record("sandbox", "bench_sandbox.py", packages=("nbclient", "nbgrader", "distributed"),
                            argv=argv)
    rows, times, all_full = [], {"sandbox": [], "none": []}, True
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
        tmp = Path(tmp)
        subs = tmp / "submissions"
        ids = _class(subs, sources, args.students)
        n_notebooks = len(ids) * len(sources)
        order = []
        for r in range(args.repeats):
            order += [("sandbox", "none"), ("none", "sandbox")][r % 2]
        threads_wall = []
        for k, mode in enumerate(order):
            wall, per_nb, full = _grade(subs, sources, tmp / f"scores-{k}.csv", ids, args.jobs,
                                        unsandboxed=(mode == "none"))
            all_full &= full
            times[mode].append(per_nb)
            if mode == "sandbox":
                threads_wall.append(wall)
            load = os.getloadavg()[0]
            print(f"{mode:8s} run {k + 1}: {wall:.1f} s wall, {per_nb:.2f} s a notebook, load {load:.2f}")
            rows.append([k + 1, "sandbox" if mode == "sandbox" else "none (--unsandboxed)", args.jobs,
                         round(wall, 1), round(per_nb, 2), round(load, 2)])
        # side by side, one notebook at a time: ours with the sandbox, and nbgrader's autograde
        wall, _, full = _grade(subs, sources, tmp / "scores-serial.csv", ids, 1)
        all_full &= full
        serial = wall / n_notebooks
        print(f"sandbox  one at a time: {wall:.1f} s wall, {serial:.2f} s a notebook")
        rows.append([len(order) + 1, "sandbox, one notebook at a time", 1, round(wall, 1), round(serial, 2),
                     round(os.getloadavg()[0], 2)])
        nbg_wall, nbg_full = _nbgrader(tmp / "nbgrader", sources, ids)
        nbg = nbg_wall / n_notebooks
        print(f"nbgrader autograde: {nbg_wall:.1f} s wall, {nbg:.2f} s a notebook, full marks: {nbg_full}")
        rows.append([len(order) + 2, "nbgrader autograde (no sandbox, tests in the student's kernel)", 1,
                     round(nbg_wall, 1), round(nbg, 2), round(os.getloadavg()[0], 2)])
        otter = _otter()
        import distributed

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                          dashboard_address=None, silence_logs=40) as cluster, \
                    distributed.Client(cluster) as client:
                wall, per_nb, full = _grade(subs, sources, tmp / "scores-dask.csv", ids, args.jobs,
                                            scheduler=client)
        all_full &= full
        print(f"dask     2 workers: {wall:.1f} s wall, {per_nb:.2f} s a notebook")
        rows.append([len(order) + 3, "sandbox, on a local Dask cluster of 2 workers", 2, round(wall, 1),
                     round(per_nb, 2), round(os.getloadavg()[0], 2)])
    sandbox, none = statistics.median(times["sandbox"]), statistics.median(times["none"])
    overhead = 100.0 * (sandbox / none - 1.0)
    print(f"a notebook: {sandbox:.2f} s with the sandbox, {none:.2f} s without: overhead {overhead:+.1f} %")
    for key, v in (("students", args.students), ("notebooks", n_notebooks), ("jobs", args.jobs),
                   ("repeats", args.repeats), ("sandbox_seconds_per_notebook", round(sandbox, 3)),
                   ("unsandboxed_seconds_per_notebook", round(none, 3)), ("overhead_percent", round(overhead, 1)),
                   ("serial_seconds_per_notebook", round(serial, 3)), ("nbgrader_seconds_per_notebook", round(nbg, 3)),
                   ("nbgrader_scores_as_expected", "yes" if nbg_full else "no"),
                   ("otter_grader", f"not run: {otter}" if otter else "a Docker engine answers: not yet measured"),
                   ("threads_wall_seconds", round(statistics.median(threads_wall), 1)),
                   ("dask_wall_seconds", round(wall, 1)), ("scores_as_expected", "yes" if all_full else "no")):
        record.value(key, v)
    record.table("runs", "each grading of the class: wall time, the mean seconds of a notebook's task "
                         "(the student's run and the tests' replay) and the load average after it",
                 ["run", "sandbox", "workers or jobs", "wall (s)", "s a notebook", "load"], rows)
    n = COURSE[0] * COURSE[1]
    record.table("projection", f"a course of {COURSE[0]} students and {COURSE[1]} notebooks: {n} notebooks "
                               "× the sandboxed seconds a notebook ÷ the workers (one notebook each at a time)",
                 ["workers", "hours"], [[w, round(n * sandbox / w / 3600.0, 2)] for w in (2, 8, 32)])
    path = record.write(_record.record_dir(args.record_dir, args.quick))
    print(f"record: {path}")
    return 0 if all_full else 1


if __name__ == "__main__":
    raise SystemExit(main())
