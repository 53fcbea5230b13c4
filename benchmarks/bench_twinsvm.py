"""Speed targets of Part II (twin SVMs). Not run by CI.

1. ``smo`` vs ``cvxopt`` on the *same* Pin-TWSVMPI dual QPs of a two-class RBF
   problem with 2,000 samples (about 1,000 per class, so each dual has about
   2,000 variables: ``alpha`` and ``beta`` for the ~1,000 points of the other
   class) and privileged features; target: smo at least 5x faster, objectives
   equal to 1e-6 relative.
2. Training time of Pin-TWSVM (``smo``) against scikit-learn's ``SVC``
   (libsvm) on the same data and kernel; aim: within 5x.

All timings run with BLAS limited to one thread (``threadpoolctl``) for
every contender (libsvm itself does not use BLAS): on a shared 2-core machine
a threaded OpenBLAS spin-waits on small matrices and can be many times slower,
which would measure the machine, not the methods. Each time is the median of
several interleaved repeats (smo, cvxopt, smo, cvxopt, ...; Pin-TWSVM, SVC,
...), so that a burst of load from other processes hits both sides; the
ratios are measured side by side in one run and printed last.

3. ``SVMPlus`` and ``PinballSVC`` with their defaults (``solver="smo"``)
   against the same estimators with ``solver="cvxopt"`` and scikit-learn's
   ``SVC``, linear and RBF kernels, on standardised breast cancer, iris and
   wine class pairs and digits pairs 3/8 and 1/7 (``X*``: a PCA of ``X`` or
   its first three columns); target: smo no slower than cvxopt on breast
   cancer, same dual objective (1e-6 relative) and predictions. Each time is
   the median of interleaved repeats (cvxopt, smo, SVC, ...).

Run: ``python benchmarks/bench_twinsvm.py [--part twin|defaults|all] [--quick] [--record-dir DIR]``.

The run's record (``_record.py``) is ``results/benchmarks/twinsvm.json`` for
``--part all`` (the default), ``twinsvm_twin.json`` or ``twinsvm_solvers.json``
for one part. Values of part 1 and 2: ``n_samples``, ``dual_variables`` (the
largest dual's), ``repeats``, ``fit_repeats``, ``cvxopt_smo_time_ratio``,
``max_rel_objective_diff``, ``smo_dual_seconds``, ``cvxopt_dual_seconds``,
``pin_fit_seconds``, ``svc_fit_seconds``, ``pin_svc_time_ratio``; table
``duals``. Of part 3: ``breast_cancer_worst_smo_cvxopt_ratio``,
``defaults_max_rel_objective_diff``, ``defaults_max_pred_diff``; table
``defaults``. ``--quick`` runs every part at a tiny size (200 samples, two
of the problems of part 3, one repeat) and writes its record to a temporary
folder.
"""

import argparse
import time

import _record
import numpy as np
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from lupikit.datasets import make_lupi_classification
from lupikit.twinsvm import PinballTwinSVC, PrivilegedPinballTwinSVC, solve_dual
from lupikit.twinsvm._qp import make_qp


def _copy(qp):
    return make_qp(qp["P"], qp["q"], qp["lo"], qp["hi"], constant=qp["constant"])


