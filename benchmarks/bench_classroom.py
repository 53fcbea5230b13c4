"""A term of the classroom edition on 2 cores: build, collect, grade, regrade, marks, exports.

    python benchmarks/bench_classroom.py [--students 30] [--jobs 2] [--book] [--quick] [--record-dir DIR]

Everything after the build runs from a course folder outside the checkout,
as a teacher would:

1. ``lupikit classroom build`` with the roster as Canvas exports it (``--book``
   also times a second build that adds the student book's HTML and PDF,
   which need the book's jupyter-cache);
2. N students answer their own notebooks (their variant, their header) with
   the instructor's solutions, most right, some with one answer wrong, one
   that loops, one that raises, one that is not valid JSON, one that deleted
   a check cell, one that hands in a classmate's files verbatim; one hands in
   late. The files go into a Canvas-style bulk download (a zip of
   ``name_[LATE_]userid_submissionid_exercises.ipynb``: the four parts'
   notebooks all under the same name);
3. ``lupikit classroom collect`` places them by what they hold;
4. ``lupikit classroom grade --instructor`` grades the class;
5. one student is regraded (``--students``) into the same ``scores.csv``;
6. the written exercises' marks are typed into the template and merged
   (``classroom marks``);
7. the grades are exported for Canvas and for Moodle (``classroom export``).

It prints each step's time and checks what it expects (exit status 1 if
something differs): the scores, the flags of the copy and of the late
submission, the regrade keeping every other row, the exports' rows. No other
tool grades per-student variants, so there is nothing to run side by side;
the trial of otter-grader and nbgrader that chose the tools is on the book's
page "Teaching with this book".

The run's record (``_record.py``) is ``results/benchmarks/classroom.json``:
values ``students``, ``jobs``, ``notebooks``, ``submissions``,
``build_seconds``, ``collect_seconds``, ``grade_seconds``,
``grade_seconds_per_notebook``, ``regrade_seconds``, ``marks_seconds``,
``export_seconds``, ``scores_as_expected`` and ``flags_as_expected`` ("yes" or
"no") and, with ``--book``, ``book_build_seconds``; table ``times``.
``--quick`` runs a class of 7 (time limit 30 s) and writes its record to a
temporary folder.
"""

import argparse
import copy
import csv
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import _record
import nbformat

ROOT = Path(__file__).resolve().parents[1]
LUPIKIT = Path(sys.executable).with_name("lupikit")


def run(cmd, cwd=ROOT):
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"failed: {' '.join(map(str, cmd))}")
    return time.perf_counter() - t0, done.stdout


def answer_cells(nb):
    return [c for c in nb.cells if (c.metadata.get("nbgrader") or {}).get("solution")]


def answered(student_nb, instructor_nb):
    """The student's own notebook with the instructor's solutions typed into its answer cells."""
    nb = copy.deepcopy(student_nb)
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in answer_cells(instructor_nb)}
    for cell in answer_cells(nb):
        cell.source = solutions[cell.metadata["nbgrader"]["grade_id"]]
    return nb


