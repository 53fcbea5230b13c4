"""Collect from a download that holds what a real one may: bad files, links, huge numbers, lookalike folders."""

import json
import os
import zipfile

import nbformat

from lupikit.classroom import build_editions, collect_submissions, read_roster_table

from .toy import write_project

CANVAS = ("Student,ID,SIS User ID,SIS Login ID,Section\n"
          "\"Lovelace, Ada\",101,s001,ada,A\n\"Turing, Alan\",102,s002,alan,A\n")


def _editions(tmp_path):
    nb_dir, _ = write_project(tmp_path / "checkout")
    roster = tmp_path / "canvas.csv"
    roster.write_text(CANVAS)
    eds = build_editions(nb_dir, tmp_path / "eds", roster=roster, seed=1)
    sources = {"toy/exercises": eds["instructor"] / "toy" / "exercises.ipynb"}
    nb = {sid: nbformat.writes(nbformat.read(eds["student"] / sid / "toy" / "exercises.ipynb", as_version=4))
          for sid in ("101", "102")}
    return read_roster_table(roster), sources, nb, eds


def test_bad_files_are_listed_with_their_reason_and_the_rest_is_collected(tmp_path):
    roster, sources, nb, eds = _editions(tmp_path)
    download = tmp_path / "download"
    download.mkdir()
    (download / "lovelaceada_101_1_exercises.ipynb").write_text(nb["101"])
    (download / "turingalan_102_2_exercises.ipynb").write_text('{"cells": [], "n": 1' + "9" * 5000 + "}")
    (download / "turingalan_102_3_other.ipynb").write_text('[1, 2, 3]')
    (download / "turingalan_102_4_more.ipynb").write_text('{"cells": [1, 2]}')
    # a link to the instructor's notebook, handed in as alan's
    os.symlink(eds["instructor"] / "toy" / "exercises.ipynb", download / "turingalan_102_5_exercises.ipynb")
    big = download / "turingalan_102_6_big.ipynb"
    with big.open("wb") as fh:
        fh.truncate(65 * 1024 * 1024)  # sparse: 65 MiB that take no room
    subs = tmp_path / "subs"
    done = collect_submissions(download, subs, roster=roster, sources=sources)
    assert done["placed"] == {"101": ["toy/exercises"]} and done["missing"] == ["102"]
    unreadable = "\n".join(done["unreadable"])
    assert "turingalan_102_2_exercises.ipynb: not a readable notebook (ValueError: Exceeds the limit" in unreadable
    assert "turingalan_102_3_other.ipynb: JSON, but not a notebook" in unreadable
    assert "turingalan_102_4_more.ipynb: JSON, but not a notebook" in unreadable
    refused = "\n".join(done["refused"])
    assert "turingalan_102_5_exercises.ipynb: a symbolic link (not followed)" in refused
    assert "turingalan_102_6_big.ipynb: 68157440 bytes, over the 64 MiB" in refused
    assert not (subs / "102").exists()


def test_a_zip_with_a_link_and_a_huge_member_is_read_member_by_member(tmp_path):
    roster, sources, nb, _ = _editions(tmp_path)
    download = tmp_path / "download.zip"
    with zipfile.ZipFile(download, "w") as zf:
        zf.writestr("lovelaceada_101_1_exercises.ipynb", nb["101"])
        link = zipfile.ZipInfo("turingalan_102_2_exercises.ipynb")
        link.external_attr = (0o120777 << 16)
        zf.writestr(link, "/etc/passwd")
        zf.writestr("turingalan_102_3_exercises.ipynb", "0" * (65 * 1024 * 1024), compress_type=zipfile.ZIP_DEFLATED)
    done = collect_submissions(download, tmp_path / "subs", roster=roster, sources=sources)
    assert done["placed"] == {"101": ["toy/exercises"]}
    refused = "\n".join(done["refused"])
    assert "turingalan_102_2_exercises.ipynb: a symbolic link" in refused and "over the 64 MiB" in refused


def test_collected_json_keeps_every_download(tmp_path):
    roster, sources, nb, _ = _editions(tmp_path)
    subs = tmp_path / "subs"
    first = tmp_path / "first"
    first.mkdir()
    (first / "lovelaceada_LATE_101_1_exercises.ipynb").write_text(nb["101"])
    collect_submissions(first, subs, roster=roster, sources=sources)
    second = tmp_path / "second"  # a later download of alan alone, on time
    second.mkdir()
    (second / "turingalan_102_2_exercises.ipynb").write_text(nb["102"])
    # a collect of another notebook (here: the same exercise under another name) keeps this one's entries
    collect_submissions(second, subs, roster=roster, sources={"toy/other": sources["toy/exercises"]})
    record = json.loads((subs / "collected.json").read_text())
    assert record["late"] == ["101"] and "marked LATE" in record["late_why"]["101"]
    assert record["notebooks"]["toy/exercises"]["placed"] == ["101"]
    assert record["notebooks"]["toy/other"]["placed"] == ["102"]
    # a re-collect of the same notebook replaces only that notebook's entries
    collect_submissions(second, subs, roster=roster, sources=sources)
    record = json.loads((subs / "collected.json").read_text())
    assert record["notebooks"]["toy/exercises"]["placed"] == ["102"] and record["late"] == []
    assert record["notebooks"]["toy/other"]["placed"] == ["102"]


def test_a_moodle_folder_is_matched_by_participant_id_before_name(tmp_path):
    _, sources, nb, _ = _editions(tmp_path)
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text("Identifier,Full name,Email address,Status\n"
                         "Participant 3001,Ada Lovelace,ada@example.org,Submitted\n"
                         "Participant 3002,Alan Turing,alan@example.org,Submitted\n")
    roster = read_roster_table(worksheet)
    download = tmp_path / "moodle"
    mine = download / "Ada Lovelace_3001_assignsubmission_file_"
    impostor = download / "Ada Lovelace_3002_assignsubmission_file_"  # alan's folder, under ada's name
    for folder, sid in ((mine, "101"), (impostor, "102")):
        folder.mkdir(parents=True)
        (folder / "exercises.ipynb").write_text(nb[sid])
    done = collect_submissions(download, tmp_path / "subs", roster=roster, sources=sources)
    ids = {s["id"] for s in roster}
    ada = next(s["id"] for s in roster if "Ada" in s.get("name", ""))
    alan = next(iter(ids - {ada}))
    assert done["placed"] == {ada: ["toy/exercises"], alan: ["toy/exercises"]}
    # without the ids, two folders of one name are not placed by name
    plain = tmp_path / "plain.csv"
    plain.write_text("First name,Last name,Username\nAda,Lovelace,ada\nAlan,Turing,alan\n")
    done = collect_submissions(download, tmp_path / "subs2", roster=read_roster_table(plain), sources=sources)
    assert done["placed"] == {} and all("two Moodle folders of that name" in a for a in done["ambiguous"])
