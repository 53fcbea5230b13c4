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

To run every public check of a notebook from a terminal:

    python run_checks.py notebooks/<part>/exercises.ipynb

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


def pinned_requirements(wheel_name):
    """The lines of ``requirements.txt``: the library's wheel, then each package at this machine's version."""
    lines = ["# the packages of the lupikit exercises, at the versions they were built and tested with",
             f"./{wheel_name}"]
    for name in PINNED:
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


def make_pack(student_dir, out, *, project, data_home=None, pdf=None):
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

    Returns
    -------
    dict
        ``path``, ``files`` (names in the zip), ``data`` (the data files) and ``requirements``.
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
    with tempfile.TemporaryDirectory(prefix="lupikit-pack-") as tmp:
        wheel = _build_wheel(project, tmp)
        requirements = pinned_requirements(wheel.name)
        readme = _README.format(
            pdf="the book without solutions as a PDF (`lupikit-student.pdf`), " if pdf else "",
            python=f"{sys.version_info.major}.{sys.version_info.minor}", wheel=wheel.name,
            data=("The exercises need these files, in `data/`; keep the folder beside `notebooks/` "
                  "and set `LUPIKIT_DATA` to it (`export LUPIKIT_DATA=$PWD/data`): "
                  + ", ".join(f"`{d.name}`" for d in data)) if data else
                 "The exercises make their own data; they need no data file.")
        out.parent.mkdir(parents=True, exist_ok=True)
        root = out.stem
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for p in notebooks:
                zf.write(p, f"{root}/notebooks/{p.relative_to(student_dir).as_posix()}")
            for d in data:
                zf.write(d, f"{root}/data/{d.name}")
            if pdf:
                zf.write(pdf, f"{root}/lupikit-student.pdf")
            zf.write(wheel, f"{root}/{wheel.name}")
            zf.writestr(f"{root}/requirements.txt", requirements)
            zf.writestr(f"{root}/README.md", readme)
            zf.writestr(f"{root}/run_checks.py", RUN_CHECKS)
            files = zf.namelist()
    return {"path": out, "files": files, "data": [d.name for d in data], "requirements": requirements}
