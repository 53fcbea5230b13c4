"""The sandbox a student's notebook runs in when it is graded (Linux, bubblewrap) (private).

Each submission runs in a process tree of its own, started by bubblewrap
(Debian's ``bubblewrap`` package) with:

* its own user, PID, mount, IPC, UTS and network namespaces: no network at
  all (a loopback of its own, not the host's), no view of the grader's
  processes;
* a root made of the system (``/usr`` and its links, read-only), the Python
  that runs the grader (its prefixes, read-only), lupikit's own package
  (read-only) and the data home if one is set (read-only); a private, empty
  home and ``/tmp`` in memory, with a size limit. The course folder, the
  instructor edition, the checkout's notebooks, the other submissions, the
  reports and the grader's own files are not in it;
* a clean environment: no variable of the teacher's shell;
* no further user namespaces (``--disable-userns``), no capability, a
  read-only root: only the home, ``/tmp`` and ``/dev/shm`` can be written,
  each an in-memory folder with a size limit;
* limits (:class:`Limits`): wall time for the notebook and for one cell,
  address space per process, processes (``RLIMIT_NPROC``), file size and
  output size. When the grader runs as root (where ``RLIMIT_NPROC`` does
  not bind) and the cgroup controllers are writable, the sandbox also gets
  cgroups: processes, the memory of the whole tree (in-memory files
  included) and a CPU share equal to any other sandbox's (:func:`_cgroups`).

Nothing is mounted writable from the host: the notebook goes in on standard
input and the runner (:mod:`._sandboxed`) sends back one JSON answer on
standard output, read up to a size cap: the executed notebook and the saved
answers as plain values (JSON and ``.npz`` without pickle). When the runner
ends, or the time is up, the whole sandbox is ended: bubblewrap's PID
namespace takes every process of it along, detached ones included.
"""

import base64
import dataclasses
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
import zipfile
from pathlib import Path

__all__ = ["Limits", "SandboxUnavailable", "SandboxResult", "places", "run_sandboxed", "sandbox_problem"]

MiB = 1 << 20

#: inside the sandbox: the student's home, working folder and the folder of the saved answers
HOME, WORKDIR, ANSWERS = "/home/student", "/home/student/work", "/home/student/.answers"


#: the environment bubblewrap is started with (it reads none of it; the sandbox gets its own)
_LAUNCH_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run on this machine (the message says why and what to do)."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one submission may use (each has a flag of ``lupikit classroom grade``).

    Attributes
    ----------
    notebook : float, default=120
        Seconds for all cells of the notebook (``--time-limit``).
    cell : float, default=60
        Seconds for one cell (``--cell-time-limit``).
    memory : int, default=4 GiB
        Bytes of address space per process (``--memory-limit``, in MiB).
    processes : int, default=64
        Processes and threads of the sandbox's user (``--max-processes``).
    file_size : int, default=64 MiB
        Bytes of one file the notebook writes, and of the sandbox's ``/tmp``
        and home in all (``--max-file-size``, in MiB).
    output : int, default=2 MiB
        Bytes of cell outputs the executed notebook keeps, and of the saved
        answers (``--max-output``, in MiB).
    """

    notebook: float = 120.0
    cell: float = 60.0
    memory: int = 4096 * MiB
    processes: int = 64
    file_size: int = 64 * MiB
    output: int = 2 * MiB

    def __post_init__(self):
        for name in ("notebook", "cell", "memory", "processes", "file_size", "output"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"the sandbox's limit {name!r} must be a number > 0, got {value!r}.")


@dataclasses.dataclass
class SandboxResult:
    """What came back from one sandboxed run."""

    notebook: object = None  #: the executed notebook (NotebookNode) or None
    answers: dict = dataclasses.field(default_factory=dict)  #: file name -> bytes
    stopped: object = None  #: the index of the cell that stopped the run, or None
    why: str = ""  #: why it stopped early ('' if it ran to the end)
    failure: str = ""  #: what ended the sandbox without a usable answer ('' if none did)
    seconds: float = 0.0


def _bwrap():
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def sandbox_problem():
    """Why the sandbox cannot run here, with what to do ('' when it can)."""
    fix = ("Grade on Linux with bubblewrap installed (Debian, Ubuntu: `sudo apt-get install bubblewrap`; "
           "Fedora: `sudo dnf install bubblewrap`), or pass --unsandboxed to run the students' code as "
           "yourself, with your files and network: only for notebooks you trust.")
    if not sys.platform.startswith("linux"):
        return f"the grader's sandbox needs Linux (this is {sys.platform}). {fix}"
    if _bwrap() is None:
        return f"bubblewrap (`bwrap`) is not installed. {fix}"
    try:
        trial = subprocess.run(_bwrap_argv(Limits(), python=False) + ["/usr/bin/env", "true"], capture_output=True,
                               text=True, timeout=60, stdin=subprocess.DEVNULL, env=_LAUNCH_ENV)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not start ({exc}). {fix}"
    if trial.returncode != 0:
        said = " ".join(trial.stderr.split())[:300]
        return (f"bubblewrap cannot make its namespaces on this machine ({said}); user namespaces may be "
                "disabled (e.g. `sysctl kernel.unprivileged_userns_clone=1`, or AppArmor's "
                f"`kernel.apparmor_restrict_unprivileged_userns=0` on Ubuntu 24.04). {fix}")
    return ""


def _python_paths():
    """The folders the grader's Python needs, read-only in the sandbox: its prefixes and lupikit's package."""
    paths = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    paths.add(Path(sys.executable).resolve().parent.parent)
    package = Path(__file__).resolve().parents[1]  # lupikit's own package folder
    if not any(package.is_relative_to(p) for p in paths):
        paths.add(package)  # an editable install: lupikit's package only, not the checkout around it
    # the venv's own path as the interpreter sees it (a symlinked prefix keeps its name)
    paths |= {Path(p) for p in (sys.prefix, sys.exec_prefix)}
    return sorted(p for p in paths if p.exists() and not str(p).startswith("/usr"))


def _system_binds():
    """The read-only system: ``/usr`` and the top-level links or folders that point into it."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        p = Path(top)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), top]
        elif p.is_dir():
            args += ["--ro-bind", top, top]
    for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives", "/etc/fonts",
              "/etc/mime.types"):
        if Path(f).exists():
            args += ["--ro-bind", f, f]
    return args


