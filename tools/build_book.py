"""Build the executed lupikit book (jupyter-book 1.x), offline.

    python tools/build_book.py build [--jobs N]            # execute notebooks, build _build/html
    python tools/build_book.py build --preset paper        # from the paper-scale runs: _build/html-paper
    python tools/build_book.py pdf                         # one PDF of the book: _build/pdf/lupikit.pdf
    python tools/build_book.py student --edition D/student --instructor D/instructor
                                                           # the book without solutions: D/student/book, PDF
    python tools/build_book.py open [--preset paper]       # print (and open, if possible) index.html

The build has two steps:

1. every notebook listed in ``_toc.yml`` is executed with its default
   parameters into the jupyter-cache that the book reads
   (``_build/.jupyter_cache``), several at a time with jupyter-cache's
   ``local-parallel`` executor; unchanged notebooks are not executed again;
   The time each notebook took is written to ``_build/notebook-times.json``
   and ``_build/notebook-times.txt`` and printed as a table. It is a
   measurement, not a check: it depends on what else the machine runs (the
   build executes several notebooks at once, and under ``make test`` the
   library's tests run beside it). ``benchmarks/bench_notebooks.py`` checks
   the 60-second budget of the default parameters, one notebook at a time;
2. ``jupyter-book build`` runs with warnings as errors (``-W -n
   --keep-going``), so a notebook that fails, a broken reference or a missing
   citation fails the build. It re-executes (and reports the traceback of) any
   notebook step 1 could not run.

Between the two steps the tool writes the pages that are assembled from the
recorded claims and results, never typed by hand (``book/_generated/``, not
committed): the scorecard (per part, a compact table of the claims with the
verdict of the paper-scale records of ``results/paper/`` first and this
build's beside it where it differs, marked stale when the notebook or its
part's code changed since they were recorded; the details of each claim in a
drop-down; and a picture of the verdicts per part), the runtime table of the
"Reproducing and rerunning" page and the Data page's tables. It also writes
``_build/scorecard.json``, which the tests compare with the results.

``--preset paper`` builds the same book from the paper-scale executions
(``lupikit paper`` writes them to ``_build/paper/``; missing or stale ones are
run first) in a staging copy whose notebooks are not executed again.

The kernels get the execution harness of :mod:`lupikit._harness` (quiet
start-up, one BLAS thread each when several run at once).

This is a tool of the repository, not of the library: ``lupikit`` never knows
about the book.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
import webbrowser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
CACHE = BUILD / ".jupyter_cache"
INDEX = BUILD / "html" / "index.html"
GENERATED = ROOT / "book" / "_generated"
RESULTS = ROOT / "results" / "paper"
PAPER_RUNS = BUILD / "paper"
PARTS = {
    "intro": "Introduction: the LUPI setting",
    "boosting": "Part I: privileged-information gradient boosting (Yan et al., 2023)",
    "twinsvm": "Part II: pinball twin SVMs with privileged information",
    "relevance": "Part III: feature relevance intervals for ordinal regression and LUPI",
    "oblivious": "Part IV: oblivious features and kernels for fairness (Grünewälder and Khaleghi, 2021)",
}
TIMES_JSON = BUILD / "notebook-times.json"
TIMES_TXT = BUILD / "notebook-times.txt"
BUDGET_SECONDS = 60.0  # what a notebook's default parameters may take on 2 cores (CONTRIBUTING.md)


def toc_notebooks():
    """Notebooks listed in _toc.yml, in book order."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = []

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if f and (ROOT / f"{f}.ipynb").is_file():
                found.append(ROOT / f"{f}.ipynb")
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    return found


