"""The four margin losses of the paper's Figure 1, as functions of ``u = y f(x)``.

All take the margin ``u`` (array-like) and return the loss elementwise.
"""

import numpy as np

__all__ = ["linear_loss", "hinge_loss", "quadratic_loss", "pinball_loss"]


def linear_loss(u):
    """Linear loss ``1 - u`` (unbounded below).

    Examples
    --------
    >>> from lupikit.twinsvm import linear_loss
    >>> linear_loss([0.0, 2.0]).tolist()
    [1.0, -1.0]
    """
    return 1.0 - np.asarray(u, dtype=float)


def hinge_loss(u):
    """Hinge loss ``max(0, 1 - u)``.

    Examples
    --------
    >>> from lupikit.twinsvm import hinge_loss
    >>> hinge_loss([0.0, 2.0]).tolist()
    [1.0, 0.0]
    """
    return np.maximum(0.0, 1.0 - np.asarray(u, dtype=float))


def quadratic_loss(u):
    """Quadratic (least-squares) loss ``(1 - u)^2``.

    Examples
    --------
    >>> from lupikit.twinsvm import quadratic_loss
    >>> quadratic_loss([0.0, 2.0]).tolist()
    [1.0, 1.0]
    """
    return (1.0 - np.asarray(u, dtype=float)) ** 2


def pinball_loss(u, tau=0.5):
    """Pinball loss ``1 - u`` if ``u <= 1`` else ``tau (u - 1)``.

    Equation (2) of the paper: ``max(1 - u, -tau (1 - u))``; ``tau = 0`` is
    the hinge loss, ``tau = 1`` the absolute loss ``|1 - u|``.

    Examples
    --------
    >>> from lupikit.twinsvm import pinball_loss
    >>> pinball_loss([0.0, 3.0], tau=0.5).tolist()
    [1.0, 1.0]
    """
    if not 0.0 <= tau <= 1.0:
        raise ValueError(f"tau={tau!r} must lie in [0, 1].")
    r = 1.0 - np.asarray(u, dtype=float)
    return np.maximum(r, -tau * r)
