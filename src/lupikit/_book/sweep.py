"""A parameter sweep of a notebook: its runs, its table of claims, how often each held, a plot (private).

``lupikit sweep`` runs a notebook for every combination of parameter values
(:func:`plan_sweep` checks them against the notebook before the first run,
:func:`run_sweep` runs them, several at once or as Dask tasks), then writes a
row per run (:func:`sweep_rows`: the parameters the run used, read back from
it, and per claim its value, outcome and verdict) and how often each claim
held (:func:`sweep_summary`) as CSV files (:func:`write_sweep_tables`), and
with ``--plot`` one claim against one swept parameter (:func:`plot_sweep`).

This module imports no part of the library.
"""

import csv
import json
import itertools
import os
import re
import shlex
import textwrap
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ..claims import format_value, read_claims, read_run_parameters
from .cluster import apply_harness, harness_environment
from .errors import BookError
from .execute import execute, executed_parameters
from .harness import read_failed_asserts
from .notebook_source import _NUMBER
from .outcomes import claim_outcome
from .render import render_or_warning
from .values import check_preset_conflicts, split_values, validate_parameters

__all__ = ["SUMMARY_KEYS", "SweepPlan", "plan_sweep", "plot_sweep", "run_one", "run_sweep", "sweep_grid",
           "sweep_rows", "sweep_summary", "write_sweep_tables"]


def sweep_grid(values):
    """Every combination of ``{name: [v1, v2, ...]}`` as a list of dicts (in order)."""
    names = list(values)
    return [dict(zip(names, combo)) for combo in itertools.product(*(values[n] for n in names))]



def _cell(value):
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def sweep_rows(runs):
    """One row per run: the parameters it used, then per claim its value, outcome and verdict.

    ``runs`` is a list of ``(parameters, executed_path, seconds, error)``, the
    parameters as requested. The row's parameters are those the run used, read
    back from the executed notebook (:func:`lupikit.claims.read_run_parameters`,
    and for a parameter the notebook does not record there, the value it
    started with, :func:`executed_parameters`), the requested ones first; the
    seconds, the error of a cell that raised, and the notebook's own asserts
    that failed (:func:`read_failed_asserts`). Per claim: ``<id>`` (the value;
    empty if not computable), ``<id>:holds`` (True, False or empty) and
    ``<id>:verdict``.
    """
    rows = []
    for i, (params, executed, seconds, error) in enumerate(runs):
        ran = {}
        records, failed = [], []
        if executed is not None and Path(executed).is_file():
            # the values after the preset where the notebook recorded them, else those it started with
            ran = {**executed_parameters(executed), **read_run_parameters(executed)}
            records = read_claims(executed)
            failed = read_failed_asserts(executed)
        used = {k: ran.get(k, v) for k, v in params.items()}
        used.update({k: v for k, v in ran.items() if k not in used})
        row = {"run": i, **{k: _cell(v) for k, v in used.items()},
               "seconds": round(seconds, 2), "error": error or "",
               "failed asserts": "; ".join(f"cell {f['cell']}: {f['check']}" for f in failed)}
        for c in records:
            row[c["id"]] = c["value"]
            row[c["id"] + ":holds"] = c["holds"]
            row[c["id"] + ":verdict"] = c["verdict"]
        rows.append(row)
    return rows


SUMMARY_KEYS = ("claim", "statement", "threshold", "runs", "held", "failed", "not computable",
                "not runnable offline", "not recorded", "pass rate")


