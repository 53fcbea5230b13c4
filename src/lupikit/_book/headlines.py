"""The headlines of the book: per paper, how many of its own claims hold, are inconclusive or fail (private).

The paper's own claims (relation *paper*, then *reformulated*) lead every
count; claims about cited work, the book's own checks (its findings:
ablations, data checks) and its identities (checks that cannot fail short of
a bug) are counted apart. The verdicts that rest on a test (a claim decided
by an interval over the seeds carries its one-sided p-value) are corrected
for multiplicity by Benjamini and Hochberg's procedure at :data:`FDR_Q`, per
part and over the book.

Pure functions of the scorecard's data (:mod:`lupikit._book.scorecard`);
this module imports no part of the library.

Examples
--------
>>> rows = [{"relation": "paper", "verdict": "reproduced", "p": 0.001},
...         {"relation": "paper", "verdict": "direction", "p": 0.04},
...         {"relation": "book", "identity": True, "verdict": "reproduced", "p": None}]
>>> [kind(r) for r in rows]
['paper', 'paper', 'identity']
>>> sorted(bh_survivors({"a": 0.001, "b": 0.04}, q=0.05))
['a', 'b']
"""

from ..claims import HELD, VERDICTS
from .parts import PART_LABELS, PARTS

__all__ = ["FDR_Q", "KINDS", "KIND_TEXT", "bh_survivors", "conclusion_line", "headline_counts", "headline_line",
           "kind",
           "landing_markdown", "multiplicity", "part_headline_markdown", "REPORTS"]

#: The false discovery rate of the Benjamini-Hochberg correction.
FDR_Q = 0.05
#: What a claim is, for the counts: the paper's own claims first, then the rest apart.
KINDS = ("paper", "reformulated", "cited", "book", "identity")
KIND_TEXT = {
    "paper": "the paper's own claims, at its criterion",
    "reformulated": "the paper's claims under a stricter or looser criterion",
    "cited": "claims about cited work",
    "book": "the book's own checks (ablations, data checks)",
    "identity": "identities (checks that cannot fail short of a bug)",
}
#: Each part's reproduction report (its document, from the book's source root).
REPORTS = {"boosting": "book/boosting/report", "twinsvm": "book/twinsvm/report",
           "relevance": "book/relevance/report", "oblivious": "book/oblivious/report"}


def kind(claim):
    """``"paper"``, ``"reformulated"``, ``"cited"``, ``"book"`` or ``"identity"`` of a claim record."""
    relation = claim.get("relation") or "book"
    if relation == "book" and claim.get("identity"):
        return "identity"
    return relation if relation in KINDS else "book"


def _claims(data, part=None):
    """The claim records of the scorecard's data (the paper-scale record, else this build's)."""
    out = []
    for short, d in data.items():
        if part is not None and short.split("/")[0] != part:
            continue
        paper_ids = {c["id"] for c in d.get("paper", [])}
        out += [(short, c) for c in d.get("paper", [])]
        out += [(short, c) for c in d.get("default", []) if c["id"] not in paper_ids]
    return out


def headline_counts(data, part=None):
    """``{kind: {verdict: n}}`` over the claims of one part (or all)."""
    counts = {k: dict.fromkeys(VERDICTS, 0) for k in KINDS}
    for _, c in _claims(data, part):
        counts[kind(c)][c["verdict"]] += 1
    return counts


def bh_survivors(pvalues, q=FDR_Q):
    """The keys whose p-values survive Benjamini and Hochberg's correction at false discovery rate ``q``.

    Parameters
    ----------
    pvalues : dict
        Key to p-value (the one-sided p of a claim's test).
    q : float, default=FDR_Q

    Returns
    -------
    set
    """
    if not pvalues:
        return set()
    from scipy import stats

    keys = list(pvalues)
    adjusted = stats.false_discovery_control([float(pvalues[k]) for k in keys], method="bh")
    return {k for k, a in zip(keys, adjusted) if a <= q}


def multiplicity(data, part=None, kinds=("paper", "reformulated")):
    """``(tests, held, survivors)``: the claims of ``kinds`` decided by a test, those held, and
    the held ones that survive the correction (a set of ``(short, id)``)."""
    # a test: a claim decided by an interval with a spread (one whose values were the same at every
    # seed is an exact comparison, no test)
    tested = {(s, c["id"]): c["p"] for s, c in _claims(data, part)
              if kind(c) in kinds and c.get("p") is not None
              and not (c.get("interval") and c["interval"][0] == c["interval"][1])}
    held = {k for k, _ in tested.items() if _verdict(data, k) in HELD}
    survivors = bh_survivors(tested) & held
    return len(tested), held, survivors


def _verdict(data, key):
    short, claim_id = key
    for c in data[short].get("paper", []) + data[short].get("default", []):
        if c["id"] == claim_id:
            return c["verdict"]
    return None


def _tally(counts):
    held = counts["reproduced"] + counts["direction"]
    parts = [f"{held} hold ({counts['reproduced']} reproduced, {counts['direction']} in direction)",
             f"{counts['inconclusive']} inconclusive", f"{counts['not reproduced']} fail"]
    other = counts["not computable"] + counts["not runnable offline"]
    if other:
        parts.append(f"{other} could not be checked")
    return ", ".join(parts)


