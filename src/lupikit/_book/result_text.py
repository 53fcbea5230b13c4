"""Numbers in the book's prose, read from the records under ``results/`` (private).

A page never types a number of a recorded run: it names the record, and the
book renders the value (:mod:`lupikit._book.sphinx_results` gives the roles).
Two kinds of records:

- a paper-scale claim, ``"<part>/<name>:<claim id>[:<field>]"``, read from
  ``results/paper/<part>/<name>.json`` (written by ``lupikit paper``);
  fields: ``value`` (the default: the estimate over the seeds), ``min``,
  ``max``, ``range`` (``"0.07 to 0.36"``, or the one value), ``held``
  (``"4/5"``), ``n`` (seeds), ``verdict``, ``relation``, ``paper`` (the
  paper's value, in words), ``why``, ``interval`` (``"0.05 to 0.12"``: the
  95 % interval over the seeds), ``rule``, ``p``, ``baseline``,
  ``paper_mean`` and ``relative_error`` (ours against the paper's mean,
  ``"-3.2 %"``, where the claim records the paper's mean); and of the
  record's run, ``"<part>/<name>:@<field>"``: ``@seconds`` (per seed),
  ``@seeds``, ``@machine``, ``@date``, ``@commit``;
- a benchmark, ``"bench:<name>:<key>"``, read from
  ``results/benchmarks/<name>.json`` (written by ``benchmarks/bench_<name>.py``):
  a key of its ``values``, or ``@machine``, ``@date``, ``@command``,
  ``@load`` (the machine's load average at the run's start and end),
  ``@versions.<package>``; a table, ``"bench:<name>:<table>"``, of its
  ``tables``.

A reference that does not resolve raises :class:`ResultError` (the book
build turns it into a warning, and the build's tests fail on warnings).

Examples
--------
>>> record = {"claims": [{"id": "a.gap", "value": 0.2, "verdict": "direction",
...            "seeds": {"n": 5, "held": 4, "fraction": 0.8, "min": 0.07, "max": 0.36}}]}
>>> claim_field(record, "a.gap", "range"), claim_field(record, "a.gap", "held")
('0.07 to 0.36', '4/5')
>>> bench_field({"values": {"ratio": 0.8123}, "executed_at": "2026-12-03T10:00:00+00:00"}, "ratio")
'0.8123'
"""

import json
from pathlib import Path

from ..claims import HELD, UNMEASURED
from .markdown import fmt
from .seeds import seeds_ran

__all__ = ["CLAIM_FIELDS", "RECORD_FIELDS", "ResultError", "record_field", "bench_field", "bench_table", "claim_field", "find_results",
           "resolve", "resolve_table"]

#: The fields of a claim that a page may show.
CLAIM_FIELDS = ("value", "min", "max", "range", "held", "n", "verdict", "relation", "paper", "why", "interval",
                "rule", "p", "baseline", "paper_mean", "relative_error")


class ResultError(LookupError):
    """A reference to a recorded value that does not resolve (the message says why)."""


def find_results(start):
    """The ``results`` folder at ``start`` or in one of its parents, or None."""
    start = Path(start).resolve()
    for d in (start, *start.parents):
        if (d / "results").is_dir():
            return d / "results"
    return None


def _load(path, what):
    if not path.is_file():
        raise ResultError(f"{what}: no record {path.parent.name}/{path.name}")
    return json.loads(path.read_text(encoding="utf-8"))


def claim_field(record, claim_id, field="value"):
    """One field of a claim of a paper-scale record, as text."""
    if field not in CLAIM_FIELDS:
        raise ResultError(f"unknown field {field!r} of a claim (known: {', '.join(CLAIM_FIELDS)})")
    claim = next((c for c in record.get("claims", []) if c["id"] == claim_id), None)
    if claim is None:
        raise ResultError(f"the record has no claim {claim_id!r}")
    seeds = claim.get("seeds") or {}
    if field == "value":
        return fmt(claim.get("value"))
    if field in ("min", "max"):
        return fmt(seeds.get(field, claim.get("value")))
    if field == "range":
        lo, hi = seeds.get("min"), seeds.get("max")
        if lo is None or hi is None:
            return fmt(claim.get("value"))
        return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)} to {fmt(hi)}"
    if field == "held":
        if claim.get("verdict") in UNMEASURED:
            return "–"  # nothing was measured
        if not seeds:
            return "1/1" if claim.get("verdict") in HELD else "0/1"
        return f"{seeds.get('held')}/{seeds_ran(seeds)}"
    if field == "n":
        return str(claim.get("n") or seeds.get("n", 1))
    if field == "interval":
        bounds = claim.get("interval")
        return "–" if not bounds else f"{fmt(bounds[0])} to {fmt(bounds[1])}"
    if field in ("p", "baseline"):
        return "–" if claim.get(field) is None else fmt(claim[field])
    if field in ("paper_mean", "relative_error"):
        estimate = claim.get("paper_estimate")
        if not estimate or estimate[0] is None:
            raise ResultError(f"claim {claim_id!r} records no mean of the paper's (paper_estimate)")
        if field == "paper_mean":
            return fmt(estimate[0])
        value = claim.get("value")
        if not isinstance(value, (int, float)) or not estimate[0]:
            return "–"
        return f"{100 * (float(value) - float(estimate[0])) / abs(float(estimate[0])):+.1f} %"
    if field == "paper":
        return str(claim.get("paper_value") or "")
    return str(claim.get(field) or "")


