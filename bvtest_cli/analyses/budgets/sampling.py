"""Test collections built under an assessment budget, by pooling or sampling.

The full qrels play the assessor: a selected document absent from them is
judged non-relevant (grade 0), and negative grades count as 0. Every method
selects, per topic, documents from the pool of the runs (the union of what
they retrieved) and returns a :class:`Sample`:

* ``depth``: depth-K pooling, every document some run ranks in its top K.
* ``mtf``: move-to-front pooling (Cormack, Palmer & Clarke 1998).
* ``hedge``: pooling by the Hedge online-learning algorithm, runs as experts
  (Aslam, Pavlu & Savell 2003).
* ``uniform``: a simple random sample of the pool.
* ``pps``: stratified sampling with strata of equal AP-prior mass (the prior
  of Aslam, Pavlu & Savell 2003, as in the Million Query track), a simple
  random sample within each stratum; 5 documents from each of 20 strata is
  the 100-per-topic design of Cormack & Grossman 2019 §3. Within a stratum
  the judged documents are a simple random sample of the listed ones, so the
  inclusion probabilities follow from the counts and the Horvitz–Thompson
  estimator gives unbiased counts of relevant documents (the estimators of
  Yilmaz, Kanoulas & Aslam 2008 rest on the same design).

Each topic's random stream is ``stream(seed, "sample", method, repeat,
topic)``: a topic's sample depends on nothing but these, not on the other
topics or their order. Each run is assumed to list a docno at most once.

The module is pure (no I/O) and imports only ``analyses.rankings`` and ``io``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...io.trec import sort_topics
from ..rankings import stream

METHODS = ("depth", "mtf", "hedge", "uniform", "pps")
RANDOM_METHODS = ("uniform", "pps")

# A document is its docno, or a number that stands for it (budget's tracks,
# whose rankings are integer arrays).
Ranking = Sequence[Any] | np.ndarray
Rankings = Mapping[str, Sequence[Ranking]]
Grades = Mapping[str, Mapping[Any, int]]

# Hedge scores within this relative distance of the best one tie (they are
# sums of floats updated step by step, so exact equality is not meaningful).
_HEDGE_TIE_RTOL = 1e-9
# Hedge scores are recomputed from the weights this often, so that the
# step-by-step updates cannot drift.
_HEDGE_REFRESH = 64


@dataclass(frozen=True)
class Sample:
    """One sampled collection."""

    method: str
    # topic -> docno -> (stratum, grade); grade -1: listed (pooled) but not
    # judged. Topics in sort_topics order, docnos sorted within a topic.
    topics: dict[str, dict[str, tuple[int, int]]]

    def _docs(self, topic: str | None) -> Iterable[tuple[int, int]]:
        if topic is not None:
            return self.topics.get(topic, {}).values()
        return (v for docs in self.topics.values() for v in docs.values())

    def judged(self, topic: str | None = None) -> int:
        """Documents with a grade (one topic, or all)."""
        return sum(1 for _, grade in self._docs(topic) if grade >= 0)

    def listed(self, topic: str | None = None) -> int:
        """Documents listed, judged or not (one topic, or all)."""
        if topic is not None:
            return len(self.topics.get(topic, {}))
        return sum(len(docs) for docs in self.topics.values())


# ---------------------------------------------------------------------------
# Shared pieces


def _check_positive(value: int, what: str) -> None:
    if value < 1:
        raise ValueError(f"the {what} must be at least 1, got {value}")


def _grade(judged: Mapping[str, int], docno: str) -> int:
    return max(0, judged.get(docno, 0))


def _topic_rng(seed: int, method: str, repeat: int, topic: str) -> np.random.Generator:
    return stream(seed, "sample", method, str(repeat), topic)


def _retrieved(runs: Sequence[Ranking]) -> bool:
    """Whether some run retrieved anything."""
    return any(len(run) for run in runs)


def sampled_topics(rankings: Rankings, qrels: Grades) -> list[str]:
    """The qrels' topics that some run retrieved anything for, in order."""
    return sort_topics(t for t in qrels if t in rankings and _retrieved(rankings[t]))


def _numbered(runs: Sequence[Ranking]) -> bool:
    return bool(runs) and all(isinstance(run, np.ndarray) for run in runs)


def _as_list(docs: Any) -> list[Any]:
    """Documents as a list of Python values (an array's as ints)."""
    return docs.tolist() if isinstance(docs, np.ndarray) else list(docs)


