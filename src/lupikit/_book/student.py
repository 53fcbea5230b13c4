"""The student edition's book: the book without solutions, as HTML and PDF (private).

``lupikit classroom build`` runs ``python -m lupikit._book student``. The
chapters are the book's own executions; every solution line of the
instructor edition is then looked for in what students get. This module
imports no part of the library.
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from ..classroom import find_leaks, solution_texts, strip_solution_blocks, student_notebook
from .build import staging_copy, executed_default, jupyter_book, prefill_cache, prepare_build, toc_notebooks
from .pages import write_pages
from .paths import is_exercise_notebook
from .pdf import print_pdf

__all__ = ["student_book"]


def student_book(paths, edition, instructor, jobs=2):
    """The book without solutions, from the student edition: ``edition/book/`` (HTML) and the PDF.

    The staging copy holds the Markdown pages without their ``{solution}``
    blocks and the student edition's notebooks. The chapters' code is the
    book's, so their executions come from the book's jupyter-cache (executed
    first if they are not there); the exercise notebooks, whose answer cells
    are stubs, are not executed. Then every solution line of the instructor
    edition is looked for in the HTML pages, the single page the PDF is
    printed from and the PDF's text: one found fails the build.
    """
    t0 = time.perf_counter()
    edition, instructor = Path(edition).resolve(), Path(instructor).resolve()
    prepare_build(paths, jobs)
    prefill_cache(paths, jobs)
    notebooks = toc_notebooks(paths)
    write_pages(paths, executed_default(paths, notebooks), "default", notebooks)
    stage = staging_copy(paths, "student-book", " (student edition)", link=("src", "results"), cache=str(paths.cache),
                   exclude_patterns=["*/exercises*.ipynb", "exercises*.ipynb"])
    shutil.copytree(paths.pages, stage / "book")
    for page in (stage / "book").rglob("*.md"):
        page.write_text(strip_solution_blocks(page.read_text(encoding="utf-8")), encoding="utf-8")
    seed = json.loads((instructor / "edition.json").read_text())["seed"]
    for nb_path in notebooks:
        short = paths.short(nb_path)
        target = stage / "notebooks" / f"{short}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        if is_exercise_notebook(nb_path):
            nb = student_notebook(nbformat.read(instructor / f"{short}.ipynb", as_version=4), variant=seed)
            nbformat.write(nb, target)
        else:
            shutil.copy(edition / f"{short}.ipynb", target)
    out = paths.build / "student-out"
    if jupyter_book(stage, output=out, label="student") != 0:
        print("[student] BUILD FAILED (see the warnings above)", file=sys.stderr)
        return 1
    html = edition / "book"
    if html.exists():
        shutil.rmtree(html)
    shutil.move(str(out / "_build" / "html"), html)
    pdf_path = edition / "lupikit-student.pdf"
    if print_pdf(stage, out / "_build", pdf_path) != 0:
        return 1
    # no solution text anywhere in what students get
    texts = solution_texts(sorted(instructor.rglob("*.ipynb")), sorted(paths.pages.rglob("*.md")))
    files = sorted(html.rglob("*.html")) + [out / "_build" / "singlehtml" / "index.html"]
    if shutil.which("pdftotext"):
        text_of_pdf = out / "lupikit-student.txt"
        subprocess.run(["pdftotext", str(pdf_path), str(text_of_pdf)], check=True)
        files.append(text_of_pdf)
    leaks = find_leaks(texts, files)
    if leaks:
        for f, line in leaks[:10]:
            print(f"[student] SOLUTION TEXT in {f}: {line!r}", file=sys.stderr)
        return 1
    print(f"[student] student book built in {time.perf_counter() - t0:.1f} s: {html / 'index.html'}, {pdf_path}; "
          f"{len(texts)} solution lines looked for in {len(files)} files, none found")
    return 0
