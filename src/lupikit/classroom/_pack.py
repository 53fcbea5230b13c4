"""The course pack: one zip a teacher hands out or puts on the lab machines (private)."""

import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

__all__ = ["PINNED", "RUN_CHECKS", "make_pack", "pinned_requirements"]

#: what a student's machine needs to run the notebooks (pinned to this machine's versions)
PINNED = ("numpy", "scipy", "highspy", "scikit-learn", "cvxopt", "xgboost-cpu", "xgboost", "pandas",
          "pyarrow", "joblib", "tqdm", "matplotlib", "ipykernel", "nbclient", "nbformat")

_README = """# lupikit exercises: the student pack

This folder holds the notebooks of the lupikit book for students (the
exercises with answer cells to fill in; no solutions), {pdf}a pinned list of
the packages they need and a copy of the library.

## Install (once, on any machine with Python {python} and the internet)

    python -m venv lupikit-env
    source lupikit-env/bin/activate        # Windows: lupikit-env\\Scripts\\activate
    pip install -r requirements.txt
    pip install jupyterlab                 # or open the notebooks in VS Code

Run the commands inside this folder: `requirements.txt` installs the library
from the wheel next to it ({wheel}).

## Work

Open a notebook of `notebooks/` (`jupyter lab notebooks`), write your answer
where a cell says `# YOUR CODE HERE` (delete the `raise NotImplementedError()`
line), and run the check cell below it: it says whether your answer has the
right form. Hidden tests check its value when your notebook is graded; they
use your own variant of the data, so run the whole notebook from the top.
Your exercise notebooks are {where}.

To run every public check of a notebook from a terminal:

    python run_checks.py <the notebook's path, e.g. notebooks/boosting/exercises.ipynb>

## Data

{data}

## Hand in

Hand in each notebook under the name it has here (for example
`boosting/exercises.ipynb`), as your teacher tells you.
"""

RUN_CHECKS = '''"""Run a notebook top to bottom and report each graded cell's public checks.

    python run_checks.py notebooks/<part>/exercises.ipynb [--timeout SECONDS]
"""

import argparse
import sys

import nbformat
from nbclient import NotebookClient


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per cell")
    args = parser.parse_args(argv)
    nb = nbformat.read(args.notebook, as_version=4)
    NotebookClient(nb, timeout=int(args.timeout), kernel_name="python3", allow_errors=True).execute()
    failed = 0
    for k, cell in enumerate(nb.cells):
        grade_id = (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id")
        if cell.cell_type != "code" or not (cell.metadata.get("nbgrader") or {}).get("grade"):
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            failed += 1
            print(f"FAILED  {grade_id} (cell {k + 1}): {errors[0].get('ename')}: {errors[0].get('evalue')}")
        else:
            print(f"passed  {grade_id} (cell {k + 1})")
    print(f"{failed} graded cell(s) failed their public checks" if failed else "every public check passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
'''


def _version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


#: XGBoost's CPU-only wheel has no macOS build: the full wheel there (as in pyproject.toml)
_XGBOOST_MARKERS = {"xgboost-cpu": "platform_system != 'Darwin'", "xgboost": "platform_system == 'Darwin'"}


def pinned_requirements(wheel_name):
    """The lines of ``requirements.txt``: the library's wheel, then each package at this machine's version.

    XGBoost is pinned twice, at the version installed here: ``xgboost-cpu``
    on Linux and Windows, ``xgboost`` on macOS (environment markers), so
    that one file installs on every student's laptop.

    Examples
    --------
    >>> lines = pinned_requirements("lupikit-1.0-py3-none-any.whl").splitlines()
    >>> [line.split("==")[0] for line in lines if line.startswith("xgboost")]
    ['xgboost-cpu', 'xgboost']
    """
    lines = ["# the packages of the lupikit exercises, at the versions they were built and tested with",
             f"./{wheel_name}"]
    xgboost = _version("xgboost-cpu") or _version("xgboost")
    for name in PINNED:
        if name in _XGBOOST_MARKERS:
            if xgboost is not None:
                lines.append(f"{name}=={xgboost}; {_XGBOOST_MARKERS[name]}")
            continue
        version = _version(name)
        if version is not None:
            lines.append(f"{name}=={version}")
    return "\n".join(lines) + "\n"


def _build_wheel(project, folder):
    """The library's wheel, built from a copy of the project's sources (no network: no build isolation)."""
    project, folder = Path(project), Path(folder)
    tree = folder / "tree"
    # a copy: setuptools leaves build/ and *.egg-info next to the sources it builds
    shutil.copytree(project / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (project / name).is_file():
            shutil.copy(project / name, tree / name)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder),
           str(tree)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    wheels = sorted(folder.glob("lupikit-*.whl"))
    if done.returncode != 0 or not wheels:
        raise RuntimeError(f"could not build the lupikit wheel from {project}: "
                           f"{(done.stderr or done.stdout).strip()[-500:]}")
    return wheels[-1]


