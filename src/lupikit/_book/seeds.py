"""Verdicts across seeds: one claim record from the runs of a notebook at several seeds (private).

``lupikit paper --seeds N`` runs each notebook at its paper preset with the
seeds ``0, 1, ..., N - 1`` (each the entropy of the notebook's own
:class:`numpy.random.SeedSequence`, whose spawned children draw its
replications: the runs at two seeds share no draw), and records, per claim,
its value at every seed and one verdict from **one decision rule**:

- a claim whose value does not depend on the seed (``deterministic``) is one
  measurement: its verdict is that of its check;
- an identity (a book check that cannot fail short of a bug) is no
  statistical finding: it holds where it holds at every seed;
- a claim compared with a threshold is decided by a 95 % interval
  (:data:`lupikit._book.intervals.LEVEL`) of its mean over the seeds, the
  interval the claim declares (``rule``: ``"t"`` for independent
  replications, ``"resampled-t"`` for re-splits of the same rows,
  ``"binomial"`` for a count): wholly on the side the claim states, the
  claim keeps its verdict (``"reproduced"`` or ``"direction"``); wholly on the
  other side, ``"not reproduced"``; across the threshold, ``"inconclusive"``.
  A claim that a value is high and that carries a trivial model's
  ``baseline`` is held to the larger of its threshold and the baseline's mean;
- a claim checked as a compound condition (``holds``) is decided by the exact
  interval of the share of seeds at which it holds, against one half.

"Held at k of n" stays beside the verdict as information; ``p`` is the
one-sided p-value of the test that the interval inverts (the null: the claim
does not hold), for a correction for multiplicity on the scorecard.

This module drives no notebook and imports no part of the library.

Examples
--------
>>> runs = [[{"id": "a.gap", "value": v, "holds": v > 0, "verdict": "direction" if v > 0
...           else "not reproduced", "op": ">", "bound": 0.0, "rule": "t", "held_verdict": "direction"}]
...         for v in (0.2, 0.1, 0.15, 0.3, 0.25)]
>>> record = aggregate_claims(runs, seeds=[0, 1, 2, 3, 4])[0]
>>> record["verdict"], record["rule"], record["n"], [round(b, 3) for b in record["interval"]]
('direction', 't', 5, [0.102, 0.298])
"""

import json
import math
import numbers
import statistics

from ..claims import HELD, OPS, UNMEASURED  # the comparisons a claim may state, as the claim was checked
from .intervals import LEVEL, binomial_interval, decide, interval, p_value

__all__ = ["GUARD_SUFFIX", "LEVEL", "aggregate_claims", "decidable", "seeds_ran", "seed_runs", "undecided"]

_CARRIED = ("id", "statement", "paper_value", "threshold", "source", "section", "expected", "reason",
            "relation", "how", "why", "evidence", "deterministic", "explained_in", "identity", "looser",
            "paper_estimate")
#: what a claim's check declared, kept per record so that more seeds can be added later
_DECLARED = ("op", "bound", "rule", "held_verdict", "test_fraction", "trials")
_ONE_SIDED = ("<", "<=", ">", ">=")


def _is_number(value):
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and math.isfinite(float(value)))


def seeds_ran(seeds):
    """How many seeds ran a claim's check (not "not computable" nor "not runnable offline") of a record's ``seeds``."""
    verdicts = seeds.get("verdicts")
    if verdicts is None:  # (a record made before the per-seed verdicts: its fraction says how many ran)
        n, held, fraction = seeds.get("n"), seeds.get("held"), seeds.get("fraction")
        return round(held / fraction) if fraction and held else n
    return sum(1 for v in verdicts if v is not None and v not in UNMEASURED)


def undecided(record):
    """The ids of a record's claims whose verdict is ``"inconclusive"`` (more seeds may decide them)."""
    return [c["id"] for c in record.get("claims", []) if c.get("verdict") == "inconclusive"]


