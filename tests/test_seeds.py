"""Verdicts across seeds (lupikit._book.seeds): the majority rule and the spread of values."""

import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lupikit._book.seeds import MAJORITY, aggregate_claims, majority_verdict, seed_runs


def _claim(claim_id, value, holds, verdict="direction", **extra):
    return {"id": claim_id, "statement": "s", "paper_value": "p", "threshold": "> 0",
            "source": "", "section": "", "value": value, "holds": holds,
            "verdict": verdict if holds else "not reproduced", "expected": True, **extra}


def test_four_of_five_keeps_the_verdict_three_of_five_does_not():
    values = [0.2, 0.1, -0.1, 0.3, 0.25]
    runs = [[_claim("a", v, v > 0)] for v in values]
    (rec,) = aggregate_claims(runs, seeds=[0, 1, 2, 3, 4])
    assert rec["verdict"] == "direction"
    assert rec["seeds"]["held"] == 4 and rec["seeds"]["n"] == 5 and rec["seeds"]["fraction"] == 0.8
    assert rec["value"] == pytest.approx(statistics.median(values))
    assert rec["seeds"]["min"] == -0.1 and rec["seeds"]["max"] == 0.3
    assert rec["seeds"]["sd"] == pytest.approx(statistics.stdev(values))
    assert rec["seeds"]["values"] == values
    runs[0] = [_claim("a", -0.2, False)]
    (rec,) = aggregate_claims(runs, seeds=[0, 1, 2, 3, 4])
    assert rec["verdict"] == "not reproduced" and rec["seeds"]["held"] == 3


def test_not_runnable_and_not_computable_seeds_do_not_count():
    nr = {"id": "a", "value": None, "holds": None, "verdict": "not runnable offline", "expected": None}
    runs = [[nr], [nr]]
    (rec,) = aggregate_claims(runs, seeds=[0, 1])
    assert rec["verdict"] == "not runnable offline" and rec["seeds"]["fraction"] is None
    nc = {"id": "a", "value": float("nan"), "holds": None, "verdict": "not computable"}
    runs = [[_claim("a", 1.0, True, "reproduced")]] * 4 + [[nc]]
    (rec,) = aggregate_claims(runs, seeds=list(range(5)))
    # four seeds ran, all held: the claim keeps its verdict; NaN is not a value
    assert rec["verdict"] == "reproduced" and rec["seeds"]["fraction"] == 1.0
    assert rec["seeds"]["min"] == rec["seeds"]["max"] == 1.0


def test_claims_recorded_at_some_seeds_only_keep_their_order():
    runs = [[_claim("a", 1.0, True), _claim("b", 2.0, True)], [_claim("b", 3.0, True)]]
    recs = aggregate_claims(runs, seeds=[7, 8])
    assert [r["id"] for r in recs] == ["a", "b"]
    assert recs[0]["seeds"]["values"] == [1.0, None] and recs[0]["seeds"]["seeds"] == [7]
    assert recs[1]["seeds"]["values"] == [2.0, 3.0]


def test_non_numeric_values_take_the_first_seed():
    runs = [[_claim("a", "JPIB", True)], [_claim("a", "KbPIB", True)]]
    (rec,) = aggregate_claims(runs, seeds=[0, 1])
    assert rec["value"] == "JPIB" and rec["seeds"]["median"] is None


def test_bad_input():
    with pytest.raises(ValueError, match="runs and seeds"):
        aggregate_claims([[]], seeds=[0, 1])
    with pytest.raises(ValueError, match="majority"):
        majority_verdict(["direction"], 1, 1, majority=0.5)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=9),
       st.sampled_from([0.6, MAJORITY, 1.0]))
def test_majority_rule_matches_a_direct_count(values, majority):
    runs = [[_claim("a", v, v > 0)] for v in values]
    (rec,) = aggregate_claims(runs, seeds=list(range(len(values))), majority=majority)
    held = sum(v > 0 for v in values)
    keeps = held / len(values) >= majority - 1e-12
    assert rec["verdict"] == ("direction" if keeps else "not reproduced")
    assert rec["seeds"]["held"] == held
    assert math.isclose(rec["value"], statistics.median(values))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.floats(-1, 1, allow_nan=False)), min_size=2, max_size=2),
                min_size=1, max_size=6),
       st.integers(1, 5))
def test_a_record_split_into_its_seeds_and_extended_equals_the_whole(values, cut):
    """seed_runs inverts aggregate_claims: aggregating the first seeds, splitting the
    record and adding the remaining runs gives the record of all seeds at once."""
    def run(row):
        return [_claim(cid, v, v > 0) for cid, v in zip("ab", row) if v is not None]

    runs = [run(row) for row in values]
    seeds = list(range(10, 10 + len(runs)))
    cut = min(cut, len(runs))
    whole = aggregate_claims(runs, seeds)
    first = aggregate_claims(runs[:cut], seeds[:cut])
    split = seed_runs({"seeds": seeds[:cut], "claims": first})
    assert split is not None and split[0] == seeds[:cut]
    assert aggregate_claims(split[1] + runs[cut:], seeds) == whole


