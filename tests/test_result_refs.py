"""Every number the book's prose takes from the records resolves against this checkout's ``results/``.

The book build fails on an unresolved reference too; this test finds it in a
second, without executing the notebooks. A claim that a stale record lacks
but the notebook's source checks is pending ("not yet recorded at the paper
preset"), not an error.
"""

import json
import re
from pathlib import Path

import pytest

from lupikit._book.result_text import ResultError, resolve, resolve_table
from lupikit._book.sphinx_results import pending

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
ROLE = re.compile(r"\{result\}`([^`]+)`")
TABLE = re.compile(r"\{result-table\}\s+(\S+)")
CLAIMS = re.compile(r"\{claims-table\}\s+(\S+)\n(?::[a-z-]+:[^\n]*\n)*?:ids:\s*([^\n]+)")


def _prose(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        cells = json.loads(text)["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return text


PAGES = sorted([*ROOT.glob("book/**/*.md"), *ROOT.glob("notebooks/**/*.ipynb")])
PAGES = [p for p in PAGES if "_generated" not in p.parts and ".ipynb_checkpoints" not in p.parts]


def test_the_book_has_references_to_check():
    assert sum(len(ROLE.findall(_prose(p))) for p in PAGES) >= 20


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_reference_resolves(page):
    text = _prose(page)
    bad = []
    for ref in ROLE.findall(text):
        try:
            resolve(ref, RESULTS)
        except ResultError as error:
            parts = ref.split(":")
            if not (len(parts) >= 2 and "/" in parts[0] and pending(RESULTS, parts[0], parts[1])):
                bad.append(f"{ref}: {error}")
    for ref in TABLE.findall(text):
        try:
            resolve_table(ref, RESULTS)
        except ResultError as error:
            bad.append(f"{ref}: {error}")
    for short, ids in CLAIMS.findall(text):
        record = json.loads((RESULTS / "paper" / f"{short}.json").read_text(encoding="utf-8"))
        have = {c["id"] for c in record["claims"]}
        bad += [f"{short}:{i} (claims-table)" for i in (x.strip() for x in ids.split(","))
                if i and i not in have and not pending(RESULTS, short, i)]
    assert not bad, "unresolved references:\n" + "\n".join(bad)
