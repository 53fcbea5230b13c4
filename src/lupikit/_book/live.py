"""Live code cells of the served book: a kernel per page that switched Live on (private).

A notebook page served by ``lupikit serve`` can make its code cells
editable and run them (:mod:`lupikit._book.server` connects the page's
WebSocket to one of these kernels). Each page gets a kernel of its own,
started in the notebook's folder with the environment ``lupikit run``'s
kernels have; at most ``limit`` run at once, and a page's kernel is shut
down when the page closes its connection. What the browser sends is code
for that kernel only: the same trust as a Jupyter server behind its token.

The messages a page sends and gets are small JSON objects (:func:`LiveKernel.execute`
lists what comes back); outputs keep Jupyter's shape (``output_type``,
``name``/``text``, ``data``, ``ename``/``evalue``/``traceback``).

This module imports no part of the library.
"""

import asyncio
import os
import queue as _queue

from .execute import IPCKernelManager

__all__ = ["LiveKernel", "LiveKernels", "LiveLimitError"]

#: the iopub messages a page is sent, as outputs of the cell that ran
_OUTPUTS = ("stream", "display_data", "execute_result", "error", "update_display_data")


class LiveLimitError(RuntimeError):
    """More live kernels than the server allows."""


def _output(msg):
    """A Jupyter iopub message as a notebook output (a dict), or None for a message that is not one."""
    kind, content = msg["header"]["msg_type"], msg["content"]
    if kind == "stream":
        return {"output_type": "stream", "name": content.get("name", "stdout"), "text": content.get("text", "")}
    if kind in ("display_data", "update_display_data", "execute_result"):
        out = {"output_type": kind, "data": content.get("data", {}), "metadata": content.get("metadata", {})}
        if kind == "execute_result":
            out["execution_count"] = content.get("execution_count")
        return out
    if kind == "error":
        return {"output_type": "error", "ename": content.get("ename", ""), "evalue": content.get("evalue", ""),
                "traceback": content.get("traceback", [])}
    return None


class LiveKernel:
    """One page's kernel: run code, interrupt, restart, shut down.

    Parameters
    ----------
    cwd : path
        The folder the kernel starts in (the notebook's).
    kernel : str
        The Jupyter kernel's name.
    """

    def __init__(self, cwd, kernel="python3"):
        self.cwd, self.kernel_name = str(cwd), kernel
        self.manager = self.client = None
        self._lock = asyncio.Lock()

    async def start(self):
        self.manager = IPCKernelManager(kernel_name=self.kernel_name) if os.name == "posix" else None
        if self.manager is None:  # pragma: no cover - IPC sockets are POSIX's
            from jupyter_client.manager import AsyncKernelManager
            self.manager = AsyncKernelManager(kernel_name=self.kernel_name)
        await self.manager.start_kernel(cwd=self.cwd)
        self.client = self.manager.client()
        self.client.start_channels()
        await self.client.wait_for_ready(timeout=120)

    async def execute(self, code, send, cell=None):
        """Run ``code``; ``await send(message)`` for each output, then once when it ends.

        Messages: ``{"type": "output", "cell", "output"}``, ``{"type":
        "clear", "cell", "wait"}`` and, last, ``{"type": "done", "cell",
        "status"}`` (``"ok"``, ``"error"`` or ``"aborted"``) with its
        ``execution_count``. One cell runs at a time per kernel.
        """
        async with self._lock:
            msg_id = self.client.execute(code, store_history=True, allow_stdin=False)
            status, count = "ok", None
            while True:
                try:
                    msg = await self.client.get_iopub_msg(timeout=1)
                except _queue.Empty:
                    if not await self.manager.is_alive():
                        await send({"type": "done", "cell": cell, "status": "error", "execution_count": None,
                                    "message": "the kernel died; restart it"})
                        return
                    continue
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind = msg["header"]["msg_type"]
                if kind == "status" and msg["content"].get("execution_state") == "idle":
                    break
                if kind == "clear_output":
                    await send({"type": "clear", "cell": cell, "wait": bool(msg["content"].get("wait"))})
                elif kind == "execute_input":
                    count = msg["content"].get("execution_count")
                else:
                    out = _output(msg)
                    if out is not None:
                        status = "error" if kind == "error" else status
                        await send({"type": "output", "cell": cell, "output": out})
            try:  # its reply (replies to cells that were interrupted may come first)
                for _ in range(100):
                    reply = await self.client.get_shell_msg(timeout=5)
                    if reply.get("parent_header", {}).get("msg_id") == msg_id:
                        status = reply["content"].get("status", status)
                        count = reply["content"].get("execution_count", count)
                        break
            except _queue.Empty:
                pass
            await send({"type": "done", "cell": cell, "status": status, "execution_count": count})

    async def interrupt(self):
        await self.manager.interrupt_kernel()

    async def restart(self):
        """A fresh kernel (what ran before is forgotten)."""
        await self.manager.restart_kernel(now=True)
        self.client.stop_channels()
        self.client = self.manager.client()
        self.client.start_channels()
        await self.client.wait_for_ready(timeout=120)

    async def shutdown(self):
        if self.client is not None:
            self.client.stop_channels()
        if self.manager is not None and self.manager.has_kernel:
            await self.manager.shutdown_kernel(now=True)

    @property
    def pid(self):
        """The kernel's process id, or None."""
        process = getattr(getattr(self.manager, "provisioner", None), "process", None)
        return None if process is None else process.pid


class LiveKernels:
    """The live kernels of a server, at most ``limit`` at once.

    Parameters
    ----------
    limit : int
        Kernels at once; a page asking for one more is refused with a message.
    kernel : str
        The Jupyter kernel's name.
    """

    def __init__(self, limit=4, kernel="python3"):
        self.limit, self.kernel = max(1, int(limit)), kernel
        self.kernels = set()

    async def open(self, cwd):
        """Start a kernel in ``cwd``; raises :class:`LiveLimitError` when ``limit`` run already."""
        if len(self.kernels) >= self.limit:
            raise LiveLimitError(f"{self.limit} live kernels already run on this server (lupikit serve "
                                 "--live-kernels): switch Live off on another page first.")
        kernel = LiveKernel(cwd, self.kernel)
        self.kernels.add(kernel)
        try:
            await kernel.start()
        except BaseException:
            self.kernels.discard(kernel)
            await kernel.shutdown()
            raise
        return kernel

    async def close(self, kernel):
        self.kernels.discard(kernel)
        await kernel.shutdown()

    async def close_all(self):
        for kernel in list(self.kernels):
            await self.close(kernel)
