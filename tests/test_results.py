"""The committed paper-scale results (``results/paper/``) follow their schema.

They are written by ``lupikit paper``, never by hand: one file per notebook.
"""

import json
from pathlib import Path

import pytest

from lupikit._book import records
from lupikit._book.paths import is_exercise_notebook
from lupikit._book.seeds import MAJORITY, POOLED_LEVEL
from lupikit.claims import OPS
from lupikit.claims import RELATIONS, VERDICTS

ROOT = Path(__file__).resolve().parents[1]
RESULTS = sorted((ROOT / "results" / "paper").rglob("*.json"))
# the exercise notebooks of the classroom edition make no paper claims
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and not is_exercise_notebook(p))


def test_every_notebook_has_a_result():
    have = {p.relative_to(ROOT / "results" / "paper").with_suffix("").as_posix() for p in RESULTS}
    want = {p.relative_to(ROOT / "notebooks").with_suffix("").as_posix() for p in NOTEBOOKS}
    assert have == want


def _notebook(rec):
    return ROOT / "notebooks" / f"{rec['notebook']}.ipynb"


def _current(path):
    rec = json.loads(path.read_text())
    return rec if not records.is_stale(rec, _notebook(rec), rec["notebook"]) else None


def _all_claims():
    out = {}
    for path in RESULTS:
        rec = json.loads(path.read_text())
        out.update({(rec["notebook"], c["id"]): c for c in rec["claims"]})
    return out


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_a_current_record_says_how_each_claim_relates_to_the_paper_and_why(path):
    """Every claim of a current record: its relation, how a reformulation differs, why a verdict is not
    "reproduced", evidence that resolves, and a deterministic value the same at every seed."""
    rec = _current(path)
    if rec is None:
        pytest.skip(f"{path.stem}: stale (re-record with lupikit paper)")
    everything = _all_claims()
    for c in rec["claims"]:
        assert c["relation"] in RELATIONS, c["id"]
        assert (c["relation"] == "reformulated") == bool(c["how"]), c["id"]
        if c["verdict"] != "reproduced":
            assert c["why"], f"{c['id']}: a {c['verdict']!r} verdict without why"
        # a paper's claim that fails names the experiment that explains why (a book claim, an ablation,
        # is itself such an experiment)
        if c["verdict"] == "not reproduced" and c["seeds"]["held"] == 0 and c["relation"] != "book":
            assert c["evidence"], f"{c['id']}: not reproduced, without evidence"
        for ref in c["evidence"]:
            notebook, claim_id = ref.split(":", 1) if ":" in ref else (rec["notebook"], ref)
            assert (notebook, claim_id) in everything, f"{c['id']}: evidence {ref!r} is no recorded claim"
        seeds = c["seeds"]
        if c["deterministic"] and c["verdict"] not in ("not computable", "not runnable offline"):
            assert seeds["identical"] or seeds["n"] == 1, f"{c['id']}: deterministic, yet its value varies"
        # (a value the same at every seed without being deterministic, e.g. a model chosen alike at
        # every seed on a fixed split, is shown as such on the scorecard, not as five replications)


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_result_schema(path):
    rec = json.loads(path.read_text())
    assert tuple(rec) == records.RESULT_KEYS
    assert rec["notebook"] == path.relative_to(ROOT / "results" / "paper").with_suffix("").as_posix()
    assert rec["parameters"]["preset"] == "paper"
    assert isinstance(rec["seconds"], (int, float)) and rec["seconds"] > 0
    assert len(rec["git_commit"]) == 40 and rec["executed_at"].endswith("+00:00")
    # what the run executed (the notebook, each library definition it reaches), the data files it read
    # and the libraries' versions (None: recorded before runs logged them), and where each seed ran
    assert set(rec["fingerprint"]) == {"scheme", "notebook", "definitions", "data", "versions"}
    assert rec["fingerprint"]["definitions"] and all(
        len(h) == 33 and h[16] == ":" for h in rec["fingerprint"]["definitions"].values())  # (own:with what it uses)
    assert len(rec["ran_on"]) == len(rec["seeds"])
    assert rec["claims"], "no claims recorded"
    ids = [c["id"] for c in rec["claims"]]
    assert len(ids) == len(set(ids))
    stale = records.is_stale(rec, _notebook(rec), rec["notebook"])
    for c in rec["claims"]:
        # a record made before claims stated their relation to the paper is stale (claims.py changed)
        assert tuple(c) == records.CLAIM_KEYS or (stale and tuple(c) == records.LEGACY_CLAIM_KEYS)
        assert c["verdict"] in VERDICTS
        assert isinstance(c["statement"], str) and c["statement"]
        # the claim across the record's seeds: its verdict follows the majority rule
        seeds = c["seeds"]
        assert seeds["seeds"] and set(seeds["seeds"]) <= set(rec["seeds"])
        assert len(seeds["values"]) == len(rec["seeds"]) and seeds["n"] == len(seeds["seeds"])
        if seeds["fraction"] is not None:
            assert 0 <= seeds["held"] <= seeds["n"] and 0.0 <= seeds["fraction"] <= 1.0
            kept = seeds["fraction"] >= MAJORITY - 1e-9
            if seeds.get("pooled"):
                # a pooled claim is decided by the seeds' mean, or by a t-test of their values
                if seeds.get("p") is not None:
                    kept = seeds["p"] < POOLED_LEVEL
                else:
                    kept = OPS[seeds["op"]](seeds["mean"], seeds["bound"])
            assert (c["verdict"] in ("reproduced", "direction")) == kept, c["id"]
    assert rec["seeds"] and len(rec["seeds"]) == len(set(rec["seeds"]))
    assert rec["parameters"]["seed"] == rec["seeds"][0]