def prefill_cache(jobs, timeout=600):
    """Execute the book's notebooks in parallel into the jupyter-cache."""
    import logging
    import multiprocessing

    from jupyter_cache import get_cache
    from jupyter_cache.executors import load_executor

    notebooks = toc_notebooks()
    cache = get_cache(str(CACHE))
    for nb in notebooks:
        cache.add_nb_to_project(str(nb))
    logger = logging.getLogger("book")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    # jupyter-cache's parallel executor uses one process per core; cap it.
    original_pool = multiprocessing.Pool

    def capped_pool(*args, **kwargs):
        kwargs.setdefault("processes", max(1, jobs))
        return original_pool(*args, **kwargs)

    multiprocessing.Pool = capped_pool
    try:
        executor = load_executor("local-parallel" if jobs > 1 else "local-serial", cache=cache, logger=logger)
        t0 = time.perf_counter()
        result = executor.run_and_cache(
            filter_uris=[str(nb) for nb in notebooks], timeout=timeout, allow_errors=False
        )
    finally:
        multiprocessing.Pool = original_pool
    failed = result.excepted + result.errored
    print(
        f"[book] executed {len(result.succeeded)} notebook(s), "
        f"{len(failed)} failed, {len(notebooks) - len(result.succeeded) - len(failed)} "
        f"cached, in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    for uri in failed:
        print(f"[book] FAILED: {uri}", flush=True)
    write_times(cache, notebooks, executed=set(result.succeeded), jobs=jobs)
    return result


def write_times(cache, notebooks, executed, jobs):
    """Write and print the seconds each notebook took when it was last executed.

    ``executed`` are the notebooks run by this build; the others come from the
    cache with the time of the run that cached them.
    """
    rows = []
    for nb in notebooks:
        try:
            record = cache.get_cached_project_nb(str(nb))
        except Exception:  # not in the project, or not cached (it failed)
            record = None
        seconds = None if record is None else record.data.get("execution_seconds")
        rows.append({
            "notebook": nb.relative_to(ROOT / "notebooks").with_suffix("").as_posix(),
            "seconds": None if seconds is None else round(float(seconds), 2),
            "source": "this build" if str(nb) in executed else ("cache" if record else "failed"),
        })
    TIMES_JSON.write_text(json.dumps({
        "budget_seconds": BUDGET_SECONDS,
        "notebooks_at_once": jobs,
        "note": "wall-clock seconds with other work on the machine; "
                "benchmarks/bench_notebooks.py checks the budget one notebook at a time",
        "notebooks": rows,
    }, indent=2) + "\n")
    lines = [f"{'notebook':<32} {'seconds':>8}  {'of budget':>9}  source"]
    for r in rows:
        sec = r["seconds"]
        lines.append(f"{r['notebook']:<32} {'-' if sec is None else f'{sec:8.1f}':>8}  "
                     f"{'-' if sec is None else f'{sec / BUDGET_SECONDS:8.0%}':>9}  {r['source']}")
    lines.append(f"({jobs} notebook(s) at once; budget {BUDGET_SECONDS:.0f} s per notebook, "
                 "checked alone by benchmarks/bench_notebooks.py)")
    TIMES_TXT.write_text("\n".join(lines) + "\n")
    print("[book] " + "\n[book] ".join(lines), flush=True)


def _short(nb_path):
    return nb_path.relative_to(ROOT / "notebooks").with_suffix("").as_posix()


def executed_default(notebooks):
    """The executed notebooks of the default build, read back from the jupyter-cache."""
    from jupyter_cache import get_cache

    cache = get_cache(str(CACHE))
    out = {}
    for nb in notebooks:
        try:
            record = cache.get_cached_project_nb(str(nb))
        except Exception:
            record = None
        if record is not None:
            out[_short(nb)] = cache.get_cache_bundle(record.pk).nb
    return out


def notebook_sections(path):
    """The headings (levels 1 to 3, those with anchors) of a notebook's Markdown cells."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    found = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        src = cell.get("source", "")
        for line in ("".join(src) if isinstance(src, list) else src).splitlines():
            m = re.match(r"^(#{1,3})\s+(.+?)\s*#*\s*$", line)
            if m:
                found.append(m.group(2))
    return found


def _fmt(value):
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _anchor(section):
    from mdit_py_plugins.anchors.index import slugify

    if not section or any(ch in section for ch in "$`{*_['’") or section != section.strip():
        return ""
    return "#" + slugify(section)


def write_generated(executed, preset):
    """The scorecard (tables and picture), the paper-preset runtime table and ``_build/scorecard.json``."""
    from lupikit import _runs
    from lupikit._notebook_paths import is_exercise_notebook
    from lupikit.claims import read_claims

    GENERATED.mkdir(parents=True, exist_ok=True)
    # the exercise notebooks of the classroom edition make no paper claims
    notebooks = [nb for nb in toc_notebooks() if not is_exercise_notebook(nb)]
    data, runtime_rows = {}, []
    for nb in notebooks:
        short = _short(nb)
        record = _runs.read_paper_result(RESULTS, short)
        stale = record is not None and _runs.is_stale(record, nb, short)
        data[short] = {
            "default": read_claims(executed[short]) if short in executed else [],
            "paper": [] if record is None else record["claims"],
            "paper_executed_at": None if record is None else record["executed_at"],
            "paper_seconds": None if record is None else record["seconds"],
            "paper_commit": None if record is None else record["git_commit"],
            "paper_seeds": None if record is None else record.get("seeds"),
            "stale": stale,
            "sections": notebook_sections(nb),
        }
        runtime_rows.append((short, record, stale))
    (BUILD / "scorecard.json").write_text(json.dumps(data, indent=1) + "\n")

    verdict_figure(data, GENERATED / SCORECARD_FIGURE, preset)
    (GENERATED / "scorecard.md").write_text(scorecard_markdown(data, preset, figure=SCORECARD_FIGURE))
    counts = verdict_counts(data)

    rt = ["| notebook | `--preset paper` | recorded | commit |", "| --- | ---: | --- | --- |"]
    total = 0.0
    for short, record, stale in runtime_rows:
        if record is None:
            rt.append(f"| `{short}` | not recorded | | |")
            continue
        total += record["seconds"]
        sec = record["seconds"]
        when = record["executed_at"][:10] + (" (stale)" if stale else "")
        rt.append(f"| `{short}` | {sec / 60:.1f} min | {when} | `{record['git_commit'][:10]}` |"
                  if sec >= 90 else f"| `{short}` | {sec:.0f} s | {when} | `{record['git_commit'][:10]}` |")
    rt.append(f"| in all, one after another | {total / 60:.1f} min | | |")
    machines = sorted({r["machine"] for _, r, _ in runtime_rows if r})
    rt += ["", f"Measured on: {'; '.join(machines) or 'no recorded runs'}."]
    (GENERATED / "paper_runtimes.md").write_text("\n".join(rt) + "\n")
    write_data_page()
    write_classroom_table()
    print(f"[book] scorecard: {sum(counts['paper'].values())} claims recorded at the paper preset, "
          f"{sum(counts['build'].values())} of this build", flush=True)
    return data


# ---------------------------------------------------------------------------
# The scorecard, from the claim records (pure functions of ``data``, tested on
# synthetic records in tests/test_book.py)
# ---------------------------------------------------------------------------

#: Every verdict a claim record may carry, in the order the scorecard shows them.
VERDICTS = ("reproduced", "direction", "not reproduced", "not computable", "not runnable offline")
#: Okabe-Ito colours (distinguishable with the common colour-vision deficiencies),
#: and the colour of the count written on each.
VERDICT_COLOURS = {
    "reproduced": ("#009E73", "white"),
    "direction": ("#56B4E9", "black"),
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
PART_LABELS = {"intro": "Introduction", "boosting": "Part I", "twinsvm": "Part II",
               "relevance": "Part III", "oblivious": "Part IV"}
_SPECIAL = ("not computable", "not runnable offline")  # no value: the threshold holds the reason
_BRIEF = 60  # characters of a reason or of the paper's words in the compact tables


def _majority():
    """The fraction of seeds at which a claim must hold (``lupikit._seeds.MAJORITY``)."""
    try:
        from lupikit._seeds import MAJORITY
    except ImportError:  # pragma: no cover - a lupikit without the seeds machinery
        MAJORITY = 0.8
    return MAJORITY


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


def _build_label(preset):
    return "default" if preset == "default" else "this build"


def _brief(text, limit=_BRIEF):
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    if text[limit - 1] != " ":
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(",;:.(- ") + "…"


def _inline(text):
    """Text for one cell of a list-table: one line that cannot start a Markdown block."""
    text = " ".join(str(text).split())
    m = re.match(r"^(\d+)([.)])(\s|$)", text)
    if m:
        return m.group(1) + "\\" + text[len(m.group(1)):]
    if text[:1] and text[0] in "#>*+-=|:" and not text.startswith("**"):
        return "\\" + text
    return text


def _label(short, claim_id):
    """The reference target of a claim's details (unique in the book: notebook and id)."""
    return "claim-" + re.sub(r"[^a-z0-9]+", "-", f"{short}-{claim_id}".lower()).strip("-")


def seeds_text(claim):
    """``"4/5 seeds, 0.012–0.051"`` for a record aggregated over seeds, ``"1 seed"`` otherwise."""
    seeds = claim.get("seeds")
    if claim.get("verdict") in _SPECIAL and not seeds:
        return "–"
    if not seeds:
        return "1 seed"
    n, held, fraction = seeds.get("n"), seeds.get("held"), seeds.get("fraction")
    ran = round(held / fraction) if fraction and held else n
    text = f"{held}/{ran} seeds"
    lo, hi = seeds.get("min"), seeds.get("max")
    if lo is not None and hi is not None:
        text += f", {_fmt(lo)}" if lo == hi else f", {_fmt(lo)} to {_fmt(hi)}"
    return text


def _value_text(claim):
    """The measured value and what it needed, in short."""
    if claim["verdict"] in _SPECIAL:
        return f"{claim['verdict']}: {_brief(claim['threshold'], 50)}"
    text = "–" if claim.get("value") is None else _fmt(claim["value"])
    if claim.get("seeds") and claim["seeds"].get("median") is not None:
        text += " (median)"
    if claim.get("threshold"):
        text += f", needs {_brief(claim['threshold'], 40)}"
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
        rows.append({"id": c["id"], "paper": c, "build": b, "verdict": c["verdict"],
                     "differs": None if b is None or b["verdict"] == c["verdict"] else b["verdict"]})
    for b in d["default"]:
        if b["id"] not in paper_ids:
            rows.append({"id": b["id"], "paper": None, "build": b, "verdict": None, "differs": b["verdict"]})
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


def scorecard_markdown(data, preset, parts=PARTS, figure=None):
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

    Returns
    -------
    str
    """
    counts = verdict_counts(data)
    label = _build_label(preset)
    by_seeds = {}
    for short, d in data.items():
        by_seeds.setdefault(len(d.get("paper_seeds") or [None]), []).append(short)
    majority = _majority()
    lines = [
        f"This build: preset `{preset}`. Paper-scale values: `results/paper/`, recorded by "
        "`lupikit paper`; *stale* marks a value recorded before the notebook or its part's "
        "code last changed.",
        "",
        "| claims | " + " | ".join(VERDICTS) + " | in all |",
        "| --- |" + " ---: |" * (len(VERDICTS) + 1),
    ]
    for which, row_label in (("paper", "paper preset (recorded)"),
                             ("build", f"this build ({preset} preset)")):
        row = counts[which]
        lines.append(f"| {row_label} | " + " | ".join(str(row[v]) for v in VERDICTS)
                     + f" | {sum(row.values())} |")
    k = math.ceil(majority * 5 - 1e-9)
    lines += [
        "",
        f"**Seeds.** A paper-scale record made at several seeds keeps a claim's verdict only if "
        f"the claim holds for at least {majority:.0%} of the seeds ({k} of 5); otherwise the claim "
        "is *not reproduced*. The column *seeds* gives the number of seeds for which the claim "
        "held and the spread of the measured value over the seeds (smallest to largest); *1 seed* "
        "marks a record made at one seed. "
        + "Seeds per notebook: " + "; ".join(
            f"{n} seed{'s' if n > 1 else ''}: " + (", ".join(f"`{s}`" for s in sorted(shorts))
                                                  if n == 1 else f"{len(shorts)} notebook{'s' if len(shorts) > 1 else ''}")
            for n, shorts in sorted(by_seeds.items(), reverse=True)) + ".",
        "",
    ]
    if figure:
        lines += [
            f"```{{figure}} /{GENERATED.relative_to(ROOT).as_posix()}/{figure}",
            ":width: 100%",
            f":alt: Stacked bars, one pair per part: the number of claims with each verdict at the paper "
            f"preset and in this build ({preset} preset).",
            "",
            f"Claims per verdict and part: at the paper preset (recorded) and in this build "
            f"({preset} preset).",
            "```",
            "",
        ]
    for part, title in parts.items():
        shorts = [k for k in data if k.split("/")[0] == part]
        if not shorts:
            continue
        part_counts = verdict_counts({k: data[k] for k in shorts})
        lines += [f"## {title}", "",
                  f"{sum(part_counts['paper'].values())} claims at the paper preset: "
                  f"{_tally(part_counts['paper'])}. This build ({preset} preset), "
                  f"{sum(part_counts['build'].values())} claims: {_tally(part_counts['build'])}.", "",
                  ":::{list-table}", ":header-rows: 1", ":widths: 27 22 14 37", ":class: scorecard", "",
                  "* - claim", "  - verdict (paper preset" + (f" · {label})" if preset == "default" else ")"),
                  "  - seeds", "  - ours vs the paper"]
        details = []
        for short in shorts:
            d = data[short]
            for row in scorecard_rows(d):
                main = row["paper"] or row["build"]
                target = _label(short, row["id"])
                ours = _value_text(main)
                lines += [f"* - {{ref}}`{row['id']} <{target}>`",
                          f"  - {_inline(verdict_text(row, d['stale'], preset, bool(d['default'])))}",
                          f"  - {_inline(seeds_text(row['paper']) if row['paper'] else '–')}",
                          f"  - {_inline(ours + '; paper: ' + _brief(main['paper_value']))}"]
                details += claim_details(short, row, d, preset, target)
        lines += [":::", "", f"```{{rubric}} Details of the claims of {PART_LABELS.get(part, part)}", "```", ""]
        lines += details
    return "\n".join(lines) + "\n"


def claim_details(short, row, d, preset, target):
    """A closed drop-down with everything recorded about one claim (it opens when linked to)."""
    main = row["paper"] or row["build"]
    # the section of this build's notebook (a stale record may name one it no longer has)
    section = (row["build"] or row["paper"]).get("section") or ""
    anchor = _anchor(section) if section in d.get("sections", [section]) else ""
    where = (f"[{short}{' § ' + section if section else ''}]"
             f"(/notebooks/{short}.ipynb{anchor})")  # from the book's root: the page is included
    out = [f":::{{dropdown}} `{row['id']}`", ":class-container: claim-details", "",
           f"({target})=", f"**Claim.** {_one_line(main['statement'])}", "",
           f"**The paper.** {_one_line(main['paper_value'])}"
           + (f" ({_one_line(main['source'])})" if main.get("source") else ""), ""]

    def measured(head, c):
        if c["verdict"] in _SPECIAL:
            return f"{head} *{c['verdict']}*: {_one_line(c['threshold'])}"
        return (f"{head} *{c['verdict']}*; measured {'–' if c.get('value') is None else _fmt(c['value'])}"
                + (f", needs {_one_line(c['threshold'])}" if c.get("threshold") else ""))

    paper = row["paper"]
    if paper is None:
        out += ["**At the paper preset.** not recorded (the paper-scale run did not check it).", ""]
    else:
        text = measured("**At the paper preset.**", paper)
        seeds = paper.get("seeds")
        if seeds:
            text += f"; held at {seeds_text(paper)}" + (
                f", median {_fmt(seeds['median'])}" if seeds.get("median") is not None else "")
        elif paper["verdict"] not in _SPECIAL:
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


def _one_line(text):
    return " ".join(str(text).split())


def verdict_figure(data, path, preset, parts=PARTS):
    """Horizontal stacked bars of the claims per verdict: per part, at the paper preset and in this build.

    (The totals over the book are in the table above the picture.)
    """
    from matplotlib.figure import Figure

    rows = []  # (label, counts), top to bottom
    for part in parts:
        shorts = [k for k in data if k.split("/")[0] == part]
        if not shorts:
            continue
        c = verdict_counts({k: data[k] for k in shorts})
        rows += [(f"{PART_LABELS.get(part, part)}, paper preset", c["paper"]),
                 (f"{PART_LABELS.get(part, part)}, {preset}", c["build"])]
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
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "lupikit-scorecard", "svg.fonttype": "path"}):
        fig.savefig(path, format="svg", metadata={"Date": None})
    return path


def write_classroom_table():
    """The table of the teaching page: each part's computational and written exercises."""
    import nbformat

    from lupikit._notebook_paths import is_exercise_notebook
    from lupikit.classroom import read_questions, written_exercises

    written = {}
    for page in sorted((ROOT / "book").rglob("*.md")):
        if "_generated" in page.parts:
            continue
        part = page.relative_to(ROOT / "book").parts[0]
        written[part] = written.get(part, 0) + len(written_exercises(page.read_text(encoding="utf-8"), page.name))
    rows = ["| part | exercise notebook | computational exercises | points | minutes | written exercises |",
            "| --- | --- | ---: | ---: | ---: | ---: |"]
    for nb_path in toc_notebooks():
        short = _short(nb_path)
        part = short.split("/")[0]
        nb = nbformat.read(nb_path, as_version=4)
        if not is_exercise_notebook(nb_path):
            written[part] = written.get(part, 0) + len(written_exercises(
                "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown"), short))
            continue
        qs = read_questions(nb, short)
        rows.append(f"| {PART_LABELS.get(part, part)} | {{doc}}`/notebooks/{short}` | {len(qs)} | "
                    f"{sum(q.points for q in qs):g} | {sum(q.minutes or 0 for q in qs)} | {{w{part}}} |")
    text = "\n".join(rows)
    for part, n in written.items():
        text = text.replace(f"{{w{part}}}", str(n))
    text = re.sub(r"\{w\w+\}", "0", text)
    (GENERATED / "classroom.md").write_text(text + "\n")


