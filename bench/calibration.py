"""Calibration of bvtest's intervals, tests and standard errors: a simulation with a known truth.

Run: ``make calibration`` (``python bench/calibration.py [--replicates R] [--jobs J]``).

The world: per-topic scores of m runs tied by a shared topic factor (a
Gaussian copula: z_it = √ρ u_t + √(1 − ρ) e_it, x_it = F_i⁻¹(Φ(z_it)) with
F_i a Beta distribution), in two shapes: *symmetric* (Beta around 0.5) and
*skewed* (AP-like: most topics low, a long right tail). The virtual target is
the per-topic maximum, as in ``bvtest eval``. Each field's truth is its value
on 2 million simulated topics (its Monte-Carlo error is far below the
intervals' widths). ZRisk sums over topics, so its truth at n topics is n/N
times its value on the N simulated ones.

Reported, each with its Monte-Carlo standard error √(p(1 − p)/R):

- coverage of the 95 % interval of every per-run field of ``eval --ci``
  (``--ci-method auto``, the default: each field's own method; and each
  method for every field), at n = 25, 50, 100;
- ``compare``: type-I error at .05 of each test on 5 exchangeable runs (every
  null true) — every field's randomization test and each ``--test`` of the
  mean (t, wilcoxon, sign, bootstrap, tukey, randomised-tukey) — the
  family-wise error over the 10 pairs (Holm's; Tukey's own), the rate of
  p < .005 (the tail a correction uses), and power against a run shifted up;
- ``rankings`` with a test collection identical to the reference (X = G,
  b = 0): the share of replicates with |bias| > 2 se_bias (≈ .05 if se is right);
- sampled judgments (``--sampling-only`` runs this part alone): on repeated
  pps samples of one collection, the sampling variance of statAP and xinfAP
  against the variance over samples, the coverage of mean ± 1.96 se_sampling
  of the full-judgment MAP over the same topics, and of the combined
  intervals (the topic bootstrap of ``eval --ci``) of the topics' mean;
- ``check``'s test gates (``--gates-only`` runs this part alone): how often a
  run exactly δ worse than the pool run passes ``mean>=RUN~δ`` (at most α) and
  how often an equal run does (the one-sided t test's power).
- PPI (``--ppi-only`` runs this part alone): coverage of the 95 % intervals
  of ``judges``' prediction-powered means (:func:`~bvtest_cli.analyses.assessors.ppi.ppi_mean`,
  PPI++ with λ tuned and plain PPI with λ = 1; normal and t), of N = 100
  topics drawn from a population of topics of known mean, n of them judged
  by humans and all by a biased, noisy automatic judge.

Every number comes from bvtest's own functions (the registry statistic,
``bootstrap_intervals``, ``compare_runs``, ``ranking_accuracy``), the ones
the command line uses. ``tests/test_calibration.py`` runs a small version.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bvtest_cli.analyses.paired import CompareSpec, TestSpec, compare_runs, mean_test
from bvtest_cli.analyses.rankings import ranking_accuracy
from bvtest_cli.analyses.uncertainty import bootstrap_intervals
from bvtest_cli.report import registry as r
from bvtest_cli.report.registry import interval_methods
from bvtest_cli.sections.matrix import registry_statistic

ALPHAS = np.array([0.0, 1.0, 5.0, 10.0])
#: The fields with an interval whose estimand is a property of the topic population.
FIELDS = (r.MEAN, r.BIAS2, r.VAR, r.MSE, r.VAR_RHO, r.VAR_TARGET, r.COV_TARGET, r.ZRISK,
          r.GEORISK, r.ZRISK_TARGET)  # fmt: skip
#: The tradeoff correlations across the runs (their truth: the correlation of
#: the runs' true Bias² and Var).
CORRELATIONS = (r.PEARSON, r.SPEARMAN)
#: Sums over topics: the truth at n topics is n / N times the value on N.
SUMS = {r.ZRISK.name, r.ZRISK_TARGET.name}
RHO = 0.5
SHAPES = {
    # (a, b) of each run's Beta margin
    "symmetric": ((6.0, 6.0), (5.0, 6.0), (6.0, 5.0), (4.0, 4.0)),
    "skewed": ((0.9, 2.6), (1.1, 2.6), (0.8, 2.2), (1.2, 3.0)),
}
NULL_RUNS = 5  # compare: 5 exchangeable runs, 10 pairs
COMPARED = (r.MEAN, r.VAR, r.MSE, r.GEORISK)
#: compare's other tests of the mean difference (--test), beside the default.
MEAN_TESTS = ("t", "wilcoxon", "sign", "bootstrap", "tukey", "randomised-tukey")


def scores(rng: np.random.Generator, shape: str, reps: int, n: int,
           margins: tuple | None = None) -> np.ndarray:  # fmt: skip
    """(reps, m, n) simulated per-topic scores."""
    from scipy.special import betaincinv, ndtr

    params = margins if margins is not None else SHAPES[shape]
    m = len(params)
    u = rng.standard_normal((reps, 1, n))
    e = rng.standard_normal((reps, m, n))
    z = math.sqrt(RHO) * u + math.sqrt(1 - RHO) * e
    a = np.array([p[0] for p in params])[:, None]
    b = np.array([p[1] for p in params])[:, None]
    return betaincinv(a, b, ndtr(z))


def statistic():
    return registry_statistic(FIELDS, target="max", normalized=False, alphas=ALPHAS, baseline=None)


def truths(shape: str, topics: int = 2_000_000, seed: int = 1) -> dict[str, np.ndarray]:
    """Every field on ``topics`` simulated topics (per topic, for sums)."""
    x = scores(np.random.default_rng(seed), shape, 1, topics)[0]
    wanted = {f.name for f in (*FIELDS, *CORRELATIONS)}
    out = {k: np.asarray(v) for k, v in statistic()(x).items() if k in wanted}
    for name in SUMS:
        out[name] = out[name] / topics
    return out


@dataclass(frozen=True)
class Task:
    kind: str
    shape: str
    n: int
    reps: int
    seed: int
    method: str = "auto"
    B: int = 1000


def coverage_task(task: Task) -> dict[str, tuple[int, int, int]]:
    """(covered, truth above, cells) per field over ``task.reps`` replicates."""
    truth = TRUTHS[task.shape]
    rng = np.random.default_rng(task.seed)
    x = scores(rng, task.shape, task.reps, task.n)
    st = statistic()
    out: dict[str, tuple[int, int, int]] = {}
    for start in range(0, task.reps, 25):
        part = x[start : start + 25]
        iv = bootstrap_intervals(
            part, st, B=task.B, seed=task.seed + start, method=interval_methods(task.method, FIELDS)
        )
        for f in (*FIELDS, *CORRELATIONS):
            t = truth[f.name] * (task.n if f.name in SUMS else 1)
            lo, hi = iv[f.name].lo, iv[f.name].hi
            ok = np.isfinite(lo) & np.isfinite(hi)
            covered = int(((lo <= t) & (t <= hi) & ok).sum())
            above = int(((t > hi) & ok).sum())
            c, a, total = out.get(f.name, (0, 0, 0))
            out[f.name] = (c + covered, a + above, total + int(ok.sum()))
    return out


def tests_task(task: Task) -> dict[str, np.ndarray]:
    """p-values of every compare test on ``task.reps`` null (or shifted) worlds:
    name → (reps, pairs) for p and Holm's p, and Pitman–Morgan's."""
    rng = np.random.default_rng(task.seed)
    base = SHAPES[task.shape][0]
    margins = (base,) * NULL_RUNS
    if task.kind == "power":  # run 0 better: its Beta shifted up
        margins = ((base[0] * 1.35, base[1]),) + (base,) * (NULL_RUNS - 1)
    x = scores(rng, task.shape, task.reps, task.n, margins)
    systems = [f"r{i}" for i in range(NULL_RUNS)]
    st = registry_statistic(
        (r.MEAN, r.VAR, r.MSE, r.GEORISK), target="max", normalized=False,
        alphas=ALPHAS, baseline=None,
    )  # fmt: skip
    out: dict[str, list] = {}
    ia, ib = np.triu_indices(NULL_RUNS, k=1)
    for i in range(task.reps):
        methods = interval_methods("auto", COMPARED, paired=True)
        spec = CompareSpec(alphas=("0", "1", "5", "10"), B=task.B, seed=task.seed + i,
                           method=methods)  # fmt: skip
        rows = compare_runs(x[i], systems, None, statistic=st, spec=spec).rows
        for row in rows:
            out.setdefault(f"{row.field}:covers", []).append(row.lo <= 0 <= row.hi)
            out.setdefault(f"{row.field}:p", []).append(row.p)
            out.setdefault(f"{row.field}:p_adj", []).append(row.p_adj)
            if row.p_pm is not None:
                out.setdefault("var(pitman-morgan):p", []).append(row.p_pm)
                out.setdefault("var(pitman-morgan):p_adj", []).append(row.p_pm_adj)
        # every other --test of the mean (the rows above are randomization's);
        # Tukey's p is family-wise already: its p_adj is its p
        for test in MEAN_TESTS:
            t = mean_test(x[i], ia, ib, TestSpec(test, "holm", (0.05,), task.B, task.seed + i))
            out.setdefault(f"mean[{test}]:p", []).extend(t.p)
            out.setdefault(f"mean[{test}]:p_adj", []).extend(t.p_adj)
    return {k: np.array(v, dtype=float).reshape(task.reps, -1) for k, v in out.items()}


def rankings_task(task: Task) -> tuple[int, int]:
    """(replicates with |bias| > 2 se_bias, replicates) with X = G."""
    rng = np.random.default_rng(task.seed)
    margins = tuple((a * (1 + 0.08 * i), b) for i, (a, b) in enumerate(SHAPES[task.shape] * 2))
    x = scores(rng, task.shape, task.reps, task.n, margins)
    hits = 0
    for i in range(task.reps):
        res = ranking_accuracy(x[i], {"X": x[i].copy()}, samples=task.B, seed=task.seed + i)
        acc = res.collections[0].accuracy
        hits += int(abs(acc.bias) > 2 * acc.se_bias)
    return hits, task.reps


TRUTHS: dict[str, dict[str, np.ndarray]] = {}


def _init(truths: dict) -> None:
    TRUTHS.update(truths)


def run(task: Task):
    fn = {"coverage": coverage_task, "null": tests_task, "power": tests_task,
          "rankings": rankings_task}[task.kind]  # fmt: skip
    return task, fn(task)


def split(kind: str, shape: str, n: int, reps: int, seed: int, chunk: int, **kw) -> list[Task]:
    return [
        Task(kind, shape, n, min(chunk, reps - s), seed + 1000 * s, **kw)
        for s in range(0, reps, chunk)
    ]


def mc(p: float, reps: int) -> float:
    return math.sqrt(max(p * (1 - p), 1e-12) / max(reps, 1))


def study(replicates: int, jobs: int, ns=(25, 50, 100),
          methods=("auto", "studentized", "bca", "percentile"),
          shapes=tuple(SHAPES), test_reps: int | None = None, rank_reps: int | None = None,
          B: int = 1000, out=print) -> dict:  # fmt: skip
    """Run the whole study; print its tables; return the figures."""
    started = time.time()
    truths_by_shape = {shape: truths(shape) for shape in shapes}
    tasks: list[Task] = []
    for shape in shapes:
        for n in ns:
            for method in methods:
                tasks += split("coverage", shape, n, replicates, 11, 100, method=method, B=B)
    test_reps = test_reps or max(replicates // 2, 1)
    for shape in shapes:
        tasks += split("null", shape, 50, test_reps, 21, 25, B=B)
        tasks += split("power", shape, 50, max(test_reps // 2, 1), 31, 25, B=B)
    rank_reps = rank_reps or max(replicates // 4, 1)
    tasks += split("rankings", "skewed", 50, rank_reps, 41, 25, B=B)
    results: list = []
    if jobs > 1:
        with ProcessPoolExecutor(jobs, initializer=_init, initargs=(truths_by_shape,)) as pool:
            results = list(pool.map(run, tasks))
    else:
        _init(truths_by_shape)
        results = [run(t) for t in tasks]
    figures: dict = {"coverage": {}, "tests": {}, "rankings": None}
    for task, res in results:
        if task.kind == "coverage":
            key = (task.shape, task.n, task.method)
            acc = figures["coverage"].setdefault(key, {})
            for name, (c, a, total) in res.items():
                c0, a0, t0 = acc.get(name, (0, 0, 0))
                acc[name] = (c0 + c, a0 + a, t0 + total)
        elif task.kind in ("null", "power"):
            acc = figures["tests"].setdefault((task.kind, task.shape), {})
            for name, p in res.items():
                acc[name] = np.concatenate([acc[name], p]) if name in acc else p
        else:
            h, total = res
            h0, t0 = figures["rankings"] or (0, 0)
            figures["rankings"] = (h0 + h, t0 + total)
    report(figures, replicates, test_reps, rank_reps, B, out)
    out(f"\n({time.time() - started:.0f} s)")
    return figures


def report(figures: dict, replicates: int, test_reps: int, rank_reps: int, B: int, out) -> None:
    out(f"# Coverage of 95 % intervals (B = {B}; cells = replicates × runs [× alphas]; "
        "MC se in parentheses)")  # fmt: skip
    keys = sorted(figures["coverage"])
    for shape in dict.fromkeys(k[0] for k in keys):
        for method in dict.fromkeys(k[2] for k in keys):
            ns = [k[1] for k in keys if k[0] == shape and k[2] == method]
            out(f"\n{shape}, {method}:")
            out(f"{'field':<14}" + "".join(f"{'n=' + str(n):>22}" for n in ns))
            for f in (*FIELDS, *CORRELATIONS):
                cells = []
                for n in ns:
                    c, a, total = figures["coverage"][shape, n, method][f.name]
                    p = c / total if total else math.nan
                    above = a / max(total - c, 1)
                    cells.append(f"{p:.3f} ({mc(p, total // 4):.3f}) ↑{above:.2f}")
                out(f"{f.name:<14}" + "".join(f"{cell:>22}" for cell in cells))
    out(f"\n# compare tests at n = 50, {test_reps} worlds of {NULL_RUNS} runs (10 pairs)")
    for (kind, shape), acc in sorted(figures["tests"].items()):
        out(f"\n{kind}, {shape}:")
        names = sorted({k.rsplit(":", 1)[0] for k in acc})
        out(f"{'test':<26}{'reject .05':>16}{'p < .005':>16}{'FWER .05 (Holm)':>18}"
            + (f"{'95 % interval holds 0':>24}" if kind == "null" else ""))  # fmt: skip
        for name in names:
            p = acc[f"{name}:p"]
            holm = acc[f"{name}:p_adj"]
            if kind == "null":
                rate = float((p < 0.05).mean())
                tail = float((p < 0.005).mean())
                fwer = float((holm < 0.05).any(axis=1).mean())
                line = (f"{name:<26}{rate:>9.3f} ({mc(rate, p.size):.3f})"
                        f"{tail:>9.4f} ({mc(tail, p.size):.4f})"
                        f"{fwer:>11.3f} ({mc(fwer, len(p)):.3f})")  # fmt: skip
                if f"{name}:covers" in acc:
                    held = float(acc[f"{name}:covers"].mean())
                    line += f"{held:>16.3f} ({mc(held, p.size):.3f})"
                out(line)
            else:  # power: pairs with run 0 (the first 4 of 10)
                first = p[:, :4]
                rate = float((first < 0.05).mean())
                out(
                    f"{name:<26}{rate:>9.3f} ({mc(rate, first.size):.3f})  "
                    "power, run 0 vs the others"
                )
    if figures["rankings"]:
        h, total = figures["rankings"]
        share = h / total
        out(f"\n# rankings, X = G (b = 0), skewed, n = 50, {total} replicates")
        out(f"share of |bias| > 2 se_bias: {share:.3f} ({mc(share, total):.3f})")


# --------------------------------------------------------------------------- sampled judgments
# Sampling variance of statAP and xinfAP (measures/sampled.py) on repeated
# pps samples of one collection: the sample track (qrels/qrels.txt +
# sample_runs/), or ../shared/data/robust2003 with --sampling-collection.
# The truth of a run's MAP with the topics fixed is the estimate with every
# pooled document judged (statAP is then AP on the pool); the truth of the
# combined interval is the mean of that over the collection's topics, the
# worlds drawing n topics from them with replacement, each with its own sample.


@dataclass(frozen=True)
class Collection:
    """All runs × topics as one set of rankings over the pool of the pps
    design, and the pps samples' inputs."""

    evaluator: object  # SampledRankings over the pool (every document listed)
    code: np.ndarray  # stratum code of each pooled document
    grades: dict
    rankings: dict
    design: object
    row: dict  # (topic, docno) → row of the pool
    full: np.ndarray  # every pooled document's grade: the full judgments
    shape: tuple[int, int]  # runs, topics
    strata: int