def test_a_one_seed_record_of_before_the_per_seed_verdicts_splits():
    (rec,) = aggregate_claims([[_claim("a", 0.5, True)]], seeds=[0])
    del rec["seeds"]["verdicts"], rec["seeds"]["holds"]
    seeds, runs = seed_runs({"seeds": [0], "claims": [rec]})
    assert seeds == [0] and runs[0][0]["verdict"] == "direction" and runs[0][0]["holds"] is True
    (two,) = aggregate_claims([[_claim("a", 0.5, True)], [_claim("a", -0.5, False)]], seeds=[0, 1])
    del two["seeds"]["verdicts"]
    assert seed_runs({"seeds": [0, 1], "claims": [two]}) is None


def test_the_carried_why_is_that_of_a_seed_that_ran_and_seeds_ran_counts_them():
    from lupikit._book.seeds import seeds_ran

    nan = dict(_claim("a", None, None), verdict="not computable", holds=None, why="the measured value is nan",
               reason="the measured value is nan")
    runs = [[nan]] + [[_claim("a", 0.1, True, why="what a failure would mean")] for _ in range(4)]
    (rec,) = aggregate_claims(runs, seeds=[0, 1, 2, 3, 4])
    assert rec["verdict"] == "direction" and rec["why"] == "what a failure would mean" and rec["reason"] is None
    assert seeds_ran(rec["seeds"]) == 4 and rec["seeds"]["held"] == 4
    runs = [[nan], [nan]] + [[_claim("a", -0.1, False)] for _ in range(3)]
    (rec,) = aggregate_claims(runs, seeds=[0, 1, 2, 3, 4])
    assert seeds_ran(rec["seeds"]) == 3 and rec["seeds"]["held"] == 0


def _pooled_run(value, bound=50.0, pool="mean"):
    holds = value > bound
    return [{"id": "t.acc", "value": value, "holds": holds, "op": ">", "bound": bound, "pool": pool,
             "held_verdict": "reproduced", "verdict": "reproduced" if holds else "not reproduced",
             "expected": True}]


def test_a_pooled_claim_is_decided_by_the_mean_over_the_seeds():
    from lupikit._book.seeds import aggregate_claims
    # two of five seeds hold: the 4-of-5 rule says "not reproduced", the pooled mean (52.8) holds
    values = [49.1, 49.6, 59.8, 49.5, 56.0]
    pooled = aggregate_claims([_pooled_run(v) for v in values], seeds=list(range(5)))[0]
    assert pooled["verdict"] == "reproduced"
    assert pooled["value"] == pytest.approx(sum(values) / 5)
    assert pooled["seeds"]["pooled"] == "mean" and pooled["seeds"]["held"] == 2
    assert pooled["seeds"]["median"] == pytest.approx(49.6)
    # the same values without pooling keep the majority rule
    plain = aggregate_claims([_pooled_run(v, pool=None) for v in values], seeds=list(range(5)))[0]
    assert plain["verdict"] == "not reproduced" and "pooled" not in plain["seeds"]
    # a mean below the threshold fails even where one seed held
    low = aggregate_claims([_pooled_run(v) for v in (49.0, 48.0, 51.0, 47.0, 49.5)], seeds=list(range(5)))[0]
    assert low["verdict"] == "not reproduced" and low["seeds"]["held"] == 1


def test_a_pooled_claim_says_so_on_the_scorecard():
    from lupikit._book.scorecard import seeds_text
    from lupikit._book.seeds import aggregate_claims
    rec = aggregate_claims([_pooled_run(v) for v in (49.1, 49.6, 59.8, 49.5, 56.0)], seeds=list(range(5)))[0]
    assert seeds_text(rec).startswith("mean of 5 seeds (held at 2)")


def test_a_pooled_claim_can_be_extended_by_more_seeds():
    from lupikit._book.seeds import aggregate_claims, seed_runs
    first = aggregate_claims([_pooled_run(v) for v in (49.1, 49.6, 59.8)], seeds=[0, 1, 2])
    seeds, runs = seed_runs({"seeds": [0, 1, 2], "claims": first})
    more = aggregate_claims(runs + [_pooled_run(v) for v in (49.5, 56.0)], seeds=seeds + [3, 4])[0]
    direct = aggregate_claims([_pooled_run(v) for v in (49.1, 49.6, 59.8, 49.5, 56.0)], seeds=list(range(5)))[0]
    assert more == direct


def test_a_claim_pooled_by_a_test_needs_a_significant_effect():
    from scipy import stats

    from lupikit._book.seeds import POOLED_LEVEL, aggregate_claims

    def run(v):
        holds = v < 0
        return [{"id": "t.gap", "value": v, "holds": holds, "op": "<", "bound": 0.0, "pool": "ttest",
                 "held_verdict": "direction", "verdict": "direction" if holds else "not reproduced",
                 "expected": False}]

    # gaps of either sign around 0: the mean is negative, the test is not significant
    noise = [-0.0028, 0.0, -0.0005, 0.0, 0.0001]
    rec = aggregate_claims([run(v) for v in noise], seeds=list(range(5)))[0]
    p = stats.ttest_1samp(noise, 0.0, alternative="less").pvalue
    assert rec["seeds"]["p"] == pytest.approx(p) and p > POOLED_LEVEL
    assert rec["verdict"] == "not reproduced" and rec["value"] < 0
    # a consistent effect is significant even where one seed alone missed it
    effect = [-0.03, -0.02, -0.025, 0.001, -0.035]
    rec = aggregate_claims([run(v) for v in effect], seeds=list(range(5)))[0]
    assert rec["verdict"] == "direction" and rec["seeds"]["held"] == 4 and rec["seeds"]["p"] < POOLED_LEVEL
