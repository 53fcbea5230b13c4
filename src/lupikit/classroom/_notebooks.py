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

__all__ = ["EXERCISE_PREFIX", "is_exercise_notebook"]

#: exercise notebooks of the classroom edition are ``<part>/exercises*.ipynb``
EXERCISE_PREFIX = "exercises"


def is_exercise_notebook(path):
    """Whether a notebook path names an exercise notebook (``exercises*.ipynb``): no paper claims."""
    name = Path(path).name
    return name.startswith(EXERCISE_PREFIX) and name.endswith(".ipynb")