def headline_line(data, part):
    """One paragraph: the part's own claims (paper, then reformulated), and the rest counted apart."""
    counts = headline_counts(data, part)
    n = {k: sum(v.values()) for k, v in counts.items()}
    tests, held, survivors = multiplicity(data, part)
    text = (f"**The paper's own claims ({n['paper']}):** {_tally(counts['paper'])}. "
            f"**Reformulated ({n['reformulated']}):** {_tally(counts['reformulated'])}.")
    text += (f" Of the held verdicts of these, {len(held)} rest on a test over the seeds; "
             f"{len(survivors)} of them survive a Benjamini-Hochberg correction at q = {FDR_Q} over the "
             f"{tests} tests.") if tests else ""
    apart = []
    if n["cited"]:
        apart.append(f"{n['cited']} about cited work ({_tally(counts['cited'])})")
    if n["book"]:
        apart.append(f"{n['book']} checks of the book's own ({_tally(counts['book'])})")
    if n["identity"]:
        ok = counts["identity"]["reproduced"] + counts["identity"]["direction"]
        apart.append(f"{n['identity']} identities ({ok} hold)")
    if apart:
        text += " Counted apart: " + "; ".join(apart) + "."
    return text


def _outcome(held, failed, undecided, n):
    """What ``held`` of ``n`` claims holding, ``failed`` failing and ``undecided`` inconclusive say, in words.

    The rule of :func:`conclusion_line`; the claims not counted in the three could not be checked.
    """
    if held == n:
        return "every one holds"
    if held == 0:
        if failed:
            return "none holds"
        return "none is decided" if undecided else "none could be checked here"
    if held >= 0.75 * n and failed <= 0.1 * n:
        return "they largely hold"
    if 2 * held > n:
        return "most hold"
    if 2 * held == n:
        return "half hold"
    balance = ("though more hold than fail" if held > failed else
               "and as many fail" if held == failed else "and more fail than hold")
    return f"fewer than half hold, {balance}"


def conclusion_line(data, part):
    """One sentence on the paper of ``part``, computed from the counts of its own claims.

    The words follow a fixed rule of the counts (held = reproduced or in
    direction; failed = not reproduced; undecided = inconclusive): all held,
    "every one holds"; none held, "none holds" if some failed, else "none is
    decided" if some are undecided, else "none could be checked here"; at
    least three quarters held with at most a tenth failed, "they largely
    hold"; otherwise "most", "half" or "fewer than half" hold, the last saying
    whether more hold or fail.
    The paper's claims at its own criterion come first, then the reformulated
    ones.

    Examples
    --------
    >>> def claims(*verdicts, relation="paper"):
    ...     return [{"id": str(i), "verdict": v, "relation": relation} for i, v in enumerate(verdicts)]
    >>> data = {"twinsvm/uci": {"paper": claims("reproduced", "direction", "not reproduced", "inconclusive")
    ...                         + claims("not reproduced", relation="reformulated"), "default": []}}
    >>> conclusion_line(data, "twinsvm")
    "At the paper's own criterion half hold (2 of 4 hold, 1 fails, 1 is undecided at the seeds run); \
under the book's stricter or looser criteria none holds (0 of 1 hold, 1 fails)."
    """
    counts = headline_counts(data, part)
    sentences = []
    for k, where in (("paper", "at the paper's own criterion"),
                     ("reformulated", "under the book's stricter or looser criteria")):
        c = counts[k]
        n = sum(c.values())
        if not n:
            continue
        held, failed, open_ = c["reproduced"] + c["direction"], c["not reproduced"], c["inconclusive"]
        detail = [f"{held} of {n} hold", f"{failed} fail{'s' if failed == 1 else ''}"]
        if open_:
            detail.append(f"{open_} {'is' if open_ == 1 else 'are'} undecided at the seeds run")
        unchecked = n - held - failed - open_
        if unchecked:
            detail.append(f"{unchecked} could not be checked here")
        sentences.append(f"{where} {_outcome(held, failed, open_, n)} ({', '.join(detail)})")
    if not sentences:
        return ""
    text = "; ".join(sentences) + "."
    return text[0].upper() + text[1:]


def part_headline_markdown(data, part):
    """The generated summary at the top of a part's page and report: the counts, then the conclusion."""
    conclusion = conclusion_line(data, part)
    return headline_line(data, part) + (f"\n\n**In one line:** {conclusion}" if conclusion else "") + "\n"


def landing_markdown(data, parts=PARTS, reports=REPORTS):
    """The landing page's table: per paper, its own claims' verdicts and a link to its report.

    Below it, each report with its one-line conclusion (:func:`conclusion_line`).
    ``reports``: part to its report's document (a part without one has no link).
    """
    lines = ["| part | the paper's own claims | reformulated | report |", "| --- | --- | --- | --- |"]
    said = []
    for part in parts:
        if part not in REPORTS or not any(k.split("/")[0] == part for k in data):
            continue
        counts = headline_counts(data, part)
        cells = []
        for k in ("paper", "reformulated"):
            c = counts[k]
            n = sum(c.values())
            cells.append(f"{n}: {c['reproduced'] + c['direction']} hold, {c['inconclusive']} inconclusive, "
                         f"{c['not reproduced']} fail")
        link = f"{{doc}}`/{reports[part]}`" if part in reports else "–"
        lines.append(f"| {PART_LABELS.get(part, part)} | {cells[0]} | {cells[1]} | {link} |")
        conclusion = conclusion_line(data, part)
        if conclusion and part in reports:
            said.append(f"- {{doc}}`/{reports[part]}`: {conclusion}")
    return "\n".join(lines) + "\n" + ("\n" + "\n".join(said) + "\n" if said else "")