def main(n_samples=2000, repeats=3, fit_repeats=7, seed=0, record=None):
    X, Xs, y = make_lupi_classification(n_samples, n_features=10, n_privileged=5,
                                        random_state=seed)
    print(f"data: {n_samples} samples, class sizes {np.bincount(y).tolist()}, "
          f"{X.shape[1]} features, {Xs.shape[1]} privileged; BLAS threads limited to 1")
    with threadpool_limits(limits=1, user_api="blas"):
        est = PrivilegedPinballTwinSVC(tau=0.5).fit(X, y, privileged_features=Xs)
        duals = est.dual_problems_
        m = [qp["q"].size // 2 for qp in duals]
        t_smo, t_cvx, rel, rows = 0.0, 0.0, [], []
        for qp0, mi in zip(duals, m):
            partner = np.r_[np.arange(mi, 2 * mi), np.arange(mi)]
            ts, tc = [], []
            for _ in range(repeats):  # interleaved
                a = _copy(qp0)
                t0 = time.perf_counter()
                solve_dual(a, "smo", tol=1e-6, partner=partner)
                ts.append(time.perf_counter() - t0)
                b = _copy(qp0)
                t0 = time.perf_counter()
                solve_dual(b, "cvxopt")
                tc.append(time.perf_counter() - t0)
            med_s, med_c = float(np.median(ts)), float(np.median(tc))
            t_smo += med_s
            t_cvx += med_c
            rel.append(abs(a["objective"] - b["objective"]) / abs(b["objective"]))
            rows.append([qp0["q"].size, _record.sig(med_s), a["n_iter"], _record.sig(med_c),
                         b["n_iter"], float(f"{rel[-1]:.2g}")])
            print(f"  dual with {qp0['q'].size} variables: smo {med_s:.3f} s "
                  f"({a['n_iter']} it.), cvxopt {med_c:.3f} s ({b['n_iter']} it.), "
                  f"relative objective difference {rel[-1]:.1e} (medians of {repeats})")

        tp, tv = [], []
        for _ in range(fit_repeats):  # interleaved
            t0 = time.perf_counter()
            pin = PinballTwinSVC(tau=0.5, kernel="rbf").fit(X, y)
            tp.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            svc = SVC(kernel="rbf", gamma="scale").fit(X, y)
            tv.append(time.perf_counter() - t0)
        med_p, med_v = float(np.median(tp)), float(np.median(tv))
        print(f"  Pin-TWSVM (smo) fit {med_p:.3f} s (train acc {pin.score(X, y):.3f}); "
              f"SVC fit {med_v:.3f} s (train acc {svc.score(X, y):.3f}) "
              f"(medians of {fit_repeats})")

    if record is not None:
        record.table("duals", f"The two Pin-TWSVMPI duals of {n_samples} samples (medians of "
                     f"{repeats} interleaved repeats, one BLAS thread)",
                     ["variables", "smo (s)", "smo iterations", "cvxopt (s)", "cvxopt iterations",
                      "relative objective difference"], rows)
        for key, v in (("n_samples", n_samples), ("dual_variables", max(r[0] for r in rows)),
                       ("repeats", repeats), ("fit_repeats", fit_repeats),
                       ("cvxopt_smo_time_ratio", t_cvx / t_smo), ("max_rel_objective_diff", max(rel)),
                       ("smo_dual_seconds", t_smo), ("cvxopt_dual_seconds", t_cvx),
                       ("pin_fit_seconds", med_p), ("svc_fit_seconds", med_v),
                       ("pin_svc_time_ratio", med_p / med_v)):
            record.value(key, v)
    return [f"cvxopt/smo time ratio on the Pin-TWSVMPI duals: {t_cvx / t_smo:.1f}x "
            f"(target >= 5x); max relative objective difference {max(rel):.1e} (target <= 1e-6)",
            f"Pin-TWSVM (smo) / sklearn SVC training-time ratio: {med_p / med_v:.1f}x (aim <= 5x)"]


def _pairs():
    """``(name, X standardised, y)`` of the binary problems of part 3."""
    from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
    from sklearn.preprocessing import StandardScaler

    out = []
    X, y = load_breast_cancer(return_X_y=True)
    out.append(("breast_cancer", X, y))
    for name, loader, pairs in (("iris", load_iris, [(0, 1), (0, 2), (1, 2)]),
                                ("wine", load_wine, [(0, 1), (1, 2)]),
                                ("digits", load_digits, [(3, 8), (1, 7)])):
        X, y = loader(return_X_y=True)
        for a, b in pairs:
            keep = (y == a) | (y == b)
            out.append((f"{name} {a}/{b}", X[keep], y[keep]))
    result = []
    for name, X, y in out:
        X = StandardScaler().fit_transform(X)
        result.append((name, X[:, X.std(axis=0) > 0], y))
    return result


def defaults_side_by_side(repeats=3, record=None, quick=False):
    """Part 3: SMO vs cvxopt vs SVC at the estimators' defaults."""
    from sklearn.base import clone

    from lupikit.twinsvm import PCAPrivileged, PinballSVC, SVMPlus

    print("defaults: fit time (s), median of interleaved repeats; rel. objective "
          "(smo - cvxopt) / |cvxopt|, SMO iterations, predictions differing")
    worst_bc, worst_obj, worst_diff, rows = 0.0, 0.0, 0, []
    pairs = _pairs()
    if quick:
        pairs = [pairs[0][:1] + (pairs[0][1][:100], pairs[0][2][:100])] + pairs[1:2]
    with threadpool_limits(limits=1, user_api="blas"):
        for name, X, y in pairs:
            privileged = {"pca": PCAPrivileged().fit_transform(X), "3 columns": X[:, :3]}
            for kernel in ("linear", "rbf"):
                cases = [("PinballSVC", PinballSVC(kernel=kernel), {})]
                cases += [(f"SVMPlus X*={k}", SVMPlus(kernel=kernel),
                           {"privileged_features": v}) for k, v in privileged.items()]
                for label, est, fit in cases:
                    times = {"cvxopt": [], "smo": [], "svc": []}
                    for _ in range(repeats):  # interleaved
                        for solver in ("cvxopt", "smo"):
                            t0 = time.perf_counter()
                            m = clone(est).set_params(solver=solver).fit(X, y, **fit)
                            times[solver].append(time.perf_counter() - t0)
                            if solver == "cvxopt":
                                ref = m
                            else:
                                smo = m
                        t0 = time.perf_counter()
                        SVC(kernel=kernel).fit(X, y)
                        times["svc"].append(time.perf_counter() - t0)
                    med = {k: float(np.median(v)) for k, v in times.items()}
                    o_s = smo.dual_problems_[0]["objective"]
                    o_c = ref.dual_problems_[0]["objective"]
                    rel = (o_s - o_c) / abs(o_c)
                    diff = int((smo.predict(X) != ref.predict(X)).sum())
                    worst_obj = max(worst_obj, abs(rel))
                    worst_diff = max(worst_diff, diff)
                    rows.append([name.replace("_", " "), kernel, label, _record.sig(med["cvxopt"]),
                                 _record.sig(med["smo"]), smo.dual_problems_[0]["n_iter"],
                                 _record.sig(med["svc"]), float(f"{rel:.2g}"), diff])
                    if name == "breast_cancer":
                        worst_bc = max(worst_bc, med["smo"] / med["cvxopt"])
                    print(f"  {name:14s} {kernel:6s} {label:22s} cvxopt {med['cvxopt']:6.3f}  "
                          f"smo {med['smo']:6.3f} ({smo.dual_problems_[0]['n_iter']:5d} it.)  "
                          f"SVC {med['svc']:6.4f}  rel. obj. {rel:+.1e}  pred. diff. {diff}")
    if record is not None:
        record.table("defaults", f"Fit time (s) at the estimators' defaults, median of {repeats} "
                     "interleaved repeats; relative objective (smo - cvxopt) / |cvxopt|; "
                     "predictions differing on the training data",
                     ["data", "kernel", "estimator", "cvxopt (s)", "smo (s)", "smo iterations",
                      "SVC (s)", "relative objective", "predictions differing"], rows)
        record.value("breast_cancer_worst_smo_cvxopt_ratio", worst_bc)
        record.value("defaults_max_rel_objective_diff", worst_obj)
        record.value("defaults_max_pred_diff", worst_diff)
    return [f"breast cancer: worst smo/cvxopt time ratio {worst_bc:.2f} (target <= 1); "
            f"max |rel. objective difference| {worst_obj:.1e} (target <= 1e-6)"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["twin", "defaults", "all"], default="all")
    _record.add_arguments(parser)
    args = parser.parse_args()
    part = args.part
    name = {"all": "twinsvm", "twin": "twinsvm_twin", "defaults": "twinsvm_solvers"}[part]
    record = _record.Record(name, "bench_twinsvm.py", packages=("cvxopt", "scikit-learn"))
    last = []
    if part in ("twin", "all"):
        sizes = dict(n_samples=200, repeats=1, fit_repeats=1) if args.quick else {}
        last += main(record=record, **sizes)
    if part in ("defaults", "all"):
        last += defaults_side_by_side(repeats=1 if args.quick else 3, record=record,
                                      quick=args.quick)
    record.write(_record.record_dir(args.record_dir, args.quick))
    for line in last:  # the ratios, last
        print(line)
