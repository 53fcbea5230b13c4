"""``python -m lupikit._book``: build the executed book, its PDF, the student edition's book.

    python -m lupikit._book build [--jobs N]            # execute notebooks, the PDF, _build/html
    python -m lupikit._book build --no-pdf              # the HTML only (its pages link no PDF)
    python -m lupikit._book build --preset paper        # from the paper-scale runs: _build/html-paper
    python -m lupikit._book pdf                         # as build, failing without Chromium
    python -m lupikit._book student --edition D/student --instructor D/instructor
                                                        # the book without solutions: D/student/book, PDF
    python -m lupikit._book open [--preset paper]       # print (and open, if possible) index.html

Run from the checkout (or below it): the book is the nearest folder with
``_toc.yml`` and ``notebooks/`` (:func:`lupikit._book.paths.book_paths`).
"""

import argparse
import sys

from .build import build, open_book
from .errors import BookError
from .paths import book_paths
from .pdf import book_pdf_step, drop_book_pdf, pdf
from .student import student_book


def _no_pdf(paths):
    """``build --no-pdf``: the PDF of an earlier build is removed, so that no page links it."""
    drop_book_pdf(paths)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lupikit._book", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build", help="execute the notebooks and build the book's HTML")
    p_build.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    p_build.add_argument("--preset", choices=("default", "paper"), default="default")
    p_build.add_argument("--no-pdf", action="store_true",
                         help="build no PDF (by default the book's PDF is printed with Chromium, if this "
                              "machine has it, and every page links it)")
    sub.add_parser("pdf", help="one PDF of the book")
    p_student = sub.add_parser("student", help="the student edition's book (HTML and PDF), no solutions")
    p_student.add_argument("--edition", required=True, help="the student edition (lupikit classroom build)")
    p_student.add_argument("--instructor", required=True, help="the instructor edition beside it")
    p_student.add_argument("--jobs", type=int, default=2)
    p_open = sub.add_parser("open", help="print (and open, if possible) the built book's index page")
    p_open.add_argument("--preset", choices=("default", "paper"), default="default")
    args = parser.parse_args(argv)
    try:
        paths = book_paths()
    except BookError as exc:
        print(f"python -m lupikit._book: error: {exc}", file=sys.stderr)
        return 2
    if args.command == "build":
        return build(paths, args.jobs, args.preset, before_html=_no_pdf if args.no_pdf else book_pdf_step)
    if args.command == "pdf":
        return pdf(paths)
    if args.command == "student":
        return student_book(paths, args.edition, args.instructor, args.jobs)
    return open_book(paths, args.preset)


if __name__ == "__main__":
    sys.exit(main())
