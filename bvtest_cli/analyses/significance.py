"""Paired significance tests of many pairs of runs, and multiple-comparison corrections.

Input: paired differences ``d`` of shape (k, n), k pairs over the same n
topics, d = score_a − score_b per topic. Every test is two-sided and
vectorised over the pairs (any leading shape (..., n) works for the
classical tests).

- :func:`t_test` (paired Student t), :func:`wilcoxon_test` (signed-rank, as
  R's ``wilcox.test``), :func:`sign_test` (exact binomial) and
  :func:`bootstrap_test` (the studentized paired bootstrap of [Sakai06]);
- :func:`randomization_test`: the paired randomization (sign-flip) test of
  the mean difference [Fisher35; Smucker07] with no p-value floor: exact
  enumeration for pairs with few non-zero differences, otherwise an
  interval around the exact p narrowed only until every pair's decision
  under the correction is settled — deterministic bounds (Hoeffding's,
  :func:`chernoff_bound`, :func:`grid_bounds`) and sequential Monte-Carlo
  draws with Clopper–Pearson bounds;
- :func:`adjust`: Holm [Holm79], Bonferroni, Benjamini–Hochberg [BH95].

Pure numpy and scipy.special (imported lazily: scipy.stats costs most of a
second of start-up), no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..defaults import CORRECTIONS  # the corrections :func:`adjust` knows, the default first
from .streams import PAIRED_BOOTSTRAP, SIGN_FLIPS, generator, resample_counts

#: Sign vectors per block of the randomization test: the flips of block b
#: are keyed by b alone, so a pair that draws B resamples always sees the
#: first B of one fixed stream, whatever the batch sizes.
FLIP_BLOCK = 1024

#: Bound on the elements of one (sign vectors × pairs) block of sums.
_SUM_ELEMENTS = 1 << 22

#: Relative tolerance (to Σ|d_i|, which bounds every sign-flipped sum) under
#: which two sums count as tied: the same sum added in another order differs
#: by at most n·ε·Σ|d_i| ≈ 1e-14·Σ|d_i| for n ≤ 50, far below it.
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PairedTest:
    """Per-pair statistic and two-sided p-value, each of shape (...).

    ``dropped`` (sign test only) counts the differences dropped as ties.
    """

    statistic: np.ndarray
    p: np.ndarray
    dropped: np.ndarray | None = None


def adjust(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of a 1-D array under ``method`` (one of :data:`CORRECTIONS`).

    With the k non-NaN p-values sorted ascending, p_(1) ≤ … ≤ p_(k):

    - ``holm`` (step-down [Holm79]): p̃_(i) = max_{j ≤ i} min(1, (k − j + 1) p_(j));
    - ``bonferroni``: p̃_i = min(1, k p_i);
    - ``bh`` (step-up [BH95]): p̃_(i) = min_{j ≥ i} min(1, k p_(j) / j);
    - ``none``: p̃ = p.

    Rejecting where p̃ ≤ α is the procedure's decision at level α (Holm and
    Bonferroni control the family-wise error, BH the false discovery rate).
    Every p̃_i is non-decreasing in every p_j. Non-finite p-values stay NaN
    and are not counted in the family.
    """
    p = np.asarray(p, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"adjust expects a 1-D array, got shape {p.shape}")
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; expected one of {CORRECTIONS}")
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    k = len(finite)
    if not k:
        return out
    if method == "none":
        out[finite] = p[finite]
    elif method == "bonferroni":
        out[finite] = np.minimum(1.0, k * p[finite])
    else:
        order = finite[np.argsort(p[finite], kind="stable")]
        rank = np.arange(1, k + 1)
        if method == "holm":
            out[order] = np.maximum.accumulate(np.minimum(1.0, (k - rank + 1) * p[order]))
        else:
            scaled = np.minimum(1.0, k * p[order] / rank)
            out[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return out


def _rejected(p: np.ndarray, method: str, levels: np.ndarray) -> np.ndarray:
    """(k, L) booleans: the correction's rejections at each level (p̃ ≤ α)."""
    return adjust(p, method)[:, np.newaxis] <= levels[np.newaxis, :]


def _decisions(p: np.ndarray, method: str, levels: np.ndarray) -> np.ndarray:
    """(k, 2L) booleans: at each level, the correction's rejections and the
    pair's own (p ≤ α, uncorrected): the two decisions a reader takes from
    the p_adj and p columns."""
    return np.concatenate(
        [_rejected(p, method, levels), p[:, np.newaxis] <= levels[np.newaxis, :]], axis=1
    )


# ---------------------------------------------------------------- classical tests


def t_test(d: np.ndarray) -> PairedTest:
    """Paired Student t test of mean(d) = 0, two-sided, over the last axis.

    t = mean / (sd / √n) with the sample sd (n − 1), p = 2 F_{n−1}(−|t|) by
    ``scipy.special.stdtr`` (as ``scipy.stats.ttest_rel``). When the
    differences do not vary (sd = 0) t is undefined; the p-value is then 1
    if they are all 0 and 0 otherwise (a constant non-zero shift: t = ±∞).
    With n < 2 both are NaN.
    """
    from scipy.special import stdtr

    d = np.asarray(d, dtype=float)
    n = d.shape[-1]
    if n < 2:
        nan = np.full(d.shape[:-1], np.nan)
        return PairedTest(nan, nan.copy())
    mean = d.mean(axis=-1)
    sd = d.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    flat = sd == 0
    t = np.where(flat, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)), t)
    p = np.where(flat, np.where(mean == 0, 1.0, 0.0), 2.0 * stdtr(n - 1, -np.abs(t)))
    return PairedTest(t, p)


@lru_cache(maxsize=64)
def _signrank_cdf(n: int) -> np.ndarray:
    """P(V ≤ v), v = 0 … n(n+1)/2, of the signed-rank statistic with ranks 1 … n.

    Counts the subsets of {1, …, n} by their sum (a DP adding one rank at a
    time); the counts stay below 2^n, exact in int64 (n < 63).
    """
    top = n * (n + 1) // 2
    counts = np.zeros(top + 1, dtype=np.int64)
    counts[0] = 1
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    return np.cumsum(counts) / 2.0**n


