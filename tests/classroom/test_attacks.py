"""Students who attack the grader: each attack is a submission, and the class comes out as without it.

Each attacker's notebook tries one thing the sandbox must stop (a startup
file for the grader's kernels, a process that outlives its kernel, reading
the solutions, writing a classmate's files, killing the grader, memory,
output, processes, the network, the teacher's environment). Every payload
is aimed at this test's own temporary folders and at a listener on
127.0.0.1 that the test opens. The class is graded twice: the honest
students alone, then with the attackers; the honest students' scores,
flags, reports and feedback must be the same bytes, and no file outside
the run's own outputs may change.

Where the sandbox cannot run (no bubblewrap), the tests are skipped with
the reason, unless ``LUPIKIT_REQUIRE_SANDBOX=1`` (as ``.ci/run`` sets),
where they fail.
"""

import hashlib
import json
import os
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

import nbformat
import pytest

from lupikit.classroom import grade_submissions, student_notebook
from lupikit.classroom import _grade
from lupikit.classroom._grade import UNSANDBOXED_FLAG, GradingInProgress, _scores_lock
from lupikit.classroom._sandbox import Limits, SandboxUnavailable, sandbox_problem

from .toy import run_alone, submission, toy_notebook, with_answer

pytestmark = pytest.mark.skipif(
    bool(sandbox_problem()) and os.environ.get("LUPIKIT_REQUIRE_SANDBOX") != "1",
    reason=f"the grader's sandbox cannot run here: {sandbox_problem()}")

MARKER = "lupikit-attack-marker"
HONEST = ("ada", "alan", "wrongmean")
ANSWER = "m = sum(x) / len(x)"

# the planted startup file: in a kernel that ran it, every check would pass
PLANTED = ("import lupikit.classroom._answers as a, json\n"
           "def forged(question, names, code, namespace, folder, results, partial=False):\n"
           "    open(results, 'a').write(json.dumps({'question': question, 'passed': True, "
           "'reason': '', 'fraction': 1.0}) + '\\n')\n"
           "a.check = forged\n")


