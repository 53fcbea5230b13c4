"""The ``lupikit`` command: list and rerun the book's notebooks with papermill.

``lupikit list``
    every notebook with its parameters (name, type, default, one-line help),
    read from the cell tagged ``parameters``.
``lupikit run NOTEBOOK [-p NAME VALUE]... [--preset NAME] [--out DIR] [--scheduler ADDRESS]``
    validate the parameters, execute the notebook with papermill into
    ``_build/runs/`` (the source is never overwritten), showing the cells done,
    the library's long loops and the elapsed time, and write an HTML rendering
    next to it. A failed claim of the paper is reported by its id, value and
    threshold.
``lupikit sweep NOTEBOOK -p NAME V1,V2,... [-p ...] [--out DIR] [--jobs N] [--scheduler ADDRESS] [--plot CLAIM PARAM]``
    run the notebook for every combination of the values (failed claims are
    recorded, not raised), and collect the recorded claims into one CSV: a row
    per run, its parameters and every claim's value and whether it held.
``lupikit paper [NOTEBOOK ...] [--jobs N] [--force] [--scheduler ADDRESS]``
    run the notebooks at ``--preset paper`` (several at once) and write
    ``results/paper/<part>/<name>.json`` (parameters, claims, provenance); a
    notebook whose source and part's code are unchanged since its result was
    recorded is not run again unless ``--force``.

``--scheduler tcp://HOST:PORT`` runs the notebooks' joblib loops (their
``n_jobs`` parameters: pass ``-p n_jobs -1``) on that Dask cluster, and a
sweep's runs as cluster tasks.

NOTEBOOK is a path or a short name such as ``oblivious/ridge``. The notebooks
folder is found from ``--notebooks-dir``, the ``LUPIKIT_NOTEBOOKS`` environment
variable, or the nearest ``notebooks/`` folder above the working directory.

This module drives notebooks only; it imports no part of the library.
"""

import argparse
import ast
import csv
import datetime as _dt
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ._harness import kernel_environment
from .claims import read_claims, read_run_parameters

try:  # the notebook stack is the [cli] extra: a library install goes without it
    from . import _runs
except ImportError as exc:  # pragma: no cover - exercised by tests/test_packaging.py
    _runs = None
    _MISSING = exc.name

__all__ = ["CLIError", "Parameter", "read_parameters", "read_presets", "find_notebooks_dir",
           "resolve_notebook", "main"]

_TYPES = {"int": int, "float": float, "bool": bool, "str": str, "list": list}


class CLIError(Exception):
    """An error reported to the user without a traceback."""


@dataclass(frozen=True)
class Parameter:
    """One papermill parameter of a notebook.

    Attributes
    ----------
    name : str
        Variable name.
    type : str
        One of ``int``, ``float``, ``bool``, ``str``, ``list``.
    default : object
        Default value (a Python literal).
    help : str
        One-line help from the trailing comment.
    """

    name: str
    type: str
    default: object
    help: str

    def convert(self, text):
        """Convert a command-line string to this parameter's type.

        Raises
        ------
        ValueError
            If ``text`` is not a valid value of the type.
        """
        if self.type == "str":
            return text
        if self.type == "bool":
            low = text.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"expected a bool (true/false), got {text!r}")
        if self.type == "int":
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"expected an int, got {text!r}") from None
        if self.type == "float":
            try:
                return float(text)
            except ValueError:
                raise ValueError(f"expected a float, got {text!r}") from None
        # list
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = [v for v in text.split(",") if v.strip()]
            value = [_literal_or_str(v.strip()) for v in value]
        if isinstance(value, tuple):
            value = list(value)
        if not isinstance(value, list):
            raise ValueError(
                f"expected a list such as '[0.1, 0.5]' or '0.1,0.5', got {text!r}"
            )
        return value

    def describe(self):
        return f"{self.name}: {self.type} = {self.default!r}  # {self.help}"


