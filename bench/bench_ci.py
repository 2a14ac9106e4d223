"""Cost of topic-bootstrap intervals (docs/uncertainty.md) for every field on a TREC-8-size pool.

Run: ``python bench/bench_ci.py [--B 1000 10000] [--baseline] [--compare] [--repeat 3]``.

A synthetic pool of 129 runs x 50 topics and 3 measures (scores in [0, 1],
seeded) stands for ``bvtest eval``'s three default measures. For each B and
each interval method, a fresh child process computes the intervals of every
field of the registry (:func:`bvtest_cli.sections.matrix.registry_statistic`, what
``bvtest eval --ci`` bootstraps: the docs/numbers.md and §8 fields, 4 alphas; with
``--baseline`` also URisk, TRisk and ZRisk against one run) for the three
measures, and reports:

* wall and cpu: seconds spent in the three ``bootstrap_intervals`` calls
  (imports and data generation excluded: this is what ``--ci`` would add to
  an eval); single-threaded, so cpu ≈ wall on an idle machine, and cpu is
  the better figure when other processes share the cores;
  ``bench/bench.py --extras`` also times the whole ``bvtest eval --ci``;
* peak RSS: ``getrusage(RUSAGE_SELF).ru_maxrss`` of the child, i.e. the
  interpreter, numpy and the data (the "before" column) plus the bootstrap.

The goal: B = 1000 adds < 2 s; memory stays < 1 GiB. The working
set of one block of resamples is bounded (``BLOCK_ELEMENTS``); the stored
replicates grow as 8 · B · (number of values) bytes per measure — about 24 KB
per resample for 129 runs and 4 alphas, so 230 MiB at B = 10000.
``--compare`` adds ``compare_runs`` over every pair of the 129 runs (8256
pairs, mean/var/mse/GeoRisk at 4 alphas) on one measure, at B = 1000 only:
its paired randomization test costs B relabellings of every pair (about
half a minute here), on top of the intervals.

``--bounded B1 B2`` shows that memory does not grow with B once the
replicates no longer fit the budget (``--memory MIB``, 32 by default, as
``--ci-memory``; beyond it they are streamed in passes, not stored): every
field, percentile, at both B; the goal is a peak RSS at B2 within 10 % of
that at B1, and under 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
M, N, MEASURES = 129, 50, 3
ALPHAS = (0.0, 1.0, 5.0, 10.0)
TARGET_WALL, TARGET_RSS_MIB = 2.0, 1024.0


def pool(seed: int):
    """Three (m, n) score matrices shaped like AP / nDCG@10 / ERR@20: run effects,
    topic difficulty, many zeros."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(MEASURES):
        run = rng.normal(0.0, 0.08, (M, 1))
        topic = rng.normal(0.0, 0.15, (1, N))
        x = np.clip(rng.beta(1.5, 3.0, (M, N)) + run + topic, 0.0, 1.0)
        x[rng.random((M, N)) < 0.08] = 0.0
        out.append(x)
    return out


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(task: str, B: int, method: str, baseline: bool, repeat: int, memory: int) -> None:
    sys.path.insert(0, str(REPO))
    import numpy as np

    from bvtest_cli.analyses.paired import CompareSpec, compare_runs
    from bvtest_cli.analyses.uncertainty import bootstrap_intervals
    from bvtest_cli.commands.compare.build import COMPARED
    from bvtest_cli.report import registry
    from bvtest_cli.sections.matrix import registry_statistic

    matrices = pool(20240101)
    before = rss_mib()
    alphas = np.array(ALPHAS)
    # What `bvtest eval --ci` bootstraps: every registry field, the correlations.
    statistic = registry_statistic(
        registry.system_fields(baseline),
        target="max",
        normalized=False,
        alphas=alphas,
        baseline=0 if baseline else None,
    )
    paired = registry_statistic(
        COMPARED, target="max", normalized=False, alphas=alphas, baseline=None
    )

    names = [f"run{i:03d}" for i in range(M)]
    budget = memory * (1 << 20) // 8  # MiB → float64 elements, as --ci-memory
    walls, cpus = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        if task == "fields":
            for x in matrices:
                bootstrap_intervals(x, statistic, B=B, seed=1, method=method, budget=budget)
        else:
            compare_runs(
                matrices[0],
                names,
                statistic=paired,
                spec=CompareSpec(alphas=ALPHAS, B=B, seed=1, method=method, budget=budget),
            )
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    print(json.dumps({"wall": min(walls), "cpu": min(cpus), "rss": rss_mib(), "before": before}))