def _attacks(course, home, proof, port):
    """{student id: the code of the mean answer cell}: an attack, then (where it can run on) the right answer."""
    subs = course / "submissions"
    return {
        "startup": (
            "import os\n"
            f"for d in [os.path.expanduser('~/.ipython/profile_default/startup'),\n"
            f"          {str(home / '.ipython' / 'profile_default' / 'startup')!r}]:\n"
            "    try:\n"
            "        os.makedirs(d, exist_ok=True)\n"
            f"        open(os.path.join(d, '00-pass.py'), 'w').write({PLANTED!r})\n"
            "    except Exception as e:\n"
            "        print('blocked', type(e).__name__)\n" + ANSWER),
        "detached": (
            "import subprocess, sys\n"
            f"code = \"import time, pathlib; time.sleep(4); pathlib.Path({str(proof / 'detached')!r}).write_text('x')"
            f"  # {MARKER}\"\n"
            "subprocess.Popen([sys.executable, '-c', code], start_new_session=True,\n"
            "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n" + ANSWER),
        "reader": (
            "import os\n"
            "found = []\n"
            f"for top in [{str(course)!r}, os.path.expanduser('~'), '/tmp', '/home', '/root', '/work', '/']:\n"
            "    for root, dirs, files in os.walk(top):\n"
            "        dirs[:] = [d for d in dirs if os.path.join(root, d) not in ('/usr', '/proc', '/sys', '/dev')]\n"
            "        found += [os.path.join(root, f) for f in files if f.endswith(('.ipynb', '.csv', '.md'))]\n"
            "for pid in os.listdir('/proc'):\n"
            "    if pid.isdigit():\n"
            "        try:\n"
            "            found += [os.path.join('/proc', pid, 'cwd', f) for f in os.listdir(f'/proc/{pid}/cwd')\n"
            "                      if f.endswith('.ipynb')]\n"
            "        except OSError:\n"
            "            pass\n"
            "try:\n"
            f"    found.append(open({str(course / 'instructor' / 'toy' / 'exercises.ipynb')!r}).read()[:20])\n"
            "except OSError as e:\n"
            "    print('blocked', type(e).__name__)\n"
            "print('FOUND', sorted(set(found)))\n" + ANSWER),
        "forger": (
            "for p in [" + ", ".join(repr(str(p)) for p in (
                subs / "ada" / "toy" / "exercises.ipynb", course / "scores-reports" / "ada.md",
                course / "scores-feedback" / "ada.html", course / "scores.csv", course / "scores-log.jsonl")) + "]:\n"
            "    try:\n"
            "        open(p, 'a').write('forged')\n"
            "    except OSError as e:\n"
            "        print('blocked', type(e).__name__)\n" + ANSWER),
        "killer": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + ANSWER,
        "killall": "import os, signal\nos.kill(-1, signal.SIGKILL)\n" + ANSWER,
        "memory": "block = bytearray(6 << 30)\n" + ANSWER,
        "printer": "print('x' * (50 << 20))\n" + ANSWER,
        "forker": (
            "import subprocess\n"
            "children = []\n"
            "try:\n"
            "    for _ in range(300):\n"
            "        children.append(subprocess.Popen(['sleep', '30']))\n"
            "except OSError as e:\n"
            "    print('blocked', type(e).__name__)\n"
            "print('CHILDREN', len(children))\n" + ANSWER),
        "network": (
            "import os, socket\n"
            "try:\n"
            f"    s = socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
            "    s.sendall(repr(dict(os.environ)).encode())\n"
            "    s.close()\n"
            "except OSError as e:\n"
            "    print('blocked', type(e).__name__)\n" + ANSWER),
        # a forged answer file: a reason that is not text, after the graded cell saved the real one
        "badreason": (ANSWER + "\n" + "import atexit, json\n"
                      "atexit.register(lambda: None)\n"
                      "get_ipython().events.register('post_run_cell', lambda *a: open("
                      "'/home/student/.answers/mean.json', 'w').write(json.dumps({'unanswered': 1})))\n"),
        # text Python cannot write as UTF-8 (a lone surrogate) in an answer the tests will print
        "surrogate": "m = '\\ud800' + chr(0xD800)\n",
        # code whose parse exhausts the recursion limit (the flags read it)
        "deep": "m = sum(x) / len(x)\nz = " + "(" * 3000 + "0" + ")" * 3000 + "\n",
        # an answer forged into the runner's own output pipe, then the runner killed
        "pipeforger": (
            "import os, json, signal\n"
            "forged = json.dumps({'stopped': None, 'why': '', 'answers': {},\n"
            "                     'notebook': {'cells': [{'cell_type': 'code', 'source': 'FORGED', 'metadata': {},\n"
            "                                  'outputs': [], 'execution_count': 1}], 'metadata': {},\n"
            "                     'nbformat': 4, 'nbformat_minor': 5}})\n"
            "ppid = os.getppid()\n"
            "for fd in os.listdir(f'/proc/{ppid}/fd'):\n"
            "    if os.readlink(f'/proc/{ppid}/fd/{fd}').startswith('pipe:'):\n"
            "        try:\n"
            "            with open(f'/proc/{ppid}/fd/{fd}', 'w') as fh:\n"
            "                fh.write(forged)\n"
            "        except OSError:\n"
            "            pass\n"
            "os.kill(ppid, signal.SIGKILL)\n" + ANSWER),
        "environ": (
            "import os\n"
            "print('ENV', sorted(os.environ.items()))\n"
            "try:\n"
            "    print(open('/proc/1/environ', 'rb').read())\n"
            "except OSError as e:\n"
            "    print('blocked', type(e).__name__)\n" + ANSWER),
    }


