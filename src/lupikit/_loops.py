"""The event loop that nbclient leaves to a worker thread, closed (private).

nbclient's ``run_sync`` gives a thread that runs a notebook an event loop of
its own and leaves it set. A worker thread that runs notebook after notebook
(the grader's, the book's paper runs, the served book's runs and sweeps)
would leave it to the garbage collector, which warns about it wherever it
runs. :func:`closing_thread_loop` closes it once the kernel is gone. This
module imports no part of the library.
"""

import asyncio
import contextlib
import threading
import warnings

__all__ = ["closing_thread_loop"]


def _thread_loop():
    """The event loop set for this thread (not the main one), or None."""
    with warnings.catch_warnings():  # (the policy's API is deprecated from Python 3.14 on, as nbclient's use)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            return None


@contextlib.contextmanager
def closing_thread_loop():
    """Close the event loop that the enclosed code left set for this worker thread.

    The main thread's loop is the process's to keep: there, nothing is done.

    Examples
    --------
    >>> import asyncio, threading
    >>> seen = []
    >>> def work():
    ...     with closing_thread_loop():
    ...         loop = asyncio.new_event_loop()
    ...         asyncio.set_event_loop(loop)  # (as nbclient's run_sync does)
    ...     seen.append(loop.is_closed())
    >>> t = threading.Thread(target=work); t.start(); t.join()
    >>> seen
    [True]
    """
    if threading.current_thread() is threading.main_thread():
        yield
        return
    before = _thread_loop()
    try:
        yield
    finally:
        loop = _thread_loop()
        if loop is not None and loop is not before and not loop.is_running() and not loop.is_closed():
            loop.close()
            asyncio.set_event_loop(before)
