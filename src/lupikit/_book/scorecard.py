"""The scorecard: every claim of the book with its verdict, per part, from the claim records (private).

Pure functions of ``data``, ``{short name: {"default": [claims of this
build], "paper": [records of results/paper/], "stale": bool, "paper_seeds":
list or None, "sections": [headings], ...}}`` as written to
``_build/scorecard.json``: the page's Markdown (:func:`scorecard_markdown`,
made of its sections: the verdict counts, the seeds rule, the picture, a
compact table per part and the details of each claim in a drop-down) and the
picture of the verdicts per part (:func:`verdict_figure`).

This module imports no part of the library.
"""

import re

import matplotlib
from matplotlib.figure import Figure

from ..claims import RELATIONS, UNMEASURED, VERDICTS
from .markdown import anchor, brief, fmt, inline, one_line
from .parts import PART_LABELS, PARTS
from .paths import GENERATED
from .headlines import FDR_Q, headline_counts, headline_line, landing_markdown, multiplicity
from .intervals import LEVEL
from .seeds import seeds_ran

__all__ = ["ANNOTATIONS", "RELATION_TEXT", "SCORECARD_FIGURE", "annotation", "relation_counts", "SCORECARD_FIGURE_FONT", "SCORECARD_FIGURE_WIDTH", "VERDICTS", "VERDICT_COLOURS",
           "claim_details", "evidence_target", "why_text", "scorecard_markdown", "scorecard_rows", "seeds_text", "verdict_counts",
           "verdict_figure", "verdict_text"]

#: Okabe-Ito colours (distinguishable with the common colour-vision deficiencies),
#: and the colour of the count written on each.
VERDICT_COLOURS = {
    "reproduced": ("#009E73", "white"),
    "direction": ("#56B4E9", "black"),
    "inconclusive": ("#E69F00", "black"),
    "not reproduced": ("#D55E00", "white"),
    "not computable": ("#CC79A7", "black"),
    "not runnable offline": ("#BBBBBB", "black"),
}
#: The picture of the verdicts per part (written next to the generated tables).
SCORECARD_FIGURE = "scorecard_verdicts.svg"
#: Its width in inches and its smallest font in points: shown at the book's
#: content width (about 770 px) the text is 10 * 770 / (72 * 7) = 15 px high.
SCORECARD_FIGURE_WIDTH = 7.0
SCORECARD_FIGURE_FONT = 10.0

#: The fields that say how a claim relates to the paper and why its verdict is what it is.
ANNOTATIONS = ("relation", "how", "why", "evidence", "deterministic", "explained_in")
#: What each relation means, for the page.
RELATION_TEXT = {
    "paper": "the paper's own statement, tested at its own criterion",
    "reformulated": "a paper statement tested by a stricter or looser criterion (the claim says how)",
    "cited": "something the paper says about cited work, tested on our model of that work",
    "book": "the book's own check (a data check, a sanity condition, an ablation)",
    "identity": "a check of the book's own that cannot fail short of a bug (shown apart, not a finding)",
}
_UNSTATED = "unstated"  # a record made before claims said their relation


def _check_verdict(short, claim):
    if claim.get("verdict") not in VERDICTS:
        raise ValueError(f"{short}: claim {claim.get('id')!r} has the verdict {claim.get('verdict')!r}; "
                         f"the scorecard knows {', '.join(map(repr, VERDICTS))}.")
    return claim["verdict"]


def verdict_counts(data, parts=None):
    """Claims per verdict: ``{"paper": {verdict: n}, "build": {verdict: n}}``.

    ``"paper"`` counts the records of ``results/paper/``, ``"build"`` the
    claims this build's notebooks recorded; ``parts`` limits both to those
    parts (the first component of the notebooks' short names).
    """
    counts = {"paper": dict.fromkeys(VERDICTS, 0), "build": dict.fromkeys(VERDICTS, 0)}
    for short, d in data.items():
        if parts is not None and short.split("/")[0] not in parts:
            continue
        for which, key in (("paper", "paper"), ("build", "default")):
            for c in d[key]:
                counts[which][_check_verdict(short, c)] += 1
    return counts


