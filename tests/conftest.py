"""Shared pytest configuration for lupikit's test suite."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root():
    """The repository's top folder."""
    return ROOT
