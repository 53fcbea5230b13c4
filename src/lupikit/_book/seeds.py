"""Verdicts across seeds: one claim record from the runs of a notebook at several seeds (private).

``lupikit paper --seeds N`` runs each notebook at its paper preset with the
seeds ``seed, seed + 1, ..., seed + N - 1`` and records, per claim, how many of
the runs it held in and the spread of its value. A claim keeps its verdict
(``"reproduced"`` or ``"direction"``) only when it holds at a stated majority
of the seeds, :data:`MAJORITY` (four of five); otherwise it is
``"not reproduced"``, with the fraction shown beside it. A statistical claim
checked with ``pool="mean"`` is decided instead by the mean of its values
over the seeds (their splits pooled into one estimate), one checked with
``pool="ttest"`` by a one-sided t-test of the seeds' values against its
threshold.

This module drives no notebook and imports no part of the library.

Examples
--------
>>> runs = [[{"id": "a.gap", "value": v, "holds": v > 0, "verdict": "direction" if v > 0
...           else "not reproduced", "expected": True}] for v in (0.2, 0.1, -0.1, 0.3, 0.25)]
>>> record = aggregate_claims(runs, seeds=[0, 1, 2, 3, 4])[0]
>>> record["seeds"]["held"], record["seeds"]["n"], record["verdict"]
(4, 5, 'direction')
"""

import json
import math
import numbers
import statistics

from ..claims import HELD, OPS, UNMEASURED  # the comparisons a claim may state, as the claim was checked

__all__ = ["MAJORITY", "POOLED_LEVEL", "aggregate_claims", "majority_verdict", "seeds_ran", "seed_runs"]

#: A claim holds across seeds when it holds at least at this fraction of them.
MAJORITY = 0.8

_CARRIED = ("id", "statement", "paper_value", "threshold", "source", "section", "expected", "reason",
            "relation", "how", "why", "evidence", "deterministic", "explained_in")


def _is_number(value):
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and math.isfinite(float(value)))


def seeds_ran(seeds):
    """How many seeds ran a claim's check (not "not computable" nor "not runnable offline") of a record's ``seeds``."""
    verdicts = seeds.get("verdicts")
    if verdicts is None:
        n, held, fraction = seeds.get("n"), seeds.get("held"), seeds.get("fraction")
        return round(held / fraction) if fraction and held else n
    return sum(1 for v in verdicts if v is not None and v not in UNMEASURED)


def majority_verdict(verdicts, held, n, majority=MAJORITY):
    """The verdict over ``n`` seeds, given each seed's verdict and how many held.

    A claim that could not be run offline (or not computed) at every seed
    keeps that verdict; otherwise it keeps its verdict when it held at
    ``majority`` of the seeds that ran, and is ``"not reproduced"`` else.
    """
    if not 0.5 < majority <= 1.0:
        raise ValueError(f"majority must be in (0.5, 1], got {majority!r}.")
    special = [v for v in verdicts if v in UNMEASURED]
    ran = n - len(special)
    if ran == 0:
        return max(set(special), key=special.count)
    if held >= math.ceil(majority * ran - 1e-9):
        good = [v for v in verdicts if v in HELD]
        # a claim whose check is the paper's own and holds is "reproduced" at every seed it holds
        return max(set(good), key=good.count) if good else "not reproduced"
    return "not reproduced"


def aggregate_claims(runs, seeds, majority=MAJORITY):
    """One record per claim from the claim records of several runs.

    Parameters
    ----------
    runs : list of list of dict
        The claim records of each run (as :func:`lupikit.claims.read_claims`
        returns them), one list per seed, in the order of ``seeds``.
    seeds : list of int
        The seed of each run.
    majority : float, default=MAJORITY
        The fraction of seeds at which a claim must hold to keep its verdict.

    Returns
    -------
    records : list of dict
        In the order the claims first appear. Each has the fields of a claim
        record; ``value`` is the median of the numeric values (the first
        seed's value if they are not numbers), ``verdict`` the majority
        verdict, and ``seeds`` a dict with ``n`` (runs that recorded the
        claim), ``held``, ``fraction``, ``values``, ``verdicts`` and
        ``holds`` (one per seed, None where the claim was not recorded),
        ``median``, ``min``, ``max`` and ``sd`` (numeric values only) and
        ``identical`` (the value was the same at every seed). A claim pooled
        over the seeds (``pool="mean"``) takes as ``value`` the mean of the
        values, compared with its threshold for the verdict (``pool="ttest"``:
        tested against it), and its ``seeds`` say ``pooled``, ``mean`` and
        ``p`` (the test's p-value, or None).
    """
    if len(runs) != len(seeds):
        raise ValueError(f"runs and seeds differ in length ({len(runs)} and {len(seeds)}).")
    order, by_id = [], {}
    for k, records in enumerate(runs):
        for r in records:
            if r["id"] not in by_id:
                order.append(r["id"])
                by_id[r["id"]] = [None] * len(runs)
            by_id[r["id"]][k] = r
    out = []
    for claim_id in order:
        per_seed = by_id[claim_id]
        present = [r for r in per_seed if r is not None]
        # the fields carried over (why, reason, ...) from the first seed that could run the check
        first = next((r for r in present if r["verdict"] not in UNMEASURED),
                     present[0])
        verdicts = [r["verdict"] for r in present]
        # the seeds where the paper's condition held (for a claim the book shows
        # failing, expect=False, these are the seeds where the book's text is wrong)
        held = sum(1 for r in present if r.get("holds") is True)
        values = [None if r is None else r.get("value") for r in per_seed]
        numeric = [float(v) for v in values if _is_number(v)]
        record = {key: first.get(key) for key in _CARRIED}
        if numeric:
            value = statistics.median(numeric)
        else:
            value = first.get("value")
        verdict = majority_verdict(verdicts, held, len(present), majority)
        ran = sum(1 for v in verdicts if v not in UNMEASURED)
        pooled = _pooled(present, numeric)
        if pooled is not None:
            # a statistical claim: the mean over the seeds pools their splits into one estimate
            value, holds_pooled, p_pooled = pooled
            verdict = first.get("held_verdict", "reproduced") if holds_pooled else "not reproduced"
        record.update(
            value=value, verdict=verdict,
            seeds={
                "n": len(present), "held": held,
                "fraction": round(held / ran, 4) if ran else None,
                "seeds": [s for s, r in zip(seeds, per_seed) if r is not None],
                "values": values,
                "verdicts": [None if r is None else r["verdict"] for r in per_seed],
                "holds": [None if r is None else r.get("holds") for r in per_seed],
                "median": statistics.median(numeric) if numeric else None,
                # (and what the verdict compares, so that more seeds can be added later)
                **({"pooled": first.get("pool"), "mean": value, "p": p_pooled, "op": first.get("op"),
                    "bound": first.get("bound"), "held_verdict": first.get("held_verdict")}
                   if pooled is not None else {}),
                "min": min(numeric) if numeric else None,
                "max": max(numeric) if numeric else None,
                "sd": statistics.stdev(numeric) if len(numeric) > 1 else None,
                # the same value at every seed that recorded one (a deterministic
                # claim must have it; any other claim then did not feel the seed)
                "identical": len(present) > 1 and len({json.dumps(r.get("value")) for r in present}) == 1,
            })
        out.append(record)
    return out