def run_child(
    task: str, B: int, method: str, baseline: bool, repeat: int, memory: int = 256
) -> dict:
    cmd = [sys.executable, __file__, "--child", task, "--B", str(B), "--method", method]
    cmd += ["--repeat", str(repeat), "--memory", str(memory)]
    if baseline:
        cmd.append("--baseline")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--B", type=int, nargs="+", default=[1000, 10000])
    p.add_argument("--methods", nargs="+", default=["percentile", "bca", "studentized"])
    p.add_argument("--baseline", action="store_true", help="also the baseline fields")
    p.add_argument("--compare", action="store_true", help="also every pair of runs")
    p.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    p.add_argument("--bounded", type=int, nargs=2, metavar=("B1", "B2"), help="memory at B1, B2")
    p.add_argument("--memory", type=int, default=None, help="replicate budget, MiB")
    p.add_argument("--child", choices=["fields", "compare"], help=argparse.SUPPRESS)
    p.add_argument("--method", default="percentile", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        child(a.child, a.B[0], a.method, a.baseline, a.repeat, a.memory or 256)
        return

    fields = "every field" + (" (with a baseline)" if a.baseline else "")
    print(f"bootstrap intervals, {M} runs x {N} topics x {MEASURES} measures, {len(ALPHAS)} alphas")
    print(
        f"best of {a.repeat}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
        "(wall time grows with it)"
    )
    print(f"{'task':<44} {'B':>6} {'wall s':>7} {'cpu s':>7} {'peak RSS MiB':>13} {'before':>7}")
    rows = [("fields", B, m) for B in a.B for m in a.methods]
    if a.compare:  # its randomization test costs B x pairs: B = 1000 only
        rows += [("compare", B, m) for B in a.B if B <= 1000 for m in a.methods]
    for task, B, method in rows:
        r = run_child(task, B, method, a.baseline, a.repeat)
        label = (
            f"{fields}, {method}" if task == "fields" else f"all {M * (M - 1) // 2} pairs, {method}"
        )
        print(
            f"{label:<44} {B:>6} {r['wall']:>7.2f} {r['cpu']:>7.2f} {r['rss']:>13.0f} "
            f"{r['before']:>7.0f}"
        )
    print(f"goal: B = 1000 adds < {TARGET_WALL:g} s; peak RSS < {TARGET_RSS_MIB:g} MiB")
    if a.bounded:
        memory = a.memory or 32
        print(f"\nmemory whatever B: replicates streamed beyond --ci-memory {memory} MiB")
        peaks = []
        for B in a.bounded:
            r = run_child("fields", B, "percentile", a.baseline, 1, memory)
            peaks.append(r["rss"])
            print(
                f"{'every field, percentile, streamed':<44} {B:>6} {r['wall']:>7.2f} "
                f"{r['cpu']:>7.2f} {r['rss']:>13.0f} {r['before']:>7.0f}"
            )
        good = peaks[1] <= 1.1 * peaks[0] and max(peaks) <= TARGET_RSS_MIB
        print(
            f"peak RSS at B = {a.bounded[1]} / at B = {a.bounded[0]}: {peaks[1] / peaks[0]:.2f} "
            f"(goal <= 1.10, and < {TARGET_RSS_MIB:g} MiB): {'PASS' if good else 'MISS'}"
        )


if __name__ == "__main__":
    main()
