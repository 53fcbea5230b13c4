"""The committed paper-scale results (``results/paper/``) follow their schema.

They are written by ``lupikit paper``, never by hand: one file per notebook.
"""

import json
from pathlib import Path

import pytest

from lupikit._book import records
from lupikit._book.paths import is_exercise_notebook
import numpy as np
from scipy import stats

from lupikit._book.seeds import aggregate_claims, seed_runs
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
        seeds = c["seeds"]
        assert seeds["seeds"] and set(seeds["seeds"]) <= set(rec["seeds"])
        assert len(seeds["values"]) == len(rec["seeds"]) and seeds["n"] == len(seeds["seeds"])
        if c.get("looser"):
            assert c["verdict"] != "reproduced", f"{c['id']}: a looser reformulation tops out at direction"
    assert rec["seeds"] and len(rec["seeds"]) == len(set(rec["seeds"]))
    assert rec["parameters"]["seed"] == rec["seeds"][0]


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_the_verdicts_follow_the_one_decision_rule(path):
    """Splitting a record into its seeds and aggregating again gives the record's verdicts; a t
    interval is scipy's; a held verdict's interval clears the constant classifier's score."""
    rec = _current(path)
    if rec is None:
        pytest.skip(f"{path.stem}: stale (re-record with lupikit paper)")
    seeds, runs = seed_runs(rec)
    again = {c["id"]: c for c in aggregate_claims(runs, seeds)}
    for c in rec["claims"]:
        assert again[c["id"]]["verdict"] == c["verdict"], c["id"]
        values = [v for v, r in zip(c["seeds"]["values"], c["seeds"]["verdicts"])
                  if r not in (None, "not computable", "not runnable offline")]
        if c["rule"] == "t" and c["interval"] and np.std(values) > 0:
            x = np.asarray(values, float)
            low, high = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
            assert np.allclose(c["interval"], [low, high]), c["id"]
        if c["verdict"] in ("reproduced", "direction") and c.get("baseline") is not None and c["interval"]:
            assert c["interval"][0] > c["baseline"] or c["interval"][0] >= c["baseline"] == c["interval"][1], c["id"]
        if c["verdict"] not in ("not computable", "not runnable offline") and c["n"] > 1:
            assert c["rule"] in ("deterministic", "identity", "t", "resampled-t", "binomial", "binomial-share"), c["id"]
            assert (c["interval"] is None) == (c["rule"] in ("deterministic", "identity")), c["id"]


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_two_seeds_share_no_draw(path):
    """What each replication drew (a short hash per replication and loop): no two seeds, and no two
    replications of one seed, drew the same rows."""
    rec = _current(path)
    if rec is None:
        pytest.skip(f"{path.stem}: stale (re-record with lupikit paper)")
    draws = rec["draws"]
    assert set(draws) == {str(s) for s in rec["seeds"]}
    loops = {loop for per_seed in draws.values() for loop in per_seed}
    for loop in loops:
        seen = {}
        for seed, per_seed in draws.items():
            for k, h in enumerate(per_seed.get(loop, [])):
                assert h not in seen, (f"{loop}: replication {k} of seed {seed} drew what "
                                       f"replication {seen.get(h, ('?', '?'))[1]} of seed {seen.get(h, ('?',))[0]} drew")
                seen[h] = (seed, k)
