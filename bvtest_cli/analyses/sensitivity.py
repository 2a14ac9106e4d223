"""How discriminating an evaluation measure is over a set of systems [Sakai06; Voorhees02].

Two accounts of the same question, how often a measure separates two
systems reliably on the topics at hand:

* discriminative power [Sakai06]: the share of system pairs a significance
  test finds different, over the whole curve of achieved significance
  levels (ASL), and the estimated difference a pair needs to reach a given
  level in the paired bootstrap test (:func:`delta_needed`);
* swap rates [Voorhees02]: how often two disjoint topic subsets of size c
  order a pair of systems differently, by the size of the difference on the
  first subset, and their extrapolation to the full topic set.

Scores are x (m, n): m systems, n topics; pairs i < j in input order
(:func:`bvtest_cli.analyses.anova.system_pairs`). Pure numpy, no I/O; all
randomness from the named streams of :mod:`.streams`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .anova import system_pairs
from .rankings import pair_signs, tie_tolerance
from .streams import PAIRED_BOOTSTRAP, SWAP_SUBSETS, generator, resample_counts

#: Pairs × resamples evaluated at once in :func:`delta_needed` (8 MiB of float64).
_PAIR_BLOCK_ELEMENTS = 1 << 20


def _scores(x: np.ndarray, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError(f"{name} needs scores of shape (m ≥ 2, n ≥ 2), got {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} needs finite scores")
    return x


def discriminative_power(p: np.ndarray, levels: Sequence[float] = (0.01, 0.05, 0.1)) -> np.ndarray:
    """The share of pairs significant at each level: #{p < level} / #pairs [Sakai06].

    ``p`` (..., pairs) are the p-values (ASLs) of all system pairs; NaN
    p-values (a test that is undefined for the pair) count as not
    significant but stay in the denominator, so a measure that cannot test a
    pair does not look more discriminating. Returns (..., len(levels)).
    """
    p = np.asarray(p, dtype=float)
    thresholds = np.asarray(levels, dtype=float)
    if p.shape[-1] == 0:
        raise ValueError("discriminative_power needs at least one pair")
    with np.errstate(invalid="ignore"):
        hits = p[..., np.newaxis, :] < thresholds[:, np.newaxis]
    return hits.mean(axis=-1)


def asl_curve(p: np.ndarray) -> np.ndarray:
    """The achieved significance levels sorted ascending (NaN last), Sakai's ASL curve:
    pairs on the x axis by rank, ASL on the y axis [Sakai06]. Along the last axis."""
    return np.sort(np.asarray(p, dtype=float), axis=-1)


@dataclass(frozen=True)
class DeltaNeeded:
    """The paired bootstrap test of every pair i < j and the difference each needs.

    ``p`` (pairs,): the bootstrap ASL, #{|t*| ≥ |t|} / B. ``t_crit`` (pairs,):
    the ⌈B·level⌉-th largest |t*|. ``per_pair``: |w̄*| of the resample that
    gives t_crit, i.e. t_crit · sd(w*)/√n with that resample's own standard
    deviation [Sakai06]; ``delta`` its maximum over pairs, the estimated
    difference required. ``per_pair_observed_sd``: t_crit · sd(d)/√n with the
    observed differences' standard deviation instead (the difference at which
    the pair's own test would be at the critical value), and
    ``delta_observed_sd`` its maximum.
    """

    pairs: tuple[np.ndarray, np.ndarray]
    p: np.ndarray
    t_crit: np.ndarray
    per_pair: np.ndarray
    per_pair_observed_sd: np.ndarray
    level: float
    B: int

    @property
    def delta(self) -> float:
        return float(np.nanmax(self.per_pair)) if np.isfinite(self.per_pair).any() else math.nan

    @property
    def delta_observed_sd(self) -> float:
        values = self.per_pair_observed_sd
        return float(np.nanmax(values)) if np.isfinite(values).any() else math.nan


def bootstrap_counts(n: int, B: int, seed: int) -> np.ndarray:
    """(B, n) integers: how often each topic is drawn in each of B bootstrap samples
    of n topics with replacement (one stream shared by all pairs, so that every
    pair is tested on the same resampled topic sets)."""
    return resample_counts(n, B, seed, PAIRED_BOOTSTRAP)


def delta_needed_bytes(n: int, B: int) -> float:
    """An upper bound of the memory :func:`delta_needed` allocates for B
    resamples of n topics: :func:`bootstrap_counts` holds three (B, n) int64
    arrays at once (the draws, their offsets added, the counts) and returns
    them as (n, B) float64 beside the ints; each block of pairs then holds
    about eight (pairs, B) float64 arrays of at most max(B, 2²⁰) elements
    (:data:`_PAIR_BLOCK_ELEMENTS`). Measured: B = 10⁷, n = 29 peaked at 6.9 GB
    (this bound: 9.9 GB)."""
    return 8.0 * (4.0 * B * n + 8.0 * max(B, _PAIR_BLOCK_ELEMENTS))


def delta_needed(x: np.ndarray, level: float = 0.05, B: int = 1000, seed: int = 0) -> DeltaNeeded:
    """Sakai's estimated difference required for significance (SIGIR 2006 §4) [Sakai06].

    For every pair i < j, with per-topic differences d = x_i − x_j, the
    paired bootstrap test: t = d̄ / (sd(d)/√n) (sd with ddof=1); the null
    sample w = d − d̄; in each of B bootstrap samples of topics (the same
    samples for all pairs, :func:`bootstrap_counts`) t* = w̄* / (sd(w*)/√n);
    the ASL is #{|t*| ≥ |t|} / B. Following Sakai's algorithm, the |t*| are
    sorted and the bootstrap sample b whose |t*| is the ⌈B·level⌉-th largest
    (the 50th of B = 1000 at level 0.05) gives the pair's required difference
    |w̄*_b| — the same as t*_crit · sd(w*_b)/√n, with the standard deviation of
    that bootstrap sample, not of d. The estimated difference required is the
    largest of these over all pairs (:attr:`DeltaNeeded.delta`; Sakai rounds
    it to two significant figures, this does not). The variant with the
    observed sd(d), t*_crit · sd(d)/√n, is reported beside it.

    Conventions for degenerate samples: t = 0 where the mean difference is 0
    with no spread (identical systems, or a bootstrap sample of only tied w);
    a nonzero mean with no spread gives |t| = ∞. A pair whose differences are
    all equal has w ≡ 0, every t* = 0, and no required difference (NaN).
    Cost: two (pairs × n)·(n × B) products and a partial sort of pairs × B,
    in blocks of pairs.
    """
    x = _scores(x, "delta_needed")
    if not 0.0 < level < 1.0:
        raise ValueError(f"delta_needed needs 0 < level < 1, got {level}")
    if B < 1:
        raise ValueError(f"delta_needed needs B ≥ 1, got {B}")
    m, n = x.shape
    i, j = system_pairs(m)
    counts = bootstrap_counts(n, B, seed).T.astype(float)  # (n, B)
    rank = max(1, math.ceil(B * level - 1e-9))  # the rank-th largest |t*|
    pairs = len(i)
    p = np.empty(pairs)
    t_crit = np.empty(pairs)
    per_pair = np.empty(pairs)
    sd_observed = np.empty(pairs)
    per_block = max(1, _PAIR_BLOCK_ELEMENTS // max(B, n))
    for k0 in range(0, pairs, per_block):
        ks = slice(k0, k0 + per_block)
        d = x[i[ks]] - x[j[ks]]  # (pg, n)
        mean = d.mean(axis=-1, keepdims=True)
        sd = d.std(axis=-1, ddof=1)
        w = d - mean
        # d̄ of equal values may differ from them in the last bit: such w are 0.
        scale = np.abs(d).max(axis=-1, keepdims=True)
        w[np.abs(w) <= 8 * np.finfo(float).eps * scale] = 0.0
        t_obs = _t(mean[:, 0], sd, n)
        w_mean = (w @ counts) / n  # (pg, B)
        w_ss = (w * w) @ counts  # Σ of squares over each bootstrap sample
        w_var = np.maximum(w_ss - n * w_mean * w_mean, 0.0) / (n - 1)
        t_star = _t(w_mean, np.sqrt(w_var), n)
        p[ks] = (t_star >= np.abs(t_obs)[:, np.newaxis]).sum(axis=-1) / B
        at = np.argpartition(-t_star, rank - 1, axis=-1)[:, rank - 1]
        rows = np.arange(len(at))
        t_crit[ks] = t_star[rows, at]
        degenerate = ~(w != 0.0).any(axis=-1)
        per_pair[ks] = np.where(degenerate, np.nan, np.abs(w_mean[rows, at]))
        with np.errstate(invalid="ignore"):
            sd_observed[ks] = np.where(degenerate, np.nan, t_crit[ks] * sd / math.sqrt(n))
    return DeltaNeeded(
        pairs=(i, j),
        p=p,
        t_crit=t_crit,
        per_pair=per_pair,
        per_pair_observed_sd=sd_observed,
        level=level,
        B=B,
    )


def _t(mean: np.ndarray, sd: np.ndarray, n: int) -> np.ndarray:
    """|mean| / (sd/√n), with 0 for a zero mean and ∞ for a nonzero mean of zero spread."""
    a = np.abs(mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = a * math.sqrt(n) / sd
    return np.where(a == 0.0, 0.0, t)


def disjoint_topic_subsets(
    n: int, c: int, repeats: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Two (repeats, c) arrays of topic indices: for each repeat, two disjoint random
    subsets of size c of the n topics (the first 2c of a random permutation).
    The stream is ``SeedSequence(seed, spawn_key=(SWAP_SUBSETS, c))``, so the
    subsets of one size do not depend on which other sizes are drawn."""
    if not 1 <= c <= n // 2:
        raise ValueError(f"two disjoint subsets of size {c} need 1 ≤ c ≤ n // 2 = {n // 2}")
    rng = generator(seed, SWAP_SUBSETS, c)
    order = np.argsort(rng.random((repeats, n)), axis=-1)
    return order[:, :c], order[:, c : 2 * c]


