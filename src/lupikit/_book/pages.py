"""The book's pages assembled from records, never typed: ``book/_generated/`` (private).

:func:`write_pages` writes, before jupyter-book runs:

- the scorecard (``scorecard.md`` and its picture, :mod:`lupikit._book.scorecard`)
  and ``_build/scorecard.json``, which the tests compare with the records;
- the execution status (``execution.md``): every notebook, its last execution
  at the default preset (when, how long, whether it passed, its claims) and its
  paper-scale record (when, at which seeds, how long, whether it is current);
- the runtimes of the paper presets (``paper_runtimes.md``);
- how many notebooks ran within the default preset's budget (``budget.md``,
  one sentence of the "Reproducing and rerunning" page);
- the Data page's tables (``data.md``, from the loaders' metadata);
- the teaching page's table of exercises (``classroom.md``).

The data page reads :mod:`lupikit.datasets` (the catalogue of the loaders),
the teaching page :mod:`lupikit.classroom`; no part of the library is imported.
"""

import json
import re

import nbformat

from ..claims import read_claims
from ..classroom import read_questions, written_exercises
from ..datasets import data_table
from .markdown import table_cell
from .notebook_source import read_sections
from .outcomes import unexpected
from .parts import PART_LABELS
from .paths import is_exercise_notebook
from .records import read_paper_result, staleness, with_current_prose
from .headlines import REPORTS, landing_markdown, part_headline_markdown
from .scorecard import SCORECARD_FIGURE, scorecard_markdown, verdict_counts, verdict_figure

__all__ = ["budget_markdown", "execution_markdown", "paper_runtimes_markdown", "write_classroom_table",
           "write_data_page", "write_pages"]


def write_pages(paths, executed, preset, notebooks, log=print):
    """Write every generated page of the book; return the scorecard's data.

    Parameters
    ----------
    paths : BookPaths
    executed : dict
        Short name to the executed notebook of this build (a path or a notebook node).
    preset : str
        The preset of this build.
    notebooks : list of Path
        The book's notebooks, in book order (:func:`lupikit._book.build.toc_notebooks`).
    log : callable
    """
    paths.generated.mkdir(parents=True, exist_ok=True)
    # the exercise notebooks of the classroom edition make no paper claims
    claimed = [nb for nb in notebooks if not is_exercise_notebook(nb)]
    data, records = {}, {}
    for nb in claimed:
        short = paths.short(nb)
        record = read_paper_result(paths.results, short)
        check = None if record is None else staleness(record, nb)
        stale = bool(check)
        if record is not None:  # (the claims' prose as the notebook states it now)
            record = with_current_prose(record, nb)
        records[short] = (record, check)
        data[short] = {
            "default": read_claims(executed[short]) if short in executed else [],
            "paper": [] if record is None else record["claims"],
            "paper_executed_at": None if record is None else record["executed_at"],
            "paper_seconds": None if record is None else record["seconds"],
            "paper_commit": None if record is None else record["git_commit"],
            "paper_seeds": None if record is None else record.get("seeds"),
            "stale": stale,
            "stale_because": [] if check is None else check.changed,
            "record_notes": [] if check is None else check.notes,
            "sections": read_sections(nb),
        }
    paths.build.mkdir(parents=True, exist_ok=True)
    paths.scorecard_json.write_text(json.dumps(data, indent=1) + "\n")
    verdict_figure(data, paths.generated / SCORECARD_FIGURE, preset)
    # the parts' reports that the book has (links from the headlines)
    reports = {part: doc for part, doc in REPORTS.items() if (paths.root / f"{doc}.md").is_file()}
    (paths.generated / "scorecard.md").write_text(scorecard_markdown(data, preset, figure=SCORECARD_FIGURE,
                                                                     reports=reports))
    # the headlines: per paper on the landing page, and at the top of each part's page and report
    (paths.generated / "headlines.md").write_text(landing_markdown(data, reports=reports))
    for part in REPORTS:
        (paths.generated / f"headline_{part}.md").write_text(part_headline_markdown(data, part))
    (paths.generated / "paper_runtimes.md").write_text(paper_runtimes_markdown(records))
    times = json.loads(paths.times_json.read_text()) if paths.times_json.is_file() else {}
    (paths.generated / "execution.md").write_text(
        execution_markdown([paths.short(nb) for nb in notebooks], times, data, records))
    (paths.generated / "budget.md").write_text(budget_markdown(times) + "\n")
    write_data_page(paths, log)
    write_classroom_table(paths, notebooks)
    counts = verdict_counts(data)
    log(f"[book] scorecard: {sum(counts['paper'].values())} claims recorded at the paper preset, "
        f"{sum(counts['build'].values())} of this build")
    return data


