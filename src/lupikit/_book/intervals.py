"""Confidence intervals for a claim's value over the seeds, and the verdict they give (private).

One decision rule for every numeric claim that depends on the seed: the
estimate over the seeds with a two-sided interval at :data:`LEVEL`, and the
verdict follows where the interval lies against the claim's threshold:

- wholly on the side the claim states: the claim holds;
- wholly on the other side: it does not;
- across the threshold: **inconclusive**.

Which interval depends on what a seed replicates (:data:`RULES`):

``"t"``
    Each seed draws its own data (independent replications): Student's t
    interval of the mean, ``mean +- t_{J-1} s / sqrt(J)``.
``"resampled-t"``
    Each seed re-splits the same rows into training and test parts: the
    seeds' values are correlated through the shared rows, and the t
    interval is too narrow. The corrected resampled t of Nadeau and Bengio
    (2003, *Machine Learning* 52) widens the variance of the mean from
    ``s^2 / J`` to ``(1 / J + n_test / n_train) s^2``.
``"binomial"``
    The value is a count of successes out of ``n`` (data sets on which a
    model wins, say): the exact (Clopper-Pearson) interval of the proportion
    from the successes pooled over the seeds.

The intervals come from :mod:`scipy.stats`.

Examples
--------
>>> low, high = t_interval([0.61, 0.64, 0.58, 0.66, 0.63])[1:]
>>> round(low, 3), round(high, 3)
(0.586, 0.662)
>>> decide((low, high), ">", 0.5), decide((low, high), ">", 0.62), decide((low, high), "<", 0.5)
('holds', 'inconclusive', 'does not hold')
"""

import math

import numpy as np

__all__ = ["LEVEL", "RULES", "binomial_interval", "decide", "interval", "p_value", "resampled_t_interval",
           "t_interval"]

#: The two-sided level of every interval.
LEVEL = 0.95

#: The intervals a claim may declare, by what a seed replicates.
RULES = ("t", "resampled-t", "binomial")


def _mean_sd(values):
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise ValueError(f"values must be at least two finite numbers, got {values!r}.")
    return float(x.mean()), float(x.std(ddof=1)), x.size


def _t_around(mean, se, df, level):
    from scipy import stats

    if se <= 1e-14 * max(1.0, abs(mean)):  # no spread beyond rounding: the interval is the point
        return mean, mean, mean
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return mean, mean - half, mean + half


def t_interval(values, level=LEVEL):
    """``(mean, low, high)``: Student's t interval of the mean of independent replications.

    Parameters
    ----------
    values : sequence of float
        One value per seed (at least two).
    level : float, default=LEVEL

    Returns
    -------
    mean, low, high : float
    """
    mean, sd, n = _mean_sd(values)
    return _t_around(mean, sd / math.sqrt(n), n - 1, level)


def resampled_t_interval(values, test_fraction, level=LEVEL):
    """``(mean, low, high)``: the corrected resampled t interval (Nadeau and Bengio, 2003).

    For values that re-split the same rows, a fraction ``test_fraction`` of
    them held out each time: the variance of the mean is
    ``(1 / J + n_test / n_train) s^2`` with ``J`` values.

    Parameters
    ----------
    values : sequence of float
    test_fraction : float
        The held-out share of the rows, in (0, 1).
    level : float, default=LEVEL

    Returns
    -------
    mean, low, high : float
    """
    if not 0.0 < float(test_fraction) < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}.")
    mean, sd, n = _mean_sd(values)
    ratio = float(test_fraction) / (1.0 - float(test_fraction))
    return _t_around(mean, sd * math.sqrt(1.0 / n + ratio), n - 1, level)


def binomial_interval(successes, trials, level=LEVEL):
    """``(proportion, low, high)``: the exact (Clopper-Pearson) interval of a proportion.

    Parameters
    ----------
    successes, trials : int
        Counts pooled over the seeds (``0 <= successes <= trials``, ``trials >= 1``).
    level : float, default=LEVEL

    Returns
    -------
    proportion, low, high : float
    """
    from scipy import stats

    k, n = int(successes), int(trials)
    if n < 1 or not 0 <= k <= n or k != successes or n != trials:
        raise ValueError(f"need integers 0 <= successes <= trials, trials >= 1; got {successes!r}, {trials!r}.")
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return k / n, float(ci.low), float(ci.high)


