"""Do the twin-SVM estimators' defaults give competitive models? Not run by CI.

For every estimator of :mod:`lupikit.twinsvm` (the privileged ones fitted
with privileged features from a PCA of ``X``, :class:`PCAPrivilegedClassifier`,
except on the synthetic LUPI data, where the true ``X*`` is passed), linear
and RBF kernels, on standardised data sets (breast cancer, iris, wine, digits
pairs 3/8, 1/7, 4/9 and ``make_lupi_classification``), prints the 5-fold
stratified CV accuracy (``random_state=0``) with the estimator's defaults
beside :class:`sklearn.svm.SVC` with the same kernel and its defaults, and the
difference in accuracy points.

``--grid`` evaluates candidate defaults instead: ``C1 = C2 = C`` (``C`` for
the single-plane estimators) in {0.1, 0.5, 1, 2, 5, 10} and, for the pinball
estimators, ``tau`` in {0.1, 0.2, 0.5}; for each candidate it prints the
worst-case gap to SVC over all data sets, per estimator and kernel.

Run: ``python benchmarks/bench_twinsvm_defaults.py [--grid] [--estimators NAME ...]
[--quick] [--record-dir DIR]``.

The run's record (``_record.py``) is ``results/benchmarks/twinsvm_defaults.json``:
values ``worst_gap`` (points, over every estimator, kernel and data set) and
``worst_gap_<estimator>_<kernel>`` (estimator in lowercase); tables
``accuracy`` and ``worst_gap``. With ``--grid`` it is
``twinsvm_defaults_grid.json``: table ``grid`` (every candidate's worst and
mean gap) and values ``best_worst_gap_<estimator>_<kernel>``. ``--quick``
runs on iris alone (and, with ``--grid``, one candidate per estimator) and
writes its record to a temporary folder.
"""

import argparse
import itertools
import time
import warnings

import _record
import numpy as np
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from lupikit.datasets import make_lupi_classification
from lupikit.twinsvm import (PCAPrivilegedClassifier, PinballSVC, PinballTwinSVC,
                             PrivilegedPinballTwinSVC, PrivilegedTwinSVC, SVMPlus, TwinSVC)

ESTIMATORS = {
    "TwinSVC": TwinSVC,
    "PinballTwinSVC": PinballTwinSVC,
    "PrivilegedTwinSVC": PrivilegedTwinSVC,
    "PrivilegedPinballTwinSVC": PrivilegedPinballTwinSVC,
    "PinballSVC": PinballSVC,
    "SVMPlus": SVMPlus,
}
KERNELS = ["linear", "rbf"]
GRID_C = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0]
GRID_TAU = [0.1, 0.2, 0.5]


def _digits_pair(a, b):
    X, y = load_digits(return_X_y=True)
    keep = (y == a) | (y == b)
    return X[keep], y[keep], None


def datasets():
    """``name -> (X standardised, y, X* or None)``."""
    out = {
        "breast_cancer": load_breast_cancer(return_X_y=True) + (None,),
        "iris": load_iris(return_X_y=True) + (None,),
        "wine": load_wine(return_X_y=True) + (None,),
        "digits_3v8": _digits_pair(3, 8),
        "digits_1v7": _digits_pair(1, 7),
        "digits_4v9": _digits_pair(4, 9),
    }
    X, Xs, y = make_lupi_classification(300, random_state=0)
    out["lupi_synthetic"] = (X, y, StandardScaler().fit_transform(Xs))
    return {k: (StandardScaler().fit_transform(X), y, Xs) for k, (X, y, Xs) in out.items()}


def cv_accuracy(est, X, y, Xs=None, n_splits=5, seed=0):
    """Mean 5-fold stratified CV accuracy; privileged estimators get ``Xs``
    (or PCA features of ``X`` via :class:`PCAPrivilegedClassifier`)."""
    privileged = getattr(est, "_uses_privileged", False)
    scores = []
    for train, test in StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(X, y):
        model = clone(est)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if privileged and Xs is not None:
                model.fit(X[train], y[train], privileged_features=Xs[train])
            elif privileged:
                model = PCAPrivilegedClassifier(model).fit(X[train], y[train])
            else:
                model.fit(X[train], y[train])
        scores.append(np.mean(model.predict(X[test]) == y[test]))
    return float(np.mean(scores))


def _svc_baseline(data):
    return {(name, k): cv_accuracy(SVC(kernel=k), X, y)
            for name, (X, y, _) in data.items() for k in KERNELS}


def _override(cls, overrides):
    params = cls().get_params()
    return {k: v for k, v in overrides.items() if k in params}


