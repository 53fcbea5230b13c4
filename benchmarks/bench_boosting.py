"""Part I at histogram-booster speed: lupikit against LightGBM and XGBoost, side by side.

Not run by CI. Every fit runs on one thread (``n_jobs=1``), the estimators of
one comparison are timed round-robin and the best time of each is kept, so
that all ratios of a comparison share the machine's load.

1. **50 000 x 20 (+5 privileged), 200 trees of depth 3** (``make_lupi_classification``,
   learning rate 0.1). KbPIB fits 200 teacher trees on X* and 200 student trees
   on X, JPIB 200 on X and 200 on X*: both count 400 trees. Targets: the
   per-tree time of KbPIB and of JPIB at most 1.3x the per-tree time of the
   faster of LightGBM (``LGBMClassifier``) and XGBoost (``XGBClassifier``,
   ``tree_method="hist"``) fitting 200 trees on X with their built-in log-loss;
   and at least 30x faster than lupikit's ``engine="exact"``.
2. **1 000 000 x 20 (+5 privileged)**: KbPIB's per-tree time at most 1.3x
   XGBoost's own per-tree time on X (it scales linearly), and its peak memory
   at most 2x XGBoost's own. Each of these two fits runs in a fresh
   subprocess that loads the same arrays from ``.npy`` files, then fits; its
   peak resident memory (``ru_maxrss``) is printed whole and above the
   resident memory with the data loaded.
3. With ``--presets``: ``boosting/fairness`` and ``boosting/experiments`` at
   ``--preset paper`` (executed by papermill, ``n_jobs`` 2), target under 3
   minutes each on 2 cores.

The comparison of step 1 also times LightGBM and XGBoost with the same
log-loss written in NumPy as a custom objective, called every round.

Run::

    python benchmarks/bench_boosting.py [--n-samples 50000] [--big 1000000] [--repeats 3]
                                        [--skip-exact] [--presets] [--quick] [--record-dir DIR]

The last lines printed are the ratios. The run's record (``_record.py``) is
``results/benchmarks/boosting.json``: values ``kbpib_per_tree_ratio``,
``jpib_per_tree_ratio``, ``per_tree_reference``, ``lightgbm_xgboost_time_ratio``,
``lightgbm_custom_objective_ratio``, ``xgboost_custom_objective_ratio``,
``kbpib_exact_speedup``, ``jpib_exact_speedup``, ``big_kbpib_per_tree_ratio``,
``big_kbpib_peak_memory_ratio``, ``big_kbpib_above_data_ratio``, ``big_data_mib``,
``n_samples``, ``n_test``, ``big_n``, ``n_trees``, ``repeats`` (and with
``--presets`` ``fairness_paper_seconds`` and ``experiments_paper_seconds``);
tables ``per_tree``, ``big`` and ``ratios``. ``--quick`` runs every step at a
tiny size (2 000 and 3 000 rows, 20 trees; the presets, if asked for, at their
default preset) and writes its record to a temporary folder.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import _record
import lightgbm
import numpy as np
import xgboost
from sklearn.metrics import roc_auc_score

from lupikit.boosting import PrivilegedBoostingClassifier, SoftLabelBoostingClassifier
from lupikit.datasets import make_lupi_classification

ROOT = Path(__file__).resolve().parents[1]
T = 200
COMMON = dict(n_estimators=T, learning_rate=0.1, max_depth=3, random_state=0, n_jobs=1)


def _logloss_objective(y_true, raw):
    """The log-loss's gradient and hessian in NumPy, as a custom objective (raw margins)."""
    p = 1.0 / (1.0 + np.exp(-raw))
    return p - y_true, p * (1.0 - p)


def lgbm(objective=None):
    kw = {} if objective is None else {"objective": objective}
    return lightgbm.LGBMClassifier(n_estimators=T, learning_rate=0.1, max_depth=3, num_leaves=8,
                                   n_jobs=1, verbose=-1, **kw)


def xgbc(objective=None):
    kw = {} if objective is None else {"objective": objective}
    return xgboost.XGBClassifier(n_estimators=T, learning_rate=0.1, max_depth=3,
                                 tree_method="hist", n_jobs=1, **kw)


def lupi(mode, **kw):
    return lambda: PrivilegedBoostingClassifier(mode=mode, **{**COMMON, "n_estimators": T}, **kw)