def sweep_summary(runs):
    """How often each claim held over a sweep's runs (a list of dicts with :data:`SUMMARY_KEYS`).

    ``runs`` is a list of ``(parameters, executed_path, seconds, error)``.
    ``pass rate`` is held / (held + failed), None when neither; ``not
    recorded`` counts the runs that did not record the claim (the run stopped
    before it, or the claim exists only at some parameters).
    """
    per_run = []
    for _, executed, _, _ in runs:
        per_run.append(read_claims(executed) if executed is not None and Path(executed).is_file() else [])
    order, first = [], {}
    for records in per_run:
        for c in records:
            if c["id"] not in first:
                order.append(c["id"])
                first[c["id"]] = c
    table = []
    for cid in order:
        counts = dict.fromkeys(("held", "failed", "not computable", "not runnable offline"), 0)
        thresholds = []
        for records in per_run:
            for c in records:
                if c["id"] == cid:
                    counts[claim_outcome(c)] += 1
                    if c.get("threshold") and c["threshold"] not in thresholds and c["verdict"] not in (
                            "not runnable offline", "not computable"):
                        thresholds.append(c["threshold"])
        decided = counts["held"] + counts["failed"]
        table.append({"claim": cid, "statement": first[cid]["statement"],
                      "threshold": "; ".join(thresholds), "runs": len(runs), **counts,
                      "not recorded": len(runs) - sum(counts.values()),
                      "pass rate": round(counts["held"] / decided, 4) if decided else None})
    return table


@dataclass
class SweepPlan:
    """What a sweep will run: the swept values, the runs' parameters, and a warning for ``--plot``."""

    grid_values: dict
    grid: list
    plot_warning: str = None


def plan_sweep(params, presets, settings, pairs, *, short, preset=None, plot=None, claim_ids=None, jobs=1):
    """Check a sweep's values against a notebook and list its runs (before any runs).

    Parameters
    ----------
    params, presets, settings
        The notebook's parameters, presets and what each preset sets
        (:mod:`lupikit._book.notebook_source`).
    pairs : list of (str, str)
        ``-p NAME V1,V2,...`` as given.
    short : str
        The notebook's short name (for messages).
    preset : str or None
        The preset of every run (``--preset``).
    plot : (str, str) or None
        ``--plot CLAIM PARAM``.
    claim_ids : ClaimIds or None
        The claim ids the notebook's code checks (:func:`read_claim_ids`), for ``plot``.
    jobs : int
        Runs at once (at least 1).

    Returns
    -------
    SweepPlan

    Raises
    ------
    BookError
        An unknown parameter, a value out of range, a value a preset would
        override, a ``--plot`` that names no swept parameter or claim.
    """
    grid_values = {}
    for name, text in pairs or []:
        if name not in params:
            valid = "\n".join("  " + p.describe() for p in params.values())
            raise BookError(f"unknown sweep parameter {name!r}. Valid parameters:\n{valid}")
        if name in grid_values:
            raise BookError(f"parameter {name!r} is given twice; give all its values in one -p.")
        grid_values[name] = split_values(params[name], text)
    if not grid_values:
        raise BookError("give at least one parameter to sweep: -p NAME V1,V2,...")
    if jobs < 1:
        raise BookError(f"--jobs must be at least 1, got {jobs}.")
    if preset is not None and "preset" in grid_values:
        raise BookError("give the preset either with --preset or swept with -p preset, not both.")
    fixed = validate_parameters(params, [], preset, presets) if preset else {}
    swept_presets = grid_values.get("preset", [preset] if preset else [])
    others = {name: shlex.quote(text) for name, text in pairs if name != "preset"}
    for v in swept_presets:
        validate_parameters(params, [], v, presets)
        check_preset_conflicts(v, others, settings, params, sweep=True)
    warning = None
    if plot:
        claim_id, param = plot
        if param not in grid_values:
            raise BookError(f"--plot: {param!r} is not a swept parameter ({', '.join(grid_values)}).")
        if claim_ids is not None and not claim_ids.matches(claim_id):
            if not claim_ids.unresolved:
                raise BookError(f"--plot: {short} checks no claim {claim_id!r}; its claims: "
                                f"{claim_ids.describe()}.")
            warning = (f"--plot: {claim_id!r} is not among the claim ids found in {short}'s code "
                       f"({claim_ids.describe()}), but some ids are computed at run time: it is checked after "
                       "the runs.")
    grid = [{**fixed, **g} for g in sweep_grid(grid_values)]
    return SweepPlan(grid_values, grid, warning)


