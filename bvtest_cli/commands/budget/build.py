"""`bvtest sample` and `bvtest budget`: test collections under an assessment
budget (Cormack & Grossman 2019 §3–4, Experiment 1).

* ``sample``: collections drawn from a full qrels that plays the assessor
  (:mod:`~bvtest_cli.analyses.sampling`), written one file per sample in
  NIST sample_eval.pl's layout (pps, uniform) or as plain qrels of the
  judged documents (depth, mtf, hedge).
* ``budget``: for each budget and topic-set size, |b|, σ and RMSE of the
  ranking given by each method's collections (xinfAP and statAP on R pps
  samples, depth-k pooling with k matched to the budget, hedge, mtf)
  against the full qrels, and σ of the full qrels: the paper's Table 1
  (Table 2 with the engineered runs). Nothing is written: the samples are
  evaluated in memory (:class:`~bvtest_cli.measures.sampled.SampledRankings`).

The runs are read once into a *track*: per topic, the universe of documents
(the pool of the runs and the qrels' judged documents, sorted by docno) and
each run's ranking as universe numbers. The samplers see those numbers as
docnos: their order is the docnos' order, so ties and output order are the
same as with the docnos themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ...analyses.pooling import engineered_name
from ...analyses.rankings import ranking_accuracy, stream
from ...analyses.sampling import (
    depth_for_budget,
    pps_design,
    sample,
    strata_for_budget,
)
from ...errors import InputError
from ...io.sources import Source, docno_bytes, expand_sources
from ...io.trec import QrelsFile, RunColumns, read_qrels, read_run_columns
from ...measures.fastmeasures import ranking_order
from ...measures.parallel import default_jobs, map_runs, progress
from ...measures.sampled import SampledRankings
from ...measures.topics import check_shared_topics, topic_set
from ...options import current_flags
from ...report import registry as r
from ...report.limits import check_request
from ...report.model import Node, Records, Report, section
from ...report.registry import Field
from ...report.values import fmt, plain
from ...settings import Settings

# --------------------------------------------------------------------------------------
# The track: runs as rankings of universe numbers


@dataclass
class Track:
    """The runs' rankings over one universe of documents per topic."""

    topics: list[str]  # the topics sampled and evaluated
    docnos: list[np.ndarray]  # per topic, the universe (docno bytes, sorted)
    offsets: np.ndarray  # (topics + 1,) first universe row of each topic
    grade: np.ndarray  # (universe,) the full qrels' grade, 0 when not judged
    judged: np.ndarray  # (universe,) in the full qrels
    names: list[str]  # run names
    # [run][topic]: the run's documents as universe numbers (within the topic), in rank order
    rankings: list[list[np.ndarray]]

    def for_sampling(self) -> tuple[dict[str, list[tuple[int, ...]]], dict[str, dict[int, int]]]:
        """The samplers' inputs: topic → one ranking per run; topic → number → grade."""
        rankings = {
            t: [tuple(run[i].tolist()) for run in self.rankings] for i, t in enumerate(self.topics)
        }
        grades = {}
        for i, t in enumerate(self.topics):
            lo, hi = self.offsets[i], self.offsets[i + 1]
            rows = np.flatnonzero(self.judged[lo:hi])
            grades[t] = dict(zip(rows.tolist(), self.grade[lo:hi][rows].tolist(), strict=True))
        return rankings, grades


def _ranked_docnos(topics: dict[str, int]):
    """Worker: a run → per wanted topic, its docnos in rank order (score
    descending, ties by docno descending, as trec_eval)."""

    def work(_: int, run: RunColumns) -> dict[str, np.ndarray]:
        order = ranking_order(run.topic, run.score, run.docno)
        t = run.topic if order is None else run.topic[order]
        docno = run.docno if order is None else run.docno[order]
        out = {}
        cuts = np.flatnonzero(np.diff(t)) + 1
        for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), t.size], strict=True):
            name = run.topics[int(t[lo])]
            if name in topics:
                out[name] = docno[lo:hi]
        return out

    return work