def write_data_page():
    """The Data page's tables, from :func:`lupikit.datasets.data_table` (the loaders' metadata)."""
    from lupikit.datasets import DATA_ENV, data_table, get_data_home

    rows = data_table()
    part_names = {"boosting": "I", "twinsvm": "II", "relevance": "III", "oblivious": "IV"}
    home = os.environ.get(DATA_ENV) or str(get_data_home())
    lines = [f"Built with the data home `{home}`.", "",
             "| data set | part | loader | rows × columns as loaded | the paper's size | source | licence |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    lacking, details = [], []
    for r in rows:
        parts = ", ".join(part_names[p] for p in r["parts"])
        if r["status"].startswith("missing: "):
            lacking.append(f"- **{r['name']}** (Part {parts}): {r['status'][len('missing: '):]}")
            continue
        if r["shape"] is not None:
            size = f"{r['shape'][0]:,} × {r['shape'][1]:,}"
        elif r["status"] == "ok":
            size = "not loaded"
        else:
            size = "not in the data home"
        lines.append(f"| {_cell(r['name'])} | {parts} | `{r['loader']}` | {size} | "
                     f"{_cell(r['paper_shape'] or '–')} | {_cell(r['source'])} | {_cell(r['licence'])} |")
        text = r["preprocessing"] or "As distributed."
        if r["roles"]:
            text += f" *Sensitive or privileged:* {r['roles']}"
        if r["status"] != "ok":
            text += f" *Not available on this build:* {r['status']}"
        details.append(f"{r['name']}\n: {_cell(text)}\n")
    lines += ["", "## Preprocessing, and the features each paper treats as sensitive or privileged", ""]
    lines += details
    lines += ["## What we lack, and why", ""] + lacking
    (GENERATED / "data.md").write_text("\n".join(lines) + "\n")
    print(f"[book] data page: {len(rows) - len(lacking)} data sets, {len(lacking)} lacking", flush=True)


def _harness(jobs):
    from lupikit._harness import kernel_environment

    os.environ.update(kernel_environment(BUILD / ".ipython", blas_threads=1 if jobs > 1 else None))


def build(jobs, preset="default"):
    BUILD.mkdir(exist_ok=True)
    _harness(jobs)
    if preset == "paper":
        return build_paper(jobs)
    t0 = time.perf_counter()
    prefill_cache(jobs)
    t1 = time.perf_counter()
    write_generated(executed_default(toc_notebooks()), "default")
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(ROOT), "--builder", "html", "-W", "-n", "--keep-going"]
    print("[book] " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, cwd=ROOT)
    t2 = time.perf_counter()
    print(
        f"[book] notebooks {t1 - t0:.1f} s, jupyter-book {t2 - t1:.1f} s, total {t2 - t0:.1f} s",
        flush=True,
    )
    if proc.returncode != 0:
        print("[book] BUILD FAILED (see the warnings above)", file=sys.stderr)
        return proc.returncode
    print(f"[book] built: {INDEX}")
    return 0


