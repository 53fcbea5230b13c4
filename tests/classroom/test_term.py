"""Ordinary actions of a term that must never lose a grade: a folder of late work, a rebuild of the editions."""

import nbformat
import pytest

from lupikit.classroom import build_editions, grade_submissions, read_scores

from .toy import submission, toy_notebook, with_answer, write_project


def test_grading_a_folder_of_some_students_keeps_the_others_rows(tmp_path):
    source = toy_notebook()
    source_path = tmp_path / "source.ipynb"
    nbformat.write(source, source_path)
    roster = ["ada", "alan", "grace"]
    first = tmp_path / "first"
    for sid in roster:
        submission(source, first, sid)
    out = tmp_path / "scores.csv"
    grade_submissions(first, {"toy/exercises": source_path}, out, roster=roster, n_jobs=2)
    _, before = read_scores(out)
    assert before["alan"]["toy/exercises:mean"] == 2.0
    # a folder that holds grace's late work only
    late = tmp_path / "late"
    submission(with_answer(source, "mean", "m = 0.0"), late, "grace")
    report = grade_submissions(late, {"toy/exercises": source_path}, out, roster=roster, n_jobs=2)
    _, after = read_scores(out)
    assert report["students"] == ["grace"] and report["absent_kept"] == ["ada", "alan"]
    assert after["ada"] == before["ada"] and after["alan"] == before["alan"]
    assert after["grace"]["toy/exercises:mean"] == 0.0
    # replacing is asked for explicitly
    report = grade_submissions(late, {"toy/exercises": source_path}, out, roster=roster, n_jobs=2,
                               replace_absent=True)
    _, replaced = read_scores(out)
    assert report["absent_kept"] == [] and replaced["ada"]["toy/exercises:mean"] == 0.0
    assert "not submitted" in report["reasons"]["ada"]["toy/exercises:mean"]


def _written_columns(path):
    return path.read_text().splitlines()[0].split(",")[1:]


def test_rebuilding_the_editions_keeps_the_written_marks(tmp_path):
    nb_dir, _ = write_project(tmp_path / "book")
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nada\nalan\n")
    eds = build_editions(nb_dir, tmp_path / "eds", roster=roster)
    assert eds["marks_kept"] is None
    marks = eds["instructor"] / "written-marks.csv"
    columns = _written_columns(marks)
    assert columns  # the toy has written exercises
    lines = marks.read_text().splitlines()
    filled = [line if not line.startswith("ada,") else "ada," + ",".join(["1"] * len(columns)) for line in lines]
    marks.write_text("\n".join(filled) + "\n")
    # a new student, and alan dropped the course
    roster.write_text("student\nada\ngrace\n")
    eds = build_editions(nb_dir, tmp_path / "eds", roster=roster)
    text = marks.read_text()
    assert "ada," + ",".join(["1"] * len(columns)) in text
    assert eds["marks_kept"] == {"added": ["grace"], "removed": []}  # alan had no mark: nothing to keep
    # a student with marks who left the roster keeps the row, reported
    roster.write_text("student\ngrace\n")
    eds = build_editions(nb_dir, tmp_path / "eds", roster=roster)
    assert eds["marks_kept"]["removed"] == ["ada"] and "ada," in marks.read_text()


def test_a_rebuild_that_would_drop_a_marked_column_stops_and_keeps_the_file(tmp_path):
    nb_dir, _ = write_project(tmp_path / "book")
    eds = build_editions(nb_dir, tmp_path / "eds")
    marks = eds["instructor"] / "written-marks.csv"
    text = marks.read_text().splitlines()
    text[0] += ",written:gone"
    text[1] += ",2"
    text.append("ada," + ",".join([""] * (len(text[0].split(",")) - 2)) + ",2")
    marks.write_text("\n".join(text) + "\n")
    kept = marks.read_text()
    with pytest.raises(ValueError, match="written:gone, which the rebuilt edition no longer has"):
        build_editions(nb_dir, tmp_path / "eds")
    assert marks.read_text() == kept and (eds["instructor"] / "written-marks.new.csv").is_file()