def _duration(seconds):
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


def budget_markdown(times):
    """How many notebooks ran with the default preset within its budget, in the executions the book shows.

    ``times``: ``_build/notebook-times.json`` (may be empty). A sentence with
    a link to the execution status page, which gives each time.

    Examples
    --------
    >>> times = {"budget_seconds": 60.0, "notebooks_at_once": 2, "notebooks": [
    ...     {"notebook": "a/x", "seconds": 20.5}, {"notebook": "a/y", "seconds": 75.0},
    ...     {"notebook": "a/z", "seconds": None}]}
    >>> print(budget_markdown(times))  # doctest: +NORMALIZE_WHITESPACE
    In the executions this book shows, 1 of the 3 notebooks ran with the default preset within
    60 s, two at a time beside other work on the machine; `a/y` (75 s) took longer, and `a/z`
    failed. The {doc}`/book/execution` page gives each notebook's time.
    >>> budget_markdown({})
    'No notebook of this build was timed: the {doc}`/book/execution` page says why.'
    """
    rows = times.get("notebooks") or []
    budget = times.get("budget_seconds")
    if not rows or not budget:
        return "No notebook of this build was timed: the {doc}`/book/execution` page says why."
    within = [r for r in rows if r["seconds"] is not None and r["seconds"] <= budget]
    over = [f"`{r['notebook']}` ({_duration(r['seconds'])})" for r in rows
            if r["seconds"] is not None and r["seconds"] > budget]
    failed = [f"`{r['notebook']}`" for r in rows if r["seconds"] is None]
    at_once = times.get("notebooks_at_once") or 1
    text = (f"In the executions this book shows, {len(within)} of the {len(rows)} notebooks ran with the "
            f"default preset within {_duration(budget)}, "
            + ("one at a time" if at_once == 1 else f"{_NUMBER_WORDS.get(at_once, at_once)} at a time")
            + " beside other work on the machine")
    if over:
        text += f"; {_listed(over)} took longer"
    if failed:
        text += f"{',' if over else ';'} and {_listed(failed)} failed"
    return text + ". The {doc}`/book/execution` page gives each notebook's time."


_NUMBER_WORDS = {2: "two", 3: "three", 4: "four"}