def pool_of(rankings_for_topic: Sequence[Ranking]) -> list[Any]:
    """Every document some run retrieved for the topic, sorted."""
    if _numbered(rankings_for_topic):
        return np.unique(np.concatenate(rankings_for_topic)).tolist()
    return sorted(set().union(*rankings_for_topic))


@dataclass(frozen=True)
class _Entries:
    """A topic's rankings as flat arrays, one entry per (run, rank), run-major."""

    docs: Sequence[Any]  # the pool, sorted (an array when the documents are numbers)
    doc: np.ndarray  # (E,) index into docs
    run: np.ndarray  # (E,) run number
    rank: np.ndarray  # (E,) 1-based rank
    lengths: np.ndarray  # (runs,) documents per run
    depth: int  # Z: the most documents any run retrieved


def _entries(rankings_for_topic: Sequence[Ranking]) -> _Entries:
    runs = rankings_for_topic
    lengths = np.fromiter((len(r) for r in runs), dtype=np.intp, count=len(runs))
    total = int(lengths.sum())
    docs: Any
    if _numbered(runs):  # numbered documents: sorted and numbered by numpy, kept as an array
        docs, inverse = np.unique(np.concatenate(runs), return_inverse=True)
        doc = inverse.reshape(-1).astype(np.intp, copy=False)
    else:
        docs = pool_of(runs)
        position = {d: i for i, d in enumerate(docs)}
        doc = np.fromiter((position[d] for r in runs for d in r), dtype=np.intp, count=total)
    run = np.repeat(np.arange(len(runs), dtype=np.intp), lengths)
    starts = np.cumsum(lengths) - lengths
    rank = np.arange(total, dtype=np.intp) - np.repeat(starts, lengths) + 1
    depth = int(lengths.max()) if len(runs) else 0
    return _Entries(docs, doc, run, rank, lengths, depth)


def _prior_array(e: _Entries) -> np.ndarray:
    z = e.depth
    harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, z + 1))))
    worth = (1.0 + harmonic[z] - harmonic[e.rank - 1]) / (2.0 * z)
    # bincount adds the entries in input order, i.e. run by run
    return np.bincount(e.doc, weights=worth, minlength=len(e.docs))


def ap_prior(rankings_for_topic: Sequence[Ranking]) -> dict[str, float]:
    """The AP-prior of every pooled document (Aslam, Pavlu & Savell 2003).

    A document at rank r (1-based) of a run is worth
    w(r) = (1 + H_Z − H_{r−1}) / (2Z), with H the harmonic numbers (H_0 = 0)
    and Z the most documents any run retrieved for the topic; its prior is
    the sum of its worth over the runs that retrieved it. Keys in docno order.
    """
    e = _entries(rankings_for_topic)
    if not len(e.docs):
        return {}
    return dict(zip(_as_list(e.docs), _prior_array(e).tolist(), strict=True))


# ---------------------------------------------------------------------------
# Depth pooling


def depth_sample(rankings: Rankings, qrels: Grades, depth: int) -> Sample:
    """Depth-K pooling: every document some run ranks in its top ``depth``
    is judged (stratum 1); only judged documents are listed."""
    _check_positive(depth, "pool depth")
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for topic in sampled_topics(rankings, qrels):
        judged = qrels[topic]
        docs = pool_of([run[:depth] for run in rankings[topic]])
        out[topic] = {d: (1, _grade(judged, d)) for d in docs}
    return Sample("depth", out)


def depth_for_budget(rankings: Rankings, qrels_topics: Iterable[str], budget: int) -> int:
    """The largest depth K ≥ 1 whose depth-K pool holds, averaged over the
    given (qrels) topics that have a pool, at most ``budget`` documents per
    topic; 1 when even depth 1 exceeds it. When every whole pool fits, the
    smallest depth that pools everything (deeper ones add nothing)."""
    _check_positive(budget, "budget")
    first: list[np.ndarray] = []  # per topic: each pooled document's best rank
    for topic in set(qrels_topics):
        runs = rankings.get(topic)
        if not runs or not _retrieved(runs):
            continue
        e = _entries(runs)
        best = np.full(len(e.docs), e.depth + 1, dtype=np.intp)
        np.minimum.at(best, e.doc, e.rank)
        first.append(best)
    if not first:
        return 1
    longest = max(int(b.max()) for b in first)
    counts = np.zeros(longest + 1, dtype=np.int64)
    for best in first:
        counts += np.bincount(best, minlength=longest + 1)
    pooled = np.cumsum(counts)  # pooled[K]: documents in all depth-K pools
    fits = np.flatnonzero(pooled[1:] <= budget * len(first))
    return int(fits[-1]) + 1 if len(fits) else 1