def build_paper(jobs):
    """The book from the paper-scale executions, in a staging copy (not executed again)."""
    import shutil

    import yaml

    t0 = time.perf_counter()
    lupikit = Path(sys.executable).with_name("lupikit")
    proc = subprocess.run([str(lupikit), "--notebooks-dir", str(ROOT / "notebooks"), "paper",
                           "--jobs", str(jobs)], cwd=ROOT)
    if proc.returncode != 0:
        return proc.returncode
    stage = BUILD / "paper-book"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    for name in ("book", "src"):
        (stage / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "_toc.yml", stage / "_toc.yml")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"
    config["title"] = config["title"] + " (paper-scale runs)"
    (stage / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    from lupikit._notebook_paths import is_exercise_notebook

    executed = {}
    for nb in toc_notebooks():
        short = _short(nb)
        if is_exercise_notebook(nb):  # no paper scale: the exercises as written, not executed
            target = stage / "notebooks" / f"{short}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(nb, target)
            continue
        run = PAPER_RUNS / f"{short}.ipynb"
        if not run.is_file():
            print(f"[book] no paper-scale execution of {short}; run 'lupikit paper'", file=sys.stderr)
            return 1
        target = stage / "notebooks" / f"{short}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(run, target)
        executed[short] = json.loads(run.read_text())
    write_generated(executed, "paper")
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(stage), "--builder", "html", "-W", "-n", "--keep-going",
           "--path-output", str(BUILD / "paper-out")]
    print("[book] " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, cwd=stage)
    if proc.returncode != 0:
        print("[book] BUILD FAILED (see the warnings above)", file=sys.stderr)
        return proc.returncode
    html = BUILD / "html-paper"
    if html.exists():
        shutil.rmtree(html)
    shutil.move(str(BUILD / "paper-out" / "_build" / "html"), html)
    write_generated(executed_default(toc_notebooks()), "default")  # the default build's pages again
    print(f"[book] paper-scale book built in {time.perf_counter() - t0:.1f} s: {html / 'index.html'}")
    return 0


