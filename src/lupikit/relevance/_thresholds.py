"""Noise thresholds of Section 3.3: Student-t prediction intervals."""

import numbers

import numpy as np
from scipy import stats

__all__ = ["prediction_interval", "classify_relevance"]

#: Absolute tolerance (in normalised relevance units) below which a bound is
#: not considered to exceed a noise threshold; of the order of the LP
#: solver's feasibility tolerance.
TOL = 1e-6


def prediction_interval(values, p=0.999):
    r"""Two-sided Student-t prediction interval for one new draw.

    For a sample :math:`\pi_1, \dots, \pi_n` with mean :math:`\bar\pi` and
    standard deviation :math:`s` (``ddof=1``), a new independent draw from the
    same normal population lies with probability ``p`` in

    .. math::

        \Pi = \bar\pi \pm t_{(1+p)/2,\, n-1}\; s \sqrt{1 + 1/n}.

    Parameters
    ----------
    values : array-like of shape (n,)
        The sample (``n >= 2``); NaN entries are ignored.
    p : float, default=0.999
        Coverage probability, in (0, 1).

    Returns
    -------
    low, high : float
        The interval.

    Examples
    --------
    >>> from lupikit.relevance import prediction_interval
    >>> low, high = prediction_interval([1.0, 2.0, 3.0], p=0.9)
    >>> round(low, 4), round(high, 4)
    (-1.3717, 5.3717)
    """
    if not isinstance(p, numbers.Real) or isinstance(p, bool) or not 0 < p < 1:
        raise ValueError(f"p must lie strictly between 0 and 1, got {p!r}.")
    v = np.asarray(values, dtype=float).ravel()
    v = v[~np.isnan(v)]
    n = v.size
    if n < 2:
        raise ValueError(f"values needs at least 2 non-NaN samples, got {n}.")
    mean = v.mean()
    s = v.std(ddof=1)
    half = stats.t.ppf(0.5 * (1 + p), df=n - 1) * s * np.sqrt(1 + 1 / n)
    return float(mean - half), float(mean + half)


def classify_relevance(intervals, pi_min, pi_max, tol=TOL):
    """Classify features from their bounds and the two noise intervals.

    The rules of Section 3.3: a bound is *outside* its noise interval when it
    exceeds the upper end (a relevance below the noise range cannot indicate
    relevance). Then

    - strongly relevant (2): maxrel outside Pi(maxrel) and minrel outside Pi(minrel);
    - weakly relevant (1): maxrel outside Pi(maxrel) and minrel inside Pi(minrel);
    - irrelevant (0): maxrel inside Pi(maxrel) (the paper lists the case
      with minrel also inside; a minrel above its noise range with maxrel
      inside its own is not covered by the paper and is reported as 0).

    Parameters
    ----------
    intervals : ndarray of shape (d, 2)
        ``[minrel, maxrel]`` per feature.
    pi_min, pi_max : tuple of float
        Prediction intervals ``(low, high)`` of the noise populations.
    tol : float
        Absolute tolerance added to the upper ends.

    Returns
    -------
    classes : ndarray of int of shape (d,)

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.relevance import classify_relevance
    >>> classify_relevance(np.array([[0.3, 0.5], [0.0, 0.4], [0.0, 0.01]]),
    ...                    (0.0, 0.0), (0.0, 0.05)).tolist()
    [2, 1, 0]
    """
    intervals = np.asarray(intervals, dtype=float)
    above_max = intervals[:, 1] > pi_max[1] + tol
    above_min = intervals[:, 0] > pi_min[1] + tol
    out = np.zeros(intervals.shape[0], dtype=int)
    out[above_max] = 1
    out[above_max & above_min] = 2
    return out