def _scores(est, X):
    """Scores for the AUC: the positive class's probability, or the raw margin of a model
    fitted with a custom objective (which LightGBM returns instead of probabilities)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = np.asarray(est.predict_proba(X))
    return p[:, 1] if p.ndim == 2 else p


def _rows(n):
    """``50 000``: a row count as the book writes it."""
    return f"{n:,}".replace(",", " ")


def timed_fit(make, X, y, kw):
    est = make()
    t0 = time.perf_counter()
    est.fit(X, y, **kw)
    return time.perf_counter() - t0, est


#: the fits of step 1 as the book's table names them
LABELS = {
    "LightGBM LGBMClassifier": "LightGBM `LGBMClassifier`",
    "XGBoost XGBClassifier": "XGBoost `XGBClassifier` (`tree_method=\"hist\"`)",
    "LightGBM, NumPy objective": "LightGBM `LGBMClassifier`, log-loss as a NumPy objective",
    "XGBoost, NumPy objective": "XGBoost `XGBClassifier`, log-loss as a NumPy objective",
    "lupikit NF (hist)": "lupikit NF, histogram engine",
    "lupikit KbPIB (hist)": "lupikit KbPIB, histogram engine",
    "lupikit JPIB (hist)": "lupikit JPIB, histogram engine",
    "lupikit soft labels (hist)": "lupikit soft labels, histogram engine",
    "lupikit KbPIB (exact)": "lupikit KbPIB, exact engine",
    "lupikit JPIB (exact)": "lupikit JPIB, exact engine",
}


def per_tree_comparison(n, repeats, skip_exact, record, n_test=20000):
    X, Xs, y = make_lupi_classification(n + n_test, 20, 5, random_state=0)
    X, X_te, Xs, y, y_te = X[:n], X[n:], Xs[:n], y[:n], y[n:]  # one distribution, held-out rows
    priv = {"privileged_features": Xs}
    soft = {**COMMON, "n_estimators": T}
    runs = {  # name: (factory, fit kwargs, trees fitted)
        "LightGBM LGBMClassifier": (lgbm, {}, T),
        "XGBoost XGBClassifier": (xgbc, {}, T),
        "LightGBM, NumPy objective": (lambda: lgbm(_logloss_objective), {}, T),
        "XGBoost, NumPy objective": (lambda: xgbc(_logloss_objective), {}, T),
        "lupikit NF (hist)": (lupi("nf"), {}, T),
        "lupikit KbPIB (hist)": (lupi("kbpib"), priv, 2 * T),
        "lupikit JPIB (hist)": (lupi("jpib"), priv, 2 * T),
        "lupikit soft labels (hist)": (lambda: SoftLabelBoostingClassifier(**soft), priv, 2 * T),
    }
    times = {name: [] for name in runs}
    fitted = {}
    for _ in range(repeats):
        for name, (make, kw, _n) in runs.items():
            t, est = timed_fit(make, X, y, kw)
            times[name].append(t)
            fitted[name] = est
    exact = {}
    if not skip_exact:  # minutes each: timed once
        for mode in ("kbpib", "jpib"):
            t, est = timed_fit(lupi(mode, engine="exact"), X, y, priv)
            exact[mode] = t
            fitted[f"lupikit {mode.upper() if mode == 'jpib' else 'KbPIB'} (exact)"] = est
    print(f"== {n} x 20 regular + 5 privileged, {T} rounds of depth-3 trees, one thread, "
          f"best of {repeats} round-robin rounds (exact engine: one run)")
    print(f"{'fit':30s} {'seconds':>8s} {'trees':>6s} {'ms/tree':>8s} {'test AUC':>9s}")
    best = {name: min(v) for name, v in times.items()}
    rows = []
    for name, (_m, _kw, n_trees) in runs.items():
        auc = roc_auc_score(y_te, _scores(fitted[name], X_te))
        print(f"{name:30s} {best[name]:8.3f} {n_trees:6d} {1e3 * best[name] / n_trees:8.3f} {auc:9.4f}")
        rows.append([LABELS[name], _record.sig(best[name]), n_trees,
                     _record.sig(1e3 * best[name] / n_trees), round(auc, 4)])
    for mode, t in exact.items():
        name = f"lupikit {'KbPIB' if mode == 'kbpib' else 'JPIB'} (exact)"
        auc = roc_auc_score(y_te, _scores(fitted[name], X_te))
        print(f"{name:30s} {t:8.3f} {2 * T:6d} {1e3 * t / (2 * T):8.3f} {auc:9.4f}")
        rows.append([LABELS[name], _record.sig(t), 2 * T, _record.sig(1e3 * t / (2 * T)),
                     round(auc, 4)])
    record.table("per_tree", f"{_rows(n)} × 20 regular (+5 privileged) features, {T} rounds of "
                 f"depth-3 trees, one thread, best of {repeats} round-robin rounds (exact engine: "
                 f"one run); test AUC on {_rows(n_test)} held-out rows",
                 ["fit", "seconds", "trees", "ms per tree", "test AUC"], rows)
    ref_name = min(("LightGBM LGBMClassifier", "XGBoost XGBClassifier"), key=best.get)
    ref = best[ref_name] / T
    ratios = {
        "KbPIB": best["lupikit KbPIB (hist)"] / (2 * T) / ref,
        "JPIB": best["lupikit JPIB (hist)"] / (2 * T) / ref,
    }
    speedups = {m: exact[m] / best[f"lupikit {'KbPIB' if m == 'kbpib' else 'JPIB'} (hist)"] for m in exact}
    record.value("n_samples", n)
    record.value("n_test", n_test)
    record.value("n_trees", T)
    record.value("repeats", repeats)
    record.value("per_tree_reference", "LightGBM" if ref_name.startswith("LightGBM") else "XGBoost")
    record.value("kbpib_per_tree_ratio", ratios["KbPIB"])
    record.value("jpib_per_tree_ratio", ratios["JPIB"])
    record.value("lightgbm_xgboost_time_ratio",
                 best["LightGBM LGBMClassifier"] / best["XGBoost XGBClassifier"])
    custom = {
        "LightGBM": best["LightGBM, NumPy objective"] / best["LightGBM LGBMClassifier"],
        "XGBoost": best["XGBoost, NumPy objective"] / best["XGBoost XGBClassifier"],
    }
    record.value("lightgbm_custom_objective_ratio", custom["LightGBM"])
    record.value("xgboost_custom_objective_ratio", custom["XGBoost"])
    for m, sp in speedups.items():
        record.value(f"{m}_exact_speedup", sp)
    return ref_name, ratios, speedups, custom


_CHILD = r"""
import json, resource, sys, time
import numpy as np
folder, which, n_trees = sys.argv[1], sys.argv[2], int(sys.argv[3])
X, Xs, y = (np.load(f"{folder}/{name}.npy") for name in ("X", "Xs", "y"))
with open("/proc/self/statm") as fh:  # resident pages now, with the data loaded
    data_kib = int(fh.read().split()[1]) * resource.getpagesize() // 1024
