"""Run a notebook's code cells in a kernel with a time limit for each cell and for all (private).

Used on both sides of the sandbox: inside it, by the runner that executes a
student's notebook (:mod:`lupikit.classroom._sandboxed`), and outside it, by
the grader's replay of the instructor's notebook. Imports nbclient and
nbformat, and closes the event loop nbclient leaves to a thread (:mod:`lupikit._loops`).
"""

import subprocess
import time

from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from .._loops import closing_thread_loop

__all__ = ["cell_number", "errors_before", "execute", "trim_outputs"]


def cell_number(nb, k):
    """The number (from 1) the student sees for cell ``k`` of ``nb``: the grader's injected cell not counted."""
    injected = sum(1 for c in nb.cells[:k] if "injected-parameters" in c.get("metadata", {}).get("tags", []))
    return k + 1 - injected


def errors_before(nb, upto):
    """The last error output of a code cell before index ``upto`` (text), or ''."""
    for k in range(upto - 1, -1, -1):
        cell = nb.cells[k]
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if out.get("output_type") == "error":
                evalue = " ".join(str(out.get("evalue", "")).split())[:200]
                return f"cell {cell_number(nb, k)} raised {out.get('ename')}" + (f": {evalue}" if evalue else "")
    return ""


def _size(outputs):
    import json

    return len(json.dumps(outputs, default=str))


def trim_outputs(cell, budget):
    """Cut the outputs of ``cell`` to at most ``budget`` bytes of JSON; returns the bytes they keep.

    Outputs past the budget are dropped and a note says so (the student's
    report keeps what fits: a print loop cannot make a report of 50 MB).
    """
    kept, used = [], 0
    for out in cell.get("outputs", []):
        size = _size(out)
        if used + size > budget:
            note = {"output_type": "stream", "name": "stderr",
                    "text": f"[output cut by the grader: over the limit of {budget} bytes]\n"}
            cell["outputs"] = kept + [note]
            return used + _size(note)
        kept.append(out)
        used += size
    cell["outputs"] = kept
    return used


def execute(nb, workdir, limit, kernel, *, cell_limit=None, output_limit=None, env=None):
    """Execute ``nb`` in place within ``limit`` seconds in all; errors do not stop it.

    Parameters
    ----------
    nb : NotebookNode
    workdir : path
        The kernel's working folder.
    limit : float
        Seconds for all cells together.
    kernel : str
        Kernel name.
    cell_limit : float or None
        Seconds for one cell (None: only ``limit``).
    output_limit : int or None
        Bytes of outputs (JSON) the notebook keeps in all; later outputs are cut.
    env : dict or None
        The kernel's environment (None: this process's).

    Returns
    -------
    (stopped_at, why) : the index of the cell that ran past a limit or
    killed the kernel (None if all ran) and the reason.
    """
    with closing_thread_loop():
        return _execute(nb, workdir, limit, kernel, cell_limit, output_limit, env)


def _execute(nb, workdir, limit, kernel, cell_limit, output_limit, env):
    client = NotebookClient(nb, timeout=max(1, int(limit)), kernel_name=kernel, allow_errors=True,
                            resources={"metadata": {"path": str(workdir)}}, startup_timeout=120,
                            shutdown_kernel="immediate")
    deadline = time.monotonic() + limit
    budget = output_limit
    kwargs = {"stderr": subprocess.DEVNULL}  # the kernels are quiet (e.g. ipykernel's TCP warning)
    if env is not None:
        kwargs["env"] = env
    with client.setup_kernel(**kwargs):
        for k, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                return k, f"the notebook ran past the time limit of {limit:g} s (before cell {cell_number(nb, k)})"
            per_cell = left if cell_limit is None else min(left, cell_limit)
            client.timeout = max(1, int(per_cell + 0.999))
            try:
                client.execute_cell(cell, k)
            except CellTimeoutError:
                if cell_limit is not None and per_cell >= cell_limit:
                    return k, f"cell {cell_number(nb, k)} ran past the time limit of {cell_limit:g} s for one cell"
                return k, f"the notebook ran past the time limit of {limit:g} s (in cell {cell_number(nb, k)})"
            except DeadKernelError:
                return k, f"the kernel died in cell {cell_number(nb, k)}"
            finally:
                if budget is not None:
                    budget = max(0, budget - trim_outputs(cell, budget))
    return None, ""
