"""What ``lupikit sweep`` reports: a line per run, how often each claim held, a claim against a parameter.

It needs the notebook stack (the ``[cli]`` extra): :mod:`lupikit.cli` imports
it with :mod:`lupikit._runs`. This module imports no part of the library.
"""

import re
import textwrap
from pathlib import Path

from . import _runs
from ._cli_error import CLIError
from ._notebook_source import _NUMBER
from .claims import _fmt, read_claims


def _run_outcome_line(records, error):
    """``4 claims: 3 held, 1 failed (id)`` for a sweep's progress line."""
    counts, failed = {}, []
    for r in records:
        outcome = _runs.claim_outcome(r)
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


def _print_summary(summary, n_runs):
    """Print how often each claim held over a sweep's runs.

    Parameters
    ----------
    summary : list of dict
        One row per claim, from :func:`lupikit._runs.sweep_summary` (nothing
        is printed if it is empty).
    n_runs : int
        The number of runs of the sweep.
    """
    if summary:
        print(f"how often each claim held over the {n_runs} runs:")
        width = max(len(s["claim"]) for s in summary)
        for s in summary:
            decided = s["held"] + s["failed"]
            rate = f"held {s['held']}/{decided} ({s['pass rate']:.0%})" if decided else "checked in no run"
            extra = [f"{s[k]} {k}" for k in ("not computable", "not runnable offline", "not recorded") if s[k]]
            print(f"  {s['claim']:<{width}}  {rate}" + (f"; {', '.join(extra)}" if extra else ""))


_NEEDS = re.compile(rf"^(<=|>=|<|>|==|!=)\s*({_NUMBER}|nan|inf|-inf)$")


def _numeric(value):
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _plot_sweep(runs, rows, claim_id, param, others, target):
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
        raise CLIError(f"--plot: no claim {claim_id!r} was recorded; recorded: "
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
        outcome = _runs.claim_outcome(rec)
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
        handles.append(Line2D([], [], color="k", ls="--", label=f"threshold: needs {op} {_fmt(b)}"))
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
