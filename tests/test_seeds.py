"""Verdicts across seeds (lupikit._book.seeds): one decision rule, an interval against the threshold.

The references are scipy.stats computed here, independently of
:mod:`lupikit._book.intervals`.
"""

import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from lupikit._book.seeds import aggregate_claims, seed_runs, seeds_ran, undecided


def _claim(claim_id, value, *, op=">", bound=0.0, verdict="direction", rule="t", **extra):
    holds = bool(value > bound) if op == ">" else bool(value < bound)
    return {"id": claim_id, "statement": "s", "paper_value": "p", "threshold": f"{op} {bound}",
            "source": "", "section": "", "value": value, "holds": holds, "op": op, "bound": bound,
            "rule": rule, "held_verdict": verdict, "verdict": verdict if holds else "not reproduced",
            "expected": True, **extra}


def _compound(claim_id, holds):
    return {"id": claim_id, "statement": "s", "paper_value": "p", "threshold": "", "value": holds,
            "holds": holds, "op": None, "bound": None, "rule": "binomial", "held_verdict": "reproduced",
            "verdict": "reproduced" if holds else "not reproduced", "expected": True}


def _reference_t(values):
    x = np.asarray(values, float)
    low, high = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    return low, high


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=12).filter(
    lambda v: statistics.pstdev(v) > 1e-6))
def test_the_verdict_is_the_t_interval_against_the_threshold(values):
    runs = [[_claim("a", v)] for v in values]
    (rec,) = aggregate_claims(runs, seeds=list(range(len(values))))
    low, high = _reference_t(values)
    expected = "direction" if low > 0 else "not reproduced" if high <= 0 else "inconclusive"
    assert rec["verdict"] == expected
    assert rec["rule"] == "t" and rec["level"] == 0.95 and rec["n"] == len(values)
    assert np.allclose(rec["interval"], [low, high])
    assert math.isclose(rec["value"], statistics.fmean(values))
    assert rec["seeds"]["held"] == sum(v > 0 for v in values)


def test_four_of_five_no_longer_decides_an_interval_does():
    # held at 4 of 5 seeds, but the mean's interval crosses 0: inconclusive, not "direction"
    (rec,) = aggregate_claims([[_claim("a", v)] for v in (0.3, 0.2, 0.25, 0.1, -0.6)], seeds=[0, 1, 2, 3, 4])
    assert rec["seeds"]["held"] == 4 and rec["verdict"] == "inconclusive"
    assert rec["interval"][0] < 0 < rec["interval"][1] and 0 < rec["p"] < 1
    assert undecided({"claims": [rec]}) == ["a"]
    # held at 3 of 5, but the interval lies above the threshold: held
    (rec,) = aggregate_claims([[_claim("a", v, bound=0.5)] for v in (0.52, 0.55, 0.49, 0.48, 0.56)],
                              seeds=[0, 1, 2, 3, 4])
    assert rec["seeds"]["held"] == 3 and rec["verdict"] == "inconclusive"
    (rec,) = aggregate_claims([[_claim("a", v)] for v in (-0.3, -0.2, -0.25, -0.1, -0.4)], seeds=[0, 1, 2, 3, 4])
    assert rec["verdict"] == "not reproduced" and rec["interval"][1] < 0 and rec["p"] > 0.99


def test_the_resampled_t_is_wider_by_the_nadeau_bengio_factor():
    values = [0.81, 0.84, 0.79, 0.83, 0.80, 0.82]
    t = aggregate_claims([[_claim("a", v, bound=0.79)] for v in values], seeds=list(range(6)))[0]
    rs = aggregate_claims([[_claim("a", v, bound=0.79, rule="resampled-t", test_fraction=0.25)] for v in values],
                          seeds=list(range(6)))[0]
    factor = math.sqrt((1 / 6 + 0.25 / 0.75) / (1 / 6))
    assert math.isclose(rs["interval"][1] - rs["interval"][0], factor * (t["interval"][1] - t["interval"][0]))
    assert t["verdict"] == "direction" and rs["verdict"] == "inconclusive"


def test_a_count_over_data_sets_takes_the_exact_binomial_interval():
    counts = [8, 9, 7, 8, 9]  # wins on k of 10 data sets, "more than 5"
    runs = [[_claim("a", k, bound=5, rule="binomial", trials=10)] for k in counts]
    (rec,) = aggregate_claims(runs, seeds=list(range(5)))
    ref = stats.binomtest(sum(counts), 50).proportion_ci(0.95, method="exact")
    assert np.allclose(rec["interval"], [10 * ref.low, 10 * ref.high]) and rec["verdict"] == "direction"
    assert math.isclose(rec["p"], stats.binomtest(sum(counts), 50, 0.5, alternative="greater").pvalue)


def test_a_baseline_raises_the_bar_to_a_trivial_models_score():
    # accuracies clear the threshold 0.6 but not the constant classifier's 0.7
    runs = [[_claim("a", v, bound=0.6, verdict="reproduced", baseline=b)]
            for v, b in ((0.71, 0.70), (0.69, 0.70), (0.72, 0.70), (0.70, 0.70), (0.70, 0.70))]
    (rec,) = aggregate_claims(runs, seeds=list(range(5)))
    assert rec["baseline"] == pytest.approx(0.70) and rec["verdict"] == "inconclusive"
    runs = [[_claim("a", v, bound=0.6, verdict="reproduced", baseline=0.70)] for v in (0.64, 0.65, 0.66, 0.65, 0.64)]
    assert aggregate_claims(runs, seeds=list(range(5)))[0]["verdict"] == "not reproduced"