KINDS = ("copy", "wrong", "loops", "raises", "notjson", "deleted")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--book", action="store_true", help="also build the student book (HTML and PDF)")
    _record.add_arguments(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.students, args.time_limit = 7, 30.0
    record = _record.Record("classroom", "bench_classroom.py", packages=("nbgrader", "nbclient"),
                            argv=argv)
    time_rows = []
    with tempfile.TemporaryDirectory(prefix="bench-classroom-") as tmp:
        tmp = Path(tmp)
        course = tmp / "course"  # the teacher's folder, outside the checkout
        course.mkdir()
        ids = [str(1001 + k) for k in range(args.students)]
        names = {sid: f"Student{k:03d}, Ada" for k, sid in enumerate(ids)}
        roster = course / "canvas-roster.csv"
        with roster.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework"])
            writer.writerow(["    Points Possible", "", "", "", "", "10"])
            for k, sid in enumerate(ids):
                writer.writerow([names[sid], sid, f"sis{k:03d}", f"login{k:03d}", "A", ""])
        out = course / "editions"
        cmd = [str(LUPIKIT), "classroom", "build", "--out", str(out), "--students", str(roster)]
        seconds, log = run(cmd + ["--no-book"])
        print(f"build both editions ({args.students} students): {seconds:.1f} s")
        record.value("build_seconds", seconds)
        time_rows.append([f"both editions' notebooks for a class of {args.students} "
                          "(`lupikit classroom build --students`, a Canvas roster)", round(seconds, 1)])
        if args.book:
            book_cmd = [str(LUPIKIT), "classroom", "build", "--out", str(tmp / "with-book"),
                        "--students", str(roster)]
            book_seconds, _ = run(book_cmd)
            print(f"build both editions with the student book (HTML and PDF): {book_seconds:.1f} s")
            record.value("book_build_seconds", book_seconds)
        instructor = out / "instructor"
        notebooks = sorted(p.relative_to(instructor) for p in instructor.glob("*/exercises*.ipynb"))
        expected, files = {}, {}
        late = ids[1]
        for k, sid in enumerate(ids):
            kind = KINDS[(k // 3) % len(KINDS)] if k % 3 == 2 else "right"
            expected[sid] = kind
            for rel in notebooks:
                nb = answered(nbformat.read(out / "student" / sid / rel, as_version=4),
                              nbformat.read(instructor / rel, as_version=4))
                for cell in answer_cells(nb):  # each student writes the code a little differently
                    cell.source += f"\nmy_student_number = {k}"
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
                text = nbformat.writes(nb)
                if kind == "notjson" and rel == notebooks[0]:
                    text = text[:200]
                if kind == "copy":  # the files of the first student, verbatim
                    text = files[(ids[0], rel)]
                files[(sid, rel)] = text
        # a Canvas bulk download: every part's notebook is called exercises.ipynb
        download = course / "submissions.zip"
        with zipfile.ZipFile(download, "w") as zf:
            for n, ((sid, rel), text) in enumerate(files.items()):
                tag = "LATE_" if sid == late else ""
                zf.writestr(f"student{ids.index(sid):03d}ada_{tag}{sid}_{5000 + n}_{rel.name}", text)
        subs = course / "submissions"
        seconds, log = run([str(LUPIKIT), "classroom", "collect", str(download), "--out", str(subs), "--roster",
                            str(roster), "--instructor", str(instructor)], cwd=course)
        print(f"collect {len(files)} notebooks from a Canvas-style download: {seconds:.1f} s")
        record.value("collect_seconds", seconds)
        time_rows.append([f"collecting {len(files)} notebooks from a Canvas-style bulk download "
                          "(`lupikit classroom collect`)", round(seconds, 1)])
        collected = sorted(str(p.relative_to(subs)) for p in subs.rglob("*.ipynb"))
        # a notebook that is not valid JSON cannot say which exercise it is: collect lists it, unplaced
        broken = sum(kind == "notjson" for kind in expected.values())
        placed_ok = len(collected) == len(files) - broken and (broken == 0 or "not valid JSON" in log)
        scores = course / "scores.csv"
        seconds, log = run([str(LUPIKIT), "classroom", "grade", "submissions", "--instructor", str(instructor),
                            "--out", "scores.csv", "--jobs", str(args.jobs), "--time-limit", str(args.time_limit)],
                           cwd=course)
        n = args.students * len(notebooks)
        print(f"grade {args.students} students x {len(notebooks)} notebooks ({n} submissions, {args.jobs} at once): "
              f"{seconds:.1f} s, {seconds / n:.1f} s per notebook")
        time_rows.append([f"grading the class: {args.students} students × {len(notebooks)} exercise "
                          f"notebooks = {n} submissions, {args.jobs} at a time", round(seconds, 1)])
        grade_seconds = seconds
        before = scores.read_text().splitlines()
        seconds, _ = run([str(LUPIKIT), "classroom", "grade", "submissions", "--instructor", str(instructor),
                          "--out", "scores.csv", "--students", ids[0], "--time-limit", str(args.time_limit)],
                         cwd=course)
        after = scores.read_text().splitlines()
        regrade_ok = before == after  # the same submissions: the same grades, every row kept
        if not regrade_ok:
            for old, new in zip(before, after):
                if old != new:
                    print(f"regrade changed:\n  before: {old}\n  after:  {new}")
        print(f"regrade one student: {seconds:.1f} s")
        record.value("regrade_seconds", seconds)
        time_rows.append([f"regrading one student ({len(notebooks)} notebooks) into the same scores.csv",
                          round(seconds, 1)])
        template = (instructor / "written-marks.csv").read_text().splitlines()
        width = len(template[0].split(",")) - 1
        marks = course / "written-marks.csv"
        marks.write_text("\n".join(template[:2] + [f"{sid}," + ",".join(["1"] * width) for sid in ids]) + "\n")
        seconds, _ = run([str(LUPIKIT), "classroom", "marks", "scores.csv", str(marks)], cwd=course)
        record.value("marks_seconds", seconds)
        time_rows.append([f"merging the marks of {width} written exercises", round(seconds, 1)])
        t0 = time.perf_counter()
        for fmt in ("canvas", "moodle"):
            run([str(LUPIKIT), "classroom", "export", "scores.csv", "--format", fmt, "--roster", str(roster),
                 "--out", f"to-{fmt}.csv"], cwd=course)
        seconds = time.perf_counter() - t0
        record.value("export_seconds", seconds)
        time_rows.append(["exporting the grades for Canvas and for Moodle", round(seconds, 1)])
        with (course / "to-canvas.csv").open() as fh:
            exported = list(csv.DictReader(fh))
        export_ok = [r["ID"] for r in exported] == ids and all(r["lupikit exercises"] for r in exported)
        if args.book:
            time_rows.append(["both editions with the student book, HTML and PDF, with the check for "
                              "solution lines in it (from the book's cache)", round(book_seconds, 1)])
        with scores.open() as fh:
            rows = {r["student"]: r for r in csv.DictReader(fh)}
        questions = [c for c in rows["max"] if c not in ("student", "total", "flags") and not c.startswith("written:")]

        def computational(row):
            return sum(float(row[c]) for c in questions)

        full = computational(rows["max"])
        wrong = [sid for sid, kind in expected.items()
                 if (kind in ("right", "copy")) != (computational(rows[sid]) == full)]
        if wrong:
            print("computational totals: " + ", ".join(f"{sid} ({expected[sid]}) {computational(rows[sid]):g}/{full:g}"
                                                      for sid in wrong))
        copies = [sid for sid, kind in expected.items() if kind == "copy"]
        flags_wrong = [sid for sid in copies if "is " + ids[0] + "'s" not in rows[sid]["flags"]]
        if "handed in late" not in rows[late]["flags"]:
            flags_wrong.append(late)
        for key, v in (("students", args.students), ("jobs", args.jobs),
                       ("notebooks", len(notebooks)), ("submissions", n),
                       ("grade_seconds", grade_seconds), ("grade_seconds_per_notebook", grade_seconds / n),
                       ("scores_as_expected", "no" if wrong else "yes"),
                       ("flags_as_expected", "no" if flags_wrong else "yes")):
            record.value(key, v)
        record.table("times", f"Times of a term of the classroom edition for a class of {args.students}, "
                     f"{args.jobs} submissions graded at a time", ["step", "seconds"], time_rows)
        record.write(_record.record_dir(args.record_dir, args.quick))
        problems = ([f"scores NOT as expected: {', '.join(wrong)}"] if wrong else []) + (
            [f"flags NOT as expected: {', '.join(flags_wrong)}"] if flags_wrong else []) + (
            [] if placed_ok else [f"collected {len(collected)} of {len(files)} notebooks ({broken} broken)"]) + (
            [] if regrade_ok else ["the regrade changed scores.csv"]) + (
            [] if export_ok else ["the Canvas export's rows are not the roster's"])
        print("students right or copying: full marks; others lost points; copies and the late one flagged: "
              + ("as expected" if not problems else "; ".join(problems)))
        return 1 if problems else 0


def _graded_ids(nb):
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if (c.metadata.get("nbgrader") or {}).get("grade")]


def _answers(nb, k):
    graded = [c for c in nb.cells if (c.metadata.get("nbgrader") or {}).get("grade")]
    return graded[k].metadata["lupikit"]["answers"]


if __name__ == "__main__":
    sys.exit(main())
