"""What grading needs from the instructor edition: its seed, its roster and its notebooks (private).

``lupikit classroom build`` writes ``instructor/edition.json`` beside the
solution notebooks: the course seed, the students of the roster (or null)
and the questions (``<notebook>:<grade_id>``). Grading from the instructor
edition takes all three from there, so that it works from any folder and
cannot grade a class at the wrong seed.
"""

import json
from pathlib import Path

__all__ = ["read_edition", "reconcile"]


def read_edition(instructor):
    """The instructor edition in the folder ``instructor``: a dict.

    Returns
    -------
    dict
        ``seed`` (int), ``students`` (list of ids, or None without a
        roster), ``sources`` (notebook short name -> path of the solution
        notebook, for every notebook with a question) and ``path`` (the
        ``edition.json`` read).

    Raises
    ------
    FileNotFoundError
        The folder, its ``edition.json`` or a notebook it names is missing.
    ValueError
        ``edition.json`` is not what ``classroom build`` writes.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "toy").mkdir()
    >>> _ = (d / "toy" / "exercises.ipynb").write_text("{}")
    >>> _ = (d / "edition.json").write_text(json.dumps(
    ...     {"seed": 7, "students": ["ada"], "questions": ["toy/exercises:mean"]}))
    >>> e = read_edition(d)
    >>> e["seed"], e["students"], sorted(e["sources"])
    (7, ['ada'], ['toy/exercises'])
    """
    instructor = Path(instructor)
    path = instructor / "edition.json"
    if not instructor.is_dir():
        raise FileNotFoundError(f"instructor: {instructor} is not a folder (the instructor/ folder that "
                                "`lupikit classroom build` writes).")
    if not path.is_file():
        raise FileNotFoundError(f"instructor: {instructor} holds no edition.json: is it the instructor/ "
                                "folder of `lupikit classroom build`?")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc}).") from exc
    seed, students, questions = data.get("seed"), data.get("students"), data.get("questions")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 or not isinstance(questions, list) \
            or not (students is None or isinstance(students, list)):
        raise ValueError(f"{path} is not an edition file of `lupikit classroom build` (seed, students, "
                         "questions).")
    sources = {}
    for column in questions:
        notebook = str(column).rsplit(":", 1)[0]
        source = instructor / f"{notebook}.ipynb"
        if not source.is_file():
            raise FileNotFoundError(f"the instructor edition names {notebook} but {source} is missing.")
        sources[notebook] = source
    return {"seed": seed, "students": students, "sources": sources, "path": path}


def reconcile(edition, *, seed=None, roster=None):
    """The seed and roster to grade with: the edition's, unless the command line contradicts them.

    ``seed`` and ``roster`` (a list of ids) are what the command line gave,
    or None. A seed other than the edition's, or a roster with other
    students than the edition's, is refused with both values.

    Examples
    --------
    >>> reconcile({"seed": 7, "students": ["ada", "alan"], "path": "edition.json"}, seed=7)
    (7, ['ada', 'alan'])
    >>> reconcile({"seed": 7, "students": None, "path": "edition.json"}, roster=["ada"])
    (7, ['ada'])
    """
    where = edition.get("path", "edition.json")
    if seed is not None and seed != edition["seed"]:
        raise ValueError(f"--seed {seed} contradicts the instructor edition, built with seed "
                         f"{edition['seed']} ({where}): every student would be graded at another "
                         "variant. Leave --seed out to use the edition's.")
    students = edition["students"]
    if roster is not None and students is not None and set(roster) != set(students):
        extra = sorted(set(roster) - set(students))
        missing = sorted(set(students) - set(roster))
        detail = "; ".join(x for x in (f"not in the edition: {', '.join(extra[:10])}" if extra else "",
                                       f"in the edition only: {', '.join(missing[:10])}" if missing else "")
                           if x)
        raise ValueError(f"--roster contradicts the instructor edition's roster ({where}): {detail}. "
                         "Leave --roster out to use the edition's.")
    return edition["seed"], list(roster) if roster is not None else students