def interval(rule, values, *, test_fraction=None, trials=None, level=LEVEL):
    """``(estimate, low, high)`` of a claim's values over the seeds under ``rule``.

    ``"binomial"`` reads each value as a count of successes out of
    ``trials`` (per seed) and pools them.
    """
    if rule == "t":
        return t_interval(values, level)
    if rule == "resampled-t":
        return resampled_t_interval(values, test_fraction, level)
    if rule == "binomial":
        if trials is None:
            raise ValueError("the binomial rule needs trials (the count's maximum per seed).")
        return binomial_interval(int(round(sum(values))), int(trials) * len(values), level)
    raise ValueError(f"rule must be one of {list(RULES)}, got {rule!r}.")


def decide(bounds, op, threshold):
    """``"holds"``, ``"does not hold"`` or ``"inconclusive"``: an interval against a threshold.

    ``op`` is the claim's comparison (``>``, ``>=``, ``<``, ``<=``): the
    claim holds when the whole interval satisfies it, does not when no point
    of it does, and is inconclusive when the interval straddles the
    threshold. An interval that touches the threshold with a strict ``op``
    is inconclusive.
    """
    low, high = float(bounds[0]), float(bounds[1])
    if low > high:
        raise ValueError(f"bounds must be (low, high) with low <= high, got {bounds!r}.")
    t = float(threshold)
    if op in (">", ">="):
        holds = low > t if op == ">" else low >= t
        fails = high <= t if op == ">" else high < t
    elif op in ("<", "<="):
        holds = high < t if op == "<" else high <= t
        fails = low >= t if op == "<" else low > t
    else:
        raise ValueError(f"op must be one of '>', '>=', '<', '<=', got {op!r}.")
    return "holds" if holds else "does not hold" if fails else "inconclusive"


def p_value(rule, values, op, threshold, *, test_fraction=None, trials=None):
    """The one-sided p-value of the test that :func:`interval` inverts, against the claim.

    The null hypothesis is that the claim does not hold: for ``op`` ``">"``
    or ``">="`` that the mean (or proportion) is at most ``threshold``, for
    ``"<"`` or ``"<="`` at least. Small values support the claim; the
    scorecard corrects them for multiplicity (Benjamini-Hochberg).

    Parameters
    ----------
    rule : {"t", "resampled-t", "binomial"}
    values : sequence of float
        One value per seed (for ``"binomial"``, a count out of ``trials``).
    op : {">", ">=", "<", "<="}
    threshold : float
        On the values' scale (for ``"binomial"``, a count out of ``trials``).

    Returns
    -------
    p : float

    Examples
    --------
    >>> round(p_value("t", [0.61, 0.64, 0.58, 0.66, 0.63], ">", 0.5), 5)
    0.00041
    >>> p_value("t", [0, 0, 0], "<=", 0), p_value("t", [0, 0, 0], "<", 0)
    (0.0, 1.0)
    """
    from scipy import stats

    if op not in (">", ">=", "<", "<="):
        raise ValueError(f"op must be one of '>', '>=', '<', '<=', got {op!r}.")
    greater = op in (">", ">=")
    if rule == "binomial":
        if trials is None:
            raise ValueError("the binomial rule needs trials (the count's maximum per seed).")
        k, n = int(round(sum(values))), int(trials) * len(values)
        share = min(max(float(threshold) / float(trials), 0.0), 1.0)
        return float(stats.binomtest(k, n, share, alternative="greater" if greater else "less").pvalue)
    if rule not in ("t", "resampled-t"):
        raise ValueError(f"rule must be one of {list(RULES)}, got {rule!r}.")
    mean, sd, n = _mean_sd(values)
    scale = 1.0 / n
    if rule == "resampled-t":
        if not 0.0 < float(test_fraction) < 1.0:
            raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}.")
        scale += float(test_fraction) / (1.0 - float(test_fraction))
    se = sd * math.sqrt(scale)
    t = float(threshold)
    if se <= 1e-14 * max(1.0, abs(mean)):  # no spread: the comparison itself (>= and <= include t)
        holds = {">": mean > t, ">=": mean >= t, "<": mean < t, "<=": mean <= t}[op]
        return 0.0 if holds else 1.0
    z = (mean - t) / se
    return float(stats.t.sf(z, n - 1) if greater else stats.t.cdf(z, n - 1))
