"""Soft asserts: under ``LUPIKIT_SOFT_ASSERTS`` a notebook's failed ``assert`` is recorded, not raised.

``lupikit run`` and ``sweep`` set it so that every claim after a failed
assertion of the notebook's own code is still evaluated (lupikit._book.harness).
"""

import nbformat
import pytest

from lupikit._book.execute import execute
from lupikit._book.harness import kernel_environment, read_failed_asserts
from lupikit.claims import read_claims

CELLS = [
    "from lupikit.claims import Claims\nclaims = Claims('toy/soft', display=False)\nx = 3",
    "assert x > 5, f'x is only {x}'\ny = x + 1",
    "def helper(v):\n    assert v < 0\n    return v\n\nz = helper(2)\nassert z == 2",
    "assert x == 3  # holds: no output",
    "claims.check('toy.after', 'Evaluated after the failed asserts', y, '==', 4, paper='4')",
]


def _notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    nbformat.write(nb, str(path))
    return path


@pytest.fixture
def harness(tmp_path, monkeypatch):
    env = kernel_environment(tmp_path / "ipython")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("LUPIKIT_CLAIMS", "record")
    return tmp_path


def test_failed_asserts_are_recorded_and_the_run_goes_on(harness, monkeypatch):
    monkeypatch.setenv("LUPIKIT_SOFT_ASSERTS", "1")
    src = _notebook(harness / "soft.ipynb")
    seconds, error = execute(src, harness / "out.ipynb", {})
    assert error is None
    failed = read_failed_asserts(harness / "out.ipynb")
    # the message is evaluated only for a failure; asserts inside functions of the cells count too
    assert failed == [
        {"cell": 2, "check": "x > 5", "message": "x is only 3"},
        {"cell": 3, "check": "v < 0", "message": None},
    ]
    (claim,) = read_claims(harness / "out.ipynb")
    assert claim["id"] == "toy.after" and claim["holds"] is True


def test_without_the_flag_an_assert_stops_the_run(harness, monkeypatch):
    monkeypatch.delenv("LUPIKIT_SOFT_ASSERTS", raising=False)
    src = _notebook(harness / "hard.ipynb")
    seconds, error = execute(src, harness / "out.ipynb", {})
    assert error is not None and error.startswith("AssertionError") and "x is only 3" in error
    assert read_claims(harness / "out.ipynb") == []
    assert read_failed_asserts(harness / "out.ipynb") == []
