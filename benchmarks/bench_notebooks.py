"""The time budget of the book's notebooks; a measurement for developers, not run by CI.

Every notebook's default parameters must run in under 60 s on 2 cores
(CONTRIBUTING.md). That is a budget, not a test: a wall-clock time depends on
what else the machine does, and in CI the book build executes two notebooks at
once while the library's tests run beside it. So the suite does not check it
(it only catches a gross regression, see ``tests/test_book.py``); this script
does, under known conditions:

- by default it executes each notebook alone, one after another, with its
  default parameters and one BLAS thread (as ``make`` sets), and times the
  whole execution including the kernel's start;
- ``--from-build`` reads instead the table the last book build wrote
  (``_build/notebook-times.json``: several notebooks at once, with the load of
  whatever ran beside them).

It prints a table (seconds and share of the budget) and, as the last lines,
the slowest notebook and the verdict; it exits with status 1 when a notebook
is over the budget.

Run: ``python benchmarks/bench_notebooks.py [NAME ...] [--from-build] [--budget 60]
[--quick] [--record-dir DIR]`` (NAME is a short name such as ``intro/lupi_setting``;
none means all).

The run's record (``_record.py``) is ``results/benchmarks/notebooks.json``
(``notebooks_build.json`` with ``--from-build``, ``notebooks_selected.json``
for a run of named notebooks): values ``budget``,
``n_notebooks``, ``total_seconds``, ``slowest``, ``slowest_seconds``,
``slowest_share`` and ``n_over_budget``; table ``times``. ``--quick`` executes
one generated one-cell notebook instead of the book's (the same code path, in
seconds) and writes its record to a temporary folder.
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import _record

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
TIMES_JSON = ROOT / "_build" / "notebook-times.json"


def short_name(path):
    return path.relative_to(NOTEBOOKS).with_suffix("").as_posix()


def all_notebooks():
    return sorted(p for p in NOTEBOOKS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def time_alone(paths, names=None):
    """Execute each notebook alone with its defaults; return {name: seconds}
    (``names``: the short name of each path, default :func:`short_name`)."""
    import papermill

    names = names or [short_name(p) for p in paths]
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # the kernel inherits it, as under make
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path, name in zip(paths, names):
            out = Path(tmp) / path.name
            t0 = time.perf_counter()
            papermill.execute_notebook(str(path), str(out), kernel_name="python3",
                                       cwd=str(path.parent), progress_bar=False)
            times[name] = time.perf_counter() - t0
            print(f"  {name:<32} {times[name]:7.1f} s", flush=True)
    return times


def times_from_build(names):
    if not TIMES_JSON.is_file():
        sys.exit(f"no {TIMES_JSON.relative_to(ROOT)}: build the book first (make book)")
    data = json.loads(TIMES_JSON.read_text())
    print(f"from the last book build ({data['notebooks_at_once']} notebooks at once)")
    rows = {r["notebook"]: r["seconds"] for r in data["notebooks"] if r["seconds"] is not None}
    return {k: v for k, v in rows.items() if not names or k in names}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks (short names); default: all")
    parser.add_argument("--from-build", action="store_true",
                        help="read _build/notebook-times.json instead of executing")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per notebook")
    _record.add_arguments(parser)
    args = parser.parse_args(argv)
    record = _record.Record("notebooks_build" if args.from_build else
                            "notebooks_selected" if args.names else "notebooks",
                            "bench_notebooks.py", packages=("papermill",), argv=argv)
    paths = all_notebooks()
    known = {short_name(p): p for p in paths}
    unknown = [n for n in args.names if n not in known]
    if unknown:
        parser.error(f"unknown notebook(s) {unknown}; known: {sorted(known)}")
    if args.from_build:
        times = times_from_build(set(args.names))
    elif args.quick:
        times = _quick_times()
    else:
        print(f"executing {len(args.names) or len(paths)} notebook(s) alone, default parameters")
        times = time_alone([known[n] for n in args.names] if args.names else paths)
    if not times:
        sys.exit("no notebook times")
    print(f"\n{'notebook':<32} {'seconds':>8} {'of budget':>10}")
    rows = []
    for name, sec in sorted(times.items(), key=lambda kv: -kv[1]):
        print(f"{name:<32} {sec:8.1f} {sec / args.budget:10.0%}")
        rows.append([name, round(sec, 1), f"{sec / args.budget:.0%}"])
    slowest = max(times, key=times.get)
    over = sorted(k for k, v in times.items() if v > args.budget)
    how = ("from the last book build" if args.from_build else
           "each notebook executed alone with its default parameters, one BLAS thread")
    record.table("times", f"Seconds per notebook ({how}) and share of the "
                 f"{args.budget:.0f}-s budget", ["notebook", "seconds", "of budget"], rows)
    for key, v in (("budget", args.budget), ("n_notebooks", len(times)),
                   ("total_seconds", sum(times.values())), ("slowest", slowest),
                   ("slowest_seconds", times[slowest]),
                   ("slowest_share", times[slowest] / args.budget), ("n_over_budget", len(over))):
        record.value(key, v)
    record.write(_record.record_dir(args.record_dir, args.quick))
    print(f"total {sum(times.values()):.1f} s for {len(times)} notebook(s)")
    print(f"slowest: {slowest} {times[slowest]:.1f} s = {times[slowest] / args.budget:.2f}x the "
          f"{args.budget:.0f}-s budget")
    print("verdict: " + ("every notebook within the budget" if not over else f"OVER BUDGET: {over}"))
    return 1 if over else 0


def _quick_times():
    """Execute one generated one-cell notebook (the code path of a real run, in seconds)."""
    import nbformat

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "quick.ipynb"
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.cells = [nbformat.v4.new_code_cell("x = sum(range(1000))")]
        nbformat.write(nb, path)
        print("executing 1 generated notebook (--quick)")
        return time_alone([path], ["quick/generated"])


if __name__ == "__main__":
    sys.exit(main())
