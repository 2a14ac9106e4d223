"""Time and peak memory of the ranking bias–variance estimators (docs/rankings.md).

Cormack & Grossman 2019 at TREC 8 size: 129 systems × 50 topics, a reference
and two test collections, B = 1000 bootstrap samples. One collection is a
"pool" (one score per system and topic, with a per-system distortion), the
other a "statistical method" given as 100 qrels samples (the paper's
nt × 100 × ns table: each bootstrap topic takes one sample at random). With
two collections the pairwise table (the paper's Table 3) is computed too:
12 products of two (B, 8256) sign matrices. Scores are generated (seeded),
not evaluated: only :func:`bvtest_cli.analyses.rankings.ranking_accuracy` is timed.

Prints one line: wall and CPU seconds (BLAS threads included), peak resident
memory of the process (and its growth during the call), and the goal (< 5 s
wall, < 1 GiB). Other processes on the machine inflate wall times; the load
average is printed too. Nearly all the time is the 12 float32 matrix
products (2 × 1000 × 1000 × 8256 flops each).

Run: ``python bench/bench_rankings.py [--samples 1000 --systems 129 --topics 50
--collections 2 --qrels-samples 100]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bvtest_cli.analyses.rankings import ranking_accuracy

GOAL_SECONDS = 5.0
GOAL_BYTES = 1 << 30


def peak_rss() -> int:
    """Peak resident set size of this process so far, in bytes (Linux: KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def synthetic(m: int, n: int, collections: int, qrels_samples: int, seed: int = 2019):
    """AP-like scores in [0, 1]: system skill + topic difficulty + noise."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.05, 0.45, m)
    topic = rng.normal(0.0, 0.12, n)
    g = np.clip(skill[:, None] + topic[None] + rng.normal(0, 0.12, (m, n)), 0, 1)
    out = {}
    for c in range(collections):
        if c % 2 == 0:  # a shallow pool: a per-system distortion
            x = np.clip(g * rng.uniform(0.7, 1.1, m)[:, None], 0, 1)
        else:  # a statistical estimate: s noisy samples around G
            x = np.clip(g[None] + rng.normal(0, 0.05, (qrels_samples, m, n)), 0, 1)
        out[f"X{c + 1}"] = x
    return g, out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--systems", type=int, default=129)
    p.add_argument("--topics", type=int, default=50)
    p.add_argument("--collections", type=int, default=2)
    p.add_argument("--qrels-samples", type=int, default=100)
    a = p.parse_args()

    g, cols = synthetic(a.systems, a.topics, a.collections, a.qrels_samples)
    before = peak_rss()
    t0, c0 = time.perf_counter(), time.process_time()
    res = ranking_accuracy(g, cols, reference_name="G", samples=a.samples, seed=1)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = peak_rss()
    ok = seconds < GOAL_SECONDS and peak < GOAL_BYTES
    table = "with" if res.table is not None else "without"
    biases = " ".join(f"{c.name}:|b|={c.accuracy.bias:.4f}" for c in res.collections)
    print(
        f"rankings: {a.systems} systems x {a.topics} topics, reference + {a.collections} "
        f"collection(s) {table} the pairwise table, B={a.samples}: {seconds:.2f} s "
        f"({cpu:.2f} s CPU), "
        f"peak RSS {peak / 2**20:.0f} MiB (+{(peak - before) / 2**20:.0f} MiB in the call); "
        f"goal < {GOAL_SECONDS:g} s, < 1 GiB: {'OK' if ok else 'MISSED'} "
        f"[load {os.getloadavg()[0]:.1f}; {biases}]"
    )


if __name__ == "__main__":
    main()