def read_track(
    qrels_file: QrelsFile, sources: list[Source], topics: list[str], s: Settings
) -> Track:
    """Read every run once (in parallel) and number the documents of each topic."""
    wanted = {t: i for i, t in enumerate(topics)}
    runs = map_runs(
        sources,
        partial(_ranked_docnos, wanted),
        jobs=s.jobs or default_jobs(),
        tick=progress(len(sources), s.quiet),
        reader=read_run_columns,
    )
    # qrels that share no topic with the runs leave nothing to sample: an
    # error naming the qrels, as the evaluating commands give
    check_shared_topics(qrels_file.label, topics, [src.name for src in sources], runs)
    qrels = qrels_file.qrels
    docnos, grades, judged = [], [], []
    rankings: list[list[np.ndarray]] = [[] for _ in runs]
    offsets = [0]
    for t in topics:
        judged_docs = qrels.get(t, {})
        parts = [run[t] for run in runs if t in run]
        qrels_docnos = np.array([docno_bytes(d) for d in judged_docs], dtype=bytes)
        universe = np.unique(np.concatenate([*(p.astype(bytes) for p in parts), qrels_docnos]))
        docnos.append(universe)
        text = [d.decode("latin-1") for d in universe.tolist()]
        grades.append(np.array([max(judged_docs.get(d, 0), 0) for d in text], dtype=np.int64))
        # a negative grade (a sample's -1: pooled, not judged) is no judgment
        judged.append(np.array([judged_docs.get(d, -1) >= 0 for d in text], dtype=bool))
        offsets.append(offsets[-1] + universe.size)
        for j, run in enumerate(runs):
            ids = np.searchsorted(universe, run[t].astype(bytes)) if t in run else np.zeros(0, int)
            rankings[j].append(ids.astype(np.int32))
    return Track(
        topics,
        docnos,
        np.array(offsets),
        np.concatenate(grades) if grades else np.zeros(0, np.int64),
        np.concatenate(judged) if judged else np.zeros(0, bool),
        [src.name for src in sources],
        rankings,
    )