def _literal_or_str(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _cell_source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def read_parameters(path):
    """Read the typed, commented ``parameters`` cell of a notebook.

    Each line of the cell is ``name: type = literal  # help``.

    Parameters
    ----------
    path : str or Path
        Notebook file.

    Returns
    -------
    params : dict of str to Parameter
        In the order they appear.

    Raises
    ------
    CLIError
        If the notebook has no ``parameters`` cell or a line is malformed.
    """
    path = Path(path)
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb.get("cells", []) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise CLIError(f"{path}: no cell tagged 'parameters'.")
    source = _cell_source(cells[0])
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise CLIError(f"{path}: the parameters cell is not valid Python ({exc}).") from exc
    lines = source.splitlines()
    params = {}
    for node in tree.body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            raise CLIError(
                f"{path}: parameters cell line {node.lineno} is not of the form "
                "'name: type = value  # help'."
            )
        type_name = ast.unparse(node.annotation)
        base = type_name.split("[", 1)[0]
        if base not in _TYPES:
            raise CLIError(f"{path}: parameter {node.target.id!r} has unsupported type {type_name!r}.")
        try:
            default = ast.literal_eval(node.value)
        except ValueError as exc:
            raise CLIError(f"{path}: default of {node.target.id!r} is not a literal.") from exc
        line = lines[node.lineno - 1]
        if line.count("=") > 1:
            raise CLIError(
                f"{path}: parameters cell line {node.lineno} has more than one '=': papermill "
                "cannot parse it (write the help comment without '=')."
            )
        help_text = line.split("#", 1)[1].strip() if "#" in line else ""
        params[node.target.id] = Parameter(node.target.id, base, default, help_text)
    return params


def read_presets(path):
    """The presets a notebook defines: ``"default"`` and every string compared with ``preset``.

    Read from the code cells (``if preset == "paper": ...``), so that the CLI can
    reject an unknown preset instead of running the default silently.
    """
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    presets = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        try:
            tree = ast.parse(_cell_source(cell))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            if not any(isinstance(x, ast.Name) and x.id == "preset" for x in sides):
                continue
            for x in sides:
                consts = x.elts if isinstance(x, (ast.Tuple, ast.List, ast.Set)) else [x]
                for c in consts:
                    if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value not in presets:
                        presets.append(c.value)
    default = read_parameters(path).get("preset")
    if default is not None:
        presets = [default.default] + [p for p in presets if p != default.default]
    return presets


def find_notebooks_dir(explicit=None):
    """Locate the folder holding the book's notebooks.

    Order: ``explicit``, ``$LUPIKIT_NOTEBOOKS``, then the nearest ``notebooks``
    folder in the working directory or one of its parents.
    """
    for cand in (explicit, os.environ.get("LUPIKIT_NOTEBOOKS")):
        if cand:
            p = Path(cand).resolve()
            if not p.is_dir():
                raise CLIError(f"notebooks directory {p} does not exist.")
            return p
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "notebooks").is_dir():
            return d / "notebooks"
    raise CLIError(
        "could not find a 'notebooks' folder here or above; run from the lupikit "
        "checkout or pass --notebooks-dir (or set LUPIKIT_NOTEBOOKS)."
    )


def list_notebooks(nb_dir):
    """All notebooks below ``nb_dir`` (sorted, checkpoints skipped)."""
    return sorted(
        p for p in Path(nb_dir).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )


def _short_name(path, nb_dir):
    return path.relative_to(nb_dir).with_suffix("").as_posix()


def resolve_notebook(name, nb_dir):
    """Turn a path or a short name (``oblivious/ridge``) into a notebook path."""
    p = Path(name)
    if p.suffix == ".ipynb" and p.is_file():
        return p.resolve()
    cand = Path(nb_dir) / (name if name.endswith(".ipynb") else name + ".ipynb")
    if cand.is_file():
        return cand.resolve()
    matches = [q for q in list_notebooks(nb_dir) if _short_name(q, nb_dir).endswith(name.removesuffix(".ipynb"))]
    if len(matches) == 1:
        return matches[0].resolve()
    known = ", ".join(_short_name(q, nb_dir) for q in list_notebooks(nb_dir))
    if matches:
        raise CLIError(f"notebook {name!r} is ambiguous; candidates: {known}.")
    raise CLIError(f"no notebook {name!r}; known notebooks: {known}.")


