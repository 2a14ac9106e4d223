"""AP, nDCG@k, P@k, R@k and RR straight from a run's columns.

trec_eval's definitions (as pytrec_eval computes them, the reference of
ir_measures' default provider), vectorised across the topics of a run:

* ranking: score descending as a double, ties by docno descending compared
  as bytes (trec_eval's ``strcmp``); pytrec_eval's float32 scores are not
  involved, so near-equal doubles keep their order;
* a document is relevant at level ``rel`` when its grade is ``>= rel``;
  ``num_rel`` counts the qrels' documents of the topic with grade ``>= rel``;
* AP (``map``, ``map_cut.k``): ``sum(rel_so_far / rank) / num_rel`` over the
  relevant documents in the first k ranks, summed in rank order;
* P@k: relevant in the first k ranks ``/ k``; R@k: ``/ num_rel``;
* RR: ``1 / rank`` of the first relevant document, 0 when there is none;
* nDCG (``ndcg``, ``ndcg_cut.k``): gain = grade where grade > 0, discount
  ``log2(rank + 1)`` (C's log2), DCG summed in rank order; the ideal DCG
  ranks the topic's positive grades descending; 0 when the ideal is 0.

Every sum runs left to right in rank order, as trec_eval's loops do, so the
values equal pytrec_eval's bit for bit (tests/test_measures_fastmeasures.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..io.hashing import docno_words
from ..io.trec import QrelsTable, RunColumns


def fast_form(measure: Any) -> tuple[str, int | None, int] | None:
    """(kind, cutoff, rel) when the fast path computes this ir_measures
    measure exactly as pytrec_eval does, else None (ir_measures serves it)."""
    name = measure.NAME
    if name not in ("AP", "P", "R", "RR", "nDCG"):
        return None
    params = dict(measure.params)
    if params.pop("judged_only", False):
        return None
    cutoff = params.pop("cutoff", None)
    if cutoff is not None and not (isinstance(cutoff, int) and cutoff >= 1):
        return None
    rel = params.pop("rel", 1)
    if not isinstance(rel, int) or isinstance(rel, bool):
        return None
    if name == "nDCG" and (
        params.pop("dcg", "log2") != "log2" or params.pop("gains", None) is not None
    ):
        return None
    if params:
        return None
    if name in ("P", "R") and cutoff is None:
        return None
    if name == "RR" and cutoff is not None:
        return None
    return name, cutoff, rel


@dataclass(frozen=True)
class Ranked:
    """A run's rows for the qrels' topics, in ranking order, topic by topic."""

    topics: list[str]  # run topics that are in the qrels, in order of first appearance
    qtopic: np.ndarray  # (topics,) their index in the qrels table
    starts: np.ndarray  # (topics + 1,) row offsets of each topic's ranking
    rank: np.ndarray  # (rows,) 0-based rank within the topic
    row_topic: np.ndarray  # (rows,) index into ``topics``
    grade: np.ndarray  # (rows,) grade, 0 when unjudged
    judged: np.ndarray  # (rows,) bool: in the qrels (an unjudged document is never relevant)
    qrow: np.ndarray  # (rows,) the qrels row of each document, −1 when not in the qrels


def rank_run(run: RunColumns, qrels: QrelsTable) -> Ranked:
    """Order the run by trec_eval's rule and look up every document's grade."""
    index = qrels.topic_index
    to_q = np.array([index.get(t, -1) for t in run.topics], dtype=np.int64)
    keep_topic = to_q >= 0
    kept = np.flatnonzero(keep_topic)
    topic, score, docno, digest = run.topic, run.score, run.docno, run.digest
    if kept.size < len(run.topics):  # rows of topics absent from the qrels are dropped
        rows_keep = keep_topic[topic]
        topic, score, docno = topic[rows_keep], score[rows_keep], docno[rows_keep]
        digest = None if digest is None else digest[rows_keep]
    # New dense topic numbers in order of first appearance among kept rows.
    dense = np.full(len(run.topics), -1, dtype=np.int64)
    dense[kept] = np.arange(kept.size)
    t = dense[topic]
    order = ranking_order(t, score, docno)
    if order is not None:
        t, docno = t[order], docno[order]
        digest = None if digest is None else digest[order]
    n = t.size
    counts = np.bincount(t, minlength=kept.size)
    starts = np.zeros(kept.size + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    rank = np.arange(n, dtype=np.int64) - starts[t]
    qtopic = to_q[kept]
    qrow = qrels.rows_of(qtopic[t].astype(np.int32), docno, digest)
    topics = [run.topics[i] for i in kept.tolist()]
    return Ranked(topics, qtopic, starts, rank, t, qrels.grades_at(qrow), qrow >= 0, qrow)


def condense(ranked: Ranked, max_docs: int | None = None, judged_only: bool = False) -> Ranked:
    """The ranking trec_eval scores with ``-M max_docs`` and ``-J``: the first
    ``max_docs`` documents of each topic (after the ordering of
    :func:`rank_run`), then, with ``judged_only``, only those the qrels judge
    (grade >= 0; a negative grade is in the pool but unjudged), ranked again
    1, 2, ... in the same order: Sakai's condensed list. In trec_eval's order
    (form_res_rels.c): the cut first. A topic may be left with no document;
    it stays, and scores 0."""
    keep = None
    if max_docs is not None and ranked.rank.size and max_docs <= int(ranked.rank.max()):
        keep = ranked.rank < max_docs
    if judged_only:
        judged = ranked.judged & (ranked.grade >= 0)
        keep = judged if keep is None else keep & judged
    if keep is None or keep.all():
        return ranked
    t = ranked.row_topic[keep]
    counts = np.bincount(t, minlength=len(ranked.topics))
    starts = np.zeros(len(ranked.topics) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    rank = np.arange(t.size, dtype=np.int64) - starts[t]
    return Ranked(
        ranked.topics, ranked.qtopic, starts, rank, t,
        ranked.grade[keep], ranked.judged[keep], ranked.qrow[keep],
    )  # fmt: skip


def ranking_order(t: np.ndarray, score: np.ndarray, docno: np.ndarray) -> np.ndarray | None:
    """The permutation that sorts rows by (topic ascending, score descending,
    docno descending), or None when they already are (the usual run file).

    Docnos are compared only inside groups of equal (topic, score): a run
    already by score descending but listing ties with docnos ascending (Robust
    2003 runs do) costs one small sort of its tied rows, not a full sort on
    every docno word. Otherwise a stable sort by (topic, score) comes first.
    """
    n = t.size
    if n < 2:
        return None
    same = t[1:] == t[:-1]
    # ~(<=) rather than (>): any score that is not in order forces the sort
    if (t[1:] >= t[:-1]).all() and not (same & ~(score[1:] <= score[:-1])).any():
        order = None  # topics ascending, scores descending: only ties may be out of order
        t_o, s_o, d_o = t, score, docno
    else:
        order = np.lexsort((-score, t))  # stable: ties keep file order for now
        t_o, s_o, d_o = t[order], score[order], docno[order]
        same = t_o[1:] == t_o[:-1]
    tie = same & (s_o[1:] == s_o[:-1])  # row i+1 has row i's topic and score
    ties = np.flatnonzero(tie)
    if ties.size == 0 or (d_o[ties + 1] < d_o[ties]).all():
        return order
    grouped = np.zeros(n, dtype=bool)
    grouped[ties] = True
    grouped[ties + 1] = True
    rows = np.flatnonzero(grouped)
    # rows of one tie group are adjacent; a new group starts where tie is False
    starts = np.ones(n, dtype=bool)
    starts[1:] = ~tie
    group = np.cumsum(starts)[rows]
    words = docno_words(d_o[rows])
    keys = [~words[:, j] for j in range(words.shape[1] - 1, -1, -1)]
    within = np.lexsort((*keys, group))
    perm = np.arange(n) if order is None else order.copy()
    perm[rows] = perm[rows[within]]
    return perm


_LOG2: list[float] = []


def _discounts(n: int) -> np.ndarray:
    """log2(rank + 1) for ranks 1..n by C's log2 (math.log2), as trec_eval."""
    while len(_LOG2) < n:
        _LOG2.append(math.log2(len(_LOG2) + 2))
    return np.array(_LOG2[:n])


