"""The ``lupikit`` command: list and rerun the book's notebooks with papermill.

``lupikit list``
    every notebook with its parameters (name, type, default, one-line help),
    read from the cell tagged ``parameters``.
``lupikit run NOTEBOOK [-p NAME VALUE]... [--preset NAME] [--out DIR]``
    validate the parameters, execute the notebook with papermill into
    ``_build/runs/`` (the source is never overwritten) and write an HTML
    rendering next to it.

NOTEBOOK is a path or a short name such as ``oblivious/ridge``. The notebooks
folder is found from ``--notebooks-dir``, the ``LUPIKIT_NOTEBOOKS`` environment
variable, or the nearest ``notebooks/`` folder above the working directory.

This module drives notebooks only; it imports no part of the library.
"""

import argparse
import ast
import datetime as _dt
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CLIError", "Parameter", "read_parameters", "find_notebooks_dir", "resolve_notebook", "main"]

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


def validate_parameters(params, pairs, preset=None):
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
    if preset is not None:
        if "preset" not in params:
            raise CLIError(f"this notebook has no 'preset' parameter. Valid parameters:\n{valid}")
        values["preset"] = preset
    return values


def _repo_root(nb_dir):
    return Path(nb_dir).resolve().parent


def _render_html(executed, html_path):
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(executed), as_version=4)
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


def cmd_run(args):
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    path = resolve_notebook(args.notebook, nb_dir)
    params = read_parameters(path)
    values = validate_parameters(params, args.parameter or [], args.preset)

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
    target.parent.mkdir(parents=True, exist_ok=True)

    import papermill as pm

    print(f"running {short} with {values or 'default parameters'}", flush=True)
    try:
        pm.execute_notebook(
            str(path),
            str(target),
            parameters=values,
            cwd=str(path.parent),
            kernel_name=args.kernel,
            progress_bar=False,
        )
    except pm.PapermillExecutionError as exc:
        print(f"executed notebook (with the error): {target}", file=sys.stderr)
        raise CLIError(f"the notebook failed: {exc.ename}: {exc.evalue}") from None
    html = target.with_suffix(".html")
    _render_html(target, html)
    print(f"executed notebook: {target}")
    print(f"HTML rendering:    {html}")
    return 0


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
    p_run.set_defaults(func=cmd_run)
    return parser


def main(argv=None):
    """Entry point of the ``lupikit`` console script."""
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
