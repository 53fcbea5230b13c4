"""A small exercise notebook in the classroom markup, for the grader's tests."""

import copy
import json
from pathlib import Path

import nbformat


def _code(text, **meta):
    cell = nbformat.v4.new_code_cell(text)
    cell.metadata.update(meta)
    return cell


def toy_notebook(mean_points=2, sum_points=1):
    """Two questions on a variant's data: the mean of ``x`` and the sum of squares of ``x``."""
    cells = [
        nbformat.v4.new_markdown_cell("# Exercises: a toy\n\nTwo questions on your variant's data.\n\n"
                                      "```{exercise} Explain\n:label: toy-ex1\n\nWhy is the mean of "
                                      "squares at least the square of the mean?\n```\n\n"
                                      "```{solution} toy-ex1\n:class: dropdown\n\nBy Jensen's inequality "
                                      "for the convex function t -> t squared.\n\n**Rubric** (1 point): "
                                      "Jensen or the variance being non-negative.\n```"),
        _code("variant: int = 0  # your variant of the exercises [≥ 0]", tags=["parameters"]),
        _code("import numpy as np\n\nrng = np.random.default_rng(variant)\nx = rng.normal(size=int(rng.integers(5, 9)))",
              nbgrader={"grade": False, "solution": False, "locked": True, "grade_id": "setup",
                        "schema_version": 3}),
        nbformat.v4.new_markdown_cell("## Exercise 1\n\nStore the mean of `x` in `m`."),
        _code("### BEGIN SOLUTION\nm = sum(x) / len(x)\n### END SOLUTION",
              nbgrader={"grade": False, "solution": True, "locked": False, "grade_id": "mean-answer",
                        "schema_version": 3}),
        _code("assert np.ndim(m) == 0, 'm is one number'\n### BEGIN HIDDEN TESTS\n"
              "assert abs(m - np.mean(x)) < 1e-9, 'm is not the mean of x'\n### END HIDDEN TESTS",
              nbgrader={"grade": True, "solution": False, "locked": True, "grade_id": "mean",
                        "points": mean_points, "schema_version": 3},
              lupikit={"answers": ["m"], "checks": "m against numpy's mean", "minutes": 2}),
        nbformat.v4.new_markdown_cell("## Exercise 2\n\nStore the sum of squares of `x` in `s`."),
        _code("### BEGIN SOLUTION\ns = float(np.dot(x, x))\n### END SOLUTION",
              nbgrader={"grade": False, "solution": True, "locked": False, "grade_id": "squares-answer",
                        "schema_version": 3}),
        _code("### BEGIN HIDDEN TESTS\nassert abs(s - sum(v * v for v in x)) < 1e-9, 'wrong sum of squares'\n"
              "### END HIDDEN TESTS",
              nbgrader={"grade": True, "solution": False, "locked": True, "grade_id": "squares",
                        "points": sum_points, "schema_version": 3},
              lupikit={"answers": ["s"], "checks": "s against a loop", "minutes": 2}),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["lupikit"] = {"prerequisites": ["the toy chapter"], "data": []}
    return nb


def write_project(root):
    """A notebooks/ folder with the toy exercises and one chapter; returns (notebooks_dir, path)."""
    nb_dir = Path(root) / "notebooks"
    (nb_dir / "toy").mkdir(parents=True)
    path = nb_dir / "toy" / "exercises.ipynb"
    nbformat.write(toy_notebook(), path)
    chapter = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A chapter\n\n```{exercise} Think\n:label: toy-ch1\n\nWhy?\n```\n\n"
                                      "```{solution} toy-ch1\n:class: dropdown\n\nBecause the chapter "
                                      "says so at great length.\n```"),
        nbformat.v4.new_code_cell("print(1)")])
    chapter.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nbformat.write(chapter, nb_dir / "toy" / "chapter.ipynb")
    return nb_dir, path


def submission(nb, folder, student, rel="toy/exercises"):
    path = Path(folder) / student / f"{rel}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def with_answer(nb, grade_id, code):
    """A copy of ``nb`` whose answer cell ``<grade_id>-answer`` holds ``code``."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == f"{grade_id}-answer":
            cell.source = code
    return nb


def raw(text):
    return json.loads(text)


def run_alone(code, limits):
    """Run a notebook of the one code cell ``code`` in the sandbox: ``(result, the text it printed)``."""
    from lupikit.classroom._sandbox import run_sandboxed

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(code)]
    result = run_sandboxed(nb, [], limits)
    text = "".join(o.get("text", "") for o in result.notebook.cells[0].outputs) if result.notebook else ""
    return result, text
