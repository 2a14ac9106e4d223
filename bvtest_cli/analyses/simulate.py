"""Per-topic bias–variance by simulated document collections (docs/pertopic.md).

Seed 000 §3.4 / §5.3.3, following Robertson & Kanoulas (SIGIR 2012): the
collection is a sample from a document population, so a system's AP on one
topic is a random variable. For each (system, topic) pair with N retrieved
documents, r of them relevant, one simulated collection is

* r_s ~ Poisson(r), capped at N;
* r_s documents drawn with replacement from the run's retrieved relevant
  documents and N − r_s from its retrieved non-relevant ones (unjudged count
  as non-relevant); each copy keeps the score *and docno* of its original, so
  the simulated list is ranked exactly as trec_eval ranks (score descending,
  ties by docno descending);
* AP over that list with R = r_s + (R_q − r): the relevant documents the run
  missed stay missed; AP = 0 when R = 0.

k such collections give a (system, topic, sample) cube. Sample j of every
system forms column j of Table 3, its target is the max over systems, and
Bias² / Var per topic are the docs/numbers.md population moments over the k samples
(Zhang22 eq. 12) with c = mean of the target; eqs. 13–14 average them over
topics (Table 10), and Table 11 correlates them across systems per topic.

How the simulation stays cheap. AP only depends on the
ranks of the simulated relevant documents. Relevant and non-relevant
originals never share a (score, docno) key, so the ranking between them is a
strict total order fixed by the *original* run: let a_t be the number of
non-relevant originals ranked above relevant original t. A simulated
non-relevant copy lands above a copy of relevant original t iff it was drawn
from one of those a_t originals. Grouping the relevant originals by their
distinct a values v_1 < … < v_d, the N − r_s non-relevant draws fall into the
d + 1 intervals between them as one multinomial draw, and B_g (non-relevant
copies above group g) is a cumulative sum of it. With n_g relevant copies in
group g and K_g = n_1 + … + n_g, the copies hold relevant positions
K_{g−1}+1 … K_g at ranks position + B_g, so

    Σ_g Σ_{p=K_{g−1}+1}^{K_g} p / (p + B_g)
        = Σ_g n_g − B_g · (H[K_g + B_g] − H[K_{g−1} + B_g])

with H the harmonic numbers. That is exactly AP·R of the draw-and-sort
simulation, in distribution, at O(d) random variates per sample instead of
N draws and an O(N log N) sort; when every relevant document is above every
non-relevant one, B = 0 and AP = r_s / R exactly. The relevant copies are
counted per group from r_s uniform draws; the multinomial is drawn through
independent Poisson counts (see ``_nonrel_counts``): ~55 ns per interval
against ~80–110 ns for the binomial chain of ``Generator.multinomial``
(measured with numpy 2.4).

Randomness: pair (system, topic) uses its own stream, keyed by the run's
*name* and the topic *id* (:func:`pair_rng`), so a run's samples depend only
on the seed, its name and its own ranking: not on how the work is split
(``jobs``), nor on which other runs are analysed with it or in which order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np

from ..analyses.decompose import decompose
from ..analyses.tradeoff import Tradeoff, correlate
from ..io.sources import Qrels, Run, docno_bytes
from ..io.trec import RunColumns
from ..measures.matrix import exact_mean, quiet

DEFAULT_SAMPLES = 100  # Zhang22 §5.3.3: k = 100 (stable for k > 100, unstable at 10)


# --------------------------------------------------------------------------------------
# One (system, topic) pair


@dataclass(frozen=True)
class PairModel:
    """What the simulation needs to know about one run's ranking for one topic.

    The retrieved relevant documents are grouped by v, the number of
    retrieved non-relevant documents ranked above them: ``above[g]`` is v_g
    (distinct, ascending), ``group_of_rel[t]`` the group of relevant document
    t (empty when every group holds one document), and ``gaps`` the d + 1
    numbers of retrieved non-relevant documents above group 0, between
    groups g − 1 and g, and below the last group (they sum to N − r).
    """

    n_ret: int  # N
    n_rel_ret: int  # r
    n_rel: int  # R_q, relevant documents of the topic in the qrels
    above: np.ndarray  # (d,) int64
    group_of_rel: np.ndarray  # (r,) int64, or empty: identity
    gaps: np.ndarray  # (d + 1,) int64

    @property
    def n_nonrel_ret(self) -> int:
        """N − r: retrieved documents that are not relevant (unjudged included)."""
        return self.n_ret - self.n_rel_ret


_EMPTY_INT = np.zeros(0, dtype=np.int64)


def pair_model(run_topic: Mapping[str, float] | None, relevant: AbstractSet[str]) -> PairModel:
    """Summarise one run's ranking for one topic (docs/pertopic.md).

    ``relevant`` holds the topic's relevant docnos (grade >= rel_level), so
    R_q = len(relevant). A run without the topic (``None`` or empty) gives a
    model that always scores 0. The ranking rule is trec_eval's: score
    descending, ties by docno descending; it is applied by counting, for each
    retrieved relevant document, the non-relevant ones with a higher score
    plus those with the same score and a larger docno.
    """
    if not run_topic:
        return PairModel(0, 0, len(relevant), _EMPTY_INT, _EMPTY_INT, _EMPTY_INT)
    docs = list(run_topic)
    scores = np.fromiter(run_topic.values(), dtype=float, count=len(docs))
    is_rel = np.fromiter((d in relevant for d in docs), dtype=bool, count=len(docs))
    return _pair_model(docs, scores, is_rel, len(relevant))


def _pair_model(
    docs: Sequence[str] | Sequence[bytes], scores: np.ndarray, is_rel: np.ndarray, n_rel: int
) -> PairModel:
    """:func:`pair_model` of the documents ``docs`` (str or bytes: both
    compare in the files' byte order) with their scores and relevance. Only
    the multiset of "above" counts is kept, so the order of the rows does
    not matter."""
    n_ret = len(docs)
    r = int(np.count_nonzero(is_rel))
    if r == 0:
        return PairModel(n_ret, 0, n_rel, _EMPTY_INT, _EMPTY_INT, _EMPTY_INT)
    all_sorted = np.sort(scores)
    rel_scores = scores[is_rel]
    rel_sorted = np.sort(rel_scores)
    # Documents with a strictly higher score, minus the relevant ones among them.
    all_hi = np.searchsorted(all_sorted, rel_scores, side="right")
    rel_hi = np.searchsorted(rel_sorted, rel_scores, side="right")
    above = (n_ret - all_hi) - (r - rel_hi)
    tied_nonrel = (all_hi - np.searchsorted(all_sorted, rel_scores, side="left")) - (
        rel_hi - np.searchsorted(rel_sorted, rel_scores, side="left")
    )
    if tied_nonrel.any():
        # A relevant document shares its score with non-relevant ones: docnos
        # decide (descending, compared as trec_eval's strcmp does). Only the
        # documents carrying such a score are looked at.
        tie_scores = rel_scores[tied_nonrel > 0]
        tied: dict[float, list] = {}
        for x in np.flatnonzero(np.isin(scores, tie_scores) & ~is_rel):
            tied.setdefault(float(scores[x]), []).append(docs[int(x)])
        rel_rows = np.flatnonzero(is_rel)
        for t in np.flatnonzero(tied_nonrel):
            doc = docs[rel_rows[t]]
            above[t] += sum(1 for other in tied[float(rel_scores[t])] if other > doc)
    # Relevant originals are drawn uniformly, so their order is free: sort them
    # by "above" and number the runs of equal values.
    above.sort()
    new_group = np.empty(r, dtype=bool)
    new_group[0] = True
    np.not_equal(above[1:], above[:-1], out=new_group[1:])
    values = above[new_group]
    group_of_rel = np.cumsum(new_group) - 1 if len(values) < r else _EMPTY_INT
    n_nonrel = n_ret - r
    gaps = np.diff(np.concatenate(([0], values, [n_nonrel])))
    return PairModel(n_ret, r, n_rel, values, group_of_rel, gaps)


_HARMONIC = np.zeros(1)


def _harmonic(n_max: int) -> np.ndarray:
    """H[0..n_max] with H[n] = Σ_{i<=n} 1/i, cached and grown on demand."""
    global _HARMONIC
    if len(_HARMONIC) <= n_max:
        size = max(n_max + 1, 2 * len(_HARMONIC))
        _HARMONIC = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, size))))
    return _HARMONIC


def _index_dtype(size: int) -> type[np.unsignedinteger]:
    """Narrowest dtype for uniform indices in [0, size): numpy draws 16-bit
    integers about five times faster than 64-bit ones (measured)."""
    if size <= 1 << 16:
        return np.uint16
    if size <= 1 << 32:
        return np.uint32
    return np.uint64


# Poissonization margin: Poisson totals are drawn with mean M − c·√M, so they
# exceed M (and are redrawn) with probability about 0.1 %.
_POISSON_MARGIN = 3.0


def _nonrel_counts(rng: np.random.Generator, gaps: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Multinomial(m[s], gaps / Σ gaps) counts for every sample s, shape (k, len(gaps)).

    Where the N − r_s non-relevant copies fall among the intervals between
    relevant groups (module docstring). Exact in law, but cheaper than
    ``Generator.multinomial``, whose binomial chain costs ~80 ns per
    interval: independent Poisson(λ_s·p_j) counts (~50 ns each) are, given
    their total t, Multinomial(t, p); a sample whose total exceeds m[s] is
    redrawn (so t <= m[s]), and the m[s] − t missing copies are then drawn
    one by one (uniform over the non-relevant originals, mapped to their
    interval). Multinomial(t, p) plus m − t further iid categorical draws is
    Multinomial(m, p) whatever t is, so the result has exactly that law.
    """
    k, cells = len(m), len(gaps)
    n_nonrel = int(gaps.sum())
    lam = np.maximum(m - _POISSON_MARGIN * np.sqrt(m), 0.0) / n_nonrel  # λ_s / (N − r)
    mean = lam[:, np.newaxis] * gaps  # λ_s · p_j
    counts = rng.poisson(mean)
    total = counts.sum(axis=1)
    redo = np.flatnonzero(total > m)
    while len(redo):
        counts[redo] = rng.poisson(mean[redo])
        total[redo] = counts[redo].sum(axis=1)
        redo = redo[total[redo] > m[redo]]
    missing = m - total
    # Uniform draws over the originals, mapped to intervals by a lookup table.
    original = rng.integers(0, n_nonrel, size=int(missing.sum()), dtype=_index_dtype(n_nonrel))
    cell = np.repeat(np.arange(k) * cells, missing)
    cell += np.repeat(np.arange(cells), gaps)[original]
    counts += np.bincount(cell, minlength=k * cells).reshape(k, cells)
    return counts


def sample_pairs(
    models: Sequence[PairModel], rngs: Sequence[np.random.Generator | None], k: int
) -> tuple[np.ndarray, np.ndarray]:
    """k simulated AP values and r_s of each pair (docs/pertopic.md; module docstring).

    Pair p draws only from ``rngs[p]`` (unused, may be None, when r = 0), in
    a fixed order: Poisson r_s, the relevant copies, the non-relevant
    multinomial; so its values depend on its own stream alone. Returns
    ``(ap, r_s)`` of shape (len(models), k).
    """
    ap = np.zeros((len(models), k))
    r_s = np.zeros((len(models), k), dtype=np.int64)
    n_max = max((mod.n_ret for mod in models), default=0)
    h = _harmonic(n_max)
    row_start = np.arange(k)
    # Small per-pair arrays (k × d) stay in cache; batching pairs into one big
    # array was measured slower.
    for p, mod in enumerate(models):
        r = mod.n_rel_ret
        if r == 0:
            continue  # r_s ~ Poisson(0) = 0: AP = 0, nothing to draw
        rng = rngs[p]
        if rng is None:
            raise ValueError("a pair with retrieved relevant documents needs a generator")
        rs = rng.poisson(r, size=k)
        np.minimum(rs, mod.n_ret, out=rs)
        drawn = rng.integers(0, r, size=int(rs.sum()), dtype=_index_dtype(r))
        d = len(mod.above)
        if d < r:  # some relevant documents share a group
            drawn = mod.group_of_rel[drawn]
        # n[s, g]: relevant copies of group g in sample s.
        cell = np.repeat(row_start * d, rs)
        cell += drawn
        n = np.bincount(cell, minlength=k * d).reshape(k, d)
        numer = rs.astype(float)
        if mod.n_nonrel_ret:  # otherwise the list holds only the r_s relevant copies
            # b[s, g]: non-relevant copies above group g; k_end: relevant copies
            # in groups <= g. Σ_{pos=K−n+1..K} pos/(pos + b) = n − b·(H[K+b] − H[K−n+b]),
            # and Σ_g n = r_s, so only the correction needs summing (0 when b = 0).
            b = _nonrel_counts(rng, mod.gaps, mod.n_ret - rs)[:, :d].cumsum(axis=1)
            hi = n.cumsum(axis=1)
            hi += b
            lo = hi - n
            corr = h[hi]
            corr -= h[lo]
            corr *= b
            numer -= corr.sum(axis=1)
        big_r = rs + (mod.n_rel - r)
        ap[p] = np.divide(numer, big_r, out=ap[p], where=big_r > 0)
        r_s[p] = rs
    return ap, r_s


def pair_rng(seed: int, system: str | int, topic: str | int) -> np.random.Generator:
    """The random stream of pair (run name, topic id) under ``seed``.

    Keyed by names, not by positions: adding, removing or reordering other
    runs leaves a run's samples alone, and so does splitting the work between
    processes. The key is a 64-bit BLAKE2b digest of the UTF-8 bytes of each
    of ``str(system)`` and ``str(topic)``, as two 32-bit words each: fixed-width
    words, because SeedSequence splits a big integer into words and
    concatenates them, so variable-length keys such as the bytes read as one
    integer could make two different (name, topic) pairs give one key. Two
    names share a stream only if their 64-bit digests collide (~1 in 10^19).
    """
    key = _key_words(str(system)) + _key_words(str(topic))
    ss = np.random.SeedSequence(seed, spawn_key=key)
    return np.random.Generator(np.random.PCG64(ss))


def _key_words(text: str) -> tuple[int, int]:
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:], "little")


