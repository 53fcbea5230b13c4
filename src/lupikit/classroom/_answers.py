"""The kernel side of grading: save a student's answers, test them in the grader's kernel (private).

``lupikit classroom grade`` runs two kernels per student and notebook:

* in the **student's** kernel a call of :func:`save` replaces each graded
  cell of the submission. It converts each answer to a NumPy array of
  numbers, booleans or text and writes it with ``allow_pickle=False``:
  nothing the student's code made is unpickled by the grader;
* in the **grader's** kernel the instructor's notebook runs at the student's
  variant, and a call of :func:`check` replaces each graded cell: the
  student's answers replace the reference answers for the length of that
  cell only, so a wrong answer to one question costs that question alone,
  and the tests recompute what they compare with from the variant, not from
  anything the student's code made.

This module imports NumPy only, so that it loads fast in every kernel; it
imports no part of the library.
"""

import ast
import json
from pathlib import Path

import numpy as np

__all__ = ["check", "save"]

_ABSENT = object()


def _as_array(value):
    arr = np.asarray(value)
    if arr.dtype.kind == "O":
        arr = np.asarray(value, dtype=float)
    if arr.dtype.kind not in "biufcUS":
        raise TypeError(f"dtype {arr.dtype}")
    return arr


def save(question, names, namespace, folder):
    """Write the answers ``names`` of ``question`` from ``namespace`` to ``folder``.

    Writes ``<question>.npz`` (the arrays that could be converted) and
    ``<question>.json`` (``{"missing": {name: reason}}``); never raises.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    arrays, missing = {}, {}
    for name in names:
        if name not in namespace:
            missing[name] = f"`{name}` is not defined"
            continue
        value = namespace[name]
        try:
            arrays[name] = _as_array(value)
        except (TypeError, ValueError) as exc:
            missing[name] = (f"`{name}` is not a number, an array of numbers or a text "
                             f"(it is a {type(value).__name__}: {exc})")
    try:
        np.savez(folder / f"{question}.npz", **arrays)
    except Exception as exc:  # noqa: BLE001 - a student's value must not stop the grading
        missing.update({name: f"`{name}` could not be saved ({exc})" for name in arrays})
    (folder / f"{question}.json").write_text(json.dumps({"missing": missing}), encoding="utf-8")



def _first_line(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _load(question, names, folder):
    info_path, data_path = folder / f"{question}.json", folder / f"{question}.npz"
    if not info_path.is_file():
        return None, "no answer was saved"
    info = json.loads(info_path.read_text(encoding="utf-8"))
    if info.get("unanswered"):
        return None, info["unanswered"]
    missing = info.get("missing") or {}
    if missing:
        return None, "; ".join(missing[n] for n in names if n in missing)
    with np.load(data_path, allow_pickle=False) as data:
        answers = {n: data[n] for n in names}
    # a 0-d array reads as the number it holds
    return {n: (a[()] if a.ndim == 0 else a) for n, a in answers.items()}, None


_SETUP = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
          ast.AugAssign, ast.AnnAssign)


def _run_tests(code, question, namespace):
    """Run a graded cell a top-level statement at a time: (tests passed, tests, the failures' reasons).

    Imports, definitions and assignments prepare the tests; every other
    top-level statement (an ``assert``, a call such as
    ``np.testing.assert_allclose``, a loop of checks) is a test, and fails if
    it raises. A test that fails does not stop the others; a preparing
    statement that fails stops the cell, and it and the tests after it fail.
    """
    tree = ast.parse(code)
    is_test = [not isinstance(stmt, _SETUP) for stmt in tree.body]
    passed, reasons, stopped = 0, [], False
    for stmt, test in zip(tree.body, is_test):
        block = compile(ast.Module(body=[stmt], type_ignores=[]), f"<graded cell {question}>", "exec")
        try:
            exec(block, namespace)  # noqa: S102 - the instructor's tests
            passed += test
        except AssertionError as exc:
            reasons.append("a test failed" + (f": {_first_line(exc)}" if str(exc) else ""))
        except Exception as exc:  # noqa: BLE001 - the answer under test may make the tests raise
            reasons.append(f"the tests raised {type(exc).__name__}: {_first_line(exc)}")
        else:
            continue
        if not test:
            stopped = True
            break
    # a failed preparing statement counts as one more failed test, so that a failure always costs points
    return passed, sum(is_test) + stopped, reasons


def check(question, names, code, namespace, folder, results, partial=False):
    """Run ``code`` (a graded cell) with the student's answers and append the outcome to ``results``.

    With ``partial``, each test of the cell (a top-level statement that is
    not an import, a definition or an assignment) counts for its share: the
    outcome's ``fraction`` is the share passed. Never raises: a failed test, an error or a missing answer
    is recorded with its reason, and the reference answers are put back.
    """
    folder, outcome = Path(folder), {"question": question, "passed": False, "reason": "", "fraction": 0.0}
    answers, reason = _load(question, names, folder)
    if answers is None:
        outcome["reason"] = reason
    else:
        saved = {n: namespace.get(n, _ABSENT) for n in names}
        namespace.update(answers)
        try:
            if partial:
                passed, total, reasons = _run_tests(code, question, namespace)
                outcome["fraction"] = passed / total if total else float(not reasons)
                outcome["passed"] = not reasons and passed == total
                if reasons:
                    outcome["reason"] = ((f"{total - passed} of {total} tests failed: " if total else "")
                                         + "; ".join(reasons[:3]))
            else:
                exec(compile(code, f"<graded cell {question}>", "exec"), namespace)  # noqa: S102 - the instructor's tests
                outcome["passed"], outcome["fraction"] = True, 1.0
        except AssertionError as exc:
            outcome["reason"] = "a test failed" + (f": {_first_line(exc)}" if str(exc) else "")
        except Exception as exc:  # noqa: BLE001 - any error of the answer under test costs this question only
            outcome["reason"] = f"the tests raised {type(exc).__name__}: {_first_line(exc)}"
        finally:
            for n, value in saved.items():
                if value is _ABSENT:
                    namespace.pop(n, None)
                else:
                    namespace[n] = value
    with open(results, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(outcome) + "\n")
