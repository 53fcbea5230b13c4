"""Shared helpers of the property-based tests (the profiles live in ``tests/conftest.py``)."""

from hypothesis import settings

__all__ = ["examples"]


def examples(cost, suppress=()):
    """``settings`` for a property whose examples cost about ``cost`` cheap ones: the
    profile's example count divided by ``cost`` (at least 3), so that expensive
    solvers stay within CI's time and ``LUPIKIT_HYPOTHESIS=slow`` still scales them up.
    ``suppress``: health checks to suppress besides the profile's."""
    base = settings.default
    return settings(max_examples=max(3, base.max_examples // cost),
                    suppress_health_check=list(base.suppress_health_check) + list(suppress))
