"""Per-student variants: a roster of ids and a seed for each id (private).

A student's variant is a number derived from the course seed and the
student's id by SHA-256, so it is the same on every machine and every run,
two ids almost never share one (about 1 in 2**31), and nobody can pick another
student's variant without knowing their id.
"""

import hashlib
import re

__all__ = ["variant_for", "check_student_id"]

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")


def check_student_id(student_id, where="student id"):
    """Return ``student_id`` as a string if it can name a folder, else raise ValueError."""
    text = str(student_id).strip()
    if text.lower() == "max":
        raise ValueError(f"{where} {student_id!r} cannot be a student id: 'max' names the row of the "
                         "maximum points in scores.csv. Give that student another id.")
    if not _ID.fullmatch(text) or text in (".", ".."):
        raise ValueError(
            f"{where} {student_id!r} is not a valid student id: use letters, digits and . _ @ + - "
            "(starting with a letter or digit, at most 128 characters), so that it can name a folder.")
    return text


def variant_for(student_id, seed=0):
    """The variant (an int in ``[0, 2**31)``) of ``student_id`` in a course with ``seed``.

    Parameters
    ----------
    student_id : str
        The student's id, as in the roster.
    seed : int, default=0
        The course's seed (``lupikit classroom build --seed``): another seed
        gives every student another variant.

    Returns
    -------
    variant : int

    Examples
    --------
    >>> from lupikit.classroom import variant_for
    >>> variant_for("ada", seed=0) == variant_for("ada", seed=0)
    True
    >>> variant_for("ada") != variant_for("alan")
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}.")
    student_id = check_student_id(student_id)
    digest = hashlib.sha256(f"lupikit-classroom:{seed}:{student_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31
