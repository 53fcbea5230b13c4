"""The kernels the test suite starts (nbval's notebooks) get lupikit's execution harness.

The same set-up as ``lupikit run`` and the book build (``lupikit._book.harness``): a
quiet kernel and one BLAS thread, since several notebooks and tests run at
once on CI's two cores.
"""

import os
from pathlib import Path

from lupikit._book.harness import kernel_environment


def pytest_configure(config):
    os.environ.update(kernel_environment(Path(__file__).resolve().parent / "_build" / ".ipython",
                                         blas_threads=1))
