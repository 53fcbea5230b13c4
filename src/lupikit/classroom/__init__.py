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
  in a sandbox of its own with limits (:mod:`lupikit.classroom._sandbox`,
  Linux with bubblewrap), running the hidden tests outside it, in a kernel
  of their own, on the student's answers as plain values, and writes one CSV
  and a report per student;
* :func:`make_pack` writes the zip to hand out: the student notebooks, the
  data they need, the student PDF, pinned requirements and a README.

The command line is ``lupikit classroom build|grade|check|pack``
(:mod:`lupikit.cli.classroom`). The kernel side of the grader is
:mod:`lupikit.classroom._answers` (NumPy only). The names above are imported
on first use: importing a submodule pulls in nbgrader only where the student
edition is made. This package imports no part of the library and nothing of
the book's machinery.
"""

import importlib

#: where each public name lives: a submodule is imported when a name of it is first used, so
#: that the grader's kernels (:mod:`._answers`) and the book's pages (:mod:`._markup`,
#: :mod:`._written`) load neither nbgrader nor nbclient
_HOMES = {
    "check_exercise_notebook": "_check",
    "collect_submissions": "_collect",
    "Editions": "_editions", "build_editions": "_editions", "find_leaks": "_editions",
    "solution_texts": "_editions",
    "export_grades": "_export",
    "merge_written_marks": "_marks",
    "GradeReport": "_grade", "grade_submissions": "_grade", "read_scores": "_grade",
    "GradingInProgress": "_grade", "UNSANDBOXED_FLAG": "_grade",
    "Limits": "_sandbox", "SandboxUnavailable": "_sandbox", "sandbox_problem": "_sandbox",
    "read_edition": "_instructor", "reconcile": "_instructor",
    "HIDDEN_NOTE": "_markup", "hide_hidden_tests": "_markup",
    "Question": "_markup", "read_questions": "_markup", "strip_solution_blocks": "_markup",
    "student_notebook": "_markup",
    "EXERCISE_PREFIX": "_notebooks", "is_exercise_notebook": "_notebooks",
    "make_pack": "_pack", "pinned_requirements": "_pack",
    "read_roster": "_roster", "variant_for": "_variants", "read_roster_table": "_roster",
    "written_exercises": "_written",
}


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "EXERCISE_PREFIX",
    "Editions",
    "GradeReport",
    "HIDDEN_NOTE",
    "Question",
    "build_editions",
    "check_exercise_notebook",
    "collect_submissions",
    "export_grades",
    "find_leaks",
    "grade_submissions",
    "hide_hidden_tests",
    "is_exercise_notebook",
    "make_pack",
    "merge_written_marks",
    "pinned_requirements",
    "read_edition",
    "read_questions",
    "read_roster",
    "read_roster_table",
    "read_scores",
    "reconcile",
    "solution_texts",
    "strip_solution_blocks",
    "student_notebook",
    "variant_for",
    "written_exercises",
]
