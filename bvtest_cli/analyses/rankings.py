"""Bias and variance of system rankings (docs/rankings.md; Cormack & Grossman 2019).

A test result is the ranking of m systems by their mean score over a set of
topics. Cormack & Grossman 2019 (§2) take δ(x, y) = 1 − τ(x, y) as a distance
between rankings (here τ_b, so that tied systems are handled) and define, for
a test collection X and a reference (gold standard) G,

    Δ(X, Y) = E δ²(X, Y)
    σ²(X)   = ½ Δ(X, X′)                        (X, X′ i.i.d.)
    b²(X)   = Δ(X, G) − σ²(X) − σ²(G)
    RMSE(X) = √(b²(X) + σ²(X))

estimated by the bootstrap of their §3: B samples of n′ topics drawn with
replacement from the reference's n topics, independently for every
collection and role; a collection given as s qrels samples (a statistical
method's repeated samples) takes, for every drawn topic, one of the s
per-topic scores at random (the paper's nt × 100 × ns table). Δ is the mean
of δ² over all B × B pairs of rankings from two independent sets of samples.

How it is computed
------------------
* Bootstrap means: the draws of one set are a counts matrix (B, s·n); one
  matrix product with the (s·n, m) table of per-topic scores gives the
  (B, m) means (:func:`bootstrap_means`).
* τ_b: a ranking is its sign vector over the P = m(m−1)/2 system pairs
  (i < j, ``numpy.triu_indices`` order), entries sign(x_i − x_j) in
  {−1, 0, +1}. For rankings a, b with n_a, n_b untied pairs,
  τ_b(a, b) = S_a·S_b / √(n_a n_b) — Kendall's τ_b, since pairs tied in
  either ranking contribute 0 to the dot product (:func:`pair_signs`, :func:`delta`).
* Δ over all B × B pairs is one matrix product of two (B, P) sign matrices,
  done in float32 in blocks of rows (:func:`delta`). The product is exact:
  every partial sum is an integer of magnitude ≤ P, and float32 holds every
  integer up to 2²⁴ (so m ≤ 5793; larger m switches to float64, exact up to
  2⁵³). The results therefore do not depend on the BLAS, its threads or the
  blocking; only the final float64 sum of δ² over blocks does, to rounding.
  Only the pairs whose sign varies over a set need the product: systems far
  apart are ordered the same way in every bootstrap ranking (on a TREC-8-size
  track, 60% of the pairs at n topics, 78% at 4n), so a set keeps its
  varying pairs' signs as (V, B) int8 rows and one sign for each other
  pair; the product of two sets is a product over the pairs varying in both
  plus terms of the constant ones, the same integers (``_VaryingProduct``).
  Memory: the rows are kept when they take at most ~256 MB (larger sets are
  rebuilt from their means block by block), and a block of the product holds
  at most ~128 MB of signs, so memory stays bounded whatever B.
* Ties: systems whose means differ by at most ``TIE_RTOL`` · max(1, max |mean|)
  tie (:func:`tie_tolerance`; bvtest's one tie rule between rankings, used
  by variations and sensitivity too: docs/rankings.md#ties-between-runs).
  Means are sums of floats (a system and its engineered copy have the same
  per-topic scores, but a matrix product may add them in a different
  order): a tolerance far above rounding error (≈ n′·2⁻⁵³) and far below any
  real difference of mean scores keeps such systems tied.
* A ranking in which every system ties has no untied pair: τ_b with it is
  undefined. Such bootstrap rankings are left out of every expectation (Δ
  averages over the pairs where both rankings are defined) and reported in a
  note; a set where all are undefined gives NaN.

Roles and random streams
------------------------
Every collection (the reference included) has independent sets of B draws,
called roles: ``a`` and ``b`` give σ²(Z) = ½ Δ(Z_a, Z_b); ``r`` is the set
used when Z serves as the reference. So b²(X; G) = Δ(X_a, G_r) − σ²(X) −
σ²(G). The pairwise table (Cormack & Grossman 2019, Table 3) uses the same
formula for every ordered pair, its diagonal included: b²(X; X) =
Δ(X_a, X_r) − 2σ²(X) is 0 in expectation, and its deviation from 0 — like the
table's asymmetry — is the chance error of the bootstrap, as in the paper.
Each set's stream is ``SeedSequence(seed, spawn_key=key(name, role))``, so a
collection's draws depend only on the seed, its name and the role, never on
which or how many other collections are given, nor on their order.

Uncertainty (no paper defines it)
---------------------------------------------------
Batch means: the B samples of every set are split into K contiguous batches;
batch k of every estimate uses only batch k of each set (the diagonal blocks
of each B × B product, summed in the same pass). The standard error of an
estimate is sd(batch estimates) / √K. It measures the Monte Carlo error of
the bootstrap (what a larger B would remove), not the sampling error of the
topics themselves, and is conservative: the full estimate also uses the
off-diagonal blocks.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..defaults import DEFAULT_BOOTSTRAP

DEFAULT_SAMPLES = DEFAULT_BOOTSTRAP  # Cormack & Grossman 2019 §3: 1,000 bootstrap samples
DEFAULT_BATCHES = 10
TIE_RTOL = 1e-9
ROLES = ("a", "b", "r")  # σ² pair (a, b); r: the set used as a reference
_EXACT_FLOAT32 = 1 << 24  # every integer of magnitude ≤ 2^24 is a float32
_BLOCK_BYTES = 128 << 20  # float32 sign blocks of one step of the product
_CACHE_BYTES = 64 << 20  # int8 signs of one step of building a set
_ROWS_BYTES = 256 << 20  # a set's signs of its varying pairs kept when at most this
_COUNTS_BYTES = 64 << 20  # counts matrix of one step of bootstrap_means


# --------------------------------------------------------------------------------------
# Rankings as sign vectors, Kendall's τ_b


def n_pairs(m: int) -> int:
    """P = m(m − 1)/2, the number of system pairs."""
    return m * (m - 1) // 2


def tie_tolerance(values: np.ndarray) -> np.ndarray:
    """Per ranking (last axis), the largest difference that still ties two
    systems: ``TIE_RTOL`` · max(1, max |value|)."""
    scale = np.abs(values).max(axis=-1, keepdims=True) if values.shape[-1] else 0.0
    return TIE_RTOL * np.maximum(1.0, scale)


def pair_signs(values: np.ndarray) -> np.ndarray:
    """Sign vectors of rankings: ``values`` (..., m) → int8 (..., m(m−1)/2).

    Entry p for the pair (i, j), i < j, in ``numpy.triu_indices(m, 1)`` order,
    is +1 when system i scores higher than j, −1 when lower, 0 when they tie
    (within :func:`tie_tolerance`). Built one row of the pair triangle at a
    time, so the only temporary is one (..., m) difference.
    """
    values = np.asarray(values, dtype=float)
    m = values.shape[-1]
    out = np.empty((*values.shape[:-1], n_pairs(m)), dtype=np.int8)
    tol = tie_tolerance(values)
    offset = 0
    for i in range(m - 1):
        diff = values[..., i : i + 1] - values[..., i + 1 :]
        width = m - 1 - i
        np.subtract(
            (diff > tol).view(np.int8),
            (diff < -tol).view(np.int8),
            out=out[..., offset : offset + width],
        )
        offset += width
    return out


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ_b [Kendall45] between the ranking by ``x`` and the ranking
    by ``y`` over the last axis, broadcasting over the leading axes:
    (..., m) → (...).

    τ_b = S_x·S_y / √(n_x n_y) with S the sign vectors of :func:`pair_signs`
    and n their untied pairs: concordant minus discordant pairs over
    √((P − T_x)(P − T_y)), T the pairs tied in one ranking. Each ranking's
    ties follow :func:`tie_tolerance` on its own values. NaN where either
    ranking ties every pair (τ_b is 0/0 there), m < 2 included, as
    ``scipy.stats.kendalltau``. The signs of each input are built once and
    broadcast, so one x against many y costs one sign vector of x.
    """
    return tau_b_of_signs(pair_signs(x), pair_signs(y))


