"""``lupikit classroom build|grade|check|pack``: the classroom edition from the command line."""

import argparse
import datetime
import importlib.util
import os
import sys
import time
from pathlib import Path

from .. import classroom
from .._book.errors import BookError
from .._book.paths import checkout_paths, find_notebooks_dir
from .._book.student import student_book

__all__ = ["add_classroom_parser"]

MIB = 1 << 20

_EPILOG = """\
editions (build):
  OUT/student/     the notebooks without solutions or hidden tests, answer stubs in
                   place; with --students, OUT/student/<id>/<part>/exercises.ipynb at
                   each student's variant; the book's HTML and PDF without solutions
                   (unless --no-book)
  OUT/instructor/  the solution notebooks (nbgrader source notebooks), the hidden
                   tests, rubrics.md, a page per part, variants.csv
grading (grade):
  SUBMISSIONS/<id>/<part>/exercises.ipynb, as handed out; every notebook is run with
  a time limit, the hidden tests run in a kernel of their own on the answers, and
  --out gets a row per student, a column per question, 'total' and a row 'max';
  the reports (and the executed submissions) go to <out stem>-reports/, a line per
  run to <out stem>-log.jsonl. From any folder:
    lupikit classroom grade SUBMISSIONS --instructor OUT/instructor --out scores.csv
  takes the notebooks, seed and roster from the instructor edition; --students ID
  regrades some students and keeps every other row of scores.csv.
"""


def _need_classroom():
    """The classroom extra is installed (nbgrader, nbclient), or a BookError naming it."""
    for module in ("nbgrader", "nbclient"):
        if importlib.util.find_spec(module) is None:
            raise BookError(f"the classroom commands need nbgrader ({module} is not installed): "
                            "pip install 'lupikit[classroom]'")


def default_editions(paths, cwd=None):
    """Where ``classroom build`` writes the editions, and the other commands look for them, by default.

    ``_build/classroom`` of the checkout when the command runs inside it,
    else of the working folder (a course folder outside the checkout), so
    that the README's commands chain as written from either.

    Examples
    --------
    >>> from pathlib import Path
    >>> from types import SimpleNamespace
    >>> paths = SimpleNamespace(root=Path("/src/lupikit"), classroom=Path("/src/lupikit/_build/classroom"))
    >>> default_editions(paths, cwd=Path("/src/lupikit/notebooks")).as_posix()
    '/src/lupikit/_build/classroom'
    >>> default_editions(paths, cwd=Path("/home/t/course")).as_posix()
    '/home/t/course/_build/classroom'
    """
    here, root = Path(cwd or Path.cwd()).resolve(), Path(paths.root).resolve()
    if here == root or root in here.parents:
        return paths.classroom
    return here / "_build" / "classroom"


def _editions_dir(args, paths):
    return Path(args.out) if getattr(args, "out", None) else default_editions(paths)


def _exercise_sources(nb_dir, names):
    names = [str(Path(n).with_suffix("")) if n.endswith(".ipynb") else n for n in names or []]
    names = [n.split("notebooks/", 1)[-1] for n in names]
    paths = sorted(p for p in Path(nb_dir).rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and classroom.is_exercise_notebook(p))
    sources = {p.relative_to(nb_dir).with_suffix("").as_posix(): p for p in paths}
    if names:
        unknown = [n for n in names if n not in sources]
        if unknown:
            raise BookError(f"no exercise notebook {', '.join(unknown)}; there are: {', '.join(sources) or 'none'}")
        sources = {n: sources[n] for n in names}
    if not sources:
        raise BookError(f"there is no exercise notebook (exercises*.ipynb) under {nb_dir}.")
    return sources


def cmd_build(args):
    _need_classroom()
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    paths = checkout_paths(nb_dir)
    out = _editions_dir(args, paths)
    if args.seed < 0:
        raise BookError(f"--seed must be an integer >= 0, got {args.seed}.")
    t0 = time.perf_counter()
    try:
        editions = classroom.build_editions(nb_dir, out, book_dir=paths.pages if paths.pages.is_dir() else None,
                                            seed=args.seed, roster=args.students, id_column=args.id_column)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        raise BookError(str(exc)) from exc
    questions = editions["questions"]
    parts = {}
    for q in questions:
        parts[q.notebook.split("/")[0]] = parts.get(q.notebook.split("/")[0], 0) + 1
    print(f"notebooks: {len(editions['notebooks'])}; computational exercises: {len(questions)} ("
          + ", ".join(f"{p} {n}" for p, n in sorted(parts.items())) + f"); written exercises: "
          f"{len(editions['written'])}; notebooks written in {editions['seconds']:.1f} s")
    if not args.no_book and paths.toc.is_file():
        print("building the student edition of the book (HTML and PDF) ...", flush=True)
        # (the editions' folders as given from where the command runs, a course folder maybe)
        done = student_book(paths, Path(editions["student"]).resolve(), Path(editions["instructor"]).resolve())
        if done != 0:
            raise BookError("the student edition of the book did not build (see above).")
    print(f"student edition:    {editions['student']}")
    print(f"instructor edition: {editions['instructor']}")
    print(f"both editions built in {time.perf_counter() - t0:.1f} s")
    return 0


