"""No page types a number that a record computes: the prose renders it with the ``result`` role.

A typed number in the book's Markdown (and the notebooks' Markdown cells),
outside roles, math, code and links, is an error when it equals, at the
precision it is typed, a value that a paper-scale record of the same part
computed (a claim's value, its interval, a seed's value, a trivial model's
score), unless it is the paper's own (it appears in the paper's text, or is
one minus such a number: an accuracy given as an error), a constant of the
method (a claim's threshold, a run's parameter) or a reference to a section,
table, equation or figure. The papers' texts are read from ``../shared/papers``
(or ``LUPIKIT_PAPERS``); without them the test is skipped, since a paper's
own number could not be told from ours.
"""

import json
import math
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAPERS = Path(os.environ.get("LUPIKIT_PAPERS", ROOT.parent / "shared" / "papers"))
#: what is not prose: roles, inline code, math, fenced blocks, link targets
_NOT_PROSE = re.compile(r"\{[a-z-]+\}`[^`]*`|`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|```.*?```|\]\([^)]*\)", re.S)
_NUMBER = re.compile(r"(?<![\w.])-?(\d+\.\d+)(\s*%)?(?![\w.])")
_REFERENCE = re.compile(r"(sec\.?|section|table|eq\.?|equation|figure|fig\.?|§|algorithm|version|v|\()\s*$")
#: a size of a file or a package, not a result
_SIZE = re.compile(r"\s*(KB|MB|GB|KiB|MiB|GiB)\b")


def _is_real(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _records():
    """``{part: [(value, claim id)]}`` of the records' computed non-integer values, and the allowed constants."""
    computed, allowed = {}, set()
    for path in sorted((ROOT / "results" / "paper").rglob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        part = path.parent.name
        for value in record.get("parameters", {}).values():
            for v in value if isinstance(value, list) else [value]:
                if _is_real(v):
                    allowed.add(float(v))
        for claim in record["claims"]:
            if _is_real(claim.get("bound")):
                allowed.add(float(claim["bound"]))
            allowed.update(float(m) for m in re.findall(r"\d+\.\d+", str(claim.get("threshold") or "")))
            for v in claim.get("paper_estimate") or []:
                if _is_real(v):
                    allowed.update({float(v), round(1 - float(v), 10)})
            seeds = claim.get("seeds") or {}
            values = [claim.get("value"), claim.get("baseline"), *(claim.get("interval") or []),
                      *(seeds.get("values") or []), seeds.get("min"), seeds.get("max")]
            computed.setdefault(part, []).extend(
                (float(v), claim["id"]) for v in values if _is_real(v) and float(v) != round(float(v)))
    return computed, allowed


def _prose(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown")
    return _NOT_PROSE.sub(" ", text)


def _pages():
    pages = [p for p in sorted((ROOT / "book").rglob("*.md")) if "_generated" not in p.parts]
    return pages + sorted((ROOT / "notebooks").rglob("*.ipynb"))


def _typed(text, part, computed, allowed, paper_numbers):
    for m in _NUMBER.finditer(text):
        if _REFERENCE.search(text[max(0, m.start() - 12):m.start()].lower()) or _SIZE.match(text, m.end()):
            continue
        typed, percent = m.group(1), bool(m.group(2))
        x, digits = float(typed), len(typed.split(".")[1])
        if typed in paper_numbers or x in allowed or round(1 - x, 10) in {float(p) for p in paper_numbers
                                                                          if p.startswith("0.")}:
            continue
        for value, claim_id in computed.get(part, []):
            if round(value * (100 if percent else 1), digits) == x:
                yield f"{typed}{'%' if percent else ''} (= {claim_id}: {value:.6g})"
                break


def test_the_check_finds_a_typed_value_and_passes_a_rendered_one():
    computed = {"x": [(0.0312, "x.gap"), (0.8712, "x.acc")]}
    text = "moves by less than 0.03, with accuracy 87.1 % (Section 3.3), a 0.87 MB wheel and the paper's 0.95"
    found = list(_typed(_NOT_PROSE.sub(" ", text + " and {result}`x/a:x.gap` $0.03$"), "x", computed, set(),
                        {"0.95"}))
    assert found == ["0.03 (= x.gap: 0.0312)", "87.1% (= x.acc: 0.8712)"]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_types_a_number_a_record_computes(page):
    if not PAPERS.is_dir():
        pytest.skip(f"the papers' texts are not at {PAPERS} (set LUPIKIT_PAPERS): a paper's own number "
                    "could not be told from ours")
    paper_numbers = set(re.findall(r"\d+\.\d+", " ".join(p.read_text(encoding="utf-8", errors="replace")
                                                           for p in PAPERS.glob("*.txt"))))
    computed, allowed = _records()
    part = page.parent.name
    typed = list(_typed(_prose(page), part, computed, allowed, paper_numbers))
    assert not typed, (f"{page.relative_to(ROOT)} types numbers a record computes (render them with "
                       "{result}`<part>/<name>:<claim id>[:<field>]`): " + "; ".join(typed))
