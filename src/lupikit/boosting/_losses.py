"""The KL-regularised log-loss of KbPIB/JPIB: value, gradient and hessian.

Per example :math:`i` with one-hot label :math:`Y_i`, student probabilities
:math:`p_i = \\mathrm{softmax}(F_i)` (binary: :math:`p_i = \\sigma(F_i)`) and
teacher (privileged) probabilities :math:`q_i`,

.. math::

    \\ell_i(F_i) = -\\log p_{i, y_i} + \\alpha \\, \\mathrm{KL}(q_i \\,\\|\\, p_i),

whose negative gradient with respect to the raw score of class :math:`k` is
:math:`(Y_{ik} - p_{ik}) - \\alpha (p_{ik} - q_{ik})` and whose diagonal
hessian is :math:`(1 + \\alpha) p_{ik} (1 - p_{ik})`.

Raw scores are "tree space": shape ``(n, 1)`` for two classes (the log-odds of
class 1) and ``(n, K)`` for ``K > 2`` classes. The functions are also exported
as :func:`lupikit.boosting.privileged_loss` and friends for the notebooks.
"""

import numpy as np
from scipy.special import expit, log_expit, logsumexp, xlogy

__all__ = [
    "raw_to_proba",
    "privileged_loss",
    "privileged_negative_gradient",
    "privileged_hessian",
]


def _as_2d(raw):
    raw = np.asarray(raw, dtype=np.float64)
    if raw.ndim == 1:
        raw = raw.reshape(-1, 1)
    if raw.ndim != 2:
        raise ValueError(f"raw must be 1-D or 2-D, got shape {raw.shape}.")
    return raw


def raw_to_proba(raw):
    """Class probabilities of shape ``(n, K)`` from tree-space raw scores.

    Parameters
    ----------
    raw : array-like of shape (n,), (n, 1) or (n, K)
        Log-odds of class 1 (binary) or softmax scores (``K > 2``).

    Returns
    -------
    proba : ndarray of shape (n, 2) or (n, K)

    Examples
    --------
    >>> from lupikit.boosting import raw_to_proba
    >>> raw_to_proba([0.0]).tolist()
    [[0.5, 0.5]]
    """
    raw = _as_2d(raw)
    if raw.shape[1] == 1:
        p1 = expit(raw[:, 0])
        return np.column_stack([1.0 - p1, p1])
    return np.exp(raw - logsumexp(raw, axis=1, keepdims=True))


def _tree_space_proba(raw):
    """Probabilities of the columns that carry trees: (n, 1) or (n, K)."""
    if raw.shape[1] == 1:
        return expit(raw)
    return np.exp(raw - logsumexp(raw, axis=1, keepdims=True))


def _check_inputs(raw, Y, teacher_proba):
    raw = _as_2d(raw)
    n, k = raw.shape
    K = 2 if k == 1 else k
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = np.eye(K)[Y.astype(int)]
    Y = np.asarray(Y, dtype=np.float64)
    if Y.shape != (n, K):
        raise ValueError(f"Y must have shape ({n}, {K}) (one-hot), got {Y.shape}.")
    if teacher_proba is None:
        Q = None
    else:
        Q = np.asarray(teacher_proba, dtype=np.float64)
        if Q.ndim == 1 and K == 2:
            Q = np.column_stack([1.0 - Q, Q])
        if Q.shape != (n, K):
            raise ValueError(
                f"teacher_proba must have shape ({n}, {K}), got {Q.shape}."
            )
    return raw, Y, Q


def privileged_loss(raw, Y, teacher_proba=None, alpha=1.0):
    """Per-example objective ``NLL + alpha * KL(teacher || student)``.

    Parameters
    ----------
    raw : array-like of shape (n,), (n, 1) or (n, K)
        Student raw scores (tree space, see the module docstring).
    Y : array-like of shape (n,) or (n, K)
        Integer labels ``0..K-1`` or one-hot labels (soft labels also work).
    teacher_proba : array-like of shape (n, K) or (n,), default=None
        Teacher probabilities ``q`` (binary: ``P(y=1)`` may be given as 1-D).
        ``None`` means no KL term.
    alpha : float, default=1.0
        Weight of the KL term.

    Returns
    -------
    loss : ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.boosting import privileged_loss
    >>> round(float(privileged_loss([0.0], [1])[0]), 6)  # log 2
    0.693147
    >>> float(privileged_loss([0.0], [1], [0.5], alpha=3.0)[0]) == float(np.log(2))
    True
    """
    raw, Y, Q = _check_inputs(raw, Y, teacher_proba)
    if raw.shape[1] == 1:
        logp = np.column_stack([log_expit(-raw[:, 0]), log_expit(raw[:, 0])])
    else:
        logp = raw - logsumexp(raw, axis=1, keepdims=True)
    loss = -(Y * logp).sum(axis=1)
    if Q is not None and alpha != 0:
        loss = loss + alpha * (xlogy(Q, Q) - Q * logp).sum(axis=1)
    return loss


def privileged_negative_gradient(raw, Y, teacher_proba=None, alpha=1.0):
    """Negative gradient ``(Y - p) - alpha (p - q)`` in tree space.

    Parameters
    ----------
    raw, Y, teacher_proba, alpha
        As in :func:`privileged_loss`.

    Returns
    -------
    neg_gradient : ndarray of shape (n, 1) (binary) or (n, K)
        Minus the derivative of each example's loss with respect to its raw
        score(s). For two classes only the class-1 column is returned.

    Examples
    --------
    >>> from lupikit.boosting import privileged_negative_gradient
    >>> privileged_negative_gradient([0.0], [1], [1.0], alpha=1.0).tolist()
    [[1.0]]
    """
    raw, Y, Q = _check_inputs(raw, Y, teacher_proba)
    P = _tree_space_proba(raw)
    cols = slice(1, 2) if raw.shape[1] == 1 else slice(None)
    g = Y[:, cols] - P
    if Q is not None and alpha != 0:
        g = g - alpha * (P - Q[:, cols])
    return g


def privileged_hessian(raw, alpha=1.0):
    """Diagonal hessian ``(1 + alpha) p (1 - p)`` in tree space.

    Exact for two classes; for ``K > 2`` classes it is the diagonal of the
    softmax hessian, the usual Newton approximation (Friedman, 2001).

    Examples
    --------
    >>> from lupikit.boosting import privileged_hessian
    >>> privileged_hessian([0.0], alpha=1.0).tolist()
    [[0.5]]
    """
    raw = _as_2d(raw)
    P = _tree_space_proba(raw)
    return (1.0 + alpha) * P * (1.0 - P)