def _bwrap_argv(limits, *, python=True, data_home=None):
    argv = [_bwrap() or "bwrap", "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--uid", "1000", "--gid", "1000", "--hostname", "sandbox",
            "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    argv += _system_binds()
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(int(limits.file_size)), "--tmpfs", "/dev/shm",
             "--remount-ro", "/dev",
             "--size", str(int(limits.file_size)), "--tmpfs", "/tmp",
             "--size", str(int(limits.file_size)), "--tmpfs", HOME,
             "--dir", WORKDIR, "--dir", ANSWERS, "--chdir", WORKDIR]
    bindirs = []
    if python:
        for p in _python_paths():
            argv += ["--ro-bind", str(p), str(p)]
            bindirs.append(str(p / "bin"))
    env = {"PATH": ":".join([str(Path(sys.executable).parent), *bindirs, "/usr/local/bin", "/usr/bin", "/bin"]),
           "HOME": HOME, "USER": "student", "LOGNAME": "student", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{HOME}/.matplotlib", "IPYTHONDIR": f"{HOME}/.ipython",
           "JUPYTER_PLATFORM_DIRS": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
           "MALLOC_ARENA_MAX": "2", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    cache = _mpl_cache() if python else None
    if cache is not None:
        argv += ["--ro-bind", str(cache), MPL_CACHE]
    if data_home is not None and Path(data_home).is_dir():
        argv += ["--ro-bind", str(Path(data_home).resolve()), "/data"]
        env["LUPIKIT_DATA"] = "/data"
    # the sandbox's root (a folder in memory that bubblewrap made) read-only, now that it is set up:
    # only the home, /tmp and /dev/shm can be written, each with a size limit
    argv += ["--remount-ro", "/", "--clearenv"]
    for k, v in env.items():
        argv += ["--setenv", k, v]
    return argv


#: inside the sandbox: matplotlib's font cache, built once by the grader (read-only; the runner copies it)
MPL_CACHE = "/opt/lupikit-mplcache"


@functools.lru_cache(maxsize=1)
def _mpl_cache():
    """A folder holding matplotlib's font cache, built once per grading process (None without matplotlib).

    A fresh sandbox has an empty home: without it, every notebook that
    plots would scan the system's fonts again.
    """
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="lupikit-mplcache-"))
    env = {**_LAUNCH_ENV, "MPLCONFIGDIR": str(folder), "MPLBACKEND": "Agg"}
    try:
        done = subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, timeout=300,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return folder if done.returncode == 0 and any(folder.iterdir()) else None


#: the cgroup controllers a sandbox is put under when the grader runs as root, and their settings
def _cgroup_settings(limits, version):
    if version == 1:
        return {"pids": {"pids.max": int(limits.processes)},
                "memory": {"memory.limit_in_bytes": int(limits.memory)},
                "cpu": {"cpu.shares": 1024}}
    return {"pids": {"pids.max": int(limits.processes)}, "memory": {"memory.max": int(limits.memory)},
            "cpu": {"cpu.weight": 100}}