def _listed(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def paper_runtimes_markdown(records):
    """The runtime table of the paper presets: ``{short: (record or None, stale)}``, in book order."""
    rt = ["| notebook | `--preset paper` | recorded | commit |", "| --- | ---: | --- | --- |"]
    total = 0.0
    for short, (record, stale) in records.items():
        if record is None:
            rt.append(f"| `{short}` | not recorded | | |")
            continue
        total += record["seconds"]
        when = record["executed_at"][:10] + (" (stale)" if stale else "")
        rt.append(f"| `{short}` | {_duration(record['seconds'])} | {when} | `{record['git_commit'][:10]}` |")
    rt.append(f"| in all, one after another | {total / 60:.1f} min | | |")
    machines = sorted({r["machine"] for r, _ in records.values() if r})
    rt += ["", f"Measured on: {'; '.join(machines) or 'no recorded runs'}."]
    return "\n".join(rt) + "\n"


def _seeds_text(seeds):
    """``5 seeds (0–4)``, ``1 seed (3)``."""
    if not seeds:
        return "1 seed"
    seeds = [int(s) for s in seeds]
    consecutive = len(seeds) > 1 and seeds == list(range(seeds[0], seeds[0] + len(seeds)))
    listed = f"{seeds[0]}–{seeds[-1]}" if consecutive else ", ".join(map(str, seeds))
    return f"{len(seeds)} seed{'s' if len(seeds) > 1 else ''} ({listed})"


def _default_cells(row, claims):
    """When and how long a notebook last ran at the default preset, and with what result."""
    if row is None:
        return ["not executed", "–"]
    when = (row.get("executed_at") or "")[:16].replace("T", " ") or "–"
    if row.get("seconds") is None:
        return [when, "✘ failed"]
    n_off = sum(1 for c in claims if unexpected(c))
    result = "✔ passed" + (f", {len(claims)} claims" if claims else "")
    if n_off:
        result = f"✘ {n_off} of {len(claims)} claims not as stated"
    return [f"{when}, {_duration(row['seconds'])}", result]


def _paper_cells(record, stale):
    """When, at which seeds and how long the paper-scale record ran, and whether it is current.

    ``stale`` is the record's check (:func:`lupikit._book.records.staleness`):
    a stale record names what changed (at most three, then how many more).
    """
    if record is None:
        return ["not recorded", "–"]
    state = "current"
    if stale:
        changed = list(getattr(stale, "changed", []))
        shown = "; ".join(f"`{c.removeprefix('definition ')}`" if c.startswith("definition ") else c
                          for c in changed[:3])
        state = "stale" + (f": {shown}" if shown else "") + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
    return [f"{record['executed_at'][:10]}, {_seeds_text(record.get('seeds'))}, "
            f"{_duration(record['seconds'])} each", state]


def execution_markdown(shorts, times, data, records):
    """The execution status page's table: a row per notebook of the book.

    Parameters
    ----------
    shorts : list of str
        The book's notebooks (short names), in book order.
    times : dict
        ``_build/notebook-times.json`` of the last default build (may be empty).
    data : dict
        The scorecard's data (:func:`write_pages`): this build's claims.
    records : dict
        ``{short: (paper-scale record or None, stale)}``.
    """
    by_name = {r["notebook"]: r for r in times.get("notebooks", [])}
    lines = ["| notebook | default preset: last run | result | paper-scale record | record |",
             "| --- | --- | --- | --- | --- |"]
    for short in shorts:
        claims = data.get(short, {}).get("default", [])
        record, stale = records.get(short, (None, False))
        paper = _paper_cells(record, stale) if short in records else ["no paper claims", "–"]
        lines.append(f"| {{doc}}`{short} </notebooks/{short}>` | "
                     + " | ".join(_default_cells(by_name.get(short), claims) + paper) + " |")
    at_once = times.get("notebooks_at_once")
    n_current = sum(1 for r, s in records.values() if r is not None and not s)
    versions = sorted({n for r, s in records.values() if r is not None and s is not None
                       for n in getattr(s, "notes", []) if " then, " in n})
    unlogged = sum(1 for r, s in records.values() if r is not None and s is not None
                   and "data files not logged by this run" in getattr(s, "notes", []))
    lines += ["", f"{len(shorts)} notebooks; {n_current} of {len(records)} paper-scale records current "
              "(`lupikit paper --check` gives the same verdict and names what changed). A record is stale "
              "when the notebook's code, a library definition its run can execute, or a data file it read "
              "has changed since; a claim's prose is rendered from the notebook as it is now. A library "
              "version that differs from the one a record ran on is shown here and does not make the record "
              "stale: a fresh install takes the registry's newest release."
              + (f" Versions that differ: {'; '.join(versions)}." if versions else "")
              + (f" {unlogged} records list neither the data files their runs read nor the libraries' "
                 "versions; the registered SHA-256 of the data files, which the loaders check, are part of "
                 "the code those runs executed." if unlogged else "")
              + (f" The default-preset times were measured {at_once} notebook(s) at once, beside other "
                 "work on the machine: a measurement, not a check." if at_once else "")]
    return "\n".join(lines) + "\n"


def write_classroom_table(paths, notebooks):
    """The table of the teaching page: each part's computational and written exercises."""
    written = {}
    for page in sorted(paths.pages.rglob("*.md")):
        if "_generated" in page.parts:
            continue
        part = page.relative_to(paths.pages).parts[0]
        written[part] = written.get(part, 0) + len(written_exercises(page.read_text(encoding="utf-8"), page.name))
    rows = ["| part | exercise notebook | computational exercises | points | minutes | written exercises |",
            "| --- | --- | ---: | ---: | ---: | ---: |"]
    for nb_path in notebooks:
        short = paths.short(nb_path)
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
    (paths.generated / "classroom.md").write_text(text + "\n")



# a file name in running text (``experiments4.py``, ``gen_data.py``): shown as code, not turned into a link
_FILE_NAME = re.compile(
    r"(?<![`\w/.:-])((?:[\w-]+/)*[\w-]+(?:\.(?:py|csv|arff|data|txt|json|zip|gz|xlsx?|dat|mat|sav))+)\b(?!`)")


def _file_names_as_code(text):
    """``text`` with its file names in code spans (MyST's linkify would make ``a.py`` a link to a web site).

    Examples
    --------
    >>> _file_names_as_code("lpfann/fri (experiments4.py; generator fri/toydata/gen_data.py)")
    'lpfann/fri (`experiments4.py`; generator `fri/toydata/gen_data.py`)'
    >>> _file_names_as_code("fairness/bank-full.csv.gz and ecoli.data.txt")
    '`fairness/bank-full.csv.gz` and `ecoli.data.txt`'
    """
    return _FILE_NAME.sub(r"`\1`", str(text))


def write_data_page(paths, log=print):
    """The Data page's tables, from :func:`lupikit.datasets.data_table` (the loaders' metadata)."""
    rows = data_table()
    part_names = {p: label.removeprefix("Part ") for p, label in PART_LABELS.items() if label.startswith("Part ")}
    # what the build found, said without the build machine's path
    from_home = [r for r in rows if str(r["source"]).startswith("data home")]
    found = sum(1 for r in from_home if r["status"] == "ok")
    if not from_home:
        summary = "Every data set of this edition ships with a package or is generated."
    elif found == len(from_home):
        summary = f"This edition was built with all {found} data sets that are read from the data home."
    elif found:
        summary = (f"This edition was built with {found} of the {len(from_home)} data sets read from the data "
                   "home; the others are marked below, and what needs them was skipped.")
    else:
        summary = ("This edition was built without a data home: the data sets read from it are marked below, "
                   "and what needs them was skipped.")
    lines = [summary, "",
             "| data set | part | loader | rows × columns as loaded | the paper's size |",
             "| --- | --- | --- | --- | --- |"]
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
        # (a narrow table that fits the column; where each set comes from is told below it)
        lines.append(f"| {table_cell(r['name'])} | {parts} | `{r['loader']}` | {size} | "
                     f"{table_cell(r['paper_shape'] or '–')} |")
        text = (f"*Source:* {_file_names_as_code(str(r['source']).rstrip('.'))}. "
                f"*Licence:* {str(r['licence']).rstrip('.')}. "
                + (r["preprocessing"] or "As distributed."))
        if r["roles"]:
            text += f" *Sensitive or privileged:* {r['roles']}"
        if r["status"] != "ok":
            text += f" *Not available on this build:* {r['status']}"
        details.append(f"{r['name']}\n: {table_cell(text)}\n")
    lines += ["", "## Sources, licences, preprocessing, and the features each paper treats as sensitive or "
              "privileged", ""]
    lines += details
    lines += ["## What we lack, and why", ""] + lacking
    (paths.generated / "data.md").write_text("\n".join(lines) + "\n")
    log(f"[book] data page: {len(rows) - len(lacking)} data sets, {len(lacking)} lacking")