def decidable(claim, n_seeds):
    """Whether ``n_seeds`` seeds could decide an inconclusive claim at its mean and spread today.

    The interval the claim's rule would give at ``n_seeds`` seeds if its
    mean and standard deviation over the seeds stayed what they are (for a
    count or a share: its proportion) is set against the threshold: where
    even that interval straddles it, more seeds up to ``n_seeds`` are not
    expected to decide the claim. This matters for the corrected resampled
    t, whose variance ``(1 / J + n_test / n_train) s^2`` does not fall below
    ``n_test / n_train s^2`` however many seeds ``J`` run. A claim this
    cannot project (no numbers, an equality) counts as decidable.

    Parameters
    ----------
    claim : dict
        A claim of a record (:func:`aggregate_claims`).
    n_seeds : int
        The seeds it could have (the cap).

    Returns
    -------
    bool

    Examples
    --------
    >>> claim = {"verdict": "inconclusive", "rule": "t", "baseline": None, "seeds": {
    ...     "values": [0.5, -0.1, 0.4, 0.0, 0.3], "op": ">", "bound": 0.0, "rule": "t"}}
    >>> decidable(claim, 20)
    True
    >>> claim["seeds"].update(rule="resampled-t", test_fraction=0.2)
    >>> decidable(claim, 20)
    False
    """
    from scipy import stats

    s = claim.get("seeds") or {}
    op, bound, rule = s.get("op"), s.get("bound"), s.get("rule")
    values = [float(v) for v in s.get("values") or [] if _is_number(v)]
    n = int(n_seeds)
    if claim.get("rule") == "binomial-share":  # a compound condition: the share of seeds at which it held
        held = [h for h in s.get("holds") or [] if h is not None]
        share = sum(1 for h in held if h is True) / max(1, len(held))
        low, high = binomial_interval(round(share * n), n)[1:]
        return not low <= 0.5 <= high
    if op not in _ONE_SIDED or not _is_number(bound) or len(values) < 2:
        return True
    bound = float(bound)
    if _is_number(claim.get("baseline")) and op in (">", ">="):
        bound = max(bound, float(claim["baseline"]))
    mean, sd = statistics.fmean(values), statistics.stdev(values)
    if rule == "binomial" and s.get("trials"):
        trials = int(s["trials"]) * n
        share = mean / float(s["trials"])
        low, high = (x * float(s["trials"]) for x in binomial_interval(round(share * trials), trials)[1:])
    else:
        ratio = 0.0
        if rule == "resampled-t" and s.get("test_fraction"):
            ratio = float(s["test_fraction"]) / (1.0 - float(s["test_fraction"]))
        half = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1)) * sd * math.sqrt(1.0 / n + ratio)
        low, high = mean - half, mean + half
    return decide((low, high), op, bound) != "inconclusive"


def _held_verdict(first, ran):
    verdict = first.get("held_verdict")
    if verdict in HELD:
        return verdict
    good = [r["verdict"] for r in ran if r["verdict"] in HELD]
    return max(set(good), key=good.count) if good else "reproduced"


def _decide(ran, numeric, baselines, first):
    """``(verdict word, estimate, [low, high], p, rule)`` of the claim over the seeds that ran it."""
    op, bound, rule = first.get("op"), first.get("bound"), first.get("rule") or "t"
    if op in OPS and _is_number(bound) and len(numeric) == len(ran) and len(numeric) >= 2:
        bound = float(bound)
        if baselines and op in (">", ">="):  # a trivial model's score on the same rows must be cleared too
            bound = max(bound, statistics.fmean(baselines))
        if op in _ONE_SIDED:
            estimate, low, high = interval(rule, numeric, test_fraction=first.get("test_fraction"),
                                           trials=first.get("trials"))
            p = p_value(rule, numeric, op, bound, test_fraction=first.get("test_fraction"),
                        trials=first.get("trials"))
            if rule == "binomial":  # the interval of the proportion, on the count's scale
                trials = float(first["trials"])
                estimate, low, high = estimate * trials, low * trials, high * trials


            return decide((low, high), op, bound), estimate, [low, high], p, rule
        # equal (or not): the whole interval must be the bound itself
        estimate, low, high = interval("t", numeric)
        inside = low <= bound <= high
        exact = low == high == bound
        word = ("holds" if exact else "inconclusive" if inside else "does not hold")
        if op == "!=":
            word = {"holds": "does not hold", "does not hold": "holds"}.get(word, word)
        return word, estimate, [low, high], None, "t"
    # a compound condition (or a value that is not a number): the share of seeds at which it held
    held = sum(1 for r in ran if r.get("holds") is True)
    share, low, high = binomial_interval(held, len(ran))
    from scipy import stats

    p = float(stats.binomtest(held, len(ran), 0.5, alternative="greater").pvalue)
    word = "holds" if low > 0.5 else "does not hold" if high < 0.5 else "inconclusive"
    return word, share, [low, high], p, "binomial-share"


