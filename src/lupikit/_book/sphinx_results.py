"""The book's Sphinx extension for recorded numbers: the ``result`` role and two directives (private).

- ``{result}`<part>/<name>:<claim id>[:<field>]``` and ``{result}`bench:<name>:<key>```
  render a recorded value (:func:`lupikit._book.result_text.resolve`);
- ``{result-table} bench:<name>:<table>`` renders a benchmark's table, with
  its caption;
- ``{claims-table} <part>/<name>`` with the option ``:ids:`` (comma-separated
  claim ids; default: all) renders the paper-scale records of those claims:
  claim, relation, verdict, seeds, ours, the paper, why.

Records are read from the ``results`` folder of the book's source or of one
of its parents (a staging copy links it). A record made before claims
stated their relation to the paper takes those fields from this build's
claims (``_build/scorecard.json``). A reference that does not resolve
is a warning (the book's build fails on warnings) and renders as ``??``,
except a claim missing from its notebook's *stale* record (newer than the
record): it renders as not yet recorded at the paper preset.
Listed in ``_config.yml`` under ``sphinx.extra_extensions``.
"""

import json
import re

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .markdown import brief, inline, one_line
from .records import is_stale, with_current_prose
from .scorecard import why_text
from .result_text import ResultError, claim_field, find_results, resolve, resolve_table

__all__ = ["setup"]

_log = logging.getLogger(__name__)


def _results(env):
    return find_results(env.srcdir)


_PENDING = "not yet recorded at the paper preset"


def _built_claims(results, short):
    """This build's claims of a notebook (``_build/scorecard.json`` beside the results folder), by id."""
    built = results.resolve().parent / "_build" / "scorecard.json"
    if not built.is_file():
        return {}
    return {c["id"]: c for c in json.loads(built.read_text(encoding="utf-8")).get(short, {}).get("default", [])}


def _read_record(results, short, path):
    """A notebook's paper-scale record, its claims' prose as the notebook states it now."""
    record = json.loads(path.read_text(encoding="utf-8"))
    return with_current_prose(record, results.resolve().parent / "notebooks" / f"{short}.ipynb")


def _stale(results, short, record):
    notebook = results.resolve().parent / "notebooks" / f"{short}.ipynb"
    return not notebook.is_file() or is_stale(record, notebook, short)


def _in_source(results, short, claim_id):
    """Whether the notebook's source names ``claim_id`` (literally, or as an f-string's pattern)."""
    notebook = results.resolve().parent / "notebooks" / f"{short}.ipynb"
    if not notebook.is_file():
        return False
    text = notebook.read_text(encoding="utf-8")
    if f'"{claim_id}"' in text or f'\\"{claim_id}\\"' in text:
        return True
    for pattern in re.findall(r'f\\?"([a-z]+\.[^"\\]*\{[^"\\]*)\\?"', text):
        regex = "".join(".+" if part.startswith("{") else re.escape(part)
                        for part in re.split(r"(\{[^}]*\})", pattern))
        if re.fullmatch(regex, claim_id):
            return True
    return False


def pending(results, short, claim_id):
    """Whether a claim is newer than its notebook's record: the record lacks it and is stale.

    Such a claim renders as "not yet recorded at the paper preset" (the
    scorecard marks the record stale). The claim must be one the notebook's
    current source checks (this build recorded it, or the source names it:
    it may exist at the paper preset only); any other missing claim is an
    error, so a misspelt id is caught even while records are stale.
    """
    if results is None:
        return False
    path = results / "paper" / f"{short}.json"
    if path.is_file():
        record = _read_record(results, short, path)
        if any(c["id"] == claim_id for c in record["claims"]) or not _stale(results, short, record):
            return False
    return claim_id in _built_claims(results, short) or _in_source(results, short, claim_id)


def _depend(env, results, reference):
    """Tell Sphinx that the page depends on the records a reference reads (rebuilt when they change)."""
    if results is None:
        return
    parts = [p.strip() for p in str(reference).split(":")]
    root = results.resolve().parent
    if parts[0] == "bench" and len(parts) > 1:
        files = [results / "benchmarks" / f"{parts[1]}.json"]
    else:
        files = [results / "paper" / f"{parts[0]}.json", root / "notebooks" / f"{parts[0]}.ipynb",
                 root / "_build" / "scorecard.json"]
    for f in files:
        if f.is_file():
            env.note_dependency(str(f.resolve()))


def result_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    results = _results(env)
    _depend(env, results, text)
    try:
        value = resolve(text, results)
    except ResultError as exc:
        parts = text.split(":")
        if len(parts) >= 2 and "/" in parts[0] and pending(results, parts[0].strip(), parts[1].strip()):
            value = f"({_PENDING})"
        else:
            _log.warning(f"result: {exc}", location=(env.docname, lineno), type="lupikit", subtype="result")
            value = "??"
    return [nodes.inline(rawtext, value, classes=["recorded-value"])], []


