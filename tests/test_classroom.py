"""The classroom edition: editions from one source, variants, grading, the author's check.

The grading tests run a toy exercise notebook (tests/classroom/toy.py) through
the real grader: solutions get full marks at every student's variant, the
unmodified student edition gets 0, one wrong answer costs its question only,
a copied answer fails, and broken submissions (not JSON, raising, looping,
a graded cell deleted, missing) cost what they break and no more. The book's
own exercise notebooks are checked the same way (``check_exercise_notebook``).
"""

import csv
import json
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from lupikit.classroom import (build_editions, check_exercise_notebook, find_leaks, grade_submissions,
                               read_questions, read_roster, solution_texts, strip_solution_blocks,
                               student_notebook, variant_for, written_exercises)
from lupikit.cli import main as cli_main

from classroom.toy import submission, toy_notebook, with_answer, write_project

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = sorted((ROOT / "notebooks").glob("*/exercises*.ipynb"))


# ---------------------------------------------------------------- variants and rosters
def test_variants_are_reproducible_and_differ_between_students():
    ids = [f"student{k:03d}" for k in range(300)]
    variants = [variant_for(i, seed=0) for i in ids]
    assert variants == [variant_for(i, seed=0) for i in ids]
    assert len(set(variants)) == len(ids)
    assert all(0 <= v < 2**31 for v in variants)
    # another course seed gives everyone another variant
    assert sum(variant_for(i, seed=1) == v for i, v in zip(ids, variants)) == 0


@pytest.mark.parametrize("text, message", [
    ("student\nada\nada\n", "appears twice"),
    ("student\n\n", "lists no student id"),
    ("student\nada lovelace\n", "not a valid student id"),
    ("id\n../etc\n", "not a valid student id"),
])
def test_a_bad_roster_is_refused_with_the_row(tmp_path, text, message):
    path = tmp_path / "roster.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_roster(path)
    with pytest.raises(FileNotFoundError, match="roster"):
        read_roster(tmp_path / "none.csv")