class _Listener(threading.Thread):
    """A TCP listener on 127.0.0.1 that records what connects to it."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.received = []
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                self.received.append(conn.recv(1 << 16))


def _tree(folder, skip=()):
    """{relative path: SHA-256} of every file under ``folder`` outside the ``skip`` folders."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_file() and not any(rel == s or rel.startswith(s + "/") for s in skip):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _kept(folder):
    """The files kept beside a report, the executed notebooks as their cells' code and outputs (no timings)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.suffix == ".ipynb":
            nb = nbformat.read(p, as_version=4)
            out[p.relative_to(folder).as_posix()] = [(c.source, c.get("outputs")) for c in nb.cells]
        elif p.is_file():
            out[p.relative_to(folder).as_posix()] = p.read_bytes()
    return out


def _outputs(course, out):
    """The run's outputs of the honest students: their scores rows, reports, feedback and kept files."""
    rows = {line.split(",")[0]: line for line in (course / out).read_text().splitlines()}
    stem = out.removesuffix(".csv")
    files = {}
    for s in HONEST:
        files[s] = (rows[s], (course / f"{stem}-reports" / f"{s}.md").read_text(),
                    (course / f"{stem}-feedback" / f"{s}.html").read_text(),
                    _kept(course / f"{stem}-reports" / s))
    return files


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("attacks")
    course, home, proof = tmp / "course", tmp / "home", tmp / "proof"
    for d in (course, home / ".ipython" / "profile_default" / "startup", proof):
        d.mkdir(parents=True)
    source = toy_notebook()
    source_path = course / "instructor" / "toy" / "exercises.ipynb"
    source_path.parent.mkdir(parents=True)
    nbformat.write(source, source_path)
    honest_subs = course / "honest"
    for subs in (honest_subs, course / "submissions"):
        for sid in ("ada", "alan"):
            submission(source, subs, sid)
        submission(with_answer(source, "mean", "m = float(np.median(x)) + 1.0"), subs, "wrongmean")
    listener = _Listener()
    listener.start()
    stub = student_notebook(source, variant=0)
    attacks = _attacks(course, home, proof, listener.port)
    for sid, code in attacks.items():
        submission(with_answer(stub, "mean", code), course / "submissions", sid)
    limits = Limits(notebook=60, cell=30, memory=4096 << 20, processes=64, output=2 << 20)
    baseline = grade_submissions(honest_subs, {"toy/exercises": source_path}, course / "baseline.csv",
                                 roster=list(HONEST), time_limit=60, n_jobs=2, limits=limits)
    before = _tree(tmp, skip=("course/baseline-reports", "course/baseline-feedback"))
    secret = f"lupikit-secret-{uuid.uuid4().hex}"
    saved = {k: os.environ.get(k) for k in ("LUPIKIT_TEST_SECRET", "IPYTHONDIR")}
    # the teacher's shell: a secret in the environment, and an IPython profile where a startup file
    # was planted before this run (by anything that ever ran as the teacher)
    os.environ["LUPIKIT_TEST_SECRET"] = secret
    os.environ["IPYTHONDIR"] = str(home / ".ipython")
    (home / ".ipython" / "profile_default" / "startup" / "00-planted.py").write_text(PLANTED)
    try:
        report = grade_submissions(course / "submissions", {"toy/exercises": source_path}, course / "scores.csv",
                                   roster=list(HONEST) + list(attacks), time_limit=60, n_jobs=2, limits=limits)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        (home / ".ipython" / "profile_default" / "startup" / "00-planted.py").unlink()
    time.sleep(6)  # longer than the detached process would have slept
    listener.stop = True
    listener.join(timeout=5)
    listener.sock.close()
    return dict(tmp=tmp, course=course, home=home, proof=proof, baseline=baseline, report=report, before=before,
                secret=secret, listener=listener, attacks=attacks)


def _executed(course, sid):
    path = course / "scores-reports" / sid / "toy" / "exercises.ipynb"
    return nbformat.read(path, as_version=4) if path.is_file() else None


def _printed(course, sid):
    nb = _executed(course, sid)
    return "".join(str(o.get("text", "")) + str(o.get("evalue", "")) for c in nb.cells if c.cell_type == "code"
                   for o in c.get("outputs", []))


