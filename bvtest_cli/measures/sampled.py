"""Estimators from sampled judgments: xinfAP and statAP, and NIST
sample_eval.pl's other estimates (infNDCG, iP@k, inum_rel, inum_rel_ret)
with statAP_MQ_eval_v3.pl's R-precision (iRprec).

A sampled collection lists, per topic, the pooled documents with their
stratum and their judgment, −1 for a pooled document left unjudged (NIST
sample_eval.pl's layout ``qid iter docno stratum rel``; a plain qrels file is
one stratum). Within a stratum the judged documents are a simple random
sample, so a judged document of stratum h has inclusion probability
π_h = n_h / N_h (judged / listed in h).

* ``xinfAP`` (Yilmaz, Kanoulas & Aslam 2008) as NIST's sample_eval.pl
  computes it, operation for operation, so that the values are the same
  doubles: the first 1000 documents of the ranking; at a judged relevant
  document at rank k, the precision above it is estimated per stratum from
  the judged documents above it with sample_eval.pl's smoothing (+1e-5 /
  +3e-5), prec = 1/k + ((k′)/k) · Σ_h (N_h^above / k′) · (r_h + 1e-5) /
  (n_h + 3e-5), k′ the listed documents above; AP = Σ_h (R̂_h / R̂) ·
  (mean prec of the relevant documents of h), R̂_h = r_h N_h / n_h over the
  whole stratum. Strata are visited in string order, as Perl's ``sort
  keys`` does.
* ``statAP`` (Pavlu & Aslam 2007; the inclusion-probability estimator that
  Cormack & Grossman 2019 call dynAP), a Horvitz–Thompson estimator:
  R̂ = Σ_{judged relevant d} 1/π_d and
  statAP = (1/R̂) Σ_d (1 / (π_d k_d)) (1 + Σ_{judged relevant d′ above d}
  π_d / π_dd′), k_d the rank of d counting every document, π_dd′ the joint
  inclusion probability: π_d π_d′ for two strata, π_h (n_h − 1)/(N_h − 1)
  within stratum h. 0 when R̂ = 0. With every document judged (π = 1) it is
  AP, to the bit.

* infNDCG, iP@k, inum_rel, inum_rel_ret [YilmazKA08] as sample_eval.pl
  computes them (:func:`infndcg_core`, :func:`estimated_relevant_retrieved`,
  :func:`relevant_estimates`), and iRprec as statAP_MQ_eval_v3.pl [Pavlu07]
  (:func:`irprec_core`).

All are computed by one mechanism, :class:`SampledRankings`: for all topics
of a run at once from its ranked rows
(:class:`~bvtest_cli.measures.fastmeasures.Ranked`, :func:`evaluate_run`),
or for many runs under many in-memory samples (``bvtest budget``). Relevant: grade ≥ the
relevance level (sample_eval.pl: > 0). This module imports only numpy,
ir_measures' measure base class and :mod:`bvtest_cli.io`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from ir_measures.measures.base import Measure, ParamInfo

if TYPE_CHECKING:
    from ..io.trec import QrelsTable
    from .fastmeasures import Ranked

XINF_DEPTH = 1000  # sample_eval.pl's $maxResultSize: documents read per ranking
_COUNT_CHUNK = 1 << 16  # flagged rows whose running counts are built at a time
_REL_SMOOTH = 0.00001  # sample_eval.pl's smoothing of the precision above a document
_SAMPLED_SMOOTH = 0.00003


class _SampledMeasure(Measure):
    SUPPORTED_PARAMS: ClassVar[dict[str, ParamInfo]] = {  # type: ignore[misc]  # a class attribute; ir_measures annotates it as an instance one
        "rel": ParamInfo(
            dtype=int, default=1, desc="minimum grade to be counted relevant (inclusive)"
        )
    }


class _XInfAP(_SampledMeasure):
    """xinfAP (Yilmaz, Kanoulas & Aslam 2008), as NIST's sample_eval.pl."""

    __name__ = "xinfAP"
    NAME = "xinfAP"


class _StatAP(_SampledMeasure):
    """statAP (Pavlu & Aslam 2007), Horvitz–Thompson with joint inclusion probabilities."""

    __name__ = "statAP"
    NAME = "statAP"


class _InfNDCG(Measure):
    """infNDCG [YilmazKA08], as NIST's sample_eval.pl: the grades are the
    gains (grade > 0 relevant), so it takes no relevance level."""

    __name__ = "infNDCG"
    NAME = "infNDCG"
    SUPPORTED_PARAMS: ClassVar[dict[str, ParamInfo]] = {}  # type: ignore[misc]  # a class attribute; ir_measures annotates it as an instance one


class _IP(_SampledMeasure):
    """iP@k, sample_eval.pl's estimated precision at rank k (its iP10, iP50, iP1000)."""

    __name__ = "iP"
    NAME = "iP"
    SUPPORTED_PARAMS: ClassVar[dict[str, ParamInfo]] = {  # type: ignore[misc]  # a class attribute; ir_measures annotates it as an instance one
        "cutoff": ParamInfo(dtype=int, required=True, desc="rank k"),
        **_SampledMeasure.SUPPORTED_PARAMS,
    }


