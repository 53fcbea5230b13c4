"""The ``lupikit`` command: list and rerun the book's notebooks with papermill.

``lupikit list [NOTEBOOK ...]``
    every notebook (or those named) with its presets, what each preset sets,
    and its parameters (name, type, default, valid range, one-line help), read
    from the cell tagged ``parameters``.
``lupikit run NOTEBOOK [-p NAME VALUE]... [--preset NAME] [--out DIR] [--scheduler ADDRESS]``
    validate the parameters, execute the notebook with papermill into
    ``_build/runs/`` (the source is never overwritten), showing the cells done,
    the library's long loops and the elapsed time, and write an HTML rendering
    next to it that needs no network (also when a cell raised: it shows what
    ran). Every claim is evaluated (a failed claim does not stop the run) and
    printed with its measured value, its threshold and its verdict; the
    parameters printed are those the run used, read back from it. Exit status
    0, or 1 when a claim's outcome is not the one the book states (a claim
    failed, or one the book shows failing held) or a cell raised, or 2 for a
    usage error.
``lupikit sweep NOTEBOOK -p NAME V1,V2,... [-p ...] [--out DIR] [--jobs N] [--scheduler ADDRESS] [--plot CLAIM PARAM]``
    run the notebook for every combination of the values, printing each run's
    claims as it finishes, and collect the recorded claims into one CSV (a row
    per run: the parameters it used, read back from it, and every claim's
    value, whether it held and its verdict), a summary CSV of how often each
    claim held, and with ``--plot`` a figure of one claim against one swept
    parameter with its threshold.
``lupikit paper [NOTEBOOK ...] [--seeds N] [--jobs N] [--force] [--check] [--scheduler ADDRESS]``
    run the notebooks at ``--preset paper`` (several at once), each at ``N``
    seeds (0, 1, ...: each the entropy of the notebook's ``SeedSequence``), and
    write ``results/paper/<part>/<name>.json`` (parameters, claims, provenance,
    what each replication drew): a claim's verdict follows a 95 % interval of
    its value over the seeds against its threshold (held, not held, or
    inconclusive; ``lupikit._book.seeds``); ``--max-seeds M`` adds seeds
    where claims stay inconclusive. A notebook whose record is current (its code,
    the library definitions its run can execute and the data files it read
    unchanged), with at least as many seeds, is not run again unless
    ``--force``; ``--check`` runs nothing and lists every record as current or
    stale, naming what changed.

Presets and ``-p``: a notebook applies its preset *after* its parameters (its
``if preset == "paper": ...`` cell assigns them), so a value passed with ``-p``
for a parameter that the chosen preset sets would be silently overridden. The
command refuses it, naming the parameters and listing the preset's values: to
change one of them, run without ``--preset`` and pass them all with ``-p``.

Values: ``-p NAME VALUE`` takes an int, a float, a bool (true/false) or a
string; a list parameter takes a Python list (``'[50, 100]'``), comma-separated
values (``50,100``) or one value (``50``, the list ``[50]``). A sweep separates
the values of a parameter with commas (``-p seed 0,1,2``), and of a list
parameter with semicolons (``-p curve_sizes '[50,100];[200,400]'`` is two runs;
``-p curve_sizes '50;100'`` runs ``[50]`` and ``[100]``).

Valid ranges: the help comment of a parameter may end with its valid range in
brackets, checked before running: ``[≥ 20]``, ``[> 0]``, ``[0, 1]`` (both ends
included), several conditions ``[> 0, ≤ 1]``, ``[≠ 0]``, and for a list,
elementwise, ``[each ≥ 10]``. (Written with the characters ≥ ≤ ≠: papermill
reads a parameters line with a second ``=`` as no parameter.)

``--scheduler tcp://HOST:PORT`` runs the notebooks' joblib loops (their
``n_jobs`` parameters: pass ``-p n_jobs -1``) on that Dask cluster, and a
sweep's runs as cluster tasks.

NOTEBOOK is a path or a short name such as ``oblivious/ridge``. The notebooks
folder is found from ``--notebooks-dir``, the ``LUPIKIT_NOTEBOOKS`` environment
variable, or the nearest ``notebooks/`` folder above the working directory.

``lupikit classroom build|grade|check|pack``
    the classroom edition: student and instructor editions, grading, the course pack.
``lupikit serve [--port N] [--no-open] [--host HOST]``
    serve the built book on 127.0.0.1 with a random token in the address it
    prints, and open it; every notebook page gets a form of its parameters,
    checked by type and range, that runs the notebook from the page (queued,
    with its progress, cancel, and its claims beside the recorded verdicts);
    ``/runs`` lists the kept runs and compares two.

One module per command (``lupikit.cli.run`` for ``list`` and ``run``,
``lupikit.cli.sweep``, ``lupikit.cli.paper``, ``lupikit.cli.classroom``,
``lupikit.cli.serve``)
parses its arguments and prints; the work is done by the book's machinery,
``lupikit._book``, whose errors (``BookError``, also named
``CLIError`` here) are printed as ``lupikit: error: ...`` with exit
status 2. This package imports no part of the library.
"""


import argparse
import os
import sys

from .._book.errors import BookError
from .._book.notebook_source import (ClaimIds, Parameter, parse_range, read_claim_ids, read_parameters,
                                     read_preset_settings, read_presets)
from .._book.paths import find_notebooks_dir, resolve_notebook
from .._book.values import validate_parameters

try:  # the notebook stack is the [cli] extra: a library install goes without it
    from .classroom import add_classroom_parser
    from .paper import add_paper_parser
    from .run import add_list_parser, add_run_parser
    from .serve import add_serve_parser
    from .sweep import add_sweep_parser
except ImportError as exc:  # pragma: no cover - exercised by tests/test_packaging.py
    _MISSING = exc.name
else:
    _MISSING = None

#: the error the commands report without a traceback (the machinery's BookError)
CLIError = BookError

__all__ = ["CLIError", "Parameter", "ClaimIds", "read_parameters", "read_presets", "read_preset_settings",
           "read_claim_ids", "parse_range", "find_notebooks_dir", "resolve_notebook",
           "validate_parameters", "build_parser", "main"]


def build_parser():
    """The ``lupikit`` argument parser: one subcommand per module of this package."""
    parser = argparse.ArgumentParser(
        prog="lupikit",
        description="List and rerun the lupikit book's notebooks with new parameters.",
    )
    parser.add_argument("--notebooks-dir", help="folder holding the notebooks (default: ./notebooks or above)")
    sub = parser.add_subparsers(dest="command", required=True)
    add_list_parser(sub)
    add_run_parser(sub)
    add_sweep_parser(sub)
    add_paper_parser(sub)
    add_classroom_parser(sub)
    add_serve_parser(sub)
    return parser


def main(argv=None):
    """Entry point of the ``lupikit`` console script."""
    if _MISSING is not None:
        print(f"lupikit: error: the lupikit command needs the notebook stack ({_MISSING} is "
              "not installed): pip install 'lupikit[cli]'", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    # the kernels' environment (claims mode, threads, ...) is set for this command only: a caller
    # such as the test suite keeps its own (e.g. LUPIKIT_CLAIMS unset, so that claims raise)
    saved = dict(os.environ)
    try:
        return args.func(args)
    except BookError as exc:
        print(f"lupikit: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `lupikit list | head`
        sys.stdout = open(os.devnull, "w")
        return 0
    finally:
        if dict(os.environ) != saved:
            os.environ.clear()
            os.environ.update(saved)
