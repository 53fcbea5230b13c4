"""Notebooks × seeds as tasks on a Dask cluster (private).

``lupikit paper --scheduler ADDRESS`` runs each unit of its work, one
notebook at one seed, as a task of a ``distributed`` cluster instead of in a
local thread: :func:`submit_units` (on the client) submits them and hands
each result back as it comes, :func:`run_unit` (on a worker) executes the
notebook with papermill (:func:`lupikit._book.execute.execute`) and returns
``(seconds, error, where)``. The client keeps everything else: which seeds a
checkpoint already holds, the checkpoints and the records.

The workers share the client's files: each needs the checkout at the same
path as the client (the notebooks, and the build folder that receives the
executed notebooks and the fit cache) with its ``.venv`` (``lupikit``
importable, the Jupyter kernel installed), and the data home in
``LUPIKIT_DATA``, at the same path too. The kernels' harness
(:mod:`lupikit._book.harness`) is not inherited from the client's
environment: :func:`harness_environment` takes it there and the task sets it
on the worker (:func:`apply_harness`). The
joblib loops inside a notebook stay on its worker (``n_jobs`` from the
preset): the whole notebook is the task.

A worker lost mid-task costs only that task: the scheduler runs it again on
another worker, up to its ``distributed.scheduler.allowed-failures`` (3 by
default); a task that fails for good (``KilledWorker``) is that unit's error.

This module imports no part of the library.
"""

import os
import socket
import uuid

from .execute import execute
from .harness import kernel_environment

__all__ = ["HARNESS_VARIABLES", "apply_harness", "harness_environment", "run_unit", "submit_units",
           "unit_key", "where_this_runs"]

#: the environment variables through which :func:`lupikit._book.harness.prepare_kernels` prepares the kernels
HARNESS_VARIABLES = ("IPYTHONDIR", "LUPIKIT_BLAS_THREADS", "LUPIKIT_CLAIMS", "LUPIKIT_PROGRESS",
                     "LUPIKIT_SOFT_ASSERTS", "LUPIKIT_SCHEDULER", "LUPIKIT_SEQUENTIAL_LOOPS")


def harness_environment(environ=None, **extra):
    """The kernels' harness as this process has it: ``{name: value or None}`` for a worker.

    The Dask scheduler of the joblib loops is left out (a notebook that is a
    task keeps its loops on its worker); ``extra`` adds variables.

    Examples
    --------
    >>> harness_environment({"IPYTHONDIR": "/c/_build/.ipython", "LUPIKIT_CLAIMS": "record",
    ...                      "LUPIKIT_SCHEDULER": "tcp://h:8786", "HOME": "/home/me"}, LUPIKIT_MEMORY="/m")
    ... # doctest: +NORMALIZE_WHITESPACE
    {'IPYTHONDIR': '/c/_build/.ipython', 'LUPIKIT_BLAS_THREADS': None, 'LUPIKIT_CLAIMS': 'record',
     'LUPIKIT_PROGRESS': None, 'LUPIKIT_SOFT_ASSERTS': None, 'LUPIKIT_SCHEDULER': None,
     'LUPIKIT_SEQUENTIAL_LOOPS': None, 'LUPIKIT_MEMORY': '/m'}
    """
    environ = os.environ if environ is None else environ
    env = {name: environ.get(name) for name in HARNESS_VARIABLES}
    env["LUPIKIT_SCHEDULER"] = None
    env.update(extra)
    return env