# --------------------------------------------------------------------------------------
# All systems × topics


def relevant_sets(qrels: Qrels, topics: Sequence[str], rel_level: int = 1) -> list[frozenset[str]]:
    """Relevant docnos (grade >= rel_level) of each topic; empty for a topic not in qrels."""
    return [frozenset(d for d, g in qrels.get(t, {}).items() if g >= rel_level) for t in topics]


def system_sampler(
    qrels: Qrels,
    topics: Sequence[str],
    k: int,
    seed: int,
    rel_level: int = 1,
    *,
    names: Sequence[str],
) -> Callable[[int, Run | RunColumns], tuple[np.ndarray, int]]:
    """A function (system index i, run) → (simulated AP (n_topics, k), topics missing).

    ``names[i]`` is the name of run i. The streams of :func:`simulate_ap`
    (run ``name`` on topic ``t`` draws from ``pair_rng(seed, name, t)``), so a
    caller may simulate runs one at a time, e.g. each in the process that
    read it, and stack the results.
    """
    topics = list(topics)
    names = list(names)
    relevant = relevant_sets(qrels, topics, rel_level)
    relevant_bytes = [frozenset(map(docno_bytes, rel)) for rel in relevant]  # as in the files

    def sample(i: int, run: Run | RunColumns) -> tuple[np.ndarray, int]:
        if isinstance(run, RunColumns):
            models, missing = _column_models(run, topics, relevant_bytes)
        else:
            models = [pair_model(run.get(t), rel) for t, rel in zip(topics, relevant, strict=True)]
            missing = sum(1 for t in topics if not run.get(t))
        # Streams only for pairs that draw: a pair with r = 0 is 0 without randomness.
        rngs = [
            pair_rng(seed, names[i], t) if mod.n_rel_ret else None
            for t, mod in zip(topics, models, strict=True)
        ]
        return sample_pairs(models, rngs, k)[0], missing

    return sample


