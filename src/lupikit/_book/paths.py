"""Every path of the book's machinery: the notebooks, the checkout, the build folders.

A notebook is named by its short name, ``<part>/<name>`` (``oblivious/ridge``),
relative to the notebooks folder. The notebooks folder is found from an
explicit argument, ``$LUPIKIT_NOTEBOOKS`` or the nearest ``notebooks/``
folder above the working directory (:func:`find_notebooks_dir`); the checkout
is the folder above it (:func:`repo_root`). :class:`BookPaths` names every
folder and file the book build reads and writes below the checkout.

This module imports no part of the library.

Examples
--------
>>> paths = BookPaths("/tmp/lupikit")
>>> paths.build.as_posix(), paths.results.as_posix()
('/tmp/lupikit/_build', '/tmp/lupikit/results/paper')
"""

import os
from dataclasses import dataclass
from pathlib import Path

from ..classroom import EXERCISE_PREFIX, is_exercise_notebook
from .errors import BookError

__all__ = ["GENERATED", "BookPaths", "EXERCISE_PREFIX", "book_paths", "checkout_paths", "find_notebooks_dir",
           "is_exercise_notebook",
           "list_notebooks", "repo_root", "resolve_notebook", "short_name"]


#: the pages assembled from records, relative to the checkout (not committed)
GENERATED = "book/_generated"


def find_notebooks_dir(explicit=None):
    """Locate the folder holding the book's notebooks.

    Order: ``explicit``, ``$LUPIKIT_NOTEBOOKS``, then the nearest ``notebooks``
    folder in the working directory or one of its parents.
    """
    for cand in (explicit, os.environ.get("LUPIKIT_NOTEBOOKS")):
        if cand:
            p = Path(cand).resolve()
            if not p.is_dir():
                raise BookError(f"notebooks directory {p} does not exist.")
            return p
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "notebooks").is_dir():
            return d / "notebooks"
    # run from elsewhere (a course folder): the checkout lupikit is installed from, if it is one
    checkout = Path(__file__).resolve().parents[3]
    if (checkout / "notebooks").is_dir() and (checkout / "_config.yml").is_file():
        return checkout / "notebooks"
    raise BookError(
        "could not find a 'notebooks' folder here or above, and lupikit is not installed from a checkout; "
        "pass --notebooks-dir (or set LUPIKIT_NOTEBOOKS) to the book's notebooks/ folder."
    )


def list_notebooks(nb_dir):
    """All notebooks below ``nb_dir`` (sorted, checkpoints skipped)."""
    return sorted(
        p for p in Path(nb_dir).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )


def short_name(path, nb_dir):
    """``<part>/<name>`` of a notebook below ``nb_dir``."""
    return Path(path).relative_to(nb_dir).with_suffix("").as_posix()


def resolve_notebook(name, nb_dir):
    """Turn a path or a short name (``oblivious/ridge``) into a notebook path."""
    p = Path(name)
    if p.suffix == ".ipynb" and p.is_file():
        return p.resolve()
    cand = Path(nb_dir) / (name if name.endswith(".ipynb") else name + ".ipynb")
    if cand.is_file():
        return cand.resolve()
    matches = [q for q in list_notebooks(nb_dir) if short_name(q, nb_dir).endswith(name.removesuffix(".ipynb"))]
    if len(matches) == 1:
        return matches[0].resolve()
    known = ", ".join(short_name(q, nb_dir) for q in list_notebooks(nb_dir))
    if matches:
        raise BookError(f"notebook {name!r} is ambiguous; candidates: {known}.")
    raise BookError(f"no notebook {name!r}; known notebooks: {known}.")


def repo_root(nb_dir):
    """The checkout that holds the notebooks folder."""
    return Path(nb_dir).resolve().parent


def checkout_paths(nb_dir):
    """The :class:`BookPaths` of the checkout that holds the notebooks folder ``nb_dir``."""
    return BookPaths(repo_root(nb_dir))


@dataclass(frozen=True)
class BookPaths:
    """The folders and files of the book below a checkout ``root``.

    Parameters
    ----------
    root : str or Path
        The checkout: it holds ``_toc.yml``, ``_config.yml``, ``book/``,
        ``notebooks/`` and ``results/``.
    """

    root: Path

    def __post_init__(self):
        object.__setattr__(self, "root", Path(self.root))

    @property
    def notebooks(self):
        """The notebooks folder."""
        return self.root / "notebooks"

    @property
    def pages(self):
        """The book's Markdown pages."""
        return self.root / "book"

    @property
    def toc(self):
        return self.root / "_toc.yml"

    @property
    def config(self):
        return self.root / "_config.yml"

    @property
    def build(self):
        """Everything the build writes (not committed)."""
        return self.root / "_build"

    @property
    def cache(self):
        """The jupyter-cache of the default-preset executions that the book reads."""
        return self.build / ".jupyter_cache"

    @property
    def ipython(self):
        """The kernels' IPython directory (:mod:`lupikit._book.harness`)."""
        return self.build / ".ipython"

    @property
    def html(self):
        return self.build / "html"

    @property
    def index(self):
        return self.html / "index.html"

    @property
    def generated(self):
        """The pages assembled from records (``book/_generated``, not committed)."""
        return self.root / GENERATED

    @property
    def results(self):
        """The paper-scale records, ``results/paper/<part>/<name>.json`` (committed)."""
        return self.root / "results" / "paper"

    @property
    def paper_runs(self):
        """The executed notebooks of ``lupikit paper``."""
        return self.build / "paper"

    @property
    def runs(self):
        """The executed notebooks of ``lupikit run``."""
        return self.build / "runs"

    @property
    def sweeps(self):
        """The sweeps of ``lupikit sweep``, a folder each."""
        return self.build / "sweeps"

    @property
    def classroom(self):
        """The editions and the course pack of ``lupikit classroom``."""
        return self.build / "classroom"

    @property
    def times_json(self):
        return self.build / "notebook-times.json"

    @property
    def times_txt(self):
        return self.build / "notebook-times.txt"

    @property
    def scorecard_json(self):
        return self.build / "scorecard.json"

    def short(self, notebook):
        """The short name of a notebook of this checkout."""
        return short_name(notebook, self.notebooks)


def book_paths(root=None):
    """The :class:`BookPaths` of ``root``, or of the checkout that holds the working directory.

    Without ``root``: the nearest folder at or above the working directory with
    a ``_toc.yml`` and a ``notebooks/`` folder.
    """
    if root is not None:
        return BookPaths(Path(root).resolve())
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "_toc.yml").is_file() and (d / "notebooks").is_dir():
            return BookPaths(d)
    raise BookError("could not find the book (a folder with _toc.yml and notebooks/) here or above; "
                    "run from the lupikit checkout.")
