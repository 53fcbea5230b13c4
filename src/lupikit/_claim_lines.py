"""How the ``lupikit`` command prints a run's claims: a line per claim and a tally per run.

This module imports no part of the library.
"""

from pathlib import Path

from .claims import _fmt, read_claims


def _unexpected(record):
    """Whether a claim's outcome is not the one the book states (what raise mode raises on)."""
    if record.get("holds") is None:
        return False
    return bool(record["holds"]) != bool(record.get("expected", True))


def _claims_line(executed):
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
    measured = f"measured {_fmt(record['value'])}{need}"
    if record.get("expected") is False:
        if record["holds"]:
            return (f"✘ {record['id']}: {measured} — holds, though the book states it does not "
                    "(the book's text would be wrong here)")
        return f"✔ {record['id']}: {measured} — not reproduced, as the book states"
    mark = "✔" if record.get("holds") else "✘"
    return f"{mark} {record['id']}: {measured} — {_VERDICT_WORDS.get(verdict, verdict)}"