def _cgroups(limits):
    """Cgroups of this sandbox, when the grader runs as root and the controllers are writable: a list of folders.

    They bound what ``RLIMIT_NPROC`` does not bind for root and what no
    rlimit bounds for a whole tree of processes: processes (``pids``),
    memory of the tree, its in-memory files included (``memory``), and CPU
    (``cpu``): the whole tree is one scheduling group, with the weight of a
    single process, so that a submission's many processes do not take a
    classmate's share when both are graded at once; a core left idle can
    still be used (a quota of one core would also slow the start of the
    runner and its kernel, which overlap). An ordinary user gets the rlimits
    only.
    """
    if os.geteuid() != 0:
        return []
    root, name, made = Path("/sys/fs/cgroup"), f"lupikit-grade-{uuid.uuid4().hex[:12]}", []

    def make(folder, settings):
        try:
            folder.mkdir()
        except OSError:
            return
        try:
            for key, value in settings.items():
                (folder / key).write_text(str(value))
            made.append(folder)
        except OSError:
            try:
                folder.rmdir()
            except OSError:
                pass

    if (root / "cgroup.subtree_control").is_file():  # cgroup v2
        enabled = set((root / "cgroup.subtree_control").read_text(errors="replace").split())
        settings = {k: v for ctl, kv in _cgroup_settings(limits, 2).items() if ctl in enabled for k, v in kv.items()}
        if settings and os.access(root, os.W_OK):
            make(root / name, settings)
        return made
    for controller, settings in _cgroup_settings(limits, 1).items():  # cgroup v1: a hierarchy per controller
        base = root / controller
        if (base / "cgroup.procs").is_file() and os.access(base, os.W_OK):
            make(base / name, settings)
    return made


def _user_tasks():
    """The tasks (processes and threads) that this process's real user runs now."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:  # it ended meanwhile
            continue
    return count


def _launch_argv(limits, argv, groups):
    """``argv`` under ``prlimit`` (and inside ``groups``, cgroups, if any).

    ``RLIMIT_NPROC`` counts every task of the real user, the teacher's
    browser and editor included, not the sandbox's alone: for an ordinary
    user, the limit is the tasks the user runs at the launch plus
    ``limits.processes``. (Root is not bound by it; the ``pids`` cgroup
    bounds the sandbox alone.)
    """
    as_bytes = int(limits.memory)
    nproc = int(limits.processes) + (_user_tasks() if os.geteuid() != 0 else 0)
    wrapped = [shutil.which("prlimit") or "prlimit", f"--as={as_bytes}", f"--nproc={nproc}",
               f"--fsize={int(limits.file_size)}", "--core=0", "--nofile=1024", "--"] + argv
    if groups:
        enter = 'while [ "$1" != "--" ]; do echo $$ > "$1/cgroup.procs" || exit 97; shift; done; shift; exec "$@"'
        wrapped = ["/bin/sh", "-c", enter, "sh", *map(str, groups), "--"] + wrapped
    return wrapped


def _read_capped(pipe, cap, box):
    chunks, total = [], 0
    while True:
        chunk = pipe.read(1 << 16)
        if not chunk:
            break
        total += len(chunk)
        if total > cap:
            box["over"] = True
            break
        chunks.append(chunk)
    box["data"] = b"".join(chunks)


def _end(proc, groups):
    """End the sandbox: its process group, then every process of its cgroups, then the cgroups."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process that does not die of SIGKILL
        pass
    for group in groups:
        for _ in range(500):
            try:
                pids = (group / "cgroup.procs").read_text().split()
            except OSError:
                break
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                group.rmdir()
                break
            except OSError:  # its last processes are still exiting
                time.sleep(0.01)


def _valid_npz(data, cap):
    """Whether ``data`` is an ``.npz`` NumPy can read without pickle, stored (not compressed), within ``cap``."""
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            return all(i.compress_type == zipfile.ZIP_STORED for i in infos) and \
                sum(i.file_size for i in infos) <= cap
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False


def places(host_folder=None):
    """``(home, workdir, answers)`` of a run: in the sandbox, or under ``host_folder`` for a run without it.

    A graded cell saves its answers to ``answers``.
    """
    if host_folder is None:
        return HOME, WORKDIR, ANSWERS
    home = Path(host_folder) / "home"
    return str(home), str(home / "work"), str(home / ".answers")