def _column_models(
    run: RunColumns, topics: Sequence[str], relevant: Sequence[AbstractSet[bytes]]
) -> tuple[list[PairModel], int]:
    """The :func:`pair_model` of each topic straight from a run's columns (no
    dict of the run), and the number of topics the run has no ranking for."""
    index = {t: i for i, t in enumerate(run.topics)}
    order = np.argsort(run.topic, kind="stable")  # rows by topic (a file may interleave them)
    starts = np.zeros(len(run.topics) + 1, dtype=np.int64)
    np.cumsum(np.bincount(run.topic, minlength=len(run.topics)), out=starts[1:])
    docno, score = run.docno[order], run.score[order]
    models, missing = [], 0
    for t, rel in zip(topics, relevant, strict=True):
        i = index.get(t)
        if i is None:
            models.append(PairModel(0, 0, len(rel), _EMPTY_INT, _EMPTY_INT, _EMPTY_INT))
            missing += 1
            continue
        lo, hi = int(starts[i]), int(starts[i + 1])
        docs = docno[lo:hi].tolist()  # bytes, as in the file
        is_rel = np.fromiter((d in rel for d in docs), dtype=bool, count=hi - lo)
        models.append(_pair_model(docs, score[lo:hi], is_rel, len(rel)))
    return models, missing