class _InumRel(_SampledMeasure):
    """sample_eval.pl's inum_rel: the estimated number of relevant documents, R̂."""

    __name__ = "inum_rel"
    NAME = "inum_rel"


class _InumRelRet(_SampledMeasure):
    """sample_eval.pl's inum_rel_ret: the estimated number of relevant
    documents among the first 1000 retrieved."""

    __name__ = "inum_rel_ret"
    NAME = "inum_rel_ret"


class _IRprec(_SampledMeasure):
    """R-precision estimated as statAP_MQ_eval_v3.pl estimates it [Pavlu07]
    (sample_eval.pl defines none), with the strata's inclusion probabilities."""

    __name__ = "iRprec"
    NAME = "iRprec"


xinfAP = _XInfAP()
statAP = _StatAP()
infNDCG = _InfNDCG()
iP = _IP()
inum_rel = _InumRel()
inum_rel_ret = _InumRelRet()
iRprec = _IRprec()
SAMPLED_MEASURES = {
    m.NAME: m for m in (xinfAP, statAP, infNDCG, iP, inum_rel, inum_rel_ret, iRprec)
}
# sample_eval.pl prints xinfAP as "infAP"; bvtest's infAP is trec_eval's.
SAMPLE_EVAL_INFAP = "sample_eval:infAP"
#: The estimators with a sampling variance (:meth:`SampledRankings.variance`).
VARIANCE_KINDS = ("statAP", "xinfAP")


def sampled_kind(measure: Measure) -> str:
    """The estimator a sampled measure asks :meth:`SampledRankings.evaluate`
    for: its name, with the rank for iP (``iP@10``)."""
    if measure.NAME == "iP":
        return f"iP@{measure.params['cutoff']}"
    assert measure.NAME is not None  # every measure class names itself
    return measure.NAME


def evaluate_run(
    ranked: Ranked, table: QrelsTable, kinds: tuple[str, ...], rel: int
) -> dict[str, np.ndarray]:
    """The estimators ``kinds`` of every topic of one run (``ranked.topics``),
    the qrels table being the sample: :class:`SampledRankings` with one
    ranking per topic and the table's rows as the universe."""
    rankings = SampledRankings(
        ranked.qrow, ranked.rank, ranked.starts, ranked.qtopic, table.topic, table.grade, rel,
        n_topics=len(table.topics),
    )  # fmt: skip
    code = table.stratum if table.stratum is not None else np.zeros(table.grade.size, np.int32)
    listed = np.ones(table.grade.size, dtype=bool)
    return rankings.evaluate(kinds, listed, code, table.grade, len(table.strata))


def sampling_variance_run(
    ranked: Ranked, table: QrelsTable, kind: str, rel: int, method: str = "jackknife"
) -> np.ndarray:
    """The sampling variance of the estimator ``kind`` (statAP or xinfAP) on
    every topic of one run (``ranked.topics``), the qrels table being the
    sample: :meth:`SampledRankings.variance`, beside :func:`evaluate_run`'s
    estimates."""
    rankings = SampledRankings(
        ranked.qrow, ranked.rank, ranked.starts, ranked.qtopic, table.topic, table.grade, rel,
        n_topics=len(table.topics),
    )  # fmt: skip
    code = table.stratum if table.stratum is not None else np.zeros(table.grade.size, np.int32)
    listed = np.ones(table.grade.size, dtype=bool)
    return rankings.variance(kind, listed, code, table.grade, len(table.strata), method)


