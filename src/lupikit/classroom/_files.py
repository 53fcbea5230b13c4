"""Small file helpers of the classroom package: points as text, files replaced in one step, the size cap (private)."""

import os
import tempfile
from pathlib import Path

__all__ = ["MAX_FILE_BYTES", "fmt_points", "too_large", "write_atomically"]

#: the largest file a student may hand in (a notebook collected or graded): larger ones are listed, never read
MAX_FILE_BYTES = 64 * 1024 * 1024


def too_large(size):
    """Why a file of ``size`` bytes is not read ('' when it is small enough).

    Examples
    --------
    >>> too_large(1 << 30)
    '1073741824 bytes, over the 64 MiB a notebook may have'
    >>> too_large(1000)
    ''
    """
    return f"{size} bytes, over the {MAX_FILE_BYTES >> 20} MiB a notebook may have" if size > MAX_FILE_BYTES else ""


def fmt_points(points):
    """Points as the scores files write them: ``2``, ``0.5``.

    Examples
    --------
    >>> fmt_points(2.0), fmt_points(0.5)
    ('2', '0.5')
    """
    return f"{points:g}"


def write_atomically(path, text):
    """Write ``text`` to ``path`` so that a reader sees the old file or the new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        # (a lone surrogate from a student's text is written escaped, not refused)
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="") as fh:
            fh.write(text)
        mask = os.umask(0)  # mkstemp makes the file private: give it the mode a new file gets
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