def test_the_honest_students_come_out_exactly_as_without_the_attackers(attacked):
    course = attacked["course"]
    honest = _outputs(course, "baseline.csv")
    with_attackers = _outputs(course, "scores.csv")
    assert honest == with_attackers
    # and they are right: full marks for the solutions, nothing for a wrong mean (the planted
    # startup file in the teacher's IPython profile did not pass it)
    scores = attacked["report"]["scores"]
    assert scores["ada"] == scores["alan"] == {"toy/exercises:mean": 2.0, "toy/exercises:squares": 1.0}
    assert scores["wrongmean"]["toy/exercises:mean"] == 0.0


def test_no_file_outside_the_runs_outputs_changed(attacked):
    after = _tree(attacked["tmp"], skip=("course/baseline-reports", "course/baseline-feedback",
                                         "course/scores-reports", "course/scores-feedback"))
    before = attacked["before"]
    new = sorted(set(after) - set(before))
    assert new == ["course/scores-log.jsonl", "course/scores.csv"]
    assert {k: after[k] for k in before} == before
    assert not (attacked["proof"] / "detached").exists()
    assert list((attacked["home"] / ".ipython" / "profile_default" / "startup").iterdir()) == []


def test_a_startup_file_stays_in_the_sandbox(attacked):
    # written into the sandbox's own home and /tmp (where the teacher's path is made anew, empty),
    # gone with it: the teacher's profile is not in the sandbox
    assert attacked["report"]["scores"]["startup"]["toy/exercises:mean"] == 2.0
    assert list((attacked["home"] / ".ipython" / "profile_default" / "startup").iterdir()) == []
    assert attacked["report"]["scores"]["wrongmean"]["toy/exercises:mean"] == 0.0


def test_a_detached_process_ends_with_the_sandbox():
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert MARKER not in "\n".join(line for line in ps.splitlines() if "ps -eo" not in line)


def test_the_detached_attacker_is_graded_and_left_nothing(attacked):
    assert attacked["report"]["scores"]["detached"]["toy/exercises:mean"] == 2.0
    assert not (attacked["proof"] / "detached").exists()


def test_nothing_of_the_course_is_visible_from_the_sandbox(attacked):
    printed = _printed(attacked["course"], "reader")
    found = eval(printed.split("FOUND", 1)[1].strip().splitlines()[0])  # noqa: S307 - a list of paths it printed
    # what it sees is the system and Python (their own README and data files): nothing of the course,
    # the teacher's home or the checkout's notebooks
    import lupikit

    checkout_notebooks = str(Path(lupikit.__file__).resolve().parents[2] / "notebooks")
    tmp = str(attacked["tmp"])
    assert not [f for f in found if f.startswith((tmp, checkout_notebooks, "/proc/"))
                or f.endswith("exercises.ipynb") or f.rsplit("/", 1)[-1].startswith("scores")], found
    assert "blocked FileNotFoundError" in printed
    assert attacked["report"]["scores"]["reader"]["toy/exercises:mean"] == 2.0


def test_a_classmates_files_cannot_be_written(attacked):
    printed = _printed(attacked["course"], "forger")
    assert printed.count("blocked") == 5
    assert "forged" not in (attacked["course"] / "submissions" / "ada" / "toy" / "exercises.ipynb").read_text()


@pytest.mark.parametrize("sid", ["killer", "killall"])
def test_killing_the_grader_costs_only_the_killer(attacked, sid):
    report = attacked["report"]
    assert report["scores"][sid] == {"toy/exercises:mean": 0.0, "toy/exercises:squares": 0.0}
    assert any(f.startswith("the run stopped early: toy/exercises: the sandbox ended without a result")
               for f in report["flags"][sid]), report["flags"][sid]
    # every other student has a row and a report
    assert set(report["scores"]) == set(HONEST) | set(attacked["attacks"])
    assert all((attacked["course"] / "scores-reports" / f"{s}.md").is_file() for s in report["scores"])


def test_memory_is_limited(attacked):
    report = attacked["report"]
    assert report["scores"]["memory"]["toy/exercises:mean"] == 0.0
    assert "MemoryError" in report["reasons"]["memory"]["toy/exercises:mean"]