def validate_parameters(params, pairs, preset=None, presets=None):
    """Check ``-p NAME VALUE`` pairs (and ``--preset``) against ``params``.

    Returns
    -------
    values : dict
        Converted values for papermill.

    Raises
    ------
    CLIError
        Naming the wrong parameter or value and listing the valid parameters.
    """
    valid = "\n".join("  " + p.describe() for p in params.values())
    values = {}
    for name, text in pairs:
        if name not in params:
            raise CLIError(f"unknown parameter {name!r}. Valid parameters:\n{valid}")
        try:
            values[name] = params[name].convert(text)
        except ValueError as exc:
            raise CLIError(f"parameter {name!r}: {exc}. Valid parameters:\n{valid}") from None
    if "preset" in values and preset is None:
        preset = values.pop("preset")
    if preset is not None:
        if "preset" not in params:
            raise CLIError(f"this notebook has no 'preset' parameter. Valid parameters:\n{valid}")
        if presets is not None and preset not in presets:
            raise CLIError(f"unknown preset {preset!r}; this notebook defines "
                           f"{', '.join(repr(p) for p in presets)}.")
        values["preset"] = preset
    return values


def _repo_root(nb_dir):
    return Path(nb_dir).resolve().parent


def _render_html(executed, html_path):
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(executed), as_version=4)
    for cell in nb.cells:  # the claims' hidden glue outputs have no HTML form
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs
                            if not (o.get("metadata", {}).get("scrapbook") or {}).get("mime_prefix")]
    body, _ = HTMLExporter(template_name="classic").from_notebook_node(nb)
    html_path.write_text(body, encoding="utf-8")


