"""The classroom edition: exercises that grade themselves, per-student variants, a course pack.

The exercises are written once, in the book's notebooks and pages, with
nbgrader's markup (see :mod:`lupikit.classroom._markup`). From that one
source:

* :func:`build_editions` writes the **student** edition (no solution, no
  hidden test, answer stubs; with a roster, each student's exercise
  notebooks at their own variant) and the **instructor** edition (the
  solution notebooks, which are also nbgrader source notebooks, the hidden
  tests, the rubrics of the written exercises and a page per part);
* :func:`grade_submissions` grades every student's notebooks locally, each
  with a time limit, running the hidden tests in a kernel of its own on the
  student's answers, and writes one CSV and a report per student;
* :func:`make_pack` writes the zip to hand out: the student notebooks, the
  data they need, the student PDF, pinned requirements and a README.

The command line is ``lupikit classroom build|grade|pack``. This package
imports no part of the library.
"""

from ._check import check_exercise_notebook
from ._editions import Editions, build_editions, find_leaks, solution_texts
from ._grade import GradeReport, grade_submissions
from ._markup import Question, is_exercise_notebook, read_questions, strip_solution_blocks, student_notebook
from ._pack import make_pack, pinned_requirements
from ._variants import read_roster, variant_for
from ._written import written_exercises

__all__ = [
    "Editions",
    "GradeReport",
    "Question",
    "build_editions",
    "check_exercise_notebook",
    "find_leaks",
    "grade_submissions",
    "is_exercise_notebook",
    "make_pack",
    "pinned_requirements",
    "read_questions",
    "read_roster",
    "solution_texts",
    "strip_solution_blocks",
    "student_notebook",
    "variant_for",
    "written_exercises",
]