# ---------------------------------------------------------------------------
# Move-to-front


def _mtf_order(
    runs: Sequence[Ranking], relevant: Mapping[str, bool], n: int, tie: np.ndarray
) -> list[str]:
    """The first ``n`` documents move-to-front judges (see :func:`mtf_sample`);
    ``tie[s]`` is run s's place among runs of equal priority."""
    judged: set[str] = set()
    order: list[str] = []
    ahead = [0] * len(runs)  # per run: how many of its top documents are judged
    # heap of (−priority, tie place, run): the front is the run to ask next
    heap = [(0, int(tie[s]), s) for s in range(len(runs)) if runs[s]]
    heapq.heapify(heap)
    while heap and len(order) < n:
        minus_priority, place, s = heap[0]
        run, i = runs[s], ahead[s]
        while i < len(run) and run[i] in judged:
            i += 1
        if i == len(run):
            heapq.heappop(heap)  # nothing left to judge in this run
            continue
        docno = run[i]
        ahead[s] = i + 1
        judged.add(docno)
        order.append(docno)
        if not relevant.get(docno, False):
            heapq.heapreplace(heap, (minus_priority + 1, place, s))
    return order


def mtf_sample(
    rankings: Rankings,
    qrels: Grades,
    budget: int,
    *,
    seed: int,
    repeat: int = 0,
    rel_level: int = 1,
) -> Sample:
    """Move-to-front pooling (Cormack, Palmer & Clarke 1998): min(budget,
    pool size) judgments per topic, stratum 1, only judged documents listed.

    Every run starts with priority 0. At each step the run of highest
    priority that still has an unjudged document is chosen — among runs of
    equal priority, the one first in a random order of the runs drawn once
    per topic from the topic's stream — and its highest-ranked unjudged
    document is judged. If that document is relevant (grade ≥ ``rel_level``)
    the run keeps its priority, so it stays at the front and is asked again;
    otherwise its priority drops by one and it goes behind the runs still at
    its old priority. A run with nothing left to judge is skipped.
    """
    _check_positive(budget, "budget")
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for topic in sampled_topics(rankings, qrels):
        # plain lists: the walk below looks documents up one at a time
        runs = [r.tolist() if isinstance(r, np.ndarray) else r for r in rankings[topic]]
        judged = qrels[topic]
        relevant = {d: g >= rel_level for d, g in judged.items()}
        n = min(budget, len(pool_of(runs)))
        tie = _topic_rng(seed, "mtf", repeat, topic).permutation(len(runs))
        order = _mtf_order(runs, relevant, n, tie)
        out[topic] = {d: (1, _grade(judged, d)) for d in sorted(order)}
    return Sample("mtf", out)


# ---------------------------------------------------------------------------
# Hedge


