"""Timing of random:K grouping (docs/numbers.md): vectorized analyse vs a naive per-repeat loop.

Run: ``PYTHONPATH=. python bench/bench_grouping.py [--m 129 --n 50 --k 10 --repeats 1000]``.
Both sides compute every docs/numbers.md field per repeat and average over the
repeats; the baseline, measured in the same run, loops over repeats in Python
(one permutation, group means and :func:`decompose` per repeat). The script
checks the two agree to 1e-12 and prints both times and their ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bvtest_cli.analyses.decompose import BiasVariance, decompose
from bvtest_cli.analyses.grouping import DEFAULT_SEED, analyse, random_orders
from bvtest_cli.measures.matrix import ScoreMatrix, virtual_target


def naive(values: np.ndarray, k: int, repeats: int, seed: int) -> BiasVariance:
    """Per-repeat Python loop: the baseline (same permutation stream)."""
    xt = virtual_target(values)
    n = values.shape[1]
    orders = random_orders(n, repeats, seed)
    parts = []
    for r in range(repeats):
        groups = [orders[r, s : s + k] for s in range(0, n, k)]
        x = np.stack([values[:, g].mean(axis=1) for g in groups], axis=1)
        t = np.array([xt[g].mean() for g in groups])
        parts.append(decompose(x, t, t.mean()))
    return BiasVariance(
        *(np.stack([getattr(p, f) for p in parts]) for f in BiasVariance.FIELDS)
    ).average(0)


def best_of(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, default=129)
    p.add_argument("--n", type=int, default=50)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--repeats", type=int, default=1000)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()

    values = np.random.default_rng(0).random((a.m, a.n))
    mat = ScoreMatrix(
        "AP", tuple(f"s{i}" for i in range(a.m)), tuple(str(j) for j in range(a.n)), values
    )

    def fast():
        return analyse(
            mat, group=f"random:{a.k}", normalize="none", target="max", repeats=a.repeats
        )

    def slow():
        return naive(values, a.k, a.repeats, DEFAULT_SEED)

    got, ref = fast().bv, slow()
    for f in BiasVariance.FIELDS:
        np.testing.assert_allclose(getattr(got, f), getattr(ref, f), rtol=0, atol=1e-12)

    t_fast = best_of(fast, a.runs)
    t_slow = best_of(slow, a.runs)
    print(f"random:{a.k}, {a.repeats} repeats, {a.m} systems x {a.n} topics (best of {a.runs})")
    print(f"vectorized analyse : {t_fast:8.4f} s")
    print(f"naive repeat loop  : {t_slow:8.4f} s")
    print(f"speed-up           : {t_slow / t_fast:8.1f}x")


if __name__ == "__main__":
    main()
