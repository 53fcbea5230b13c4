"""Numbers in the book's prose come from the records: the ``result`` role and its tables."""

import json
import subprocess
import sys

import pytest

from lupikit._book.result_text import ResultError, find_results, resolve, resolve_table

RECORD = {
    "notebook": "boosting/toy",
    "claims": [
        {"id": "boosting.gap", "value": 0.2, "verdict": "direction", "relation": "reformulated",
         "paper_value": "0.33 (Table 2)", "why": "only the sign: Table 2's numbers are not in our text",
         "seeds": {"n": 5, "held": 4, "fraction": 0.8, "min": 0.0712, "max": 0.3623}},
        {"id": "boosting.rows", "value": 12, "verdict": "reproduced", "relation": "book",
         "paper_value": "12", "why": None,
         "seeds": {"n": 5, "held": 5, "fraction": 1.0, "min": 12, "max": 12}},
    ],
}
BENCH = {"benchmark": "toy", "command": "python benchmarks/bench_toy.py", "executed_at": "2026-12-03T10:00:00+00:00",
         "seconds": 3.0, "machine": "x86_64, 2 cores", "load_average": [2.5, 3.25], "git_commit": "0" * 40,
         "versions": {"xgboost": "3.2.0"}, "values": {"ratio": 0.81234, "name": "hist"},
         "tables": {"speed": {"caption": "Seconds per fit", "columns": ["fit", "seconds"],
                              "rows": [["XGBoost", 0.707], ["lupikit", 0.719]]}}}


@pytest.fixture
def results(tmp_path):
    root = tmp_path / "results"
    (root / "paper" / "boosting").mkdir(parents=True)
    (root / "benchmarks").mkdir()
    (root / "paper" / "boosting" / "toy.json").write_text(json.dumps(RECORD))
    (root / "benchmarks" / "toy.json").write_text(json.dumps(BENCH))
    return root


@pytest.mark.parametrize("reference, text", [
    ("boosting/toy:boosting.gap", "0.2"),
    ("boosting/toy:boosting.gap:range", "0.0712 to 0.3623"),
    ("boosting/toy:boosting.rows:range", "12"),
    ("boosting/toy:boosting.gap:held", "4/5"),
    ("boosting/toy:boosting.gap:n", "5"),
    ("boosting/toy:boosting.gap:verdict", "direction"),
    ("boosting/toy:boosting.gap:relation", "reformulated"),
    ("boosting/toy:boosting.gap:paper", "0.33 (Table 2)"),
    ("bench:toy:ratio", "0.8123"),
    ("bench:toy:name", "hist"),
    ("bench:toy:@date", "2026-12-03"),
    ("bench:toy:@machine", "x86_64, 2 cores"),
    ("bench:toy:@versions.xgboost", "3.2.0"),
    ("bench:toy:@load", "2.5 to 3.25"),
])
def test_a_reference_resolves_to_the_recorded_value(results, reference, text):
    assert resolve(reference, results) == text


@pytest.mark.parametrize("reference, match", [
    ("boosting/none:boosting.gap", "no record"),
    ("boosting/toy:boosting.none", "no claim 'boosting.none'"),
    ("boosting/toy:boosting.gap:colour", "unknown field 'colour'"),
    ("bench:toy:none", "no value 'none'"),
    ("bench:toy:@versions.lightgbm", "no version of 'lightgbm'"),
    ("bench:toy", "needs bench:<name>:<key>"),
    ("just-words", "needs <part>/<name>"),
    ("boosting/toy::value", "an empty component"),
])
def test_a_reference_that_does_not_resolve_says_why(results, reference, match):
    with pytest.raises(ResultError, match=match):
        resolve(reference, results)


def test_a_table_and_the_results_folder(results, tmp_path):
    caption, columns, rows = resolve_table("bench:toy:speed", results)
    assert (caption, columns, rows) == ("Seconds per fit", ["fit", "seconds"], [["XGBoost", "0.707"],
                                                                              ["lupikit", "0.719"]])
    with pytest.raises(ResultError, match="no table 'size'"):
        resolve_table("bench:toy:size", results)
    deep = tmp_path / "book" / "part"
    deep.mkdir(parents=True)
    assert find_results(deep) == results


def test_the_roles_render_in_a_sphinx_build_and_a_dangling_one_warns(results, tmp_path):
    pytest.importorskip("myst_parser")
    src = tmp_path
    (src / "conf.py").write_text(
        'extensions = ["myst_parser", "lupikit._book.sphinx_results"]\n'
        'myst_enable_extensions = ["colon_fence"]\nexclude_patterns = ["_build", "results"]\n')
    (src / "index.md").write_text(
        "# Page\n\nThe gap is {result}`boosting/toy:boosting.gap` over the seeds "
        "({result}`boosting/toy:boosting.gap:range`), measured on {result}`bench:toy:@machine`.\n\n"
        "```{result-table} bench:toy:speed\n```\n\n"
        "```{claims-table} boosting/toy\n:ids: boosting.gap\n```\n")
    out = tmp_path / "_build"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", str(src), str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (out / "index.html").read_text()
    assert "The gap is <span class=\"recorded-value\">0.2</span>" in html
    assert "0.0712 to 0.3623" in html and "x86_64, 2 cores" in html
    assert "Seconds per fit" in html and "0.719" in html
    # the claims table: three columns, the relation beside the id, the seeds beside the verdict
    assert "reformulated" in html and "only the sign: Table 2" in html and "held at 4/5 seeds" in html
    # a claim that the notebook's current source checks and its stale record lacks is newer than the record
    (src / "notebooks" / "boosting").mkdir(parents=True)
    (src / "notebooks" / "boosting" / "toy.ipynb").write_text(json.dumps({"cells": [{
        "cell_type": "code", "source": 'claims.check("boosting.new", "A new claim", 1, ">", 0, paper="> 0")'}]}))
    (src / "conf.py").write_text((src / "conf.py").read_text().replace('"results"]', '"results", "notebooks"]'))
    (src / "index.md").write_text("# Page\n\nA {result}`boosting/toy:boosting.new` here.\n\n"
                                  "```{claims-table} boosting/toy\n:ids: boosting.gap, boosting.new\n```\n")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "-E", str(src), str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (out / "index.html").read_text().count("not yet recorded at the paper preset") == 2
    # a record, a claim the source does not check (a misspelt id) or a benchmark value that does not exist
    # is an error, stale record or not
    (src / "index.md").write_text("# Page\n\nA {result}`boosting/none:boosting.gap`, {result}`bench:toy:none` "
                                  "and {result}`boosting/toy:boosting.nwe`.\n")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-E", str(src), str(out)],
                          capture_output=True, text=True)
    assert "boosting/none:boosting.gap: no record" in proc.stderr and "no value 'none'" in proc.stderr
    assert "no claim 'boosting.nwe'" in proc.stderr
