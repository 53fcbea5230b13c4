"""The classroom edition's times on 2 cores: build both editions, grade a class.

    python benchmarks/bench_classroom.py [--students 30] [--jobs 2] [--book] [--quick] [--record-dir DIR]

1. ``lupikit classroom build`` with a roster of N made-up students (the
   notebooks of both editions; ``--book`` also times a second build that adds
   the student book's HTML and PDF, which need the book's jupyter-cache);
2. N submissions made from the instructor's notebooks, a class as a teacher
   gets it: most students right, some with one answer wrong, one that loops,
   one that raises, one that is not valid JSON, one that deleted a check cell;
3. ``lupikit classroom grade`` of all of them, with the time per notebook.

It prints the times and checks the scores it expects (exit status 1 if one
differs). No other tool grades per-student variants, so there is nothing to
run side by side; the trial of otter-grader and nbgrader that chose the tools
is on the book's page "Teaching with this book".

The run's record (``_record.py``) is ``results/benchmarks/classroom.json``:
values ``students``, ``jobs``, ``notebooks``, ``submissions``,
``build_seconds``, ``grade_seconds``, ``grade_seconds_per_notebook``,
``scores_as_expected`` ("yes" or "no") and, with ``--book``,
``book_build_seconds``; table ``times``. ``--quick`` builds and grades a class
of 3 (time limit 30 s) and writes its record to a temporary folder.
"""

import argparse
import copy
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record
import nbformat

ROOT = Path(__file__).resolve().parents[1]
LUPIKIT = Path(sys.executable).with_name("lupikit")


def run(cmd):
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"failed: {' '.join(map(str, cmd))}")
    return time.perf_counter() - t0, done.stdout


def answer_cells(nb):
    return [c for c in nb.cells if (c.metadata.get("nbgrader") or {}).get("solution")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--book", action="store_true", help="also build the student book (HTML and PDF)")
    _record.add_arguments(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.students, args.time_limit = 3, 30.0
    record = _record.Record("classroom", "bench_classroom.py", packages=("nbgrader", "nbclient"),
                            argv=argv)
    time_rows = []
    with tempfile.TemporaryDirectory(prefix="bench-classroom-") as tmp:
        tmp = Path(tmp)
        ids = [f"s{k:03d}" for k in range(args.students)]
        roster = tmp / "roster.csv"
        roster.write_text("student\n" + "\n".join(ids) + "\n")
        out = tmp / "classroom"
        cmd = [str(LUPIKIT), "classroom", "build", "--out", str(out), "--students", str(roster)]
        seconds, log = run(cmd + ["--no-book"])
        print(f"build both editions ({args.students} students): {seconds:.1f} s")
        record.value("build_seconds", seconds)
        time_rows.append([f"both editions' notebooks for a class of {args.students} "
                     "(`lupikit classroom build --students`)", round(seconds, 1)])
        if args.book:
            book_cmd = [str(LUPIKIT), "classroom", "build", "--out", str(tmp / "with-book"),
                        "--students", str(roster)]
            book_seconds, _ = run(book_cmd)
            print(f"build both editions with the student book (HTML and PDF): {book_seconds:.1f} s")
            record.value("book_build_seconds", book_seconds)
        instructor = out / "instructor"
        notebooks = sorted(p.relative_to(instructor) for p in instructor.glob("*/exercises*.ipynb"))
        subs = tmp / "submissions"
        expected = {}
        for k, sid in enumerate(ids):
            kind = ("wrong", "loops", "raises", "notjson", "deleted")[k % 5] if k % 3 == 2 else "right"
            expected[sid] = kind
            for rel in notebooks:
                nb = nbformat.read(instructor / rel, as_version=4)
                target = subs / sid / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                if kind == "notjson" and rel == notebooks[0]:
                    target.write_text(nbformat.writes(nb)[:200])
                    continue
                if rel == notebooks[0]:
                    cells = answer_cells(nb)
                    if kind == "wrong":
                        cells[0].source += "\n" + "\n".join(f"{a} = {a} * 2 + 1" for a in _answers(nb, 0))
                    elif kind == "loops":
                        cells[-1].source = "import time\nwhile True:\n    time.sleep(0.01)"
                    elif kind == "raises":
                        cells[0].source = "raise RuntimeError('a bug of the student')"
                    elif kind == "deleted":
                        gid = _graded_ids(nb)[-1]
                        nb.cells = [c for c in nb.cells if (c.metadata.get("nbgrader") or {}).get("grade_id") != gid]
                nbformat.write(copy.deepcopy(nb), target)
        scores = tmp / "scores.csv"
        seconds, log = run([str(LUPIKIT), "classroom", "grade", str(subs), "--instructor", str(instructor),
                            "--out", str(scores), "--jobs", str(args.jobs), "--time-limit", str(args.time_limit)])
        n = args.students * len(notebooks)
        print(f"grade {args.students} students x {len(notebooks)} notebooks ({n} submissions, {args.jobs} at once): "
              f"{seconds:.1f} s, {seconds / n:.1f} s per notebook")
        time_rows.append([f"grading the class: {args.students} students × {len(notebooks)} exercise "
                     f"notebooks = {n} submissions, {args.jobs} at a time", round(seconds, 1)])
        if args.book:
            time_rows.append(["both editions with the student book, HTML and PDF, with the check for "
                         "solution lines in it (from the book's cache)", round(book_seconds, 1)])
        with scores.open() as fh:
            rows = {r["student"]: r for r in csv.DictReader(fh)}
        full = float(rows["max"]["total"])
        wrong = [sid for sid, kind in expected.items() if (kind == "right") != (float(rows[sid]["total"]) == full)]
        for key, v in (("students", args.students), ("jobs", args.jobs),
                       ("notebooks", len(notebooks)), ("submissions", n),
                       ("grade_seconds", seconds), ("grade_seconds_per_notebook", seconds / n),
                       ("scores_as_expected", "no" if wrong else "yes")):
            record.value(key, v)
        record.table("times", f"Times of the classroom edition for a class of {args.students}, "
                     f"{args.jobs} submissions graded at a time", ["step", "seconds"], time_rows)
        record.write(_record.record_dir(args.record_dir, args.quick))
        print(f"students right: {sum(k == 'right' for k in expected.values())} (full marks), others lost points: "
              f"{'as expected' if not wrong else 'NOT as expected: ' + ', '.join(wrong)}")
        return 1 if wrong else 0


def _graded_ids(nb):
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if (c.metadata.get("nbgrader") or {}).get("grade")]


def _answers(nb, k):
    graded = [c for c in nb.cells if (c.metadata.get("nbgrader") or {}).get("grade")]
    return graded[k].metadata["lupikit"]["answers"]


if __name__ == "__main__":
    sys.exit(main())