PRINT_CSS = """<style media="print">
/* lupikit's PDF: the book's text, without the web page's furniture */
div.solution, .toggle-button, .dropdown.solution { display: none !important; }
.bd-sidebar-primary, .bd-sidebar-secondary, .bd-header, .bd-footer, .header-article,
.prev-next-area, .bd-header-announcement, .sidebar-toggle { display: none !important; }
.bd-main .bd-content .bd-article-container { max-width: 100% !important; }
div.cell_output, div.output { break-inside: avoid; }
/* wide tables (the scorecard) wrap inside the page instead of being cut off */
.pst-scrollable-table-container, .table-wrapper, div.output { overflow: visible !important; }
table.table { width: 100% !important; table-layout: fixed; font-size: 80%; }
table.table th, table.table td { overflow-wrap: anywhere; word-break: normal; }
table.table code, table.table span.pre { white-space: normal !important; word-break: break-all; }
tr { break-inside: avoid; }
@page { size: A4; margin: 14mm 12mm; }
</style>
<script>
/* the scorecard's details of each claim are closed drop-downs on the web; print them open */
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("details.claim-details").forEach(function (d) { d.open = true; });
});
</script>
"""


def pdf():
    """One PDF of the book: jupyter-book's single-page HTML printed by headless Chromium."""
    BUILD.mkdir(exist_ok=True)
    _harness(2)
    prefill_cache(2)
    write_generated(executed_default(toc_notebooks()), "default")
    return print_pdf(ROOT, BUILD, BUILD / "pdf" / "lupikit.pdf")