def _hedge_order(
    e: _Entries, relevant: np.ndarray, n: int, key: np.ndarray, beta: float
) -> list[int]:
    """The first ``n`` documents (indices into the pool) Hedge judges (see
    :func:`hedge_sample`); ``key`` breaks ties between equal scores."""
    pool, runs, z = len(e.docs), len(e.lengths), e.depth
    by_rank = 0.5 * np.log(z / np.arange(1, z + 1))  # ℓ at ranks 1..Z
    half_range = 0.5 * math.log(z)  # max ℓ: the scale of the [0, 1] losses
    # runs × Z matrix of document indices, short runs padded with a dummy
    # document (index ``pool``) that no score reads
    table = np.full((runs, z), pool, dtype=np.intp)
    table[e.run, e.rank - 1] = e.doc
    loss = by_rank[e.rank - 1]  # ℓ_s(d) of every (run, rank) entry
    # per document, its entries (the runs that retrieved it)
    by_doc = np.argsort(e.doc, kind="stable")
    doc_start = np.concatenate(([0], np.cumsum(np.bincount(e.doc, minlength=pool))))
    weight = np.ones(runs)
    judged = np.zeros(pool + 1, dtype=bool)
    judged[pool] = True
    order: list[int] = []
    score: np.ndarray = np.empty(pool + 1)  # judged documents (and the dummy) hold −inf
    for step in range(n):
        if step % _HEDGE_REFRESH == 0:
            weight /= weight.max()  # rescaling every weight changes no choice
            score = np.bincount(e.doc, weights=weight[e.run] * loss, minlength=pool + 1)
            score[judged] = -np.inf
        best = score.max()
        tied = np.flatnonzero(score >= best - _HEDGE_TIE_RTOL * abs(best))
        d = int(tied[np.argmin(key[tied])])
        judged[d] = True
        score[d] = -np.inf
        order.append(d)
        if half_range == 0:
            continue  # Z = 1: every ℓ is 0, nothing to learn
        mine = by_doc[doc_start[d] : doc_start[d + 1]]
        mine = mine[loss[mine] > 0]
        if not len(mine):
            continue
        # relative to the runs that did not retrieve d (loss ½), a run's
        # weight is multiplied by beta^(±ℓ/(2 max ℓ))
        sign = -1.0 if relevant[d] else 1.0
        changed = e.run[mine]
        factor = beta ** (sign * loss[mine] / (2 * half_range))
        delta = weight[changed] * (factor - 1.0)
        weight[changed] *= factor
        # every changed run's ℓ row at once: ``add.at`` adds to each document
        # run by run, in the order (and to the bit) of one add per run
        np.add.at(score, table[changed].ravel(), (delta[:, None] * by_rank).ravel())
    return order


def hedge_sample(
    rankings: Rankings,
    qrels: Grades,
    budget: int,
    *,
    seed: int,
    repeat: int = 0,
    rel_level: int = 1,
    beta: float = 0.1,
) -> Sample:
    """Hedge pooling (Aslam, Pavlu & Savell 2003): min(budget, pool size)
    judgments per topic, stratum 1, only judged documents listed.

    The runs are experts. A document at rank r of run s has
    ℓ_s(d) = ½ ln(Z / r) (Z the most documents any run retrieved for the
    topic; ℓ_s(d) = 0 when s did not retrieve d), at most M = ½ ln Z. Run s
    has weight w_s = beta^{L_s}, L_s its cumulative loss (all 0 at the start).
    Each step judges the unjudged document of largest Σ_s w_s ℓ_s(d); ties
    (scores within a relative 1e-9) go to the document first in a random
    order of the pool drawn once per topic from the topic's stream. Judging d
    gives every run the loss (σ ℓ_s(d) + M) / (2M) ∈ [0, 1], σ = −1 when d is
    relevant (grade ≥ ``rel_level``) and +1 when not: a run that ranks a
    relevant document high loses little, one that ranks a non-relevant
    document high loses much, and a run that did not retrieve d loses ½.
    When Z = 1 every ℓ is 0 and the choice is the random order.
    """
    _check_positive(budget, "budget")
    if not 0 < beta < 1:
        raise ValueError(f"the Hedge beta must lie strictly between 0 and 1, got {beta}")
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for topic in sampled_topics(rankings, qrels):
        judged = qrels[topic]
        e = _entries(rankings[topic])
        docs = _as_list(e.docs)
        relevant = np.fromiter(
            (judged.get(d, 0) >= rel_level for d in docs), dtype=bool, count=len(docs)
        )
        key = _topic_rng(seed, "hedge", repeat, topic).permutation(len(e.docs))
        order = _hedge_order(e, relevant, min(budget, len(e.docs)), key, beta)
        out[topic] = {docs[i]: (1, _grade(judged, docs[i])) for i in sorted(order)}
    return Sample("hedge", out)


# ---------------------------------------------------------------------------
# Uniform and stratified sampling


def uniform_sample(
    rankings: Rankings, qrels: Grades, budget: int, *, seed: int, repeat: int = 0
) -> Sample:
    """A simple random sample (without replacement) of min(budget, pool size)
    documents of each topic's pool; every pooled document is listed, stratum
    1, grade −1 when not drawn."""
    _check_positive(budget, "budget")
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for topic in sampled_topics(rankings, qrels):
        judged = qrels[topic]
        docs = pool_of(rankings[topic])
        rng = _topic_rng(seed, "uniform", repeat, topic)
        drawn = rng.choice(len(docs), size=min(budget, len(docs)), replace=False)
        listed = dict.fromkeys(docs, (1, -1))
        for i in drawn.tolist():
            listed[docs[i]] = (1, _grade(judged, docs[i]))
        out[topic] = listed
    return Sample("uniform", out)


