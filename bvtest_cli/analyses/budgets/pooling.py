"""Depth-k pools and engineered runs (docs/rankings.md; Cormack & Grossman 2019).

* :func:`pool` builds depth-k pooled qrels from full qrels and the runs, to
  measure the bias of shallow pooling (Cormack & Grossman 2019 §4: depth-5
  and depth-20 pools of TREC 8).
* :func:`engineer_run` builds the "dissimilar" results of Cormack & Grossman
  2019 §4 / §4.2 (adversarial testing): a run's relevant documents randomly
  permuted among the positions they occupy, so that the engineered run has
  exactly the source's per-topic scores under the full qrels but other
  documents near the top.

Every ranking follows bvtest's (and trec_eval's) rule: score descending as a
double, ties broken by docno descending.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from ...io.sources import Qrels, Run
from ...io.trec import sort_topics
from ..rankings import stream

PERM_SUFFIX = ".perm"


_key = itemgetter(1, 0)  # (docno, score) → (score, docno): the ranking key


def ranked(ranking: Mapping[str, float], depth: int | None = None) -> list[tuple[str, float]]:
    """(docno, score) in rank order — score descending, ties by docno
    descending — the first ``depth`` of them when given."""
    if depth is not None and depth < len(ranking):
        return heapq.nlargest(depth, ranking.items(), key=_key)
    return sorted(ranking.items(), key=_key, reverse=True)


def truncate_run(run: Run, depth: int) -> Run:
    """The top ``depth`` documents of every topic of a run (what a pool needs
    from it; small enough to send back from a worker process)."""
    return {topic: dict(ranked(docs, depth)) for topic, docs in run.items()}


@dataclass(frozen=True)
class Pool:
    """Depth-k pooled qrels and what the note reports about them."""

    qrels: Qrels  # topic → docno → grade, topics in sort_topics order, docnos sorted
    depth: int
    pooled: int  # distinct (topic, document) pairs in the pool, over the qrels' topics
    unjudged: int  # of which the full qrels judge nothing


def pool(qrels: Qrels, runs: Iterable[Run], depth: int) -> Pool:
    """Depth-k pooling (Cormack & Grossman 2019 §4): the judgments of
    ``qrels`` restricted to documents that some run ranks in its top
    ``depth`` for the topic.

    Only the qrels' topics are pooled (a run's other topics have nothing to
    judge them). A topic whose pool holds no judged document is left out of
    the pooled qrels: under them it is unjudged. Pooled documents that the
    qrels do not judge — absent, or with a negative grade (sample_eval.pl's
    −1: pooled, not judged) — are left out and counted (``unjudged``), as
    trec_eval would treat them as non-relevant.
    """
    if depth < 1:
        raise ValueError(f"the pool depth must be at least 1, got {depth}")
    pools: dict[str, set[str]] = {topic: set() for topic in qrels}
    for run in runs:
        for topic, scored in run.items():
            if topic in pools:
                pools[topic].update(d for d, _ in ranked(scored, depth))
    out: Qrels = {}
    pooled = unjudged = 0
    for topic in sort_topics(pools):
        judged = qrels[topic]
        docs = pools[topic]
        pooled += len(docs)
        # a negative grade (a sample's -1) marks a pooled document nobody judged
        kept = {d: judged[d] for d in sorted(docs) if judged.get(d, -1) >= 0}
        unjudged += len(docs) - len(kept)
        if kept:
            out[topic] = kept
    return Pool(out, depth, pooled, unjudged)


def engineered_name(name: str) -> str:
    """The engineered run's system name (and file name): ``NAME.perm``."""
    return name + PERM_SUFFIX


def engineer_run(run: Run, qrels: Qrels, *, name: str, seed: int) -> Run:
    """An engineered ("dissimilar") result derived from ``run`` (Cormack &
    Grossman 2019 §4): for every topic, the relevant documents are randomly
    permuted among the positions they occupy.

    Permutations are within each grade ≥ 1, so every position keeps its
    grade: AP, nDCG, ERR, P@k, … at any relevance level are exactly the
    source's under the full qrels, while the documents at the top differ (and
    a shallow pool may not have judged them). Judged non-relevant (grade ≤ 0)
    and unjudged documents stay where they are. The stream of topic t is
    keyed by (seed, ``name``, t), so the result depends on nothing else.

    The result maps docno → score with the source's score at every position;
    where the source has tied scores and the new docnos would be re-sorted by
    the docno tie-break, those scores are lowered by the fewest units in the
    last place that keep the engineered order (see :func:`_keep_order`).
    """
    out: Run = {}
    for topic in sort_topics(run):
        items = ranked(run[topic])
        grades = qrels.get(topic, {})
        docnos = [d for d, _ in items]
        scores = [s for _, s in items]
        by_grade: dict[int, list[int]] = {}
        for pos, d in enumerate(docnos):
            g = grades.get(d, 0)
            if g >= 1:
                by_grade.setdefault(g, []).append(pos)
        if by_grade:
            rng = stream(seed, "engineer", name, topic)
            new = list(docnos)
            for g in sorted(by_grade):
                positions = by_grade[g]
                for pos, src in zip(positions, rng.permutation(positions).tolist(), strict=True):
                    new[pos] = docnos[src]
            docnos = new
            scores = _keep_order(docnos, scores)
        out[topic] = dict(zip(docnos, scores, strict=True))
    return out


def _keep_order(docnos: list[str], scores: list[float]) -> list[float]:
    """Scores, as close to ``scores`` as possible, under which the ranking
    rule (score descending, ties by docno descending) keeps ``docnos`` in the
    given order — both when scores are compared as doubles (bvtest's rule,
    trec_eval 10) and as single-precision floats (pytrec_eval, which serves
    bvtest's AP and nDCG, keeps run scores as C floats).

    A position whose score ties its predecessor's in either precision while
    its docno is larger (the tie-break would move it up) gets the next float
    below its predecessor's score, and so on down as far as needed; all other
    scores are the source's. Scores are written with ``repr``, which reads
    back as the same double.
    """
    arr = np.asarray(scores, dtype=float)
    single = arr.astype(np.float32)
    keys = np.asarray(docnos, dtype=object)
    tied = (arr[1:] == arr[:-1]) | (single[1:] == single[:-1])
    if not (tied & (keys[1:] > keys[:-1])).any():
        return scores
    out = list(scores)
    for p in range(1, len(out)):
        prev, cur = out[p - 1], out[p]
        docno_after = docnos[p] < docnos[p - 1]  # the tie-break keeps this order
        f_prev, f_cur = np.float32(prev), np.float32(cur)
        if (cur < prev or (cur == prev and docno_after)) and (
            f_cur < f_prev or (f_cur == f_prev and docno_after)
        ):
            continue
        if docno_after:
            out[p] = prev  # tied in both precisions, broken the right way
            continue
        below = float(np.nextafter(f_prev, np.float32(-np.inf)))
        out[p] = below if math.isfinite(below) else math.nextafter(prev, -math.inf)
    return out