def test_output_is_limited(attacked):
    path = attacked["course"] / "scores-reports" / "printer" / "toy" / "exercises.ipynb"
    assert path.stat().st_size < 3 << 20
    assert "output cut by the grader" in _printed(attacked["course"], "printer")
    assert attacked["report"]["scores"]["printer"]["toy/exercises:mean"] == 2.0


def test_processes_are_limited(attacked):
    printed = _printed(attacked["course"], "forker")
    assert "blocked" in printed
    assert int(printed.split("CHILDREN", 1)[1].split()[0]) < 64


def test_no_network_not_even_the_hosts_loopback(attacked):
    assert attacked["listener"].received == []
    assert "blocked" in _printed(attacked["course"], "network")


def test_the_teachers_environment_does_not_reach_the_student(attacked):
    secret = attacked["secret"]
    printed = _printed(attacked["course"], "environ")
    assert "ENV" in printed and secret not in printed and "LUPIKIT_TEST_SECRET" not in printed
    for p in (attacked["course"]).rglob("*"):
        if p.is_file():
            assert secret.encode() not in p.read_bytes(), p


def test_the_attempts_are_flagged_for_the_teacher(attacked):
    flags = attacked["report"]["flags"]
    for sid in ("startup", "detached", "reader", "forger", "killer", "killall", "forker", "network", "environ",
                "pipeforger"):
        assert any("the file system, processes or the network" in f for f in flags[sid]), (sid, flags[sid])
    assert not any("the file system" in f for s in HONEST for f in flags[s])


def test_without_the_sandbox_grading_refuses_unless_told(tmp_path, monkeypatch):
    source_path = tmp_path / "source.ipynb"
    nbformat.write(toy_notebook(), source_path)
    submission(toy_notebook(), tmp_path / "subs", "ada")
    monkeypatch.setattr(_grade, "sandbox_problem", lambda: "bubblewrap (`bwrap`) is not installed. Grade on Linux")
    with pytest.raises(SandboxUnavailable, match="not grading: bubblewrap .* is not installed"):
        grade_submissions(tmp_path / "subs", {"toy/exercises": source_path}, tmp_path / "scores.csv", n_jobs=1)
    assert not (tmp_path / "scores.csv").exists()
    report = grade_submissions(tmp_path / "subs", {"toy/exercises": source_path}, tmp_path / "scores.csv",
                               n_jobs=1, unsandboxed=True)
    assert report["flags"]["ada"] == [UNSANDBOXED_FLAG]
    assert UNSANDBOXED_FLAG in (tmp_path / "scores.csv").read_text()
    log = json.loads((tmp_path / "scores-log.jsonl").read_text().splitlines()[-1])
    assert log["sandbox"] == "none (--unsandboxed)"


def test_without_the_sandbox_a_notebook_still_runs_in_a_process_of_its_own(tmp_path, monkeypatch):
    """--unsandboxed: the runner is the same supervised process, with a clean environment and home."""
    monkeypatch.setenv("LUPIKIT_TEACHER_SECRET", "s3cret")
    source = toy_notebook()
    source_path = tmp_path / "source.ipynb"
    nbformat.write(source, source_path)
    subs = tmp_path / "subs"
    submission(source, subs, "ada")
    submission(with_answer(student_notebook(source), "mean", "import os, signal\nos.kill(os.getppid(), 9)"),
               subs, "killer")
    # right only where the teacher's variable is not visible, and where the home is its own
    submission(with_answer(source, "mean",
                           "import os\nm = sum(x) / len(x) + len(os.environ.get('LUPIKIT_TEACHER_SECRET', ''))\n"
                           f"m += 0 if os.path.expanduser('~') != {os.path.expanduser('~')!r} else 1"),
               subs, "environ")
    report = grade_submissions(subs, {"toy/exercises": source_path}, tmp_path / "scores.csv", n_jobs=2,
                               unsandboxed=True, time_limit=60)
    assert report["scores"]["ada"] == report["scores"]["environ"] == report["max"], report["flags"]
    assert report["scores"]["killer"]["toy/exercises:mean"] == 0
    assert any("the run ended without a result" in f for f in report["flags"]["killer"]), report["flags"]["killer"]
    assert UNSANDBOXED_FLAG in report["flags"]["killer"]