def _segment_sum(values: np.ndarray, segment: np.ndarray, size: int) -> np.ndarray:
    """Per-segment sums, each left to right (np.bincount adds in input order)."""
    return np.bincount(segment, weights=values, minlength=size)


class IdealDCG:
    """Per qrels topic, the ideal DCG at each cutoff, computed once per qrels."""

    def __init__(self, qrels: QrelsTable) -> None:
        positive = qrels.grade > 0
        topic = qrels.topic[positive]
        gain = qrels.grade[positive].astype(np.float64)
        order = np.lexsort((-gain, topic))
        self._topic = topic[order]
        self._gain = gain[order]
        counts = np.bincount(self._topic, minlength=len(qrels.topics))
        starts = np.zeros(counts.size + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        self._rank = np.arange(self._topic.size) - starts[self._topic]
        self._size = len(qrels.topics)
        self._cache: dict[int | None, np.ndarray] = {}

    def at(self, cutoff: int | None) -> np.ndarray:
        if cutoff not in self._cache:
            inside = self._rank < cutoff if cutoff is not None else slice(None)
            rank = self._rank[inside]
            terms = self._gain[inside] / _discounts(int(rank.max()) + 1 if rank.size else 0)[rank]
            self._cache[cutoff] = _segment_sum(terms, self._topic[inside], self._size)
        return self._cache[cutoff]


def compute(
    ranked: Ranked,
    qrels: QrelsTable,
    forms: Sequence[tuple[str, int | None, int]],
    ideal: IdealDCG | None,
) -> list[np.ndarray]:
    """One value per topic of ``ranked.topics`` for each (kind, cutoff, rel).

    Only the rows that add a term are visited (the first k ranks, the
    relevant documents); the terms are those of a sum over every row, in the
    same order, less the zeros, so the sums are the same bits."""
    m = len(ranked.topics)
    rank, seg, grade = ranked.rank, ranked.row_topic, ranked.grade
    heads: dict[int | None, np.ndarray] = {}
    out = []
    for kind, cutoff, rel in forms:
        if cutoff not in heads:  # the rows in the first ``cutoff`` ranks of their topic
            inside = np.arange(rank.size) if cutoff is None else np.flatnonzero(rank < cutoff)
            heads[cutoff] = inside
        head = heads[cutoff]
        if kind == "nDCG":
            assert ideal is not None
            gained = head[grade[head] > 0]
            r = rank[gained]
            terms = grade[gained] / _discounts(int(r.max()) + 1 if r.size else 0)[r]
            dcg = _segment_sum(terms, seg[gained], m)
            best = ideal.at(cutoff)[ranked.qtopic]
            out.append(np.divide(dcg, best, out=np.zeros(m), where=best > 0))
            continue
        hits = head[ranked.judged[head] & (grade[head] >= rel)]  # relevant, in rank order
        topic = seg[hits]
        num_rel = qrels.num_rel(rel)[ranked.qtopic].astype(np.float64)
        found = np.bincount(topic, minlength=m).astype(np.float64)
        if kind == "P":
            assert cutoff is not None  # P is always P@k
            value = found / float(cutoff)
        elif kind == "R":
            value = np.divide(found, num_rel, out=np.zeros(m), where=num_rel > 0)
        elif kind == "RR":
            first = np.full(m, np.iinfo(np.int64).max)
            np.minimum.at(first, topic, rank[hits])
            value = np.zeros(m)
            hit = first < np.iinfo(np.int64).max
            value[hit] = 1.0 / (first[hit] + 1.0)
        else:  # AP: the i-th relevant document of a topic, at rank r, adds i / r
            before = np.searchsorted(topic, np.arange(m))  # hits of earlier topics
            so_far = np.arange(1, hits.size + 1) - before[topic]
            total = _segment_sum(so_far / (rank[hits] + 1.0), topic, m)
            value = np.divide(total, num_rel, out=np.zeros(m), where=num_rel > 0)
        out.append(value)
    return out