def annotation(row, field):
    """A claim's ``relation``, ``how``, ``why``, ... : the paper-scale record's, else this build's.

    (A record written before claims carried these fields lacks them; the
    notebook's current source, run in this build, states them.) Where the
    record is stale (``row["stale"]``), this build's claim comes first: the
    notebook's current source says how the claim relates to the paper.
    """
    order = (row["build"], row["paper"]) if row.get("stale") else (row["paper"], row["build"])
    for c in order:
        if c is not None and field in c:
            return c[field]
    return None


def _relation(row):
    """The row's relation to the paper; a book check that is an identity is ``"identity"``."""
    relation = annotation(row, "relation") or _UNSTATED
    if relation == "book" and annotation(row, "identity"):
        return "identity"
    return relation


def relation_counts(data, part):
    """``{relation: {verdict: n}}`` of one part's paper-scale claims (this build's where none is recorded)."""
    rels = RELATIONS + ("identity", _UNSTATED)
    counts = {r: dict.fromkeys(VERDICTS, 0) for r in rels}
    for short, d in data.items():
        if short.split("/")[0] != part:
            continue
        for row in scorecard_rows(d):
            verdict = row["verdict"] or row["build"]["verdict"]
            counts[_relation(row)][verdict] += 1
    return {r: c for r, c in counts.items() if r != _UNSTATED or sum(c.values())}


def _build_label(preset):
    return "default" if preset == "default" else "this build"


def _label(short, claim_id):
    """The reference target of a claim's details (unique in the book: notebook and id)."""
    return "claim-" + re.sub(r"[^a-z0-9]+", "-", f"{short}-{claim_id}".lower()).strip("-")


#: What each interval rule captures, for the page (the NeurIPS checklist's question about error bars).
RULE_TEXT = {
    "t": "Student's t interval of the mean over the seeds; each seed draws its own data (or its own "
         "initialisation), so the interval captures the data draw and every split and initialisation "
         "within it",
    "resampled-t": "the corrected resampled t interval (Nadeau and Bengio, 2003); the seeds re-split the "
                   "same rows, so the interval captures the split (and the initialisation), not the draw "
                   "of the data set, and is widened for the rows the splits share",
    "binomial": "the exact (Clopper-Pearson) interval of a count out of a fixed number of trials (data "
                "sets), the successes pooled over the seeds",
    "binomial-share": "the exact interval of the share of seeds at which a compound condition held, "
                      "against one half",
}
_RULE_NAMES = {"t": "t", "resampled-t": "resampled t", "binomial": "binomial", "binomial-share": "binomial"}


def seeds_text(claim):
    """How the seeds decided a claim: ``"0.61 (95% t: 0.59 to 0.63; 5 seeds, held at 5)"``.

    ``"–"`` for a claim that no seed could check; ``"deterministic, v"`` for a
    value that does not depend on the seed; ``"1 seed"`` for a record of one
    seed; a saturated value (the same at every seed) says so; a compound
    condition gives the share of seeds at which it held and its interval.
    """
    seeds = claim.get("seeds")
    if claim.get("verdict") in UNMEASURED:  # (no value: the threshold holds the reason)
        return "–"
    if not seeds:
        return "1 seed"
    rule = claim.get("rule")
    ran, held = claim.get("n") or seeds_ran(seeds), seeds.get("held")
    if rule == "identity":
        return f"identity: held at {held} of {ran} seeds"
    if rule == "deterministic" or (rule is None and claim.get("deterministic") and seeds.get("identical")):
        return "deterministic" + (f", {fmt(seeds['min'])}" if seeds.get("min") is not None else "")
    if rule == "one seed" or ran == 1:
        return "1 seed"
    bounds = claim.get("interval")
    if rule == "binomial-share" and bounds:
        return (f"held at {held} of {ran} seeds; {LEVEL:.0%} interval of the share "
                f"{fmt(bounds[0])} to {fmt(bounds[1])}")
    if bounds and rule in _RULE_NAMES:
        text = (f"mean {fmt(claim.get('value'))}, {LEVEL:.0%} {_RULE_NAMES[rule]} interval "
                f"{fmt(bounds[0])} to {fmt(bounds[1])} over {ran} seeds (held at {held})")
        if claim.get("saturated"):
            text += "; the same value at every seed (saturated)"
        return text
    lo, hi = seeds.get("min"), seeds.get("max")  # (a record made before the interval rule)
    text = f"held at {held} of {ran} seeds"
    if seeds.get("identical") and lo is not None:
        return text + f", the same value at every seed ({fmt(lo)})"
    if lo is not None and hi is not None:
        text += f", {fmt(lo)}" if lo == hi else f", {fmt(lo)} to {fmt(hi)}"
    return text