#: One row of :func:`swap_rates`.
SWAP_ROW = np.dtype(
    [
        ("c", np.int64),
        ("bin_lo", np.float64),
        ("bin_hi", np.float64),
        ("pairs", np.int64),
        ("swaps", np.int64),
        ("swap_rate", np.float64),
    ]
)


def swap_rates(
    x: np.ndarray,
    sizes: Sequence[int] | None = None,
    bin_width: float = 0.01,
    repeats: int = 50,
    seed: int = 0,
) -> np.ndarray:
    """Swap rates by topic-subset size and difference [Voorhees02].

    For each subset size c (by default 5, 10, … up to n // 2), ``repeats``
    draws of two disjoint topic subsets of size c
    (:func:`disjoint_topic_subsets`); for every system pair i < j the mean
    differences d₁ and d₂ on the two subsets. Each (pair, draw) falls in the
    bin k = ⌊(|d₁| + tol) / bin_width⌋, i.e. [k·w, (k + 1)·w), tol the tie
    tolerance of the draw's means (:func:`~.rankings.tie_tolerance`): a
    difference on a bin's edge in decimal (0.6 − 0.5, which is
    0.09999999999999998 in binary) goes in the bin it starts; it is a swap when the two
    subsets order the pair oppositely (a tie on either subset is no swap;
    means tie by the rule of :func:`~.rankings.pair_signs`, so rounding
    noise is never a swap). Returns one row per size and nonempty bin, by c
    then bin: (c, bin_lo, bin_hi, pairs, swaps, swap_rate) with pairs the
    (pair, draw) observations in the bin and swap_rate = swaps / pairs
    (:data:`SWAP_ROW`).
    """
    x = _scores(x, "swap_rates")
    m, n = x.shape
    if bin_width <= 0:
        raise ValueError(f"swap_rates needs bin_width > 0, got {bin_width}")
    if repeats < 1:
        raise ValueError(f"swap_rates needs repeats ≥ 1, got {repeats}")
    if sizes is None:
        sizes = range(5, n // 2 + 1, 5)
    i, j = system_pairs(m)
    topics_by_system = x.T  # (n, m)
    rows = []
    for c in sizes:
        first, second = disjoint_topic_subsets(n, int(c), repeats, seed)
        mean_1 = topics_by_system[first].mean(axis=1)  # (repeats, m)
        mean_2 = topics_by_system[second].mean(axis=1)
        d1 = mean_1[:, i] - mean_1[:, j]  # (repeats, pairs)
        # a difference within the tie rule's tolerance of an edge is on it: the upper bin
        edge_tol = tie_tolerance(mean_1)  # (repeats, 1): the scale of the draw's means
        k = np.floor((np.abs(d1) + edge_tol) / bin_width).astype(np.int64).ravel()
        # pair_signs orders pairs as system_pairs does (numpy.triu_indices)
        swapped = (pair_signs(mean_1) * pair_signs(mean_2) < 0).ravel()
        total = np.bincount(k)
        swaps = np.bincount(k, weights=swapped, minlength=len(total)).astype(np.int64)
        for b in np.flatnonzero(total):
            rows.append(
                (
                    int(c),
                    b * bin_width,
                    (b + 1) * bin_width,
                    total[b],
                    swaps[b],
                    swaps[b] / total[b],
                )
            )
    return np.array(rows, dtype=SWAP_ROW)


#: One row of :func:`fit_swap_extrapolation`.
SWAP_FIT_ROW = np.dtype(
    [
        ("bin_lo", np.float64),
        ("bin_hi", np.float64),
        ("sizes", np.int64),
        ("a", np.float64),
        ("intercept", np.float64),
        ("predicted", np.float64),
    ]
)


def fit_swap_extrapolation(rows: np.ndarray, n: int) -> np.ndarray:
    """Voorhees & Buckley's extrapolation of swap rates to n topics [Voorhees02].

    Within a bin of difference, the swap rate falls about exponentially with
    the subset size c (a straight line on a log scale): log rate ≈ b − a·c.
    For each bin of ``rows`` (:func:`swap_rates`), a and the intercept b are
    the least-squares fit of log(swap_rate) on c over the sizes where the rate
    is above 0 (a rate of 0 has no logarithm); ``predicted`` = exp(b − a·n),
    the rate extrapolated to n topics. Bins with fewer than two such sizes get
    NaN. One row per bin, by bin (:data:`SWAP_FIT_ROW`).
    """
    rows = np.asarray(rows)
    out = []
    for lo in np.unique(rows["bin_lo"]):
        in_bin = rows[(rows["bin_lo"] == lo) & (rows["swap_rate"] > 0)]
        hi = rows["bin_hi"][rows["bin_lo"] == lo][0]
        sizes = len(np.unique(in_bin["c"]))
        a = intercept = predicted = math.nan
        if sizes >= 2:
            slope, intercept = np.polyfit(in_bin["c"].astype(float), np.log(in_bin["swap_rate"]), 1)
            a = -slope
            predicted = math.exp(intercept - a * n)
        out.append((lo, hi, sizes, a, intercept, predicted))
    return np.array(out, dtype=SWAP_FIT_ROW)