def print_pdf(source, build, out):
    """Build ``source``'s single-page HTML into ``build/singlehtml`` and print it to ``out``."""
    import http.server
    import shutil
    import threading
    from functools import partial

    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(source), "--builder", "singlehtml", "-n", "--keep-going"]
    if Path(build) != BUILD:
        cmd += ["--path-output", str(Path(build).parent)]
    print("[pdf] " + " ".join(cmd), flush=True)
    if subprocess.run(cmd, cwd=source).returncode != 0:
        return 1
    single = Path(build) / "singlehtml"
    # The single page is written at the root document's path (book/index.html)
    # but with links relative to the output folder, next to a redirecting
    # index.html: the page is printed from the output folder itself.
    page = single / "index.html"
    html = (single / "book" / "index.html").read_text(encoding="utf-8")
    page.write_text(html.replace("</head>", PRINT_CSS + "</head>", 1), encoding="utf-8")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("[pdf] chromium is needed (tools/ensure_chromium.sh installs Debian's)", file=sys.stderr)
        return 1
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = partial(Quiet, directory=str(single))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", f"--user-data-dir={Path(build) / 'pdf-profile'}",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            "--virtual-time-budget=120000", "--run-all-compositor-stages-before-draw",
            "--no-pdf-header-footer", f"--print-to-pdf={out}",
            f"http://127.0.0.1:{httpd.server_address[1]}/index.html",
        ], capture_output=True, text=True, timeout=1800)
    finally:
        httpd.shutdown()
    if proc.returncode != 0 or not out.is_file():
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    print(f"[pdf] {out} ({out.stat().st_size / 2**20:.1f} MiB) printed in {time.perf_counter() - t0:.0f} s")
    return 0