def _value_text(claim):
    """The measured value and what it needed, in short."""
    if claim["verdict"] in UNMEASURED:  # (no value: the threshold holds the reason)
        return f"{claim['verdict']}: {brief(claim['threshold'], 50)}"
    text = "–" if claim.get("value") is None else fmt(claim["value"])
    if claim.get("interval") and claim.get("rule") in ("t", "resampled-t", "binomial"):
        text += " (mean over the seeds)"
    elif claim.get("rule") == "binomial-share":
        text += " (first seed)" if not isinstance(claim.get("value"), (int, float)) else " (median)"
    if claim.get("threshold"):
        text += f", needs {brief(claim['threshold'], 40)}"
    return text


def scorecard_rows(d):
    """The rows of one notebook: the paper-preset record first, this build's claim beside it.

    Each row is a dict with ``id``, ``paper`` (the record of ``results/paper/``
    or None), ``build`` (this build's record or None), ``verdict`` (the
    paper-preset verdict, or None when the paper-scale run did not record the
    claim) and ``differs`` (this build's verdict when it is not the same).
    """
    build_by_id = {c["id"]: c for c in d["default"]}
    paper_ids = {c["id"] for c in d["paper"]}
    rows = []
    # Some claims exist only at some parameters (a data set or kernel the
    # default preset leaves out, or one only the default checks).
    for c in d["paper"]:
        b = build_by_id.get(c["id"])
        rows.append({"id": c["id"], "paper": c, "build": b, "verdict": c["verdict"], "stale": d.get("stale", False),
                     "differs": None if b is None or b["verdict"] == c["verdict"] else b["verdict"]})
    for b in d["default"]:
        if b["id"] not in paper_ids:
            rows.append({"id": b["id"], "paper": None, "build": b, "verdict": None, "stale": d.get("stale", False),
                         "differs": b["verdict"]})
    return rows


def verdict_text(row, stale, preset, built=True):
    """The verdict cell: ``"direction · default: not reproduced"``, paper preset first.

    ``built``: this build recorded claims of the notebook (else it was not
    executed, and a claim missing from it says nothing).
    """
    label = _build_label(preset)
    if row["paper"] is None:
        return f"not recorded · {label}: {row['build']['verdict']}"
    text = f"**{row['verdict']}**" + (" (stale)" if stale else "")
    if row["build"] is None:
        text += f" · {label}: not run" if preset == "default" and built else ""
    elif row["differs"]:
        text += f" · {label}: {row['differs']}"
    return text


def _tally(counts):
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v]) or "none"


def _counts_table(counts, preset):
    """The verdict counts of the paper-preset records and of this build."""
    lines = ["| claims | " + " | ".join(VERDICTS) + " | in all |", "| --- |" + " ---: |" * (len(VERDICTS) + 1)]
    for which, row_label in (("paper", "paper preset (recorded)"),
                             ("build", f"this build ({preset} preset)")):
        row = counts[which]
        lines.append(f"| {row_label} | " + " | ".join(str(row[v]) for v in VERDICTS)
                     + f" | {sum(row.values())} |")
    return lines