# --------------------------------------------------------------------------------------
# Analysis of the cube


@dataclass(frozen=True)
class PerTopicResult:
    """Per-topic bias–variance over simulated collections (docs/pertopic.md).

    Arrays are indexed [topic, system]; ``mean_*`` are eqs. 13–14 of Zhang22.
    """

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    k: int
    mean: np.ndarray  # (n, m) mean simulated AP over the k samples
    bias2: np.ndarray  # (n, m)
    var: np.ndarray  # (n, m)
    c: np.ndarray  # (n,) mean over samples of the per-sample target
    mean_bias2: np.ndarray  # (m,) eq. 13
    mean_var: np.ndarray  # (m,) eq. 14
    topic_pearson: np.ndarray  # (n,) Table 11, nan when undefined
    tradeoff: Tradeoff  # Table 10, on mean_bias2 and mean_var
    missing: tuple[int, ...]  # per system: topics the run has no ranking for

    @property
    def m(self) -> int:
        """Number of systems; the per-sample target (a max) grows with it."""
        return len(self.systems)


@quiet
def rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r between rows of x and y (shape (n, m) → (n,)), nan when undefined.

    Undefined means fewer than two columns or a constant row; constancy is
    tested exactly (max == min) so rounding noise in a mean never turns a
    constant vector into a spurious ±1.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    out = np.full(x.shape[0], np.nan)
    if x.shape[1] < 2:
        return out
    ok = (np.ptp(x, axis=1) > 0) & (np.ptp(y, axis=1) > 0)
    if not ok.any():
        return out
    xc = x[ok] - x[ok].mean(axis=1, keepdims=True)
    yc = y[ok] - y[ok].mean(axis=1, keepdims=True)
    r = (xc * yc).sum(axis=1) / np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    out[ok] = np.clip(r, -1.0, 1.0)
    return out