def student_book(edition, instructor, jobs=2):
    """The book without solutions, from the student edition: ``edition/book/`` (HTML) and the PDF.

    The staging copy holds the Markdown pages without their ``{solution}``
    blocks and the student edition's notebooks. The chapters' code is the
    book's, so their executions come from the book's jupyter-cache (executed
    first if they are not there); the exercise notebooks, whose answer cells
    are stubs, are not executed. Then every solution line of the instructor
    edition is looked for in the HTML pages, the single page the PDF is
    printed from and the PDF's text: one found fails the build.
    """
    import shutil

    import nbformat
    import yaml

    from lupikit.classroom import find_leaks, solution_texts, strip_solution_blocks, student_notebook
    from lupikit._notebook_paths import is_exercise_notebook

    t0 = time.perf_counter()
    edition, instructor = Path(edition).resolve(), Path(instructor).resolve()
    BUILD.mkdir(exist_ok=True)
    _harness(jobs)
    prefill_cache(jobs)
    write_generated(executed_default(toc_notebooks()), "default")
    stage = BUILD / "student-book"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    (stage / "src").symlink_to(ROOT / "src")
    shutil.copytree(ROOT / "book", stage / "book")
    for page in (stage / "book").rglob("*.md"):
        page.write_text(strip_solution_blocks(page.read_text(encoding="utf-8")), encoding="utf-8")
    shutil.copy(ROOT / "_toc.yml", stage / "_toc.yml")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["title"] = config["title"] + " (student edition)"
    config["execute"]["cache"] = str(CACHE)
    config["execute"]["exclude_patterns"] = ["*/exercises*.ipynb", "exercises*.ipynb"]
    (stage / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    seed = json.loads((instructor / "edition.json").read_text())["seed"]
    for nb_path in toc_notebooks():
        short = _short(nb_path)
        target = stage / "notebooks" / f"{short}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        if is_exercise_notebook(nb_path):
            nb = student_notebook(nbformat.read(instructor / f"{short}.ipynb", as_version=4), variant=seed)
            nbformat.write(nb, target)
        else:
            shutil.copy(edition / f"{short}.ipynb", target)
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(stage), "--builder", "html", "-W", "-n", "--keep-going",
           "--path-output", str(BUILD / "student-out")]
    print("[student] " + " ".join(cmd), flush=True)
    if subprocess.run(cmd, cwd=stage).returncode != 0:
        print("[student] BUILD FAILED (see the warnings above)", file=sys.stderr)
        return 1
    html = edition / "book"
    if html.exists():
        shutil.rmtree(html)
    shutil.move(str(BUILD / "student-out" / "_build" / "html"), html)
    pdf_path = edition / "lupikit-student.pdf"
    if print_pdf(stage, BUILD / "student-out" / "_build", pdf_path) != 0:
        return 1
    # no solution text anywhere in what students get
    texts = solution_texts(sorted(instructor.rglob("*.ipynb")), sorted((ROOT / "book").rglob("*.md")))
    files = sorted(html.rglob("*.html")) + [BUILD / "student-out" / "_build" / "singlehtml" / "index.html"]
    if shutil.which("pdftotext"):
        text_of_pdf = BUILD / "student-out" / "lupikit-student.txt"
        subprocess.run(["pdftotext", str(pdf_path), str(text_of_pdf)], check=True)
        files.append(text_of_pdf)
    leaks = find_leaks(texts, files)
    if leaks:
        for f, line in leaks[:10]:
            print(f"[student] SOLUTION TEXT in {f}: {line!r}", file=sys.stderr)
        return 1
    print(f"[student] student book built in {time.perf_counter() - t0:.1f} s: {html / 'index.html'}, {pdf_path}; "
          f"{len(texts)} solution lines looked for in {len(files)} files, none found")
    return 0