def _checked_sources(args, option, value):
    """The exercise notebooks the command works on, once ``--option`` (a count) is checked."""
    _need_classroom()
    if value < 1:
        raise BookError(f"--{option} must be at least 1, got {value}.")
    return _exercise_sources(find_notebooks_dir(args.notebooks_dir), args.notebooks)


def cmd_collect(args):
    _need_classroom()
    try:
        instructor = Path(args.instructor) if args.instructor else (
            default_editions(checkout_paths(find_notebooks_dir(args.notebooks_dir))) / "instructor")
        if not args.instructor and not instructor.is_dir():
            raise FileNotFoundError(f"no instructor edition at {instructor} (the default): pass --instructor "
                                    "OUT/instructor, the folder `lupikit classroom build --out OUT` wrote.")
        edition = classroom.read_edition(instructor)
        roster = classroom.read_roster_table(args.roster, id_column=args.id_column)
        deadline = None
        if args.deadline:
            try:
                deadline = datetime.datetime.fromisoformat(args.deadline)
            except ValueError as exc:
                raise ValueError(f"--deadline {args.deadline!r} is not a date and time such as "
                                 "2027-03-01T23:59") from exc
        done = classroom.collect_submissions(args.download, args.out, roster=roster, sources=edition["sources"],
                                             deadline=deadline, late_column=args.late_column)
    except (FileNotFoundError, ValueError) as exc:
        raise BookError(str(exc)) from exc
    placed = sum(len(v) for v in done["placed"].values())
    print(f"collected {placed} notebook(s) of {len(done['placed'])} student(s) into {args.out}"
          + (f"; late: {', '.join(done['late'])}" if done["late"] else ""))
    for key, what in (("missing", "on the roster, nothing handed in"), ("unknown_students", "not on the roster"),
                      ("unknown_files", "not an exercise notebook of this edition"),
                      ("unreadable", "a notebook that is not valid JSON (not placed: which exercise it is "
                                     "cannot be told)"),
                      ("ambiguous", "not placed: whose or which it is cannot be told"),
                      ("duplicates", "a second file for one notebook (not placed)")):
        if done[key]:
            print(f"  {what} ({len(done[key])}): " + "; ".join(done[key][:8]) + ("; ..." if len(done[key]) > 8 else ""))
    return 0


def _grading_plan(args):
    """The notebooks, seed and roster to grade with: from the instructor edition when there is one.

    ``--instructor DIR`` names it; without it, the last ``classroom build``'s
    (``_build/classroom/instructor``, see :func:`default_editions`) is used if
    there is one, else the checkout's exercise notebooks with ``--seed``
    (required).
    """
    _need_classroom()
    if args.jobs < 1:
        raise BookError(f"--jobs must be at least 1, got {args.jobs}.")
    instructor = Path(args.instructor) if args.instructor else None
    if instructor is None:
        try:
            default = default_editions(checkout_paths(find_notebooks_dir(args.notebooks_dir))) / "instructor"
        except BookError:
            default = None
        if default is not None and (default / "edition.json").is_file():
            instructor = default
    roster = classroom.read_roster(args.roster, id_column=args.id_column) if args.roster else None
    if instructor is not None:
        edition = classroom.read_edition(instructor)
        seed, roster = classroom.reconcile(edition, seed=args.seed, roster=roster)
        sources = edition["sources"]
        if args.notebooks:
            names = [n[:-6] if n.endswith(".ipynb") else n for n in args.notebooks]
            unknown = [n for n in names if n not in sources]
            if unknown:
                raise BookError(f"no exercise notebook {', '.join(unknown)} in the instructor edition; "
                                f"there are: {', '.join(sources)}")
            sources = {n: sources[n] for n in names}
        print(f"grading with the instructor edition {instructor} (seed {seed}"
              + (f", {len(roster)} students on its roster)" if roster else ")"), flush=True)
        return sources, seed, roster, edition["students"] is not None
    if args.seed is None:
        raise BookError("there is no instructor edition to take the course seed from: give --instructor DIR "
                        "(the instructor/ folder of `lupikit classroom build`), or --seed N with the seed the "
                        "editions were built with.")
    try:
        sources = _exercise_sources(find_notebooks_dir(args.notebooks_dir), args.notebooks)
    except BookError as exc:
        raise BookError(f"{exc} (outside a checkout, give --instructor DIR: the instructor/ folder of "
                        "`lupikit classroom build`)") from exc
    return sources, args.seed, roster, None