#: The level of the one-sided test of a claim pooled with ``pool="ttest"``.
POOLED_LEVEL = 0.05


def _pooled(present, numeric):
    """``(mean, holds, p)`` for a claim pooled over the seeds, or None.

    ``pool="mean"`` compares the mean of the seeds' values with the
    threshold (``p`` is None). ``pool="ttest"`` tests it: the seeds' values
    are independent replicates (each seed draws its own data or splits), and
    the claim holds when a one-sided one-sample t-test of them against the
    threshold, in the direction of ``op``, is significant at
    :data:`POOLED_LEVEL`. None unless every seed that ran the check asked for
    the same pooling and compared its value with a threshold, and at least
    two measured a number.
    """
    ran = [r for r in present if r["verdict"] not in UNMEASURED]
    pools = {r.get("pool") for r in ran}
    if len(numeric) < 2 or len(pools) != 1 or pools == {None}:
        return None
    pool = pools.pop()
    op, bound = ran[0].get("op"), ran[0].get("bound")
    if op not in OPS or not _is_number(bound):
        return None
    mean = statistics.fmean(numeric)
    if pool == "mean":
        return mean, bool(OPS[op](mean, float(bound))), None
    if pool == "ttest" and op in ("<", "<=", ">", ">="):
        from scipy import stats

        if statistics.pstdev(numeric) == 0:  # no spread: the test degenerates to the comparison
            return mean, bool(OPS[op](mean, float(bound))), None
        side = "greater" if op in (">", ">=") else "less"
        p = float(stats.ttest_1samp(numeric, float(bound), alternative=side).pvalue)
        return mean, p < POOLED_LEVEL, p
    return None


def seed_runs(record):
    """The seeds of a recorded result and each seed's claim records, or None.

    The inverse of :func:`aggregate_claims` for what a verdict needs (value,
    verdict and whether the paper's condition held, per seed), so that a
    record can be extended by more seeds without running its seeds again.
    A record of one seed always can be; one of several seeds needs the
    per-seed ``verdicts`` and ``holds`` that :func:`aggregate_claims` stores.

    Parameters
    ----------
    record : dict
        A paper-scale result (``seeds`` and ``claims`` are read).

    Returns
    -------
    (seeds, runs) or None
        ``runs`` as :func:`aggregate_claims` takes them; None where the
        record does not hold the per-seed verdicts.

    Examples
    --------
    >>> runs = [[{"id": "a", "value": v, "holds": v > 0, "verdict": "direction" if v > 0
    ...           else "not reproduced"}] for v in (0.2, -0.1)]
    >>> claims = aggregate_claims(runs, seeds=[0, 1])
    >>> seeds, again = seed_runs({"seeds": [0, 1], "claims": claims})
    >>> seeds, [r[0]["verdict"] for r in again]
    ([0, 1], ['direction', 'not reproduced'])
    """
    seeds = [int(s) for s in record.get("seeds") or []]
    claims = record.get("claims") or []
    if not seeds:
        return None
    runs = [[] for _ in seeds]
    for claim in claims:
        spread = claim.get("seeds") or {}
        values = spread.get("values")
        if values is None or len(values) != len(seeds):
            return None
        verdicts, holds = spread.get("verdicts"), spread.get("holds")
        if verdicts is None or holds is None:
            if len(seeds) != 1:
                return None
            # one seed: the record's verdict is that seed's verdict
            verdicts, holds = [claim["verdict"]], [bool(spread.get("held"))]
        base = {key: claim.get(key) for key in _CARRIED}
        if spread.get("pooled"):
            base.update(pool=spread["pooled"], op=spread.get("op"), bound=spread.get("bound"),
                        held_verdict=spread.get("held_verdict"))
        for k, verdict in enumerate(verdicts):
            if verdict is not None:
                runs[k].append(dict(base, value=values[k], verdict=verdict, holds=holds[k]))
    return seeds, runs