def _seeds_paragraph(data):
    """The one decision rule by which the seeds decide a verdict, and the seeds of each notebook."""
    by_seeds = {}
    for short, d in data.items():
        by_seeds.setdefault(len(d.get("paper_seeds") or [None]), []).append(short)
    rules = "; ".join(f"*{_RULE_NAMES[r]}* ({r}): {t}" for r, t in RULE_TEXT.items() if r != "binomial-share")
    return [
        f"**The decision rule.** Each seed is the entropy of the notebook's own "
        "`numpy.random.SeedSequence`, whose spawned children draw every replication of the run: two seeds "
        "share no draw (each record keeps a short hash of what each replication drew). A claim whose value "
        "does not depend on the seed is one measurement (*deterministic*). Every other claim is decided by "
        f"a two-sided {LEVEL:.0%} interval of its mean over the seeds, against its threshold: wholly on the "
        "side the claim states, it keeps its verdict (*reproduced* or *direction*); wholly on the other "
        "side, *not reproduced*; across the threshold, *inconclusive*. A claim that a score is high must "
        "also clear what the constant classifier scores on the same rows. The interval is the one the "
        f"claim declares, by what a seed replicates: {rules}. A claim checked as a compound condition is "
        f"decided by {RULE_TEXT['binomial-share']}. *Held at k of n* is shown beside the verdict as "
        "information; it decides nothing. A notebook whose claims are inconclusive takes more seeds, five "
        "at a time, up to a cap of 20, where the run's time allows and while one of them could still be "
        "decided: at the cap, with its mean and spread of today, its interval would clear the threshold "
        "(with five folds, the corrected resampled t's standard error never falls below half the seeds' "
        "standard deviation, so more seeds cannot decide every claim). "
        + "Seeds per notebook: " + "; ".join(
            f"{n} seed{'s' if n > 1 else ''}: " + (", ".join(f"`{s}`" for s in sorted(shorts))
                                                  if n == 1 else f"{len(shorts)} notebook{'s' if len(shorts) > 1 else ''}")
            for n, shorts in sorted(by_seeds.items(), reverse=True)) + ".",
        "",
    ]


def _figure_block(figure, preset):
    """The picture of the verdicts per part, as a MyST figure."""
    return [
        f"```{{figure}} /{GENERATED}/{figure}",
        ":width: 100%",
        ":alt: Stacked bars, one pair per part: the number of the paper's own claims and of the "
        "reformulated ones with each verdict, at the paper preset.",
        "",
        "The papers' own claims per verdict and part, at the paper preset: the paper's statements at its "
        "criterion, and the reformulated ones.",
        "```",
        "",
    ]


def _section_link(short, d, section):
    """A link to a section of a notebook's page (the page itself if this build's notebook lacks it)."""
    link = anchor(section) if section and section in d.get("sections", [section]) else ""
    return f"/notebooks/{short}.ipynb{link}"  # from the book's root: the page is included


def why_text(claim, why):
    """The why a page shows beside a verdict: none for "reproduced" (a claim's ``why`` then says what a
    failure would mean), the reason for a claim no run could check, else ``why``."""
    if claim["verdict"] == "reproduced":
        return ""
    if claim["verdict"] in UNMEASURED:  # (no value: the threshold holds the reason)
        return claim.get("reason") or why or ""
    return why or "no reason recorded"


def _why_cell(short, row, d):
    """The why of a verdict, cut short, and a link to the section that explains it."""
    main = row["paper"] or row["build"]
    why = why_text(main, annotation(row, "why"))
    if not why:
        return "–"
    section = annotation(row, "explained_in") or (row["build"] or row["paper"]).get("section") or ""
    return f"{brief(why, 150)} [(why)]({_section_link(short, d, section)})"


def _table(rows, label, preset):
    head = [":::{list-table}", ":header-rows: 1", ":widths: 24 28 22 26", ":class: scorecard", "",
            "* - claim (relation)",
            "  - verdict (paper preset" + (f" · {label}" if preset == "default" else "") + "); over the seeds",
            "  - ours vs the paper", "  - why"]
    return head + rows + [":::", ""]


