"""Timing of the paired tests over all pairs of m runs × n topics (defaults 129 × 50).

Run: ``PYTHONPATH=. python bench/bench_significance.py [--m 129 --n 50 --seed 0 --decimals 2]``.
The score matrix is seeded: system effects spread so that some pairs differ
clearly and many do not, topic effects and noise, scores rounded to 1/100
(``--decimals``; -1 keeps them continuous, as AP's) and clipped to [0, 1]
(ties and zero differences, as with P@k or nDCG@k on short lists), and a
few runs repeated exactly (pairs of identical runs).
Prints the time of each test on all k = m(m − 1)/2 pairs with default
settings, and for the randomization test how many pairs were exact,
settled by the bound alone, drawn, unresolved and significant.
"""

from __future__ import annotations

import argparse
import os
import time

# one core: BLAS must not spread the products over threads (set before numpy loads)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from bvtest_cli.analyses.significance import (  # noqa: E402
    bootstrap_test,
    randomization_test,
    sign_test,
    t_test,
    wilcoxon_test,
)


def scores(m: int, n: int, seed: int, decimals: int = 2) -> np.ndarray:
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    system = rng.normal(0.0, 0.04, m)
    topic = rng.normal(0.0, 0.15, n)
    x = 0.35 + system[:, None] + topic[None, :] + rng.normal(0.0, 0.12, (m, n))
    x = np.clip(np.round(x, decimals) if decimals >= 0 else x, 0.0, 1.0)
    copies = rng.choice(m, size=m // 20, replace=False)
    x[copies[1:]] = x[copies[0]]  # identical runs: all-zero differences
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--m", type=int, default=129)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--decimals", type=int, default=2, help="round scores to this many decimals (-1: not)"
    )
    args = parser.parse_args()
    x = scores(args.m, args.n, args.seed, args.decimals)
    ia, ib = np.triu_indices(args.m, k=1)
    d = x[ia] - x[ib]
    print(f"{args.m} runs × {args.n} topics: {len(d)} pairs")
    for name, test in [
        ("t", t_test),
        ("wilcoxon", wilcoxon_test),
        ("sign", sign_test),
        ("bootstrap (B=1000)", bootstrap_test),
    ]:
        t0, c0 = time.perf_counter(), time.process_time()
        test(d)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"  {name:20s} {wall:7.3f} s wall {cpu:7.3f} s cpu")
    t0, c0 = time.perf_counter(), time.process_time()
    r = randomization_test(d)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    mc = ~r.exact & (r.resamples > 0)
    print(f"  {'randomization':20s} {wall:7.3f} s wall {cpu:7.3f} s cpu")
    print(
        f"    exact {int(r.exact.sum())}, bound alone {int((~r.exact & (r.resamples == 0)).sum())},"
        f" drawn {int(mc.sum())} (max {int(r.resamples.max())} resamples,"
        f" total {int(r.resamples.sum())}), unresolved {len(r.unresolved)},"
        f" significant {int(r.significant[:, 0].sum())} (Holm, .05)"
    )


if __name__ == "__main__":
    main()
