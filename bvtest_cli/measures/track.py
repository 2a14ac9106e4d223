"""A track: runs read once as rankings of numbered documents, for the
commands that build test collections from them (``bvtest sample``,
``bvtest budget``).

Per topic, the universe of documents (the pool of the runs and the qrels'
judged documents, sorted by docno) is numbered, and each run's ranking is
an array of those numbers. The samplers
(:mod:`~bvtest_cli.analyses.budgets.sampling`) see the numbers as docnos: their order
is the docnos' order, so ties and output order are the same as with the
docnos themselves; :meth:`Track.evaluator` evaluates every ranking under a
sample of the universe, in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ..io.sources import Source, docno_bytes
from ..io.trec import QrelsFile, RunColumns, read_run_columns
from .fastmeasures import ranking_order
from .parallel import default_jobs, map_runs, progress
from .sampled import SampledRankings
from .topics import check_shared_topics


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

    def for_sampling(self) -> tuple[dict[str, list[np.ndarray]], dict[str, dict[int, int]]]:
        """The samplers' inputs: topic → one ranking (universe numbers) per
        run, the track's own arrays; topic → number → grade of the judged."""
        rankings = {t: [run[i] for run in self.rankings] for i, t in enumerate(self.topics)}
        grades = {}
        for i, t in enumerate(self.topics):
            lo, hi = self.offsets[i], self.offsets[i + 1]
            rows = np.flatnonzero(self.judged[lo:hi])
            grades[t] = dict(zip(rows.tolist(), self.grade[lo:hi][rows].tolist(), strict=True))
        return rankings, grades

    def sample_columns(
        self, topics: dict, strata_code: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A sample over the universe, as the evaluator takes it: (listed,
        stratum code, grade; −1 where not listed or not drawn) from a
        sampler's topics (topic → universe number → (stratum, grade)).
        ``strata_code`` maps a stratum to its code; without it every code is
        0 (one stratum, as for a pool)."""
        size = int(self.offsets[-1])
        listed = np.zeros(size, bool)
        code = np.zeros(size, np.int16 if strata_code is None else strata_code.dtype)
        grade = np.full(size, -1, np.int64)
        for i, t in enumerate(self.topics):
            docs = topics.get(t)
            if not docs:
                continue
            ids = np.fromiter(docs.keys(), np.int64, len(docs)) + self.offsets[i]
            values = np.array(list(docs.values()), dtype=np.int64).reshape(-1, 2)
            listed[ids] = True
            if strata_code is not None:
                code[ids] = strata_code[values[:, 0]]
            grade[ids] = values[:, 1]
        return listed, code, grade

    def evaluator(self, rel: int) -> SampledRankings:
        """Every (run, topic) ranking as one segment, run-major: the track's
        rankings to be evaluated under samples of its universe."""
        lengths = [ids.size for run in self.rankings for ids in run]
        starts = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        # int32 rows and ranks: 129 + 129 runs × 50 topics × 1000 documents are
        # 12.9 M rows, 52 MB a column
        qrow = np.empty(int(starts[-1]), dtype=np.int32)
        rank = np.empty(int(starts[-1]), dtype=np.int32)
        seg_topic = np.empty(len(lengths), dtype=np.int32)
        k = 0
        for run in self.rankings:
            for i, ids in enumerate(run):
                lo, hi = starts[k], starts[k + 1]
                qrow[lo:hi] = self.offsets[i] + ids
                rank[lo:hi] = np.arange(ids.size)
                seg_topic[k] = i
                k += 1
        universe_topic = np.repeat(np.arange(len(self.topics)), np.diff(self.offsets))
        return SampledRankings(qrow, rank, starts, seg_topic, universe_topic, self.grade, rel)


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
    qrels_file: QrelsFile, sources: list[Source], topics: list[str], jobs: int | None, quiet: bool
) -> Track:
    """Read every run once (in parallel) and number the documents of each topic."""
    wanted = {t: i for i, t in enumerate(topics)}
    runs = map_runs(
        sources,
        partial(_ranked_docnos, wanted),
        jobs=jobs or default_jobs(),
        tick=progress(len(sources), quiet),
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
        ranked = [run[t].astype(bytes) if t in run else None for run in runs]
        qrels_docnos = np.array([docno_bytes(d) for d in judged_docs], dtype=bytes)
        universe = np.unique(np.concatenate([*(p for p in ranked if p is not None), qrels_docnos]))
        docnos.append(universe)
        text = [d.decode("latin-1") for d in universe.tolist()]
        grades.append(np.array([max(judged_docs.get(d, 0), 0) for d in text], dtype=np.int64))
        # a negative grade (a sample's -1: pooled, not judged) is no judgment
        judged.append(np.array([judged_docs.get(d, -1) >= 0 for d in text], dtype=bool))
        offsets.append(offsets[-1] + universe.size)
        for j, docs in enumerate(ranked):
            ids = np.searchsorted(universe, docs) if docs is not None else np.zeros(0, int)
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
