"""The error of the ``lupikit`` command (:mod:`lupikit.cli`) and of the modules it is built on.

This module imports no part of the library.
"""


class CLIError(Exception):
    """An error reported to the user without a traceback."""
