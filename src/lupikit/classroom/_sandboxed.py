"""The runner inside the sandbox: execute one student notebook, return plain values (private).

``python -m lupikit.classroom._sandboxed`` is what :mod:`._sandbox` starts
inside bubblewrap. It reads one request from standard input (JSON: the
prepared notebook, the limits, the folder where the graded cells save the
answers), executes the notebook in a kernel of its own, and writes one
answer to standard output (JSON): the executed notebook with its outputs cut
to the limit, why it stopped, and the saved answer files of the questions
asked for (JSON and ``.npy``/``.npz`` files, base64), each regular and
under the size limit. Nothing else leaves the sandbox.

Everything in here runs beside the student's code and may be tampered with
by it: the grader outside treats this answer as untrusted input.
"""

import base64
import json
import os
import shutil
import stat
import sys
from pathlib import Path

# jsonschema checks IRIs with rfc3987_syntax where it is installed, which builds a grammar when
# imported (over a second, on every start of this runner); the notebooks' schema needs no IRI
sys.modules.setdefault("rfc3987_syntax", None)

import nbformat  # noqa: E402

from ._execution import execute  # noqa: E402

__all__ = ["main"]


def _answer_files(folder, questions, max_bytes):
    """``{file name: base64}`` of the answer files of ``questions`` in ``folder``: regular files under the cap."""
    out, used = {}, 0
    for q in questions:
        for name in (f"{q}.json", f"{q}.npz"):
            path = Path(folder) / name
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode) or used + st.st_size > max_bytes:
                continue
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(max_bytes - used + 1)
            if used + len(data) > max_bytes:
                continue
            used += len(data)
            out[name] = base64.b64encode(data).decode("ascii")
    return out


def main():
    # the answer goes to the standard output this process was given; everything else
    # (the kernel's own prints, warnings) goes to /dev/null
    answer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    request = json.loads(sys.stdin.read())
    # matplotlib's font cache, built once by the grader, into this sandbox's own config folder
    cache, config = Path(request.get("mpl_cache") or "/nonexistent"), os.environ.get("MPLCONFIGDIR")
    if cache.is_dir() and config:
        shutil.copytree(cache, config, dirs_exist_ok=True)
    nb = nbformat.from_dict(request["notebook"])
    work = Path(request["workdir"])
    work.mkdir(parents=True, exist_ok=True)
    Path(request["answers"]).mkdir(parents=True, exist_ok=True)
    try:
        stopped, why = execute(nb, work, float(request["limit"]), request["kernel"],
                               cell_limit=request.get("cell_limit"), output_limit=request.get("output_limit"))
    except Exception as exc:  # noqa: BLE001 - reported to the grader, which costs this submission only
        stopped, why = None, f"the notebook could not run ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"
    files = _answer_files(request["answers"], request["questions"], int(request["max_answer_bytes"]))
    answer.write(json.dumps({"stopped": stopped, "why": why, "notebook": nb, "answers": files}))
    answer.flush()


if __name__ == "__main__":
    main()