def aggregate_claims(runs, seeds):
    """One record per claim from the claim records of several runs.

    Parameters
    ----------
    runs : list of list of dict
        The claim records of each run (as :func:`lupikit.claims.read_claims`
        returns them), one list per seed, in the order of ``seeds``.
    seeds : list of int
        The seed of each run.

    Returns
    -------
    records : list of dict
        In the order the claims first appear. Each has the fields of a claim
        record and ``value`` (the estimate over the seeds: the mean of a value
        compared with a threshold, the median of another number, or the first
        seed's value), ``verdict`` (the rule's), ``rule`` (``"deterministic"``,
        ``"identity"``, ``"t"``, ``"resampled-t"``, ``"binomial"``, ``"binomial-share"`` for
        the share of seeds at which a compound condition held, ``"one seed"``
        where one seed ran the check, or None where none could), ``level``, ``n`` (the seeds that ran
        the check), ``interval`` (``[low, high]``, or None), ``p`` (one-sided,
        or None), ``saturated`` (a value that depends on the seed in
        principle but was the same at every seed), ``baseline`` (the mean
        of a trivial model's scores, or None), and ``seeds``: ``n``,
        ``held``, ``seeds``, ``values``, ``verdicts``, ``holds`` and
        ``baselines`` (one per seed, None where the claim was not recorded),
        ``median``, ``min``, ``max``, ``sd``, ``identical`` and what the
        check declared (``op``, ``bound``, ``rule``, ``held_verdict``,
        ``test_fraction``, ``trials``). ``guard_failed`` names the claim's
        guards that do not hold (a held verdict then does not count: it is
        ``"not reproduced"``), or is None.
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
        ran = [r for r in present if r["verdict"] not in UNMEASURED]
        # the fields carried over (why, reason, ...) from the first seed that could run the check
        first = ran[0] if ran else present[0]
        # the seeds where the paper's condition held (for a claim the book shows
        # failing, expect=False, these are the seeds where the book's text is wrong)
        held = sum(1 for r in ran if r.get("holds") is True)
        values = [None if r is None else r.get("value") for r in per_seed]
        numeric = [float(r["value"]) for r in ran if _is_number(r.get("value"))]
        baselines = [float(r["baseline"]) for r in ran if _is_number(r.get("baseline"))]
        identical = len(present) > 1 and len({json.dumps(r.get("value")) for r in present}) == 1
        record = {key: first.get(key) for key in _CARRIED}
        value = statistics.median(numeric) if numeric else first.get("value")
        interval_, p, rule, saturated = None, None, None, False
        if not ran:
            verdicts = [r["verdict"] for r in present]
            verdict = max(set(verdicts), key=verdicts.count)
        elif first.get("deterministic") and len({json.dumps(r.get("value")) for r in ran}) == 1:
            # one measurement: a value that does not depend on the seed
            verdict, rule = first["verdict"], "deterministic"
        elif first.get("identity"):
            # an identity (a check that cannot fail short of a bug) is no statistical finding: it must
            # hold at every seed that ran it
            verdict = _held_verdict(first, ran) if held == len(ran) else "not reproduced"
            rule = "identity"
        elif len(ran) == 1:
            # one seed ran the check: its verdict, with no interval
            verdict, rule = first["verdict"], "one seed"
        else:
            # (a claim marked deterministic whose value moved with the seed is decided like the others)
            word, estimate, interval_, p, rule = _decide(ran, numeric, baselines, first)
            verdict = {"holds": _held_verdict(first, ran), "does not hold": "not reproduced",
                       "inconclusive": "inconclusive"}[word]
            if rule != "binomial-share":
                value = estimate
            saturated = identical and not first.get("deterministic")
        record.update(
            value=value, verdict=verdict, rule=rule, level=LEVEL if interval_ is not None else None,
            n=len(ran), interval=interval_, p=p, saturated=bool(saturated),
            baseline=statistics.fmean(baselines) if baselines else None,
            seeds={
                "n": len(present), "held": held,
                "seeds": [s for s, r in zip(seeds, per_seed) if r is not None],
                "values": values,
                "verdicts": [None if r is None else r["verdict"] for r in per_seed],
                "holds": [None if r is None else r.get("holds") for r in per_seed],
                "baselines": [None if r is None else r.get("baseline") for r in per_seed],
                "median": statistics.median(numeric) if numeric else None,
                "min": min(numeric) if numeric else None,
                "max": max(numeric) if numeric else None,
                "sd": statistics.stdev(numeric) if len(numeric) > 1 else None,
                # the same value at every seed that recorded one (a deterministic
                # claim must have it; any other claim is then saturated)
                "identical": identical,
                **{key: first.get(key) for key in _DECLARED},
            })
        out.append(record)
    return _guarded(out)


#: A claim whose id ends so guards the claims that list it in their evidence (see :func:`_guarded`).
GUARD_SUFFIX = "-guard"


def _guarded(records):
    """A held verdict counts only where the claim's guards hold.

    A guard (a claim whose id ends in :data:`GUARD_SUFFIX`, listed in another
    claim's ``evidence``) checks that a model does not buy a result with a
    trivial prediction (a fairness gap of zero by predicting one class). Where
    a guard of the same notebook is not held, the claim it guards is ``"not
    reproduced"``, its ``guard_failed`` naming the guards.
    """
    by_id = {r["id"]: r for r in records}
    for r in records:
        guards = [e for e in r.get("evidence") or [] if e.endswith(GUARD_SUFFIX) and e in by_id]
        failed = [g for g in guards if by_id[g]["verdict"] not in HELD]
        r["guard_failed"] = failed or None
        if failed and r["verdict"] in HELD + ("inconclusive",):
            r["verdict"] = "not reproduced"
    return records


def seed_runs(record):
    """The seeds of a recorded result and each seed's claim records, or None.

    The inverse of :func:`aggregate_claims` for what a verdict needs (value,
    verdict, whether the check held, the baseline, and what the check
    declared), so that a record can be extended by more seeds without
    running its seeds again.

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
            return None
        baselines = spread.get("baselines") or [None] * len(seeds)
        base = {key: claim.get(key) for key in _CARRIED}
        base.update({key: spread.get(key) for key in _DECLARED})
        for k, verdict in enumerate(verdicts):
            if verdict is not None:
                runs[k].append(dict(base, value=values[k], verdict=verdict, holds=holds[k],
                                    baseline=baselines[k]))
    return seeds, runs