def test_two_runs_on_one_scores_file_are_refused(tmp_path):
    source_path = tmp_path / "source.ipynb"
    nbformat.write(toy_notebook(), source_path)
    submission(toy_notebook(), tmp_path / "subs", "ada")
    with _scores_lock(tmp_path / "scores.csv"):
        with pytest.raises(GradingInProgress, match="being graded by another run"):
            grade_submissions(tmp_path / "subs", {"toy/exercises": source_path}, tmp_path / "scores.csv",
                              n_jobs=1, unsandboxed=True)
    assert not (tmp_path / "scores.csv").exists() and not list(tmp_path.glob(".scores.csv*"))


def test_a_class_graded_on_a_two_worker_dask_cluster_matches_the_local_run(tmp_path):
    distributed = pytest.importorskip("distributed")
    from local_cluster import local_cluster  # tests/ is on pytest's pythonpath

    source = toy_notebook()
    source_path = tmp_path / "source.ipynb"
    nbformat.write(source, source_path)
    subs = tmp_path / "subs"
    for sid in ("ada", "alan"):
        submission(source, subs, sid)
    submission(with_answer(source, "mean", "m = float(np.median(x)) + 1.0"), subs, "wrongmean")
    submission(with_answer(student_notebook(source), "mean", "import os, signal\nos.kill(os.getppid(), 9)"),
               subs, "killer")
    roster = ["ada", "alan", "wrongmean", "killer", "missing"]
    local = grade_submissions(subs, {"toy/exercises": source_path}, tmp_path / "local.csv", roster=roster,
                              n_jobs=2, time_limit=60)
    with local_cluster(distributed) as (_, client, finished):
        remote = grade_submissions(subs, {"toy/exercises": source_path}, tmp_path / "cluster.csv", roster=roster,
                                   time_limit=60, scheduler=client)
    assert len([k for k in finished if str(k).startswith("lupikit-grade-")]) == len(roster)  # one task each
    assert remote["scores"] == local["scores"] and remote["flags"] == local["flags"]
    assert (tmp_path / "cluster.csv").read_text() == (tmp_path / "local.csv").read_text()
    for s in roster:
        assert (tmp_path / "cluster-reports" / f"{s}.md").read_text() == (tmp_path / "local-reports" / f"{s}.md").read_text()


def test_feedback_shows_neither_the_tests_source_nor_another_students_output(attacked):
    feedback = attacked["course"] / "scores-feedback"
    source = "abs(m - np.mean(x)) < 1e-9"  # the hidden test's code
    for page in feedback.glob("*.html"):
        text = page.read_text()
        assert source not in text and "np.mean(x)" not in text
        # what the printer printed and what the reader found stay in their own executed notebooks
        assert "xxxxxxxxxx" not in text and "FOUND" not in text


def test_a_lost_worker_costs_only_its_tasks_which_run_again(tmp_path):
    distributed = pytest.importorskip("distributed")
    import signal

    from local_cluster import local_cluster  # tests/ is on pytest's pythonpath

    source = toy_notebook()
    source_path = tmp_path / "source.ipynb"
    nbformat.write(source, source_path)
    subs = tmp_path / "subs"
    roster = ["ada", "alan", "grace", "wrongmean"]
    for sid in roster[:3]:
        # each notebook takes a few seconds, so that a worker dies with a task in hand
        submission(with_answer(source, "mean", "import time\ntime.sleep(4)\nm = sum(x) / len(x)"), subs, sid)
    submission(with_answer(source, "mean", "m = float(np.median(x)) + 1.0"), subs, "wrongmean")
    with local_cluster(distributed) as (_, client, _):
        pids = client.run(os.getpid)
        victim = sorted(pids.values())[0]
        timer = threading.Timer(3.0, os.kill, args=(victim, signal.SIGKILL))
        timer.start()
        try:
            report = grade_submissions(subs, {"toy/exercises": source_path}, tmp_path / "scores.csv",
                                       roster=roster, time_limit=60, scheduler=client)
        finally:
            timer.cancel()
        assert victim not in client.run(os.getpid).values()  # it did die
    assert report["failures"] == {}
    assert {s: report["scores"][s]["toy/exercises:mean"] for s in roster} == {
        "ada": 2.0, "alan": 2.0, "grace": 2.0, "wrongmean": 0.0}