def cmd_grade(args):
    try:
        sources, seed, roster, per_student = _grading_plan(args)
        limits = classroom.Limits(notebook=args.time_limit, cell=args.cell_time_limit,
                                  memory=int(args.memory_limit * MIB), processes=args.max_processes,
                                  file_size=int(args.max_file_size * MIB), output=int(args.max_output * MIB))
        if args.unsandboxed:
            print("warning: --unsandboxed: the students' code runs as you, with your files and network; "
                  "every row graded now is flagged so", file=sys.stderr)
        report = classroom.grade_submissions(args.submissions, sources, args.out, roster=roster,
                                             seed=seed, time_limit=args.time_limit, n_jobs=args.jobs,
                                             kernel=args.kernel, progress=sys.stderr.isatty(),
                                             only=args.students, per_student=per_student, limits=limits,
                                             unsandboxed=args.unsandboxed, scheduler=args.scheduler,
                                             replace_absent=args.replace_absent)
    except (FileNotFoundError, ValueError, classroom.SandboxUnavailable, classroom.GradingInProgress) as exc:
        raise BookError(str(exc)) from exc
    total = sum(report["max"].values())
    print(f"graded {len(report['students'])} student(s) on {len(report['max'])} question(s) "
          f"in {report['seconds']:.1f} s" + (f"; kept the earlier rows of {len(report['kept'])}"
                                               if report["kept"] else ""))
    if report["absent_kept"]:
        absent = report["absent_kept"]
        print(f"  {len(absent)} student(s) of the roster have no folder in {args.submissions}: their rows in "
              f"{args.out} are kept ({', '.join(absent[:5])}{', ...' if len(absent) > 5 else ''}); "
              "--replace-absent grades them as not submitted")
    for s, what in report["failures"].items():
        print(f"  {s}: the run stopped early: {'; '.join(what)}")
    for s in report["students"]:
        flagged = report["flags"].get(s)
        print(f"  {s}: {sum(report['scores'][s].values()):g} of {total:g}"
              + (f"  [flags: {'; '.join(flagged)}]" if flagged else ""))
    print(f"scores:  {report['out']}")
    print(f"reports: {report['reports']}")
    print(f"log:     {report['log']}")
    if report["grader_errors"]:
        pairs = ", ".join(f"{s} ({n})" for s, n in report["grader_errors"][:5])
        raise BookError(f"the instructor's notebook failed for {len(report['grader_errors'])} submission(s), "
                       f"e.g. {pairs}: see the reports (a bug of the exercise, not of the students).")
    return 0


def cmd_marks(args):
    try:
        done = classroom.merge_written_marks(args.scores, args.marks)
    except (FileNotFoundError, ValueError) as exc:
        raise BookError(str(exc)) from exc
    print(f"written marks: {len(done['columns'])} exercise(s), marks of {len(done['students'])} student(s) merged "
          f"into {done['out']}" + (f"; not in the scores (left out): {', '.join(done['unknown'])}"
                                   if done["unknown"] else ""))
    return 0


def cmd_export(args):
    try:
        done = classroom.export_grades(args.scores, args.out, args.format, roster=args.roster,
                                       id_column=args.id_column, title=args.title,
                                       per_question=args.per_question)
    except (FileNotFoundError, ValueError) as exc:
        raise BookError(str(exc)) from exc
    print(f"{args.format} grades: {done['out']} ({done['rows']} students"
          + (f"; no grade yet for {len(done['missing'])}: {', '.join(done['missing'][:5])}" if done["missing"]
             else "") + ")")
    return 0