def collection(name: str, strata: int = 20) -> Collection:
    from bvtest_cli.analyses.budgets import sampling
    from bvtest_cli.io.sources import expand_sources
    from bvtest_cli.io.trec import read_qrels, read_run_columns
    from bvtest_cli.measures.fastmeasures import rank_run
    from bvtest_cli.measures.sampled import SampledRankings

    root = Path(__file__).resolve().parents[1]
    if name == "sample":
        qrels_path, runs_path = root / "qrels/qrels.txt", root / "sample_runs"
    else:
        data = root.parent / "shared/data" / name
        qrels_path, runs_path = data / "qrels.txt", data / "runs"
    grades = read_qrels(str(qrels_path)).qrels
    runs = [read_run_columns(s) for s in expand_sources([str(runs_path)], lambda _: None)]
    rankings: dict[str, list[list[str]]] = {}
    for run in runs:
        for topic, docs in run.as_dict().items():
            rankings.setdefault(topic, []).append(
                sorted(docs, key=lambda d: (docs[d], d), reverse=True)
            )
    design = sampling.pps_design(rankings, strata)
    everything = sampling.pps_sample(rankings, grades, 10**9, strata=strata, seed=0, design=design)
    topics = list(everything.topics)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pool.qrels"
        path.write_text(
            "".join(
                f"{t} 0 {d} {h} {g}\n" for t in topics for d, (h, g) in everything.topics[t].items()
            )
        )
        table = read_qrels(str(path)).table
    parts = [rank_run(run, table) for run in runs]
    # every run's ranking of every topic (a missing one: empty), run-major
    qrow, rank, starts, seg_topic = [], [], [0], []
    for rk in parts:
        where = {int(q): j for j, q in enumerate(rk.qtopic)}
        for t in range(len(topics)):
            j = where.get(t)
            lo, hi = (rk.starts[j], rk.starts[j + 1]) if j is not None else (0, 0)
            qrow.append(rk.qrow[lo:hi])
            rank.append(rk.rank[lo:hi])
            starts.append(starts[-1] + hi - lo)
            seg_topic.append(t)
    evaluator = SampledRankings(
        np.concatenate(qrow), np.concatenate(rank), np.array(starts), np.array(seg_topic),
        table.topic, table.grade, 1, n_topics=len(topics),
    )  # fmt: skip
    code = np.asarray(table.stratum)
    docnos = [d.decode() if isinstance(d, bytes) else str(d) for d in table.docno.tolist()]
    row = {
        (table.topics[int(t)], d): i
        for i, (t, d) in enumerate(zip(table.topic, docnos, strict=True))
    }
    shape = (len(runs), len(topics))
    return Collection(evaluator, code, grades, rankings, design, row, table.grade, shape, strata)


