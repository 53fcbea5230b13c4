"""The error of the book's machinery: a problem to report to its user, without a traceback.

The ``lupikit`` command (:mod:`lupikit.cli`) prints it as ``lupikit: error: ...``
and exits with status 2; ``python -m lupikit._book`` does the same.
"""


class BookError(Exception):
    """A usage or set-up problem of the book's machinery (an unknown notebook, a bad value, ...)."""
