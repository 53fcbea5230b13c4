"""The kernels that lupikit's tools start to execute the book's notebooks (private).

The CLI (``lupikit run``, ``sweep``, ``paper``), the book build and the test
suite execute notebooks in Jupyter kernels. What those kernels need beyond the
notebook itself is set up here, so that the notebooks carry only the science:

- a quiet kernel: ipykernel's start-up warnings (for example "Kernel is running
  over TCP without encryption") are not shown (``IPKernelApp.log_level``);
- one BLAS thread per kernel when several notebooks run at once on a small
  machine (``LUPIKIT_BLAS_THREADS``, applied with threadpoolctl after NumPy and
  SciPy are loaded), and as many OpenMP threads (``OMP_NUM_THREADS``, unless
  the caller set it): XGBoost's histogram trees are loaded later than
  threadpoolctl runs and would otherwise start one OpenMP thread per core in
  every kernel. Measured: ``lupikit paper --jobs 2`` run without it (not via
  ``make paper``, which exports ``OMP_NUM_THREADS=1``) took 751 s for
  ``boosting/gradients`` beside other notebooks, and 102 s with it;
- with ``LUPIKIT_SOFT_ASSERTS`` (``lupikit run`` and ``sweep``), the
  notebook's own ``assert`` statements record a failure as an output
  (mime type ``application/vnd.lupikit.assert+json``, read back by
  :func:`lupikit._book.harness.read_failed_asserts`) instead of stopping the run, so
  that every claim after them is still evaluated (an IPython AST
  transformer; the library's own code is not touched). ``lupikit paper``, the
  book build and the test suite keep them as they are;
- with a Dask scheduler address (``LUPIKIT_SCHEDULER``), a ``distributed``
  client and joblib's dask backend, so that the notebooks' joblib loops (their
  ``n_jobs`` parameters) run on the cluster; with ``LUPIKIT_SEQUENTIAL_LOOPS``
  (``lupikit paper`` with a notebook per core), joblib's sequential backend,
  so that a notebook's loops do not contend with the other notebooks for the
  cores (the paper run's benchmark, ``results/benchmarks/paper_run.json``,
  has every notebook's time per seed before and after);
- with ``LUPIKIT_DATA_LOG`` (``lupikit paper``, one file per seed), every data
  file that the kernel or a process it starts (joblib's workers) opens below
  the folders of ``LUPIKIT_DATA_ROOTS`` (the data home and the package's
  vendored data) is logged, one path a line: the record's fingerprint holds
  their SHA-256 (:mod:`lupikit.claims`). A ``sitecustomize`` module on the
  kernels' ``PYTHONPATH`` adds the audit hook (:data:`SITECUSTOMIZE`), so the
  library's loaders carry no logging of their own.

It works through an IPython directory (``IPYTHONDIR``) holding a kernel
configuration and a start-up file, and a ``site`` folder on ``PYTHONPATH``;
:func:`kernel_environment` writes them and returns the environment variables
for the kernel processes.
"""

import json
import os
from pathlib import Path

__all__ = ["ASSERT_MIME", "DATA_LOG", "DATA_ROOTS", "KERNEL_CONFIG", "SITECUSTOMIZE", "STARTUP",
           "environment_flag", "kernel_environment", "prepare_kernels", "read_failed_asserts"]

#: The environment variable naming the file where a run logs the data files it opens.
DATA_LOG = "LUPIKIT_DATA_LOG"
#: The folders (``os.pathsep``-separated) below which an opened file is a data file.
DATA_ROOTS = "LUPIKIT_DATA_ROOTS"