def test_a_compound_condition_is_decided_by_the_share_of_seeds_against_one_half():
    five = aggregate_claims([[_compound("a", True)] for _ in range(5)], seeds=list(range(5)))[0]
    six = aggregate_claims([[_compound("a", True)] for _ in range(6)], seeds=list(range(6)))[0]
    # Clopper-Pearson: 5 of 5 gives a lower bound of 0.025 ** (1 / 5) = 0.478 < 1/2; 6 of 6 gives 0.541
    assert five["verdict"] == "inconclusive" and math.isclose(five["interval"][0], 0.025 ** 0.2)
    assert six["verdict"] == "reproduced" and six["rule"] == "binomial-share"
    none = aggregate_claims([[_compound("a", False)] for _ in range(6)], seeds=list(range(6)))[0]
    assert none["verdict"] == "not reproduced"


def test_deterministic_saturated_and_one_seed():
    det = aggregate_claims([[_claim("a", 1.0, deterministic=True)] for _ in range(5)], seeds=list(range(5)))[0]
    assert det["rule"] == "deterministic" and det["interval"] is None and det["verdict"] == "direction"
    # a claim marked deterministic whose value moves with the seed is decided by the interval
    moved = aggregate_claims([[_claim("a", v, deterministic=True)] for v in (1.0, -1.0, 1.0)], seeds=[0, 1, 2])[0]
    assert moved["rule"] == "t" and moved["verdict"] == "inconclusive"
    sat = aggregate_claims([[_claim("a", 1.0, op="<", bound=2.0)] for _ in range(5)], seeds=list(range(5)))[0]
    assert sat["saturated"] and sat["interval"] == [1.0, 1.0] and sat["verdict"] == "direction"
    one = aggregate_claims([[_claim("a", 0.4)]], seeds=[0])[0]
    assert one["rule"] == "one seed" and one["interval"] is None and one["verdict"] == "direction"


def test_not_runnable_and_not_computable_seeds_do_not_count():
    nan = dict(_claim("a", 0.0), value=None, verdict="not computable", holds=None, why="the measured value is nan",
               reason="the measured value is nan")
    runs = [[nan]] + [[_claim("a", v, why="what a failure would mean")] for v in (0.1, 0.12, 0.11, 0.13)]
    (rec,) = aggregate_claims(runs, seeds=[0, 1, 2, 3, 4])
    assert rec["verdict"] == "direction" and rec["why"] == "what a failure would mean" and rec["reason"] is None
    assert seeds_ran(rec["seeds"]) == 4 and rec["n"] == 4 and rec["seeds"]["held"] == 4
    off = {"id": "b", "verdict": "not runnable offline", "value": None, "holds": None}
    (rec,) = aggregate_claims([[off], [off]], seeds=[0, 1])
    assert rec["verdict"] == "not runnable offline" and rec["rule"] is None


def test_claims_recorded_at_some_seeds_only_keep_their_order():
    runs = [[_claim("a", 1.0), _claim("b", 1.0)], [_claim("c", 1.0), _claim("a", 2.0)]]
    recs = aggregate_claims(runs, seeds=[0, 1])
    assert [r["id"] for r in recs] == ["a", "b", "c"]
    assert recs[1]["seeds"]["values"] == [1.0, None]


def test_bad_input():
    with pytest.raises(ValueError, match="runs and seeds"):
        aggregate_claims([[]], seeds=[0, 1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.floats(-1, 1, allow_nan=False)), min_size=2, max_size=2),
                min_size=1, max_size=6),
       st.integers(1, 5))
def test_a_record_split_into_its_seeds_and_extended_equals_the_whole(values, cut):
    """seed_runs inverts aggregate_claims: aggregating the first seeds, splitting the
    record and adding the remaining runs gives the record of all seeds at once."""
    def run(row):
        return [_claim(cid, v, rule="resampled-t" if cid == "b" else "t", test_fraction=0.2 if cid == "b" else None,
                       baseline=-0.5 if cid == "b" else None)
                for cid, v in zip("ab", row) if v is not None]

    runs = [run(row) for row in values]
    seeds = list(range(10, 10 + len(runs)))
    cut = min(cut, len(runs))
    whole = aggregate_claims(runs, seeds)
    first = aggregate_claims(runs[:cut], seeds[:cut])
    split = seed_runs({"seeds": seeds[:cut], "claims": first})
    assert split is not None and split[0] == seeds[:cut]
    assert aggregate_claims(split[1] + runs[cut:], seeds) == whole


def test_a_claim_whose_guard_fails_does_not_count():
    def run(gap, acc):
        return [_claim("f.gap", gap, op="<", bound=0.05, evidence=["f.gap-guard"]),
                _claim("f.gap-guard", acc, op=">", bound=0.0, verdict="reproduced")]

    held = aggregate_claims([run(0.01, 0.1), run(0.02, 0.12), run(0.0, 0.11)], seeds=[0, 1, 2])
    assert held[0]["verdict"] == "direction" and held[0]["guard_failed"] is None
    # the model predicts one class: the gap is zero and the guard fails at every seed
    trivial = aggregate_claims([run(0.0, -0.1), run(0.0, -0.12), run(0.0, -0.11)], seeds=[0, 1, 2])
    assert trivial[1]["verdict"] == "not reproduced"
    assert trivial[0]["verdict"] == "not reproduced" and trivial[0]["guard_failed"] == ["f.gap-guard"]


def test_an_identity_holds_where_it_holds_at_every_seed():
    ok = aggregate_claims([[_compound("a", True) | {"identity": True}] for _ in range(3)], seeds=[0, 1, 2])[0]
    assert ok["verdict"] == "reproduced" and ok["rule"] == "identity" and ok["interval"] is None
    bad = aggregate_claims([[_compound("a", h) | {"identity": True}] for h in (True, False, True)], seeds=[0, 1, 2])[0]
    assert bad["verdict"] == "not reproduced"
