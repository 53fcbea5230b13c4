"""``lupikit paper --reaggregate``: a record combined again from its per-seed values, with no notebook run."""

import json
import shutil
from pathlib import Path

import pytest

from lupikit import cli
from lupikit._book.records import check_records, reaggregated

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
RESULTS = ROOT / "results" / "paper"


def _a_current_record():
    for short, record, state in check_records(RESULTS, NB_DIR):
        if not state and len(record.get("seeds") or []) > 1:
            return short, record
    pytest.skip("no current record at several seeds")


def test_a_current_record_combines_to_itself_but_for_the_fields_the_rule_computes_otherwise():
    short, record = _a_current_record()
    again = reaggregated(record)
    assert [c["id"] for c in again["claims"]] == [c["id"] for c in record["claims"]]
    assert [c["verdict"] for c in again["claims"]] == [c["verdict"] for c in record["claims"]]
    assert {k: v for k, v in again.items() if k != "claims"} == {k: v for k, v in record.items() if k != "claims"}


def test_reaggregate_rewrites_a_tampered_aggregate_and_names_it(tmp_path, capsys):
    short, record = _a_current_record()
    results = tmp_path / "paper"
    target = results / f"{short}.json"
    target.parent.mkdir(parents=True)
    tampered = json.loads(json.dumps(record))
    claim = next(c for c in tampered["claims"] if c.get("interval"))
    truth = claim["interval"]
    claim["interval"] = [-1e9, 1e9]
    target.write_text(json.dumps(tampered))
    assert cli.main(["--notebooks-dir", str(NB_DIR), "paper", "--reaggregate", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert f"{short}: {claim['id']}: interval [-1000000000.0, 1000000000.0] -> " in out
    assert "1 of 1 records combined again" in out
    fixed = next(c for c in json.loads(target.read_text())["claims"] if c["id"] == claim["id"])
    assert fixed["interval"] == pytest.approx(truth)


def test_reaggregate_leaves_a_stale_record_alone(tmp_path, capsys):
    short, record = _a_current_record()
    results = tmp_path / "paper"
    target = results / f"{short}.json"
    target.parent.mkdir(parents=True)
    stale = dict(record, fingerprint={**record["fingerprint"], "notebook": "0" * 16})
    stale["claims"] = [dict(c, p=0.5) for c in record["claims"]]
    target.write_text(json.dumps(stale))
    before = target.read_text()
    assert cli.main(["--notebooks-dir", str(NB_DIR), "paper", "--reaggregate", "--results", str(results)]) == 0
    assert f"{short}: stale, left alone" in capsys.readouterr().out
    assert target.read_text() == before


def test_reaggregate_runs_nothing_on_the_checkout(tmp_path):
    """The checkout's own records are only read when another results folder is given."""
    results = tmp_path / "paper"
    shutil.copytree(RESULTS, results)
    before = {p: p.read_bytes() for p in RESULTS.rglob("*.json")}
    cli.main(["--notebooks-dir", str(NB_DIR), "paper", "--reaggregate", "--results", str(results)])
    assert {p: p.read_bytes() for p in RESULTS.rglob("*.json")} == before