def sampled_cube(c: Collection, kind: str, method: str, budget: int, repeats: range):
    """(repeats, runs, topics) estimates and sampling variances, and the truth."""
    from bvtest_cli.analyses.budgets import sampling

    listed = np.ones(c.code.size, bool)
    strata = int(c.code.max()) + 1
    estimates, variances = [], []
    for repeat in repeats:
        drawn = sampling.pps_sample(
            c.rankings, c.grades, budget, strata=c.strata, seed=20, repeat=repeat, design=c.design
        )
        grade = np.full(c.code.size, -1)
        for topic, docs in drawn.topics.items():
            for docno, (_, g) in docs.items():
                if g >= 0:
                    grade[c.row[topic, docno]] = g
        got = c.evaluator.evaluate((kind,), listed, c.code, grade, strata)[kind]
        v = c.evaluator.variance(kind, listed, c.code, grade, strata, method)
        estimates.append(got.reshape(c.shape))
        variances.append(v.reshape(c.shape))
    return np.array(estimates), np.array(variances)


def sampling_study(name: str, budget: int, repeats: int, jobs: int, out, seed: int = 5) -> None:
    c = collection(name)
    listed = np.ones(c.code.size, bool)
    strata = int(c.code.max()) + 1
    truth = {}
    out(f"\n# Sampling variance, {name}: pps, {budget} judgments in {c.strata} strata per "
        f"topic, {repeats} samples, {c.shape[0]} runs × {c.shape[1]} topics")  # fmt: skip
    out(f"{'estimator (variance)':<26}{'E v / Var':>10}{'se_sampling covers':>20}"
        f"{'covers E[est]':>15}{'bootstrap covers':>18}{'s/√n covers':>16}"
        f"{'+ Σv/n² covers':>16}")  # fmt: skip
    rng = np.random.default_rng(seed)
    for kind, method in (
        ("statAP", "jackknife"),
        ("statAP", "linearized"),
        ("xinfAP", "jackknife"),
    ):
        if kind not in truth:
            truth[kind] = c.evaluator.evaluate((kind,), listed, c.code, c.full, strata)[kind]
            truth[kind] = truth[kind].reshape(c.shape)
        chunks = [range(i, repeats, jobs) for i in range(jobs)]
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(_sampled_part, [(name, kind, method, budget, r) for r in chunks]))
        e = np.concatenate([p[0] for p in parts])
        v = np.concatenate([p[1] for p in parts])
        n = c.shape[1]
        ratio = np.nanmean(v, axis=0).sum() / e.var(axis=0, ddof=1).sum()
        se = np.sqrt(v.sum(axis=2)) / n
        est_map = e.mean(axis=2)
        covers = np.abs(est_map - truth[kind].mean(axis=1)) <= 1.96 * se
        covers_expectation = np.abs(est_map - est_map.mean(axis=0)) <= 1.96 * se
        # combined: n topics drawn with replacement, each from its own sample
        worlds = 2000
        topic = rng.integers(0, n, (worlds, n))
        sample = rng.integers(0, e.shape[0], (worlds, n))
        x = e[sample, :, topic]  # (worlds, n, runs)
        vv = v[sample, :, topic]
        mean = x.mean(axis=1)
        s2 = x.var(axis=1, ddof=1)
        target = truth[kind].mean(axis=1)
        combined = np.abs(mean - target) <= 1.96 * np.sqrt(s2 / n)
        doubled = np.abs(mean - target) <= 1.96 * np.sqrt(s2 / n + vv.sum(axis=1) / n**2)
        shown = 400  # the studentized topic bootstrap of eval --ci, on the first worlds
        iv = bootstrap_intervals(
            np.swapaxes(x[:shown], 1, 2), lambda y: {"mean": y.mean(axis=-1)},
            B=1000, seed=seed, method="studentized",
        )["mean"]  # fmt: skip
        boot = (iv.lo <= target) & (target <= iv.hi)
        cells = [covers.mean(), covers_expectation.mean()]
        worlds_cells = [boot.mean(), combined.mean(), doubled.mean()]
        out(f"{kind + ' (' + method + ')':<26}{ratio:>10.2f}"
            + "".join(f"{p:>11.3f} ({mc(p, covers.size):.3f})" for p in cells)
            + f"{worlds_cells[0]:>10.3f} ({mc(worlds_cells[0], shown):.3f})"
            + "".join(f"{p:>10.3f} ({mc(p, worlds):.3f})" for p in worlds_cells[1:]))  # fmt: skip