def tau_b_of_signs(sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """:func:`kendall_tau_b` from the rankings' sign vectors (:func:`pair_signs`),
    for a caller that has them already."""
    num = np.sum(sx * sy, axis=-1, dtype=np.int64)
    untied = np.count_nonzero(sx, axis=-1) * np.count_nonzero(sy, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, num / np.sqrt(untied), np.nan)


# --------------------------------------------------------------------------------------
# Random streams and bootstrap means


def _words(text: str) -> tuple[int, ...]:
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    return tuple(int.from_bytes(digest[k : k + 4], "little") for k in range(0, 16, 4))


def stream_key(*parts: str) -> tuple[int, ...]:
    """A ``SeedSequence`` spawn key made of the given strings (each hashed on
    its own, so that ("ab", "c") and ("a", "bc") differ)."""
    return tuple(word for part in parts for word in _words(part))


def stream(seed: int, *parts: str) -> np.random.Generator:
    """The random stream for (seed, *parts), e.g. (seed, collection, role): it
    depends on nothing else, so adding or reordering collections or runs does
    not change anyone else's draws."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=stream_key(*parts)))


def draw_samples(
    rng: np.random.Generator, n: int, s: int, samples: int, n_prime: int
) -> tuple[np.ndarray, np.ndarray]:
    """B bootstrap samples of n′ topics (Cormack & Grossman 2019 §3).

    Returns (topics, picks), both int64 (B, n′): the drawn topic indices
    (with replacement from n) and, for every drawn topic, which of the s
    qrels samples it is scored with (all 0 when s = 1; nothing is drawn then).
    """
    topics = rng.integers(0, n, size=(samples, n_prime), dtype=np.int64)
    if s > 1:
        picks = rng.integers(0, s, size=(samples, n_prime), dtype=np.int64)
    else:
        picks = np.zeros_like(topics)
    return topics, picks


def sample_counts(topics: np.ndarray, picks: np.ndarray, n: int, s: int) -> np.ndarray:
    """The counts matrix (B, s·n): how often each (qrels sample r, topic j)
    cell, column r·n + j, was drawn by each bootstrap sample."""
    rows = topics.shape[0]
    cell = picks * n + topics + np.arange(rows, dtype=np.int64)[:, None] * (s * n)
    counts = np.bincount(cell.ravel(), minlength=rows * s * n)
    return counts.reshape(rows, s * n).astype(float)


def as_samples(scores: np.ndarray) -> np.ndarray:
    """Scores (m, n) or (s, m, n) → (s, m, n) float64."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim == 2:
        scores = scores[None]
    if scores.ndim != 3:
        raise ValueError(f"scores must have shape (m, n) or (s, m, n), got {scores.shape}")
    return scores


def bootstrap_means(
    scores: np.ndarray, rng: np.random.Generator, samples: int, n_prime: int | None = None
) -> np.ndarray:
    """Mean scores (B, m) of the systems over B bootstrap samples of n′
    topics (default n′ = n) drawn from ``scores`` (m, n) or (s, m, n); with
    s > 1 each drawn topic takes one of the s samples at random (Cormack &
    Grossman 2019 §3). Computed as counts (B, s·n) × scores (s·n, m) / n′, in
    steps of rows that bound the counts matrix to ~64 MB; with s > 1, as the
    sum of the drawn cells' scores, draw by draw."""
    scores = as_samples(scores)
    s, m, n = scores.shape
    n_prime = n if n_prime is None else n_prime
    topics, picks = draw_samples(rng, n, s, samples, n_prime)
    # Column r·n + j of row i: scores[r, i, j]. The product is an einsum without
    # ``optimize`` (numpy's own fixed summation order, never BLAS), so the means,
    # and Δ and b² after them, do not depend on the BLAS kernel the CPU selects.
    if s > 1:
        # Many samples: a counts matrix (B, s·n) would be mostly zeros (n′ of
        # s·n cells drawn per row), so the drawn cells' rows of the (s·n, m)
        # table are added instead, one draw at a time for every sample (a
        # fixed order, never BLAS).
        rows = np.ascontiguousarray(scores.transpose(0, 2, 1).reshape(s * n, m))
        cells = picks * n + topics
        means = np.zeros((samples, m))
        for t in range(n_prime):
            means += rows[cells[:, t]]
        means /= n_prime
        return means
    table = np.ascontiguousarray(scores.transpose(1, 0, 2).reshape(m, s * n))
    step = max(1, _COUNTS_BYTES // (8 * s * n))
    means = np.empty((samples, m))
    for lo in range(0, samples, step):
        hi = min(samples, lo + step)
        counts = sample_counts(topics[lo:hi], picks[lo:hi], n, s)
        means[lo:hi] = np.einsum("bk,mk->bm", counts, table)
    means /= n_prime
    return means


# --------------------------------------------------------------------------------------
# Δ over all B × B pairs of rankings


def batch_ids(samples: int, batches: int) -> np.ndarray:
    """Batch of each of the B samples: K contiguous, nearly equal batches."""
    return np.arange(samples) * batches // samples


def sign_columns(means: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    """:func:`pair_signs` of B rankings (B, m), transposed to (P, B) and in
    ``dtype``: built one row of the pair triangle at a time into contiguous
    rows, the layout in which they are fastest to build and that BLAS takes
    as a transposed operand without a copy."""
    means = np.asarray(means, dtype=float)
    columns = np.ascontiguousarray(means.T)  # (m, B)
    m = columns.shape[0]
    out: np.ndarray = np.empty((n_pairs(m), columns.shape[1]), dtype=dtype)
    tol = tie_tolerance(means).T  # (1, B): one tolerance per ranking
    offset = 0
    for i in range(m - 1):
        diff = columns[i : i + 1] - columns[i + 1 :]
        width = m - 1 - i
        np.subtract(diff > tol, diff < -tol, out=out[offset : offset + width], dtype=dtype)
        offset += width
    return out


class RankingSet:
    """One set of B bootstrap rankings: the (B, m) means, the rankings that
    are defined (some pair untied), their batches and 1/√(untied pairs).

    The sign vectors are kept as the rows of the pairs whose sign varies
    over the set (``rows``, (V, B) int8) and the sign of every other pair,
    the same in all B rankings (``constant_sign``): far apart systems are
    ordered the same way in every bootstrap sample, and only the varying
    pairs need a matrix product (:func:`delta`). When even the varying rows
    would take more than ~256 MB (a very large B), nothing is kept and each
    step of a product builds the block it needs from the means."""

    def __init__(self, means: np.ndarray, batches: int):
        means = np.asarray(means, dtype=float)
        self.samples, self.m = means.shape
        self.pairs = n_pairs(self.m)
        self.batches = batches
        # float32 products are exact up to 2^24 pairs (module docstring).
        self.dtype = np.float32 if self.pairs <= _EXACT_FLOAT32 else np.float64
        step = max(1, _CACHE_BYTES // max(self.pairs, 1))  # int8 signs of one step
        keep = self.samples * self.pairs <= _ROWS_BYTES  # all int8 signs, kept for a while
        untied, kept = [], []
        low = np.ones(self.pairs, dtype=np.int8)
        high = -low
        for lo in range(0, self.samples, step):
            cols = sign_columns(means[lo : lo + step], np.int8)
            untied.append(np.count_nonzero(cols, axis=0))
            # the pairs' range of signs over the defined rankings (an
            # undefined one, all 0, is in no product)
            defined = cols if untied[-1].all() else cols[:, untied[-1] > 0]
            np.minimum(low, defined.min(axis=1, initial=1), out=low)
            np.maximum(high, defined.max(axis=1, initial=-1), out=high)
            if keep:
                kept.append(cols)
        untied_all = np.concatenate(untied) if untied else np.zeros(0, dtype=np.int64)
        self.defined = untied_all > 0
        self.undefined = int(self.samples - self.defined.sum())
        self.means = means[self.defined]
        self.batch = batch_ids(self.samples, batches)[self.defined]
        self.inv_sqrt = 1.0 / np.sqrt(untied_all[self.defined].astype(float))
        # A pair is constant when its sign is the same in every defined
        # ranking (with none defined, every pair is: there is no product).
        self.varying = low < high
        self.constant_sign = np.where(self.varying | (low > high), 0, low).astype(self.dtype)
        self.row_of = np.cumsum(self.varying) - 1  # row of each varying pair
        varying = int(self.varying.sum())
        # int8 rows (a quarter of float32's memory), made floats a block at a
        # time for the products
        self.rows: np.ndarray | None = None
        if varying * len(self.means) <= _ROWS_BYTES:
            self.rows = np.empty((varying, len(self.means)), dtype=np.int8)
            filled = 0
            for k, lo in enumerate(range(0, self.samples, step)):
                cols = kept[k] if keep else sign_columns(means[lo : lo + step], np.int8)
                part = cols[self.varying][:, self.defined[lo : lo + step]]
                self.rows[:, filled : filled + part.shape[1]] = part
                filled += part.shape[1]

    def __len__(self) -> int:
        return len(self.means)

    def block(self, lo: int, hi: int) -> np.ndarray:
        """Sign vectors of defined rankings lo..hi−1 as (P, hi − lo) floats."""
        return sign_columns(self.means[lo:hi], self.dtype)

    def batch_range(self, k: int, lo: int, hi: int) -> tuple[int, int]:
        """Rows of batch k within rows lo..hi−1 (batches are contiguous)."""
        start = int(np.searchsorted(self.batch, k, side="left"))
        stop = int(np.searchsorted(self.batch, k, side="right"))
        return max(start, lo) - lo, min(stop, hi) - lo


@dataclass(frozen=True)
class DeltaEstimate:
    """Δ(X, Y) over all pairs of defined rankings, and per batch k over the
    pairs of batch k of X with batch k of Y (NaN where a batch has none)."""

    value: float
    batches: np.ndarray  # (K,)


def default_block_rows(pairs: int) -> int:
    """Rows per step of the product, so that two float32 (rows, P) blocks and
    the (rows, rows) products of a step (τ, δ² in float64: about 32 bytes a
    cell at once) each stay within ~128 MB, whatever B."""
    by_pairs = _BLOCK_BYTES // (8 * max(pairs, 1))
    by_product = math.isqrt(_BLOCK_BYTES // 32)
    return max(64, min(by_pairs, by_product))


class _VaryingProduct:
    """S_xᵀ S_y of two sets from their varying pairs: the product over the
    pairs that vary in both, plus, per ranking, the dot product of its
    varying signs with the other set's constant ones, plus the constant
    pairs of both. Every term is an integer of magnitude ≤ P, exact in the
    sets' dtype (module docstring), so the sum is the full product's."""

    def __init__(self, x: RankingSet, y: RankingSet):
        assert x.rows is not None and y.rows is not None
        self.dtype = x.dtype
        both = x.varying & y.varying
        self.x = x.rows if both.sum() == x.rows.shape[0] else x.rows[x.row_of[both]]
        self.y = y.rows if both.sum() == y.rows.shape[0] else y.rows[y.row_of[both]]
        only_x = x.varying & ~y.varying
        only_y = y.varying & ~x.varying
        neither = ~(x.varying | y.varying)
        rows_x = x.rows[x.row_of[only_x]].astype(self.dtype)
        rows_y = y.rows[y.row_of[only_y]].astype(self.dtype)
        self.per_x = y.constant_sign[only_x] @ rows_x  # (Bx,)
        self.per_y = x.constant_sign[only_y] @ rows_y  # (By,)
        self.constant = x.constant_sign[neither] @ y.constant_sign[neither]
        self._block: tuple[int, np.ndarray] | None = None

    def dots(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        if self._block is None or self._block[0] != r0:  # x's block, made floats once
            self._block = (r0, self.x[:, r0:r1].astype(self.dtype).T)
        out = self._block[1] @ self.y[:, c0:c1].astype(self.dtype)
        out += self.per_x[r0:r1, None]
        out += self.per_y[None, c0:c1]
        out += self.constant
        return out


def delta(x: RankingSet, y: RankingSet, block_rows: int | None = None) -> DeltaEstimate:
    """Δ(X, Y) = E δ²(X, Y), δ = 1 − τ_b, over all pairs of rankings of two
    independent sets (Cormack & Grossman 2019 §2–3).

    τ_b for a block of pairs is (S_x block) @ (S_y block)ᵀ, exact in float32
    (see the module docstring), scaled by 1/√(n_x n_y) in float64. The sum of
    δ² is accumulated per step, and per batch over the diagonal batch blocks.
    """
    if x.m != y.m or x.batches != y.batches:
        raise ValueError("the two sets must rank the same systems in the same batches")
    rows = block_rows or default_block_rows(x.pairs)
    k_batches = x.batches
    total = 0.0
    batch_sums = np.zeros(k_batches)
    product = _VaryingProduct(x, y) if x.rows is not None and y.rows is not None else None
    for r0 in range(0, len(x), rows):
        r1 = min(len(x), r0 + rows)
        sx = x.block(r0, r1) if product is None else np.empty((0, 0))
        for c0 in range(0, len(y), rows):
            c1 = min(len(y), c0 + rows)
            dots = sx.T @ y.block(c0, c1) if product is None else product.dots(r0, r1, c0, c1)
            tau = dots * x.inv_sqrt[r0:r1, None] * y.inv_sqrt[None, c0:c1]
            sq = np.square(1.0 - tau)
            total += float(sq.sum())
            for k in range(k_batches):
                a0, a1 = x.batch_range(k, r0, r1)
                b0, b1 = y.batch_range(k, c0, c1)
                if a1 > a0 and b1 > b0:
                    batch_sums[k] += float(sq[a0:a1, b0:b1].sum())
    count = len(x) * len(y)
    bx = np.bincount(x.batch, minlength=k_batches)
    by = np.bincount(y.batch, minlength=k_batches)
    batch_counts = (bx * by).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_batch = np.where(batch_counts > 0, batch_sums / batch_counts, np.nan)
    return DeltaEstimate(total / count if count else math.nan, per_batch)


# --------------------------------------------------------------------------------------
# The estimators


def signed_sqrt(value: np.ndarray | float) -> np.ndarray | float:
    """√v, or −√(−v) when v < 0: how Cormack & Grossman 2019 (Table 2) report
    a negative bootstrap estimate of b²."""
    return np.sign(value) * np.sqrt(np.abs(value))


def standard_error(batch_values: np.ndarray) -> float:
    """Batch-means standard error: sd(finite batch values) / √K (NaN when
    fewer than two are finite)."""
    finite = batch_values[np.isfinite(batch_values)]
    if len(finite) < 2:
        return math.nan
    return float(finite.std(ddof=1) / math.sqrt(len(finite)))


@dataclass(frozen=True)
class Accuracy:
    """Bias, standard deviation and error of one collection's rankings against
    one reference (Cormack & Grossman 2019 §2), with batch-means standard
    errors (``se_*``)."""

    delta: float  # Δ(X, G)
    b2: float  # Δ(X, G) − σ²(X) − σ²(G)
    bias: float  # |b| = √b², or −√(−b²) when b² < 0
    sigma: float  # σ(X)
    rmse: float  # √(b² + σ²(X)), b² signed; 0 where that sum is negative
    se_b2: float
    se_bias: float
    se_sigma: float
    se_rmse: float


@dataclass(frozen=True)
class CollectionAccuracy:
    """One test collection against the reference."""

    name: str
    accuracy: Accuracy


@dataclass(frozen=True)
class PairwiseTable:
    """Cormack & Grossman 2019, Table 3: every collection (the reference
    first) measured against every other one as the reference. Row i, column j:
    collection ``names[i]`` measured with ``names[j]`` as the reference.
    ``rmse`` holds σ on its diagonal, as the paper's bottom panel does."""

    names: tuple[str, ...]
    b2: np.ndarray  # (k, k)
    bias: np.ndarray  # (k, k), signed |b|
    rmse: np.ndarray  # (k, k), σ on the diagonal
    se_bias: np.ndarray
    se_rmse: np.ndarray  # σ's standard error on the diagonal


@dataclass(frozen=True)
class RankingAccuracy:
    """The result of :func:`ranking_accuracy`."""

    reference: str
    samples: int  # B
    topics: int  # n′, topics per bootstrap sample
    batches: int  # K, for the standard errors
    sigma_reference: float
    se_sigma_reference: float
    collections: tuple[CollectionAccuracy, ...]
    table: PairwiseTable | None  # with at least two test collections
    notes: tuple[str, ...]


def mapped_se(value: float, se: float) -> float:
    """The standard error of r = √v (signed: −√(−v) below 0) from that of v:
    half the larger distance from r to the ends of the interval v ± 2 se
    mapped through the signed root.

    So r ± 2 se_r holds the mapped interval, and 0 lies outside r ± 2 se_r
    exactly when it lies outside v ± 2 se: a gate on |b| agrees with the same
    gate on b². Far from 0 it is the delta method's se / (2√v). Near 0 the
    delta method fails — the root's slope is infinite there, r is not
    normal, and its t-ratio is twice that of v — while this stays honest:
    batch means of the roots themselves (earlier versions) put 0 outside
    |b| ± 2 se in about a third of the bootstraps of a collection with b = 0.
    """
    if not (math.isfinite(value) and math.isfinite(se)):
        return math.nan
    r = signed_sqrt(value)
    below, above = float(r - signed_sqrt(value - 2 * se)), float(signed_sqrt(value + 2 * se) - r)
    return float(max(below, above) / 2)


def _accuracy(d: DeltaEstimate, s2x: DeltaEstimate, s2g: DeltaEstimate) -> Accuracy:
    """The estimators of Cormack & Grossman 2019 §2 from Δ(X, G) and the
    σ² estimates (``DeltaEstimate`` objects holding ½ Δ(Z_a, Z_b)). The
    standard errors are batch means of the squares b², σ²(X) and b² + σ²(X),
    whose estimates are means of batch values, mapped to |b|, σ and RMSE by
    :func:`mapped_se`.

    RMSE² = b² + σ²(X) with b² as estimated, signed: a negative b² is
    chance error of the bootstrap, and RMSE then falls below σ, as in
    [Cormack19] Table 1 (|b| = −0.0145, σ = 0.0856, RMSE = 0.0843, marked
    "explained by chance error"). Only where the sum itself is negative is
    RMSE² taken as 0. |b| is the signed root of b² (the paper's convention)."""
    b2 = d.value - s2x.value - s2g.value
    b2_batches = d.batches - s2x.batches - s2g.batches
    se_b2 = standard_error(np.asarray(b2_batches))
    se_s2 = standard_error(np.asarray(s2x.batches))
    se_mse = standard_error(np.asarray(b2_batches + s2x.batches))
    mse = b2 + s2x.value
    if mse < 0:  # NaN stays NaN
        mse = 0.0
    with np.errstate(invalid="ignore"):
        return Accuracy(
            delta=float(d.value),
            b2=float(b2),
            bias=float(signed_sqrt(b2)),
            sigma=float(np.sqrt(s2x.value)),
            rmse=float(np.sqrt(mse)),
            se_b2=se_b2,
            se_bias=mapped_se(float(b2), se_b2),
            se_sigma=mapped_se(float(s2x.value), se_s2),
            se_rmse=mapped_se(float(mse), se_mse),
        )


def _half(d: DeltaEstimate) -> DeltaEstimate:
    return DeltaEstimate(d.value / 2, d.batches / 2)


@dataclass(frozen=True)
class Batching:
    """How :func:`ranking_accuracy` blocks its work: K, the ``batches`` of
    the batch-means standard errors (at most B), and the rows of one block
    of the Δ products (``block_rows``, :func:`delta`; the estimates do not
    depend on it)."""

    batches: int = DEFAULT_BATCHES
    block_rows: int | None = None


def _named_samples(
    reference: np.ndarray, collections: Mapping[str, np.ndarray], reference_name: str
) -> dict[str, np.ndarray]:
    """The reference and every collection as (s, m, n) samples, by name (the
    reference first), refusing a name used twice or scores of another shape
    than the reference's."""
    ref = as_samples(reference)
    _, m, n = ref.shape
    named = {reference_name: ref}
    for name, scores in collections.items():
        if name in named:
            raise ValueError(f"collection name {name!r} is used twice")
        named[name] = as_samples(scores)
        if named[name].shape[1:] != (m, n):
            raise ValueError(
                f"collection {name!r} scores {named[name].shape[1:]} systems × topics, "
                f"the reference {(m, n)}"
            )
    return named


def _check_bootstrap(m: int, n: int, samples: int, n_prime: int, batches: int, seed: int) -> None:
    """Refuse what the bootstrap of Cormack & Grossman 2019 §3 cannot draw:
    fewer than two systems, no topics, no samples or batches, a negative seed."""
    if m < 2:
        raise ValueError("ranking needs at least two systems")
    if n < 1:
        raise ValueError("no topics")
    if samples < 1:
        raise ValueError(f"the number of bootstrap samples must be at least 1, got {samples}")
    if n_prime < 1:
        raise ValueError(f"the number of topics per sample must be at least 1, got {n_prime}")
    if batches < 1:
        raise ValueError(f"the number of batches must be at least 1, got {batches}")
    if seed < 0:
        raise ValueError(f"the seed must be a non-negative integer, got {seed}")


@dataclass(frozen=True)
class _Sets:
    """The bootstrap ranking sets of :func:`ranking_accuracy`, drawn on first
    use: set (name, role) from its own stream (:func:`stream`), so that a
    set does not depend on which others were drawn (module docstring). A set
    whose rankings tie every system is noted in ``notes``."""

    named: dict[str, np.ndarray]
    seed: int
    samples: int
    n_prime: int
    batching: Batching
    k_batches: int
    notes: list[str]
    drawn: dict[tuple[str, str], RankingSet]

    def get(self, name: str, role: str) -> RankingSet:
        if (name, role) not in self.drawn:
            rng = stream(self.seed, name, role)
            means = bootstrap_means(self.named[name], rng, self.samples, self.n_prime)
            rs = RankingSet(means, self.k_batches)
            if rs.undefined:
                self.notes.append(
                    f"{name}: {rs.undefined} of {self.samples} bootstrap rankings (set {role}) "
                    "tie every system; tau_b is undefined with them and they are left out"
                )
            self.drawn[name, role] = rs
        return self.drawn[name, role]

    def product(self, x: tuple[str, str], y: tuple[str, str]) -> DeltaEstimate:
        """Δ between the rankings of sets x and y (:func:`delta`)."""
        return delta(self.get(*x), self.get(*y), self.batching.block_rows)


def _pairwise_table(names: list[str], result: dict[tuple[str, str], Accuracy]) -> PairwiseTable:
    """Cormack & Grossman 2019 Table 3 from every collection's accuracy against
    every other one: σ (and its standard error) on the RMSE diagonal."""
    k = len(names)
    grid = {f: np.empty((k, k)) for f in ("b2", "bias", "rmse", "se_bias", "se_rmse")}
    for a, i in enumerate(names):
        for b, j in enumerate(names):
            acc = result[i, j]
            grid["b2"][a, b] = acc.b2
            grid["bias"][a, b] = acc.bias
            grid["rmse"][a, b] = acc.sigma if a == b else acc.rmse
            grid["se_bias"][a, b] = acc.se_bias
            grid["se_rmse"][a, b] = acc.se_sigma if a == b else acc.se_rmse
    return PairwiseTable(tuple(names), **grid)


def ranking_accuracy(
    reference: np.ndarray,
    collections: Mapping[str, np.ndarray],
    *,
    reference_name: str = "reference",
    samples: int = DEFAULT_SAMPLES,
    n_prime: int | None = None,
    seed: int = 0,
    table: bool = True,
    batching: Batching | None = None,
) -> RankingAccuracy:
    """|b|, σ and RMSE of each test collection's system ranking against the
    reference (Cormack & Grossman 2019 §2–3, docs/rankings.md).

    ``reference`` and every collection are per-topic scores (m, n) or
    (s, m, n) of the same m systems on the same n topics (the reference's); s
    > 1 means s qrels samples of a statistical method. ``samples`` is B,
    ``n_prime`` the topics per bootstrap sample (default n), ``batching``
    the K of the batch-means standard errors (at most B) and the blocks of
    the products (:class:`Batching`). With two or more
    collections the result also holds the pairwise table (the paper's Table
    3) unless ``table`` is False. See the module docstring for roles,
    streams and ties.
    """
    batching = Batching() if batching is None else batching
    named = _named_samples(reference, collections, reference_name)
    _, m, n = named[reference_name].shape
    if not collections:
        raise ValueError("no test collection to compare with the reference")
    n_prime = n if n_prime is None else n_prime
    _check_bootstrap(m, n, samples, n_prime, batching.batches, seed)
    for name, scores in named.items():
        if not np.isfinite(scores).all():
            raise ValueError(f"collection {name!r} has a score that is not a finite number")
    k_batches = min(batching.batches, samples)

    names = list(named)
    with_table = table and len(collections) >= 2
    notes: list[str] = []
    sets = _Sets(named, seed, samples, n_prime, batching, k_batches, notes, {})
    sigma2 = {}
    for name in names:
        sigma2[name] = _half(sets.product((name, "a"), (name, "b")))
        del sets.drawn[name, "b"]  # set b serves σ² only: free its signs
    pairs = (
        [(i, j) for i in names for j in names]
        if with_table
        else [(x, reference_name) for x in names[1:]]
    )
    result = {
        (i, j): _accuracy(sets.product((i, "a"), (j, "r")), sigma2[i], sigma2[j]) for i, j in pairs
    }
    for name in names:
        if math.isnan(sigma2[name].value):
            notes.append(f"{name}: no bootstrap ranking is defined; its estimates are undefined")
    s2g = sigma2[reference_name]
    return RankingAccuracy(
        reference=reference_name,
        samples=samples,
        topics=n_prime,
        batches=k_batches,
        sigma_reference=float(np.sqrt(s2g.value)),
        se_sigma_reference=mapped_se(float(s2g.value), standard_error(np.asarray(s2g.batches))),
        collections=tuple(CollectionAccuracy(x, result[x, reference_name]) for x in names[1:]),
        table=_pairwise_table(names, result) if with_table else None,
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------------------
# Per-topic scores of the same runs under several qrels (evaluation glue for the CLI)
