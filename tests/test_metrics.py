import inspect
import itertools

import numpy as np
import pytest

from lupikit import metrics


def brute_force_beta(y, s):
    """e_beta by enumerating every pair of values, as in Eq. (14)."""
    y, s = np.asarray(y), np.asarray(s)
    total = 0.0
    for a, b in itertools.product(np.unique(y), np.unique(s)):
        p_joint = np.mean((y == a) & (s == b))
        total += abs(p_joint - np.mean(y == a) * np.mean(s == b))
    return total / 2


def test_beta_dependence_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        s = rng.integers(0, 3, 200)
        y = (rng.random(200) < 0.3 + 0.2 * s).astype(int)
        assert metrics.beta_dependence(y, s) == pytest.approx(brute_force_beta(y, s), abs=1e-12)


def test_beta_dependence_bounds():
    # independent by construction (every combination equally often): 0
    y = np.array([0, 1] * 50)
    s = np.repeat([0, 1], 50)
    assert metrics.beta_dependence(y, s) == 0.0
    # Y = S with balanced binary S: 1/2 * 4 * |1/2 - 1/4| = 1/2
    assert metrics.beta_dependence(s, s) == pytest.approx(0.5)


def test_beta_dependence_string_groups_and_columns():
    y = [1, 0, 1, 0]
    assert metrics.beta_dependence(y, ["a", "a", "b", "b"]) == 0.0
    assert metrics.beta_dependence(y, np.array([[0], [0], [1], [1]])) == 0.0


def test_beta_dependence_paper_scale():
    """scale="paper": the sum without the factor 1/2 (the authors' code, Table 1)."""
    rng = np.random.default_rng(1)
    for _ in range(10):
        s = rng.integers(0, 2, 300)
        y = np.where(rng.random(300) < 0.3 + 0.3 * s, 1.0, -1.0)
        half = metrics.beta_dependence(y, s)
        # the default is unchanged (Eq. 14 with its 1/2) ...
        assert half == pytest.approx(brute_force_beta(y, s), abs=1e-12)
        assert metrics.beta_dependence(y, s, scale="mixing") == half
        # ... and the paper's scale is the plain sum of |P(y, s) - P(y) P(s)|
        paper = metrics.beta_dependence(y, s, scale="paper")
        assert paper == pytest.approx(2 * brute_force_beta(y, s), abs=1e-12)
        assert paper == pytest.approx(2 * half, abs=1e-15)
    # Y = S, balanced: 4 * |1/2 - 1/4| = 1 on the paper's scale
    s = np.repeat([0, 1], 50)
    assert metrics.beta_dependence(s, s, scale="paper") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="scale"):
        metrics.beta_dependence(s, s, scale="half")


def test_demographic_parity_difference():
    y_pred = np.array([1, 1, 1, 0, 0, 0, 1, 0])
    s = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    # P(1|s=0) = 3/4, P(1|s=1) = 1/4
    assert metrics.demographic_parity_difference(y_pred, s) == pytest.approx(0.5)


def test_equal_opportunity_and_equalized_odds():
    y_true = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    y_pred = np.array([1, 1, 1, 0, 1, 0, 0, 0])
    s = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    # TPR: group 0 = 1, group 1 = 1/2; FPR: group 0 = 1/2, group 1 = 0
    assert metrics.deo(y_true, y_pred, s) == pytest.approx(0.5)
    assert metrics.equal_opportunity_difference(y_true, y_pred, s) == pytest.approx(0.5)
    assert metrics.equalized_odds_difference(y_true, y_pred, s) == pytest.approx(0.5)
    y_pred2 = np.array([1, 1, 1, 1, 1, 1, 0, 0])  # TPR equal, FPR gap 1
    assert metrics.equalized_odds_difference(y_true, y_pred2, s) == pytest.approx(1.0)


def test_ordinal_metrics():
    y_true = np.array([1, 1, 1, 2, 3, 3])
    y_pred = np.array([1, 2, 3, 2, 3, 1])
    assert metrics.mean_zero_one_error(y_true, y_pred) == pytest.approx(3 / 6)
    assert metrics.mean_absolute_error(y_true, y_pred) == pytest.approx((0 + 1 + 2 + 0 + 0 + 2) / 6)
    # per rank: r=1 -> (0+1+2)/3 = 1, r=2 -> 0, r=3 -> (0+2)/2 = 1
    assert metrics.macro_averaged_mae(y_true, y_pred) == pytest.approx(2 / 3)


def test_metric_input_errors():
    with pytest.raises(ValueError, match="y_true has 3 samples but y_pred has 2"):
        metrics.mean_absolute_error([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="sensitive_features must have one value per sample"):
        metrics.beta_dependence([0, 1, 0], [0, 1])


@pytest.mark.parametrize("name", metrics.__all__)
def test_every_metric_rejects_empty_input_clearly(name):
    """Empty input is a ValueError saying so, not an error from inside numpy."""
    f = getattr(metrics, name)
    sig = inspect.signature(f)
    n_args = sum(1 for p in sig.parameters.values()
                 if p.default is inspect.Parameter.empty and p.kind == p.POSITIONAL_OR_KEYWORD)
    with pytest.raises(ValueError, match="empty"):
        f(*([np.array([])] * n_args))