def _part_section(data, shorts, part, title, preset):
    """One part: its headline (the paper's own claims first), the compact tables of its claims (the
    reproduction, the cited work, the book's own checks and its identities apart), the details."""
    label = _build_label(preset)
    _, _, survivors = multiplicity(data, part)
    lines = [f"## {title}", "", headline_line(data, part), ""]
    tables = {"reproduction": [], "cited": [], "book": [], "identity": []}
    details = []
    for short in shorts:
        d = data[short]
        for row in scorecard_rows(d):
            main = row["paper"] or row["build"]
            target = _label(short, row["id"])
            ours = _value_text(main)
            relation = _relation(row)
            verdict = verdict_text(row, d["stale"], preset, bool(d["default"]))
            bounds = (row["paper"] or {}).get("interval")
            if (row["verdict"] in ("reproduced", "direction") and (row["paper"] or {}).get("p") is not None
                    and bounds and bounds[0] < bounds[1]
                    and relation in ("paper", "reformulated") and (short, row["id"]) not in survivors):
                verdict += f" (not after the correction at q = {FDR_Q})"
            table = ("reproduction" if relation in ("paper", "reformulated", _UNSTATED) else
                     relation if relation in tables else "book")
            spread = seeds_text(row["paper"]) if row["paper"] else ""
            tables[table] += [
                f"* - {{ref}}`{row['id']} <{target}>` ({relation})",
                f"  - {inline(verdict + ('; ' + spread if spread and spread != '–' else ''))}",
                f"  - {inline(ours + '; paper: ' + brief(main['paper_value']))}",
                f"  - {inline(_why_cell(short, row, d))}"]
            details += claim_details(short, row, d, preset, target)
    if tables["reproduction"]:
        lines += _table(tables["reproduction"], label, preset)
    for key, head, text in (
            ("cited", "Claims about cited work", "What the paper says about the work it cites, tested on "
             "our model of that work: not part of the reproduction."),
            ("book", "The book's own checks", "Checks of the book's own (data checks, sanity conditions, "
             "ablations that test an explanation): not claims of the paper, and not counted as its "
             "reproduction."),
            ("identity", "Identities", "Checks that cannot fail short of a bug (an identity of the algebra, "
             "two solvers on one problem, a data shape): they hold where they hold at every seed, and are "
             "not counted as findings.")):
        if tables[key]:
            lines += [f"```{{rubric}} {head} in {PART_LABELS.get(part, part)}", "```", "", text, ""]
            lines += _table(tables[key], label, preset)
    lines += [f"```{{rubric}} Details of the claims of {PART_LABELS.get(part, part)}", "```", ""]
    return lines + details


def _relations_table(data, parts):
    """Relation × verdict, per part, at the paper preset (this build's verdict where none is recorded)."""
    lines = ["| part | relation | " + " | ".join(VERDICTS) + " | in all |",
             "| --- | --- |" + " ---: |" * (len(VERDICTS) + 1)]
    totals = {}
    for part in parts:
        if not any(k.split("/")[0] == part for k in data):
            continue
        for relation, counts in relation_counts(data, part).items():
            if not sum(counts.values()):
                continue
            lines.append(f"| {PART_LABELS.get(part, part)} | {relation} | "
                         + " | ".join(str(counts[v]) for v in VERDICTS) + f" | {sum(counts.values())} |")
            for v in VERDICTS:
                totals.setdefault(relation, dict.fromkeys(VERDICTS, 0))[v] += counts[v]
    for relation, counts in totals.items():
        lines.append(f"| **all parts** | **{relation}** | " + " | ".join(f"**{counts[v]}**" for v in VERDICTS)
                     + f" | **{sum(counts.values())}** |")
    reproduction = {v: sum(totals.get(r, {}).get(v, 0) for r in ("paper", "reformulated")) for v in VERDICTS}
    n = sum(reproduction.values())
    relations = "; ".join(f"*{r}*: {t}" for r, t in RELATION_TEXT.items())
    current = sum(1 for d in data.values() if d["paper"] and not d["stale"])
    stale = sum(1 for d in data.values() if d["paper"] and d["stale"])
    return [
        f"**The reproduction** is the {n} claims that state the papers' results (relation *paper* or "
        f"*reformulated*): {_tally(reproduction)}. Claims about cited work and the book's own checks are "
        f"counted apart. Relations: {relations}.", "",
        f"The verdicts are those of the paper-scale records ({current} of {len(data)} notebooks' records "
        f"current, {stale} stale, {len(data) - current - stale} not recorded); a claim that its notebook's "
        "record does not hold counts with this build's verdict.", "",
    ] + lines + [""]