def _levels(mass: np.ndarray, strata: int) -> np.ndarray:
    """Stratum numbers (1..strata) of documents of prior ``mass``, heaviest
    first: h = min(S − 1, ⌊S · C_i / M⌋) + 1 (S − 1, not S: C_i < M for
    every document of positive prior, and the cap only guards rounding)."""
    before = np.cumsum(mass) - mass
    total = float(mass.sum())
    if total <= 0:
        return np.ones(len(mass), dtype=np.intp)
    return np.minimum(strata - 1, np.floor(strata * before / total)).astype(np.intp) + 1


def strata_of(priors: Mapping[str, float], strata: int) -> dict[str, int]:
    """Cut documents into ``strata`` strata of equal prior mass.

    Documents are taken by prior descending (ties by docno ascending);
    document i (0-based in that order) goes to stratum
    h = min(S − 1, ⌊S · C_i / M⌋) + 1, with C_i the prior mass before it and
    M the total. A document heavier than M/S leaves the next strata empty.
    Keys in that order.
    """
    _check_positive(strata, "number of strata")
    docs = sorted(priors, key=lambda d: (-priors[d], d))
    level = _levels(np.array([priors[d] for d in docs], dtype=float), strata)
    return dict(zip(docs, level.tolist(), strict=True))


def allocate(sizes: Sequence[int], budget: int) -> list[int]:
    """Water-filling allocation of min(budget, Σ sizes) draws to strata.

    The strata with room split what is left equally — q each and one more to
    the first r of them, in the given order (q, r = divmod(left, strata with
    room)) — capped at their sizes; what a full stratum cannot take is split
    again among those still with room, until nothing is left.
    """
    given = [0] * len(sizes)
    left = min(budget, sum(sizes))
    while left > 0:
        room = [h for h, size in enumerate(sizes) if given[h] < size]
        share, extra = divmod(left, len(room))
        for j, h in enumerate(room):
            take = min(share + (j < extra), sizes[h] - given[h])
            given[h] += take
            left -= take
    return given


def strata_for_budget(strata: int, budget: int) -> int:
    """The strata a pps design of ``budget`` draws per topic can sample:
    min(strata, budget). With more strata than draws, :func:`allocate` gives
    the last strata nothing, their documents have inclusion probability 0
    and no estimator can be unbiased (Horvitz–Thompson needs π > 0)."""
    _check_positive(strata, "number of strata")
    _check_positive(budget, "budget")
    return min(strata, budget)


@dataclass(frozen=True)
class PpsTopic:
    """One topic's strata: its pool and each pooled document's stratum."""

    docs: Sequence[Any]  # the pool, sorted (an array when the documents are numbers)
    stratum: np.ndarray  # (pool,) each document's stratum, 1..strata
    numbers: list[int]  # the non-empty strata, ascending
    members: list[np.ndarray]  # per non-empty stratum: indices into docs

    @property
    def listed(self) -> dict[Any, tuple[int, int]]:
        """docno → (stratum, −1) of every pooled document, in docno order."""
        return dict(zip(_as_list(self.docs), ((h, -1) for h in self.stratum.tolist()), strict=True))


@dataclass(frozen=True)
class PpsDesign:
    """The strata of every topic, built once and reused by every pps sample."""

    strata: int
    topics: dict[str, PpsTopic]


def pps_design(
    rankings: Rankings, strata: int = 20, topics: Iterable[str] | None = None
) -> PpsDesign:
    """The AP-prior strata (:func:`ap_prior`, :func:`strata_of`) of every
    topic of ``rankings`` with a pool, or of those of ``topics`` only."""
    _check_positive(strata, "number of strata")
    wanted = rankings.keys() if topics is None else set(topics) & rankings.keys()
    design: dict[str, PpsTopic] = {}
    for topic in sort_topics(wanted):
        runs = rankings[topic]
        if not _retrieved(runs):
            continue
        e = _entries(runs)
        prior = _prior_array(e)
        # prior descending, ties by docno (the pool is sorted) ascending
        by_prior = np.lexsort((np.arange(len(e.docs)), -prior))
        stratum = np.empty(len(e.docs), dtype=np.intp)
        stratum[by_prior] = _levels(prior[by_prior], strata)
        numbers = np.unique(stratum).tolist()
        members = [np.flatnonzero(stratum == h) for h in numbers]
        design[topic] = PpsTopic(e.docs, stratum, numbers, members)
    return PpsDesign(strata, design)


