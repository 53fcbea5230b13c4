"""Executing one of the book's notebooks with papermill (private).

One run is a papermill execution of a notebook with parameters, in a kernel
prepared by :mod:`lupikit._book.harness` and talked to over IPC sockets
(:class:`IPCKernelManager`); the run's claims (:mod:`lupikit.claims`) are read
back from the executed notebook. :func:`executed_parameters` reads back the
values it started with, :func:`connect_scheduler` the Dask cluster its joblib
loops may run on.

This module imports no part of the library.
"""

import ast
import json
import os
import tempfile
import time
import uuid
from pathlib import Path

import papermill as pm
from jupyter_client.manager import AsyncKernelManager
from papermill.engines import NBClientEngine, papermill_engines
from traitlets import Unicode, default

from .._loops import closing_thread_loop
from .errors import BookError

__all__ = ["IPCKernelManager", "connect_scheduler", "execute", "executed_parameters"]


class IPCKernelManager(AsyncKernelManager):
    """A kernel manager that talks to its kernel over IPC (Unix sockets), not TCP.

    Kernels started at once from one process then cannot race for the same TCP
    ports, and nothing listens on the network. It is asynchronous, as nbclient's
    own default is: while a cell runs, nbclient then checks every second that
    the kernel is alive, so that a kernel killed (out of memory, or cancelled)
    ends the run with an error instead of leaving it waiting for a reply.
    """

    transport = Unicode("ipc")

    @default("ip")
    def _ip_default(self):  # the socket files' prefix: unique, outside the notebook's folder
        return os.path.join(tempfile.gettempdir(), f"lupikit-kernel-{uuid.uuid4().hex}")


def _with_environment(manager, env):
    """A kernel manager class that starts its kernel with ``env`` added to its environment."""

    async def _async_pre_start_kernel(self, **kw):
        kw["env"] = {**(kw.get("env") or os.environ), **env}
        return await manager._async_pre_start_kernel(self, **kw)

    return type(f"{manager.__name__}WithEnvironment", (manager,),
                {"_async_pre_start_kernel": _async_pre_start_kernel})


def _watched(manager, watch):
    """A kernel manager class that tells ``watch.kernel_started(pid)`` its kernel's process id."""

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        await manager._async_launch_kernel(self, kernel_cmd, **kw)
        process = getattr(self.provisioner, "process", None)
        if process is not None:
            watch.kernel_started(process.pid)

    return type(f"{manager.__name__}Watched", (manager,), {"_async_launch_kernel": _async_launch_kernel})


class _WatchedEngine(NBClientEngine):
    """papermill's nbclient engine, telling a watcher each cell it starts (``watch.cell_started(k, n)``)."""

    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, watch=None, **kwargs):
        if watch is not None:
            start = nb_man.cell_start

            def cell_start(cell, cell_index=None, **kw):
                watch.cell_started(cell_index, len(nb_man.nb.cells))
                return start(cell, cell_index, **kw)

            nb_man.cell_start = cell_start
        return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)


papermill_engines.register("lupikit-watched", _WatchedEngine)


def execute(path, target, parameters, *, kernel="python3", progress=False, log_output=False, env=None,
            watch=None):
    """Execute one notebook with papermill; return ``(seconds, error)``.

    ``error`` is None, or ``"<exception name>: <message>"`` when a cell raised
    (the executed notebook, with the error, is written all the same) or the
    kernel died. ``env`` adds variables to this kernel's environment only
    (several notebooks may run at once from one process). ``watch`` (or
    None) is told the kernel's process id (``watch.kernel_started(pid)``,
    which a cancel may kill) and each cell as it starts
    (``watch.cell_started(index, n_cells)``).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    error = None
    manager = IPCKernelManager if os.name == "posix" else AsyncKernelManager
    if env:
        manager = _with_environment(manager, {k: str(v) for k, v in env.items()})
    engine = {}
    if watch is not None:
        manager = _watched(manager, watch)
        engine = {"engine_name": "lupikit-watched", "watch": watch}
    try:
        with closing_thread_loop():  # (a worker thread's loop, which nbclient leaves set)
            pm.execute_notebook(str(path), str(target), parameters=parameters, cwd=str(Path(path).parent),
                                kernel_name=kernel, progress_bar=progress, log_output=log_output,
                                kernel_manager_class=manager, **engine)
    except pm.PapermillExecutionError as exc:
        error = f"{exc.ename}: {exc.evalue}"
    except (RuntimeError, TimeoutError) as exc:  # nbclient's DeadKernelError, CellTimeoutError
        error = f"{type(exc).__name__}: {exc}"
    return time.perf_counter() - t0, error



def executed_parameters(executed):
    """The parameter values a papermill run started with: its parameters cell with the injected values.

    (Before any preset: :func:`lupikit.claims.read_run_parameters` gives the
    values after it, for the parameters the notebook passes to its Claims.)
    """
    nb = json.loads(Path(executed).read_text(encoding="utf-8"))
    values = {}
    for cell in nb.get("cells", []):
        tags = cell.get("metadata", {}).get("tags", [])
        if "parameters" in tags or "injected-parameters" in tags:
            src = cell.get("source", "")
            try:
                tree = ast.parse("".join(src) if isinstance(src, list) else src)
            except SyntaxError:
                continue
            for node in tree.body:
                target = node.target if isinstance(node, ast.AnnAssign) else (
                    node.targets[0] if isinstance(node, ast.Assign) else None)
                if isinstance(target, ast.Name) and node.value is not None:
                    try:
                        values[target.id] = ast.literal_eval(node.value)
                    except ValueError:
                        pass
    return values



def connect_scheduler(address):
    """Connect to a Dask scheduler once (None without an address), or raise a BookError naming it."""
    if not address:
        return None
    try:
        from distributed import Client  # the [dask] extra
    except ImportError:
        raise BookError("--scheduler needs dask and distributed: pip install 'lupikit[dask]'.") from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise BookError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