def _sampled_part(task):
    name, kind, method, budget, repeats = task
    return sampled_cube(collection(name), kind, method, budget, repeats)


def gate_study(
    replicates: int,
    out,
    seed: int = 9,
    delta: float = 0.01,
    sd: float = 0.05,
    alpha: float = 0.05,
    ns=(25, 50),
) -> dict:
    """``check``'s test gates (MEASURE:mean>=RUN~DELTA): how often a run passes.

    Per-topic differences new − pool run are Normal with sd ``sd``; a run
    exactly ``delta`` worse is the boundary of H0, so it may pass at most
    α of the time; a run equal to the pool run should pass as often as the
    one-sided t test's power against a shift of ``delta`` (the noncentral t,
    :func:`one_sided_power_t`). Both of check's tests, each with its own
    decision (randomization: 9999 sign flips or all of them; t).
    """
    from bvtest_cli.analyses.significance import (
        one_sided_power_t,
        one_sided_randomization,
        one_sided_t,
    )

    out(f"\n# check's test gates: mean>=RUN~{delta:g} at α = {alpha:g}, Normal differences of "
        f"sd {sd:g}, {replicates} worlds per cell (pass rate, MC se)")  # fmt: skip
    out(f"{'topics':>6}{'test':>15}{'δ worse: pass ≤ α':>22}{'equal: pass':>16}"
        f"{'t power':>10}")  # fmt: skip
    rng = np.random.default_rng(seed)
    figures = {}
    for n in ns:
        power = one_sided_power_t(delta, sd, n, alpha)
        worse = rng.normal(-delta, sd, (replicates, n))
        equal = rng.normal(0.0, sd, (replicates, n))
        for test in ("randomization", "t"):

            def passes(d: np.ndarray, test: str = test) -> float:
                if test == "t":
                    return float(np.mean([one_sided_t(x, -delta, alpha).rejected for x in d]))
                return float(np.mean([one_sided_randomization(x, -delta, alpha, seed=k).rejected
                                      for k, x in enumerate(d)]))  # fmt: skip

            size, rate = passes(worse), passes(equal)
            figures[n, test] = (size, rate, power)
            out(f"{n:>6}{test:>15}{size:>14.3f} ({mc(size, replicates):.3f})"
                f"{rate:>9.3f} ({mc(rate, replicates):.3f}){power:>10.3f}")  # fmt: skip
    return figures