def apply_harness(env, environ=None):
    """Set ``env`` (:func:`harness_environment`) in this process's environment, for the kernels it starts.

    What :func:`lupikit._book.harness.prepare_kernels` does on the client, done
    on the worker: with ``IPYTHONDIR``, the harness's files are written where
    this machine lacks them and the environment gets what
    :func:`lupikit._book.harness.kernel_environment` sets for them (with this
    machine's own ``PYTHONPATH``, ``OMP_NUM_THREADS``); then each variable of
    ``env`` is set, or with None removed. With ``LUPIKIT_BLAS_THREADS`` the
    kernels get as many OpenMP threads unless ``OMP_NUM_THREADS`` is set.

    Examples
    --------
    >>> environ = {"LUPIKIT_SCHEDULER": "tcp://h:8786", "OMP_NUM_THREADS": "4"}
    >>> apply_harness({"LUPIKIT_CLAIMS": "record", "LUPIKIT_SCHEDULER": None}, environ)
    >>> environ
    {'OMP_NUM_THREADS': '4', 'LUPIKIT_CLAIMS': 'record'}
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder, environ = tempfile.mkdtemp(), {}
    >>> apply_harness({"IPYTHONDIR": folder, "LUPIKIT_BLAS_THREADS": "1"}, environ)
    >>> environ["IPYTHONDIR"] == str(Path(folder).resolve()), environ["OMP_NUM_THREADS"]
    (True, '1')
    >>> (Path(folder) / "profile_default" / "startup" / "00-lupikit-harness.py").is_file()
    True
    """
    environ = os.environ if environ is None else environ
    if env.get("IPYTHONDIR"):
        environ.update(kernel_environment(env["IPYTHONDIR"], blas_threads=env.get("LUPIKIT_BLAS_THREADS"),
                                          base=dict(environ)))
    for name, value in env.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = str(value)
    if env.get("LUPIKIT_BLAS_THREADS"):
        environ.setdefault("OMP_NUM_THREADS", str(env["LUPIKIT_BLAS_THREADS"]))


def where_this_runs():
    """``"<worker address> (<host name>)"`` in a Dask task, else ``"local (<host name>)"``."""
    host = socket.gethostname()
    try:
        from distributed import get_worker

        return f"{get_worker().address} ({host})"
    except (ImportError, ValueError):  # not in a task
        return f"local ({host})"


def run_unit(path, target, parameters, kernel, env, kernel_env=None):
    """One notebook at one seed, as a task on a worker: ``(seconds, error, where)``.

    Executes ``path`` with ``parameters`` into ``target`` (paths as the client
    names them: the worker must see them at the same place) in kernels with
    the harness ``env`` (:func:`harness_environment`) and, for this kernel
    only, ``kernel_env`` (the log of the data files it opens); ``error`` is
    None or the error of the run (:func:`lupikit._book.execute.execute`),
    ``where`` the worker's address and host (:func:`where_this_runs`).
    """
    apply_harness(env)
    seconds, error = execute(path, target, parameters, kernel=kernel, env=kernel_env)
    return seconds, error, where_this_runs()


def unit_key(short, seed):
    """A task key naming the notebook and the seed, unique to this submission.

    Examples
    --------
    >>> unit_key("boosting/gradients", 3)[:-9]
    'paper-boosting/gradients-seed3'
    """
    return f"paper-{short}-seed{seed}-{uuid.uuid4().hex[:8]}"


def submit_units(client, units, on_done):
    """Run ``units`` as tasks of ``client``'s cluster; ``on_done(i, seconds, error, where)`` as each ends.

    Parameters
    ----------
    client : distributed.Client
    units : list of (key, path, target, parameters, kernel, env[, kernel_env])
        The arguments of :func:`run_unit`, with the task's key; the first
        unit gets the highest priority.
    on_done : callable
        Called on this thread with the unit's index in ``units`` and its
        result, in the order they finish. A task that failed for good (its
        workers died, ``KilledWorker``, or it raised) gives ``seconds`` 0.0,
        the exception as ``error`` and ``where`` None; the others go on.
    """
    from distributed import as_completed  # the [dask] extra

    futures = {}
    for i, (key, *args) in enumerate(units):
        futures[client.submit(run_unit, *args, key=key, pure=False, priority=len(units) - i)] = i
    for future in as_completed(list(futures)):
        try:
            seconds, error, where = future.result()
        except Exception as exc:  # noqa: BLE001 - a lost task is its unit's failure, not the run's
            seconds, error, where = 0.0, f"{type(exc).__name__}: {exc}", None
        i = futures[future]
        future.release()
        on_done(i, seconds, error, where)