def run_defaults(names, data, overrides=None, record=None):
    base = _svc_baseline(data)
    rows = []
    print(f"{'estimator':26s} {'kernel':6s} {'data set':15s} {'ours':>6s} {'SVC':>6s} {'diff':>6s}")
    worst = {}
    for est_name in names:
        for k in KERNELS:
            for name, (X, y, Xs) in data.items():
                cls = ESTIMATORS[est_name]
                acc = cv_accuracy(cls(kernel=k, **_override(cls, overrides or {})), X, y, Xs)
                d = 100 * (acc - base[name, k])
                worst[est_name, k] = min(worst.get((est_name, k), np.inf), d)
                flag = "  <-- gap > 2" if d < -2 else ""
                rows.append([est_name, k, name, round(acc, 3), round(base[name, k], 3), round(d, 1)])
                print(f"{est_name:26s} {k:6s} {name:15s} {acc:6.3f} {base[name, k]:6.3f} "
                      f"{d:+6.1f}{flag}", flush=True)
    if record is not None:
        record.table("accuracy", "5-fold stratified CV accuracy with the defaults, beside SVC "
                     "with the same kernel and its defaults; difference in points",
                     ["estimator", "kernel", "data set", "ours", "SVC", "difference"], rows)
        record.table("worst_gap", "Worst gap to SVC over the data sets (points)",
                     ["estimator", "kernel", "worst gap"],
                     [[e, k, round(d, 1)] for (e, k), d in worst.items()])
        for (e, k), d in worst.items():
            record.value(f"worst_gap_{e.lower()}_{k}", d)
        record.value("worst_gap", min(worst.values()))
    print("\nworst gap to SVC (points):")
    for (est_name, k), d in worst.items():
        print(f"  {est_name:26s} {k:6s} {d:+6.1f}")


def _candidates(cls):
    params = cls().get_params()
    c_names = ["C1", "C2"] if "C1" in params else ["C"]
    taus = GRID_TAU if "tau" in params else (None,)
    for C, tau in itertools.product(GRID_C, taus):
        cand = dict.fromkeys(c_names, C)
        if tau is not None:
            cand["tau"] = tau
        yield cand


def run_grid(names, data, record=None):
    base = _svc_baseline(data)
    rows, best = [], {}
    for est_name in names:
        cls = ESTIMATORS[est_name]
        for k in KERNELS:
            print(f"\n{est_name} kernel={k}: worst gap to SVC over all data sets (points)")
            for cand in _candidates(cls):
                t0 = time.perf_counter()
                gaps = {name: 100 * (cv_accuracy(cls(kernel=k, **cand), X, y, Xs) - base[name, k])
                        for name, (X, y, Xs) in data.items()}
                worst = min(gaps, key=gaps.get)
                desc = ", ".join(f"{p}={v:g}" for p, v in cand.items() if p != "C2")
                rows.append([est_name, k, desc, round(gaps[worst], 1), worst,
                             round(float(np.mean(list(gaps.values()))), 1)])
                best[est_name, k] = max(best.get((est_name, k), -np.inf), gaps[worst])
                print(f"  {desc:18s} worst {gaps[worst]:+6.1f} ({worst}); "
                      f"mean {np.mean(list(gaps.values())):+5.1f}  "
                      f"[{time.perf_counter() - t0:.0f}s]", flush=True)
    if record is not None:
        record.table("grid", "Candidate defaults: worst and mean gap to SVC over the data sets "
                     "(points)", ["estimator", "kernel", "candidate", "worst gap", "worst on",
                                  "mean gap"], rows)
        for (e, k), d in best.items():
            record.value(f"best_worst_gap_{e.lower()}_{k}", d)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="evaluate candidate defaults")
    parser.add_argument("--estimators", nargs="+", default=list(ESTIMATORS),
                        choices=list(ESTIMATORS))
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--kernels", nargs="+", default=["linear", "rbf"],
                        choices=["linear", "rbf"])
    parser.add_argument("--set", nargs="+", default=[], metavar="PARAM=VALUE",
                        help="override defaults in the table (e.g. --set C1=0.5 C2=0.5 "
                             "tau=0.1); ignored by estimators without that parameter")
    _record.add_arguments(parser)
    args = parser.parse_args(argv)
    record = _record.Record("twinsvm_defaults_grid" if args.grid else "twinsvm_defaults",
                            "bench_twinsvm_defaults.py", packages=("scikit-learn",), argv=argv)
    data = datasets()
    if args.quick:
        args.datasets = ["iris"]
        GRID_C[:], GRID_TAU[:] = [1.0], [0.5]
    if args.datasets:
        data = {k: data[k] for k in args.datasets}
    KERNELS[:] = args.kernels
    if args.grid:
        run_grid(args.estimators, data, record)
    else:
        overrides = {k: float(v) for k, v in (item.split("=", 1) for item in args.set)}
        run_defaults(args.estimators, data, overrides, record)
    record.write(_record.record_dir(args.record_dir, args.quick))


if __name__ == "__main__":
    main()
