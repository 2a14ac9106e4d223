"""Cost of the sensitivity analyses on a TREC-8-size pool (129 runs x 50 topics).

Run: ``PYTHONPATH=. python bench/bench_sensitivity.py [--m 129 --n 50 --repeat 3 --tukey]``.

A synthetic AP-like matrix (run effects, topic difficulty, many zeros;
seeded) stands for one measure. With the defaults of each function it times

* :func:`delta_needed` (the paired bootstrap test of every pair, B = 1000,
  with its ASLs) followed by :func:`discriminative_power` of those ASLs;
* :func:`swap_rates` (sizes 5, 10, …, n // 2; 50 draws each) and
  :func:`fit_swap_extrapolation`;

and prints the best wall and cpu seconds of ``--repeat`` runs of each and
their total: the goal is ≤ 20 s for the three together. ``--tukey`` adds
:func:`randomised_tukey` (B = 5000) and :func:`tukey_hsd` without p-values
(scipy's studentized range takes ≈ 13 ms per p-value, over a minute for the
8256 pairs of 129 runs, so they are left out of the timing).
Imports and data generation are not timed.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bvtest_cli.analyses.anova import randomised_tukey, tukey_hsd
from bvtest_cli.analyses.sensitivity import (
    delta_needed,
    discriminative_power,
    fit_swap_extrapolation,
    swap_rates,
)

GOAL_SECONDS = 20.0
LEVELS = (0.01, 0.05, 0.1)


def pool(m: int, n: int, seed: int) -> np.ndarray:
    """An (m, n) matrix of AP-like scores in [0, 1]."""
    rng = np.random.default_rng(seed)
    run = rng.normal(0.0, 0.08, (m, 1))
    topic = rng.normal(0.0, 0.15, (1, n))
    x = np.clip(rng.beta(1.5, 3.0, (m, n)) + run + topic, 0.0, 1.0)
    x[rng.random((m, n)) < 0.08] = 0.0
    return x


def timed(fn, runs: int):
    """(result, best wall seconds, best cpu seconds) over ``runs`` calls."""
    walls, cpus = [], []
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return out, min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--m", type=int, default=129)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tukey", action="store_true", help="also time the Tukey HSD tests")
    args = parser.parse_args()
    x = pool(args.m, args.n, args.seed)
    pairs = args.m * (args.m - 1) // 2
    print(f"{args.m} runs x {args.n} topics, {pairs} pairs; best of {args.repeat}")

    rows = []
    delta, wall, cpu = timed(lambda: delta_needed(x), args.repeat)
    rows.append(("delta_needed (B=1000)", wall, cpu))
    power, wall, cpu = timed(lambda: discriminative_power(delta.p, LEVELS), args.repeat)
    rows.append(("discriminative_power", wall, cpu))
    swaps, wall, cpu = timed(lambda: swap_rates(x), args.repeat)
    rows.append(("swap_rates (50 draws)", wall, cpu))
    fit, wall, cpu = timed(lambda: fit_swap_extrapolation(swaps, args.n), args.repeat)
    rows.append(("fit_swap_extrapolation", wall, cpu))
    total_wall = sum(r[1] for r in rows)
    total_cpu = sum(r[2] for r in rows)
    if args.tukey:
        tukey, wall, cpu = timed(lambda: randomised_tukey(x), args.repeat)
        rows.append(("randomised_tukey (B=5000)", wall, cpu))
        hsd, wall, cpu = timed(lambda: tukey_hsd(x, with_p=False), args.repeat)
        rows.append(("tukey_hsd (no p)", wall, cpu))

    for name, wall, cpu in rows:
        print(f"  {name:<28} wall {wall:7.3f} s   cpu {cpu:7.3f} s")
    verdict = "ok" if total_wall <= GOAL_SECONDS else "OVER"
    print(
        f"  {'sensitivity total':<28} wall {total_wall:7.3f} s   cpu {total_cpu:7.3f} s"
        f"   (goal ≤ {GOAL_SECONDS:.0f} s: {verdict})"
    )
    print(
        f"discriminative power at {LEVELS}: {np.round(power, 3).tolist()}; "
        f"estimated difference required {delta.delta:.4f} "
        f"(observed-sd variant {delta.delta_observed_sd:.4f})"
    )
    c = swaps["c"].max()
    last = swaps[swaps["c"] == c][:3]
    first = [(round(float(r["bin_lo"]), 2), round(float(r["swap_rate"]), 3)) for r in last]
    print(f"swap rate at c={c}, first bins (bin_lo, rate): {first}")
    print(f"extrapolated to n={args.n}, first bins: {np.round(fit['predicted'][:3], 4).tolist()}")
    if args.tukey:
        print(
            f"randomised Tukey: {np.mean(tukey < 0.05):.3f} of pairs at p < .05; "
            f"Tukey HSD: {np.mean(hsd.q > hsd.q_crit):.3f} of pairs with q > q_crit"
        )


if __name__ == "__main__":
    main()
