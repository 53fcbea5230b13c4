"""Speed of KbPIB/JPIB per tree against scikit-learn's GradientBoostingClassifier.

Setting of issue 6: 20 000 x 20 synthetic data with 5 privileged features
(``make_lupi_classification``), 200 trees of depth 3, learning rate 0.1.
KbPIB fits 200 teacher trees on X* and 200 student trees on X; JPIB fits 200
trees on X and 200 on X*; both therefore count 400 trees. The target is a
per-tree fit time at most 1.3x that of ``GradientBoostingClassifier``.

The estimators are timed round-robin, ``--repeats`` rounds, and the best
time of each is kept, so that all ratios share the machine's load even when
it drifts during the run. ``--all`` adds gradient-leaf variants and the
soft-label baseline. Run::

    python benchmarks/bench_boosting.py [--n-samples 20000] [--repeats 3] [--all]

The last lines printed are the ratios.
"""

import argparse
import time

from sklearn.ensemble import GradientBoostingClassifier

from lupikit.boosting import PrivilegedBoostingClassifier, SoftLabelBoostingClassifier
from lupikit.datasets import make_lupi_classification


def fit_time(make, fit_kw, X, y):
    est = make()
    t0 = time.perf_counter()
    est.fit(X, y, **fit_kw)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=20000)
    ap.add_argument("--n-estimators", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--all", action="store_true", help="also time the variants")
    args = ap.parse_args()
    X, Xs, y = make_lupi_classification(args.n_samples, 20, 5, random_state=0)
    T = args.n_estimators
    common = dict(n_estimators=T, learning_rate=0.1, max_depth=3, random_state=0)
    priv = {"privileged_features": Xs}
    runs = {
        "sklearn GBC": (lambda: GradientBoostingClassifier(**common), {}, T),
        "NF (newton)": (lambda: PrivilegedBoostingClassifier(mode="nf", **common), {}, T),
        "KbPIB (newton)": (lambda: PrivilegedBoostingClassifier(mode="kbpib", **common), priv, 2 * T),
        "JPIB (newton)": (lambda: PrivilegedBoostingClassifier(mode="jpib", **common), priv, 2 * T),
    }
    extra = {
        "KbPIB (gradient leaves)": (
            lambda: PrivilegedBoostingClassifier(mode="kbpib", leaf_values="gradient", **common),
            priv, 2 * T),
        "JPIB (gradient leaves)": (
            lambda: PrivilegedBoostingClassifier(mode="jpib", leaf_values="gradient", **common),
            priv, 2 * T),
        "soft labels (GBC teacher)": (lambda: SoftLabelBoostingClassifier(**common), priv, 2 * T),
    }
    if args.all:
        runs.update(extra)
    times = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, (make, kw, _n) in runs.items():
            times[name].append(fit_time(make, kw, X, y))
    per_tree = {}
    print(f"data: {X.shape[0]} x {X.shape[1]} regular + {Xs.shape[1]} privileged, "
          f"{T} iterations of depth-3 trees, best of {args.repeats} round-robin rounds")
    print(f"{'estimator':28s} {'fit [s]':>8s} {'trees':>6s} {'ms/tree':>8s}")
    for name, (_make, _kw, n_trees) in runs.items():
        t = min(times[name])
        per_tree[name] = t / n_trees
        print(f"{name:28s} {t:8.3f} {n_trees:6d} {1e3 * t / n_trees:8.3f}")
    ref = per_tree["sklearn GBC"]
    gbc = min(times["sklearn GBC"])
    print(f"whole fit / sklearn GBC fit: KbPIB {min(times['KbPIB (newton)']) / gbc:.3f}, "
          f"JPIB {min(times['JPIB (newton)']) / gbc:.3f} (teacher trees included)")
    print(f"NF per-tree time / sklearn GBC per-tree time:    {per_tree['NF (newton)'] / ref:.3f}")
    print(f"KbPIB per-tree time / sklearn GBC per-tree time: {per_tree['KbPIB (newton)'] / ref:.3f} (target <= 1.3)")
    print(f"JPIB per-tree time / sklearn GBC per-tree time:  {per_tree['JPIB (newton)'] / ref:.3f} (target <= 1.3)")


if __name__ == "__main__":
    main()