def scorecard_markdown(data, preset, parts=PARTS, figure=None, reports=None):
    """The generated part of the scorecard page (MyST Markdown).

    Parameters
    ----------
    data : dict
        ``{short name: {"default": [claims of this build], "paper": [records of
        results/paper/], "stale": bool, "paper_seeds": list or None, ...}}``, as
        written to ``_build/scorecard.json``.
    preset : str
        The preset of this build (``"default"`` or ``"paper"``).
    parts : dict, default=PARTS
        Part name to section title, in book order.
    figure : str or None
        The file name of the picture of the verdicts in ``book/_generated/``.
    reports : dict or None
        Part to its report's document, for the links (default: none).

    Returns
    -------
    str
    """
    lines = [
        f"This build: preset `{preset}`. Paper-scale values: `results/paper/`, recorded by "
        "`lupikit paper`; *stale* marks a value recorded before the notebook's code, a library "
        "definition its run can execute or a data file it read last changed (the "
        "Execution status page names what changed). Another release of NumPy, "
        "SciPy, scikit-learn, pandas, XGBoost, HiGHS or CVXOPT than the one a record ran on is "
        "shown there and does not make the record stale.",
        "",
    ]
    counts = verdict_counts(data)  # (refuses an unknown verdict)
    data = {k: dict(v, _all=data) for k, v in data.items()}  # the details link only evidence that exists
    lines += ["**The papers' own claims, per paper** (the paper's own statements at its criterion, and the "
              "reformulated ones; the claims about cited work, the book's own checks and its identities are "
              "counted apart, below):", "", landing_markdown(data, parts, reports=reports or {})]
    tests, held, survivors = multiplicity(data)
    per_part = "; ".join(
        f"{PART_LABELS.get(p, p)}: {len(multiplicity(data, p)[2])} of {len(multiplicity(data, p)[1])} held, "
        f"{multiplicity(data, p)[0]} tests" for p in parts if multiplicity(data, p)[0])
    lines += [f"**Multiplicity.** The verdicts of the papers' own claims (paper and reformulated) rest on "
              f"{tests} tests (the claims decided by an interval over the seeds; each has the one-sided "
              f"p-value of the test its interval inverts). Of the {len(held)} held verdicts among them, "
              f"{len(survivors)} survive a Benjamini-Hochberg correction at q = {FDR_Q} over all {tests} "
              f"(per part, corrected within the part: {per_part}). A held verdict that does not survive is "
              "marked in the tables.", ""]
    lines += _relations_table(data, list(parts))
    lines += ["All claims, paper preset and this build:", ""]
    lines += _counts_table(counts, preset) + [""]
    lines += _seeds_paragraph(data)
    if figure:
        lines += _figure_block(figure, preset)
    for part, title in parts.items():
        shorts = [k for k in data if k.split("/")[0] == part]
        if shorts:
            lines += _part_section(data, shorts, part, title, preset)
    return "\n".join(lines) + "\n"


def claim_details(short, row, d, preset, target):
    """A closed drop-down with everything recorded about one claim (it opens when linked to)."""
    main = row["paper"] or row["build"]
    # the section of this build's notebook (a stale record may name one it no longer has)
    section = (row["build"] or row["paper"]).get("section") or ""
    link = anchor(section) if section in d.get("sections", [section]) else ""
    where = (f"[{short}{' § ' + section if section else ''}]"
             f"(/notebooks/{short}.ipynb{link})")  # from the book's root: the page is included
    out = [f":::{{dropdown}} `{row['id']}`", ":class-container: claim-details", "",
           f"({target})=", f"**Claim.** {one_line(main['statement'])}", "",
           f"**The paper.** {one_line(main['paper_value'])}"
           + (f" ({one_line(main['source'])})" if main.get("source") else ""), ""]

    def measured(head, c):
        if c["verdict"] in UNMEASURED:  # (no value: the threshold holds the reason)
            return f"{head} *{c['verdict']}*: {one_line(c['threshold'])}"
        return (f"{head} *{c['verdict']}*; measured {'–' if c.get('value') is None else fmt(c['value'])}"
                + (f", needs {one_line(c['threshold'])}" if c.get("threshold") else ""))

    relation = _relation(row)
    text = f"**Relation to the paper.** {relation}: {RELATION_TEXT.get(relation, 'not stated by its record')}"
    if annotation(row, "how"):
        text += f". How: {one_line(annotation(row, 'how'))}"
    out += [text + ".", ""]
    why = why_text(row["paper"] or row["build"], annotation(row, "why"))
    if why:
        explained = annotation(row, "explained_in") or section
        out += [f"**Why.** {one_line(why)} ([explained in § {one_line(explained)}]"
                f"({_section_link(short, d, explained)}))", ""]
    evidence = annotation(row, "evidence") or []
    if evidence:
        known = {(n, r["id"]) for n, dd in d.get("_all", {}).items() for r in scorecard_rows(dd)} or None
        out += ["**Evidence.** " + ", ".join(_evidence_ref(short, e, known) for e in evidence) + ".", ""]
    paper = row["paper"]
    if paper is None:
        out += ["**At the paper preset.** not recorded (the paper-scale run did not check it).", ""]
    else:
        text = measured("**At the paper preset.**", paper)
        seeds = paper.get("seeds")
        if seeds:
            text += f"; {seeds_text(paper)}"
        elif paper["verdict"] not in UNMEASURED:  # (no value: the threshold holds the reason)
            text += "; one seed"
        if d.get("paper_executed_at"):
            text += f"; recorded {d['paper_executed_at'][:10]}" + (", stale" if d["stale"] else "")
        out += [text + ".", ""]
    build = row["build"]
    same_run = (preset == "paper" and paper is not None and build is not None  # a record of this very run
                and (build["verdict"], build.get("value")) == (paper["verdict"], paper.get("value")))
    if build is not None and not same_run:
        out += [measured(f"**In this build ({preset} preset).**", build) + ".", ""]
    elif build is None and preset == "default" and d["default"]:
        out += ["**At the default preset.** not checked (it needs data or settings of the paper preset).", ""]
    out += [f"**Where.** {where}", ":::", ""]
    return out