def run_one(path, target, parameters, kernel, env=None):
    """One run of a sweep (also a Dask task: it must be importable on the workers).

    ``env`` is the kernels' harness (:func:`lupikit._book.cluster.harness_environment`),
    set on a worker before the run: the notebook's own asserts are soft there too.
    """
    if env is not None:
        apply_harness(env)
    os.environ["LUPIKIT_CLAIMS"] = "record"
    os.environ["LUPIKIT_SOFT_ASSERTS"] = "1"
    seconds, error = execute(path, target, parameters, kernel=kernel)
    return str(target), seconds, error


def run_sweep(path, grid, targets, *, jobs=1, kernel="python3", client=None, mathjax=None, out=None,
              on_done=None):
    """Run every parameter set of ``grid`` into ``targets``; return the runs.

    Each executed notebook gets its HTML page (:func:`lupikit._book.render.render_html`).
    ``on_done(i, seconds, error, records, failed_asserts, warning)`` is called as
    each run finishes (``records``: its claims; ``warning``: why its page could not
    be written, or None).

    Returns
    -------
    runs : list of (parameters, executed_path, seconds, error)
        In the order of ``grid``.
    """
    results = [None] * len(grid)

    def finished(i, future):
        try:
            result = future.result()
        except Exception as exc:  # noqa: BLE001 - one run's failure (e.g. a lost worker) is recorded
            result = (str(targets[i]), 0.0, f"{type(exc).__name__}: {exc}")
        results[i] = result
        target, seconds, error = result
        records, failed_asserts, warning = [], [], None
        if Path(target).is_file():
            records = read_claims(target)
            failed_asserts = read_failed_asserts(target)
            _, warning = render_or_warning(target, mathjax, out)
        if on_done is not None:
            on_done(i, seconds, error, records, failed_asserts, warning)

    if client is not None:
        from distributed import as_completed as dask_completed

        env = harness_environment()  # (the workers' kernels get this process's harness)
        futures = {client.submit(run_one, str(path), str(t), g, kernel, env, pure=False): i
                   for i, (t, g) in enumerate(zip(targets, grid))}
        for future in dask_completed(list(futures)):
            finished(futures[future], future)
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(run_one, path, t, g, kernel): i for i, (t, g) in enumerate(zip(targets, grid))}
            for future in as_completed(futures):
                finished(futures[future], future)
    return [(g, target, seconds, error) for g, (target, seconds, error) in zip(grid, results)]


def write_sweep_tables(runs, out):
    """Write ``claims.csv`` (a row per run) and ``claims-summary.csv`` (a row per claim) into ``out``.

    Returns
    -------
    tables : dict
        ``rows`` and ``summary`` (:func:`sweep_rows`, :func:`sweep_summary`) and
        the paths ``table`` and ``summary_path``.
    """
    rows = sweep_rows(runs)
    columns = list(dict.fromkeys(k for row in rows for k in row))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table = out / "claims.csv"
    with table.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    summary = sweep_summary(runs)
    summary_path = out / "claims-summary.csv"
    with summary_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(SUMMARY_KEYS))
        writer.writeheader()
        writer.writerows(summary)
    return {"rows": rows, "summary": summary, "table": table, "summary_path": summary_path}


def run_label(parameters, swept):
    """``seed=1, n=[50, 100]``: a run's values of the swept parameters."""
    return ", ".join(f"{k}={json.dumps(v) if isinstance(v, list) else v}" for k, v in parameters.items()
                     if k in swept)


_NEEDS = re.compile(rf"^(<=|>=|<|>|==|!=)\s*({_NUMBER}|nan|inf|-inf)$")