def _tie_ranks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest rank (1-based, float) of each value's tie group, row by row
    (``scipy.stats.rankdata``'s ``min`` and ``max`` methods, without scipy.stats)."""
    rows, n = a.shape
    order = np.argsort(a, axis=1, kind="stable")
    sa = np.take_along_axis(a, order, axis=1)
    pos = np.broadcast_to(np.arange(n), (rows, n))
    starts = np.ones((rows, n), dtype=bool)
    starts[:, 1:] = sa[:, 1:] != sa[:, :-1]
    ends = np.ones((rows, n), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, pos, n - 1)[:, ::-1], axis=1)[:, ::-1]
    lo, hi = np.empty((rows, n)), np.empty((rows, n))
    np.put_along_axis(lo, order, first + 1.0, axis=1)
    np.put_along_axis(hi, order, last + 1.0, axis=1)
    return lo, hi


def wilcoxon_test(d: np.ndarray) -> PairedTest:
    """Wilcoxon signed-rank test of symmetry about 0, two-sided, as R's ``wilcox.test``.

    Zero differences are dropped (n′ = the non-zero ones); |d| is ranked
    with mid-ranks for ties and V = the sum of the ranks of the positive
    differences (R's statistic). As R with ``exact = NULL, correct = TRUE``:

    - n′ < 50 with no tie and no zero: the exact null distribution of V
      (every sign pattern of ranks 1 … n′ equally likely, by a DP over the
      ranks), p = min(1, 2 min(P(V′ ≤ V), P(V′ ≥ V)));
    - otherwise the normal approximation: z = (V − n′(n′+1)/4 − ½ sign(·)) / σ
      with σ² = n′(n′+1)(2n′+1)/24 − Σ(t³ − t)/48 over the tie groups of size
      t, p = 2 Φ(−|z|).

    Ties are exact equality of |d|, as in R. With every difference 0 (n′ = 0)
    V = 0 and p = 1 (R returns NaN there).
    """
    from scipy.special import ndtr

    d = np.asarray(d, dtype=float)
    lead, n = d.shape[:-1], d.shape[-1]
    x = d.reshape(-1, n)
    a = np.abs(x)
    zeros = (x == 0).sum(axis=1)
    lo_rank, hi_rank = _tie_ranks(a)
    # zeros hold ranks 1 … z of |d|, so a non-zero one's rank among the non-zero is its rank − z
    rank = (lo_rank + hi_rank) / 2.0 - zeros[:, np.newaxis]
    v = np.where(x > 0, rank, 0.0).sum(axis=1)
    tie = hi_rank - lo_rank + 1.0  # the size of each value's tie group
    ties = np.where(x != 0, tie * tie - 1.0, 0.0).sum(axis=1)  # Σ over groups of t³ − t
    m = n - zeros
    p = np.ones(len(x))
    centred = v - m * (m + 1) / 4.0
    sigma = np.sqrt(m * (m + 1) * (2 * m + 1) / 24.0 - ties / 48.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (centred - 0.5 * np.sign(centred)) / sigma
    normal = m > 0
    p[normal] = 2.0 * ndtr(-np.abs(z[normal]))
    exact = (m < 50) & (zeros == 0) & (ties == 0) & (m > 0)
    if exact.any():
        cdf = _signrank_cdf(n)
        vi = np.rint(v[exact]).astype(np.intp)
        below = cdf[vi]
        above = 1.0 - np.where(vi > 0, cdf[np.maximum(vi - 1, 0)], 0.0)
        p[exact] = np.minimum(1.0, 2.0 * np.minimum(below, above))
    return PairedTest(v.reshape(lead), p.reshape(lead))


def sign_test(d: np.ndarray, tol: float = 1e-12) -> PairedTest:
    """Sign test of median(d) = 0, two-sided, with the exact binomial p-value.

    Differences with |d| ≤ ``tol`` are dropped as ties (``dropped`` counts
    them); of the n′ left, S are positive. p = min(1, 2 P(X ≤ min(S, n′ − S)))
    with X ~ Binomial(n′, ½): the two-sided p of ``scipy.stats.binomtest`` and
    R's ``binom.test``, which for p₀ = ½ sum the outcomes no more likely than
    S — by symmetry the two equal tails. The statistic is S; with n′ = 0, p = 1.
    """
    from scipy.special import bdtr

    d = np.asarray(d, dtype=float)
    kept = np.abs(d) > tol
    m = kept.sum(axis=-1)
    s = (kept & (d > 0)).sum(axis=-1)
    low = np.minimum(s, m - s)
    with np.errstate(invalid="ignore"):
        p = np.where(m > 0, np.minimum(1.0, 2.0 * bdtr(low, np.maximum(m, 1), 0.5)), 1.0)
    return PairedTest(s, p, d.shape[-1] - m)


def bootstrap_test(d: np.ndarray, B: int = 1000, seed: int = 0) -> PairedTest:
    """Sakai's studentized paired bootstrap test of mean(d) = 0 [Sakai06], two-sided.

    The differences are shifted to mean 0 (z = d − d̄, so that H0 holds in
    the bootstrap world), B resamples of the n topics are drawn with
    replacement — the same resamples for every pair — and
    t* = mean(z*) / (sd(z*)/√n) is compared with t = d̄ / (sd(d)/√n):
    p = #{|t*| ≥ |t|} / B, Sakai's achieved significance level (it can be 0).
    A resample with no spread (sd(z*) within the tie tolerance of the scale,
    :data:`~bvtest_cli.analyses.rankings.TIE_RTOL`) has t* = ±∞ when its mean
    is not 0 — a constant shift, as :func:`t_test` rules — and t* = 0 when it
    is (as :func:`~bvtest_cli.analyses.sensitivity.delta_needed` counts them);
    on 2 topics that is half the resamples, and p = 1/2 as enumeration gives.
    As for :func:`t_test`, d that do not vary give p = 1 when all 0 and p = 0
    otherwise, and fewer than 2 topics give NaN.
    Returns t and p. The resamples are :func:`~.streams.resample_counts` of
    stream ``PAIRED_BOOTSTRAP``, which sensitivity's :func:`delta_needed`
    draws too: the same resamples, the same p-values.
    """
    from .rankings import TIE_RTOL

    d = np.asarray(d, dtype=float)
    lead, n = d.shape[:-1], d.shape[-1]
    if B < 1:
        raise ValueError(f"bootstrap_test needs B ≥ 1, got B = {B}")
    if n < 2:
        nan = np.full(lead, np.nan)
        return PairedTest(nan, nan.copy())
    x = d.reshape(-1, n)
    classical = t_test(x)
    t = classical.statistic
    z = x - x.mean(axis=1, keepdims=True)
    # rounding noise of a centred value or of a resample's spread is no spread
    tol = TIE_RTOL * np.maximum(1.0, np.abs(x).max(axis=1))
    counts = resample_counts(n, B, seed, PAIRED_BOOTSTRAP).astype(float)
    hits = np.zeros(len(x))
    chunk = max(1, _SUM_ELEMENTS // B)
    for s in range(0, len(x), chunk):
        zc = z[s : s + chunk]
        mean = counts @ zc.T / n  # (B, pairs)
        # Σ c_i (z_i − mean)² = Σ c_i z_i² − n mean²; clipped at 0 against rounding
        ss = np.maximum(counts @ (zc * zc).T - n * mean * mean, 0.0)
        sd = np.sqrt(ss / (n - 1))
        small = tol[s : s + chunk]
        flat = sd <= small
        with np.errstate(divide="ignore", invalid="ignore"):
            tb = np.where(
                flat, np.where(np.abs(mean) <= small, 0.0, np.inf), mean / (sd / math.sqrt(n))
            )
        hits[s : s + chunk] = (np.abs(tb) >= np.abs(t[s : s + chunk])).sum(axis=0)
    # differences that do not vary: t's own rule (t = 0 or ±∞)
    p = np.where(x.std(axis=1) == 0, classical.p, hits / B)
    return PairedTest(t.reshape(lead), p.reshape(lead))


# ---------------------------------------------------------------- randomization test


@dataclass(frozen=True)
class RandomizationTest:
    """The paired randomization test of k pairs under a correction, per pair (k,).

    ``p`` is the reported two-sided p-value, the estimate a randomization test
    gives: exact where ``exact`` (enumerated), else (1 + h)/(1 + ``draws``)
    with h of the first ``draws`` sign vectors of the pair's stream reaching
    the observed |sum| (Phipson & Smyth's never-zero Monte-Carlo p) — the
    pair's own number, whatever the other pairs, the correction or the
    levels — moved into [``p_lower``, ``p_upper``] where it
    falls outside (the interval holds the exact p but with probability
    ``error``; the estimate is the noisier of the two); an unresolved pair's
    p is ``p_upper``, so that its decision is the conservative one. [``p_lower``,
    ``p_upper``] is the interval that settles the decisions: narrowed until
    each pair's decisions at every level — the corrected one and its own
    p ≤ level — are the same wherever in it the pair's and every other
    pair's exact p lies (``resolved``); ``p_upper`` is a valid p-value
    itself. ``estimate`` is the plain Monte-Carlo share (the exact p where
    exact, NaN where nothing was drawn), ``bound`` Hoeffding's sub-Gaussian
    bound on the exact p. ``resamples`` counts the sign vectors the
    resolution drew (0 when exact or when a bound alone settled the pair),
    ``draws`` those of the estimate. ``p_adjusted`` is ``adjust(p,
    correction)`` and ``significant`` (k, len(levels)) is p_adjusted ≤ level:
    for a resolved pair the decision of the exact test, since ``p`` lies in
    the interval. Pairs with a non-finite difference have NaN p-values, are
    left out of the family and are neither significant nor unresolved.
    """

    p: np.ndarray
    p_lower: np.ndarray
    p_upper: np.ndarray
    estimate: np.ndarray
    bound: np.ndarray
    resamples: np.ndarray
    exact: np.ndarray
    resolved: np.ndarray
    p_adjusted: np.ndarray
    significant: np.ndarray
    levels: tuple[float, ...]
    correction: str
    error: float
    draws: int

    @property
    def unresolved(self) -> np.ndarray:
        """Indices of the pairs whose decision the resamples could not settle."""
        return np.flatnonzero(~self.resolved)


def default_max_resamples(pairs: int, level: float) -> int:
    """Resamples one pair may use by default: enough that 1/(B + 1) is a
    hundredth of Bonferroni's level/pairs, between 2^16 and 2^21 (which
    keeps all pairs of 129 runs × 50 topics within seconds)."""
    want = 100.0 * max(1, pairs) / level
    return int(min(1 << 21, max(1 << 16, want)))


def _sign_bits(n: int, start: int, stop: int) -> np.ndarray:
    """(stop − start, n) floats 0/1: which topics flip in sign vectors start … stop − 1
    of the enumeration. Topic 0 never flips: a vector and its negation give
    the same |sum|, so the 2^(n−1) vectors with topic 0 kept stand for all 2^n."""
    v = np.arange(start, stop, dtype=np.int64)[:, np.newaxis]
    bits = np.zeros((stop - start, n))
    bits[:, 1:] = (v >> np.arange(n - 1)) & 1
    return bits


def _count_hits(
    bits: np.ndarray, d: np.ndarray, total: np.ndarray, threshold: np.ndarray
) -> np.ndarray:
    """Per pair (rows of d), the sign vectors (rows of bits, 1 = flip) whose
    |sum| reaches the threshold: Σ ε_i d_i = Σ d_i − 2 Σ_{flipped} d_i."""
    hits = np.zeros(len(d), dtype=np.int64)
    chunk = max(1, _SUM_ELEMENTS // max(1, len(bits)))
    for s in range(0, len(d), chunk):
        sl = slice(s, s + chunk)
        sums = total[sl] - 2.0 * (bits @ d[sl].T)
        hits[sl] = (np.abs(sums) >= threshold[sl]).sum(axis=0)
    return hits


def _exact_p(d: np.ndarray, total: np.ndarray, threshold: np.ndarray, batch: int) -> np.ndarray:
    """Exact p of each row of d (its non-zero entries only, ≤ 30 of them) by
    enumerating 2^(m−1) sign vectors in blocks of ``batch``."""
    p = np.ones(len(d))
    nonzero = d != 0
    m = nonzero.sum(axis=1)
    for size in np.unique(m):
        rows = np.flatnonzero(m == size)
        if size == 0:
            continue  # every sum is 0 = the observed one
        packed = d[rows][nonzero[rows]].reshape(len(rows), size)
        hits = np.zeros(len(rows), dtype=np.int64)
        vectors = 1 << (int(size) - 1)
        for start in range(0, vectors, batch):
            bits = _sign_bits(int(size), start, min(vectors, start + batch))
            hits += _count_hits(bits, packed, total[rows], threshold[rows])
        p[rows] = hits / vectors
    return p


def _clopper_pearson(hits: np.ndarray, draws: int, error: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper–Pearson bounds, each missing with probability ≤ ``error``."""
    from scipy.special import betaincinv

    h = hits.astype(float)
    with np.errstate(invalid="ignore"):
        lower = np.where(h > 0, betaincinv(np.maximum(h, 1), draws - h + 1, error), 0.0)
        upper = np.where(h < draws, betaincinv(h + 1, np.maximum(draws - h, 1), 1 - error), 1.0)
    return lower, upper


def chernoff_bound(d: np.ndarray, threshold: np.ndarray, iterations: int = 30) -> np.ndarray:
    """Chernoff's bound on each row's exact randomization p, P(|Σ ε_i d_i| ≥ t):

        p ≤ 2 min_λ>0 exp(−λ t + Σ log cosh(λ d_i)),

    (Markov's inequality on exp(λ Σ ε_i d_i), whose mean is Π cosh(λ d_i)).
    Since log cosh x ≤ x²/2 it is never above Hoeffding's 2 exp(−t²/(2 Σ d_i²)),
    whose λ = t / Σ d_i² starts Newton's iterations: f′(λ) = −t + Σ d_i tanh(λ d_i)
    is concave and increasing, ≤ 0 there, so the iterates rise to the minimum
    without passing it (and any λ gives a valid bound). Returns (k,).
    """
    a = np.abs(np.asarray(d, dtype=float))
    t = np.asarray(threshold, dtype=float)
    squares = (a * a).sum(axis=1)
    out = np.ones(len(a))
    live = (t > 0) & (squares > 0)
    a, t, squares = a[live], t[live], squares[live]
    lam = t / np.where(squares > 0, squares, 1.0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for _ in range(iterations):
            th = np.tanh(lam[:, np.newaxis] * a)
            slope = (a * th).sum(axis=1) - t
            curve = (a * a * (1.0 - th * th)).sum(axis=1)
            step = np.where(curve > 0, -slope / curve, 0.0)
            step = np.where(np.isfinite(step) & (step > 0), step, 0.0)
            lam = lam + step
            if not (step > 1e-9 * lam).any():
                break
        x = lam[:, np.newaxis] * a
        log_cosh = x + np.log1p(np.exp(-2.0 * x)) - math.log(2.0)  # stable for large x
        exponent = -lam * t + log_cosh.sum(axis=1)
    out[live] = np.minimum(1.0, 2.0 * np.exp(exponent))
    return out


#: Grid sizes of :func:`grid_bounds`, coarse to fine, tried in turn on the
#: pairs the Monte-Carlo draws have not settled.
GRID_POINTS = (1 << 11, 1 << 14, 1 << 17)

#: Bound on n × points of one row's grid DP: finer grids are cut to it.
_GRID_WORK = 1 << 23


_EPS = float(np.finfo(float).eps)


def _decimal_lattice(a: np.ndarray, points: int) -> tuple[np.ndarray | None, float]:
    """Integers g and a step h with a = g h (to rounding) and Σ g ≤ ``points``,
    when the values lie on a decimal grid 10^−j (j ≤ 6; scores such as P@10
    or rounded ones do), g divided by their common divisor; else (None, 0)."""
    for j in range(7):
        scale = 10.0**j
        g = np.rint(a * scale)
        if np.abs(a * scale - g).max() <= 1e-9 * max(1.0, float(g.max())):
            g = g.astype(np.int64)
            common = int(np.gcd.reduce(g))
            if common > 0 and g.sum() // common <= points:
                return g // common, common / scale
            return None, 0.0
    return None, 0.0


def grid_bounds(
    d: np.ndarray, threshold: np.ndarray | None = None, points: int = 1 << 14
) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic lower and upper bounds on each row's exact randomization p.

    p = P(|Σ ε_i d_i| ≥ t) over uniform signs ε, with t = ``threshold``
    (default |Σ d_i| − TIE_TOLERANCE Σ |d_i|, :func:`randomization_test`'s).
    Σ ε_i d_i has the law of Σ ε_i a_i, a_i = |d_i|. On a grid of step h
    let G_i = round(a_i / h) and R = Σ |a_i − G_i h|; then
    |Σ ε_i a_i − h Σ ε_i G_i| ≤ R for every ε, so

        P(|Σ ε_i G_i| h ≥ t + R) ≤ p ≤ P(|Σ ε_i G_i| h ≥ t − R),

    and the law of the integer sum Σ ε_i G_i is computed exactly by a DP
    over the n steps (the shift algorithm [Streitberg86]), n × Σ G_i work.
    The step is a decimal 10^−j (j ≤ 6) times a common divisor when the
    values lie on that grid with Σ G_i ≤ ``points`` — then R is only
    rounding and the two bounds meet: the exact p — else h = Σ a_i / ``points``,
    and the band R ≤ n h / 2 shrinks as ``points`` grows.
    Floating point: R gets a slack of 4 n ε Σ a_i, the grid thresholds
    10^−13 Σ a_i / h steps (both below the tie tolerance, so an observed sum
    on the grid stays in both bounds), the tail sums a relative 1e-9 (each
    computed probability is a sum of positive terms, off by at most
    (n + Σ G_i) ε relatively).
    Rows of shape (k, n); returns (lower, upper), each (k,).
    """
    d = np.asarray(d, dtype=float)
    if threshold is None:
        threshold = np.abs(d.sum(axis=1)) - TIE_TOLERANCE * np.abs(d).sum(axis=1)
    d = np.abs(d)
    lower, upper = np.ones(len(d)), np.ones(len(d))
    for j, (row, t) in enumerate(zip(d, np.asarray(threshold, dtype=float), strict=True)):
        a = row[row > 0]
        total = a.sum()
        if t <= 0 or total == 0:
            continue  # every sum reaches t: p = 1
        g, h = _decimal_lattice(a, points)
        if g is None:
            h = total / points
            g = np.rint(a / h).astype(np.int64)
        # the float error of a − g h and of the sums is below 4 n ε Σ a
        band = np.abs(a - g * h).sum() + 4 * len(a) * _EPS * total
        slack = 1e-13 * total / h  # in grid steps: above the float error of (t ± band) / h
        g = g[g > 0]
        top, pad = int(g.sum()), int(g.max(initial=0))
        centre = top + pad
        prob = np.zeros(2 * centre + 1)
        prob[centre] = 1.0
        reach = 0
        for step in g.tolist():
            reach += step
            lo_, hi_ = centre - reach, centre + reach + 1
            prob[lo_:hi_] = 0.5 * (prob[lo_ - step : hi_ - step] + prob[lo_ + step : hi_ + step])
        tail = np.cumsum(prob[::-1])[::-1]  # tail[centre + u] = P(Σ ε G ≥ u)

        def at_least(u: int, tail: np.ndarray = tail, centre: int = centre) -> float:
            """P(|Σ ε G| ≥ u)."""
            if u <= 0:
                return 1.0
            return 2.0 * float(tail[centre + u]) if centre + u < len(tail) else 0.0

        up = math.ceil((t - band) / h - slack)
        low = math.ceil((t + band) / h + slack)
        upper[j] = min(1.0, at_least(up) * (1 + 1e-9) + 1e-300)
        lower[j] = at_least(low) * (1 - 1e-9)
    return lower, upper


@dataclass(frozen=True)
class Resolution:
    """How :func:`randomization_test` settles the pairs: ``batch`` sign vectors
    per block (the first round's rounded up to a multiple of FLIP_BLOCK),
    enumeration of the pairs with at most ``exact_topics`` (0 … 30) non-zero
    differences, the ``grids`` of :func:`grid_bounds` (coarse to fine), and
    δ = ``error``, what the intervals may miss with (default min(levels)/(10⁶ k))."""

    batch: int = 4096
    exact_topics: int = 16
    grids: tuple[int, ...] = GRID_POINTS
    error: float | None = None


def _checked(
    d: np.ndarray, levels: Sequence[float], correction: str, draws: int, how: Resolution
) -> tuple[np.ndarray, np.ndarray]:
    """The differences as floats (k, n) and the levels as an array, refusing
    arguments :func:`randomization_test` cannot take."""
    d = np.asarray(d, dtype=float)
    if d.ndim != 2:
        raise ValueError(f"randomization_test expects differences (k, n), got shape {d.shape}")
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; expected one of {CORRECTIONS}")
    alpha = np.asarray(levels, dtype=float).ravel()
    if alpha.size == 0 or np.any(~(alpha > 0) | ~(alpha < 1)):
        raise ValueError(f"levels must lie in (0, 1), got {levels!r}")
    if how.batch < 1:
        raise ValueError(f"batch must be positive, got {how.batch}")
    if draws < 1:
        raise ValueError(f"draws must be positive, got {draws}")
    if not 0 <= how.exact_topics <= 30:
        raise ValueError(f"exact_topics must lie in 0 … 30, got {how.exact_topics}")
    return d, alpha


@dataclass(frozen=True)
class _Sums:
    """The differences as the sign-flip sums see them: ``x`` (k, n), 0 on the
    pairs not ``valid`` (a non-finite difference); S = Σ d_i (``total``); the
    ``threshold`` |S| − TIE_TOLERANCE · Σ|d_i| a flipped sum reaches to count."""

    x: np.ndarray
    valid: np.ndarray
    total: np.ndarray
    threshold: np.ndarray

    @classmethod
    def of(cls, d: np.ndarray) -> _Sums:
        valid = np.isfinite(d).all(axis=1) & (d.shape[1] > 0)
        x = np.where(valid[:, np.newaxis], d, 0.0)
        total = x.sum(axis=1)
        return cls(x, valid, total, np.abs(total) - TIE_TOLERANCE * np.abs(x).sum(axis=1))


def _hoeffding_bound(sums: _Sums) -> np.ndarray:
    """Hoeffding's bound for Rademacher sums, P(|Σ ε_i d_i| ≥ t) ≤
    2 exp(−t² / (2 Σ d_i²)) with t = |S|, capped at 1 (1 where every d_i is
    0). With Chernoff's (:func:`chernoff_bound`, never above it) it gives the
    deterministic D ≥ p the intervals start from: [0, δ + D]."""
    squares = (sums.x * sums.x).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        hoeffding = 2.0 * np.exp(-(sums.total**2) / (2 * squares))
    return np.where(squares > 0, np.minimum(1.0, hoeffding), 1.0)


@dataclass
class _Narrowing:
    """The intervals [lo, hi] around the pairs' exact p, narrowed in place.

    lo is the largest lower bound met, hi = min(1, δ + min(D, G, min_t U_t))
    with D the deterministic bound (``certain``, with G the grid's upper
    bound folded in) and U_t the Clopper–Pearson upper bounds (``upper``).
    hi is valid: the event E that some U_t < p has probability ≤ Σ_t δ/T = δ
    whatever the stopping rule (a union over the looks), and outside E,
    min(D, G, min_t U_t) ≥ p since D ≥ p and G ≥ p always; so P(hi ≤ α) ≤
    P(p ≤ α − δ) + P(E) ≤ (α − δ) + δ = α. It is not floored by 1/(B + 1):
    where a deterministic bound is below the Monte-Carlo one it is δ + that
    bound, and δ is a millionth of Bonferroni's min(levels)/k. Outside an
    event of probability ≤ 2kδ every exact p lies in its interval, so then
    every resolved pair's decision is the one the exact test would give.

    After each step the rejection sets with every p at its lower end and with
    every p at its upper end are computed (adjusted p-values are
    non-decreasing in every p), and each pair's own p ≤ α; a pair whose two
    ends agree, corrected and uncorrected, at every level leaves ``open_``.
    """

    lo: np.ndarray
    hi: np.ndarray
    upper: np.ndarray
    certain: np.ndarray
    open_: np.ndarray
    delta: float
    correction: str
    alpha: np.ndarray

    def settled(self) -> np.ndarray:
        """Per pair, whether its decisions are the same at both ends of its interval."""
        lo = _decisions(self.lo, self.correction, self.alpha)
        return (lo == _decisions(self.hi, self.correction, self.alpha)).all(axis=1)

    def settle(self) -> bool:
        """Mark the resolved pairs; whether any pair is left open."""
        self.open_ &= ~self.settled()
        return bool(self.open_.any())

    def narrow(
        self, rows: np.ndarray, low: np.ndarray, up: np.ndarray | None, sure: np.ndarray | None
    ) -> None:
        """Fold new bounds of pairs ``rows`` in: ``low`` ≤ p, ``up`` a
        Clopper–Pearson upper bound, ``sure`` a deterministic one."""
        lo, hi = self.lo, self.hi
        lo[rows] = np.maximum(lo[rows], low)
        if up is not None:
            self.upper[rows] = np.minimum(self.upper[rows], up)
        if sure is not None:
            self.certain[rows] = np.minimum(self.certain[rows], sure)
        hi[rows] = np.minimum(1.0, self.delta + np.minimum(self.certain[rows], self.upper[rows]))
        lo[rows] = np.minimum(lo[rows], hi[rows])


def _grid_steps(
    state: _Narrowing, sums: _Sums, grids: tuple[int, ...], most: int, per_look: float
) -> None:
    """After the first round: the deterministic bounds of :func:`grid_bounds`
    on each of the ``grids`` in turn, coarse to fine, each cut to _GRID_WORK
    / n points (the exact law of the differences rounded to a grid; an
    interval of a relative width of about n/(2 points) around p); the pairs
    they leave unresolved draw on only while ``most`` draws could still
    narrow their interval."""
    n = sums.x.shape[1]
    for points in sorted({min(int(g), max(1, _GRID_WORK // n)) for g in grids}):
        if not state.settle():
            break
        rows = np.flatnonzero(state.open_)
        low, sure = grid_bounds(sums.x[rows], sums.threshold[rows], points)
        state.narrow(rows, low, None, sure)
    rows = np.flatnonzero(state.open_)
    lo, hi = state.lo[rows], state.hi[rows]
    best_lo, best_up = _clopper_pearson(np.rint(0.5 * (lo + hi) * most), most, per_look)
    state.open_[rows[best_up - best_lo >= hi - lo]] = False


def _monte_carlo(
    state: _Narrowing, sums: _Sums, seed: int, first: int, blocks_max: int, grids: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Sign vectors drawn in rounds, each as many as all before, the same
    vectors for every pair still open, until every pair is resolved or has
    drawn blocks_max blocks. After round t a pair has Clopper–Pearson bounds L_t,
    U_t from its h hits in B draws, each missing p with probability ≤ δ/T
    (T rounds at most); after the first, the grids' bounds
    (:func:`_grid_steps`). Returns per pair its hits and its draws."""
    k, n = sums.x.shape
    ends = [min(first, blocks_max)]  # cumulative blocks first, 2·first, 4·first, …
    while ends[-1] < blocks_max:
        ends.append(min(2 * ends[-1], blocks_max))
    per_look = state.delta / len(ends)
    hits = np.zeros(k, dtype=np.int64)
    resamples = np.zeros(k, dtype=np.int64)
    done_blocks = 0
    for look, end in enumerate(ends):
        if not state.settle():
            break
        rows = np.flatnonzero(state.open_)
        dr, tr, thr = sums.x[rows], sums.total[rows], sums.threshold[rows]
        for b in range(done_blocks, end):
            hits[rows] += _count_hits(_flip_block(seed, b, n), dr, tr, thr)
        done_blocks = end
        resamples[rows] = end * FLIP_BLOCK
        low, up = _clopper_pearson(hits[rows], end * FLIP_BLOCK, per_look)
        state.narrow(rows, low, up, None)
        if look == 0:
            _grid_steps(state, sums, grids, blocks_max * FLIP_BLOCK, per_look)
    return hits, resamples


def _reported_p(
    sums: _Sums, state: _Narrowing, exact: np.ndarray, estimate: np.ndarray, seed: int, draws: int
) -> tuple[np.ndarray, np.ndarray]:
    """The p a pair reports: the exact p where enumerated, else (1 + h)/(1 +
    ``draws``), h of its first ``draws`` sign vectors reaching |S| (what a
    randomization test with ``draws`` permutations reports [Smucker07], never
    0), moved into [lo, hi] where it falls outside, so that p_adj = adjust(p)
    ≤ α is the interval's decision for every resolved pair; an unresolved
    pair reports hi, the conservative end. Returns (p, whether each pair is resolved)."""
    lo, hi = state.lo, state.hi
    resolved = state.settled()
    p = np.where(exact, estimate, np.nan)
    drawn = np.flatnonzero(sums.valid & ~exact)
    if drawn.size:
        n = sums.x.shape[1]
        own = _first_draws_hits(
            sums.x[drawn], sums.total[drawn], sums.threshold[drawn], seed, n, int(draws)
        )
        # an unresolved pair keeps the conservative end: its decision is the one at p_upper
        estimated = np.clip((1 + own) / (1 + draws), lo[drawn], hi[drawn])
        p[drawn] = np.where(resolved[drawn], estimated, hi[drawn])
    return p, resolved


def randomization_test(
    d: np.ndarray,
    *,
    levels: tuple[float, ...] | list[float] = (0.05,),
    correction: str = "holm",
    seed: int = 0,
    max_resamples: int | None = None,
    draws: int = 1000,
    resolution: Resolution | None = None,
) -> RandomizationTest:
    """Two-sided paired randomization (sign-flip) test of mean(d) = 0 for each
    pair, with no p-value floor, decided under ``correction`` at ``levels``.

    Under H0 each topic's difference is as likely to have either sign
    [Fisher35; Smucker07], so the exact p-value of a pair is
    p = #{ε ∈ {±1}^n : |Σ ε_i d_i| ≥ |Σ d_i|} / 2^n — a valid p-value,
    P(p ≤ α) ≤ α for every α. Sums within TIE_TOLERANCE · Σ|d_i| of the
    observed one count as reaching it, so that ties in floating point count.

    A pair with few non-zero differences is enumerated (:class:`Resolution`).
    The others get an interval [lo, hi] = [``p_lower``, ``p_upper``] that
    holds p (:class:`_Narrowing`), narrowed by deterministic bounds
    (:func:`_hoeffding_bound`) and up to ``max_resamples`` sign vectors
    (default :func:`default_max_resamples`; :func:`_monte_carlo`) only until
    each pair's decisions are settled; the reported p is the pair's estimate
    from its first ``draws`` vectors (:func:`_reported_p`).

    Pair j's flips are the first B of one stream: block b of FLIP_BLOCK
    vectors is drawn from ``SeedSequence(seed, spawn_key=(SIGN_FLIPS, b))``,
    so the output depends only on the arguments, byte for byte.
    """
    how = Resolution() if resolution is None else resolution
    d, alpha = _checked(d, levels, correction, draws, how)
    sums = _Sums.of(d)
    valid = sums.valid
    kv = int(valid.sum())
    delta = float(how.error) if how.error is not None else float(alpha.min()) / (1e6 * max(1, kv))
    if max_resamples is None:
        max_resamples = default_max_resamples(kv, float(alpha.min()))
    blocks_max = max(1, -(-int(max_resamples) // FLIP_BLOCK))
    first = max(1, -(-int(how.batch) // FLIP_BLOCK))
    bound = _hoeffding_bound(sums)
    x, total, threshold = sums.x, sums.total, sums.threshold
    certain = np.minimum(bound, chernoff_bound(x, threshold))  # the smallest upper bound met
    exact = valid & ((x != 0).sum(axis=1) <= how.exact_topics)
    estimate = np.full(len(d), np.nan)
    estimate[exact] = _exact_p(x[exact], total[exact], threshold[exact], int(how.batch))
    lo = np.where(exact, estimate, 0.0)
    hi = np.where(exact, estimate, np.minimum(1.0, delta + certain))
    lo[~valid] = hi[~valid] = np.nan
    state = _Narrowing(lo, hi, np.ones(len(d)), certain, valid & ~exact, delta, correction, alpha)
    hits, resamples = _monte_carlo(state, sums, seed, first, blocks_max, how.grids)
    mc = valid & ~exact & (resamples > 0)
    estimate[mc] = hits[mc] / resamples[mc]
    p, resolved = _reported_p(sums, state, exact, estimate, seed, draws)
    p_adjusted = adjust(p, correction)
    return RandomizationTest(
        p=p, p_lower=lo, p_upper=hi, estimate=estimate,
        bound=np.where(valid, bound, np.nan), resamples=resamples, exact=exact,
        resolved=resolved | ~valid, p_adjusted=p_adjusted,
        significant=p_adjusted[:, np.newaxis] <= alpha[np.newaxis, :],
        levels=tuple(float(a) for a in alpha), correction=correction, error=delta,
        draws=int(draws),
    )  # fmt: skip


def _flip_block(seed: int, b: int, n: int) -> np.ndarray:
    """Block b of the sign vectors (FLIP_BLOCK, n), floats 0/1 (1 = flip)."""
    bits = generator(seed, SIGN_FLIPS, b).integers(0, 256, (FLIP_BLOCK, -(-n // 8)), dtype=np.uint8)
    return np.unpackbits(bits, axis=1)[:, :n].astype(float)


def _first_draws_hits(
    d: np.ndarray, total: np.ndarray, threshold: np.ndarray, seed: int, n: int, draws: int
) -> np.ndarray:
    """Per row, how many of the first ``draws`` sign vectors of the stream reach the threshold."""
    hits = np.zeros(len(d), dtype=np.int64)
    for b in range(-(-draws // FLIP_BLOCK)):
        flips = _flip_block(seed, b, n)[: draws - b * FLIP_BLOCK]
        hits += _count_hits(flips, d, total, threshold)
    return hits


# ---------------------------------------------------------------- one-sided tests of a margin

#: Sign vectors of the one-sided randomization test beyond :data:`GATE_EXACT_TOPICS`
#: topics: p = (1 + h)/(1 + B) moves in steps of 1e-4.
GATE_DRAWS = 9999

#: Topics up to which the one-sided randomization test enumerates every sign vector.
GATE_EXACT_TOPICS = 16


@dataclass(frozen=True)
class OneSided:
    """A one-sided paired test of H0: mean(d) ≤ ``margin``, against mean(d) > margin.

    ``diff`` is mean(d); ``bound`` the test's one-sided (1 − α) lower
    confidence bound of the mean difference, the smallest margin the test
    does not reject (−inf when no margin can be rejected, NaN when the test
    is undefined); ``rejected`` is bound > margin — the same decision as
    p ≤ α, by construction; ``p`` the one-sided p-value at ``margin``.
    ``exact`` says whether every sign vector was enumerated (randomization),
    ``draws`` how many were drawn otherwise.
    """

    diff: float
    bound: float
    p: float
    rejected: bool
    margin: float
    alpha: float
    n: int
    exact: bool = True
    draws: int = 0


def _check_one_sided(d: np.ndarray, margin: float, alpha: float) -> np.ndarray:
    d = np.asarray(d, dtype=float)
    if d.ndim != 1:
        raise ValueError(f"one-sided tests take the differences of one pair (n,), got {d.shape}")
    if not np.isfinite(d).all():
        raise ValueError("one-sided tests need finite differences")
    if not math.isfinite(margin):
        raise ValueError(f"margin must be finite, got {margin!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return d


def one_sided_t(d: np.ndarray, margin: float, alpha: float) -> OneSided:
    """One-sided paired t test of H0: mean(d) ≤ ``margin`` at level ``alpha``.

    t = (d̄ − margin)/(s/√n) with the sample sd s, p = P(T_{n−1} ≥ t) by
    ``scipy.special.stdtr``; the bound is d̄ − t_{1−α, n−1} s/√n
    (``stdtrit``), and H0 is rejected when the bound exceeds the margin
    (⇔ t > t_{1−α}). Differences that do not vary (s within 1e-12 of their
    scale, rounding of a constant shift) have the limit s → 0: the bound is
    d̄ itself and p is 0 when d̄ > margin, else 1. Fewer than 2 topics: NaN,
    not rejected.
    """
    from scipy.special import stdtr, stdtrit

    d = _check_one_sided(d, margin, alpha)
    n = len(d)
    if n < 2:
        nan = float("nan")
        mean = float(d.mean()) if n else nan
        return OneSided(mean, nan, nan, False, margin, alpha, n)
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    scale = max(float(np.abs(d).max()), abs(margin))
    if sd <= TIE_TOLERANCE * scale:
        above = mean > margin
        return OneSided(mean, mean, 0.0 if above else 1.0, above, margin, alpha, n)
    se = sd / math.sqrt(n)
    t = (mean - margin) / se
    p = float(stdtr(n - 1, -t))
    bound = mean - float(stdtrit(n - 1, 1.0 - alpha)) * se
    return OneSided(mean, bound, p, bound > margin, margin, alpha, n)


def _largest_count(alpha: float, total: int) -> int:
    """The largest count K with K / total ≤ alpha, as floating point divides."""
    k = math.floor(alpha * total)
    while k + 1 <= total and (k + 1) / total <= alpha:
        k += 1
    while k > 0 and k / total > alpha:
        k -= 1
    return k


def one_sided_randomization(
    d: np.ndarray,
    margin: float,
    alpha: float,
    *,
    seed: int = 0,
    draws: int = GATE_DRAWS,
    exact_topics: int = GATE_EXACT_TOPICS,
) -> OneSided:
    """One-sided paired randomization test of H0: mean(d) ≤ ``margin``.

    The shifted differences z = d − margin are sign-flipped: p =
    #{ε : mean(ε z) ≥ mean(z)} / 2^n over every ε where n ≤ ``exact_topics``,
    else (1 + h)/(1 + B) with h of B = ``draws`` sign vectors (the flips of
    :func:`randomization_test`'s stream, ``seed``) — a valid p-value either
    way. Flipping the set S of topics leaves the sum of z at least as large
    exactly when Σ_S z_i ≤ 0, i.e. when the mean of d over S is at most the
    margin (the empty S and, for Monte Carlo, the observed labelling always
    count). So p(margin) = #{S : mean_S(d) ≤ margin} / N is a step function
    rising in the margin, and the margins rejected at α (p ≤ α) are those
    below the (K + 1)-th smallest mean_S(d), K the largest count with K/N ≤ α:
    that order statistic is the bound, the smallest margin not rejected, and
    rejecting ⇔ bound > margin is the decision p ≤ α gives, exactly.
    A subset mean within TIE_TOLERANCE of the scale of d and the margin
    counts as reaching the margin (ties in floating point are not
    rejections). With N·α < 1 (n ≤ 4 at α = .05) nothing can be rejected:
    the bound is −inf.
    """
    d = _check_one_sided(d, margin, alpha)
    if draws < 1:
        raise ValueError(f"draws must be positive, got {draws}")
    n = len(d)
    if n == 0:
        nan = float("nan")
        return OneSided(nan, nan, nan, False, margin, alpha, 0)
    exact = n <= exact_topics
    if exact:
        codes = np.arange(1 << n, dtype=np.int64)
        flips = ((codes[:, np.newaxis] >> np.arange(n)) & 1).astype(float)
    else:
        blocks = [_flip_block(seed, b, n) for b in range(-(-draws // FLIP_BLOCK))]
        flips = np.concatenate(blocks)[:draws]
    size = flips.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = np.where(size > 0, (flips @ d) / np.maximum(size, 1.0), -np.inf)
    if not exact:
        means = np.append(means, -np.inf)  # the observed labelling: the "1 +" of (1 + h)
    tol = TIE_TOLERANCE * max(float(np.abs(d).max()), abs(margin))
    reach = np.sort(means - tol)  # a labelling counts at a margin m when reach ≤ m
    total = len(reach)
    hits = int(np.searchsorted(reach, margin, side="right"))
    k = _largest_count(alpha, total)
    bound = float(reach[k]) if k < total else math.inf
    return OneSided(
        float(d.mean()),
        bound,
        hits / total,
        bound > margin,
        margin,
        alpha,
        n,
        exact=exact,
        draws=0 if exact else int(draws),
    )


def one_sided_power_t(effect: float, sd: float, n: int, alpha: float) -> float:
    """Power of the one-sided paired t test of H0: mean ≤ 0 at level α when
    the differences are Normal with mean ``effect`` and sd ``sd``:
    P(T′ > t_{1−α, n−1}) with T′ noncentral t of n − 1 degrees of freedom
    and noncentrality effect √n / sd (``scipy.special.nctdtr``)."""
    from scipy.special import nctdtr, stdtrit

    if n < 2 or not sd > 0:
        raise ValueError("power needs n ≥ 2 and a positive sd")
    critical = float(stdtrit(n - 1, 1.0 - alpha))
    power = 1.0 - float(nctdtr(n - 1, effect * math.sqrt(n) / sd, critical))
    if not math.isfinite(power):
        raise ValueError(f"the noncentral t gave no power for n = {n}, effect {effect}, sd {sd}")
    return power