def cmd_list(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    for path in list_notebooks(nb_dir):
        print(_short_name(path, nb_dir))
        try:
            params = read_parameters(path)
        except CLIError as exc:
            print(f"    ! {exc}")
            continue
        for p in params.values():
            print(f"    {p.name:<20} {p.type:<6} {p.default!r:<22} {p.help}")
    return 0


def _check_scheduler(address):
    """Connect to a Dask scheduler once, or raise a CLIError naming it."""
    if not address:
        return None
    try:
        from distributed import Client  # the [dask] extra
    except ImportError:
        raise CLIError("--scheduler needs dask and distributed: pip install 'lupikit[dask]'.") from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise CLIError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None


def _prepare_kernels(nb_dir, *, scheduler=None, blas_threads=None, progress=False, claims=None):
    """Set this process's environment for the kernels it starts (see lupikit._harness)."""
    env = kernel_environment(_repo_root(nb_dir) / "_build" / ".ipython", blas_threads=blas_threads,
                             scheduler=scheduler)
    os.environ.update(env)
    _runs.environment_flag("LUPIKIT_PROGRESS", "1" if progress else None)
    _runs.environment_flag("LUPIKIT_CLAIMS", claims)


def _claims_line(executed):
    records = read_claims(executed)
    if not records:
        return "no claims recorded"
    counts = {}
    for r in records:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return f"{len(records)} claims: " + ", ".join(f"{n} {v}" for v, n in counts.items())


def cmd_run(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    path = resolve_notebook(args.notebook, nb_dir)
    params = read_parameters(path)
    values = validate_parameters(params, args.parameter or [], args.preset, read_presets(path))

    out_dir = Path(args.out) if args.out else _repo_root(nb_dir) / "_build" / "runs"
    out_dir = out_dir.resolve()
    try:
        short = _short_name(path, nb_dir)
    except ValueError:
        short = path.stem
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    target = out_dir / f"{short}-{stamp}.ipynb"
    if target.resolve() == path.resolve():
        raise CLIError("the output would overwrite the source notebook; choose another --out.")
    client = _check_scheduler(args.scheduler)
    _prepare_kernels(nb_dir, scheduler=args.scheduler, progress=True)
    print(f"running {short} with {values or 'default parameters'}"
          + (f" (joblib loops on {args.scheduler})" if client else ""), flush=True)
    seconds, error = _runs.execute(path, target, values, kernel=args.kernel, progress=sys.stderr.isatty())
    if error:
        print(f"executed notebook (with the error): {target}", file=sys.stderr)
        raise CLIError(f"the notebook failed after {seconds:.0f} s: {error}")
    html = target.with_suffix(".html")
    _render_html(target, html)
    print(f"done in {seconds:.1f} s; {_claims_line(target)}")
    print(f"executed notebook: {target}")
    print(f"HTML rendering:    {html}")
    return 0


def _split_values(param, text):
    """``V1,V2,...`` (a list parameter: ``[..];[..]``) into converted values."""
    parts = text.split(";") if param.type == "list" else text.split(",")
    try:
        return [param.convert(p.strip()) for p in parts if p.strip()]
    except ValueError as exc:
        raise CLIError(f"parameter {param.name!r}: {exc}") from None


def _sweep_one(path, target, parameters, kernel):
    """One run of a sweep (also a Dask task: it must be importable on the workers)."""
    os.environ["LUPIKIT_CLAIMS"] = "record"
    seconds, error = _runs.execute(path, target, parameters, kernel=kernel)
    return str(target), seconds, error


def cmd_sweep(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    path = resolve_notebook(args.notebook, nb_dir)
    params = read_parameters(path)
    short = _short_name(path, nb_dir)
    grid_values = {}
    for name, text in args.parameter or []:
        if name not in params:
            valid = "\n".join("  " + p.describe() for p in params.values())
            raise CLIError(f"unknown sweep parameter {name!r}. Valid parameters:\n{valid}")
        grid_values[name] = _split_values(params[name], text)
    if not grid_values:
        raise CLIError("give at least one parameter to sweep: -p NAME V1,V2,...")
    fixed = validate_parameters(params, [], args.preset, read_presets(path)) if args.preset else {}
    for v in grid_values.get("preset", []):
        validate_parameters(params, [], v, read_presets(path))
    if args.plot:
        claim_id, param = args.plot
        if param not in grid_values:
            raise CLIError(f"--plot: {param!r} is not a swept parameter ({', '.join(grid_values)}).")
    grid = [{**fixed, **g} for g in _runs.sweep_grid(grid_values)]
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = (Path(args.out) if args.out else _repo_root(nb_dir) / "_build" / "sweeps" / f"{short}-{stamp}").resolve()
    targets = [out / "runs" / f"run{i:03d}.ipynb" for i in range(len(grid))]
    client = _check_scheduler(args.scheduler)
    _prepare_kernels(nb_dir, scheduler=None, blas_threads=1 if args.jobs > 1 else None, claims="record")
    print(f"sweeping {short}: {len(grid)} runs of {', '.join(grid_values)}, {args.jobs} at once"
          + (f" on {args.scheduler}" if client else ""), flush=True)
    t0 = time.perf_counter()
    if client is not None:
        futures = [client.submit(_sweep_one, str(path), str(t), g, args.kernel, pure=False)
                   for t, g in zip(targets, grid)]
        results = client.gather(futures)
    else:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda tg: _sweep_one(path, tg[0], tg[1], args.kernel),
                                    zip(targets, grid)))
    runs = []
    for g, (target, seconds, error) in zip(grid, results):
        runs.append((g, target, seconds, error))
        print(f"  {json.dumps(g)}: {seconds:.1f} s{'; ' + error.splitlines()[0] if error else ''}", flush=True)
    rows = _runs.sweep_rows(runs)
    columns = list(dict.fromkeys(k for row in rows for k in row))
    out.mkdir(parents=True, exist_ok=True)
    table = out / "claims.csv"
    with table.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} runs in {time.perf_counter() - t0:.1f} s")
    print(f"claims table: {table}")
    if args.plot:
        figure = _plot_sweep(rows, claim_id, param, out / f"{claim_id}-vs-{param}.png")
        print(f"plot: {figure}")
    return 0