def evidence_target(short, reference):
    """``(notebook, claim id)`` of an evidence reference: ``"<id>"`` or ``"<part>/<name>:<id>"``."""
    if ":" in reference and "/" in reference.split(":", 1)[0]:
        notebook, claim_id = reference.split(":", 1)
        return notebook, claim_id
    return short, reference


def _evidence_ref(short, reference, known=None):
    """A link to the evidence's details, or its id alone where no run recorded that claim (yet)."""
    notebook, claim_id = evidence_target(short, reference)
    text = claim_id if notebook == short else reference
    if known is not None and (notebook, claim_id) not in known:
        return f"`{text}` (not recorded in this build or at the paper preset)"
    return f"{{ref}}`{text} <{_label(notebook, claim_id)}>`"


def verdict_figure(data, path, preset, parts=PARTS):
    """Horizontal stacked bars of the papers' own claims per verdict: per part, the paper's own claims
    and the reformulated ones (the claims about cited work and the book's own checks are not drawn).
    """
    rows = []  # (label, counts), top to bottom
    for part in parts:
        shorts = [k for k in data if k.split("/")[0] == part]
        if not shorts:
            continue
        if part == "intro":
            continue
        c = headline_counts({k: data[k] for k in shorts})
        rows += [(f"{PART_LABELS.get(part, part)}, paper", c["paper"]),
                 (f"{PART_LABELS.get(part, part)}, reformulated", c["reformulated"])]
    rows = rows or [("no claims", dict.fromkeys(VERDICTS, 0))]
    font = SCORECARD_FIGURE_FONT
    fig = Figure(figsize=(SCORECARD_FIGURE_WIDTH, 0.32 * len(rows) + 1.3))
    ax = fig.add_subplot()
    y = []
    pos = 0.0
    for k in range(len(rows)):  # a gap between the parts' pairs
        y.append(-pos)
        pos += 0.8 if k % 2 == 0 else 1.25
    widest = max(sum(r[1].values()) for r in rows) or 1
    for verdict in VERDICTS:
        face, ink = VERDICT_COLOURS[verdict]
        left = [sum(r[1][v] for v in VERDICTS[:VERDICTS.index(verdict)]) for r in rows]
        width = [r[1][verdict] for r in rows]
        ax.barh(y, width, left=left, height=0.7, color=face, edgecolor="white", linewidth=0.6,
                label=verdict)
        for yy, l, w in zip(y, left, width):
            if w and w >= 0.045 * widest:
                ax.text(l + w / 2, yy, str(w), ha="center", va="center", color=ink, fontsize=font)
    for yy, r in zip(y, rows):
        total = sum(r[1].values())
        ax.text(total + 0.01 * widest, yy, str(total), ha="left", va="center", fontsize=font)
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows], fontsize=font)
    ax.set_xlim(0, widest * 1.08)
    ax.tick_params(axis="x", labelsize=font)
    ax.set_xlabel("claims", fontsize=font)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(loc="lower center", bbox_to_anchor=(0.4, 1.0), ncol=3, fontsize=font, frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context({"svg.hashsalt": "lupikit-scorecard", "svg.fonttype": "path"}):
        fig.savefig(path, format="svg", metadata={"Date": None})
    return path