def test_forged_answers_and_unwritable_text_cost_only_their_author(attacked):
    report = attacked["report"]
    # every attacker has a row, the class's files were written (the run did not crash)
    assert set(report["scores"]) == set(HONEST) | set(attacked["attacks"])
    assert "forged" not in report["reasons"]["badreason"]["toy/exercises:mean"]
    assert report["scores"]["badreason"]["toy/exercises:mean"] == 0.0
    assert "not written by the grader" in report["reasons"]["badreason"]["toy/exercises:mean"]
    assert report["scores"]["surrogate"]["toy/exercises:mean"] == 0.0  # a text is not a mean
    assert report["scores"]["deep"]["toy/exercises:mean"] in (0.0, 2.0)
    assert report["scores"]["pipeforger"] == {"toy/exercises:mean": 0.0, "toy/exercises:squares": 0.0}
    assert any("the run stopped early" in f for f in report["flags"]["pipeforger"])
    executed = attacked["course"] / "scores-reports" / "pipeforger" / "toy" / "exercises.ipynb"
    assert not executed.exists() or "FORGED" not in executed.read_text()


def test_no_nested_namespace_no_writable_root_in_the_sandbox():
    _, text = run_alone(
        "import subprocess\n"
        "print('USERNS', subprocess.run(['unshare', '-Ur', 'true']).returncode)\n"
        "for path in ('/x', '/dev/x', '/usr/x', '/home/student/x'):\n"
        "    try:\n"
        "        open(path, 'w').write('x')\n"
        "        print('WROTE', path)\n"
        "    except OSError as e:\n"
        "        print('REFUSED', path)\n", Limits(notebook=30))
    assert "USERNS 0" not in text and "USERNS" in text
    assert text.count("REFUSED") == 3 and "WROTE /home/student/x" in text


def test_the_memory_of_the_whole_tree_is_bounded_as_root():
    from lupikit.classroom._sandbox import _cgroups

    groups = _cgroups(Limits())
    has_memory = any(g.parent.name == "memory" or (g / "memory.max").exists() for g in groups)
    for g in groups:
        g.rmdir()
    if not has_memory:
        pytest.skip("no memory cgroup here (not root, or not writable): the limit is per process (RLIMIT_AS)")
    result, text = run_alone(
        "import subprocess, sys, time\n"
        "ps = [subprocess.Popen([sys.executable, '-c', 'import time; b = bytearray(200 << 20); time.sleep(8)'])\n"
        "      for _ in range(4)]\n"
        "time.sleep(5)\n"
        "print('ALIVE', sum(p.poll() is None for p in ps))\n", Limits(memory=400 << 20, notebook=30))
    # four children of 200 MiB each do not fit in 400 MiB for the tree: some were killed, or the runner was
    assert result.failure or ("ALIVE" in text and int(text.split("ALIVE")[1].split()[0]) < 4), text



def test_an_ordinary_users_own_tasks_leave_the_sandbox_its_process_limit(monkeypatch):
    """RLIMIT_NPROC counts every task of the user (a teacher's browser threads too): for an ordinary
    user the limit is the user's tasks at the launch plus --max-processes; root gets the cgroup."""
    from lupikit.classroom import _sandbox

    assert _sandbox._user_tasks() >= threading.active_count()
    monkeypatch.setattr(_sandbox, "_user_tasks", lambda: 500)
    monkeypatch.setattr(_sandbox.os, "geteuid", lambda: 1000)
    assert "--nproc=532" in _sandbox._launch_argv(Limits(processes=32), ["true"], [])
    monkeypatch.setattr(_sandbox.os, "geteuid", lambda: 0)
    assert "--nproc=32" in _sandbox._launch_argv(Limits(processes=32), ["true"], [])
