"""``lupikit list`` and ``lupikit run``: a notebook's parameters, and one run of it with new ones."""

import argparse
import datetime as _dt
import re
import sys
from pathlib import Path

from .._book.errors import BookError
from .._book.execute import connect_scheduler, execute
from .._book.harness import prepare_kernels, read_failed_asserts
from .._book.notebook_source import read_claim_ids, read_parameters, read_preset_settings, read_presets
from .._book.outcomes import assert_lines, claim_line, claims_line, unexpected
from .._book.paths import checkout_paths, find_notebooks_dir, list_notebooks, resolve_notebook, short_name
from .._book.render import find_mathjax, render_or_warning
from .._book.values import preset_values, validate_parameters
from ..claims import read_claims, read_run_parameters
from ._args import PairAction, add_execution_options, format_parameters, notebook_info

__all__ = ["add_list_parser", "add_run_parser", "cmd_list", "cmd_run"]


def cmd_list(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    paths = [resolve_notebook(n, nb_dir) for n in args.notebooks] if args.notebooks else list_notebooks(nb_dir)
    for path in paths:
        print(short_name(path, nb_dir))
        try:
            params = read_parameters(path)
        except BookError as exc:
            print(f"    ! {exc}")
            continue
        settings = read_preset_settings(path)
        presets = read_presets(path)
        if presets:
            shown = [p + (f" (sets {preset_values(p, settings, params)})"
                          if preset_values(p, settings, params) else "") for p in presets]
            print("    presets: " + "; ".join(shown))
        width = max((len(p.range) for p in params.values()), default=0)
        for p in params.values():
            rng = f"{p.range:<{width}} " if width else ""
            print(f"    {p.name:<20} {p.type:<6} {p.default!r:<22} {rng}{p.help}")
    return 0


def _render(executed, mathjax, static_dir):
    """The executed notebook's HTML page, or None with a warning on stderr."""
    html, warning = render_or_warning(executed, mathjax, static_dir)
    if warning:
        print(warning, file=sys.stderr)
    return html


def cmd_run(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    path = resolve_notebook(args.notebook, nb_dir)
    params, presets, settings = notebook_info(path)
    values = validate_parameters(params, args.parameter or [], args.preset, presets, settings)

    paths = checkout_paths(nb_dir)
    out_dir = Path(args.out) if args.out else paths.runs
    out_dir = out_dir.resolve()
    try:
        short = short_name(path, nb_dir)
    except ValueError:
        short = path.stem
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    target = out_dir / f"{short}-{stamp}.ipynb"
    if target.resolve() == path.resolve():
        raise BookError("the output would overwrite the source notebook; choose another --out.")
    client = connect_scheduler(args.scheduler)
    mathjax = find_mathjax(paths.root)
    # every claim is evaluated: a failed claim, or a failed assert of the notebook's
    # own code, is recorded and the run goes on
    prepare_kernels(paths.ipython, scheduler=args.scheduler, progress=True,
                    claims="record", soft_asserts=True)
    print(f"running {short} with {format_parameters(values)}"
          + (f" (joblib loops on {args.scheduler})" if client else ""), flush=True)
    seconds, error = execute(path, target, values, kernel=args.kernel, progress=sys.stderr.isatty())
    if not target.is_file():
        raise BookError(f"the notebook could not be executed: {error}")
    html = _render(target, mathjax, out_dir)
    records = read_claims(target)
    ran = read_run_parameters(target)
    print(f"{'stopped after' if error else 'done in'} {seconds:.1f} s")
    if ran:
        print(f"parameters of the run (read back from it): {format_parameters(ran)}")
    else:
        print("the run recorded no parameters (it stopped before creating its Claims recorder)")
    for r in records:
        print("  " + claim_line(r))
    failed_asserts = read_failed_asserts(target)
    for line in assert_lines(failed_asserts):
        print("  " + line)
    if error:
        ids = read_claim_ids(path)
        seen = [r["id"] for r in records]
        missing = [i for i in ids.ids if i not in seen]
        missing += [src for src, rx in ids.patterns if not any(re.fullmatch(rx, i) for i in seen)]
        print(f"a cell raised {error}", file=sys.stderr)
        if missing:
            print("  not evaluated (the run stopped): " + ", ".join(missing), file=sys.stderr)
    print(claims_line(records))
    print(f"executed notebook: {target}")
    if html is not None:
        print(f"HTML rendering:    {html}")
    if mathjax is None:
        print("  (MathJax not found: the page shows its math as TeX source)", file=sys.stderr)
    not_as_stated = [r["id"] for r in records if unexpected(r)]
    if not_as_stated:
        print(f"{len(not_as_stated)} claim(s) not as the book states: {', '.join(not_as_stated)}", file=sys.stderr)
    if failed_asserts:
        print(f"{len(failed_asserts)} assertion(s) of the notebook failed (its text assumes they hold)",
              file=sys.stderr)
    return 1 if not_as_stated or error or failed_asserts else 0


_RUN_EPILOG = """\
values:
  -p n_samples 500            an int, float, bool (true/false) or string
  -p curve_sizes '[50, 100]'  a list; also 50,100 or one value, 50 (the list [50])
presets:
  --preset paper applies the notebook's paper-scale values after the parameters;
  a -p for a parameter the preset sets is refused (the preset would override it):
  run without --preset and pass every value with -p instead (lupikit list
  NOTEBOOK shows what each preset sets).
valid ranges:
  values outside a parameter's range (lupikit list shows it, e.g. [≥ 20]) are
  refused before running.
claims:
  every claim is evaluated (a failed one does not stop the run) and printed:
  ✔/✘ ID: measured VALUE, needs THRESHOLD — VERDICT; "? ID: not computable —
  REASON" when the value is NaN, infinite or None (no failure); "– ID: not
  runnable offline — REASON". The parameters printed are read back from the run.
exit status:
  0; 1 when a claim's outcome is not the one the book states, an assert of the
  notebook's own code failed (the run goes on past it) or a cell raised (the
  executed notebook and its HTML are written all the same); 2 for a usage error.
"""


def add_list_parser(sub):
    p_list = sub.add_parser("list", help="list notebooks, their presets and their parameters")
    p_list.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                        help="short names or paths (default: every notebook)")
    p_list.set_defaults(func=cmd_list)
    return p_list


def add_run_parser(sub):
    p_run = sub.add_parser(
        "run", help="execute a notebook with papermill",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Execute a notebook with papermill; every claim is evaluated and printed.",
        epilog=_RUN_EPILOG)
    p_run.add_argument("notebook", help="path or short name, e.g. intro/lupi_setting")
    p_run.add_argument(
        "-p", "--parameter", nargs=2, metavar=("NAME", "VALUE"), action=PairAction,
        help="set a parameter (repeatable); a list: '[50, 100]', 50,100 or 50 (= [50])",
    )
    p_run.add_argument("--preset", help="named preset, e.g. 'paper' for the paper-scale setting; a -p "
                       "for a parameter the preset sets is refused")
    p_run.add_argument("--out", help="output folder (default: _build/runs next to notebooks/)")
    add_execution_options(p_run, "Dask scheduler address for the notebook's joblib loops")
    p_run.set_defaults(func=cmd_run)
    return p_run