t0 = time.perf_counter()
if which == "xgboost":
    import xgboost
    xgboost.XGBClassifier(n_estimators=n_trees, learning_rate=0.1, max_depth=3, tree_method="hist",
                          n_jobs=1).fit(X, y)
else:
    from lupikit.boosting import PrivilegedBoostingClassifier
    PrivilegedBoostingClassifier(mode="kbpib", n_estimators=n_trees, learning_rate=0.1, max_depth=3,
                                 random_state=0, n_jobs=1).fit(X, y, privileged_features=Xs)
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "data_kib": data_kib,
                  "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def big_comparison(n, repeats, record):
    """XGBoost's own fit and KbPIB's, each in a fresh process that loads the same arrays."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = {"xgboost": [], "kbpib": []}
    with tempfile.TemporaryDirectory() as folder:
        X, Xs, y = make_lupi_classification(n, 20, 5, random_state=0)
        for name, arr in (("X", X), ("Xs", Xs), ("y", y)):
            np.save(f"{folder}/{name}.npy", arr)
        del X, Xs, y
        for _ in range(repeats):
            for which in out:
                proc = subprocess.run([sys.executable, "-c", _CHILD, folder, which, str(T)], env=env,
                                      capture_output=True, text=True, check=True)
                out[which].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    best = {k: min(v, key=lambda r: r["seconds"]) for k, v in out.items()}
    peak = {k: max(r["peak_kib"] for r in v) for k, v in out.items()}
    data = {k: min(r["data_kib"] for r in v) for k, v in out.items()}
    print(f"== {n} x 20 (+5 privileged), {T} rounds, one thread, best of {repeats}, each fit in a "
          "fresh process that loads the arrays (float64: X and X* take "
          f"{n * 25 * 8 / 2**20:.0f} MiB)")
    print(f"{'fit':30s} {'seconds':>8s} {'trees':>6s} {'ms/tree':>8s} {'peak MiB':>9s} {'above data':>11s}")
    rows = []
    for k, label, trees in (("xgboost", "XGBoost XGBClassifier", T), ("kbpib", "lupikit KbPIB (hist)", 2 * T)):
        s = best[k]["seconds"]
        print(f"{label:30s} {s:8.3f} {trees:6d} {1e3 * s / trees:8.3f} {peak[k] / 1024:9.0f} "
              f"{(peak[k] - data[k]) / 1024:11.0f}")
        rows.append([LABELS[label], _record.sig(s), trees, _record.sig(1e3 * s / trees),
                     round(peak[k] / 1024), round((peak[k] - data[k]) / 1024)])
    record.table("big", f"{_rows(n)} × 20 (+5 privileged), {T} rounds, one thread, best of "
                 f"{repeats}, each fit in a fresh process that loads the arrays",
                 ["fit", "seconds", "trees", "ms per tree", "peak memory (MiB)", "above the data (MiB)"],
                 rows)
    per_tree = (best["kbpib"]["seconds"] / (2 * T)) / (best["xgboost"]["seconds"] / T)
    out = (per_tree, peak["kbpib"] / peak["xgboost"], (peak["kbpib"] - data["kbpib"]) / max(
        peak["xgboost"] - data["xgboost"], 1))
    record.value("big_n", n)
    record.value("big_data_mib", n * 25 * 8 / 2**20)
    record.value("big_kbpib_per_tree_ratio", out[0])
    record.value("big_kbpib_peak_memory_ratio", out[1])
    record.value("big_kbpib_above_data_ratio", out[2])
    return out


def preset_times(record, preset="paper"):
    import papermill

    times = {}
    for name in ("fairness", "experiments"):
        nb = ROOT / "notebooks" / "boosting" / f"{name}.ipynb"
        out = ROOT / "_build" / "runs" / f"bench-{name}-paper.ipynb"
        out.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        papermill.execute_notebook(str(nb), str(out), parameters={"preset": preset, "n_jobs": 2},
                                   kernel_name="python3", cwd=str(nb.parent), progress_bar=False)
        times[name] = time.perf_counter() - t0
        print(f"boosting/{name} --preset {preset} -p n_jobs 2: {times[name]:.0f} s", flush=True)
        record.value(f"{name}_{preset}_seconds", times[name])
    return times


def main():
    global T
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=50_000)
    ap.add_argument("--big", type=int, default=1_000_000, help="rows of the scaling run (0: skip)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-exact", action="store_true", help="do not time engine='exact'")
    ap.add_argument("--presets", action="store_true", help="also time the two paper presets")
    _record.add_arguments(ap)
    args = ap.parse_args()
    record = _record.Record("boosting", "bench_boosting.py", packages=("xgboost", "lightgbm", "scikit-learn"))
    preset = "paper"
    if args.quick:  # every step at a tiny size
        T, args.n_samples, args.big, args.repeats, preset = 20, 2000, 3000, 2, "default"
    print(f"versions: lightgbm {lightgbm.__version__}, xgboost {xgboost.__version__}; "
          f"{os.cpu_count()} cores, {resource.getpagesize()}-byte pages")
    n_test = 1000 if args.quick else 20000
    ref_name, ratios, speedups, custom = per_tree_comparison(args.n_samples, args.repeats,
                                                             args.skip_exact, record, n_test)
    big = big_comparison(args.big, max(1, args.repeats - 1), record) if args.big else None
    presets = preset_times(record, preset) if args.presets else None
    target = {"KbPIB": "≤ 1.3", "JPIB": "≤ 1.3"}
    rows = [[f"{m} per-tree time / faster of LightGBM and XGBoost ({_rows(args.n_samples)} rows)",
             _record.sig(r, 3), target[m]] for m, r in ratios.items()]
    rows += [[f"{'KbPIB' if m == 'kbpib' else 'JPIB'}: exact engine time / histogram engine time "
              f"({_rows(args.n_samples)} rows)", _record.sig(s, 3), "≥ 30"] for m, s in speedups.items()]
    if big:
        rows += [[f"KbPIB per-tree time / XGBoost's own ({_rows(args.big)} rows)", _record.sig(big[0], 3), "≤ 1.3"],
                 [f"KbPIB peak memory / XGBoost's own ({_rows(args.big)} rows)", _record.sig(big[1], 3), "≤ 2"]]
    record.table("ratios", "The ratios and their targets", ["ratio", "measured", "target"], rows)
    record.write(_record.record_dir(args.record_dir, args.quick))
    print("== ratios")
    for lib, r in custom.items():
        print(f"{lib} with the log-loss as a NumPy objective / its built-in log-loss, training time: {r:.2f}")
    for mode, r in ratios.items():
        print(f"{mode} per-tree time / {ref_name} per-tree time at n={args.n_samples}: {r:.2f} (target <= 1.3)")
    for mode, s in speedups.items():
        print(f"{'KbPIB' if mode == 'kbpib' else 'JPIB'} hist engine speed-up over engine='exact': {s:.0f}x "
              "(target >= 30)")
    if big:
        print(f"KbPIB per-tree time / XGBoost per-tree time at n={args.big}: {big[0]:.2f} (target <= 1.3)")
        print(f"KbPIB peak memory / XGBoost peak memory at n={args.big}: {big[1]:.2f} (target <= 2); "
              f"above the data alone: {big[2]:.2f}")
    if presets:
        for name, s in presets.items():
            print(f"boosting/{name} --preset {preset} on 2 cores: {s:.0f} s (target < 180)")


if __name__ == "__main__":
    main()