SITECUSTOMIZE = """\
# written by lupikit's execution harness (lupikit._book.harness): in every Python process of a
# paper-scale run (its kernel and the worker processes it starts), the data files it opens are
# logged to $LUPIKIT_DATA_LOG, one path a line
def _lupikit_data_log():
    import os
    import sys
    import threading

    log = os.environ.get("LUPIKIT_DATA_LOG")
    roots = [r for r in os.environ.get("LUPIKIT_DATA_ROOTS", "").split(os.pathsep) if r]
    if not log or not roots:
        return
    roots = tuple(sorted({os.path.join(f(r), "") for r in roots for f in (os.path.abspath, os.path.realpath)}))
    seen, local = set(), threading.local()
    try:  # a first line: the hook is installed (a run without it logged nothing, not "no data")
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(fd, b"# data files opened\\n")
        os.close(fd)
    except OSError:
        return

    def hook(event, args):
        if event != "open" or not args or getattr(local, "busy", False):
            return
        path = args[0]
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str) or path in seen:
            return
        local.busy = True
        try:
            seen.add(path)
            full = os.path.abspath(path)
            if (full.startswith(roots) or os.path.realpath(full).startswith(roots)) and os.path.isfile(full):
                fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, (full + "\\n").encode())
                finally:
                    os.close(fd)
        except (OSError, ValueError):
            pass
        finally:
            local.busy = False

    sys.addaudithook(hook)


_lupikit_data_log()
del _lupikit_data_log
"""

KERNEL_CONFIG = """\
# written by lupikit's execution harness (lupikit._book.harness)
c.IPKernelApp.log_level = "CRITICAL"
"""

STARTUP = """\
# written by lupikit's execution harness (lupikit._book.harness): runs first in every
# kernel that lupikit's tools start for the book's notebooks
def _lupikit_harness():
    import os

    threads = os.environ.get("LUPIKIT_BLAS_THREADS")
    if threads:
        import numpy  # noqa: F401  (load the BLAS libraries first)
        import scipy.linalg  # noqa: F401
        from threadpoolctl import threadpool_limits

        threadpool_limits(int(threads))
    scheduler = os.environ.get("LUPIKIT_SCHEDULER")
    if scheduler:
        import joblib
        from distributed import Client

        client = Client(scheduler, timeout="20s")
        joblib.parallel_config(backend="dask")
        return client
    if os.environ.get("LUPIKIT_SEQUENTIAL_LOOPS"):
        import joblib

        joblib.parallel_config(backend="sequential")
    return None


_lupikit_client = _lupikit_harness()
del _lupikit_harness


def _lupikit_soft_asserts():
    # `lupikit run` and `sweep`: an `assert` of the notebook's own code records its
    # failure (an output the CLI reads back) instead of stopping the run, so that
    # every later claim is still evaluated
    import ast
    import os

    if not os.environ.get("LUPIKIT_SOFT_ASSERTS"):
        return
    from IPython import get_ipython
    from IPython.display import display

    shell = get_ipython()
    if shell is None:
        return

    def check(ok, message, source):
        if ok:
            return
        text = message()
        record = {"check": source, "message": None if text is None else str(text)}
        display({"application/vnd.lupikit.assert+json": record,
                 "text/plain": f"assertion failed (the run goes on): assert {source}"
                               + ("" if text is None else f", {text}")}, raw=True)

    class SoftAsserts(ast.NodeTransformer):
        def visit_Assert(self, node):
            self.generic_visit(node)
            no_args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
            message = ast.Lambda(args=no_args, body=node.msg or ast.Constant(None))
            call = ast.Call(func=ast.Name("_lupikit_assert", ast.Load()),
                            args=[node.test, message, ast.Constant(ast.unparse(node.test))], keywords=[])
            return ast.fix_missing_locations(ast.copy_location(ast.Expr(call), node))

    shell.user_ns["_lupikit_assert"] = check
    shell.ast_transformers.append(SoftAsserts())


_lupikit_soft_asserts()
del _lupikit_soft_asserts
"""


