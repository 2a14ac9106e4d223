"""Benchmark of the docs/pertopic.md simulation against a literal draw-and-sort reference.

Builds a seeded synthetic TREC-8-size track in memory (129 runs × 50 topics ×
1000 retrieved documents, with score ties), then times

* ``simulate_ap`` (bvtest_cli.analyses.simulate: O(d) per simulated collection) with
  jobs = 1 and jobs = 2, and
* ``naive_simulate_ap`` below, which literally draws N (score, docno)
  documents per simulated collection and sorts them by trec_eval's rule,

both with k = 100 samples, and checks that the two agree in distribution
(per-pair z-scores of the mean AP, and the eqs. 13–14 averages). Wall and CPU
seconds (this process plus its workers) are printed, with the load average:
other processes on the machine inflate wall times.

If the project's TREC-8-size bench track has been built (``bench/bench.py``
writes it to ``.bench-cache/`` with ``tools/gen_track.py``; denser in
relevant documents: about 110 relevant retrieved per run and topic against
about 45 here), the fast path is also timed on it, reading not included.
The 5 s target is checked on the faster of jobs = 1 / 2 for each track.

Run: ``PYTHONPATH=. python bench/bench_pertopic.py [--quick] [--no-project-track]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from bvtest_cli.analyses.simulate import analyse_samples, relevant_sets
from bvtest_cli.commands.pertopic.build import simulate_ap

LIMIT_SECONDS = 5.0  # the requirement for the fast path on a TREC-8-size track
CACHE = Path(__file__).resolve().parents[1] / ".bench-cache"


def synthetic_track(
    m: int = 129, n: int = 50, depth: int = 1000, seed: int = 2024
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, dict[str, float]]]]:
    """A seeded TREC-like track: (qrels, runs) in the readers' dict formats.

    Each topic has R_q ~ lognormal relevant documents (mean about 90, like
    TREC-8's 4728/50) with grades 1–2, plus judged non-relevant ones. A run has
    a skill; on each topic it retrieves a Binomial(R_q, recall) share of the
    relevant documents and fills up to ``depth`` with non-relevant ones;
    relevant scores ~ N(skill, 1), non-relevant ~ N(0, 1), rounded to 4
    decimals so that some scores tie and docnos must break them.
    """
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    perms: list[np.ndarray] = []
    n_rel: list[int] = []
    for j in range(n):
        big_r = int(np.clip(rng.lognormal(4.2, 0.7), 5, 500))
        perm = rng.permutation(3 * depth + big_r)  # docno numbers unrelated to relevance
        grades = {f"FT{j:03d}-{x:05d}": int(rng.integers(1, 3)) for x in perm[:big_r]}
        grades.update({f"FT{j:03d}-{x:05d}": 0 for x in perm[big_r : big_r + depth]})
        qrels[str(401 + j)] = grades
        perms.append(perm)
        n_rel.append(big_r)
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for i in range(m):
        skill = rng.uniform(0.3, 2.5)
        recall = rng.uniform(0.2, 0.8)
        run: dict[str, dict[str, float]] = {}
        for j in range(n):
            perm, big_r = perms[j], n_rel[j]
            r = min(int(rng.binomial(big_r, recall)), depth)
            rel = rng.choice(big_r, size=r, replace=False)
            non = big_r + rng.choice(len(perm) - big_r, size=depth - r, replace=False)
            scores = np.round(
                np.concatenate((rng.normal(skill, 1.0, r), rng.normal(0.0, 1.0, depth - r))), 4
            )
            # In rank order with fresh strings, as a reader builds it from a run file.
            order = np.argsort(-scores, kind="stable")
            ids = perm[np.concatenate((rel, non))[order]].tolist()
            run[str(401 + j)] = dict(
                zip([f"FT{j:03d}-{x:05d}" for x in ids], scores[order].tolist(), strict=True)
            )
        runs[f"run{i:03d}"] = run
    return qrels, runs


def naive_simulate_ap(
    qrels: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Mapping[str, float]]],
    topics: Sequence[str],
    k: int,
    seed: int,
    rel_level: int = 1,
) -> np.ndarray:
    """The straightforward reference: draw N documents, sort, compute AP (docs/pertopic.md).

    Per (system, topic) and per sample: r_s = min(Poisson(r), N); the first
    r_s slots are drawn with replacement from the retrieved relevant
    documents, the other N − r_s from the retrieved non-relevant ones (slots
    stay empty when there are none); the N simulated (score, docno) pairs are
    sorted by score descending, docno descending; AP with R = r_s + R_q − r.
    Vectorised over the k samples with numpy, but O(N log N) per sample.
    """
    relevant = relevant_sets(qrels, topics, rel_level)
    out = np.zeros((len(runs), len(topics), k))
    for i, run in enumerate(runs.values()):
        for j, (topic, rel) in enumerate(zip(topics, relevant, strict=True)):
            ranking = run.get(topic)
            if not ranking:
                continue
            rng = np.random.default_rng([seed, i, j])
            docnos = np.array(list(ranking))
            scores = np.fromiter(ranking.values(), dtype=float, count=len(docnos))
            is_rel = np.array([d in rel for d in docnos])
            # Tie-break key: position of the docno in descending docno order.
            doc_key = np.empty(len(docnos), dtype=np.int64)
            doc_key[np.argsort(docnos)[::-1]] = np.arange(len(docnos))
            rel_idx, non_idx = np.flatnonzero(is_rel), np.flatnonzero(~is_rel)
            big_n, r = len(docnos), len(rel_idx)
            if r == 0:
                continue
            r_s = np.minimum(rng.poisson(r, size=k), big_n)
            slot = np.arange(big_n)
            from_rel = slot[np.newaxis, :] < r_s[:, np.newaxis]
            pick_rel = rel_idx[rng.integers(0, r, size=(k, big_n))]
            if len(non_idx):
                pick_non = non_idx[rng.integers(0, len(non_idx), size=(k, big_n))]
                present = np.ones((k, big_n), dtype=bool)
            else:
                pick_non = np.zeros((k, big_n), dtype=np.int64)
                present = from_rel
            pick = np.where(from_rel, pick_rel, pick_non)
            sim_score = np.where(present, scores[pick], -np.inf)
            sim_rel = is_rel[pick] & present
            order = np.lexsort((doc_key[pick], -sim_score), axis=-1)
            ranked_rel = np.take_along_axis(sim_rel, order, axis=-1)
            hits = np.cumsum(ranked_rel, axis=-1)
            prec_sum = np.where(ranked_rel, hits / (slot + 1), 0.0).sum(axis=-1)
            big_r = r_s + (len(rel) - r)
            out[i, j] = np.divide(prec_sum, big_r, out=np.zeros(k), where=big_r > 0)
    return out


def consistency(fast: np.ndarray, naive: np.ndarray) -> dict[str, float]:
    """Per-pair z-scores of mean AP (fast vs naive) and summary numbers."""
    k = fast.shape[-1]
    se = np.sqrt((fast.var(axis=-1, ddof=1) + naive.var(axis=-1, ddof=1)) / k)
    diff = fast.mean(axis=-1) - naive.mean(axis=-1)
    ok = se > 0
    z = diff[ok] / se[ok]
    return {
        "pairs": float(ok.sum()),
        "mean_z": float(z.mean()),
        "mean_z2": float((z**2).mean()),
        "max_abs_z": float(np.abs(z).max()),
        "frac_abs_z_gt_3": float((np.abs(z) > 3).mean()),
        "max_abs_mean_diff": float(np.abs(diff).max()),
    }


def timed(fn: Callable[[], np.ndarray]) -> tuple[np.ndarray, float, float]:
    """(result, wall seconds, CPU seconds of this process and its children)."""
    before, t = os.times(), time.perf_counter()
    out = fn()
    wall, after = time.perf_counter() - t, os.times()
    cpu = sum(after[:4]) - sum(before[:4])  # user + system, self + children
    return out, wall, cpu


def project_track() -> Path | None:
    """The project's TREC-8-size bench track (bench/bench.py, tools/gen_track.py), if built."""
    found = sorted(CACHE.glob("track-runs129-topics50-depth1000-*"))
    return found[0] if found else None


def time_files_track(directory: Path, k: int, seed: int) -> dict[str, float]:
    """Fast-path timings on a track written as files (reading is not timed)."""
    from bvtest_cli.io import sources as trecio_sources
    from bvtest_cli.io import trec as trecio

    qrels = trecio.read_qrels(str(directory / "qrels.txt"))
    sources = trecio_sources.expand_sources([str(directory / "runs")])
    runs = {src.name: trecio.read_run(src) for src in sources}
    topics = qrels.relevant_topics(1)
    out = {}
    for jobs in (1, 2):
        _, wall, cpu = timed(
            lambda jobs=jobs: simulate_ap(qrels.qrels, runs, topics, k=k, seed=seed, jobs=jobs)[0]
        )
        out[f"jobs={jobs}"] = wall
        print(f"  fast jobs={jobs}: {wall:6.2f} s wall, {cpu:6.2f} s CPU")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=129)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("-k", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="20 systems (smoke test)")
    parser.add_argument(
        "--no-project-track",
        action="store_true",
        help="skip the extra timing on .bench-cache's TREC-8-size track",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.systems = 20

    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    t0 = time.perf_counter()
    qrels, runs = synthetic_track(args.systems, args.topics, args.depth)
    topics = list(qrels)
    print(
        f"in-memory track: {len(runs)} runs × {len(topics)} topics × {args.depth} docs "
        f"(built in {time.perf_counter() - t0:.1f} s), k = {args.k}"
    )

    timings: dict[str, float] = {}
    cubes: dict[str, np.ndarray] = {}
    for jobs in (1, 2):
        cubes[f"fast{jobs}"], wall, cpu = timed(
            lambda jobs=jobs: simulate_ap(qrels, runs, topics, k=args.k, seed=args.seed, jobs=jobs)[
                0
            ]
        )
        timings[f"fast jobs={jobs}"] = wall
        print(f"  fast jobs={jobs}: {wall:6.2f} s wall, {cpu:6.2f} s CPU")
    cubes["naive"], wall, cpu = timed(
        lambda: naive_simulate_ap(qrels, runs, topics, k=args.k, seed=args.seed + 1)
    )
    timings["naive"] = wall
    print(f"  naive (draw N, sort): {wall:6.2f} s wall, {cpu:6.2f} s CPU")
    for jobs in (1, 2):
        print(f"  naive / fast jobs={jobs}: {timings['naive'] / timings[f'fast jobs={jobs}']:.1f}x")
    same = np.array_equal(cubes["fast1"], cubes["fast2"])
    print(f"  jobs=1 and jobs=2 identical: {same}")

    stats_ = consistency(cubes["fast1"], cubes["naive"])
    print("fast vs naive (independent streams), per (system, topic) mean AP:")
    for key, value in stats_.items():
        print(f"  {key}: {value:.4g}")
    names = list(runs)
    fast_res = analyse_samples(cubes["fast1"], names, topics)
    naive_res = analyse_samples(cubes["naive"], names, topics)
    for field in ("mean_bias2", "mean_var"):
        a, b = getattr(fast_res, field), getattr(naive_res, field)
        rel = np.abs(a - b).max() / np.abs(b).max()
        corr = np.corrcoef(a, b)[0, 1]
        print(f"  {field}: max |diff| / max = {rel:.3f}, Pearson(fast, naive) = {corr:.4f}")
    print(
        f"  tradeoff Pearson: fast {fast_res.tradeoff.pearson:.4f}, "
        f"naive {naive_res.tradeoff.pearson:.4f}"
    )
    # Means of k = 100 draws: |z| > 3 in well under 1% of pairs and E[z²] ≈ 1.
    consistent = stats_["frac_abs_z_gt_3"] < 0.01 and 0.8 < stats_["mean_z2"] < 1.25
    best = min(timings["fast jobs=1"], timings["fast jobs=2"])

    directory = None if args.no_project_track else project_track()
    if directory is not None:
        print(f"project track {directory.name} (files; reading not timed):")
        best = max(best, min(time_files_track(directory, args.k, args.seed).values()))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    fast_ok = best <= LIMIT_SECONDS or args.quick
    print(
        f"statistically consistent: {consistent}; "
        f"fast path within {LIMIT_SECONDS:.0f} s wall: {fast_ok}"
    )
    return 0 if consistent and same and fast_ok else 1


if __name__ == "__main__":
    sys.exit(main())