def _list_table(caption, columns, rows, widths=None):
    lines = [f":::{{list-table}} {caption}".rstrip(), ":header-rows: 1"]
    if widths:
        lines.append(f":widths: {' '.join(map(str, widths))}")
    lines.append("")
    for row in [columns] + rows:
        lines.append(f"* - {inline(row[0]) or ' '}")
        lines += [f"  - {inline(cell) or ' '}" for cell in row[1:]]
    return lines + [":::"]


_ANNOTATIONS = ("relation", "how", "why", "evidence", "deterministic", "explained_in")


def _annotate(record, results, short):
    """Fill what a record written before claims stated their relation lacks from this build's claims.

    (``_build/scorecard.json`` beside the results folder holds the claims of
    the notebooks executed for this build, from their current source.)
    """
    if all(all(k in c for k in _ANNOTATIONS) for c in record["claims"]):
        return
    claims = _built_claims(results, short)
    for c in record["claims"]:
        for key in _ANNOTATIONS:
            if key not in c and key in claims.get(c["id"], {}):
                c[key] = claims[c["id"]][key]


class _TableDirective(SphinxDirective):
    required_arguments = 1
    has_content = False

    def _warn(self, exc):
        _log.warning(f"{self.name}: {exc}", location=(self.env.docname, self.lineno), type="lupikit",
                     subtype="result")
        return [nodes.paragraph(text="??")]

    def _parse(self, lines):
        container = nodes.container(classes=["recorded-table"])
        self.state.nested_parse(StringList(lines, source=self.env.docname), self.content_offset, container)
        return [container]


class ResultTable(_TableDirective):
    """A table of a benchmark record, with its caption."""

    def run(self):
        _depend(self.env, _results(self.env), self.arguments[0])
        try:
            caption, columns, rows = resolve_table(self.arguments[0], _results(self.env))
        except ResultError as exc:
            return self._warn(exc)
        return self._parse(_list_table(one_line(caption), columns, rows))


class ClaimsTable(_TableDirective):
    """The paper-scale records of some claims of one notebook."""

    option_spec = {"ids": directives.unchanged}

    def run(self):
        short = self.arguments[0].strip()
        results = _results(self.env)
        _depend(self.env, results, short)
        path = None if results is None else results / "paper" / f"{short}.json"
        if path is None or not path.is_file():
            return self._warn(f"no paper-scale record of {short!r}")
        record = _read_record(results, short, path)
        _annotate(record, results, short)
        ids = [i.strip() for i in (self.options.get("ids") or "").split(",") if i.strip()]
        known = {c["id"]: c for c in record["claims"]}
        missing = [i for i in ids if i not in known and not pending(results, short, i)]
        if missing:
            return self._warn(f"{short} has no claim {', '.join(map(repr, missing))}")
        built = _built_claims(results, short)
        rows = []
        for cid in (ids or list(known)):
            if cid not in known:  # newer than the (stale) record: what this build's claim says of itself
                claim = built.get(cid, {})
                rows.append([f"`{cid}` ({claim.get('relation') or '–'})", _PENDING,
                             brief(claim.get("paper_value") or "", 80) + "; why: "
                             + brief(claim.get("why") or "–", 200)])
                continue
            claim = known[cid]
            rows.append([f"`{cid}` ({claim.get('relation') or '–'})", _verdict_cell(record, cid, claim),
                         _paper_cell(record, cid, claim)])
        columns = ["claim (relation)", "verdict; ours over the seeds", "the paper; why"]
        return self._parse(_list_table("", columns, rows, widths=[26, 30, 44]))


def _verdict_cell(record, cid, claim):
    """The verdict, our estimate and its interval over the seeds (or what stands for it)."""
    text = f"**{claim['verdict']}**"
    if claim.get("value") is None:
        return text
    text += f"; {claim_field(record, cid, 'value')}"
    if claim.get("interval"):
        text += f" (95 % interval {claim_field(record, cid, 'interval')})"
    if claim.get("rule") == "identity":
        text += "; an identity"
    elif claim.get("rule") == "deterministic":
        text += "; deterministic"
    if (claim.get("seeds") or {}).get("n", 1) > 1:
        text += f"; held at {claim_field(record, cid, 'held')} seeds"
    if claim.get("baseline") is not None:
        text += f"; constant classifier {claim_field(record, cid, 'baseline')}"
    return text


def _paper_cell(record, cid, claim):
    """The paper's value (with ours against its mean where it gives one) and the why."""
    text = brief(claim.get("paper_value") or "", 90)
    if (claim.get("paper_estimate") or [None])[0] is not None:
        text += f" (ours {claim_field(record, cid, 'relative_error')} against its mean)"
    why = why_text(claim, claim.get("why"))
    return text + (f"; why: {brief(why, 220)}" if why else "")


def setup(app):
    app.add_role("result", result_role)
    app.add_directive("result-table", ResultTable)
    app.add_directive("claims-table", ClaimsTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