def _numeric(value):
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def plot_sweep(runs, rows, claim_id, param, others, target):
    """One claim's value against one swept parameter: held and failed runs, the threshold."""
    import matplotlib  # the notebook stack

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    records = []  # (row, record) of the runs that recorded the claim
    for row, (_, executed, _, _) in zip(rows, runs):
        found = [c for c in (read_claims(executed) if Path(executed).is_file() else []) if c["id"] == claim_id]
        if found:
            records.append((row, found[0]))
    if not records:
        known = sorted({k for r in rows for k in r if k.endswith(":verdict")})
        raise BookError(f"--plot: no claim {claim_id!r} was recorded; recorded: "
                       f"{', '.join(k.rsplit(':', 1)[0] for k in known) or 'none'}.")
    xs_raw = [row[param] for row, _ in records]
    numeric_x = all(_numeric(x) is not None and not isinstance(x, bool) for x in xs_raw)
    categories = list(dict.fromkeys(str(x) for x in xs_raw))

    def xpos(x):
        return float(x) if numeric_x else float(categories.index(str(x)))

    statement = records[0][1]["statement"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    groups = {}
    for row, rec in records:
        groups.setdefault(tuple((k, row.get(k)) for k in others), []).append((row, rec))
    handles = []
    styles = ["-", "--", ":", "-."]
    for g, (key, members) in enumerate(groups.items()):
        pts = sorted(((xpos(row[param]), _numeric(rec["value"])) for row, rec in members
                      if _numeric(rec["value"]) is not None), key=lambda t: t[0])
        if len(pts) > 1:
            colour = plt.cm.tab10(g % 10) if len(groups) > 1 else "0.5"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], styles[g // 10 % 4], color=colour, lw=1,
                    alpha=0.7, zorder=1)
            if key:  # the other swept parameters of this line
                handles.append(Line2D([], [], color=colour, ls=styles[g // 10 % 4], alpha=0.7,
                                      label=", ".join(f"{k}={v}" for k, v in key)))
    colours = {"held": "tab:green", "failed": "tab:red"}
    n_missing = 0
    for row, rec in records:
        y = _numeric(rec["value"])
        outcome = claim_outcome(rec)
        if y is None or outcome not in colours:
            n_missing += 1
            continue
        ax.plot([xpos(row[param])], [y], "o" if outcome == "held" else "X", color=colours[outcome],
                markersize=8, zorder=3)
    handles = [Line2D([], [], ls="", marker="o", color=colours["held"], label="claim held"),
               Line2D([], [], ls="", marker="X", color=colours["failed"], label="claim failed")] + handles
    # the threshold, from the records: one line if every run has the same
    bounds = []
    for row, rec in records:
        op, bound = rec.get("op"), rec.get("bound")
        if op is None and rec.get("threshold"):
            m = _NEEDS.match(rec["threshold"].strip())
            if m:
                op, bound = m.group(1), float(m.group(2))
        if op is not None and _numeric(bound) is not None:
            bounds.append((xpos(row[param]), op, float(bound)))
    if bounds and len({(op, b) for _, op, b in bounds}) == 1:
        op, b = bounds[0][1], bounds[0][2]
        ax.axhline(b, color="k", ls="--", lw=1, zorder=2)
        handles.append(Line2D([], [], color="k", ls="--", label=f"threshold: needs {op} {format_value(b)}"))
    elif bounds:
        bounds.sort()
        ax.plot([t[0] for t in bounds], [t[2] for t in bounds], "_", color="k", markersize=14, mew=2, zorder=2)
        ops = sorted({op for _, op, _ in bounds})
        handles.append(Line2D([], [], ls="", marker="_", color="k", markersize=14, mew=2,
                              label=f"threshold of each run (needs {'/'.join(ops)} it)"))
    elif records[0][1].get("threshold"):
        handles.append(Line2D([], [], ls="", label=f"needs: {records[0][1]['threshold']}"))
    if n_missing:
        handles.append(Line2D([], [], ls="", label=f"{n_missing} run(s) not computable, not shown"))
    if not numeric_x:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories, rotation=20, fontsize=8)
    ax.set_xlabel(param)
    ax.set_ylabel("\n".join(textwrap.wrap(statement, 60)) + f"\n({claim_id})", fontsize=7)
    ax.set_title(f"{claim_id} against {param}", fontsize=10)
    ax.legend(handles=handles, fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(target, dpi=120)
    plt.close(fig)
    return target