def cmd_pack(args):
    _need_classroom()
    nb_dir = find_notebooks_dir(args.notebooks_dir)
    paths = checkout_paths(nb_dir)
    editions = Path(args.editions) if args.editions else default_editions(paths)
    student = editions / "student"
    if not args.editions and not student.is_dir():
        raise BookError(f"no student edition at {student} (the default): pass --editions OUT, the folder "
                        "`lupikit classroom build --out OUT` wrote, or build one there first.")
    out = Path(args.out) if args.out else editions / "lupikit-student-pack.zip"
    pdf = student / "lupikit-student.pdf"
    data_home = os.environ.get("LUPIKIT_DATA")
    try:
        pack = classroom.make_pack(student, out, project=paths.root, data_home=data_home,
                                   pdf=pdf if pdf.is_file() else None, per_student=args.per_student)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        raise BookError(str(exc)) from exc
    if args.per_student:
        print(f"course packs, one per student: {len(pack['paths'])} zips in {pack['path']} "
              f"({len(pack['files'])} files each; data: {', '.join(pack['data']) or 'none needed'})")
        return 0
    size = pack["path"].stat().st_size / 1e6
    print(f"course pack: {pack['path']} ({size:.1f} MB, {len(pack['files'])} files; data: "
          f"{', '.join(pack['data']) or 'none needed'}; PDF: {'yes' if pdf.is_file() else 'not built'})")
    return 0


def cmd_check(args):
    sources = _checked_sources(args, "variants", args.variants)
    bad = 0
    for rel, path in sources.items():
        problems, report = classroom.check_exercise_notebook(path, rel, variants=args.variants,
                                                             time_limit=args.time_limit, n_jobs=args.jobs,
                                                             kernel=args.kernel)
        n = len(report.get("questions", []))
        if problems:
            bad += 1
            print(f"✘ {rel}: {len(problems)} problem(s) in {n} question(s)")
            for line in problems:
                print(f"    - {line}")
        else:
            print(f"✔ {rel}: {n} questions; solutions full marks at {args.variants} variant(s), the student "
                  f"edition 0, each wrong answer costs its question only, copied answers fail "
                  f"({report['seconds']:.1f} s)")
    if bad:
        raise BookError(f"{bad} exercise notebook(s) failed the check.")
    return 0