def _plot_sweep(rows, claim_id, param, target):
    import matplotlib  # the notebook stack

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not any(claim_id in r for r in rows):
        known = sorted({k for r in rows for k in r if ":" not in k and "." in k})
        raise CLIError(f"--plot: no claim {claim_id!r} was recorded; recorded: {', '.join(known)}.")
    others = [k for k in rows[0] if k not in ("run", "seconds", "error", param) and "." not in k]
    groups = {}
    for r in rows:
        key = tuple((k, r[k]) for k in others)
        groups.setdefault(key, []).append(r)
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, group in groups.items():
        group = [g for g in group if g.get(claim_id) is not None]
        xs = [g[param] for g in group]
        ax.plot(xs, [g[claim_id] for g in group], marker="o",
                label=", ".join(f"{k}={v}" for k, v in key) or None)
        for g in group:
            if g.get(claim_id + ":holds") is False:
                ax.plot([g[param]], [g[claim_id]], "x", color="red", markersize=10)
    ax.set_xlabel(param)
    ax.set_ylabel(claim_id)
    ax.set_title("red x: the claim does not hold")
    if any(k for k in groups):
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(target, dpi=120)
    return target


def cmd_paper(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    root = _repo_root(nb_dir)
    paths = [resolve_notebook(n, nb_dir) for n in args.notebooks] if args.notebooks else list_notebooks(nb_dir)
    results_dir = Path(args.results) if args.results else root / "results" / "paper"
    todo = []
    for path in paths:
        short = _short_name(path, nb_dir)
        if "paper" not in read_presets(path):
            raise CLIError(f"{short} defines no 'paper' preset.")
        old = _runs.read_paper_result(results_dir, short)
        if old is not None and not args.force and not _runs.is_stale(old, path, short):
            print(f"  {short}: unchanged since {old['executed_at']}, not run again")
            continue
        todo.append((path, short, 0.0 if old is None else float(old.get("seconds", 0.0))))
    # the longest first (by their last recorded time), so that the slots finish together
    todo = [(path, short) for path, short, _ in sorted(todo, key=lambda t: -t[2])]
    if not todo:
        print("every paper-scale result is up to date (use --force to run them again)")
        return 0
    client = _check_scheduler(args.scheduler)
    _prepare_kernels(nb_dir, scheduler=args.scheduler, blas_threads=1 if args.jobs > 1 else None,
                     claims="record")
    print(f"running {len(todo)} notebook(s) at --preset paper, {args.jobs} at once"
          + (f", joblib loops on {args.scheduler}" if client else ""), flush=True)
    t0 = time.perf_counter()

    def one(item):
        path, short = item
        target = root / "_build" / "paper" / f"{short}.ipynb"
        # what the record will say it ran: the code and commit as they are at the start
        start = dict(executed_at=_runs.now(), fingerprint=_runs.fingerprints(path, short),
                     prov=_runs.provenance())
        seconds, error = _runs.execute(path, target, {"preset": "paper"}, kernel=args.kernel)
        return path, short, target, start, seconds, error

    failed, busy = [], 0.0
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        # record each notebook as soon as it finishes: a long one holds up no other
        futures = [pool.submit(one, item) for item in todo]
        for future in as_completed(futures):
            path, short, target, start, seconds, error = future.result()
            busy += seconds
            if error:
                failed.append(short)
                print(f"  {short}: FAILED after {seconds:.0f} s: {error.splitlines()[0]}", flush=True)
                continue
            # the parameters cell's values, overridden by those the run used after its preset
            params = {"preset": "paper", **_executed_parameters(target),
                      **read_run_parameters(target)}
            record = _runs.paper_record(path, short, target, params, seconds, start["executed_at"],
                                        fingerprint=start["fingerprint"], prov=start["prov"])
            written = _runs.write_paper_result(results_dir, record)
            print(f"  {short}: {seconds:7.1f} s; {_claims_line(target)} -> {written.relative_to(root)}",
                  flush=True)
    print(f"paper-scale run: {time.perf_counter() - t0:.1f} s wall time for {len(todo)} notebook(s) "
          f"({busy:.1f} s of notebook time, {args.jobs} at once); executed notebooks in "
          f"{root / '_build' / 'paper'}")
    if failed:
        raise CLIError(f"{len(failed)} notebook(s) failed: {', '.join(failed)}")
    return 0


def _executed_parameters(executed):
    """The parameter values a papermill run used (its defaults with the injected ones)."""
    nb = json.loads(Path(executed).read_text(encoding="utf-8"))
    values = {}
    for cell in nb.get("cells", []):
        tags = cell.get("metadata", {}).get("tags", [])
        if "parameters" in tags or "injected-parameters" in tags:
            try:
                tree = ast.parse(_cell_source(cell))
            except SyntaxError:
                continue
            for node in tree.body:
                target = node.target if isinstance(node, ast.AnnAssign) else (
                    node.targets[0] if isinstance(node, ast.Assign) else None)
                if isinstance(target, ast.Name) and node.value is not None:
                    try:
                        values[target.id] = ast.literal_eval(node.value)
                    except ValueError:
                        pass
    return values


class _PairAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        items = getattr(namespace, self.dest) or []
        items.append(tuple(values))
        setattr(namespace, self.dest, items)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="lupikit",
        description="List and rerun the lupikit book's notebooks with new parameters.",
    )
    parser.add_argument("--notebooks-dir", help="folder holding the notebooks (default: ./notebooks or above)")
    sub = parser.add_subparsers(dest="command", required=True)

    p_list = sub.add_parser("list", help="list notebooks and their parameters")
    p_list.set_defaults(func=cmd_list)

    p_run = sub.add_parser("run", help="execute a notebook with papermill")
    p_run.add_argument("notebook", help="path or short name, e.g. intro/lupi_setting")
    p_run.add_argument(
        "-p", "--parameter", nargs=2, metavar=("NAME", "VALUE"), action=_PairAction,
        help="set a parameter (repeatable)",
    )
    p_run.add_argument("--preset", help="named preset, e.g. 'paper' for the paper-scale setting")
    p_run.add_argument("--out", help="output folder (default: _build/runs next to notebooks/)")
    p_run.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    p_run.add_argument("--scheduler", help="Dask scheduler address for the notebook's joblib loops")
    p_run.set_defaults(func=cmd_run)

    p_sweep = sub.add_parser("sweep", help="run a notebook over a grid of parameters, collect its claims")
    p_sweep.add_argument("notebook", help="path or short name")
    p_sweep.add_argument(
        "-p", "--parameter", nargs=2, metavar=("NAME", "VALUES"), action=_PairAction,
        help="a parameter and its values, comma-separated (list parameters: ';'-separated literals)",
    )
    p_sweep.add_argument("--preset", help="preset of every run (or sweep -p preset default,paper)")
    p_sweep.add_argument("--out", help="output folder (default: _build/sweeps/<notebook>-<time>)")
    p_sweep.add_argument("--jobs", type=int, default=1, help="runs at once (default 1)")
    p_sweep.add_argument("--scheduler", help="Dask scheduler address: the runs become cluster tasks")
    p_sweep.add_argument("--plot", nargs=2, metavar=("CLAIM", "PARAM"),
                         help="plot one claim's value against one swept parameter")
    p_sweep.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    p_sweep.set_defaults(func=cmd_sweep)

    p_paper = sub.add_parser("paper", help="run the notebooks at --preset paper, record results/paper/")
    p_paper.add_argument("notebooks", nargs="*", help="short names (default: every notebook)")
    p_paper.add_argument("--jobs", type=int, default=2, help="notebooks at once (default 2)")
    p_paper.add_argument("--force", action="store_true", help="run up-to-date notebooks again")
    p_paper.add_argument("--results", help="results folder (default: results/paper next to notebooks/)")
    p_paper.add_argument("--scheduler", help="Dask scheduler address for the notebooks' joblib loops")
    p_paper.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    p_paper.set_defaults(func=cmd_paper)
    return parser


def main(argv=None):
    """Entry point of the ``lupikit`` console script."""
    if _runs is None:
        print(f"lupikit: error: the lupikit command needs the notebook stack ({_MISSING} is "
              "not installed): pip install 'lupikit[cli]'", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CLIError as exc:
        print(f"lupikit: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `lupikit list | head`
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
