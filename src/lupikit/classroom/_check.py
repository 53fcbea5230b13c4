"""An exercise notebook checked as its author must check it (private).

:func:`check_exercise_notebook` grades made-up submissions with the real
grader and says what is wrong:

* the solutions, at several students' variants, must get full marks;
* the unmodified student edition must get 0 on every question;
* a submission with one answer made wrong must lose that question's points
  and no other (so the hidden tests test something, and only their question);
* the answers of one variant, copied into another student's notebook, must
  fail (so a copied answer fails).
"""

import copy
import tempfile
from pathlib import Path

import nbformat

from ._grade import grade_submissions, graded_index
from ._markup import read_questions, student_notebook

__all__ = ["check_exercise_notebook"]

_WRONG = '''import numpy as __lupikit_np


def __lupikit_wrong(value):
    a = __lupikit_np.asarray(value)
    if a.dtype.kind == "b":
        return ~a
    if a.dtype.kind in "iu":
        return a + 1
    if a.dtype.kind in "fc":
        return a * 1.1 + 0.1 * (1 + __lupikit_np.abs(a).max(initial=0))
    return __lupikit_np.char.add(a.astype(str), "?")


'''
_COPIED = '''import numpy as __lupikit_np

with __lupikit_np.load({path!r}, allow_pickle=False) as __lupikit_data:
{lines}
'''


def _write(nb, folder, student, rel):
    path = Path(folder) / student / f"{rel}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def check_exercise_notebook(path, rel, *, variants=3, seed=0, time_limit=120.0, n_jobs=2, kernel="python3"):
    """Grade made-up submissions of one exercise notebook; return ``(problems, report)``.

    Parameters
    ----------
    path : path
        The exercise notebook (the instructor's source).
    rel : str
        Its short name (``"<part>/exercises"``).
    variants : int, default=3
        How many students' variants the solutions are graded at.

    Returns
    -------
    problems : list of str
        Empty when the notebook passes every check.
    report : dict
        ``scores`` of every made-up student, ``questions`` and ``seconds``.
    """
    source = nbformat.read(path, as_version=4)
    questions = read_questions(source, rel)
    if not questions:
        return [f"{rel} has no graded question"], {}
    full = {q.column: q.points for q in questions}
    problems = []
    with tempfile.TemporaryDirectory(prefix="lupikit-check-") as tmp:
        tmp = Path(tmp)
        subs = tmp / "submissions"
        ids = [f"solution-{k}" for k in range(variants)]
        for sid in ids:
            _write(copy.deepcopy(source), subs, sid, rel)
        _write(student_notebook(source), subs, "student-edition", rel)
        for q in questions:
            nb = copy.deepcopy(source)
            lines = "".join(f"{a} = __lupikit_wrong({a})\n" for a in q.answers)
            nb.cells.insert(graded_index(nb, q.grade_id), nbformat.v4.new_code_cell(_WRONG + lines))
            _write(nb, subs, f"wrong-{q.grade_id}", rel)
        # the notebooks graded here are the author's own solutions, changed by this check: trusted
        # code, graded outside the sandbox (the copied answers below are read from this run's files)
        first = grade_submissions(subs, {rel: path}, tmp / "scores.csv", seed=seed, time_limit=time_limit,
                                  n_jobs=n_jobs, kernel=kernel, unsandboxed=True)
        scores, reasons = first["scores"], first["reasons"]
        for sid in ids:
            for q in questions:
                if scores[sid][q.column] != q.points:
                    problems.append(f"the solution at {sid}'s variant fails {q.grade_id}: {reasons[sid][q.column]}")
        for q in questions:
            if scores["student-edition"][q.column] != 0:
                problems.append(f"the unmodified student edition scores on {q.grade_id}")
            row = scores[f"wrong-{q.grade_id}"]
            if row[q.column] != 0:
                problems.append(f"a wrong answer to {q.grade_id} still passes its hidden tests")
            others = [c for c in full if c != q.column and row[c] != full[c]]
            if others:
                problems.append(f"a wrong answer to {q.grade_id} also costs {', '.join(others)}")
        # the answers of solution-0's variant, copied into another student's notebook
        nb = copy.deepcopy(source)
        saved = first["reports"] / ids[0] / f"{rel}.answers"
        for q in questions:
            lines = "".join(f"    {a} = __lupikit_data[{a!r}][()]\n" for a in q.answers)
            nb.cells.insert(graded_index(nb, q.grade_id), nbformat.v4.new_code_cell(
                _COPIED.format(path=str(saved / f"{q.grade_id}.npz"), lines=lines.rstrip("\n"))))
        _write(nb, tmp / "copied", "copied-answers", rel)
        second = grade_submissions(tmp / "copied", {rel: path}, tmp / "copied.csv", seed=seed,
                                   time_limit=time_limit, n_jobs=n_jobs, kernel=kernel, unsandboxed=True)
        for q in questions:
            if second["scores"]["copied-answers"][q.column] != 0:
                problems.append(f"{q.grade_id}: an answer copied from another variant passes "
                                "(the answer does not depend on the variant)")
        report = {"scores": {**scores, **second["scores"]}, "questions": questions,
                  "seconds": first["seconds"] + second["seconds"]}
    return problems, report