def _student_folders(student_dir):
    """The per-student folders of an edition built with a roster (``<id>/<part>/exercises*.ipynb``)."""
    return sorted(d for d in Path(student_dir).iterdir()
                  if d.is_dir() and d.name != "book" and any(d.glob("*/exercises*.ipynb")))


def make_pack(student_dir, out, *, project, data_home=None, pdf=None, per_student=False):
    """Write the course pack, a zip of the student edition, the data, the PDF and the requirements.

    Parameters
    ----------
    student_dir : path
        The student edition (``lupikit classroom build``'s ``student/``).
    out : path
        The zip to write.
    project : path
        The project folder (with ``pyproject.toml``) the library's wheel is built from.
    data_home : path or None
        Where the data files the exercise notebooks name (their
        ``metadata.lupikit.data``) are read from.
    pdf : path or None
        The student PDF, if it was built.
    per_student : bool, default=False
        With an edition built with a roster, one zip per student
        (``<out stem>-<id>.zip``), holding the chapters and only that
        student's exercise notebooks, at ``notebooks/<part>/``.

    Returns
    -------
    dict
        ``path``, ``files`` (names in the zip), ``data`` (the data files) and
        ``requirements``; with ``per_student``, ``paths`` (student id ->
        zip) and ``files`` of the first.
    """
    student_dir, out = Path(student_dir), Path(out)
    if not student_dir.is_dir():
        raise FileNotFoundError(f"student edition: {student_dir} does not exist; run `lupikit classroom build` first.")
    notebooks = sorted(p for p in student_dir.rglob("*.ipynb")
                       if p.relative_to(student_dir).parts[0] != "book" and ".ipynb_checkpoints" not in p.parts)
    if not notebooks:
        raise ValueError(f"student edition: {student_dir} holds no notebook.")
    needed = set()
    for p in notebooks:
        needed.update(json.loads(p.read_text(encoding="utf-8")).get("metadata", {}).get("lupikit", {}).get("data", []))
    data = []
    for name in sorted(needed):
        source = Path(data_home or "") / name
        if data_home is None or not source.is_file():
            raise FileNotFoundError(f"the exercises need the data file {name}, not found in the data home "
                                    f"{data_home!r} (set LUPIKIT_DATA; the book's Data page says where to get it).")
        data.append(source)
    ids = _student_folders(student_dir)
    if per_student and not ids:
        raise ValueError(f"student edition: {student_dir} was built without a roster (no <id>/<part>/exercises "
                         "notebooks): there is one pack for everyone.")
    common = [p for p in notebooks if not any(d in p.parents for d in ids)]

    def relative(p):  # a student's own notebooks go where the common edition has them
        owner = next((d for d in ids if d in p.parents), None)
        return p.relative_to(owner if per_student and owner is not None else student_dir).as_posix()

    where = ("`notebooks/<your id>/<part>/exercises.ipynb` (the folder of your id: its notebooks are made "
             "from your variant of the data)" if ids and not per_student else "`notebooks/<part>/exercises.ipynb`")
    with tempfile.TemporaryDirectory(prefix="lupikit-pack-") as tmp:
        wheel = _build_wheel(project, tmp)
        requirements = pinned_requirements(wheel.name)
        readme = _README.format(
            pdf="the book without solutions as a PDF (`lupikit-student.pdf`), " if pdf else "",
            python=f"{sys.version_info.major}.{sys.version_info.minor}", wheel=wheel.name, where=where,
            data=("The exercises need these files, in `data/`; keep the folder beside `notebooks/` "
                  "and set `LUPIKIT_DATA` to it (`export LUPIKIT_DATA=$PWD/data`): "
                  + ", ".join(f"`{d.name}`" for d in data)) if data else
                 "The exercises make their own data; they need no data file.")
        out.parent.mkdir(parents=True, exist_ok=True)

        def write(path, members):
            root = path.stem
            with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                for p in members:
                    zf.write(p, f"{root}/notebooks/{relative(p)}")
                for d in data:
                    zf.write(d, f"{root}/data/{d.name}")
                if pdf:
                    zf.write(pdf, f"{root}/lupikit-student.pdf")
                zf.write(wheel, f"{root}/{wheel.name}")
                zf.writestr(f"{root}/requirements.txt", requirements)
                zf.writestr(f"{root}/README.md", readme)
                zf.writestr(f"{root}/run_checks.py", RUN_CHECKS)
                return zf.namelist()

        if per_student:
            paths, files = {}, None
            for d in ids:
                path = out.with_name(f"{out.stem}-{d.name}.zip")
                names = write(path, common + [p for p in notebooks if d in p.parents])
                paths[d.name], files = path, files or names
            return {"path": out.parent, "paths": paths, "files": files, "data": [d.name for d in data],
                    "requirements": requirements}
        files = write(out, notebooks)
    return {"path": out, "files": files, "data": [d.name for d in data], "requirements": requirements}