#: What a paper-scale record says of its run: ``<part>/<name>:@<field>``.
RECORD_FIELDS = ("seconds", "seeds", "machine", "date", "commit")


def record_field(record, field):
    """A field of a paper-scale record's run: its time per seed, its seeds, machine, date, commit."""
    if field == "seconds":
        return fmt(float(record["seconds"]))
    if field == "seeds":
        return str(len(record.get("seeds") or []))
    if field == "machine":
        return str(record.get("machine", ""))
    if field == "date":
        return str(record.get("executed_at", ""))[:10]
    if field == "commit":
        return str(record.get("git_commit", ""))[:10]
    raise ResultError(f"unknown field @{field} of a paper-scale record (known: "
                      f"{', '.join('@' + f for f in RECORD_FIELDS)})")


def bench_field(record, key):
    """A value (or ``@machine``, ``@date``, ``@command``, ``@versions.<package>``) of a benchmark record."""
    if key.startswith("@"):
        meta = key[1:]
        if meta == "date":
            return str(record.get("executed_at", ""))[:10]
        if meta in ("machine", "command", "git_commit"):
            return str(record.get(meta, ""))
        if meta == "load":  # the 1-minute load average at the start and at the end of the run
            start, end = record.get("load_average") or (None, None)
            if start is None:
                raise ResultError("the benchmark record has no load average")
            return f"{fmt(float(start))} to {fmt(float(end))}" if start != end else fmt(float(start))
        if meta.startswith("versions."):
            package = meta.split(".", 1)[1]
            versions = record.get("versions") or {}
            if package not in versions:
                raise ResultError(f"the benchmark record names no version of {package!r}")
            return str(versions[package])
        raise ResultError(f"unknown field {key!r} of a benchmark record")
    values = record.get("values") or {}
    if key not in values:
        raise ResultError(f"the benchmark record has no value {key!r}")
    return fmt(values[key])


def bench_table(record, key):
    """``(caption, columns, rows)`` of a table of a benchmark record, the cells as text."""
    tables = record.get("tables") or {}
    if key not in tables:
        raise ResultError(f"the benchmark record has no table {key!r}")
    table = tables[key]
    return (table.get("caption", ""), [str(c) for c in table["columns"]],
            [[fmt(c) if not isinstance(c, str) else c for c in row] for row in table["rows"]])


def _split(reference):
    parts = [p.strip() for p in str(reference).split(":")]
    if any(not p for p in parts):
        raise ResultError(f"{reference!r}: an empty component")
    return parts


def resolve(reference, results):
    """The text of ``reference`` (see the module's docstring) from the folder ``results``."""
    parts = _split(reference)
    if results is None:
        raise ResultError(f"{reference!r}: no results folder")
    results = Path(results)
    if parts[0] == "bench":
        if len(parts) != 3:
            raise ResultError(f"{reference!r}: needs bench:<name>:<key>")
        return bench_field(_load(results / "benchmarks" / f"{parts[1]}.json", reference), parts[2])
    if len(parts) not in (2, 3) or "/" not in parts[0]:
        raise ResultError(f"{reference!r}: needs <part>/<name>:<claim id>[:<field>] or bench:<name>:<key>")
    record = _load(results / "paper" / f"{parts[0]}.json", reference)
    if parts[1].startswith("@"):
        return record_field(record, parts[1][1:])
    try:
        return claim_field(record, parts[1], parts[2] if len(parts) == 3 else "value")
    except ResultError as exc:
        raise ResultError(f"{reference!r}: {exc}") from None


def resolve_table(reference, results):
    """``(caption, columns, rows)`` of ``"bench:<name>:<table>"`` from the folder ``results``."""
    parts = _split(reference)
    if parts[0] != "bench" or len(parts) != 3:
        raise ResultError(f"{reference!r}: needs bench:<name>:<table>")
    if results is None:
        raise ResultError(f"{reference!r}: no results folder")
    try:
        return bench_table(_load(Path(results) / "benchmarks" / f"{parts[1]}.json", reference), parts[2])
    except ResultError as exc:
        raise ResultError(f"{reference!r}: {exc}") from None