def engineered(track: Track, seed: int) -> Track:
    """The track with every run's engineered permutation added (``NAME.perm``):
    per topic, the relevant documents permuted among their positions within
    each grade, on the stream of :func:`~bvtest_cli.analyses.pooling.engineer_run`
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


# --------------------------------------------------------------------------------------
# bvtest sample


def stratum_order(strata: int) -> np.ndarray:
    """Code of stratum h (1-based) in string order of the labels, as
    sample_eval.pl visits them (and as a written file reads back)."""
    labels = sorted(str(h) for h in range(1, strata + 1))
    code = np.zeros(strata + 1, dtype=np.int64)
    for c, label in enumerate(labels):
        code[int(label)] = c
    return code


# --------------------------------------------------------------------------------------
# bvtest budget


def _evaluator(track: Track, rel: int) -> SampledRankings:
    """Every (run, topic) ranking as one segment, run-major."""
    lengths = [ids.size for run in track.rankings for ids in run]
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    # int32 rows and ranks: 129 + 129 runs × 50 topics × 1000 documents are
    # 12.9 M rows, 52 MB a column
    qrow = np.empty(int(starts[-1]), dtype=np.int32)
    rank = np.empty(int(starts[-1]), dtype=np.int32)
    seg_topic = np.empty(len(lengths), dtype=np.int32)
    k = 0
    for run in track.rankings:
        for i, ids in enumerate(run):
            lo, hi = starts[k], starts[k + 1]
            qrow[lo:hi] = track.offsets[i] + ids
            rank[lo:hi] = np.arange(ids.size)
            seg_topic[k] = i
            k += 1
    universe_topic = np.repeat(np.arange(len(track.topics)), np.diff(track.offsets))
    return SampledRankings(qrow, rank, starts, seg_topic, universe_topic, track.grade, rel)


def _arrays(track: Track, topics: dict, strata_code: np.ndarray):
    """A sample as (listed, stratum code, grade) over the universe."""
    size = int(track.offsets[-1])
    listed = np.zeros(size, bool)
    code = np.zeros(size, np.int64)
    grade = np.full(size, -1, np.int64)
    for i, t in enumerate(track.topics):
        docs = topics.get(t)
        if not docs:
            continue
        ids = np.fromiter(docs.keys(), np.int64, len(docs)) + track.offsets[i]
        values = np.array(list(docs.values()), dtype=np.int64).reshape(-1, 2)
        listed[ids] = True
        code[ids] = strata_code[values[:, 0]]
        grade[ids] = values[:, 1]
    return listed, code, grade


@dataclass
class _Experiment:
    """What every cell of ``budget`` shares: the runs, the samplers' inputs,
    the in-memory evaluator and the pps design."""

    s: Settings
    track: Track  # the ranked runs (with the engineered ones, if asked)
    rankings: dict  # the samplers' inputs: the submitted runs only
    grades: dict
    topics: list[str]
    evaluator: SampledRankings
    designs: dict  # strata → PpsDesign, built on first use

    def strata(self, budget: int) -> int:
        """The strata a budget can sample: at most the budget (every stratum
        gets a draw) and at most the largest pool (no empty labels)."""
        largest = int(np.diff(self.track.offsets).max()) if len(self.topics) else 1
        return min(strata_for_budget(self.s.strata, budget), max(largest, 1))

    def scores(self, values: np.ndarray) -> np.ndarray:
        return values.reshape(len(self.track.names), len(self.topics))

    def pps(self, budget: int, kinds: tuple[str, ...], tick) -> tuple[dict[str, np.ndarray], float]:
        """The R pps samples under each estimator, (R, runs, topics), and the
        mean number of judgments. In this process: forked workers would each
        copy the samplers' and the evaluator's state, for little gain
        (measured: docs/performance.md)."""
        strata = self.strata(budget)
        if strata not in self.designs:
            self.designs[strata] = pps_design(self.rankings, strata)
        code_of = stratum_order(strata)
        shape = (self.s.draws, len(self.track.names), len(self.topics))
        cube = {x: np.empty(shape) for x in kinds}
        judged = 0
        for rep in range(self.s.draws):
            drawn = sample(
                "pps", self.rankings, self.grades, budget=budget, strata=strata,
                seed=self.s.seed, repeat=rep, design=self.designs[strata],
            )  # fmt: skip
            listed, code, grade = _arrays(self.track, drawn.topics, code_of)
            got = self.evaluator.evaluate(kinds, listed, code, grade, strata, ("pps", strata))
            for x in kinds:
                cube[x][rep] = self.scores(got[x])
            judged += drawn.judged()
            tick()
        return cube, judged / self.s.draws

    def pooled(self, method: str, budget: int) -> tuple[str, np.ndarray, int, bool]:
        """(name, AP on the judged documents, judgments, whether the mean
        judgments per pooled topic fit the budget) of depth-k, hedge or mtf:
        depth-1 may not fit, when even it pools more than the budget."""
        depth = depth_for_budget(self.rankings, self.topics, budget) if method == "depth" else 1
        drawn = sample(method, self.rankings, self.grades, budget=budget, depth=depth,
                       seed=self.s.seed, rel_level=self.s.rel_level)  # fmt: skip
        listed, code, grade = _arrays(self.track, drawn.topics, np.zeros(2, np.int64))
        listed &= grade >= 0  # plain qrels of the judged documents
        # one stratum, every listed document judged: statAP is AP
        got = self.evaluator.evaluate(("statAP",), listed, np.zeros_like(code), grade, 1)
        name = f"depth-{depth}" if method == "depth" else method
        fits = drawn.judged() <= budget * max(1, len(drawn.topics))
        return name, self.scores(got["statAP"]), drawn.judged(), fits


def budget_report(s: Settings) -> Report:
    """Experiment 1 of Cormack & Grossman 2019: ranking accuracy of each
    method's collections, per budget and topic-set size."""
    notes: list[str] = []
    qrels_file = read_qrels(s.inputs[0])
    sources = expand_sources(s.inputs[1:], notes.append)
    if len(sources) < 2:
        raise InputError(f"a ranking needs at least two runs, got {len(sources)}")
    topics = topic_set(qrels_file, s.rel_level, notes.append)
    check_request(s, len(sources), len(topics), "budget")
    submitted = read_track(qrels_file, sources, topics, s)
    rankings, grades = submitted.for_sampling()
    track = engineered(submitted, s.seed) if s.engineered else submitted
    pps = tuple(x for x in s.methods if x in ("xinfAP", "statAP"))
    ex = _Experiment(
        s, track, rankings, grades, topics, _evaluator(track, s.rel_level),
        {},
    )  # fmt: skip
    m, n = len(track.names), len(topics)
    # the reference: every judged document, one stratum (statAP is AP)
    whole = ex.evaluator.evaluate(
        ("statAP",), track.judged, np.zeros(track.grade.size, np.int64), track.grade, 1
    )
    reference = ex.scores(whole["statAP"])
    pooled_methods = [x for x in s.methods if x not in pps]
    tick = progress(
        len(s.budgets) * ((s.draws if pps else 0) + len(pooled_methods)), s.quiet,
        "sampling and evaluating",
    )  # fmt: skip
    cells: list[tuple] = []
    reference_rows: list[tuple] = []
    depths: dict[int, str] = {}
    over: dict[int, tuple[str, float]] = {}  # budget → the depth pool beyond it, its cost
    negative: list[str] = []
    for budget in s.budgets:
        collections: dict[str, np.ndarray] = {}
        used: dict[str, float] = {}
        if pps:
            cube, judged = ex.pps(budget, pps, tick)
            for x in pps:
                collections[x], used[x] = cube[x], judged
        for x in pooled_methods:
            name, values, judged, fits = ex.pooled(x, budget)
            collections[name], used[name] = values, float(judged)
            if x == "depth":
                if fits:
                    depths[budget] = name
                else:
                    over[budget] = (name, judged / n)
            tick()
        costs = {name: used[name] / n for name in collections}
        if max(costs.values()) - min(costs.values()) > 0.01 * budget:
            shown = ", ".join(f"{name} {cost:.3g}" for name, cost in costs.items())
            notes.append(
                f"--budget {budget}: the methods' collections cost different numbers of "
                f"judgments per topic ({shown}); a row compares them at their own cost "
                "(the assessments column), not at one budget"
            )
        for scale in s.topics_scale:
            try:
                res = ranking_accuracy(
                    reference, collections, reference_name="reference", samples=s.bootstrap,
                    n_prime=scale * n, seed=s.seed, table=False,
                )  # fmt: skip
            except ValueError as exc:
                raise InputError(str(exc)) from None
            for c in res.collections:
                a = c.accuracy
                cells.append(
                    (budget, scale, c.name, a.bias, a.sigma, a.rmse, a.se_bias, a.se_sigma,
                     a.se_rmse, round(used[c.name] * scale))
                )  # fmt: skip
                if a.b2 < 0:
                    negative.append(f"{budget}/{scale}/{c.name}")
            notes += [note for note in res.notes if note not in notes]
            if budget == s.budgets[0]:
                reference_rows.append(
                    (scale, res.sigma_reference, res.se_sigma_reference,
                     int(track.judged.sum()) * scale)
                )  # fmt: skip
    if pps:
        reduced = {b: ex.strata(b) for b in s.budgets if ex.strata(b) < s.strata}
        if reduced:
            shown = ", ".join(f"budget {b}: {k}" for b, k in reduced.items())
            notes.append(
                f"--strata {s.strata}: a pps sample of N judgments per topic samples at most N "
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
            "signed, reported as -sqrt(-b2) (Cormack & Grossman's convention); rmse counts b2 "
            "as 0 and equals sigma"
        )
    if s.engineered:
        notes.append(f"{m} runs ranked: {m // 2} and their engineered permutations (NAME.perm); "
                     "the collections are built from the submitted runs")  # fmt: skip
    items: list[tuple[Field | str, Node]] = [
        (r.RANK_SAMPLES, s.bootstrap),
        ("seed", s.seed),
        ("measure", "AP"),
        (r.N_TOPICS, n),
        (r.N_SYSTEMS, m),
        (r.BUDGET_REPEATS, s.draws),
        (r.BUDGET_STRATA, s.strata),
        ("cells", _records(cells, r.BUDGET_CELL_FIELDS)),
        ("reference", _records(reference_rows, r.BUDGET_REFERENCE_FIELDS)),
    ]
    return Report(section(*items), notes=tuple(notes))


def _records(rows: list[tuple], fields: tuple) -> Records:
    names = tuple(f.name for f in fields)

    def as_json(row: tuple) -> dict:
        return {k: plain(v) for k, v in zip(names, row, strict=True)}

    def as_text(row: tuple, digits: int) -> tuple[str, ...]:
        return tuple(fmt(plain(v), digits) for v in row)

    return Records(tuple(rows), as_json, as_text, header=names)


def build(s: Settings) -> Report:
    """``bvtest budget``."""
    s, notes = current_flags(s, "budget")
    return (budget_report(s)).prefixed(notes)