def add_classroom_parser(sub):
    """Add ``classroom build|grade|pack`` to the ``lupikit`` parser's subcommands."""
    p = sub.add_parser("classroom", help="student and instructor editions, grading, the course pack",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG,
                       description="The classroom edition: build the editions, grade submissions, "
                                   "write the course pack.")
    # --notebooks-dir is also accepted after the subcommand (it is lupikit's option)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--notebooks-dir", default=argparse.SUPPRESS,
                        help="folder holding the book's notebooks (default: ./notebooks or above)")
    csub = p.add_subparsers(dest="classroom_command", required=True)
    b = csub.add_parser("build", help="write the student and instructor editions", parents=[common])
    b.add_argument("--out", help="output folder (default: _build/classroom of the checkout when run inside "
                   "it, else of the working folder)")
    b.add_argument("--seed", type=int, default=0, help="course seed of the variants (default 0)")
    b.add_argument("--students", metavar="ROSTER",
                   help="roster CSV (one student id a row, or a Canvas or Moodle export): a variant each")
    b.add_argument("--id-column", help="the roster's column of student ids: a header or a number from 1")
    b.add_argument("--no-book", action="store_true", help="skip the student book's HTML and PDF")
    b.set_defaults(func=cmd_build)
    g = csub.add_parser("grade", help="grade submitted notebooks", parents=[common])
    g.add_argument("submissions", help="folder with a folder per student id")
    g.add_argument("--out", required=True,
                   help="scores CSV to write, or to update: the rows of the students graded now are replaced, "
                        "the others kept")
    g.add_argument("--instructor", metavar="DIR",
                   help="the instructor edition (instructor/ of `classroom build`): its notebooks, seed and "
                        "roster are used (default: _build/classroom/instructor, as build writes it, if any)")
    g.add_argument("--roster", help="roster CSV, or a Canvas or Moodle export (default: the edition's, else "
                                    "every folder of SUBMISSIONS)")
    g.add_argument("--id-column", help="the roster's column of student ids: a header or a number from 1")
    g.add_argument("--seed", type=int, default=None,
                   help="course seed the editions were built with (default: the instructor edition's; "
                        "required without one)")
    g.add_argument("--students", nargs="+", metavar="ID",
                   help="grade only these students (a regrade: the other rows of --out are kept)")
    g.add_argument("--time-limit", type=float, default=120.0,
                   help="seconds for one submitted notebook, all cells together (default 120)")
    g.add_argument("--jobs", type=int, default=2, help="notebooks graded at once (default 2)")
    g.add_argument("--notebooks", nargs="+", metavar="NOTEBOOK",
                   help="grade only these exercise notebooks (short names, e.g. boosting/exercises)")
    g.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    g.add_argument("--replace-absent", action="store_true",
                   help="grade a roster student who has no folder in SUBMISSIONS as not submitted (0), replacing "
                        "the row --out holds (default: that row is kept)")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="a Dask scheduler, e.g. tcp://HOST:8786: each submission is a task on its workers, each in "
                        "its sandbox (they need lupikit and bubblewrap, not the submissions); the results are "
                        "written here, once")
    d = classroom.Limits()
    lim = g.add_argument_group("the sandbox each submission runs in (Linux, bubblewrap)")
    lim.add_argument("--cell-time-limit", type=float, default=d.cell,
                     help=f"seconds for one cell (default {d.cell:g})")
    lim.add_argument("--memory-limit", type=float, default=d.memory / MIB,
                     help=f"MiB of address space per process (default {d.memory / MIB:g})")
    lim.add_argument("--max-processes", type=int, default=d.processes,
                     help=f"processes and threads (default {d.processes})")
    lim.add_argument("--max-file-size", type=float, default=d.file_size / MIB,
                     help=f"MiB of one file, and of the sandbox's home and /tmp (default {d.file_size / MIB:g})")
    lim.add_argument("--max-output", type=float, default=d.output / MIB,
                     help=f"MiB of cell outputs and of saved answers (default {d.output / MIB:g})")
    lim.add_argument("--unsandboxed", action="store_true",
                     help="RISK: run the students' code without the sandbox, as you, with your files and network "
                          "(only for notebooks you trust; flagged in the scores and the log)")
    g.set_defaults(func=cmd_grade)
    o = csub.add_parser("collect", parents=[common],
                        help="place an LMS's bulk download (Canvas or Moodle) under SUBMISSIONS/<id>/")
    o.add_argument("download", help="the LMS's bulk download: a folder or a zip")
    o.add_argument("--out", required=True, help="the submissions folder to fill")
    o.add_argument("--roster", required=True, help="the LMS's roster export (or a plain roster CSV)")
    o.add_argument("--id-column", help="the roster's column of student ids: a header or a number from 1")
    o.add_argument("--instructor", metavar="DIR",
                   help="the instructor edition, whose notebooks the submissions are recognised by "
                        "(default: _build/classroom/instructor, as build writes it)")
    o.add_argument("--deadline", help="date and time (ISO, e.g. 2027-03-01T23:59, local time as the download's "
                                      "file times): a file handed in after it is late")
    o.add_argument("--late-column", metavar="HEADER",
                   help="the roster's column of submission times (compared with --deadline) or late marks "
                        "(late/yes/1); default: a 'Last modified (submission)' or 'Submitted' column if the "
                        "roster has one and --deadline is given")
    o.set_defaults(func=cmd_collect)
    m = csub.add_parser("marks", parents=[common], help="merge the written exercises' marks into the scores")
    m.add_argument("scores", help="the scores CSV of `classroom grade`")
    m.add_argument("marks", help="the filled template written-marks.csv of the instructor edition")
    m.set_defaults(func=cmd_marks)
    e = csub.add_parser("export", parents=[common], help="grades for Canvas's or Moodle's grade import")
    e.add_argument("scores", help="the scores CSV of `classroom grade`")
    e.add_argument("--format", required=True, choices=["canvas", "moodle"], help="the LMS's import format")
    e.add_argument("--out", required=True, help="the file to write")
    e.add_argument("--roster", help="the LMS's roster export (its columns are copied; default: the ids of SCORES)")
    e.add_argument("--id-column", help="the roster's column of student ids: a header or a number from 1")
    e.add_argument("--title", default="lupikit exercises", help="the assignment / grade item (default: %(default)s)")
    e.add_argument("--per-question", action="store_true", help="also a column per question")
    e.set_defaults(func=cmd_export)
    c = csub.add_parser("check", help="check exercise notebooks as their author must (made-up submissions)", parents=[common])
    c.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                   help="exercise notebooks, short names (default: all)")
    c.add_argument("--variants", type=int, default=3, help="students' variants the solutions run at (default 3)")
    c.add_argument("--time-limit", type=float, default=120.0, help="seconds per notebook (default 120)")
    c.add_argument("--jobs", type=int, default=2, help="notebooks graded at once (default 2)")
    c.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    c.set_defaults(func=cmd_check)
    k = csub.add_parser("pack", help="write the course pack (a zip for students)", parents=[common])
    k.add_argument("--editions", help="the editions folder of `classroom build` "
                   "(default: _build/classroom, as build writes it)")
    k.add_argument("--out", help="zip to write (default: EDITIONS/lupikit-student-pack.zip)")
    k.add_argument("--per-student", action="store_true",
                   help="one zip per student (OUT stem-<id>.zip), each with only that student's variant")
    k.set_defaults(func=cmd_pack)
    return p