def kernel_environment(folder, *, blas_threads=None, scheduler=None, base=None):
    """Write the harness's IPython directory and return the kernels' environment.

    Parameters
    ----------
    folder : str or Path
        Where to write the IPython directory (created if needed).
    blas_threads : int or None, default=None
        BLAS threads per kernel (None: leave the libraries' default).
    scheduler : str or None, default=None
        Address of a Dask scheduler, e.g. ``"tcp://10.0.0.5:8786"``.
    base : dict or None, default=None
        Environment to extend (default: this process's).

    Returns
    -------
    env : dict
        The environment for the kernel processes.
    """
    folder = Path(folder).resolve()
    profile = folder / "profile_default"
    (profile / "startup").mkdir(parents=True, exist_ok=True)
    (folder / "site").mkdir(exist_ok=True)
    for path, text in ((profile / "ipython_kernel_config.py", KERNEL_CONFIG),
                       (profile / "startup" / "00-lupikit-harness.py", STARTUP),
                       (folder / "site" / "sitecustomize.py", SITECUSTOMIZE)):
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
    env = dict(os.environ if base is None else base)
    env["IPYTHONDIR"] = str(folder)
    site = str(folder / "site")
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != site]
    env["PYTHONPATH"] = os.pathsep.join([site] + paths)
    env.pop("LUPIKIT_BLAS_THREADS", None)
    env.pop("LUPIKIT_SCHEDULER", None)
    if blas_threads is not None:
        env["LUPIKIT_BLAS_THREADS"] = str(int(blas_threads))
        env.setdefault("OMP_NUM_THREADS", str(int(blas_threads)))
    if scheduler:
        env["LUPIKIT_SCHEDULER"] = str(scheduler)
    return env


#: the output that a notebook's failed ``assert`` leaves under ``LUPIKIT_SOFT_ASSERTS`` (see STARTUP)
ASSERT_MIME = "application/vnd.lupikit.assert+json"


def read_failed_asserts(executed):
    """The notebook's own ``assert`` statements that failed in a run with soft asserts.

    Parameters
    ----------
    executed : str or Path
        An executed notebook.

    Returns
    -------
    failed : list of dict
        ``{"cell": <the cell's number in the source notebook, counting every
        cell from 1; papermill's injected parameters cell is not counted>,
        "check": <the asserted expression>, "message": <its message or None>}``,
        in order.
    """
    nb = json.loads(Path(executed).read_text(encoding="utf-8"))
    cells = [c for c in nb.get("cells", [])
             if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    failed = []
    for index, cell in enumerate(cells, start=1):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = (output.get("data") or {}).get(ASSERT_MIME)
            if data is not None:
                if isinstance(data, str):  # a JSON payload may be stored as text
                    data = json.loads(data)
                failed.append({"cell": index, "check": data.get("check"), "message": data.get("message")})
    return failed


def environment_flag(name, value):
    """Set (or with None, remove) an environment variable of this process."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def prepare_kernels(folder, *, scheduler=None, blas_threads=None, progress=False, claims=None,
                    soft_asserts=False, sequential_loops=False):
    """Set this process's environment for the kernels it starts.

    Parameters
    ----------
    folder : str or Path
        The harness's IPython directory (:func:`kernel_environment`).
    scheduler : str or None
        A Dask scheduler's address for the notebooks' joblib loops.
    blas_threads : int or None
        BLAS threads per kernel (None: the libraries' default).
    progress : bool
        Show the library's progress bars (``LUPIKIT_PROGRESS``).
    claims : str or None
        ``"record"``: a failed claim is recorded and the run goes on (``LUPIKIT_CLAIMS``).
    soft_asserts : bool
        The notebook's own asserts record a failure and the run goes on (``LUPIKIT_SOFT_ASSERTS``).
    sequential_loops : bool
        The notebooks' joblib loops run one task at a time, whatever their
        ``n_jobs`` (``LUPIKIT_SEQUENTIAL_LOOPS``): for as many notebooks at
        once as the machine has cores, where a loop's workers would only
        contend with the other notebooks for the same cores. The library's
        loops seed each task themselves, so the results are the same to
        rounding (measured on ``relevance/relevance_bounds``: 10 of 12 claim
        values equal, 2 within 1e-15; a loop that splits its tasks by the
        number of workers sums them in another order).
    """
    os.environ.update(kernel_environment(folder, blas_threads=blas_threads, scheduler=scheduler))
    environment_flag("LUPIKIT_PROGRESS", "1" if progress else None)
    environment_flag("LUPIKIT_CLAIMS", claims)
    environment_flag("LUPIKIT_SOFT_ASSERTS", "1" if soft_asserts else None)
    environment_flag("LUPIKIT_SEQUENTIAL_LOOPS", "1" if sequential_loops and not scheduler else None)