@quiet
def analyse_samples(
    ap: np.ndarray,
    systems: Sequence[str],
    topics: Sequence[str],
    missing: Sequence[int] | None = None,
) -> PerTopicResult:
    """Bias² / Var per topic from a simulated cube ``ap`` of shape (m, n, k).

    Column j of topic t's Table 3 is sample j of every system; the target of
    sample j is the max over systems and c its mean over the k samples
    (Zhang22 eq. 12); moments are population moments via ``decompose``.
    """
    m, n, k = ap.shape
    stack = np.transpose(ap, (1, 0, 2))  # (n, m, k): one Table 3 per topic
    target = stack.max(axis=1)  # (n, k)
    c = exact_mean(target)  # a target equal in every sample is c exactly
    bv = decompose(stack, target, c)
    mean_bias2 = bv.bias2.mean(axis=0) if n else np.full(m, np.nan)
    mean_var = bv.var.mean(axis=0) if n else np.full(m, np.nan)
    return PerTopicResult(
        systems=tuple(systems),
        topics=tuple(topics),
        k=k,
        mean=bv.mean,
        bias2=bv.bias2,
        var=bv.var,
        c=c,
        mean_bias2=mean_bias2,
        mean_var=mean_var,
        topic_pearson=rowwise_pearson(bv.bias2, bv.var),
        tradeoff=correlate(mean_bias2, mean_var),
        missing=tuple(missing) if missing is not None else (0,) * m,
    )
