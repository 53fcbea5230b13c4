"""A claim's outcome in a run, and the lines that tell it: per claim, per run, per failed assert.

The ``lupikit`` command prints these lines; ``lupikit paper`` and ``lupikit
sweep`` report progress with them. This module imports no part of the library.
"""

from pathlib import Path

from ..claims import UNMEASURED, format_value, read_claims

__all__ = ["assert_lines", "claim_line", "claim_outcome", "claims_line", "run_outcome_line", "unexpected"]


def unexpected(record):
    """Whether a claim's outcome is not the one the book states (what raise mode raises on)."""
    if record.get("holds") is None:
        return False
    return bool(record["holds"]) != bool(record.get("expected", True))


def claims_line(executed):
    """``12 claims: 9 reproduced, 3 direction`` for an executed notebook or its claim records."""
    records = read_claims(executed) if isinstance(executed, (str, Path)) else executed
    if not records:
        return "no claims recorded"
    counts = {}
    for r in records:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    line = f"{len(records)} claims: " + ", ".join(f"{n} {v}" for v, n in counts.items())
    expected = [r for r in records if r.get("expected") is False and r.get("holds") is False]
    if expected:
        line += f" ({len(expected)} not reproduced as the book states)"
    return line


_VERDICT_WORDS = {"reproduced": "reproduced", "direction": "reproduced in direction (not in size)",
                  "not reproduced": "not reproduced"}


def claim_line(record):
    """One line for a claim: a mark, the id, the measured value, the threshold and the verdict."""
    verdict = record.get("verdict")
    if verdict == "not runnable offline":
        return f"– {record['id']}: not runnable offline — {record.get('reason') or record.get('threshold')}"
    if verdict == "not computable":  # the threshold holds the reason and the condition
        return f"? {record['id']}: not computable — {record.get('threshold') or record.get('reason')}"
    need = f", needs {record['threshold']}" if record.get("threshold") else ""
    measured = f"measured {format_value(record['value'])}{need}"
    if record.get("expected") is False:
        if record["holds"]:
            return (f"✘ {record['id']}: {measured} — holds, though the book states it does not "
                    "(the book's text would be wrong here)")
        return f"✔ {record['id']}: {measured} — not reproduced, as the book states"
    mark = "✔" if record.get("holds") else "✘"
    return f"{mark} {record['id']}: {measured} — {_VERDICT_WORDS.get(verdict, verdict)}"


def claim_outcome(record):
    """``"held"``, ``"failed"``, ``"not computable"`` or ``"not runnable offline"``.

    Whether the paper's condition held in the run (whatever the book expects of
    it: a claim the book shows failing is ``"failed"`` when it fails).
    """
    if record.get("holds") is None:
        verdict = record.get("verdict")
        return verdict if verdict in UNMEASURED else "not computable"
    return "held" if record["holds"] else "failed"


def run_outcome_line(records, error):
    """``4 claims: 3 held, 1 failed (id)`` for a sweep's progress line."""
    counts, failed = {}, []
    for r in records:
        outcome = claim_outcome(r)
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome == "failed":
            failed.append(r["id"])
    order = ("held", "failed", "not computable", "not runnable offline")
    line = f"{len(records)} claims: " + ", ".join(f"{counts[o]} {o}" for o in order if o in counts) \
        if records else "no claims recorded"
    if failed:
        line += f" ({', '.join(failed[:3])}{', ...' if len(failed) > 3 else ''})"
    if error:
        line += f"; a cell raised {error.splitlines()[0]}"
    return line


def assert_lines(failed):
    """One line per failed ``assert`` of the notebook's own code (from ``harness.read_failed_asserts``)."""
    return [f"✘ assertion of the notebook (cell {f['cell']}): assert {f['check']}"
            + (f", {f['message']}" if f["message"] else "") + " — failed, the run went on"
            for f in failed]
