"""Shared pytest configuration for lupikit's test suite.

Property-based tests (``hypothesis``) run under a fixed profile: derandomised
(the same examples on every run, so CI is deterministic), no example database
written to disk, no deadline (a solver's time varies under CI's load), and a
bounded number of examples. ``LUPIKIT_HYPOTHESIS=slow`` selects the slow
profile, which draws many more examples (run it before resolving a change to a
solver)::

    LUPIKIT_HYPOTHESIS=slow pytest -m property -n 2 tests
"""

import contextlib
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


@contextlib.contextmanager
def _book_lock(shared):
    """The built book's lock: shared while a test serves or reads it, exclusive while a build rewrites it."""
    import fcntl

    build = ROOT / "_build"
    build.mkdir(exist_ok=True)
    with open(build / ".book-build.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def book_lock():
    """``book_lock(shared)``: a context manager holding the built book's lock (see :func:`built_book`)."""
    return _book_lock


@pytest.fixture(scope="session")
def built_book():
    """The executed book, built once per test run: ``_build/html``.

    The build is ``make book``'s: with Chromium here it prints the book's
    PDF too, and every page links it. Several test modules read it (the
    book's pages, the served book in a browser, the PDF) and pytest-xdist may
    run them on different workers at once: the first to come builds it under
    an exclusive lock and marks it built for this test run; a module that
    serves it holds the lock shared meanwhile (``book_lock(True)``), and
    anything that would rebuild it takes the lock exclusive
    (``book_lock(False)``).
    """
    import subprocess
    import sys
    import time

    build = ROOT / "_build"
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
    marker = build / f".book-built-{run}"
    if marker.is_file():
        return build / "html"
    with _book_lock(shared=False):
        if not marker.is_file():
            for old in build.glob(".book-built-*"):
                old.unlink()
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "lupikit._book", "build", "--jobs", "2"], cwd=ROOT,
                                  capture_output=True, text=True)
            log = proc.stdout + proc.stderr
            (build / "book-build.log").write_text(log)
            print(f"book build: {time.perf_counter() - t0:.1f} s")
            assert proc.returncode == 0, "book build failed:\n" + log[-20000:]
            marker.write_text("built\n")
    return build / "html"


@pytest.fixture(scope="session")
def repo_root():
    """The repository's top folder."""
    return ROOT
