"""Finding the book's notebooks: the notebooks folder, every notebook, a notebook by its short name.

:mod:`lupikit.cli` re-exports :func:`find_notebooks_dir` and
:func:`resolve_notebook`. This module imports no part of the library.
"""

import os
from pathlib import Path

from ._cli_error import CLIError


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


#: exercise notebooks of the classroom edition are ``<part>/exercises*.ipynb``
EXERCISE_PREFIX = "exercises"


def is_exercise_notebook(path):
    """Whether a notebook path names an exercise notebook (``exercises*.ipynb``): no paper claims."""
    name = Path(path).name
    return name.startswith(EXERCISE_PREFIX) and name.endswith(".ipynb")


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


def _repo_root(nb_dir):
    return Path(nb_dir).resolve().parent