# --------------------------------------------------------------------------- PPI
# Coverage of `bvtest judges`' PPI intervals (analyses/assessors/ppi.py) with a known
# truth. A population of PPI_POPULATION topics: each run's true per-topic
# score (the one human judgments give) from a Beta margin, runs tied by the
# shared topic factor of `scores`; the automatic judge's score of a topic is
# the truth + the judge's bias + Normal noise, clipped to [0, 1]. The truth
# of a run is its mean over the whole population. A world draws N topics from
# the population (with replacement: independent draws from it); humans judge
# the first n of them, the judge all N (the other N − n are judge-only, as
# in `judges --human-topics`).

PPI_POPULATION = 500_000
PPI_TOPICS = 100
PPI_SIZES = (10, 20, 30, 50)
#: Per run: (a, b) of the Beta margin of the true scores, the judge's bias and noise sd.
PPI_RUNS = (
    ((0.9, 2.6), 0.10, 0.10),  # AP-like, a lenient judge
    ((1.2, 3.0), -0.05, 0.20),  # AP-like, a strict noisy judge
    ((2.0, 5.0), 0.15, 0.05),  # beta(2, 5), a lenient judge close to a shift
    ((5.0, 6.0), 0.05, 0.30),  # symmetric, a very noisy judge
)
PPI_METHODS = (("ppi++", None), ("ppi", 1.0), ("human", 0.0))