def test_a_roster_without_header_and_with_extra_columns(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("ada,Ada Lovelace\nalan,Alan Turing\n\n")
    assert read_roster(path) == ["ada", "alan"]


# ---------------------------------------------------------------- markup
@pytest.mark.parametrize("text", [
    "before\n```{solution} a\n:class: dropdown\n\nsecret line\n```\nafter\n",
    "before\n````{solution} a\n```python\nsecret line\n```\n````\nafter\n",
    "before\n:::{solution} a\nsecret line\n:::\nafter\n",
    "before\n```{solution-start} a\n```\nsecret line\n```{solution-end}\n```\nafter\n",
])
def test_solution_blocks_of_every_fence_go(text):
    assert strip_solution_blocks(text) == "before\nafter\n"


def test_written_exercises_keep_statement_solution_and_rubric():
    (ex,) = written_exercises(toy_notebook().cells[0].source, "notebook toy/exercises")
    assert ex["label"] == "toy-ex1" and ex["title"] == "Explain"
    assert "Jensen" in ex["solution"] and ex["rubric"].startswith("**Rubric** (1 point)")


def test_the_student_edition_has_stubs_public_checks_and_no_solution():
    source = toy_notebook()
    student = student_notebook(source, variant=1234)
    text = "\n".join(c.source for c in student.cells)
    assert "raise NotImplementedError()" in text and "sum(x) / len(x)" not in text
    assert "np.mean(x)" not in text and "Jensen" not in text
    assert "assert np.ndim(m) == 0" in text  # the public check stays
    assert "variant: int = 1234" in text
    assert [q.grade_id for q in read_questions(student, "toy")] == ["mean", "squares"]
    # the graded cells are locked, as nbgrader makes them
    graded = [c for c in student.cells if (c.metadata.get("nbgrader") or {}).get("grade")]
    assert all(c.metadata.get("deletable") is False for c in graded)


def test_a_solution_outside_a_solution_cell_is_refused():
    nb = toy_notebook()
    nb.cells[2].source += "\n### BEGIN SOLUTION\nsecret = 1\n### END SOLUTION"
    with pytest.raises(ValueError, match="student edition"):
        student_notebook(nb)


# ---------------------------------------------------------------- editions
def test_editions_from_one_source(tmp_path):
    nb_dir, _ = write_project(tmp_path)
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nada\nalan\n")
    eds = build_editions(nb_dir, tmp_path / "out", roster=roster, seed=7)
    student, instructor = eds["student"], eds["instructor"]
    assert (instructor / "toy" / "exercises.ipynb").is_file() and (instructor / "toy" / "chapter.ipynb").is_file()
    for sid in ("ada", "alan"):
        nb = nbformat.read(student / sid / "toy" / "exercises.ipynb", as_version=4)
        assert f"variant: int = {variant_for(sid, 7)}" in nb.cells[2].source
    assert (student / "toy" / "chapter.ipynb").is_file()
    with (instructor / "variants.csv").open() as fh:
        assert {r["student"]: int(r["variant"]) for r in csv.DictReader(fh)} == {
            "ada": variant_for("ada", 7), "alan": variant_for("alan", 7)}
    page = (instructor / "parts" / "toy.md").read_text()
    assert "`mean`" in page and "m against numpy's mean" in page and "the toy chapter" in page
    assert "toy-ex1" in page and "**Rubric** (1 point)" in page
    rubrics = (instructor / "rubrics.md").read_text()
    assert "Jensen" in rubrics and "Because the chapter says so" in rubrics
    # no line of any solution is in the student edition; all of them are in the instructor's
    texts = solution_texts(sorted(instructor.rglob("*.ipynb")))
    assert any("m is not the mean of x" in t for t in texts) and any("great length" in t for t in texts)
    assert find_leaks(texts, sorted(student.rglob("*.ipynb"))) == []
    assert find_leaks(texts, sorted(instructor.rglob("*.ipynb")))


# ---------------------------------------------------------------- grading
@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("grading")
    source_path = tmp / "source" / "toy" / "exercises.ipynb"
    source_path.parent.mkdir(parents=True)
    source = toy_notebook()
    nbformat.write(source, source_path)
    subs = tmp / "submissions"
    for sid in ("ada", "alan"):
        submission(source, subs, sid)
    submission(student_notebook(source, variant=0), subs, "unmodified")
    submission(with_answer(source, "mean", "m = float(np.median(x)) + 1.0"), subs, "wrongmean")
    submission(with_answer(source, "mean", "m = 1 / 0"), subs, "raises")
    submission(with_answer(source, "squares", "while True:\n    pass"), subs, "loops")
    deleted = toy_notebook()
    deleted.cells = [c for c in deleted.cells if (c.metadata.get("nbgrader") or {}).get("grade_id") != "squares"]
    submission(deleted, subs, "deleted")
    (subs / "notjson" / "toy").mkdir(parents=True)
    (subs / "notjson" / "toy" / "exercises.ipynb").write_text('{"cells": [')
    # ada's answers, typed into grace's notebook
    r = np.random.default_rng(variant_for("ada"))
    x = r.normal(size=int(r.integers(5, 9)))
    copied = with_answer(with_answer(source, "mean", f"m = {float(np.mean(x))!r}"),
                         "squares", f"s = {float(np.dot(x, x))!r}")
    submission(copied, subs, "grace")
    roster = tmp / "roster.csv"
    roster.write_text("student\nada\nalan\nunmodified\nwrongmean\nraises\nloops\ndeleted\nnotjson\ngrace\nmissing\n")
    report = grade_submissions(subs, {"toy/exercises": source_path}, tmp / "scores.csv", roster=roster,
                               time_limit=20, n_jobs=2)
    return report, tmp


def _row(report, sid):
    return (report["scores"][sid]["toy/exercises:mean"], report["scores"][sid]["toy/exercises:squares"])


def test_solutions_get_full_marks_at_every_variant(graded):
    report, _ = graded
    assert variant_for("ada") != variant_for("alan")
    assert _row(report, "ada") == _row(report, "alan") == (2.0, 1.0)
    assert report["grader_errors"] == []


def test_the_unmodified_student_edition_gets_nothing(graded):
    report, _ = graded
    assert _row(report, "unmodified") == (0.0, 0.0)
    assert "NotImplementedError" in report["reasons"]["unmodified"]["toy/exercises:mean"]


def test_one_wrong_answer_costs_its_question_only(graded):
    report, _ = graded
    assert _row(report, "wrongmean") == (0.0, 1.0)
    assert "m is not the mean of x" in report["reasons"]["wrongmean"]["toy/exercises:mean"]


def test_broken_submissions_cost_what_they_break(graded):
    report, _ = graded
    reasons = report["reasons"]
    assert _row(report, "raises") == (0.0, 1.0)
    assert "ZeroDivisionError" in reasons["raises"]["toy/exercises:mean"]
    assert _row(report, "loops") == (2.0, 0.0)
    assert "time limit of 20 s" in reasons["loops"]["toy/exercises:squares"]
    # a hang costs only its own notebook, and is flagged with what happened
    assert [f for f in report["flags"]["loops"] if f.startswith("the run stopped early: toy/exercises:")
            and "time limit of 20 s" in f] == report["flags"]["loops"] != []
    assert _row(report, "deleted") == (2.0, 0.0)
    assert "'squares' was deleted" in reasons["deleted"]["toy/exercises:squares"]
    assert _row(report, "notjson") == (0.0, 0.0)
    assert "not a valid notebook" in reasons["notjson"]["toy/exercises:mean"]
    assert _row(report, "missing") == (0.0, 0.0)
    assert "not submitted" in reasons["missing"]["toy/exercises:mean"]


def test_a_copied_answer_fails(graded):
    report, _ = graded
    assert _row(report, "grace") == (0.0, 0.0)


def test_the_scores_csv_and_the_reports(graded):
    report, tmp = graded
    with (tmp / "scores.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["student", "toy/exercises:mean", "toy/exercises:squares", "total", "flags"]
    assert [r["student"] for r in rows][-1] == "max"
    assert rows[-1]["total"] == "3" and {k: v for k, v in rows[0].items() if k != "flags"} == {
        "student": "ada", "toy/exercises:mean": "2", "toy/exercises:squares": "1", "total": "3"}
    # ada and alan handed in the same solution notebook: flagged, and their scores unchanged
    assert "the same code as alan (all 2 answers)" in rows[0]["flags"]
    text = (tmp / "scores-reports" / "loops.md").read_text()
    assert "Total: 2 of 3" in text and "time limit" in text
    assert (tmp / "scores-reports" / "ada" / "toy" / "exercises.ipynb").is_file()


def test_the_authors_check_passes_the_toy_and_catches_a_vacuous_test(tmp_path):
    path = tmp_path / "toy" / "exercises.ipynb"
    path.parent.mkdir()
    nbformat.write(toy_notebook(), path)
    problems, report = check_exercise_notebook(path, "toy/exercises", variants=2)
    assert problems == [] and len(report["questions"]) == 2
    vacuous = toy_notebook()
    vacuous.cells[8].source = "### BEGIN HIDDEN TESTS\nassert s == s\n### END HIDDEN TESTS"
    nbformat.write(vacuous, path)
    problems, _ = check_exercise_notebook(path, "toy/exercises", variants=1)
    assert any("wrong answer to squares still passes" in p for p in problems)
    assert any("squares: an answer copied from another variant passes" in p for p in problems)


@pytest.mark.parametrize("path", EXERCISES, ids=[p.parent.name for p in EXERCISES])
def test_the_books_exercises_grade_as_they_should(path):
    rel = path.relative_to(ROOT / "notebooks").with_suffix("").as_posix()
    # (the limit only stops a notebook that hangs: this checks the grading, not the speed, and a
    # loaded machine runs a notebook several times slower than the teacher's default of 120 s allows)
    problems, report = check_exercise_notebook(path, rel, variants=2, time_limit=900.0)
    assert problems == [], "\n".join(problems)
    assert len(report["questions"]) >= 4


def test_every_part_has_four_computational_exercises():
    parts = {}
    for path in EXERCISES:
        nb = nbformat.read(path, as_version=4)
        parts[path.parent.name] = parts.get(path.parent.name, 0) + len(read_questions(nb, path.parent.name))
    assert set(parts) >= {"boosting", "twinsvm", "relevance", "oblivious"}, parts
    assert all(n >= 4 for n in parts.values()), parts


# ---------------------------------------------------------------- command line
def test_the_classroom_commands(tmp_path, monkeypatch, capsys):
    nb_dir, _ = write_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "eds"
    assert cli_main(["classroom", "build", "--out", str(out), "--no-book"]) == 0
    assert "computational exercises: 2 (toy 2)" in capsys.readouterr().out
    subs = tmp_path / "subs"
    submission(nbformat.read(out / "instructor" / "toy" / "exercises.ipynb", as_version=4), subs, "ada")
    instructor = str(out / "instructor")
    assert cli_main(["classroom", "grade", str(subs), "--instructor", instructor, "--out", str(tmp_path / "s.csv"),
                     "--time-limit", "60"]) == 0
    assert "ada: 3 of 3" in capsys.readouterr().out
    assert cli_main(["classroom", "export", str(tmp_path / "s.csv"), "--format", "moodle",
                     "--out", str(tmp_path / "moodle.csv")]) == 0
    assert "moodle grades:" in capsys.readouterr().out
    assert (tmp_path / "moodle.csv").read_text().splitlines()[1] == "ada,,3"
    assert cli_main(["classroom", "export", str(tmp_path / "s.csv"), "--format", "canvas",
                     "--out", str(tmp_path / "canvas.csv")]) == 2
    assert "needs the roster Canvas exported" in capsys.readouterr().err
    assert cli_main(["classroom", "grade", str(tmp_path / "nowhere"), "--instructor", instructor,
                     "--out", str(tmp_path / "s.csv")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert cli_main(["classroom", "grade", str(subs), "--instructor", instructor, "--out", "x.csv",
                     "--notebooks", "toy/nothing"]) == 2
    assert "no exercise notebook toy/nothing" in capsys.readouterr().err
    # without an instructor edition the seed must be given: no silent grading at seed 0
    assert cli_main(["classroom", "grade", str(subs), "--out", "x.csv"]) == 2
    assert "--instructor DIR" in capsys.readouterr().err
    assert json.loads((out / "instructor" / "edition.json").read_text())["questions"] == [
        "toy/exercises:mean", "toy/exercises:squares"]


def test_the_readmes_commands_chain_as_written_from_a_course_folder(tmp_path, monkeypatch, capsys):
    """From a course folder outside the checkout, build writes the editions into the course folder's
    _build/classroom, where grade --instructor _build/classroom/instructor (the README's line) and
    pack look for them; inside the checkout the default stays the checkout's _build/classroom."""
    nb_dir, _ = write_project(tmp_path / "checkout")
    course = tmp_path / "course"
    course.mkdir()
    (course / "roster.csv").write_text("student\nada\nalan\n")
    monkeypatch.chdir(course)
    common = ["--notebooks-dir", str(nb_dir)]
    assert cli_main(["classroom", "build", "--students", "roster.csv", "--seed", "2027", "--no-book",
                     *common]) == 0
    eds = course / "_build" / "classroom"
    assert f"student edition:    {eds / 'student'}" in capsys.readouterr().out
    assert (eds / "instructor" / "edition.json").is_file() and (eds / "student" / "ada").is_dir()
    assert not (tmp_path / "checkout" / "_build" / "classroom").exists()
    source = nbformat.read(eds / "instructor" / "toy" / "exercises.ipynb", as_version=4)
    submission(source, course / "submissions", "ada")
    assert cli_main(["classroom", "grade", "submissions/", "--instructor", "_build/classroom/instructor",
                     "--out", "scores.csv", "--time-limit", "60", *common]) == 0
    out = capsys.readouterr().out
    assert "seed 2027, 2 students on its roster" in out and "ada: 3 of 3" in out
    assert (course / "scores.csv").is_file()
    # without --instructor the grade finds the same edition
    assert cli_main(["classroom", "grade", "submissions/", "--out", "again.csv", "--time-limit", "60",
                     *common]) == 0
    assert "grading with the instructor edition" in capsys.readouterr().out
    # inside the checkout the default is the checkout's own
    monkeypatch.chdir(tmp_path / "checkout")
    assert cli_main(["classroom", "build", "--no-book", *common]) == 0
    assert (tmp_path / "checkout" / "_build" / "classroom" / "instructor" / "edition.json").is_file()


# ---------------------------------------------------------------- the course pack
def test_the_course_pack_installs_in_a_fresh_environment_and_runs_the_checks(tmp_path):
    """The pack of the book's own student edition installs into a new virtual environment
    (pinned versions, the library from the wheel in the pack), and its run_checks.py runs the
    public checks of a real exercise notebook there: answered with the instructor's solutions
    every check passes; unanswered, the checks fail and say which."""
    import subprocess
    import sys
    import venv
    import zipfile

    from lupikit.classroom import make_pack

    rel = "twinsvm/exercises"  # cvxopt, scipy and the library's solvers, no data home
    eds = build_editions(ROOT / "notebooks", tmp_path / "eds", book_dir=ROOT / "book")
    pack = make_pack(eds["student"], tmp_path / "pack.zip", project=ROOT)
    names = pack["files"]
    assert "pack/requirements.txt" in names and "pack/README.md" in names and "pack/run_checks.py" in names
    assert {f"pack/notebooks/{p.parent.name}/{p.name}" for p in EXERCISES} <= set(names)
    assert any(n.endswith(".whl") for n in names)
    for name in ("numpy==", "scipy==", "scikit-learn==", "cvxopt=="):
        assert name in pack["requirements"]
    with zipfile.ZipFile(tmp_path / "pack.zip") as zf:
        zf.extractall(tmp_path / "unpacked")
    root = tmp_path / "unpacked" / "pack"
    env = tmp_path / "env"
    venv.create(env, with_pip=True)
    py = env / "bin" / "python"
    assert sys.executable != str(py)
    done = subprocess.run([str(py), "-m", "pip", "install", "-q", "-r", "requirements.txt"], cwd=root,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # the library in the new environment is the pack's wheel, not this checkout
    done = subprocess.run([str(py), "-c", "import lupikit; print(lupikit.__file__)"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0 and str(env) in done.stdout, done.stdout + done.stderr
    # the student's notebook, answered with the instructor's solutions
    source = nbformat.read(ROOT / "notebooks" / f"{rel}.ipynb", as_version=4)
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
                 if (c.metadata.get("nbgrader") or {}).get("solution")}
    student = root / "notebooks" / f"{rel}.ipynb"
    answered = nbformat.read(student, as_version=4)
    filled = 0
    for cell in answered.cells:
        gid = (cell.metadata.get("nbgrader") or {}).get("grade_id")
        if gid in solutions and (cell.metadata.get("nbgrader") or {}).get("solution"):
            assert "raise NotImplementedError" in cell.source  # the stub the student replaces
            cell.source, filled = solutions[gid], filled + 1
    questions = read_questions(source, rel)
    assert filled >= len(questions) >= 3
    nbformat.write(answered, root / "answered.ipynb")
    done = subprocess.run([str(py), "run_checks.py", "answered.ipynb"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0 and "every public check passed" in done.stdout, done.stdout + done.stderr
    assert done.stdout.count("passed  ") >= len(questions)
    # the unanswered one fails them, and says which: the first question's checks at least
    done = subprocess.run([str(py), "run_checks.py", f"notebooks/{rel}.ipynb"], cwd=root,
                          capture_output=True, text=True)
    assert done.returncode == 1 and "FAILED  " in done.stdout, done.stdout + done.stderr
    failed = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert failed and all(f in {c.metadata["nbgrader"]["grade_id"] for c in source.cells
                                if (c.metadata.get("nbgrader") or {}).get("grade")} for f in failed)


def test_grading_from_a_course_folder_takes_seed_roster_and_notebooks_from_the_instructor_edition(
        tmp_path, monkeypatch, capsys):
    """Outside any checkout, with every option after the subcommand: the edition's seed and roster
    are used; a seed or a roster that contradicts them is refused with both values."""
    nb_dir, _ = write_project(tmp_path / "checkout")
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nada\nalan\n")
    eds = build_editions(nb_dir, tmp_path / "eds", roster=roster, seed=2027)
    course = tmp_path / "course"
    subs = course / "submissions"
    source = nbformat.read(eds["instructor"] / "toy" / "exercises.ipynb", as_version=4)
    submission(source, subs, "ada")  # alan hands in nothing
    monkeypatch.chdir(course)
    args = ["classroom", "grade", "submissions", "--instructor", str(eds["instructor"]), "--out", "scores.csv",
            "--notebooks-dir", str(tmp_path / "nowhere"), "--time-limit", "60"]
    assert cli_main(args) == 0
    out = capsys.readouterr().out
    assert "seed 2027, 2 students on its roster" in out and "ada: 3 of 3" in out and "alan: 0 of 3" in out
    assert cli_main(args + ["--seed", "0"]) == 2
    err = capsys.readouterr().err
    assert "--seed 0 contradicts" in err and "seed 2027" in err
    other = tmp_path / "other.csv"
    other.write_text("student\nada\ngrace\n")
    assert cli_main(args + ["--roster", str(other)]) == 2
    err = capsys.readouterr().err
    assert "not in the edition: grace" in err and "in the edition only: alan" in err


def test_a_regrade_keeps_every_other_row_and_report_and_logs_each_run(graded):
    """Grading one student into an existing scores.csv replaces that row and report only; the
    file is never left half written, and each run appends a line with checksums to the log."""
    report, tmp = graded
    out = tmp / "scores.csv"
    before = out.read_text().splitlines()
    reports = tmp / "scores-reports"
    others = {p.name: p.read_text() for p in reports.glob("*.md") if p.name != "wrongmean.md"}
    # wrongmean fixes the answer and is regraded
    subs = tmp / "submissions"
    source = nbformat.read(subs / "ada" / "toy" / "exercises.ipynb", as_version=4)
    submission(source, subs, "wrongmean")
    again = grade_submissions(subs, {"toy/exercises": tmp / "source" / "toy" / "exercises.ipynb"}, out,
                              roster=tmp / "roster.csv", only=["wrongmean"], time_limit=20, n_jobs=1)
    assert again["students"] == ["wrongmean"] and len(again["kept"]) == 9
    after = out.read_text().splitlines()
    assert len(after) == len(before) and after[0] == before[0] and after[-1] == before[-1]
    changed = [(b.split(",")[:4], a.split(",")[:4]) for b, a in zip(before, after)
               if a.split(",")[:4] != b.split(",")[:4]]
    assert changed == [(["wrongmean", "0", "1", "1"], ["wrongmean", "2", "1", "3"])]
    # the flags are those of the notebooks as they are now: wrongmean's code is now ada's
    assert "the same code as ada" in next(a for a in after if a.startswith("wrongmean,"))
    # the rows of those whose code is not ada's are kept whole, with what stopped their run early
    # (the loop's time limit), which only the run that graded them knew
    apart = ("loops,", "raises,", "deleted,", "notjson,", "unmodified,", "missing,")
    assert [a for a in after if a.startswith(apart)] == [b for b in before if b.startswith(apart)]
    assert "the run stopped early" in next(a for a in after if a.startswith("loops,"))
    assert {p.name: p.read_text() for p in reports.glob("*.md") if p.name != "wrongmean.md"} == others
    assert "Total: 3 of 3" in (reports / "wrongmean.md").read_text()
    assert (reports / "ada" / "toy" / "exercises.ipynb").is_file()
    log = [json.loads(line) for line in (tmp / "scores-log.jsonl").read_text().splitlines()]
    assert [entry["graded"] for entry in log][-1] == ["wrongmean"] and len(log[0]["graded"]) == 10
    import hashlib
    digest = hashlib.sha256((subs / "wrongmean" / "toy" / "exercises.ipynb").read_bytes()).hexdigest()
    assert log[-1]["submissions"]["wrongmean"]["toy/exercises"] == digest
    assert log[-1]["scores"]["wrongmean"]["total"] == 3 and log[0]["submissions"]["missing"]["toy/exercises"] is None
    assert not list(tmp.glob(".scores.csv.*"))  # no temporary file left
    with pytest.raises(ValueError, match="not on the roster: zoe"):
        grade_submissions(subs, {"toy/exercises": tmp / "source" / "toy" / "exercises.ipynb"}, out,
                          roster=tmp / "roster.csv", only=["zoe"])


def test_integrity_flags_name_copies_and_forbidden_calls_and_change_no_score(tmp_path):
    """A class of four with their own variants: grace hands in ada's notebook verbatim (ada's header
    and variant), bob types ada's code into his own notebook, eve uses a forbidden call, alan works
    alone. The flags say so; the scores are what the hidden tests give, flags or not."""
    nb_dir, path = write_project(tmp_path / "checkout")
    source = nbformat.read(path, as_version=4)
    for cell in source.cells:  # the mean must not be taken with numpy's median (to test the flag)
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "mean":
            cell.metadata.setdefault("lupikit", {})["forbidden"] = ["median"]
    nbformat.write(source, path)
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nada\nalan\nbob\neve\ngrace\n")
    eds = build_editions(nb_dir, tmp_path / "eds", roster=roster, seed=3)
    handed = {s: nbformat.read(eds["student"] / s / "toy" / "exercises.ipynb", as_version=4)
              for s in ("ada", "alan", "bob", "eve", "grace")}
    ada_mean = "total = 0.0\nfor value in x:\n    total = total + value\nm = float(total / len(x))"
    ada_sq = "s = float(sum(value * value for value in x))"
    subs = tmp_path / "subs"
    ada = with_answer(with_answer(handed["ada"], "mean", ada_mean), "squares", ada_sq)
    submission(ada, subs, "ada")
    submission(ada, subs, "grace")  # ada's file, verbatim
    submission(with_answer(with_answer(handed["bob"], "mean", "# mine\n" + ada_mean.replace("\n", "\n\n")),
                           "squares", ada_sq), subs, "bob")
    submission(with_answer(with_answer(handed["alan"], "mean", "m = float(np.sum(x) / x.size)"),
                           "squares", "s = float(x @ x)"), subs, "alan")
    submission(with_answer(with_answer(handed["eve"], "mean", "m = float(np.mean(x)) + 0 * np.median(x)"),
                           "squares", "s = float(np.dot(x, x))"), subs, "eve")
    report = grade_submissions(subs, {"toy/exercises": eds["instructor"] / "toy" / "exercises.ipynb"},
                               tmp_path / "scores.csv", roster=roster, seed=3, time_limit=30, n_jobs=2)
    flags = report["flags"]
    assert any(f"variant {variant_for('ada', 3)} is ada's" in f for f in flags["grace"])
    assert any("the header names ada" in f for f in flags["grace"])
    assert any("the same code as ada (mean-answer)" in f for f in flags["bob"])
    assert any("the same code as bob" in f for f in flags["ada"])
    assert any("mean used median, which the exercise forbids" in f for f in flags["eve"])
    assert flags["alan"] == []
    totals = {s: sum(v.values()) for s, v in report["scores"].items()}
    assert totals == {"ada": 3, "alan": 3, "bob": 3, "eve": 3, "grace": 3}  # flags change no score
    with (tmp_path / "scores.csv").open() as fh:
        rows = {r["student"]: r for r in csv.DictReader(fh)}
    assert rows["alan"]["flags"] == "" and "header names ada" in rows["grace"]["flags"]
    assert "Flags" in (tmp_path / "scores-reports" / "grace.md").read_text()


# ---------------------------------------------------------------- the LMS's files
CANVAS_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Homework 1 (1234),Current Score\n"
    "    Points Possible,,,,,10,(read only)\n"
    "\"Lovelace, Ada\",101,s001,ada,Section A,8,80\n"
    "\"Turing, Alan\",102,s002,alan,Section A,9,90\n"
    "\"Student, Test\",999,,,Section A,,\n"
    "Test Student,998,,,Section A,,\n")
MOODLE_EXPORT = ("First name;Last name;ID number;Institution;Department;Email address;Username\n"
                 "Ada;Lovelace;;UCL;CS;ada@example.org;ada\n"
                 "Alan;Turing;;UCL;CS;alan@example.org;alan\n")


@pytest.mark.parametrize("text, id_column, ids", [
    (CANVAS_EXPORT, None, ["101", "102"]),
    (CANVAS_EXPORT, "SIS Login ID", ["ada", "alan"]),
    (MOODLE_EXPORT, None, ["ada", "alan"]),
    (MOODLE_EXPORT, "Email address", ["ada@example.org", "alan@example.org"]),
    ("username\nada\nalan\n", None, ["ada", "alan"]),
    ("ada;Ada Lovelace\nalan;Alan Turing\n", None, ["ada", "alan"]),
    ("name,login\nAda Lovelace,ada\nAlan Turing,alan\n", "login", ["ada", "alan"]),
    ("name,login\nAda Lovelace,ada\nAlan Turing,alan\n", 2, ["ada", "alan"]),
])
def test_rosters_from_lms_exports_and_spreadsheets(tmp_path, text, id_column, ids):
    """A header is never a student: Canvas's gradebook export (its Points Possible and Test
    Student rows skipped), Moodle's semicolon export, plain lists with a username header."""
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8-sig")
    assert read_roster(path, id_column=id_column) == ids


def test_max_cannot_be_a_student_id_and_id_wins_over_a_name_column(tmp_path):
    """'max' names the row of maximum points in scores.csv; a roster 'Student,ID' takes the ids."""
    path = tmp_path / "roster.csv"
    path.write_text("student\nada\nmax\n")
    with pytest.raises(ValueError, match="'max' names the row of the maximum points"):
        read_roster(path)
    path.write_text("Student,ID\nAda Lovelace,ada\nAlan Turing,alan\n")
    assert read_roster(path) == ["ada", "alan"]


def test_an_unknown_id_column_is_refused_with_the_headers(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text(MOODLE_EXPORT)
    with pytest.raises(ValueError, match="'Matrikel' is not a header of roster.csv; its headers are: First name"):
        read_roster(path, id_column="Matrikel")


def test_grades_exported_for_canvas_and_moodle_round_trip_through_the_roster_reader(tmp_path):
    from lupikit.classroom import export_grades, read_roster_table

    scores = tmp_path / "scores.csv"
    scores.write_text("student,toy/exercises:mean,toy/exercises:squares,total,flags\n"
                      "101,2,1,3,\n102,0,1,1,\nmax,2,1,3,\n")
    canvas = tmp_path / "canvas.csv"
    canvas.write_text(CANVAS_EXPORT)
    done = export_grades(scores, tmp_path / "to-canvas.csv", "canvas", roster=canvas, per_question=True)
    with (tmp_path / "to-canvas.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert [(r["Student"], r["ID"], r["SIS Login ID"], r["lupikit exercises"]) for r in rows] == [
        ("Lovelace, Ada", "101", "ada", "3"), ("Turing, Alan", "102", "alan", "1")]
    assert rows[0]["lupikit exercises: toy/exercises:mean"] == "2" and "max" not in (r["ID"] for r in rows)
    assert done["missing"] == []
    # the file Canvas imports is again a Canvas roster with the same students
    assert [s["id"] for s in read_roster_table(tmp_path / "to-canvas.csv")] == ["101", "102"]
    moodle = tmp_path / "moodle.csv"
    moodle.write_text(MOODLE_EXPORT)
    scores.write_text("student,toy/exercises:mean,toy/exercises:squares,total,flags\nada,2,1,3,\nmax,2,1,3,\n")
    export_grades(scores, tmp_path / "to-moodle.csv", "moodle", roster=moodle)
    lines = (tmp_path / "to-moodle.csv").read_text().splitlines()
    assert lines == ["Username,Full name,lupikit exercises", "ada,Ada Lovelace,3", "alan,Alan Turing,"]


# ---------------------------------------------------------------- the pack on every laptop
@pytest.mark.parametrize("system, platform_tag", [("Linux", "linux"), ("Darwin", "darwin"), ("Windows", "win32")])
def test_the_packs_requirements_pick_an_xgboost_wheel_that_exists_on_each_platform(system, platform_tag):
    """Offline check of the environment markers of requirements.txt (and of the wheel's own
    requirements in pyproject.toml): XGBoost's CPU-only wheel has no macOS build, so macOS gets
    the full wheel and the others the CPU build, at the same version, exactly one of them."""
    import tomllib

    from packaging.requirements import Requirement

    from lupikit.classroom import pinned_requirements

    env = {"platform_system": system, "sys_platform": platform_tag, "os_name": "nt" if system == "Windows" else "posix"}
    lines = [line for line in pinned_requirements("lupikit-0-py3-none-any.whl").splitlines()
             if line and not line.startswith(("#", "./"))]
    chosen = [Requirement(line) for line in lines if Requirement(line).marker is None
              or Requirement(line).marker.evaluate(env)]
    xgb = [r for r in chosen if r.name.startswith("xgboost")]
    assert [r.name for r in xgb] == (["xgboost"] if system == "Darwin" else ["xgboost-cpu"])
    assert len({str(r.specifier) for r in xgb}) == 1
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wheel_xgb = [Requirement(d).name for d in deps if Requirement(d).name.startswith("xgboost")
                 and (Requirement(d).marker is None or Requirement(d).marker.evaluate(env))]
    assert wheel_xgb == [r.name for r in xgb]


def test_per_student_packs_hold_only_each_students_variant(tmp_path):
    """--per-student: one zip per student, with the chapters and that student's own exercise
    notebooks where the README says (notebooks/<part>/), and no other student's id or notebook."""
    import zipfile

    from lupikit.classroom import make_pack

    nb_dir, _ = write_project(tmp_path / "checkout")
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nada\nalan\n")
    eds = build_editions(nb_dir, tmp_path / "eds", roster=roster, seed=5)
    packs = make_pack(eds["student"], tmp_path / "packs" / "course.zip", project=ROOT, per_student=True)
    assert sorted(packs["paths"]) == ["ada", "alan"]
    for sid, other in (("ada", "alan"), ("alan", "ada")):
        with zipfile.ZipFile(packs["paths"][sid]) as zf:
            names = zf.namelist()
            root = f"course-{sid}"
            assert f"{root}/notebooks/toy/exercises.ipynb" in names and f"{root}/notebooks/toy/chapter.ipynb" in names
            assert not any(other in n for n in names) and not any(f"/{sid}/" in n for n in names)
            nb = nbformat.reads(zf.read(f"{root}/notebooks/toy/exercises.ipynb").decode(), as_version=4)
            assert f"variant: int = {variant_for(sid, 5)}" in "".join(c.source for c in nb.cells)
            readme = zf.read(f"{root}/README.md").decode()
            assert "`notebooks/<part>/exercises.ipynb`" in readme
    # the pack for everyone names each student's folder
    whole = make_pack(eds["student"], tmp_path / "all.zip", project=ROOT)
    assert "all/notebooks/ada/toy/exercises.ipynb" in whole["files"]
    with zipfile.ZipFile(tmp_path / "all.zip") as zf:
        assert "notebooks/<your id>/<part>/exercises.ipynb" in zf.read("all/README.md").decode()
    with pytest.raises(ValueError, match="built without a roster"):
        plain = build_editions(nb_dir, tmp_path / "plain")
        make_pack(plain["student"], tmp_path / "x.zip", project=ROOT, per_student=True)


# ---------------------------------------------------------------- collection
def test_collect_places_a_canvas_download_by_what_the_notebooks_hold(tmp_path, capsys):
    """A Canvas bulk download (a zip of name_userid_submission_file) and a Moodle one (a folder per
    participant) land under SUBMISSIONS/<id>/toy/exercises.ipynb whatever the files are called; a
    file that is no exercise notebook, a student not on the roster and a second copy are listed;
    Canvas's LATE mark becomes a flag when grading."""
    import zipfile

    from lupikit.classroom import collect_submissions, read_roster_table

    nb_dir, _ = write_project(tmp_path / "checkout")
    canvas_roster = tmp_path / "canvas.csv"
    canvas_roster.write_text(CANVAS_EXPORT)
    eds = build_editions(nb_dir, tmp_path / "eds", roster=canvas_roster, seed=1)
    sources = {"toy/exercises": eds["instructor"] / "toy" / "exercises.ipynb"}
    ada = nbformat.writes(nbformat.read(eds["student"] / "101" / "toy" / "exercises.ipynb", as_version=4))
    alan = nbformat.writes(nbformat.read(eds["student"] / "102" / "toy" / "exercises.ipynb", as_version=4))
    download = tmp_path / "submissions.zip"
    with zipfile.ZipFile(download, "w") as zf:
        zf.writestr("lovelaceada_101_5551_exercises.ipynb", ada)
        zf.writestr("lovelaceada_101_5559_exercises-1.ipynb", ada)  # handed in twice
        zf.writestr("turingalan_LATE_102_5552_exercises (1).ipynb", alan)  # a browser's copy name
        zf.writestr("lovelaceada_101_5553_notes.txt", "my notes")
        zf.writestr("hoppergrace_777_5554_exercises.ipynb", ada)
        zf.writestr("turingalan_102_5555_exercises.ipynb", "{not json")
    subs = tmp_path / "subs"
    done = collect_submissions(download, subs, roster=read_roster_table(canvas_roster), sources=sources)
    assert done["placed"] == {"101": ["toy/exercises"], "102": ["toy/exercises"]}
    assert done["late"] == ["102"] and done["missing"] == []
    assert done["unknown_files"] == ["lovelaceada_101_5553_notes.txt"]
    assert len(done["duplicates"]) == 1 and "hoppergrace (user id 777)" in done["unknown_students"][0]
    assert done["unreadable"] == ["102: turingalan_102_5555_exercises.ipynb: not a readable notebook "
                                  "(JSONDecodeError: Expecting property name enclosed in double quotes: line 1 "
                                  "column 2 (char 1))"]
    assert nbformat.writes(nbformat.read(subs / "102" / "toy" / "exercises.ipynb", as_version=4)) == alan
    report = grade_submissions(subs, sources, tmp_path / "scores.csv", roster=["101", "102"], seed=1,
                               time_limit=30, n_jobs=2)
    assert "handed in late (toy/exercises: marked LATE in the LMS's download)" in report["flags"]["102"]
    assert not any("late" in f for f in report["flags"]["101"])
    # Moodle: a folder per participant, matched by the roster's first and last names
    moodle_roster = tmp_path / "moodle.csv"
    moodle_roster.write_text(MOODLE_EXPORT)
    folder = tmp_path / "moodle-download" / "Ada Lovelace_3001_assignsubmission_file_"
    folder.mkdir(parents=True)
    (folder / "my work.ipynb").write_text(ada)
    done = collect_submissions(folder.parent, tmp_path / "subs2", roster=read_roster_table(moodle_roster),
                               sources=sources)
    assert done["placed"] == {"ada": ["toy/exercises"]} and done["missing"] == ["alan"] and done["late"] == []
    # a deadline: a file's time in the download after it makes the submission late
    import datetime
    import os
    stamp = datetime.datetime(2027, 3, 2, 9, 0).timestamp()
    os.utime(folder / "my work.ipynb", (stamp, stamp))
    done = collect_submissions(folder.parent, tmp_path / "subs4", roster=read_roster_table(moodle_roster),
                               sources=sources, deadline=datetime.datetime(2027, 3, 1, 23, 59))
    assert done["late"] == ["ada"]
    # a deadline with a time zone is compared in local time, as the file times are
    aware = datetime.datetime(2027, 3, 1, 23, 59).astimezone()
    done = collect_submissions(folder.parent, tmp_path / "subs5", roster=read_roster_table(moodle_roster),
                               sources=sources, deadline=aware)
    assert done["late"] == ["ada"]
    # two students of one name: their folder is not given to either
    twins = tmp_path / "twins.csv"
    twins.write_text("First name;Last name;Username\nAda;Lovelace;ada\nAda;Lovelace;ada2\n")
    done = collect_submissions(folder.parent, tmp_path / "subs6", roster=read_roster_table(twins), sources=sources)
    assert done["placed"] == {} and "2 students of that name" in done["ambiguous"][0]
    capsys.readouterr()
    assert cli_main(["classroom", "collect", str(download), "--out", str(tmp_path / "subs3"), "--roster",
                     str(canvas_roster), "--instructor", str(eds["instructor"])]) == 0
    out = capsys.readouterr().out
    assert "collected 2 notebook(s) of 2 student(s)" in out and "late: 102" in out and "not on the roster (1)" in out



def test_collect_reads_late_submissions_from_a_roster_column(tmp_path, capsys):
    """Moodle's grading worksheet holds each participant's 'Last modified (submission)': a time
    after the deadline makes the submission late, even when the file's own time is early; a
    column of late marks works without a deadline; a cell that is neither is refused by row."""
    import datetime
    import os
    import shutil

    from lupikit.classroom import collect_submissions, read_roster_table
    from lupikit.classroom._collect import late_from_column

    nb_dir, _ = write_project(tmp_path / "checkout")
    eds = build_editions(nb_dir, tmp_path / "eds", seed=1)
    sources = {"toy/exercises": eds["instructor"] / "toy" / "exercises.ipynb"}
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text(
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Last modified (submission),Late\n"
        "Participant 3001,Ada Lovelace,ada@uni.edu,Submitted for grading,,100,"
        "\"Tuesday, 2 March 2027, 9:05 AM\",no\n"
        "Participant 3002,Alan Turing,alan@uni.edu,Submitted for grading,,100,\"Monday, 1 March 2027, 10:00 PM\",yes\n"
        "Participant 3003,Grace Hopper,grace@uni.edu,No submission,,100,-,\n")
    roster = read_roster_table(worksheet)
    assert [s["id"] for s in roster] == ["ada@uni.edu", "alan@uni.edu", "grace@uni.edu"]
    download = tmp_path / "moodle"
    early = datetime.datetime(2027, 2, 20, 12, 0).timestamp()
    for name in ("Ada Lovelace_3001", "Alan Turing_3002"):
        folder = download / f"{name}_assignsubmission_file_"
        folder.mkdir(parents=True)
        shutil.copyfile(eds["student"] / "toy" / "exercises.ipynb", folder / "exercises.ipynb")
        os.utime(folder / "exercises.ipynb", (early, early))
    deadline = datetime.datetime(2027, 3, 1, 23, 59)
    done = collect_submissions(download, tmp_path / "subs", roster=roster, sources=sources, deadline=deadline)
    assert done["late"] == ["ada@uni.edu"] and done["missing"] == ["grace@uni.edu"]  # the column, found by itself
    assert done["late_why"] == {"ada@uni.edu": "the roster's Last modified (submission): Tuesday, 2 March 2027, "
                                               "9:05 AM"}
    done = collect_submissions(download, tmp_path / "subs2", roster=roster, sources=sources, late_column="late")
    assert done["late"] == ["alan@uni.edu"]  # marks need no deadline
    done = collect_submissions(download, tmp_path / "subs3", roster=roster, sources=sources)
    assert done["late"] == []  # no deadline, no column: nothing late
    assert late_from_column(roster, "Last modified (submission)", datetime.datetime(2027, 3, 2, 12, 0)) == {}
    aware = datetime.datetime(2027, 3, 1, 23, 59).astimezone()  # a zone is converted as for file times
    assert set(late_from_column(roster, "last modified (submission)", aware)) == {"ada@uni.edu"}
    with pytest.raises(ValueError, match="give a deadline"):
        late_from_column(roster, "Last modified (submission)", None)
    with pytest.raises(ValueError, match="'Status' is not|neither a time"):
        late_from_column(roster, "Status", deadline)
    with pytest.raises(ValueError, match="not a header of the roster"):
        late_from_column(roster, "Handed in", deadline)
    capsys.readouterr()
    assert cli_main(["classroom", "collect", str(download), "--out", str(tmp_path / "subs4"), "--roster",
                     str(worksheet), "--instructor", str(eds["instructor"]), "--late-column", "Late"]) == 0
    assert "late: alan@uni.edu" in capsys.readouterr().out
    assert cli_main(["classroom", "collect", str(download), "--out", str(tmp_path / "subs5"), "--roster",
                     str(worksheet), "--instructor", str(eds["instructor"]), "--late-column", "Status",
                     "--deadline", "2027-03-01T23:59"]) != 0
    assert "row 2 (ada@uni.edu): Status is 'Submitted for grading'" in capsys.readouterr().err

# ---------------------------------------------------------------- feedback a student may see
def test_student_feedback_reveals_no_expected_value_and_numbers_cells_as_the_student_sees_them(tmp_path):
    """A hidden test whose message prints the expected mean: the instructor's report has it, the
    student's HTML feedback does not; an error is placed in the cell the student wrote it in
    (the grader's injected cell not counted)."""
    source = toy_notebook()
    for cell in source.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "mean":
            cell.source = cell.source.replace("'m is not the mean of x'", "f'm is {m!r}, the mean is {np.mean(x)!r}'")
    path = tmp_path / "source" / "toy" / "exercises.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(source, path)
    subs = tmp_path / "subs"
    submission(with_answer(source, "mean", "m = 0.5"), subs, "ada")
    raising = with_answer(source, "mean", "m = 1 / 0")
    submission(raising, subs, "bob")
    report = grade_submissions(subs, {"toy/exercises": path}, tmp_path / "scores.csv", time_limit=30, n_jobs=2)
    r = np.random.default_rng(variant_for("ada"))
    expected = float(np.mean(r.normal(size=int(r.integers(5, 9)))))
    shown = repr(expected)
    assert shown in (tmp_path / "scores-reports" / "ada.md").read_text()  # the check can fail
    page = (report["feedback"] / "ada.html").read_text()
    assert shown not in page and shown[:6] not in page and re.search(r"the mean is [^<]*…", page)
    assert "0 / 2" in page and "m against numpy&#x27;s mean" in page
    answer_cell = next(k for k, c in enumerate(raising.cells)
                       if (c.metadata.get("nbgrader") or {}).get("grade_id") == "mean-answer") + 1
    assert f"cell {answer_cell} raised ZeroDivisionError" in report["reasons"]["bob"]["toy/exercises:mean"]
    assert f"cell {answer_cell} raised ZeroDivisionError" in (report["feedback"] / "bob.html").read_text()


def test_partial_credit_gives_each_test_of_a_graded_cell_its_share(tmp_path):
    """metadata.lupikit.partial: a graded cell with two tests (the form, then the value) gives half
    its points to an answer of the right form and the wrong value; without it, all or nothing."""
    source = toy_notebook(sum_points=2)
    for cell in source.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "squares":
            cell.source = ("def is_number(v):\n    assert np.ndim(v) == 0, 's is one number'\n\n\n"
                           "is_number(s)\n" + cell.source
                           + "\nnp.testing.assert_allclose(s, float(np.dot(x, x)), err_msg='s is not the sum')")
            cell.metadata["lupikit"]["partial"] = True
    path = tmp_path / "source" / "toy" / "exercises.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(source, path)
    subs = tmp_path / "subs"
    submission(source, subs, "ada")  # the solution
    submission(with_answer(source, "squares", "s = float(np.dot(x, x)) + 1.0"), subs, "bob")  # the form only
    submission(with_answer(source, "squares", "s = np.ones(3)"), subs, "cy")  # neither
    report = grade_submissions(subs, {"toy/exercises": path}, tmp_path / "scores.csv", time_limit=30, n_jobs=2)
    # three tests: the form (through a helper), the value by an assert, the value by assert_allclose
    got = {s: report["scores"][s]["toy/exercises:squares"] for s in ("ada", "bob", "cy")}
    assert got == {"ada": 2.0, "bob": round(2 / 3, 4), "cy": 0.0}
    assert report["reasons"]["bob"]["toy/exercises:squares"].startswith("2 of 3 tests failed: a test failed")
    assert "2 of 3 tests failed" in (tmp_path / "scores-reports" / "bob.md").read_text()
    assert report["scores"]["bob"]["toy/exercises:mean"] == 2.0  # the other question, all or nothing, untouched


def test_written_marks_from_the_template_count_in_the_total_and_survive_a_regrade(tmp_path, capsys):
    """The instructor edition holds a template of the written exercises' marks (the rubrics' points
    as maxima); the filled template merges into scores.csv, counts in the total, is refused above
    a rubric's points, and a later regrade keeps it."""
    nb_dir, _ = write_project(tmp_path / "checkout")
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nada\nalan\n")
    eds = build_editions(nb_dir, tmp_path / "eds", roster=roster, seed=2)
    template = (eds["instructor"] / "written-marks.csv").read_text().splitlines()
    assert template[0] == "student,written:toy-ch1,written:toy-ex1" and template[1] == "max,1,1"
    assert template[2:] == ["ada,,", "alan,,"]
    subs = tmp_path / "subs"
    solved = nbformat.read(eds["instructor"] / "toy" / "exercises.ipynb", as_version=4)
    for sid in ("ada", "alan"):
        submission(solved, subs, sid)
    sources = {"toy/exercises": eds["instructor"] / "toy" / "exercises.ipynb"}
    scores = tmp_path / "scores.csv"
    grade_submissions(subs, sources, scores, roster=roster, seed=2, time_limit=30, n_jobs=2)
    marks = tmp_path / "marks.csv"
    marks.write_text("student,written:toy-ch1,written:toy-ex1\nmax,1,1\nada,1,0.5\nalan,,\n")
    assert cli_main(["classroom", "marks", str(scores), str(marks)]) == 0
    assert "marks of 1 student(s) merged" in capsys.readouterr().out
    with scores.open() as fh:
        rows = {r["student"]: r for r in csv.DictReader(fh)}
    assert (rows["ada"]["written:toy-ex1"], rows["ada"]["total"]) == ("0.5", "4.5")
    assert (rows["alan"]["written:toy-ex1"], rows["alan"]["total"]) == ("", "3")
    assert rows["max"]["total"] == "5"
    marks.write_text("student,written:toy-ch1,written:toy-ex1\nmax,1,1\nada,2,0\n")
    with pytest.raises(ValueError, match="row 3, written:toy-ch1: 2 is outside 0 to 1"):
        from lupikit.classroom import merge_written_marks
        merge_written_marks(scores, marks)
    grade_submissions(subs, sources, scores, roster=roster, seed=2, only=["alan"], time_limit=30, n_jobs=1)
    with scores.open() as fh:
        rows = {r["student"]: r for r in csv.DictReader(fh)}
    assert (rows["ada"]["written:toy-ex1"], rows["ada"]["total"], rows["max"]["total"]) == ("0.5", "4.5", "5")