def xinfap_core(
    seg: np.ndarray,
    k: np.ndarray,
    h: np.ndarray,
    above: tuple[np.ndarray, np.ndarray, np.ndarray],
    totals: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """xinfAP of m rankings from their judged relevant documents ("hits", in
    rank order within each ranking): ranking ``seg``, rank ``k`` (from 1),
    stratum ``h``; ``above[(listed, judged, relevant), stratum, hit]`` the
    documents of each kind and stratum ranked above the hit; ``totals`` the
    (m, strata) counts N_h, n_h, r_h of each ranking's topic."""
    n_listed, n_judged, n_relevant = totals
    m, strata = n_listed.shape
    a_listed, a_judged, a_relevant = above
    depth = a_listed.sum(axis=0)
    # The estimated precision above each relevant document: stratum by
    # stratum in sample_eval.pl's order, each term as it computes it
    # (((N/k′)·(r + 1e-5))/(n + 3e-5)), in place on one stratum's row at a time.
    # Hits a chunk at a time, so that the terms stay in the processor's cache.
    prec_above = np.zeros(seg.size)
    term = np.empty(min(seg.size, _COUNT_CHUNK))
    smoothed = np.empty_like(term)
    with np.errstate(divide="ignore", invalid="ignore"):
        for lo in range(0, seg.size, _COUNT_CHUNK):
            hi = min(seg.size, lo + _COUNT_CHUNK)
            t, sm, out = term[: hi - lo], smoothed[: hi - lo], prec_above[lo:hi]
            for g in range(strata):
                listed = a_listed[g, lo:hi]
                np.divide(listed, depth[lo:hi], out=t)
                np.add(a_relevant[g, lo:hi], _REL_SMOOTH, out=sm)
                t *= sm
                np.add(a_judged[g, lo:hi], _SAMPLED_SMOOTH, out=sm)
                t /= sm
                t[listed == 0] = 0.0  # also where depth is 0
                out += t
        prec = 1 / k + (depth / k) * prec_above
    # in rank order, as Perl adds them: bincount adds its weights in input order
    total = np.bincount(seg * strata + h, weights=prec, minlength=m * strata).reshape(m, strata)
    estimate, num_rel = relevant_estimates(totals)
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.zeros(m)
        for g in range(strata):
            within = np.where(n_relevant[:, g] != 0, total[:, g] / n_relevant[:, g], 0.0)
            term = (estimate[:, g] / num_rel) * within
            ap = ap + np.where((n_judged[:, g] != 0) & (num_rel != 0), term, 0.0)
    return ap


def relevant_estimates(
    totals: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """R̂_h = r_h N_h / n_h of each ranking's topic and stratum (0 where no
    document of h is judged) and R̂ = Σ_h R̂_h, added in stratum order as
    sample_eval.pl does: its inum_rel [YilmazKA08]."""
    n_listed, n_judged, n_relevant = totals
    m, strata = n_listed.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.where(n_judged != 0, n_relevant * n_listed / n_judged, 0.0)
    num_rel = np.zeros(m)
    for g in range(strata):
        num_rel = num_rel + estimate[:, g]
    return estimate, num_rel


def estimated_relevant_retrieved(counts: np.ndarray) -> np.ndarray:
    """sample_eval.pl's estimate of the relevant documents among the first j
    retrieved, from ``counts[(listed, judged, relevant), stratum, ranking]``
    of those j documents: Σ_h N_h (r_h + 1e-5) / (n_h + 3e-5), strata in
    order, each term as it computes it. Its smoothing makes a stratum with
    listed but no judged documents above count a third of them relevant."""
    listed, judged, relevant = counts
    total = np.zeros(listed.shape[1])
    for g in range(listed.shape[0]):
        total = total + (listed[g] * (relevant[g] + _REL_SMOOTH)) / (judged[g] + _SAMPLED_SMOOTH)
    return total


_discounts = np.zeros(1)


def log2_discounts(upto: int) -> np.ndarray:
    """log(r + 1)/log(2) for r = 0..upto, each by the C library's log as Perl
    computes it (numpy's vectorised log may differ in the last bit)."""
    global _discounts
    if _discounts.size <= upto:
        size = max(upto + 1, 2 * _discounts.size, 2048)
        _discounts = np.array([math.log(r + 1) / math.log(2) for r in range(size)])
    return _discounts


def sample_eval_ideal_dcg(
    topic: np.ndarray,
    code: np.ndarray,
    grade: np.ndarray,
    listed: np.ndarray,
    n_listed: np.ndarray,
    n_judged: np.ndarray,
) -> np.ndarray:
    """The ideal DCG of every topic as sample_eval.pl estimates it
    [YilmazKA08]: per grade g > 0, R̂_g = Σ_h c_hg N_h / n_h (c_hg the judged
    documents of stratum h with grade g; strata in order); the grades in
    descending *string* order (Perl's ``reverse sort keys``: 10 before 9 only
    below 2), each filling the next int(R̂_g + 0.5) ranks with gain g and
    discount log2(r + 1). Ranks stop at 1000 within a grade, but each later
    grade still adds its first rank beyond (its ``last`` leaves the inner loop
    only). ``n_listed``, ``n_judged``: (topics, strata) counts."""
    n_topics = n_listed.shape[0]
    keep = listed & (grade > 0)
    cells = np.stack(
        [topic[keep].astype(np.int64), grade[keep].astype(np.int64), code[keep].astype(np.int64)]
    )
    ideal = np.zeros(n_topics)
    if cells.shape[1] == 0:
        return ideal
    keys, counts = np.unique(cells, axis=1, return_counts=True)  # by topic, grade, stratum
    per_grade: dict[int, dict[int, float]] = {}
    for (t, g, h), c in zip(keys.T.tolist(), counts.tolist(), strict=True):
        estimate = c * int(n_listed[t, h]) / int(n_judged[t, h])
        grades = per_grade.setdefault(t, {})
        grades[g] = grades[g] + estimate if g in grades else estimate
    for t, grades in per_grade.items():
        terms = []
        start = 0
        for g in sorted(grades, key=str, reverse=True):
            stop = start + int(grades[g] + 0.5)
            last = min(stop, max(start + 1, XINF_DEPTH))
            terms.append(g / log2_discounts(last)[start + 1 : last + 1])
            start = stop
        ideal[t] = np.cumsum(np.concatenate(terms))[-1]  # cumsum adds in order
    return ideal


def infndcg_core(
    seg: np.ndarray,
    k: np.ndarray,
    h: np.ndarray,
    gain: np.ndarray,
    at_end: tuple[np.ndarray, np.ndarray],
    ideal: np.ndarray,
) -> np.ndarray:
    """infNDCG of m rankings as sample_eval.pl computes it [YilmazKA08], from
    their judged relevant documents in the first 1000 (ranking ``seg``, rank
    ``k`` from 1, stratum ``h``, grade ``gain``), ``at_end`` the (strata, m)
    listed and judged documents among those 1000, ``ideal`` each ranking's
    ideal DCG (:func:`sample_eval_ideal_dcg`): with G_h = Σ g/log2(k + 1)
    over the relevant documents of stratum h and D the listed documents,
    infNDCG = D · Σ_h ((N_h/D) · G_h) / n_h / ideal."""
    n_listed, n_judged = at_end
    strata, m = n_listed.shape
    gains = np.zeros((m, strata))
    np.add.at(gains, (seg, h), gain / log2_discounts(int(k.max(initial=1)))[k])
    depth = n_listed.sum(axis=0)
    dcg = np.zeros(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        for g in range(strata):
            term = (n_listed[g] / depth) * gains[:, g] / n_judged[g]
            dcg = dcg + np.where((depth != 0) & (n_judged[g] != 0), term, 0.0)
        return np.where(ideal != 0, depth * dcg / ideal, 0.0)


def statap_core(
    seg: np.ndarray,
    k: np.ndarray,
    h: np.ndarray,
    above: np.ndarray,
    totals: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """statAP of m rankings from their judged relevant documents, as
    :func:`xinfap_core` (``above``: the judged relevant ones only, (strata,
    hits))."""
    n_listed, n_judged, n_relevant = (t.astype(float) for t in totals)
    m, strata = n_listed.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = np.where(n_judged > 0, n_listed / n_judged, 0.0)  # 1/π_h
        # π_d / π_dd′ for d, d′ of one stratum h: (N_h − 1)/(n_h − 1); the
        # 1/π_h that the sum over strata counts for them is taken off.
        same = np.where(n_judged > 1, (n_listed - 1) / (n_judged - 1), 0.0) - inverse
    # each stratum's 1/π of every ranking, gathered a chunk of hits at a time
    # (in cache), added in stratum order
    by_stratum = np.ascontiguousarray(inverse.T)
    inner = np.ones(seg.size)
    for lo in range(0, seg.size, _COUNT_CHUNK):
        hi = min(seg.size, lo + _COUNT_CHUNK)
        part, where = inner[lo:hi], seg[lo:hi]
        for g in range(strata):
            part += above[g, lo:hi] * by_stratum[g][where]
    inner += above[h, np.arange(seg.size)] * same[seg, h]
    pi = 1.0 / inverse[seg, h]
    terms = inner / (pi * k)
    total = np.bincount(seg, weights=terms, minlength=m)
    r_hat = (n_relevant * inverse).sum(axis=1)
    return np.divide(total, r_hat, out=np.zeros(m), where=r_hat > 0)


def _after_within(values: np.ndarray, seg: np.ndarray, m: int) -> np.ndarray:
    """Σ of ``values`` over the later entries of the same segment (entries in
    segment order, then rank order within it), each entry excluded."""
    total = np.bincount(seg, weights=values, minlength=m)
    upto = np.cumsum(values)
    # within-segment running sums: the cumulative sum minus what came before the segment
    first = np.searchsorted(seg, np.arange(m))
    before = np.where(first > 0, upto[np.maximum(first - 1, 0)], 0.0)
    return total[seg] - (upto - before[seg])


def statap_variance_core(
    seg: np.ndarray,
    k: np.ndarray,
    h: np.ndarray,
    above: np.ndarray,
    totals: tuple[np.ndarray, np.ndarray, np.ndarray],
    collapse: np.ndarray,
) -> np.ndarray:
    """The design variance of statAP estimated from the sample, for m
    rankings (arguments as :func:`statap_core`; ``collapse`` (m, strata):
    the collapsed group of each stratum with one judged document, −1 for the
    others, −2 for a lone one that cannot be grouped).

    statAP = Ŷ/R̂ is a ratio of Horvitz–Thompson estimators [Pavlu07]; its
    first-order (Taylor) variable is z_d = (u_d − statAP·[d relevant])/R̂, u_d
    the part of Y = Σ prec that involves d: its precision plus Σ 1/k over the
    relevant documents ranked below it, both estimated from the sample with
    the HT weights given d (π_d/π_dd′), and 0 for a relevant document not
    retrieved. Under stratified simple random sampling without replacement
    the HT variance estimator with the joint inclusion probabilities is
    Σ_h N_h² (1 − n_h/N_h) s_h²/n_h, s_h² the sample variance of z over the
    n_h judged documents of stratum h (non-relevant ones: 0) [Cochran77]
    §5.3, §6.4. A stratum with one judged document of several has no s_h²:
    such strata are collapsed in groups of L ≥ 2 and contribute
    L/(L − 1) Σ (t̂_h − t̄)² with t̂_h = N_h z (Cochran77 §5A.12, which
    overestimates); a lone one makes the variance undefined (NaN). 0 when
    R̂ = 0 (statAP is then 0 whatever the unjudged documents)."""
    n_listed, n_judged, n_relevant = (t.astype(float) for t in totals)
    m, strata = n_listed.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = np.where(n_judged > 0, n_listed / n_judged, 0.0)
        same = np.where(n_judged > 1, (n_listed - 1) / (n_judged - 1), 0.0) - inverse
    inner = np.ones(seg.size)
    for g in range(strata):
        inner += above[g] * inverse[seg, g]
    inner += above[h, np.arange(seg.size)] * same[seg, h]
    u = inner / k
    for g in range(strata):
        after = _after_within(np.where(h == g, 1.0 / k, 0.0), seg, m)
        u += after * (inverse[seg, g] + np.where(h == g, same[seg, g], 0.0))
    ap = statap_core(seg, k, h, above, totals)
    r_hat = (n_relevant * inverse).sum(axis=1)
    cell = seg * strata + h
    dev = u - ap[seg]
    hits = np.bincount(cell, minlength=m * strata).reshape(m, strata)
    s1 = np.bincount(cell, weights=dev, minlength=m * strata).reshape(m, strata)
    s2 = np.bincount(cell, weights=dev * dev, minlength=m * strata).reshape(m, strata)
    missed = n_relevant - hits  # judged relevant, not retrieved: u = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(r_hat > 0, 1.0 / r_hat, 0.0)[:, None]
        z1 = (s1 - missed * ap[:, None]) * scale
        z2 = (s2 + missed * (ap * ap)[:, None]) * scale**2
        s_sq = np.where(n_judged > 1, (z2 - z1 * z1 / n_judged) / (n_judged - 1), 0.0)
        fpc = np.where(n_judged > 0, 1 - n_judged / n_listed, 0.0)
        terms = np.where(n_judged > 1, n_listed**2 * fpc * s_sq / n_judged, 0.0)
    variance = terms.sum(axis=1)
    t_hat = n_listed * z1  # the estimated stratum total of z, for one judged document
    for group in range(int(collapse.max(initial=-1)) + 1):
        inside = collapse == group
        size = inside.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(inside, t_hat, 0.0).sum(axis=1) / size
            spread = np.where(inside, (t_hat - mean[:, None]) ** 2, 0.0).sum(axis=1)
            variance += np.where(size > 1, size / (size - 1) * spread, 0.0)
    variance[(collapse == -2).any(axis=1)] = np.nan
    return np.where(r_hat > 0, np.maximum(variance, 0.0), 0.0)


def collapsed_strata(n_listed: np.ndarray, n_judged: np.ndarray) -> np.ndarray:
    """(topics, strata): for each topic, its strata with one judged document
    out of several, numbered in groups of two in stratum order (the last
    group of three when their number is odd); −1 for the other strata, −2
    for a lone such stratum (no group: its variance is not estimable)."""
    single = (n_judged == 1) & (n_listed > 1)
    out = np.full(n_listed.shape, -1, dtype=np.int64)
    for t in range(n_listed.shape[0]):
        where = np.flatnonzero(single[t])
        if where.size == 1:
            out[t, where] = -2
        elif where.size > 1:
            group = np.arange(where.size) // 2
            group[group == where.size // 2] = where.size // 2 - 1  # odd: a group of three
            out[t, where] = group
    return out


def irprec_core(
    seg: np.ndarray,
    k: np.ndarray,
    h: np.ndarray,
    length: np.ndarray,
    totals: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """R-precision of m rankings (``length`` documents each) as
    statAP_MQ_eval_v3.pl estimates it [Pavlu07], from their judged relevant
    documents (ranking ``seg``, rank ``k`` from 1, stratum ``h``), with the
    strata's inclusion probabilities π_h = n_h/N_h: R̂ = Σ_{judged relevant}
    1/π and R = int(R̂ + 0.5); the sum of 1/π over the judged relevant
    documents in the first R, divided by R, or, for a ranking shorter than
    R, over all of them divided by R̂ (the script's fallback). 0 when R̂ = 0.
    Every document retrieved counts (the script reads the whole ranking)."""
    n_listed, n_judged, n_relevant = (t.astype(float) for t in totals)
    m = n_listed.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = np.where(n_judged > 0, n_listed / n_judged, 0.0)  # 1/π_h
    r_hat = (n_relevant * inverse).sum(axis=1)
    cut = np.floor(r_hat + 0.5)
    short = length < cut
    within = k <= cut[seg]
    found = np.bincount(seg[within], weights=inverse[seg, h][within], minlength=m)
    denominator = np.where(short, r_hat, cut)
    return np.divide(found, denominator, out=np.zeros(m), where=r_hat > 0)


class SampledRankings:
    """Many rankings (runs × topics) over one universe of documents, to be
    evaluated under many sampled collections of that universe (``bvtest
    budget``: R samples × runs, without writing or reading a file).

    A ranking is a segment of rows in rank order; each row holds the
    universe row of its document (−1: not in the universe). A sample is
    given as arrays over the universe: listed, stratum code, grade (−1 listed
    but not judged). The counts of judged and relevant documents above each
    judged relevant document are running counts over those rows only, so a
    sample costs about its judged rows, not every retrieved document; the
    listed counts, the same for every sample of one design (the strata of
    pps), are computed once per ``design`` key."""

    def __init__(
        self,
        qrow: np.ndarray,
        rank: np.ndarray,
        starts: np.ndarray,
        seg_topic: np.ndarray,
        universe_topic: np.ndarray,
        full_grade: np.ndarray,
        rel: int,
        n_topics: int | None = None,
    ) -> None:
        self.qrow, self.rank, self.starts = qrow, rank, starts
        self.seg_topic = seg_topic
        self.universe_topic = universe_topic
        if n_topics is None:
            n_topics = int(universe_topic.max()) + 1 if universe_topic.size else 0
        self.n_topics = n_topics
        self.rel = rel
        rows = qrow.size
        index = np.int32 if rows < 2**31 else np.int64
        in_u = qrow >= 0
        self._in_u = in_u
        # a universe row to gather from (masked by in_u); qrow itself when it has no −1
        self._q = qrow if in_u.all() else np.maximum(qrow, 0)
        # Rows that can ever be a judged relevant document: relevant in full.
        relevant = full_grade >= rel
        self.candidates = np.flatnonzero(in_u & relevant[self._q]).astype(index)
        # what every sample asks of the candidates: their universe rows and rankings
        self._candidate_q = self._q[self.candidates]
        self._candidate_seg = self.seg_of(self.candidates)
        self._every_row_in_u = bool(in_u.all())
        # counts of documents above a row fit 16 bits when every ranking does:
        # half the memory, and the (strata, hits) arrays of a sample stay
        # below the size from which the allocator maps (and the kernel
        # zeroes) fresh pages for every sample
        longest = int(np.diff(starts).max(initial=0))
        self._count_dtype = np.int16 if longest < 2**15 else np.int32
        self._listed: dict[object, np.ndarray] = {}

    def seg_of(self, rows: np.ndarray) -> np.ndarray:
        """The ranking (segment) of each row."""
        return np.searchsorted(self.starts, rows, side="right") - 1

    def _counts_above(
        self,
        flagged: np.ndarray,
        codes: np.ndarray,
        hits: np.ndarray,
        g: int,
        seg: np.ndarray | None = None,
    ):
        """(g, hits) counts of ``flagged`` rows (ascending) of each stratum
        above each hit (ascending), within its ranking (``seg``, if known)."""
        at_start = np.searchsorted(flagged, self.starts[:-1])
        at_hit = np.arange(hits.size) if flagged is hits else np.searchsorted(flagged, hits)
        seg = self.seg_of(hits) if seg is None else seg
        return self._counts_within(flagged, codes, at_start[seg], at_hit, g)

    def _counts_between(
        self, flagged: np.ndarray, codes: np.ndarray, lo: np.ndarray, hi: np.ndarray, g: int
    ) -> np.ndarray:
        """(g, len(lo)) counts of ``flagged`` rows (ascending) of each stratum
        in rows [lo, hi) of one ranking each (lo ascending)."""
        at_lo, at_hi = np.searchsorted(flagged, lo), np.searchsorted(flagged, hi)
        return self._counts_within(flagged, codes, at_lo, at_hi, g)

    def _counts_within(
        self, flagged: np.ndarray, codes: np.ndarray, at_lo: np.ndarray, at_hi: np.ndarray, g: int
    ) -> np.ndarray:
        """(g, len(at_lo)) counts of the flagged rows of each stratum between
        positions [at_lo, at_hi) of ``flagged``, each within one ranking
        (at_lo ascending): running counts, one stratum at a time, over
        chunks of whole rankings of at least ``_COUNT_CHUNK`` (64 K) flagged
        rows, so that the counts stay in the processor's cache while the
        strata are visited."""
        n = flagged.size
        # zeros: with nothing flagged (a run with no judged relevant document
        # has no hits) the loop below has no chunk and writes no cell
        out = np.zeros((g, at_lo.size), dtype=self._count_dtype)
        small = codes.astype(np.int16) if g < 2**15 else codes
        # chunks end at rankings' first rows, so no ranking spans two
        firsts = np.searchsorted(flagged, self.starts)
        wanted = np.arange(_COUNT_CHUNK, n, _COUNT_CHUNK)
        bounds = np.unique(np.concatenate(([0], firsts[np.searchsorted(firsts, wanted)], [n])))
        queries = np.searchsorted(at_lo, bounds)
        queries[-1] = at_lo.size  # the rankings with nothing flagged after the last row
        running = np.zeros(min(n, 2 * _COUNT_CHUNK) + 1, dtype=np.int32)
        for c in range(len(bounds) - 1):
            q0, q1 = queries[c], queries[c + 1]
            if q1 == q0:
                continue
            f0, f1 = bounds[c], bounds[c + 1]
            part = small[f0:f1]
            if running.size < f1 - f0 + 1:
                running = np.zeros(f1 - f0 + 1, dtype=np.int32)
            hi, lo = at_hi[q0:q1] - f0, at_lo[q0:q1] - f0
            for k in range(g):
                np.cumsum(part == k, out=running[1 : f1 - f0 + 1])
                np.subtract(running[hi], running[lo], out=out[k, q0:q1])
        return out

    def evaluate(
        self,
        kinds: tuple[str, ...],
        listed: np.ndarray,
        code: np.ndarray,
        grade: np.ndarray,
        strata: int,
        design: object = None,
    ) -> dict[str, np.ndarray]:
        """The estimators ``kinds`` (xinfAP, statAP, infNDCG, inum_rel,
        inum_rel_ret, iP@k, iRprec: :func:`sampled_kind`) of every ranking under one
        sample: (rankings,) arrays."""
        topic = self.universe_topic
        cell = topic.astype(np.int64) * strata + code
        size = self.n_topics * strata

        def count(keep: np.ndarray) -> np.ndarray:
            return np.bincount(cell[keep], minlength=size).reshape(self.n_topics, strata)

        judged_u = listed & (grade >= 0)
        relevant_u = listed & (grade >= self.rel)
        per_topic = (count(listed), count(judged_u), count(relevant_u))
        totals = tuple(t[self.seg_topic] for t in per_topic)
        q, in_u = self._q, self._in_u
        hit_mask = relevant_u[self._candidate_q]
        hits = self.candidates[hit_mask]
        h = code[self._candidate_q[hit_mask]]
        seg = self._candidate_seg[hit_mask]
        k = self.rank[hits] + 1.0
        # the judged relevant rows are exactly the hits
        above_rel = self._counts_above(hits, h, hits, strata, seg)
        out: dict[str, np.ndarray] = {}
        if "statAP" in kinds:
            out["statAP"] = statap_core(seg, k, h, above_rel, totals)
        if "xinfAP" in kinds:
            judged_q = judged_u[q]
            judged_rows = np.flatnonzero(judged_q if self._every_row_in_u else in_u & judged_q)
            above_judged = self._counts_above(judged_rows, code[q[judged_rows]], hits, strata, seg)
            above_listed = self._listed_above(listed, code, strata, design, hit_mask, hits)
            head = self.rank[hits] < XINF_DEPTH
            if head.all():
                above = (above_listed, above_judged, above_rel)
            else:
                above = (above_listed[:, head], above_judged[:, head], above_rel[:, head])
            out["xinfAP"] = xinfap_core(seg[head], k[head], h[head], above, totals)
        if "inum_rel" in kinds:
            out["inum_rel"] = relevant_estimates(totals)[1]
        if "iRprec" in kinds:
            out["iRprec"] = irprec_core(seg, k, h, np.diff(self.starts), totals)
        cutoffs = sorted({int(kind[3:]) for kind in kinds if kind.startswith("iP@")})
        if cutoffs or "inum_rel_ret" in kinds or "infNDCG" in kinds:
            judged_rows = np.flatnonzero(in_u & judged_u[q])
            listed_rows = np.flatnonzero(in_u & listed[q])
            flagged = (
                (listed_rows, code[q[listed_rows]]),
                (judged_rows, code[q[judged_rows]]),
                (hits, h),
            )
            lo = self.starts[:-1]
            length = np.diff(self.starts)

            def head_counts(depth: int) -> np.ndarray:
                # (listed, judged, relevant) × strata × rankings among the first `depth`
                hi = lo + np.minimum(length, depth)
                return np.stack([self._counts_between(f, c, lo, hi, strata) for f, c in flagged])

            whole = head_counts(XINF_DEPTH)
            if "inum_rel_ret" in kinds:
                out["inum_rel_ret"] = estimated_relevant_retrieved(whole)
            for cutoff in cutoffs:
                counts = whole if cutoff >= XINF_DEPTH else head_counts(cutoff)
                out[f"iP@{cutoff}"] = estimated_relevant_retrieved(counts) / cutoff
            if "infNDCG" in kinds:
                if self.rel != 1:  # its relevant documents are those of grade > 0
                    raise ValueError("infNDCG is computed at relevance level 1 only")
                head = self.rank[hits] < XINF_DEPTH
                ideal = sample_eval_ideal_dcg(
                    topic, code, grade, listed, per_topic[0], per_topic[1]
                )[self.seg_topic]
                out["infNDCG"] = infndcg_core(
                    seg[head],
                    self.rank[hits[head]].astype(np.int64) + 1,
                    h[head],
                    grade[q[hits[head]]].astype(float),
                    (whole[0], whole[1]),
                    ideal,
                )
        return out

    def variance(
        self,
        kind: str,
        listed: np.ndarray,
        code: np.ndarray,
        grade: np.ndarray,
        strata: int,
        method: str = "jackknife",
    ) -> np.ndarray:
        """The sampling variance of the estimator ``kind`` (statAP or xinfAP)
        of every ranking under one sample, estimated from that sample:
        (rankings,), NaN where it is not estimable. ``method``: "jackknife",
        the stratified jackknife (:meth:`jackknife_variance`; xinfAP, no HT
        estimator, has only it), or, for statAP, "linearized", the
        Horvitz–Thompson variance of its linearization with the design's
        joint inclusion probabilities (:func:`statap_variance_core`). On
        pps samples of the sample track (100 judgments in 20 strata) the
        jackknife's mean estimate was 1.03 × the variance over samples and
        the linearized one 0.80 × (docs/measures.md): hence the default."""
        if kind not in VARIANCE_KINDS:
            raise ValueError(f"no sampling variance for {kind}: statAP and xinfAP only")
        if method == "jackknife":
            return self.jackknife_variance(kind, listed, code, grade, strata)
        if method != "linearized" or kind != "statAP":
            raise ValueError(f"no {method} sampling variance of {kind}")
        topic = self.universe_topic
        cell = topic.astype(np.int64) * strata + code
        size = self.n_topics * strata

        def count(keep: np.ndarray) -> np.ndarray:
            return np.bincount(cell[keep], minlength=size).reshape(self.n_topics, strata)

        relevant_u = listed & (grade >= self.rel)
        per_topic = (count(listed), count(listed & (grade >= 0)), count(relevant_u))
        totals = tuple(t[self.seg_topic] for t in per_topic)
        hits = self.candidates[relevant_u[self._q[self.candidates]]]
        h = code[self._q[hits]]
        above = self._counts_above(hits, h, hits, strata)
        collapse = collapsed_strata(per_topic[0], per_topic[1])[self.seg_topic]
        return statap_variance_core(
            self.seg_of(hits), self.rank[hits] + 1.0, h, above, totals, collapse
        )

    def jackknife_variance(
        self, kind: str, listed: np.ndarray, code: np.ndarray, grade: np.ndarray, strata: int
    ) -> np.ndarray:
        """The stratified delete-one jackknife variance of the estimator
        ``kind`` (any of :meth:`evaluate`) of every ranking [Wolter07] §4.5:
        Σ_h (1 − n_h/N_h) ((n_h − 1)/n_h) Σ_{j ∈ h} (θ̂₍ⱼ₎ − θ̄₍h₎)², θ̂₍ⱼ₎ the
        estimate with judged document j left unjudged (the sample of
        n_h − 1 that remains is a simple random sample too). Topics are
        independent, so the j-th judged document of every topic is left out
        in one evaluation. NaN where a stratum has one judged document of
        several (its jackknife term is 0, not an estimate)."""
        topic = self.universe_topic
        rows = np.flatnonzero(listed & (grade >= 0))
        rows = rows[np.argsort(topic[rows], kind="stable")]
        t = topic[rows]
        position = np.arange(rows.size) - np.searchsorted(t, t)
        full = self.evaluate((kind,), listed, code, grade, strata)[kind]
        m = full.size
        s1 = np.zeros((m, strata))
        s2 = np.zeros((m, strata))
        where = np.arange(m)
        for j in range(int(position.max(initial=-1)) + 1):
            left_out = rows[position == j]
            reduced = grade.copy()
            reduced[left_out] = -1
            value = self.evaluate((kind,), listed, code, reduced, strata)[kind]
            stratum_of = np.full(self.n_topics, -1, dtype=np.int64)
            stratum_of[topic[left_out]] = code[left_out]
            hs = stratum_of[self.seg_topic]
            ok = hs >= 0
            dev = value - full  # deviations from the full estimate: no cancellation
            np.add.at(s1, (where[ok], hs[ok]), dev[ok])
            np.add.at(s2, (where[ok], hs[ok]), dev[ok] ** 2)
        cell = topic.astype(np.int64) * strata + code
        size = self.n_topics * strata
        n_listed = np.bincount(cell[listed], minlength=size).reshape(self.n_topics, strata)
        n_judged = np.bincount(cell[rows], minlength=size).reshape(self.n_topics, strata)
        n_listed, n_judged = n_listed[self.seg_topic].astype(float), n_judged[self.seg_topic]
        with np.errstate(divide="ignore", invalid="ignore"):
            spread = s2 - np.where(n_judged > 0, s1 * s1 / n_judged, 0.0)
            factor = np.where(
                n_judged > 0, (1 - n_judged / n_listed) * (n_judged - 1) / n_judged, 0
            )
        variance = (factor * np.maximum(spread, 0.0)).sum(axis=1)
        lone = ((n_judged == 1) & (n_listed > 1)).any(axis=1)
        return np.where(lone, np.nan, variance)

    def prepare(self, listed: np.ndarray, code: np.ndarray, strata: int, design: object) -> None:
        """Count, once, the listed documents of each stratum above every row
        that can be a judged relevant document, for the samples of
        ``design`` (whose listed documents and strata are these): what every
        sample of a pps design shares."""
        rows = np.flatnonzero(self._in_u & listed[self._q])
        self._listed[design] = self._counts_above(
            rows, code[self._q[rows]], self.candidates, strata
        )

    def _listed_above(self, listed, code, strata, design, hit_mask, hits) -> np.ndarray:
        """Listed documents above each hit: for a ``design`` seen before, from
        its counts at every candidate row."""
        if design is None:
            rows = np.flatnonzero(self._in_u & listed[self._q])
            return self._counts_above(rows, code[self._q[rows]], hits, strata)
        if design not in self._listed:
            self.prepare(listed, code, strata, design)
        return self._listed[design][:, hit_mask]