def open_book(preset="default"):
    index = INDEX if preset == "default" else BUILD / "html-paper" / "index.html"
    if not index.is_file():
        print(f"no book at {index}; run 'make book' first", file=sys.stderr)
        return 1
    print(f"The book: {index}")
    print(f"Open it in a browser: file://{index}")
    if os.environ.get("DISPLAY") or sys.platform in ("darwin", "win32"):
        try:
            webbrowser.open(index.as_uri())
        except Exception:  # pragma: no cover - best effort only
            pass
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build")
    p_build.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    p_build.add_argument("--preset", choices=("default", "paper"), default="default")
    sub.add_parser("pdf")
    p_student = sub.add_parser("student", help="the student edition's book (HTML and PDF), no solutions")
    p_student.add_argument("--edition", required=True, help="the student edition (lupikit classroom build)")
    p_student.add_argument("--instructor", required=True, help="the instructor edition beside it")
    p_student.add_argument("--jobs", type=int, default=2)
    p_open = sub.add_parser("open")
    p_open.add_argument("--preset", choices=("default", "paper"), default="default")
    args = parser.parse_args(argv)
    if args.command == "build":
        return build(args.jobs, args.preset)
    if args.command == "pdf":
        return pdf()
    if args.command == "student":
        return student_book(args.edition, args.instructor, args.jobs)
    return open_book(args.preset)


if __name__ == "__main__":
    sys.exit(main())
