"""Which of the book's notebooks are exercise notebooks (private).

A part's graded exercises are ``notebooks/<part>/exercises*.ipynb``: they make
no paper claims, have no paper-scale run, and are what the classroom edition
is built from. This module imports nothing but the standard library, so that
the book's machinery can ask the question without loading nbgrader.

Examples
--------
>>> is_exercise_notebook("notebooks/twinsvm/exercises.ipynb")
True
>>> is_exercise_notebook("notebooks/twinsvm/duals.ipynb")
False
"""

from pathlib import Path

__all__ = ["EXERCISE_PREFIX", "answer_cells", "graded_ids", "is_exercise_notebook", "nbgrader_of"]

#: exercise notebooks of the classroom edition are ``<part>/exercises*.ipynb``
EXERCISE_PREFIX = "exercises"


def is_exercise_notebook(path):
    """Whether a notebook path names an exercise notebook (``exercises*.ipynb``): no paper claims."""
    name = Path(path).name
    return name.startswith(EXERCISE_PREFIX) and name.endswith(".ipynb")


def nbgrader_of(cell):
    """A cell's nbgrader metadata (``grade_id``, ``grade``, ``solution``, ``points``), {} if none.

    ``cell`` is a notebook cell, as nbformat reads it or as a plain dict.
    """
    return cell.get("metadata", {}).get("nbgrader") or {}


def graded_ids(nb):
    """The ids of a notebook's graded (check) cells, a set; ``nb`` as nbformat reads it or a dict."""
    return {nbgrader_of(c).get("grade_id") for c in nb.get("cells", []) if nbgrader_of(c).get("grade")} - {None}


def answer_cells(nb):
    """A notebook's answer cells (code cells marked ``solution``) as ``(grade id, source)`` pairs, in order."""
    return [(nbgrader_of(c).get("grade_id"), c.get("source", "")) for c in nb.get("cells", [])
            if c.get("cell_type") == "code" and nbgrader_of(c).get("solution")]
