"""Speed and selection quality of lupikit.relevance against the authors' ``fri``.

``fri`` 9.0.0 (PyPI) pins numpy < 1.27 and imports ``importlib_metadata`` and
``attrs`` without declaring them, and needs ECOS (no longer pulled in by
cvxpy >= 1.6). It is therefore installed into its own virtual environment,
never into lupikit's: by default ``/tmp/lupikit-fri-venv``, or the path in
``LUPIKIT_FRI_VENV``. The environment is reused if it already works.

Both sides get the same standardised data, four data sets of n = 300 and
d = 20 regular features (3 strongly relevant, 4 weakly relevant in redundant
pairs, 13 irrelevant): ``ordinal`` (``make_ordinal_relevance``) and its LUPI
variant ``lupi`` with 8 privileged features (``make_lupi_ordinal``), and
``regression`` (``make_regression_relevance``, X and y standardised) and its
LUPI variant ``lupi-regression`` with 8 privileged features
(``make_lupi_regression``). lupikit fits them with ``problem="ordinal"`` or
``problem="regression"`` (L1 SVR, default ``epsilon=0.1`` in units of the
standardised y), fri with ``ProblemName.ORDINALREGRESSION``,
``LUPI_ORDREGRESSION``, ``REGRESSION`` and ``LUPI_REGRESSION`` (privileged
columns appended, ``fit(..., lupi_features=8)``). Both sides choose their
hyper-parameters by their own cross-validation (lupikit: C, and for LUPI C
and gamma jointly; fri: its random search, which for regression also samples
epsilon), and run on one core: ``n_jobs=1`` and ``OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1`` in
both subprocesses (BLAS threads spinning next to other processes on a small
machine slow small problems down badly, for both packages alike). Each fit
runs in a fresh subprocess of its own environment; we time the end-to-end
``fit`` inside it and score the selected features (relevant vs irrelevant)
against the truth with F1. Runs alternate between the two packages so that
load on the machine affects both alike; medians of the times and means of the
F1 values are reported. lupikit runs with its documented defaults (delta=0.1,
p=0.999, n_permutations=50); fri with its own defaults, which draw 20 probes.
Each data set is therefore also fitted by lupikit with n_permutations=20, the
same number of probe LPs as fri solves, and those times are compared with the
same fri runs in a line of their own before the summary; that line (fri
time / lupikit time at equal probes, and both F1 values) is what the target
"regression and LUPI regression at least 8x faster than fri with a selection
F1 at least fri's" is read off, and the last lines check it per data set. Inside fri's
subprocess the calls to ``ecos.solve`` are timed as well, so that the share
of fri's time spent in its LP solver (rather than in rebuilding each problem
with cvxpy) is measured in the same run. The summary prints the ratios, one
line per data set, and then the target check for the two regression sets.

With ``--scaling`` the script also fits one plain ordinal data set of each of
n = 1000 and n = 2000 samples (same d) on both sides, which shows how the two
packages scale with n: ECOS' interior-point iterations cost O(n) each, while a
simplex pivot path lengthens with n; lupikit switches to a parametric search
over the LP's dual (``lupikit.relevance._dual_path``) for large plain models.
Those lines come before the summary.

Before the summary, seed 0 of both ordinal data sets is also fitted with
``n_jobs=2`` on both sides (lupikit's workers are threads, since HiGHS
releases the GIL while it solves; fri's are joblib's worker processes), and
one plain data set is also fitted in this process to
split lupikit's time into the choice of C and the bounds, and to replay every
upper bound with a single solve at its final multiplier: the least time that
the dual search could take even if it knew each bound's multiplier in advance.

The first line names the packages on both sides (lupikit's time depends on
the HiGHS release: its fixed cost per solve differs by a factor of about 1.7
between releases 1.10 and 1.16).

With ``--scaling-d`` the script runs only a scaling in the number of features
instead of the comparison above: plain ordinal data of n = 200 samples
(``make_ordinal_relevance``, 3 strong, 4 weak, d - 7 irrelevant features,
standardised, seed 0) for d = 100, 300 and 1000, lupikit with ``n_jobs=2``
and its defaults (50 probes, ``screening="auto"``), printing per line its
time, ``n_lps_`` (LPs of the formulation), ``n_screened_`` (features ruled
out by certified screening) and the selection F1, also with the classes read
off the same bounds and probes at fri's noise threshold (its one-sided tail
probability 1e-4, i.e. ``p = 0.9998``, instead of the paper's ``p = 0.999``),
which separates the threshold's calibration from the bounds; fri (``n_jobs=2`` too, its
defaults) at d = 100 and 300, each given at most 600 s in its subprocess (else
"fri: did not finish in 600 s"); and one regression line for lupikit at
d = 1000 (``make_regression_relevance``, n = 200, X and y standardised).

With ``--against DIR`` the script compares only lupikit: this checkout against
another one (e.g. ``git worktree add /tmp/before <commit>``), both in this
environment with the other's ``src`` first on the path, alternating fits,
on the four data sets above (seed 0) and one plain set of n = 1000 (the dual
route); it prints both medians, their ratio, the largest difference of the
bounds and whether the classes agree. This is how a refactoring of the solver
is checked for speed and for identical answers.

With ``--large`` the script runs only the authors' large synthetic set: Set 8
of their published experiment settings (``lpfann/squamish_experiments``,
``runner/experiment_pipeline.py``: n = 2000; 10 strongly relevant, 10 weakly
relevant, 50 irrelevant features), generated as ordinal data with the
generator of their feature-selection benchmark
(:func:`lupikit.datasets.make_ordinal_benchmark`: three equal-frequency
classes, all weak features copies of one latent, standardised, seed 0).
``--size N,STRONG,WEAK,IRRELEVANT`` replaces the set by another size of the same
kind (:func:`lupikit.datasets.make_fri_ordinal`), e.g. ``--size 10000,10,20,10``.
lupikit runs with its defaults and ``--n-jobs`` workers (default 2: the
target is under 10 minutes on 2 cores); fri with its defaults and the same
``n_jobs``, on the same data or, with ``--fri-n M``, on the first M rows
(then scored against the same truth; for when time is short). fri is stopped
after ``--fri-timeout`` seconds (default 1800, 30 minutes) and the script then
says so; ``--no-fri`` skips it. Each side prints its time, the selection's
precision, recall and F1 against the truth, and whether it typed every
feature right (strong, weak, irrelevant).

``--fri-python PATH`` runs fri with the interpreter at PATH (an environment
that has fri 9.0.0 and ECOS, e.g. one made with
``python -m venv /tmp/fri-venv && /tmp/fri-venv/bin/pip install
fri-9.0.0-py3-none-any.whl "numpy<1.27" importlib_metadata attrs cvxpy==1.7.5
ecos==2.0.14``) instead of creating or reusing ``LUPIKIT_FRI_VENV``; it
applies to every mode.

Usage: ``python benchmarks/bench_relevance.py [n_repeats] [--scaling]``,
``python benchmarks/bench_relevance.py --scaling-d``,
``python benchmarks/bench_relevance.py [n_repeats] --against DIR`` or
``python benchmarks/bench_relevance.py --large [--size N,S,W,I] [--n-jobs J]
[--fri-n M] [--fri-timeout SECONDS] [--no-fri]``, each with
``[--fri-python PATH]``.

Records (``_record.py``; ``--record-dir DIR`` instead of ``results/benchmarks``):
the comparison writes ``relevance.json`` (with ``--scaling`` its rows n = 1000
and 2000 are in the same record): per data set ``<k>`` (``ordinal``, ``lupi``,
``regression``, ``lupi_regression``) the values ``<k>_lupikit_seconds``,
``<k>_fri_seconds``, ``<k>_speedup``, ``<k>_f1_lupikit``, ``<k>_f1_fri``,
``<k>_ecos_seconds``, ``<k>_ecos_solves``, ``<k>_fri_tenth_seconds`` (what 10x
allows lupikit), ``<k>_lupikit20_seconds``, ``<k>_speedup20``,
``<k>_f1_lupikit20`` and, for the regression sets, ``<k>_target_speed`` and
``<k>_target_f1`` ("met" or "NOT met"); for ``ordinal`` and ``lupi`` with
``n_jobs=2`` ``<k>_n2_lupikit_seconds``, ``<k>_n2_fri_seconds``,
``<k>_n2_speedup``; with ``--scaling`` ``n<N>_lupikit_seconds``,
``n<N>_fri_seconds``, ``n<N>_ecos_seconds``, ``n<N>_speedup``, ``n<N>_f1_lupikit``,
``n<N>_f1_fri``; the floor ``floor_choice_c_seconds``, ``floor_fit_seconds``,
``floor_upper_bounds``, ``floor_dual_solves``, ``floor_oracle_seconds``,
``floor_oracle_pivots``, ``floor_oracle_with_c_seconds``; and ``n_repeats``,
``n_samples``, ``fri_probes``; tables ``comparison``, ``equal_probes`` and
``two_cores``. ``--scaling-d`` writes ``relevance_scaling_d.json``: per d
``d<d>_lupikit_seconds``, ``d<d>_n_screened``, ``d<d>_f1``, ``d<d>_f1_fri_tail``,
``d<d>_false_positives``, ``d<d>_irrelevant``, ``d<d>_relevant_found``,
``d<d>_relevant`` and where fri ran ``d<d>_fri_seconds`` (or ``d<d>_fri``:
"did not finish"), ``d<d>_speedup``, ``d<d>_f1_fri``; the same with
``regression_d<d>_`` for the regression line; table ``scaling_d``.
``--large`` writes ``relevance_large.json`` (``lupikit_seconds``,
``lupikit_precision``, ``lupikit_recall``, ``lupikit_f1``,
``lupikit_typed_wrong``, the same for ``fri_`` or ``fri_status``), and
``--against`` ``relevance_against.json`` (table ``against``).

``--quick`` runs the chosen mode at a tiny size (n = 60 instead of 300, one
repeat, scaling at n = 100 and 150, d = 30 and 40, the large set
60,3,4,5) and writes its record to a temporary folder unless
``--record-dir`` is given.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import _record
import numpy as np
from sklearn.metrics import f1_score
from sklearn.preprocessing import StandardScaler

from lupikit.datasets import (FRI_SETS, make_fri_ordinal, make_lupi_ordinal, make_lupi_regression,
                               make_ordinal_benchmark, make_ordinal_relevance,
                               make_regression_relevance)
from lupikit.relevance import selection_scores

#: samples of the comparison's data sets (``--quick``: 60)
N_SAMPLES = 300
FRI_VENV = Path(os.environ.get("LUPIKIT_FRI_VENV", "/tmp/lupikit-fri-venv"))
# measured to work together on Python 3.11 (cvxpy 1.7.5 still solves with ECOS 2.0.14)
FRI_REQUIREMENTS = ["fri==9.0.0", "numpy<1.27", "importlib_metadata", "attrs",
                    "cvxpy==1.7.5", "ecos==2.0.14"]

WORKER = r'''
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
import ecos
import fri

# time spent inside the ECOS solver itself (cvxpy calls ecos.solve for every problem)
_solve, _spent = ecos.solve, [0.0, 0]


def _timed_solve(*args, **kwargs):
    t = time.perf_counter()
    try:
        return _solve(*args, **kwargs)
    finally:
        _spent[0] += time.perf_counter() - t
        _spent[1] += 1


ecos.solve = _timed_solve

data = np.load(sys.argv[1])
n_jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
# "ordinal" or "regression"; argument 3 overrides the data file's "problem"
problem = sys.argv[3] if len(sys.argv) > 3 else (
    str(data["problem"]) if "problem" in data.files else "ordinal")
names = {("ordinal", False): "ORDINALREGRESSION", ("ordinal", True): "LUPI_ORDREGRESSION",
         ("regression", False): "REGRESSION", ("regression", True): "LUPI_REGRESSION"}
X, y = data["X"], data["y"]
t0 = time.perf_counter()
if "Xs" in data.files:
    Xs = data["Xs"]
    model = fri.FRI(getattr(fri.ProblemName, names[problem, True]), random_state=0, n_jobs=n_jobs)
    model.fit(np.hstack([X, Xs]), y, lupi_features=Xs.shape[1])
else:
    model = fri.FRI(getattr(fri.ProblemName, names[problem, False]), random_state=0, n_jobs=n_jobs)
    model.fit(X, y)
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "solver_seconds": _spent[0], "n_solves": _spent[1],
                  "classes": [int(c) for c in model.relevance_classes_]}))
'''


#: ``--fri-python PATH``: an interpreter that has fri (set in ``__main__``)
FRI_PYTHON = None


def fri_python():
    """Path to the python of a working fri environment, creating it if needed
    (or the interpreter given with ``--fri-python``, checked but never changed)."""
    if FRI_PYTHON is not None:
        py = Path(FRI_PYTHON)
        check = subprocess.run([str(py), "-c", "import fri, ecos, cvxpy"], capture_output=True,
                               text=True)
        if check.returncode != 0:
            raise SystemExit(f"--fri-python {py}: cannot import fri, ecos and cvxpy there:\n"
                             + check.stderr.strip()[-2000:])
        return py
    py = FRI_VENV / "bin" / "python"
    check = [str(py), "-c", "import fri, ecos, cvxpy, numpy; assert numpy.__version__ < '1.27'"]
    if py.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return py
    print(f"creating {FRI_VENV} and installing {' '.join(FRI_REQUIREMENTS)} ...", flush=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(FRI_VENV)
    subprocess.run([str(py), "-m", "pip", "install", "-q", *FRI_REQUIREMENTS], check=True)
    subprocess.run(check, check=True)
    return py


LUPIKIT_WORKER = r'''
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
from lupikit.relevance import FeatureRelevanceBounds

data = np.load(sys.argv[1])
n_jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
n_permutations = int(sys.argv[3]) if len(sys.argv) > 3 else 50  # 50: the default
# "ordinal" or "regression"; argument 4 overrides the data file's "problem"
problem = sys.argv[4] if len(sys.argv) > 4 else (
    str(data["problem"]) if "problem" in data.files else "ordinal")
# the ordinal default is not passed, so that older checkouts (--against) still run
kwargs = {} if problem == "ordinal" else {"problem": problem}
X, y = data["X"], data["y"]
t0 = time.perf_counter()
frb = FeatureRelevanceBounds(random_state=0, n_jobs=n_jobs, n_permutations=n_permutations,
                             **kwargs)
if "Xs" in data.files:
    frb.fit(X, y, privileged_features=data["Xs"])
    classes = np.r_[frb.relevance_classes_, frb.relevance_classes_privileged_]
else:
    frb.fit(X, y)
    classes = frb.relevance_classes_
seconds = time.perf_counter() - t0
intervals = frb.interval_ if frb.interval_privileged_ is None else np.r_[
    frb.interval_, frb.interval_privileged_]
n_lps, n_screened = getattr(frb, "n_lps_", None), getattr(frb, "n_screened_", None)
# the regular features' classes again at fri's noise threshold (one-sided tail 1e-4,
# i.e. p = 0.9998), from the same bounds and probes (a screened bound lies below the
# p = 0.999 threshold, hence below this one too)
from lupikit.relevance import classify_relevance, prediction_interval
pv = frb.probe_values_
strict = classify_relevance(frb.interval_, prediction_interval(pv["min"], 0.9998),
                            prediction_interval(pv["max"], 0.9998))
print(json.dumps({"seconds": seconds, "classes": [int(c) for c in classes],
                  "classes_fri_tail": [int(c) for c in strict],
                  "intervals": intervals.tolist(), "module": FeatureRelevanceBounds.__module__,
                  "file": __import__("lupikit").__file__,
                  "n_lps": None if n_lps is None else int(n_lps),
                  "n_screened": None if n_screened is None else int(n_screened),
                  "C": float(frb.C_)}))
'''

#: fri's default number of probes (``fri.FRI(n_probe_features=20)``)
FRI_PROBES = 20
#: one core and one BLAS thread for both sides
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def run_worker(py, worker, path, n_jobs=1, *extra, env=None, timeout=None):
    """Run one fit in a fresh subprocess and return its JSON line.

    The subprocess gets a session of its own, so that on ``timeout`` (seconds,
    raising ``subprocess.TimeoutExpired``) it is killed together with any
    worker processes it started (fri's joblib workers). A failing worker
    raises ``RuntimeError`` with the end of its stderr."""
    cmd = [str(py), worker, path, str(n_jobs), *map(str, extra)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env or ENV, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed with exit code {proc.returncode}:\n"
                           + "\n".join(stderr.strip().splitlines()[-30:]))
    return json.loads(stdout.strip().splitlines()[-1])


def against(other, n_repeats=5, record=None, n_large=1000):
    """lupikit here against the lupikit of another checkout ``other`` (its ``src`` first
    on the path), alternating, on the four data sets of the comparison with fri and on
    one plain set of n = 1000 (the parametric dual route). Returns printable lines:
    median times, their ratio, and the largest difference of the bounds."""
    env_other = dict(ENV, PYTHONPATH=str(Path(other).resolve() / "src"))
    sides = {"here": ENV, "other": env_other}
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        worker = os.path.join(tmp, "lupikit_worker.py")
        Path(worker).write_text(LUPIKIT_WORKER)
        sets = datasets(0)  # ordinal, LUPI, regression and LUPI regression
        X, y, _ = make_ordinal_relevance(n_samples=n_large, n_strong=3, n_weak=4,
                                         n_irrelevant=13, random_state=0)
        sets[f"ordinal n={n_large}"] = dict(X=StandardScaler().fit_transform(X), y=y)
        rows = []
        for name, d in sets.items():
            path = os.path.join(tmp, f"against_{name.replace(' ', '_')}.npz")
            np.savez(path, **{k: v for k, v in d.items() if k != "truth"})
            times, res = {"here": [], "other": []}, {}
            for rep in range(n_repeats):
                for who in (("here", "other") if rep % 2 == 0 else ("other", "here")):
                    res[who] = run_worker(sys.executable, worker, path, env=sides[who])
                    times[who].append(res[who]["seconds"])
            assert Path(res["other"]["file"]).resolve().is_relative_to(Path(other).resolve())
            gap = np.max(np.abs(np.subtract(res["here"]["intervals"], res["other"]["intervals"])))
            same = res["here"]["classes"] == res["other"]["classes"]
            t_h, t_o = np.median(times["here"]), np.median(times["other"])
            rows.append([name, _record.sig(t_h), _record.sig(t_o), _record.sig(t_h / t_o),
                         float(f"{gap:.2g}"), "equal" if same else "DIFFER"])
            lines.append(f"{name:15s}: here {t_h:.3f} s  {other} {t_o:.3f} s  ratio "
                         f"{t_h / t_o:.3f}  max |bound difference| {gap:.1e}  "
                         f"classes {'equal' if same else 'DIFFER'}")
            print(lines[-1], flush=True)
    if record is not None:
        record.table("against", f"lupikit here against lupikit in {other}, medians of {n_repeats} "
                     "alternating fits, one core each", ["data", "here (s)", "other (s)", "ratio",
                                                         "max bound difference", "classes"], rows)
    return lines


#: the data sets as the book's tables name them
LABELS = {"ordinal": "ordinal", "lupi": "LUPI", "regression": "regression",
          "lupi-regression": "LUPI regression"}
#: the data sets of the ordinal model (``--against`` and the ``n_jobs=2`` lines use only these)
ORDINAL_SETS = ("ordinal", "lupi")


def _std(a):
    """Standardise columns (or a vector) to mean 0 and standard deviation 1."""
    a = np.asarray(a, dtype=float)
    return StandardScaler().fit_transform(a.reshape(len(a), -1)).reshape(a.shape)


def datasets(seed, n=None):
    """The four data sets of the comparison for one seed: n = 300, d = 20 regular features
    (3 strong, 4 weak in pairs, 13 irrelevant), LUPI with 8 privileged features (5 relevant,
    3 irrelevant). Each is a dict of X (, Xs), y, truth (regular then privileged) and the
    ``problem`` both workers read from the saved file. ``n``: default :data:`N_SAMPLES`."""
    n = N_SAMPLES if n is None else n
    X, y, rel = make_ordinal_relevance(n_samples=n, n_strong=3, n_weak=4, n_irrelevant=13,
                                       random_state=seed)
    Xl, Xs, yl, rl, rs = make_lupi_ordinal(n_samples=n, n_strong=3, n_weak=4, n_irrelevant=13,
                                           n_privileged_irrelevant=3, random_state=seed)
    Xr, yr, rr = make_regression_relevance(n_samples=n, n_strong=3, n_weak=4, n_irrelevant=13,
                                           random_state=seed)
    Xq, Xqs, yq, rq, rqs = make_lupi_regression(n_samples=n, n_strong=3, n_weak=4,
                                                n_irrelevant=13, n_privileged_irrelevant=3,
                                                random_state=seed)
    assert Xs.shape[1] == Xqs.shape[1] == 8
    return {
        "ordinal": dict(X=_std(X), y=y, truth=rel, problem="ordinal"),
        "lupi": dict(X=_std(Xl), Xs=_std(Xs), y=yl, truth=np.r_[rl, rs], problem="ordinal"),
        "regression": dict(X=_std(Xr), y=_std(yr), truth=rr, problem="regression"),
        "lupi-regression": dict(X=_std(Xq), Xs=_std(Xqs), y=_std(yq), truth=np.r_[rq, rqs],
                                problem="regression"),
    }


def save(path, d):
    """Save a data set for the workers (everything but the truth)."""
    np.savez(path, **{k: v for k, v in d.items() if k != "truth"})


def scaling(py, workers, tmp, sizes=(1000, 2000), record=None):
    """One plain ordinal data set per size, both packages; returns printable lines and the
    comparison table's rows."""
    lines, rows = [], []
    for n in sizes:
        X, y, rel = make_ordinal_relevance(n_samples=n, n_strong=3, n_weak=4, n_irrelevant=13,
                                           random_state=0)
        path = os.path.join(tmp, f"scaling_{n}.npz")
        np.savez(path, X=StandardScaler().fit_transform(X), y=y)
        res = {who: run_worker(*workers[who], path) for who in ("lupikit", "fri")}
        f1 = {who: f1_score(rel > 0, np.asarray(r["classes"]) > 0) for who, r in res.items()}
        t_l, t_f = res["lupikit"]["seconds"], res["fri"]["seconds"]
        if record is not None:
            for key, v in (("lupikit_seconds", t_l), ("fri_seconds", t_f),
                           ("ecos_seconds", res["fri"]["solver_seconds"]),
                           ("speedup", t_f / t_l), ("f1_lupikit", f1["lupikit"]),
                           ("f1_fri", f1["fri"])):
                record.value(f"n{n}_{key}", v)
        rows.append(["ordinal", n, _record.sig(t_l, 3), _record.sig(t_f, 3),
                     _record.sig(res["fri"]["solver_seconds"], 3), "", _record.sig(t_f / t_l, 2),
                     round(f1["lupikit"], 3), round(f1["fri"], 3)])
        lines.append(f"ordinal n={n}: lupikit {t_l:.2f} s  fri {t_f:.2f} s (ECOS "
                     f"{res['fri']['solver_seconds']:.2f} s)  speed-up {t_f / t_l:.1f}x  "
                     f"F1 lupikit {f1['lupikit']:.3f}  F1 fri {f1['fri']:.3f}")
        print(lines[-1], flush=True)
    return lines, rows


def parallel(workers, tmp, n_jobs=2, record=None):
    """Seed 0 of both data sets with ``n_jobs`` on both sides; returns printable lines."""
    lines, rows = [], []
    for name, d in datasets(0).items():
        if name not in ORDINAL_SETS:
            continue
        path = os.path.join(tmp, f"parallel_{name}.npz")
        save(path, d)
        res = {who: run_worker(*workers[who], path, n_jobs) for who in ("lupikit", "fri")}
        t_l, t_f = res["lupikit"]["seconds"], res["fri"]["seconds"]
        lines.append(f"{name:8s} n_jobs={n_jobs}: lupikit {t_l:.2f} s  fri {t_f:.2f} s  "
                     f"speed-up {t_f / t_l:.1f}x")
        if record is not None:
            for key, v in (("lupikit_seconds", t_l), ("fri_seconds", t_f), ("speedup", t_f / t_l)):
                record.value(f"{name}_n2_{key}", v)
            rows.append([LABELS[name], _record.sig(t_l, 3), _record.sig(t_f, 3),
                         _record.sig(t_f / t_l, 2)])
        print(lines[-1], flush=True)
    if record is not None:
        record.table("two_cores", f"Seed 0 with n_jobs={n_jobs} on both sides (seconds)",
                     ["data", "lupikit", "fri", "speed-up"], rows)
    return lines


def scaling_d(py, workers, tmp, dims=(100, 300, 1000), fri_dims=(100, 300), n_jobs=2,
              timeout=600, n_samples=200, regression_dims=(1000,), record=None):
    """Scaling in the number of features d: plain ordinal data (n = 200, 3 strong, 4 weak,
    d - 7 irrelevant, standardised) for each d in ``dims``, lupikit with ``n_jobs`` and its
    defaults; fri (``n_jobs`` too) for d in ``fri_dims``, killed after ``timeout`` seconds;
    then lupikit on regression data of each d in ``regression_dims``. Returns printable lines."""
    lines, rows = [], []

    def lupikit_line(label, res, truth, prefix=None):
        f1 = f1_score(truth > 0, np.asarray(res["classes"]) > 0)
        f1_strict = f1_score(truth > 0, np.asarray(res["classes_fri_tail"]) > 0)
        if record is not None:
            chosen = np.asarray(res["classes"]) > 0
            for key, v in (("lupikit_seconds", res["seconds"]), ("n_screened", res["n_screened"]),
                           ("f1", f1), ("f1_fri_tail", f1_strict),
                           ("false_positives", int(np.sum(chosen & (truth == 0)))),
                           ("irrelevant", int(np.sum(truth == 0))),
                           ("relevant_found", int(np.sum(chosen & (truth > 0)))),
                           ("relevant", int(np.sum(truth > 0)))):
                if v is not None:
                    record.value(f"{prefix}_{key}", v)
            rows.append([label.split(": ")[0].replace("ordinal d=", "").replace(
                "regression d=", "").strip() + (" (regression)" if "regression" in label else ""),
                _record.sig(res["seconds"], 3), "" if res["n_screened"] is None else res["n_screened"],
                round(f1, 3), round(f1_strict, 3), "", "", ""])
        return (f"{label}: lupikit {res['seconds']:7.2f} s  n_lps_ {res['n_lps']}  "
                f"n_screened_ {res['n_screened']}  F1 {f1:.3f} (at fri's tail 1e-4: "
                f"{f1_strict:.3f})")

    for i, d in enumerate(dims):
        X, y, rel = make_ordinal_relevance(n_samples=n_samples, n_strong=3, n_weak=4,
                                           n_irrelevant=d - 7, random_state=0)
        path = os.path.join(tmp, f"scaling_d_{d}.npz")
        save(path, dict(X=_std(X), y=y, problem="ordinal"))
        whos = ("lupikit", "fri") if d in fri_dims else ("lupikit",)
        res = {}
        for who in (whos if i % 2 == 0 else whos[::-1]):  # alternate the order
            if who == "lupikit":
                res[who] = run_worker(*workers[who], path, n_jobs)
                continue
            try:
                res[who] = run_worker(*workers[who], path, n_jobs, timeout=timeout)
            except subprocess.TimeoutExpired:
                res[who] = None
        line = lupikit_line(f"ordinal d={d:4d}", res["lupikit"], rel, f"d{d}")
        if "fri" in res:
            r = res["fri"]
            if r is None:
                line += f"  |  fri: did not finish in {timeout} s"
                if record is not None:
                    record.value(f"d{d}_fri", f"did not finish in {timeout:.0f} s")
                    rows[-1][5:] = [f"not finished in {timeout:.0f} s", "", ""]
            else:
                f1 = f1_score(rel > 0, np.asarray(r["classes"]) > 0)
                speedup = r["seconds"] / res["lupikit"]["seconds"]
                if record is not None:
                    record.value(f"d{d}_fri_seconds", r["seconds"])
                    record.value(f"d{d}_speedup", speedup)
                    record.value(f"d{d}_f1_fri", f1)
                    rows[-1][5:] = [_record.sig(r["seconds"], 3), _record.sig(speedup, 3),
                                    round(f1, 3)]
                # no ECOS share here: with n_jobs=2 fri solves in joblib's worker processes,
                # where the timing wrapper of the worker script does not reach
                line += (f"  |  fri {r['seconds']:.2f} s  "
                         f"speed-up {r['seconds'] / res['lupikit']['seconds']:.1f}x  "
                         f"F1 fri {f1:.3f}")
        lines.append(line)
        print(line, flush=True)
    for d in regression_dims:
        X, y, rel = make_regression_relevance(n_samples=n_samples, n_strong=3, n_weak=4,
                                              n_irrelevant=d - 7, random_state=0)
        path = os.path.join(tmp, f"scaling_d_regression_{d}.npz")
        save(path, dict(X=_std(X), y=_std(y), problem="regression"))
        lines.append(lupikit_line(f"regression d={d:4d}",
                                  run_worker(*workers["lupikit"], path, n_jobs), rel,
                                  f"regression_d{d}"))
        print(lines[-1], flush=True)
    if record is not None:
        record.value("n_samples", n_samples)
        record.value("fri_timeout_seconds", timeout)
        record.table("scaling_d", f"Scaling with d (n = {n_samples}, 3 strong, 4 weak, d - 7 "
                     f"irrelevant, seed 0; both sides n_jobs={n_jobs} and their defaults; fri only "
                     f"where it finishes in {timeout:.0f} s)",
                     ["d", "lupikit (s)", "screened", "F1", "F1 at fri's tail", "fri (s)",
                      "speed-up", "F1 fri"], rows)
    return lines


def floor(seed=0, record=None):
    """Where lupikit's time goes on one plain data set (n = 300), in this process.

    Splits a default fit into the choice of C and the relevance bounds, and
    replays every upper bound of the dual search with a single HiGHS solve at
    its final tau, from the optimal model's basis: the time that even an oracle
    knowing each bound's multiplier in advance would need (a real search needs a
    bracket and a certificate on top). Returns printable lines.
    """
    import time

    from lupikit.relevance import FeatureRelevanceBounds, _dual_path, select_C

    data = datasets(seed)["ordinal"]
    X, y = data["X"], data["y"]
    FeatureRelevanceBounds(C=1.0, n_permutations=2, random_state=0, n_jobs=1).fit(X, y)  # warm-up
    t0 = time.perf_counter()
    C, _ = select_C(X, y, random_state=0)
    t_cv = time.perf_counter() - t0
    seen, solves = [], [0]
    max_signed, evaluate = _dual_path.DualPath.max_signed, _dual_path.DualPath._evaluate

    def recording(self, j, s, budget, beat=None):
        out = max_signed(self, j, s, budget, beat)
        seen.append((self, j, s, self.tau_hint[s], self.probe_key))
        return out

    def counting(self, *args, **kwargs):
        solves[0] += 1
        return evaluate(self, *args, **kwargs)

    _dual_path.DualPath.max_signed, _dual_path.DualPath._evaluate = recording, counting
    try:
        t0 = time.perf_counter()
        FeatureRelevanceBounds(C=C, random_state=0, n_jobs=1).fit(X, y)
        t_fit = time.perf_counter() - t0
    finally:
        _dual_path.DualPath.max_signed, _dual_path.DualPath._evaluate = max_signed, evaluate
    t_oracle, pivots = 0.0, 0
    for dual, j, s, tau, probe in seen:
        if probe is None:
            dual.probe_off()
        else:
            dual.load_probe(probe)
        dual.h.setBasis(dual.base_basis)
        dual.h.changeRowBounds(j, s * tau + dual.lo[j], s * tau + dual.hi[j])
        t0 = time.perf_counter()
        dual.h.run()
        t_oracle += time.perf_counter() - t0
        pivots += dual.h.getInfo().simplex_iteration_count
        dual.h.changeRowBounds(j, dual.lo[j], dual.hi[j])
    if record is not None:
        for key, v in (("choice_c_seconds", t_cv), ("fit_seconds", t_fit),
                       ("upper_bounds", len(seen)), ("dual_solves", solves[0]),
                       ("oracle_seconds", t_oracle), ("oracle_pivots", pivots),
                       ("oracle_with_c_seconds", t_cv + t_oracle)):
            record.value(f"floor_{key}", v)
    return [
        f"ordinal n={len(y)} (seed {seed}, in-process): choice of C {t_cv:.2f} s; fit at that C "
        f"{t_fit:.2f} s for {len(seen)} upper bounds ({solves[0]} dual solves)",
        f"oracle: one solve per upper bound at its final tau, from the optimal basis: "
        f"{t_oracle:.2f} s ({pivots} pivots); with the choice of C {t_cv + t_oracle:.2f} s",
    ]


def versions(py):
    """The solver stacks compared (lupikit's time depends on the HiGHS release:
    its fixed cost per solve differs by a factor of about 1.7 between releases)."""
    from importlib.metadata import version

    fri_side = subprocess.run(
        [str(py), "-c", "from importlib.metadata import version as v; "
         "print(' '.join(f'{p} {v(p)}' for p in ('fri', 'cvxpy', 'ecos', 'numpy')))"],
        capture_output=True, text=True, check=True).stdout.strip()
    ours = " ".join(f"{p} {version(p)}" for p in ("highspy", "scipy", "numpy"))
    return f"lupikit side: {ours}; fri side: {fri_side}"


def fri_versions(py):
    """The fri side's versions as a record's ``versions`` entries (its NumPy as ``numpy-fri``)."""
    out = subprocess.run(
        [str(py), "-c", "from importlib.metadata import version as v; "
         "print(' '.join(v(p) for p in ('fri', 'cvxpy', 'ecos', 'numpy')))"],
        capture_output=True, text=True, check=True).stdout.split()
    return dict(zip(("fri", "cvxpy", "ecos", "numpy-fri"), out))


def write_workers(py, tmp):
    workers = {"fri": (py, os.path.join(tmp, "fri_worker.py")),
               "lupikit": (sys.executable, os.path.join(tmp, "lupikit_worker.py"))}
    Path(workers["fri"][1]).write_text(WORKER)
    Path(workers["lupikit"][1]).write_text(LUPIKIT_WORKER)
    return workers


def main_scaling_d(record=None, quick=False):
    py = fri_python()
    print(versions(py), flush=True)
    if record is not None:
        record.extra_versions.update(fri_versions(py))
    sizes = dict(dims=(30, 40), fri_dims=(30,), regression_dims=(40,), n_samples=60,
                 timeout=120) if quick else {}
    print(f"scaling with d (n = {sizes.get('n_samples', 200)}, 3 strong, 4 weak, d - 7 "
          "irrelevant, seed 0); both sides "
          f"n_jobs=2 on this {os.cpu_count()}-core machine, BLAS threads=1; lupikit defaults "
          f"(50 probes, screening='auto'), fri defaults (20 probes), fri at most "
          f"{sizes.get('timeout', 600)} s:",
          flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        scaling_d(py, write_workers(py, tmp), tmp, record=record, **sizes)


def main(n_repeats=3, with_scaling=False, record=None, scaling_sizes=(1000, 2000)):
    py = fri_python()
    print(versions(py), flush=True)
    if record is not None:
        record.extra_versions.update(fri_versions(py))
    names = tuple(datasets(0))
    results = {k: {"lupikit": [], "fri": [], "f1_lupikit": [], "f1_fri": [], "ecos": [],
                   "n_ecos": [], "lupikit20": [], "f1_lupikit20": []} for k in names}
    with tempfile.TemporaryDirectory() as tmp:
        workers = write_workers(py, tmp)
        for seed in range(n_repeats):
            for name, d in datasets(seed).items():
                path = os.path.join(tmp, f"{name}_{seed}.npz")
                save(path, d)
                order = ("lupikit", "fri") if seed % 2 == 0 else ("fri", "lupikit")
                for who in order:
                    res = run_worker(*workers[who], path)
                    f1 = f1_score(d["truth"] > 0, np.asarray(res["classes"]) > 0)
                    results[name][who].append(res["seconds"])
                    results[name][f"f1_{who}"].append(f1)
                    if who == "fri":
                        results[name]["ecos"].append(res["solver_seconds"])
                        results[name]["n_ecos"].append(res["n_solves"])
                    print(f"{name:15s} seed {seed} {who:8s} {res['seconds']:7.2f} s  F1 {f1:.3f}",
                          flush=True)
                # as many probes as fri draws by default (n_probe_features=20)
                res = run_worker(*workers["lupikit"], path, 1, FRI_PROBES)
                results[name]["lupikit20"].append(res["seconds"])
                results[name]["f1_lupikit20"].append(
                    f1_score(d["truth"] > 0, np.asarray(res["classes"]) > 0))
                print(f"{name:15s} seed {seed} lupikit{FRI_PROBES} {res['seconds']:7.2f} s  "
                      f"F1 {results[name]['f1_lupikit20'][-1]:.3f}", flush=True)
        scaled, scaled_rows = (scaling(py, workers, tmp, scaling_sizes, record) if with_scaling
                               else ([], []))
        both = parallel(workers, tmp, record=record)
    if scaled:
        print()
        print("scaling with n (one data set each, d = 20, same settings):")
        for line in scaled:
            print(line)
    print()
    print(f"both sides with n_jobs=2 on this {os.cpu_count()}-core machine (seed 0; lupikit's "
          "workers are threads, fri's are joblib's processes):")
    for line in both:
        print(line)
    print()
    print("where lupikit's time goes, and the least that its dual search could take:")
    for line in floor(record=record):
        print(line)
    if record is not None:
        _record_comparison(record, results, scaled_rows, n_repeats)
    print()
    print("where fri's time goes (medians): the ECOS solver itself versus cvxpy's rebuilding")
    for name, r in results.items():
        t_f, t_e = np.median(r["fri"]), np.median(r["ecos"])
        print(f"{name:15s}: fri {t_f:.2f} s, of which {t_e:.2f} s inside ECOS "
              f"({int(np.median(r['n_ecos']))} solves); 10x would need lupikit <= {t_f / 10:.2f} s")
    print()
    print(f"the same, with as many probes on both sides (lupikit n_permutations={FRI_PROBES}, "
          f"fri's default n_probe_features={FRI_PROBES}):")
    for name, r in results.items():
        t_l, t_f = np.median(r["lupikit20"]), np.median(r["fri"])
        print(f"{name:15s}: lupikit {t_l:.2f} s  fri {t_f:.2f} s  speed-up {t_f / t_l:.1f}x  "
              f"F1 lupikit {np.mean(r['f1_lupikit20']):.3f}  F1 fri {np.mean(r['f1_fri']):.3f}")
    print()
    print(f"medians of fit times over {n_repeats} data sets; both sides on one core "
          "(n_jobs=1, OPENBLAS/OMP threads=1), shared machine:")
    for name, r in results.items():
        t_l, t_f = np.median(r["lupikit"]), np.median(r["fri"])
        print(f"{name:15s}: lupikit {t_l:.2f} s  fri {t_f:.2f} s  speed-up {t_f / t_l:.1f}x  "
              f"F1 lupikit {np.mean(r['f1_lupikit']):.3f}  F1 fri {np.mean(r['f1_fri']):.3f}")
    print()
    print(f"target: regression and LUPI regression >= 8x faster than fri at equal probes "
          f"({FRI_PROBES}), selection F1 at least fri's:")
    for name in ("regression", "lupi-regression"):
        r = results[name]
        speed = np.median(r["fri"]) / np.median(r["lupikit20"])
        f1_l, f1_f = np.mean(r["f1_lupikit20"]), np.mean(r["f1_fri"])
        print(f"{name:15s}: speed-up {speed:.1f}x ({'met' if speed >= 8 else 'NOT met'})  "
              f"F1 lupikit {f1_l:.3f} vs fri {f1_f:.3f} "
              f"({'met' if f1_l >= f1_f else 'NOT met'})")


def _record_comparison(record, results, scaled_rows, n_repeats):
    """The comparison's values and tables (medians of times, means of F1)."""
    comparison, equal = [], []
    for name, r in results.items():
        k = name.replace("-", "_")
        t_l, t_f, t_e = np.median(r["lupikit"]), np.median(r["fri"]), np.median(r["ecos"])
        t_20 = np.median(r["lupikit20"])
        vals = {"lupikit_seconds": t_l, "fri_seconds": t_f, "speedup": t_f / t_l,
                "f1_lupikit": np.mean(r["f1_lupikit"]), "f1_fri": np.mean(r["f1_fri"]),
                "ecos_seconds": t_e, "ecos_solves": int(np.median(r["n_ecos"])),
                "fri_tenth_seconds": t_f / 10, "lupikit20_seconds": t_20, "speedup20": t_f / t_20,
                "f1_lupikit20": np.mean(r["f1_lupikit20"])}
        if name in ("regression", "lupi-regression"):
            vals["target_speed"] = "met" if t_f / t_20 >= 8 else "NOT met"
            vals["target_f1"] = "met" if vals["f1_lupikit20"] >= vals["f1_fri"] else "NOT met"
        for key, v in vals.items():
            record.value(f"{k}_{key}", v)
        comparison.append([LABELS[name], N_SAMPLES, _record.sig(t_l, 3), _record.sig(t_f, 3),
                           _record.sig(t_e, 3), vals["ecos_solves"], _record.sig(t_f / t_l, 2),
                           round(vals["f1_lupikit"], 3), round(vals["f1_fri"], 3)])
        equal.append([LABELS[name], N_SAMPLES, _record.sig(t_20, 3), _record.sig(t_f, 3),
                      _record.sig(t_f / t_20, 2), round(vals["f1_lupikit20"], 3),
                      round(vals["f1_fri"], 3)])
    record.value("n_repeats", n_repeats)
    record.value("n_samples", N_SAMPLES)
    record.value("fri_probes", FRI_PROBES)
    cols = ["data", "n", "lupikit (s)", "fri (s)", "of which inside ECOS (s)", "ECOS solves",
            "speed-up", "F1 lupikit", "F1 fri"]
    record.table("comparison", f"Defaults on both sides (lupikit 50 probes, fri 20), one core each; "
                 f"at n = {N_SAMPLES} medians of {n_repeats} data sets (times) and means (F1), "
                 "other n one data set", cols, comparison + scaled_rows)
    record.table("equal_probes", f"As many probes on both sides ({FRI_PROBES}), one core each; "
                 f"medians of {n_repeats} data sets", ["data", "n", "lupikit (s)", "fri (s)",
                                                       "speed-up", "F1 lupikit", "F1 fri"], equal)


def _selection_line(who, res, truth):
    """Time, precision, recall and F1 of one side, and whether every feature's type is right."""
    classes = np.asarray(res["classes"])
    sc = selection_scores(truth > 0, classes > 0)
    typed = int(np.sum(classes != truth))
    return (f"{who}: {res['seconds']:8.1f} s  precision {sc['precision']:.3f}  recall "
            f"{sc['recall']:.3f}  F1 {sc['f1']:.3f}  features typed wrong (strong/weak/"
            f"irrelevant) {typed} of {truth.size}")


def _record_selection(record, who, res, truth):
    if record is None:
        return
    classes = np.asarray(res["classes"])
    sc = selection_scores(truth > 0, classes > 0)
    for key, v in (("seconds", res["seconds"]), ("precision", sc["precision"]),
                   ("recall", sc["recall"]), ("f1", sc["f1"]),
                   ("typed_wrong", int(np.sum(classes != truth)))):
        record.value(f"{who}_{key}", v)


def main_large(size=None, n_jobs=2, fri_n=None, fri_timeout=1800, with_fri=True, record=None):
    """The authors' large synthetic set (Set 8, or ``size``) on both sides; prints lines."""
    if size is None:
        label = "Set 8 (n = {}; {} strong, {} weak, {} irrelevant)".format(*FRI_SETS[8])
        X, y, truth = make_ordinal_benchmark(8, random_state=0)
    else:
        label = "n = {}; {} strong, {} weak, {} irrelevant".format(*size)
        X, y, truth = make_fri_ordinal(*size, random_state=0)
    py = fri_python() if with_fri else None
    if py is not None:
        print(versions(py), flush=True)
        if record is not None:
            record.extra_versions.update(fri_versions(py))
    if record is not None:
        record.value("data", label)
        record.value("n_jobs", n_jobs)
    print(f"{label}: ordinal, 3 classes, standardised, seed 0; n_jobs={n_jobs} on this "
          f"{os.cpu_count()}-core machine, BLAS threads=1; both sides with their defaults "
          "(lupikit: delta 0.1, 50 probes, p 0.999, C by 5-fold CV; fri: its parameter "
          "search and 20 probes)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        workers = write_workers(py or sys.executable, tmp)
        path = os.path.join(tmp, "large.npz")
        save(path, dict(X=X, y=y, problem="ordinal"))
        res = run_worker(*workers["lupikit"], path, n_jobs)
        print(_selection_line(f"lupikit (n = {len(y)})", res, truth), flush=True)
        _record_selection(record, "lupikit", res, truth)
        if py is None:
            return
        if fri_n is not None and fri_n < len(y):
            path = os.path.join(tmp, "large_fri.npz")
            save(path, dict(X=X[:fri_n], y=y[:fri_n], problem="ordinal"))
        n_fri = min(fri_n or len(y), len(y))
        if record is not None:
            record.value("fri_n", n_fri)
        try:
            res = run_worker(*workers["fri"], path, n_jobs, timeout=fri_timeout)
        except subprocess.TimeoutExpired:
            if record is not None:
                record.value("fri_status", f"stopped after {fri_timeout:.0f} s without a result")
            print(f"fri (n = {n_fri}): stopped after {fri_timeout} s ({fri_timeout / 60:.0f} "
                  "minutes) without a result", flush=True)
            return
        print(_selection_line(f"fri (n = {n_fri})", res, truth)
              + f"  (of which {res['solver_seconds']:.1f} s in ECOS, where it was measured)",
              flush=True)
        _record_selection(record, "fri", res, truth)


def _option(argv, name, cast, default):
    """The value after ``name`` in ``argv`` (removing both), else ``default``."""
    if name not in argv:
        return default
    i = argv.index(name)
    if i + 1 >= len(argv):
        raise SystemExit(f"{name} needs a value")
    value = argv[i + 1]
    del argv[i:i + 2]
    try:
        return cast(value)
    except ValueError:
        raise SystemExit(f"{name}: cannot read {value!r}") from None


def _size(text):
    parts = tuple(int(v) for v in text.split(","))
    if len(parts) != 4:
        raise ValueError(text)
    return parts


if __name__ == "__main__":
    argv = sys.argv[1:]
    quick = "--quick" in argv
    if quick:
        argv.remove("--quick")
        N_SAMPLES = 60
    folder = _record.record_dir(_option(argv, "--record-dir", Path, None), quick)
    FRI_PYTHON = _option(argv, "--fri-python", str, None)
    packages = ("highspy", "scipy", "scikit-learn")
    if "--large" in argv:
        argv.remove("--large")
        with_fri = "--no-fri" not in argv
        if not with_fri:
            argv.remove("--no-fri")
        options = dict(size=_option(argv, "--size", _size, (60, 3, 4, 5) if quick else None),
                       n_jobs=_option(argv, "--n-jobs", int, 2),
                       fri_n=_option(argv, "--fri-n", int, None),
                       fri_timeout=_option(argv, "--fri-timeout", float, 120.0 if quick else 1800.0))
        if argv:
            raise SystemExit(f"unknown arguments for --large: {argv}")
        rec = _record.Record("relevance_large", "bench_relevance.py", packages)
        main_large(with_fri=with_fri, record=rec, **options)
        rec.write(folder)
        sys.exit(0)
    if "--against" in argv:
        i = argv.index("--against")
        other = argv[i + 1]
        rest = argv[:i] + argv[i + 2:]
        print(f"lupikit here against lupikit in {other} (same venv, one core each, "
              "alternating; medians):", flush=True)
        rec = _record.Record("relevance_against", "bench_relevance.py", packages)
        against(other, 1 if quick else (int(rest[0]) if rest else 5), record=rec,
                n_large=100 if quick else 1000)
        rec.write(folder)
    elif "--scaling-d" in argv:
        rec = _record.Record("relevance_scaling_d", "bench_relevance.py", packages)
        main_scaling_d(record=rec, quick=quick)
        rec.write(folder)
    else:
        args = [a for a in argv if a != "--scaling"]
        rec = _record.Record("relevance", "bench_relevance.py", packages)
        main(1 if quick else (int(args[0]) if args else 3), with_scaling="--scaling" in argv,
             record=rec, scaling_sizes=(100, 150) if quick else (1000, 2000))
        rec.write(folder)
