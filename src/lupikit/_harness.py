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
- with a Dask scheduler address (``LUPIKIT_SCHEDULER``), a ``distributed``
  client and joblib's dask backend, so that the notebooks' joblib loops (their
  ``n_jobs`` parameters) run on the cluster.

It works through an IPython directory (``IPYTHONDIR``) holding a kernel
configuration and a start-up file; :func:`kernel_environment` writes it and
returns the environment variables for the kernel processes.
"""

import os
from pathlib import Path

__all__ = ["kernel_environment", "STARTUP", "KERNEL_CONFIG"]

KERNEL_CONFIG = """\
# written by lupikit's execution harness (lupikit._harness)
c.IPKernelApp.log_level = "CRITICAL"
"""

STARTUP = """\
# written by lupikit's execution harness (lupikit._harness): runs first in every
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
    return None


_lupikit_client = _lupikit_harness()
del _lupikit_harness
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
    for path, text in ((profile / "ipython_kernel_config.py", KERNEL_CONFIG),
                       (profile / "startup" / "00-lupikit-harness.py", STARTUP)):
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
    env = dict(os.environ if base is None else base)
    env["IPYTHONDIR"] = str(folder)
    env.pop("LUPIKIT_BLAS_THREADS", None)
    env.pop("LUPIKIT_SCHEDULER", None)
    if blas_threads is not None:
        env["LUPIKIT_BLAS_THREADS"] = str(int(blas_threads))
        env.setdefault("OMP_NUM_THREADS", str(int(blas_threads)))
    if scheduler:
        env["LUPIKIT_SCHEDULER"] = str(scheduler)
    return env
