"""Shared pytest configuration for lupikit's test suite.

Property-based tests (``hypothesis``) run under a fixed profile: derandomised
(the same examples on every run, so CI is deterministic), no example database
written to disk, no deadline (a solver's time varies under CI's load), and a
bounded number of examples. ``LUPIKIT_HYPOTHESIS=slow`` selects the slow
profile, which draws many more examples (run it before resolving a change to a
solver)::

    LUPIKIT_HYPOTHESIS=slow pytest -m property -n 2 tests
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]

_COMMON = dict(derandomize=True, database=None, deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.filter_too_much])
#: The default: a few examples per property, deterministic, fast enough for CI.
settings.register_profile("ci", max_examples=15, **_COMMON)
#: ``LUPIKIT_HYPOTHESIS=slow``: many more examples (minutes per property); their number
#: can be set with ``LUPIKIT_HYPOTHESIS_EXAMPLES`` (default 300).
settings.register_profile("slow", max_examples=int(os.environ.get("LUPIKIT_HYPOTHESIS_EXAMPLES",
                                                                  300)), **_COMMON)
settings.load_profile(os.environ.get("LUPIKIT_HYPOTHESIS", "ci"))


@pytest.fixture(scope="session")
def repo_root():
    """The repository's top folder."""
    return ROOT


@pytest.fixture(autouse=True, scope="module")
def _collect_the_modules_garbage():
    """Collect each test module's garbage at its end, so that a later test does not see it.

    The book machinery's worker threads (``lupikit paper``, sweeps, runs from
    the served pages) run nbclient, whose ``run_sync`` leaves an event loop per
    thread for the collector; collected later, inside another module's test,
    it would warn there (``unclosed event loop``). The grader's threads close
    theirs (``lupikit.classroom._execution``); until the book's do too, only
    those warnings are dropped here, and anything else left unclosed still
    warns.
    """
    import gc
    import sys

    yield
    hook = sys.unraisablehook

    def quiet(unraisable):
        if "unclosed event loop" not in str(unraisable.exc_value):
            hook(unraisable)

    sys.unraisablehook = quiet
    try:
        gc.collect()
    finally:
        sys.unraisablehook = hook