def pps_draws(
    design: PpsDesign, topics: Iterable[str], budget: int, *, seed: int, repeat: int = 0
) -> Iterator[tuple[str, PpsTopic, list[tuple[int, np.ndarray]]]]:
    """The documents one pps sample draws, per topic of ``topics``: (topic,
    its strata, [(stratum, indices into the pool drawn from it)]).
    min(budget, pool size) documents are allocated to the non-empty strata
    by :func:`allocate` (in stratum order) and drawn by simple random
    sampling within each stratum, on the topic's stream."""
    _check_positive(budget, "budget")
    for topic in topics:
        t = design.topics.get(topic)
        if t is None:
            raise ValueError(f"the design has no strata for topic {topic}")
        rng = _topic_rng(seed, "pps", repeat, topic)
        given = allocate([len(m) for m in t.members], budget)
        drawn = [
            (h, members[rng.choice(len(members), size=k, replace=False)])
            for h, members, k in zip(t.numbers, t.members, given, strict=True)
            if k
        ]
        yield topic, t, drawn


def pps_sample(
    rankings: Rankings,
    qrels: Grades,
    budget: int,
    *,
    strata: int = 20,
    seed: int,
    repeat: int = 0,
    design: PpsDesign | None = None,
) -> Sample:
    """Stratified sampling with AP-prior strata (:func:`pps_draws`):
    min(budget, pool size) documents per topic. Every pooled document is
    listed with its stratum (1..``strata``), grade −1 if not drawn.
    ``design`` (from :func:`pps_design` on the same rankings and ``strata``)
    saves rebuilding the strata for every sample."""
    _check_positive(budget, "budget")
    _check_positive(strata, "number of strata")
    topics = sampled_topics(rankings, qrels)
    if design is None:
        design = pps_design(rankings, strata, topics)
    elif design.strata != strata:
        raise ValueError(f"the design has {design.strata} strata, not {strata}")
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for topic, t, drawn in pps_draws(design, topics, budget, seed=seed, repeat=repeat):
        judged = qrels[topic]
        listed = t.listed
        for h, chosen in drawn:
            docs: Any = t.docs
            picked = docs[chosen] if isinstance(docs, np.ndarray) else [docs[i] for i in chosen]
            for d in _as_list(picked):
                listed[d] = (h, _grade(judged, d))
        out[topic] = listed
    return Sample("pps", out)


# ---------------------------------------------------------------------------
# Dispatch and estimation


@dataclass(frozen=True)
class MethodOptions:
    """What the sampling methods take beyond the budget and the seed:
    depth-k's ``depth``, pps's ``strata`` and its precomputed ``design``
    (:func:`pps_design`, else made from the rankings), and the grade that
    counts as relevant to mtf and hedge (``rel_level``)."""

    depth: int = 10
    strata: int = 20
    rel_level: int = 1
    design: PpsDesign | None = None


def sample(
    method: str,
    rankings: Rankings,
    qrels: Grades,
    *,
    budget: int,
    seed: int = 0,
    repeat: int = 0,
    options: MethodOptions | None = None,
) -> Sample:
    """One collection by ``method`` (one of :data:`METHODS`). ``depth``
    (of ``options``, :class:`MethodOptions`) is used by ``depth`` only,
    ``budget`` by the others; the repeat matters for :data:`RANDOM_METHODS`
    (mtf and hedge use the seed to break ties only)."""
    opts = MethodOptions() if options is None else options
    depth, strata, rel_level, design = opts.depth, opts.strata, opts.rel_level, opts.design
    if method == "depth":
        return depth_sample(rankings, qrels, depth)
    if method == "mtf":
        return mtf_sample(rankings, qrels, budget, seed=seed, repeat=repeat, rel_level=rel_level)
    if method == "hedge":
        return hedge_sample(rankings, qrels, budget, seed=seed, repeat=repeat, rel_level=rel_level)
    if method == "uniform":
        return uniform_sample(rankings, qrels, budget, seed=seed, repeat=repeat)
    if method == "pps":
        return pps_sample(
            rankings, qrels, budget, strata=strata, seed=seed, repeat=repeat, design=design
        )
    raise ValueError(f"unknown sampling method {method!r}; known: {', '.join(METHODS)}")
