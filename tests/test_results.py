"""The committed paper-scale results (``results/paper/``) follow their schema.

They are written by ``lupikit paper``, never by hand: one file per notebook.
"""

import json
from pathlib import Path

import pytest

from lupikit._book import records
from lupikit._book.paths import is_exercise_notebook
from lupikit._book.seeds import MAJORITY
from lupikit.claims import VERDICTS

ROOT = Path(__file__).resolve().parents[1]
RESULTS = sorted((ROOT / "results" / "paper").rglob("*.json"))
# the exercise notebooks of the classroom edition make no paper claims
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and not is_exercise_notebook(p))


def test_every_notebook_has_a_result():
    have = {p.relative_to(ROOT / "results" / "paper").with_suffix("").as_posix() for p in RESULTS}
    want = {p.relative_to(ROOT / "notebooks").with_suffix("").as_posix() for p in NOTEBOOKS}
    assert have == want


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_result_schema(path):
    rec = json.loads(path.read_text())
    assert tuple(rec) == records.RESULT_KEYS
    assert rec["notebook"] == path.relative_to(ROOT / "results" / "paper").with_suffix("").as_posix()
    assert rec["parameters"]["preset"] == "paper"
    assert isinstance(rec["seconds"], (int, float)) and rec["seconds"] > 0
    assert len(rec["git_commit"]) == 40 and rec["executed_at"].endswith("+00:00")
    assert set(rec["fingerprint"]) == {"notebook", "code"}
    assert rec["claims"], "no claims recorded"
    ids = [c["id"] for c in rec["claims"]]
    assert len(ids) == len(set(ids))
    for c in rec["claims"]:
        assert tuple(c) == records.CLAIM_KEYS
        assert c["verdict"] in VERDICTS
        assert isinstance(c["statement"], str) and c["statement"]
        # the claim across the record's seeds: its verdict follows the majority rule
        seeds = c["seeds"]
        assert seeds["seeds"] and set(seeds["seeds"]) <= set(rec["seeds"])
        assert len(seeds["values"]) == len(rec["seeds"]) and seeds["n"] == len(seeds["seeds"])
        if seeds["fraction"] is not None:
            assert 0 <= seeds["held"] <= seeds["n"] and 0.0 <= seeds["fraction"] <= 1.0
            kept = seeds["fraction"] >= MAJORITY - 1e-9
            assert (c["verdict"] in ("reproduced", "direction")) == kept, c["id"]
    assert rec["seeds"] and len(rec["seeds"]) == len(set(rec["seeds"]))
    assert rec["parameters"]["seed"] == rec["seeds"][0]