def _host_env(home, data_home):
    """The environment of a run without the sandbox: none of the teacher's variables, a home of its own."""
    env = {"PATH": ":".join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
           "HOME": home, "TMPDIR": str(Path(home) / "tmp"), "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
           "MPLCONFIGDIR": f"{home}/.matplotlib", "IPYTHONDIR": f"{home}/.ipython", "JUPYTER_PLATFORM_DIRS": "1",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "MALLOC_ARENA_MAX": "2",
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    if data_home is not None and Path(data_home).is_dir():
        env["LUPIKIT_DATA"] = str(Path(data_home).resolve())
    return env


def run_sandboxed(nb, questions, limits, *, kernel="python3", data_home=None, host_folder=None):
    """Execute the prepared notebook ``nb`` in a sandbox; return what came back (:class:`SandboxResult`).

    ``nb``'s graded cells must save their answers to ``places(host_folder)[2]``;
    ``questions`` are their grade ids. Never raises for anything the notebook
    does: a crash, a kill, a hang or a limit hit is the result's ``failure``.

    With ``host_folder`` (``--unsandboxed``), the same runner runs in a
    process of its own under the same rlimits, but on the host, as the
    grading user, in ``host_folder``: a notebook that kills its parent or
    exhausts a limit still costs only itself, but it sees the teacher's
    files and network.
    """
    import nbformat

    if host_folder is None:
        problem = sandbox_problem()
        if problem:
            raise SandboxUnavailable(problem)
    t0 = time.monotonic()
    home, workdir, answers = places(host_folder)
    kind = "sandbox" if host_folder is None else "run"
    request = {"notebook": nb, "limit": float(limits.notebook), "cell_limit": float(limits.cell),
               "output_limit": int(limits.output), "kernel": kernel, "workdir": workdir, "answers": answers,
               "questions": list(questions), "max_answer_bytes": int(limits.output)}
    runner = [sys.executable, "-m", f"{__package__}._sandboxed"]
    if host_folder is None:
        request["mpl_cache"] = MPL_CACHE
        argv, groups, env = _bwrap_argv(limits, data_home=data_home) + runner, _cgroups(limits), _LAUNCH_ENV
    else:
        cache = _mpl_cache()
        request["mpl_cache"] = str(cache) if cache is not None else None
        (Path(home) / "tmp").mkdir(parents=True, exist_ok=True)
        argv, groups, env = runner, [], _host_env(home, data_home)
    # bubblewrap itself starts with an empty environment too: its own process is the sandbox's
    # PID 1, whose /proc/1/environ the student's code can read
    proc = subprocess.Popen(_launch_argv(limits, argv, groups), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True, env=env, cwd=home if host_folder else None)
    # the answer: the notebook's outputs and answers, base64 and JSON around them
    cap = 3 * int(limits.output) + 4 * MiB
    box = {"over": False, "data": b""}
    reader = threading.Thread(target=_read_capped, args=(proc.stdout, cap, box), daemon=True)
    reader.start()
    failure = ""
    try:
        proc.stdin.write(json.dumps(request).encode("utf-8"))
        proc.stdin.close()
    except OSError:
        pass
    # the runner stops the notebook at its limit; the grace covers the kernel's start and the answer
    reader.join(timeout=float(limits.notebook) + 90.0)
    if reader.is_alive():
        failure = f"the notebook ran past the time limit of {limits.notebook:g} s and its {kind} was ended"
    elif box["over"]:
        failure = f"the notebook's output went over the limit of {cap // MiB} MiB and its {kind} was ended"
    _end(proc, groups)
    reader.join(timeout=5)
    result = SandboxResult(seconds=time.monotonic() - t0)
    if failure:
        result.failure = failure
        return result
    try:
        answer = json.loads(box["data"].decode("utf-8"))
        executed = nbformat.from_dict(answer["notebook"])
        stopped = answer.get("stopped")
        why = str(answer.get("why") or "")
        files = answer.get("answers") or {}
        if not isinstance(files, dict) or (stopped is not None and not isinstance(stopped, int)):
            raise ValueError("malformed answer")
    except Exception:  # noqa: BLE001 - whatever came back, it is this submission's alone
        code = proc.returncode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        result.failure = (f"the {kind} ended without a result ({how}): the notebook stopped the grader's "
                          "runner, or went over a limit (memory, processes, file size)")
        return result
    wanted = {f"{q}.{ext}" for q in questions for ext in ("json", "npz")}
    for name, text in files.items():
        if name not in wanted or not isinstance(text, str):
            continue
        try:
            data = base64.b64decode(text, validate=True)
        except ValueError:
            continue
        if len(data) > limits.output or (name.endswith(".npz") and not _valid_npz(data, limits.output)):
            continue
        result.answers[name] = data
    result.notebook, result.stopped, result.why = executed, stopped, why[:500]
    return result
