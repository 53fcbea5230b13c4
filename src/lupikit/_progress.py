"""Progress bars of the library's long loops (private).

A bar is shown when the caller asks for one and standard error is a
terminal, or, when the environment variable ``LUPIKIT_PROGRESS`` is ``1``, on
the process's original standard error: ``lupikit run`` sets it, so that the
loops of a notebook running in a Jupyter kernel report to the user's terminal
rather than into the notebook's outputs.
"""

import os
import sys

from tqdm import tqdm

__all__ = ["progress"]


def progress(iterable=None, *, total=None, desc=None, enabled=False):
    """A tqdm progress bar over ``iterable`` (disabled unless asked for, see above).

    Examples
    --------
    >>> from lupikit._progress import progress
    >>> sum(progress(range(3)))
    3
    """
    to_terminal = os.environ.get("LUPIKIT_PROGRESS") == "1" and sys.__stderr__ is not None
    show = to_terminal or (enabled and sys.stderr.isatty())
    return tqdm(iterable, total=total, desc=desc, disable=not show, leave=False,
                file=sys.__stderr__ if to_terminal else None, position=1 if to_terminal else None,
                dynamic_ncols=True)