def ppi_population(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(m, PPI_POPULATION) true and judge scores of the population's topics."""
    rng = np.random.default_rng(seed)
    margins = tuple(margin for margin, _, _ in PPI_RUNS)
    truth = scores(rng, "skewed", 1, PPI_POPULATION, margins)[0]
    bias = np.array([b for _, b, _ in PPI_RUNS])[:, None]
    sd = np.array([s for _, _, s in PPI_RUNS])[:, None]
    judge = np.clip(truth + bias + rng.normal(0.0, 1.0, truth.shape) * sd, 0.0, 1.0)
    return truth, judge


def ppi_study(replicates: int, out, seed: int = 13, level: float = 0.95,
              sizes=PPI_SIZES, chunk: int = 2000) -> dict:  # fmt: skip
    """Coverage of PPI++'s and PPI's normal and t intervals (and the human-only
    mean's, for reference) of each run's population mean, with its
    Monte-Carlo se from the replicates (the runs of one world share its
    topics: the se is that of the per-world share over the runs)."""
    from bvtest_cli.analyses.assessors.ppi import ppi_mean

    started = time.time()
    truth, judge = ppi_population(seed)
    theta = truth.mean(axis=1)
    m = len(PPI_RUNS)
    rng = np.random.default_rng(seed + 1)
    out(f"\n# PPI: coverage of {level:.0%} intervals of a run's mean, {replicates} worlds × "
        f"{m} runs, N = {PPI_TOPICS} topics from a population of {PPI_POPULATION:,} "
        f"(n human, N − n judge-only); MC se in parentheses")  # fmt: skip
    out("runs (Beta margin; judge bias, noise sd): "
        + "; ".join(f"beta{margin} {b:+g}, {s:g}" for margin, b, s in PPI_RUNS))  # fmt: skip
    out("true means: " + ", ".join(f"{t:.4f}" for t in theta))
    figures: dict = {}
    per_world: dict = {}
    per_run: dict = {}
    widths: dict = {}
    for n in sizes:
        for start in range(0, replicates, chunk):
            reps = min(chunk, replicates - start)
            topics = rng.integers(0, PPI_POPULATION, (reps, PPI_TOPICS))
            x, f = truth[:, topics].transpose(1, 0, 2), judge[:, topics].transpose(1, 0, 2)
            y, fl, fu = x[..., :n], f[..., :n], f[..., n:]
            for method, lam in PPI_METHODS:
                for interval in ("normal", "t"):
                    est = ppi_mean(y, fl, fu, 1.0 - level, lam, interval)
                    hit = (est.lower <= theta) & (theta <= est.upper)  # (reps, m)
                    key = (n, method, interval)
                    per_world.setdefault(key, []).append(hit.mean(axis=1))
                    per_run.setdefault(key, []).append(hit.sum(axis=0))
                    widths.setdefault(key, []).append((est.upper - est.lower).mean(axis=1))
    out(f"{'method':<8}{'interval':<9}" + "".join(f"{'n=' + str(n):>17}" for n in sizes)
        + f"{'width at n=' + str(sizes[0]) + '…' + str(sizes[-1]):>22}")  # fmt: skip
    for method, _ in PPI_METHODS:
        for interval in ("normal", "t"):
            cells, ws = [], []
            for n in sizes:
                share = np.concatenate(per_world[n, method, interval])
                p, se = float(share.mean()), float(share.std(ddof=1) / math.sqrt(share.size))
                figures[n, method, interval] = (p, se)
                cells.append(f"{p:.4f} ({se:.4f})")
                ws.append(float(np.concatenate(widths[n, method, interval]).mean()))
            out(f"{method:<8}{interval:<9}" + "".join(f"{c:>17}" for c in cells)
                + f"{ws[0]:>11.3f} … {ws[-1]:.3f}")  # fmt: skip
    out("by run, t intervals (MC se √(p(1 − p)/R)):")
    for method in ("ppi++", "human"):
        for i, (margin, b, sd) in enumerate(PPI_RUNS):
            cells = []
            for n in sizes:
                p = float(np.sum(per_run[n, method, "t"], axis=0)[i]) / replicates
                figures[n, method, "t", i] = p
                cells.append(f"{p:.4f} ({mc(p, replicates):.4f})")
            label = f"{method} beta{margin} {b:+g}, {sd:g}"
            out(f"  {label:<34}" + "".join(f"{c:>17}" for c in cells))
    out(f"({time.time() - started:.0f} s)")
    return figures


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--replicates", type=int, default=1000, help="worlds per coverage cell")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--B", type=int, default=1000)
    p.add_argument("--sampling-collection", default="sample",
                   help="sample (the sample track) or robust2003 (../shared/data)")  # fmt: skip
    p.add_argument("--sampling-repeats", type=int, default=200, help="pps samples")
    p.add_argument("--sampling-only", action="store_true", help="only the sampled-judgment part")
    p.add_argument("--gates-only", action="store_true", help="only check's test gates")
    p.add_argument("--ppi-only", action="store_true", help="only the PPI intervals' coverage")
    p.add_argument("--ppi-replicates", type=int, default=20_000, help="worlds per PPI cell")
    args = p.parse_args()
    if args.ppi_only:
        ppi_study(args.ppi_replicates, print)
        return 0
    gate_study(args.replicates, print)
    if args.gates_only:
        return 0
    if not args.sampling_only:
        study(args.replicates, args.jobs, B=args.B)
    sampling_study(args.sampling_collection, 100, args.sampling_repeats, args.jobs, print)
    if not args.sampling_only:
        ppi_study(args.ppi_replicates, print)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
