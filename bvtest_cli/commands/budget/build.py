"""`bvtest budget`: the ranking accuracy of test collections under an
assessment budget (Cormack & Grossman 2019 §3–4, Experiment 1).

For each budget and topic-set size, |b|, σ and RMSE of the ranking given by
each method's collections (xinfAP and statAP on R pps samples, depth-k
pooling with k matched to the budget, hedge, mtf) against the full qrels,
and σ of the full qrels: the paper's Table 1 (Table 2 with the engineered
runs). Nothing is written: the runs are read once into a
:class:`~bvtest_cli.measures.track.Track` and every sample is drawn and
evaluated in memory, in parallel over samples (forked workers that share the
track, the evaluator and the strata, and send back the scores only); each
sample's stream depends on (seed, method, repeat, topic) alone, so the
output does not depend on ``--jobs``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...analyses.budgets.pooling import engineered_name
from ...analyses.budgets.sampling import (
    MethodOptions,
    PpsDesign,
    depth_for_budget,
    pps_design,
    pps_draws,
    sample,
    sampled_topics,
    strata_for_budget,
)
from ...analyses.rankings import RankingAccuracy, ranking_accuracy, stream
from ...errors import InputError
from ...io.sources import Inputs, expand_sources
from ...io.trec import read_qrels
from ...measures.parallel import default_jobs, parallel_map, progress
from ...measures.sampled import SampledRankings
from ...measures.topics import topic_set
from ...measures.track import Track, read_track
from ...options import current_flags, typed_flag
from ...report import registry as r
from ...report.limits import BudgetRequest, refuse_budget
from ...report.model import Node, Records, Report, section
from ...report.registry import Field
from ...report.values import fmt, plain

if TYPE_CHECKING:
    from .params import BudgetParams


def engineered(track: Track, seed: int) -> Track:
    """The track with every run's engineered permutation added (``NAME.perm``):
    per topic, the relevant documents permuted among their positions within
    each grade, on the stream of :func:`~bvtest_cli.analyses.budgets.pooling.engineer_run`
    (the same permutations as ``bvtest permute``)."""
    extra = []
    for name, run in zip(track.names, track.rankings, strict=True):
        topics = []
        for i, (t, ids) in enumerate(zip(track.topics, run, strict=True)):
            grade = track.grade[track.offsets[i] + ids]
            new = ids.copy()
            grades = sorted(set(grade[grade >= 1].tolist()))
            if grades:
                rng = stream(seed, "engineer", name, t)
                for g in grades:
                    positions = np.flatnonzero(grade == g)
                    new[positions] = ids[rng.permutation(positions)]
            topics.append(new)
        extra.append(topics)
    names = track.names + [engineered_name(n) for n in track.names]
    return Track(
        track.topics, track.docnos, track.offsets, track.grade, track.judged, names,
        track.rankings + extra,
    )  # fmt: skip


def stratum_order(strata: int) -> np.ndarray:
    """Code of stratum h (1-based) in string order of the labels, as
    sample_eval.pl visits them (and as a written file reads back)."""
    labels = sorted(str(h) for h in range(1, strata + 1))
    code = np.zeros(strata + 1, dtype=np.int64)
    for c, label in enumerate(labels):
        code[int(label)] = c
    return code


# --------------------------------------------------------------------------------------
# The experiment


@dataclass
class PpsStrata:
    """One pps design over the universe: every pooled document listed, with
    the code of its stratum (string order: :func:`stratum_order`)."""

    strata: int
    design: PpsDesign
    listed: np.ndarray  # (universe,) bool
    code: np.ndarray  # (universe,) int16
    pool_rows: dict[str, np.ndarray]  # per sampled topic, the universe row of each pooled document


@dataclass
class Experiment:
    """What every cell of ``budget`` shares: the runs, the samplers' inputs,
    the in-memory evaluator and the pps designs."""

    p: BudgetParams
    track: Track  # the ranked runs (with the engineered ones, if asked)
    rankings: dict  # the samplers' inputs: the submitted runs only
    grades: dict
    topics: list[str]
    evaluator: SampledRankings
    designs: dict[int, PpsStrata] = field(default_factory=dict)  # by number of strata

    def strata(self, budget: int) -> int:
        """The strata a budget can sample: at most the budget (every stratum
        gets a draw) and at most the largest pool (no empty labels)."""
        largest = int(np.diff(self.track.offsets).max()) if len(self.topics) else 1
        return min(strata_for_budget(self.p.strata, budget), max(largest, 1))

    def scores(self, values: np.ndarray) -> np.ndarray:
        return values.reshape(len(self.track.names), len(self.topics))

    def design(self, budget: int, kinds: tuple[str, ...]) -> PpsStrata:
        """The pps strata of a budget, built once (before the workers fork,
        so that they share them), with the evaluator's counts of listed
        documents of each stratum for xinfAP."""
        strata = self.strata(budget)
        if strata not in self.designs:
            design = pps_design(self.rankings, strata)
            code_of = stratum_order(strata)
            size = int(self.track.offsets[-1])
            listed = np.zeros(size, bool)
            code = np.zeros(size, np.int16 if strata < 2**15 else np.int64)
            pool_rows = {}
            sampled = set(sampled_topics(self.rankings, self.grades))
            for i, t in enumerate(self.track.topics):
                topic = design.topics.get(t)
                if topic is not None and t in sampled:
                    rows = np.asarray(topic.docs, dtype=np.int64) + self.track.offsets[i]
                    listed[rows] = True
                    code[rows] = code_of[topic.stratum]
                    pool_rows[t] = rows
            if "xinfAP" in kinds:
                self.evaluator.prepare(listed, code, strata, ("pps", strata))
            self.designs[strata] = PpsStrata(strata, design, listed, code, pool_rows)
        return self.designs[strata]

    def pps(self, budget: int, repeat: int, kinds: tuple[str, ...]) -> tuple[np.ndarray, int]:
        """One pps sample under each estimator: (kinds, runs × topics)
        scores, and its number of judgments."""
        d = self.designs[self.strata(budget)]
        grade = np.full(d.listed.size, -1, np.int64)
        judged = 0
        draws = pps_draws(d.design, d.pool_rows, budget, seed=self.p.seed, repeat=repeat)
        for topic, _, drawn in draws:
            for _, chosen in drawn:
                rows = d.pool_rows[topic][chosen]
                grade[rows] = self.track.grade[rows]
                judged += chosen.size
        got = self.evaluator.evaluate(kinds, d.listed, d.code, grade, d.strata, ("pps", d.strata))
        return np.stack([got[x] for x in kinds]), judged

    def pooled(self, method: str, budget: int) -> tuple[str, np.ndarray, int, bool]:
        """(name, AP on the judged documents, judgments, whether the mean
        judgments per pooled topic fit the budget) of depth-k, hedge or mtf:
        depth-1 may not fit, when even it pools more than the budget."""
        depth = depth_for_budget(self.rankings, self.topics, budget) if method == "depth" else 1
        drawn = sample(method, self.rankings, self.grades, budget=budget, seed=self.p.seed,
                       options=MethodOptions(depth=depth, rel_level=self.p.rel_level))  # fmt: skip
        # a pool: one stratum, every listed document judged: statAP is AP
        listed, code, grade = self.track.sample_columns(drawn.topics)
        got = self.evaluator.evaluate(("statAP",), listed, code, grade, 1)
        name = f"depth-{depth}" if method == "depth" else method
        fits = drawn.judged() <= budget * max(1, len(drawn.topics))
        return name, got["statAP"], drawn.judged(), fits

    def collections(
        self, kinds: tuple[str, ...], pooled: list[str], tick
    ) -> list[tuple[dict[str, np.ndarray], dict[str, float], tuple[str, bool] | None]]:
        """Per budget: each method's collections ((R, runs, topics) for the
        pps estimators, (runs, topics) for the pools), their mean judgments
        and the depth pool's name and whether it fits the budget (if asked).
        Every sample is a task of
        :func:`~bvtest_cli.measures.parallel.parallel_map`."""
        if kinds:
            for budget in self.p.budgets:
                self.design(budget, kinds)
        # The pools first, the largest budget first (Hedge at 400 judgments
        # a topic is the longest task), then the samples: the workers end
        # together. The results are put back in order below.
        tasks = [(b, m, 0) for b in sorted(self.p.budgets, reverse=True) for m in pooled]
        for budget in sorted(self.p.budgets, reverse=True):
            tasks += [(budget, "pps", rep) for rep in range(self.p.draws if kinds else 0)]

        def make_work():
            def work(task: tuple[int, str, int]):
                budget, method, repeat = task
                if method == "pps":
                    return self.pps(budget, repeat, kinds)
                return self.pooled(method, budget)

            return work

        done = parallel_map(tasks, make_work, jobs=self.p.jobs or default_jobs(), tick=tick)
        result = dict(zip(tasks, done, strict=True))
        out = []
        for budget in self.p.budgets:
            collections: dict[str, np.ndarray] = {}
            used: dict[str, float] = {}
            depth: tuple[str, bool] | None = None
            if kinds:
                cube = np.empty((len(kinds), self.p.draws, len(self.track.names), len(self.topics)))
                judged = 0
                for rep in range(self.p.draws):
                    values, count = result[budget, "pps", rep]
                    cube[:, rep] = values.reshape(len(kinds), *cube.shape[2:])
                    judged += count
                for k, x in enumerate(kinds):
                    collections[x], used[x] = cube[k], judged / self.p.draws
            for method in pooled:
                name, values, judged, fit = result[budget, method, 0]
                collections[name], used[name] = self.scores(values), float(judged)
                if method == "depth":
                    depth = (name, fit)
            out.append((collections, used, depth))
        return out


def _accuracies(
    reference: np.ndarray, collections: list[dict[str, np.ndarray]], p: BudgetParams
) -> list[list[RankingAccuracy]]:
    """Per budget and topic scale, the ranking accuracy of the budget's
    collections (Cormack & Grossman 2019 §2–3): the cells are independent
    tasks of :func:`~bvtest_cli.measures.parallel.parallel_map` (forked
    workers inherit the collections), each on its own random streams, so
    the results do not depend on ``--jobs``."""
    tasks = [(b, scale) for b in range(len(collections)) for scale in p.topics_scale]
    n = reference.shape[-1]

    def make_work():
        def work(task: tuple[int, int]):
            b, scale = task
            try:
                return ranking_accuracy(
                    reference, collections[b], reference_name="reference", samples=p.bootstrap,
                    n_prime=scale * n, seed=p.seed, table=False,
                )  # fmt: skip
            except ValueError as exc:  # sent back and raised in the parent
                return InputError(str(exc))

        return work

    done = iter(parallel_map(tasks, make_work, jobs=p.jobs or default_jobs()))
    return [[next(done) for _ in p.topics_scale] for _ in collections]


def budget_report(inputs: Inputs, p: BudgetParams) -> Report:
    """Experiment 1 of Cormack & Grossman 2019: ranking accuracy of each
    method's collections, per budget and topic-set size."""
    notes: list[str] = []
    assert inputs.qrels is not None
    qrels_file = read_qrels(inputs.qrels)
    sources = expand_sources(inputs.runs, notes.append)
    if len(sources) < 2:
        raise InputError(f"a ranking needs at least two runs, got {len(sources)}")
    topics = topic_set(qrels_file, p.rel_level, notes.append)
    request = BudgetRequest(
        draws=(typed_flag(p, "draws"), p.draws),
        bootstrap=(typed_flag(p, "bootstrap"), p.bootstrap),
        budgets=p.budgets, topics_scale=p.topics_scale, methods=p.methods,
        engineered=p.engineered,
    )  # fmt: skip
    refuse_budget(request, len(sources), len(topics))
    submitted = read_track(qrels_file, sources, topics, p.jobs, p.quiet)
    # now the pools' size is known: the pps draws' work by the documents they sample
    refuse_budget(request, len(sources), len(topics), documents=int(submitted.offsets[-1]))
    rankings, grades = submitted.for_sampling()
    track = engineered(submitted, p.seed) if p.engineered else submitted
    pps = tuple(x for x in p.methods if x in ("xinfAP", "statAP"))
    ex = Experiment(p, track, rankings, grades, topics, track.evaluator(p.rel_level))
    m, n = len(track.names), len(topics)
    # the reference: every judged document, one stratum (statAP is AP)
    whole = ex.evaluator.evaluate(
        ("statAP",), track.judged, np.zeros(track.grade.size, np.int64), track.grade, 1
    )
    reference = ex.scores(whole["statAP"])
    pooled_methods = [x for x in p.methods if x not in pps]
    tick = progress(
        len(p.budgets) * ((p.draws if pps else 0) + len(pooled_methods)), p.quiet,
        "sampling and evaluating",
    )  # fmt: skip
    cells: list[tuple] = []
    reference_rows: list[tuple] = []
    depths: dict[int, str] = {}
    over: dict[int, tuple[str, float]] = {}  # budget → the depth pool beyond it, its cost
    negative: list[str] = []
    per_budget = ex.collections(pps, pooled_methods, tick)
    accuracies = _accuracies(reference, [c for c, _, _ in per_budget], p)
    for budget, (collections, used, depth), results in zip(
        p.budgets, per_budget, accuracies, strict=True
    ):
        if depth is not None:
            name, fits = depth
            if fits:
                depths[budget] = name
            else:
                over[budget] = (name, used[name] / n)
        costs = {name: used[name] / n for name in collections}
        if max(costs.values()) - min(costs.values()) > 0.01 * budget:
            shown = ", ".join(f"{name} {cost:.3g}" for name, cost in costs.items())
            notes.append(
                f"--budget {budget}: the methods' collections cost different numbers of "
                f"judgments per topic ({shown}); a row compares them at their own cost "
                "(the assessments column), not at one budget"
            )
        for scale, res in zip(p.topics_scale, results, strict=True):
            for c in res.collections:
                a = c.accuracy
                cells.append(
                    (budget, scale, c.name, a.bias, a.sigma, a.rmse, a.se_bias, a.se_sigma,
                     a.se_rmse, round(used[c.name] * scale))
                )  # fmt: skip
                if a.b2 < 0:
                    negative.append(f"{budget}/{scale}/{c.name}")
            notes += [note for note in res.notes if note not in notes]
            if budget == p.budgets[0]:
                reference_rows.append(
                    (scale, res.sigma_reference, res.se_sigma_reference,
                     int(track.judged.sum()) * scale)
                )  # fmt: skip
    if pps:
        reduced = {b: ex.strata(b) for b in p.budgets if ex.strata(b) < p.strata}
        if reduced:
            shown = ", ".join(f"budget {b}: {k}" for b, k in reduced.items())
            notes.append(
                f"--strata {p.strata}: a pps sample of N judgments per topic samples at most N "
                "strata (more would leave strata with inclusion probability 0 and bias every "
                f"estimate); strata used: {shown}"
            )
    if depths:
        chosen = ", ".join(f"{b}: {k}" for b, k in depths.items())
        notes.append(f"depth pools matched to the budgets (mean pool size per topic ≤ budget): "
                     f"{chosen}")  # fmt: skip
    for budget, (name, cost) in over.items():
        notes.append(
            f"--budget {budget}: no pool depth fits (the {name} pool holds {cost:.3g} documents "
            f"per topic on average, more than {budget}); its cells cost more than the budget"
        )
    if negative:
        shown = ", ".join(negative[:5]) + (", ..." if len(negative) > 5 else "")
        notes.append(
            f"{len(negative)} cell(s) have a negative bootstrap estimate of b2 (chance error: |b| "
            f"is indistinguishable from 0; budget/topics_scale/method: {shown}); only bias is "
            "signed, reported as -sqrt(-b2) (Cormack & Grossman's convention); rmse = "
            "sqrt(b2 + sigma^2) is below sigma there (their Table 1)"
        )
    if p.engineered:
        notes.append(f"{m} runs ranked: {m // 2} and their engineered permutations (NAME.perm); "
                     "the collections are built from the submitted runs")  # fmt: skip
    items: list[tuple[Field | str, Node]] = [
        (r.RANK_SAMPLES, p.bootstrap),
        ("seed", p.seed),
        ("measure", "AP"),
        (r.N_TOPICS, n),
        (r.N_SYSTEMS, m),
        (r.BUDGET_REPEATS, p.draws),
        (r.BUDGET_STRATA, p.strata),
        (r.BUDGET_CELLS, _records(cells, r.BUDGET_CELL_FIELDS)),
        (r.BUDGET_REFERENCE, _records(reference_rows, r.BUDGET_REFERENCE_FIELDS)),
    ]
    return Report(section(*items), notes=tuple(notes))


def _records(rows: list[tuple], fields: tuple) -> Records:
    names = tuple(f.name for f in fields)

    def as_json(row: tuple) -> dict:
        return {k: plain(v) for k, v in zip(names, row, strict=True)}

    def as_text(row: tuple, digits: int) -> tuple[str, ...]:
        return tuple(fmt(plain(v), digits) for v in row)

    return Records(tuple(rows), as_json, as_text, header=names)


def build(inputs: Inputs, p: BudgetParams) -> Report:
    """``bvtest budget``."""
    p, notes = current_flags(p)
    return budget_report(inputs, p).prefixed(notes)
