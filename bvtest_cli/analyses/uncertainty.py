"""Uncertainty of every bvtest number: topic bootstrap, paired tests, Pareto front
(docs/uncertainty.md).

No paper gives the uncertainty of a Bias², a Var or a GeoRisk; this module is
bvtest's own machinery, built from textbook pieces. Pure numpy (scipy.special
only: importing scipy.stats costs most of a second of start-up), no I/O.

Topic bootstrap (docs/uncertainty.md). B resamples of the n topics with replacement.
A resample keeps whole columns of the (m, n) matrix — a topic drawn twice
counts twice — so the virtual target x_T of a drawn topic is unchanged, while
c (mean of x_T over the resample) and every field are recomputed on it. The
index stream is ``numpy.random.default_rng(seed).integers(0, n, (B, n))``,
drawn block by block: numpy draws sequentially, so the blocks concatenate to
the same matrix whatever the block size, and it depends only on (seed, n, B)
— all measures and both runs of a paired comparison use the same resamples.

A *statistic* is a callable taking scores of shape (..., m, n) and returning
a dict name → array whose shape starts with the leading axes (...,): per
system (..., m), per system and alpha (..., m, k) or one value (...,). It is
applied once per block to the gathered (b, ..., m, n) resamples and once to
the n leave-one-out matrices stacked as (n, ..., m, n−1) (the jackknife that
BCa needs) — always one vectorised call per block, never a loop over resamples.
``bvtest eval --ci`` and ``bvtest compare`` use the field registry itself as
the statistic (:func:`bvtest_cli.sections.matrix.registry_statistic`): every field's
own function on the resampled stack, so there is one implementation of each
formula and a new field gets an interval for free.

Intervals (level 1 − 2α, α = (1 − level)/2):

- percentile: the α and 1 − α quantiles of the B replicates (Efron &
  Tibshirani 1993, §13.3), quantiles interpolated linearly between order
  statistics (numpy's default ``linear`` method, Hyndman & Fan type 7);
- BCa (Efron & Tibshirani 1993, §14.3, eqs. 14.9–14.15): the quantiles at
  α1 = Φ(z0 + (z0 + z_α)/(1 − a(z0 + z_α))) and α2 likewise with z_{1−α};
  z0 = Φ⁻¹(fraction of replicates below the estimate, ties counting one
  half, as scipy.stats.bootstrap counts them), a = Σ d³ / (6 (Σ d²)^{3/2})
  with d = mean(θ_(·)) − θ_(i) over the jackknife values θ_(i);
- studentized (bootstrap-t, §12.5): the α and 1 − α quantiles of
  t* = (θ* − θ̂)/se*, mapped to [θ̂ − t*_{1−α} se, θ̂ − t*_α se]; se is the
  jackknife standard error from the empirical influence values, se* those
  values weighted by the resample's counts (Davison & Hinkley 1997 §2.7).
  Which method a field uses by default is declared with the field
  (``Field.interval`` in the registry).

Decisions (no paper states them; docs/decisions.md and docs/uncertainty.md do):

- Undefined replicates (NaN, e.g. a correlation on a resample where Var is
  the same for every run): the interval is taken over the finite replicates,
  unless more than α·B of them (2.5 % for a 95 % interval) are undefined —
  they could all belong to one tail, so the nominal level could not be
  vouched for — or fewer than 2 are finite; the interval is then NaN. The
  interval is also NaN when the estimate itself is undefined.
- BCa: a = 0 when every leave-one-out value is the same (no skewness to
  correct; the interval is then the bias-corrected one), undefined jackknife
  values are left out of a; BCa is NaN when no replicate lies on one side of
  the estimate (z0 = ±∞; scipy returns NaN there too).
- Holm's family (Holm 1979): per field (and per alpha for GeoRisk), all the
  pairs compared; undefined p-values are left out of the family.
- Pareto dominance is weak: run j dominates run i when Bias²_j ≤ Bias²_i and
  Var_j ≤ Var_i with at least one strict; runs tied in both stay on the front.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from ..defaults import DEFAULT_CI_MEMORY_MIB
from .orderstats import BlockStream, below_estimate, order_statistics, tally_stream

__all__ = [
    "CorrelationSummary",
    "Interval",
    "apply_resamples",
    "bca_interval",
    "bootstrap_indices",
    "bootstrap_intervals",
    "bootstrap_replicates",
    "correlation_distribution",
    "iter_bootstrap_indices",
    "jackknife_indices",
    "jackknife_replicates",
    "normal_cdf",
    "normal_ppf",
    "pareto_front",
    "percentile_interval",
]

Statistic = Callable[[np.ndarray], dict[str, np.ndarray]]

# Bound on the elements of one gathered block of resamples (b, ..., m, n):
# 2^17 float64 = 1 MiB. A statistic makes dozens of temporaries of that size
# (the registry's fields on a block are (b, m, n) too), and blocks that stay in cache
# are faster than bigger ones; the working set is bounded whatever B.
BLOCK_ELEMENTS = 1 << 17

# Bound on the elements of one block of paired differences (B, pairs[, k]).
_PAIR_BLOCK_ELEMENTS = 1 << 23

METHODS = ("percentile", "bca", "studentized")


def normal_cdf(z: np.ndarray | float) -> np.ndarray:
    """Φ, the standard normal CDF (scipy.special.ndtr)."""
    from scipy.special import ndtr  # lazily: 0.27 s of start-up

    return ndtr(z)


def normal_ppf(p: np.ndarray | float) -> np.ndarray:
    """Φ⁻¹, the standard normal quantile function (scipy.special.ndtri)."""
    from scipy.special import ndtri

    return ndtri(p)


# --------------------------------------------------------------------------- resampling


def _check_counts(n: int, B: int) -> None:
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"number of topics must be a positive integer, got {n!r}")
    if isinstance(B, bool) or int(B) != B or B < 1:
        raise ValueError(f"number of resamples must be a positive integer, got {B!r}")


def iter_bootstrap_indices(n: int, B: int, seed: int, block: int) -> Iterator[np.ndarray]:
    """The B × n bootstrap index matrix in consecutive blocks of at most ``block`` rows.

    Rows are drawn by one ``default_rng(SeedSequence(seed))`` in order, so the
    concatenated blocks do not depend on ``block`` (tested).
    """
    _check_counts(n, B)
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block!r}")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    for start in range(0, B, block):
        yield rng.integers(0, n, size=(min(block, B - start), n))


def bootstrap_indices(n: int, B: int, seed: int, block: int = 1024) -> np.ndarray:
    """B resamples of range(n) with replacement, shape (B, n), seeded (docs/uncertainty.md).

    Row b lists the topics of resample b; ``block`` only bounds the size of
    each draw and never changes the matrix.
    """
    return np.concatenate(list(iter_bootstrap_indices(n, B, seed, block)))


def jackknife_indices(n: int) -> np.ndarray:
    """The n leave-one-out index sets, shape (n, n − 1): row j is range(n) without j."""
    if n < 2:
        raise ValueError(f"the jackknife needs at least 2 topics, got {n}")
    # Row j: 0..j−1 then j+1..n−1, i.e. k + (k >= j) for k in 0..n−2.
    k = np.arange(n - 1)
    return k + (k >= np.arange(n)[:, np.newaxis])


def _block_rows(x: np.ndarray, block: int | None) -> int:
    """Resamples per block: ``block`` if given, else what fits in BLOCK_ELEMENTS."""
    if block is not None:
        if block < 1:
            raise ValueError(f"block must be >= 1, got {block!r}")
        return int(block)
    return max(1, BLOCK_ELEMENTS // max(1, x.size))


def _gathered(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The (b, ..., m, n') column resamples of ``x`` (..., m, n) for the index block
    ``idx`` (b, n')."""
    # take → (..., m, b, n'), then b to the front as a C-contiguous copy: the
    # same memory layout for every block size keeps numpy's summation order,
    # hence the result bit for bit, independent of the block size.
    return np.ascontiguousarray(np.moveaxis(np.take(x, idx, axis=-1), -2, 0))


def replayed(
    x: np.ndarray,
    statistic: Statistic,
    flatten: Callable[[dict[str, np.ndarray]], np.ndarray],
    *,
    B: int,
    seed: int,
    block: int | None = None,
) -> BlockStream:
    """A re-playable stream of the B topic-bootstrap replicates of ``statistic``
    on ``x``, each block flattened by ``flatten`` to (b, cells): every call
    draws the same resamples again (bounded memory, :func:`streamed_intervals`)."""
    x = np.asarray(x, dtype=float)
    rows = _block_rows(x, block)

    def stream() -> Iterator[np.ndarray]:
        for idx in iter_bootstrap_indices(x.shape[-1], B, seed, rows):
            yield flatten(statistic(_gathered(x, idx)))

    return stream


def apply_resamples(
    x: np.ndarray,
    statistic: Statistic,
    index_blocks: Iterable[np.ndarray],
    total: int,
) -> dict[str, np.ndarray]:
    """Apply ``statistic`` to the column resamples of ``x`` given by each (b, n') index block.

    ``x`` (..., m, n) is gathered once per block into (b, ..., m, n') — whole
    columns, so every system sees the same topics — and the statistic is
    called once on it. ``total`` is the number of rows over all blocks: the
    outputs are allocated once, name → array (total, ...), and filled block
    by block, so memory is the replicates plus one block's working set.
    """
    x = np.asarray(x, dtype=float)
    out: dict[str, np.ndarray] = {}
    start = 0
    for idx in index_blocks:
        stop = start + len(idx)
        for name, value in statistic(_gathered(x, idx)).items():
            if name not in out:
                out[name] = np.empty((total, *np.shape(value)[1:]))
            out[name][start:stop] = value
        start = stop
    if start != total:
        raise ValueError(f"index blocks hold {start} rows, expected {total}")
    return out


def bootstrap_replicates(
    x: np.ndarray, statistic: Statistic, *, B: int, seed: int, block: int | None = None
) -> dict[str, np.ndarray]:
    """The statistic on B topic-bootstrap resamples of ``x`` (..., m, n): name → (B, ...)."""
    x = np.asarray(x, dtype=float)
    rows = _block_rows(x, block)
    return apply_resamples(x, statistic, iter_bootstrap_indices(x.shape[-1], B, seed, rows), B)


def jackknife_replicates(
    x: np.ndarray, statistic: Statistic, *, block: int | None = None
) -> dict[str, np.ndarray]:
    """The statistic on the n leave-one-topic-out matrices of ``x``: name → (n, ...)."""
    x = np.asarray(x, dtype=float)
    idx = jackknife_indices(x.shape[-1])
    rows = _block_rows(x, block)
    blocks = (idx[s : s + rows] for s in range(0, len(idx), rows))
    return apply_resamples(x, statistic, blocks, len(idx))


# --------------------------------------------------------------------------- intervals


@dataclass(frozen=True)
class Interval:
    """A statistic's estimate on the data and its bootstrap interval, all of one shape."""

    estimate: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


def _tail(level: float) -> float:
    """α = (1 − level)/2 of a two-sided interval at ``level``."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level!r}")
    return (1.0 - level) / 2.0


def _prepared(replicates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Replicates (B, ...) → (sorted along axis 0, undefined ones last as NaN;
    the finite count (...))."""
    reps = np.asarray(replicates, dtype=float)
    finite = np.isfinite(reps)
    count = finite.sum(axis=0)
    if not finite.all():
        reps = np.where(finite, reps, np.nan)  # ±inf counts as undefined, sorted last
    return np.sort(reps, axis=0), count


def _usable(count: np.ndarray, B: int, level: float) -> np.ndarray:
    """The undefined-replicate rule (module docstring): at least 2 finite
    replicates of B, and at most α·B undefined."""
    return (count >= 2) & (B - count <= _tail(level) * B)


def _interval_levels(
    count: np.ndarray,
    B: int,
    level: float,
    *,
    estimate: np.ndarray | None = None,
    below: np.ndarray | None = None,
    acceleration: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q1, q2, defined): the quantile levels of the interval's ends among the
    finite replicates, and where the interval is defined.

    Percentile (no ``estimate``): q1 = α, q2 = 1 − α. BCa: q1, q2 from z0 (the
    ``below`` count of :func:`~.orderstats.below_estimate`) and the ``acceleration`` a
    (:func:`_acceleration`; Efron & Tibshirani 1993, eqs. 14.9–14.15). Undefined
    under the undefined-replicate rule of the module docstring; BCa also where
    the estimate or a is undefined or no replicate lies on one side.
    """
    alpha = _tail(level)
    usable = _usable(count, B, level)
    if estimate is None:
        return np.full(count.shape, alpha), np.full(count.shape, 1.0 - alpha), usable
    assert below is not None and acceleration is not None
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = below / (2.0 * count)
    inside = (frac > 0) & (frac < 1)
    z0 = normal_ppf(np.where(inside, frac, 0.5))
    a = acceleration
    z_alpha = float(normal_ppf(alpha))

    def level_for(z: float) -> np.ndarray:
        t = z0 + z
        return normal_cdf(z0 + t / (1.0 - a * t))

    with np.errstate(invalid="ignore", divide="ignore"):
        q1, q2 = level_for(z_alpha), level_for(-z_alpha)
    defined = usable & inside & np.isfinite(estimate) & np.isfinite(a)
    return q1, q2, defined


def _quantile_ranks(
    count: np.ndarray, q: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ok, below, above, frac) of linear-interpolation quantiles (numpy's default
    method, Hyndman & Fan type 7) at per-element levels ``q`` among ``count``
    sorted values: the quantile is s[below] + frac · (s[above] − s[below])."""
    q = np.asarray(q, dtype=float)
    ok = np.isfinite(q) & (count >= 1)
    last = np.maximum(count - 1, 0)
    h = np.where(ok, q, 0.0) * last
    below = np.clip(np.floor(h), 0, last).astype(np.intp)
    above = np.minimum(below + 1, last)
    return ok, below, above, h - below


def _quantile_sorted(s: np.ndarray, count: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Linear-interpolation quantiles at per-element levels ``q`` from ``s`` (B, ...)
    sorted along axis 0 with the ``count`` (...) finite values first. np.quantile
    cannot take one level per element, which BCa needs."""
    ok, below, above, frac = _quantile_ranks(count, q)
    lo = np.take_along_axis(s, below[np.newaxis], axis=0)[0]
    hi = np.take_along_axis(s, above[np.newaxis], axis=0)[0]
    return np.where(ok, lo + frac * (hi - lo), np.nan)


def percentile_interval(
    replicates: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval (Efron & Tibshirani 1993, §13.3) from replicates (B, ...).

    The α and 1 − α quantiles of the finite replicates, α = (1 − level)/2;
    NaN where too many replicates are undefined (module docstring).
    """
    s, count = _prepared(replicates)
    q1, q2, defined = _interval_levels(count, s.shape[0], level)
    lo, hi = _quantile_sorted(s, count, q1), _quantile_sorted(s, count, q2)
    return np.where(defined, lo, np.nan), np.where(defined, hi, np.nan)


def _acceleration(jackknife: np.ndarray) -> np.ndarray:
    """a = Σ d³ / (6 (Σ d²)^{3/2}), d = mean θ_(·) − θ_(i) (Efron & Tibshirani 1993, eq. 14.15).

    Over the finite leave-one-out values; 0 when they are all equal, NaN when
    fewer than 2 are finite.
    """
    # Each cell's n values contiguous, summed along the last axis: numpy's
    # summation order, hence a to the last bit, is then the same whatever the
    # other axes (one field, all fields side by side, pairs in any chunks).
    jack = np.ascontiguousarray(np.moveaxis(np.asarray(jackknife, dtype=float), 0, -1))
    finite = np.isfinite(jack)
    count = finite.sum(axis=-1)
    # Equal values are detected exactly, not from Σ d² > 0: a is scale-free, so
    # the rounding residue of the mean would otherwise give an arbitrary a.
    constant = np.where(finite, jack, -np.inf).max(axis=-1) == np.where(finite, jack, np.inf).min(
        axis=-1
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(finite, jack, 0.0).sum(axis=-1) / count
        d = np.where(finite, centre[..., np.newaxis] - jack, 0.0)
        # d·d·d and s·√s, not d**3 and s**1.5: numpy's pow differs in the last bit
        # between CPUs (its AVX-512 loop is not the C library's), √ is exact.
        s2 = (d * d).sum(axis=-1)
        a = (d * d * d).sum(axis=-1) / (6.0 * (s2 * np.sqrt(s2)))
    return np.where(count >= 2, np.where(constant, 0.0, a), np.nan)


def bca_interval(
    replicates: np.ndarray,
    estimate: np.ndarray,
    jackknife: np.ndarray,
    level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """BCa interval (Efron & Tibshirani 1993, §14.3) from replicates (B, ...), the
    estimate (...) on the data and the jackknife values (n, ...).

    z0 = Φ⁻¹(p̂) with p̂ the fraction of finite replicates below the estimate
    (ties count one half); a from :func:`_acceleration`; the interval is the
    replicates' quantiles at α1 = Φ(z0 + (z0 + z_α)/(1 − a(z0 + z_α))) and α2
    with z_{1−α}. NaN where the estimate is undefined, where p̂ is 0 or 1, or
    under the undefined-replicate rule of the module docstring.
    """
    reps = np.asarray(replicates, dtype=float)
    est = np.asarray(estimate, dtype=float)
    s, count = _prepared(reps)
    q1, q2, defined = _interval_levels(
        count,
        s.shape[0],
        level,
        estimate=est,
        below=below_estimate(reps, est),
        acceleration=_acceleration(jackknife),
    )
    lo, hi = _quantile_sorted(s, count, q1), _quantile_sorted(s, count, q2)
    return np.where(defined, lo, np.nan), np.where(defined, hi, np.nan)


def influence_values(jackknife: np.ndarray) -> np.ndarray:
    """Empirical influence values l_j = (n − 1)(θ̄_(·) − θ_(j)) from the jackknife
    values (n, ...) (Efron & Tibshirani 1993, eq. 21.33; Davison & Hinkley
    1997, eq. 2.44); an undefined leave-one-out value counts as no influence
    (0), as BCa's acceleration leaves it out."""
    jack = np.asarray(jackknife, dtype=float)
    n = jack.shape[0]
    finite = np.isfinite(jack)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(finite, jack, 0.0).sum(axis=0) / finite.sum(axis=0)
    return np.where(finite, (n - 1) * (centre - jack), 0.0)


def resample_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """(b, n) how often each topic is drawn in each resample of the index block (b, n)."""
    b = idx.shape[0]
    flat = (idx + n * np.arange(b)[:, np.newaxis]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


def resample_se(counts: np.ndarray, influence: np.ndarray) -> np.ndarray:
    """(b, cells) standard errors of the statistic on each resample, from the
    empirical influence values (n, cells) weighted by the resample's counts
    (b, n): the nonparametric delta method v = Σ_j w_j (l_j − l̄_w)² / (n − 1)
    with w = counts / n (Davison & Hinkley 1997, §2.7.4 and §5.2.3). On the
    data (every count 1) it is the jackknife standard error."""
    n = counts.shape[1]
    w = counts / n
    # einsum's own loops, not BLAS: the same bits on every machine
    mean = np.einsum("bn,nc->bc", w, influence)
    v = np.einsum("bn,nc->bc", w, influence * influence) - mean * mean
    return np.sqrt(np.maximum(v, 0.0) / max(n - 1, 1))


def studentized_values(
    replicates: np.ndarray, estimate: np.ndarray, counts: np.ndarray, influence: np.ndarray
) -> np.ndarray:
    """t* = (θ* − θ̂) / se* of each replicate (b, cells), se* by :func:`resample_se`;
    0 where both are 0, ±inf (undefined) where only se* is."""
    se = resample_se(counts, influence)
    diff = replicates - estimate
    with np.errstate(invalid="ignore", divide="ignore"):
        t = diff / se
    return np.where(se > 0, t, np.where(diff == 0, 0.0, np.copysign(np.inf, diff)))


def studentized_interval(
    t_lo_hi: tuple[np.ndarray, np.ndarray], estimate: np.ndarray, influence: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The studentized (bootstrap-t) interval [θ̂ − t*_(1−α) se, θ̂ − t*_(α) se]
    (Efron & Tibshirani 1993, §12.5) from the percentile interval of t*, se the
    jackknife standard error (:func:`resample_se` with every count 1); the
    estimate itself where se is 0."""
    n = influence.shape[0]
    se = resample_se(np.ones((1, n)), influence.reshape(n, -1))[0].reshape(np.shape(estimate))
    q_lo, q_hi = t_lo_hi
    lo = np.where(se > 0, estimate - q_hi * se, estimate)
    hi = np.where(se > 0, estimate - q_lo * se, estimate)
    return lo, hi


def studentized_stream(
    x: np.ndarray,
    statistic: Statistic,
    flatten: Callable[[dict[str, np.ndarray]], np.ndarray],
    estimate: np.ndarray,
    influence: np.ndarray,
    *,
    B: int,
    seed: int,
    block: int | None = None,
) -> BlockStream:
    """:func:`replayed`'s stream of replicates turned into t* values (b, cells)
    of the flattened cells (``estimate`` (cells,), ``influence`` (n, cells))."""
    x = np.asarray(x, dtype=float)
    rows = _block_rows(x, block)
    n = x.shape[-1]

    def stream() -> Iterator[np.ndarray]:
        for idx in iter_bootstrap_indices(n, B, seed, rows):
            reps = flatten(statistic(_gathered(x, idx)))
            yield studentized_values(reps, estimate, resample_counts(idx, n), influence)

    return stream


def studentized_replicates(
    replicates: np.ndarray,
    estimate: np.ndarray,
    influence: np.ndarray,
    *,
    B: int,
    seed: int,
    rows: int,
) -> np.ndarray:
    """t* (B, ...) of stored replicates (B, ...), the resamples' counts drawn
    again from the same index stream (block by block)."""
    n = influence.shape[0]
    flat = replicates.reshape(B, -1)
    infl = influence.reshape(n, -1)
    est = np.asarray(estimate, dtype=float).reshape(-1)
    out = np.empty_like(flat)
    start = 0
    for idx in iter_bootstrap_indices(n, B, seed, rows):
        stop = start + len(idx)
        out[start:stop] = studentized_values(flat[start:stop], est, resample_counts(idx, n), infl)
        start = stop
    return out.reshape(replicates.shape)


# --------------------------------------------------------------------------- bounded memory
#
# The intervals need order statistics of each cell's B replicates. While
# cells × B fits REPLICATE_ELEMENTS they are kept and sorted. Beyond, the
# resamples are streamed again instead of stored: the index stream depends only
# on (seed, n, B), so every pass sees the same replicates, bit for bit. Pass 1
# tallies each cell (finite count, min, max, the counts z0 and the p-value
# need) and histograms it over the range of its first replicates; each later
# pass narrows every wanted order statistic to one bin of a histogram of the
# values still in play, or collects and sorts them once few enough remain.
# Memory is the tallies, the histograms and the collected values, bounded by
# the budget whatever B; time is one statistic evaluation per pass (two passes
# on smooth bootstrap distributions).

REPLICATE_ELEMENTS = DEFAULT_CI_MEMORY_MIB << 17  # MiB of float64 replicates stored (--ci-memory)


def streamed_intervals(
    stream: BlockStream,
    estimate: np.ndarray,
    B: int,
    *,
    level: float,
    acceleration: np.ndarray | None = None,
    budget: int = REPLICATE_ELEMENTS,
) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) of every cell from a re-playable stream of its replicates,
    equal bit for bit to :func:`percentile_interval` (``acceleration`` None) or
    :func:`bca_interval` (given :func:`_acceleration` of the jackknife values,
    computed on the field's own shape: numpy's summation order depends on it)
    on the stored replicates."""
    tally = tally_stream(stream, estimate, budget)
    count = tally.count
    if acceleration is None:
        q1, q2, defined = _interval_levels(count, B, level)
    else:
        q1, q2, defined = _interval_levels(
            count, B, level, estimate=estimate, below=tally.below, acceleration=acceleration
        )
    # each end interpolates between two order statistics, for the cells where it is defined
    ends = []
    for q in (q1, q2):
        ok, below, above, frac = _quantile_ranks(count, q)
        w = np.flatnonzero(ok & defined)
        ends.append((w, below[w], above[w], frac[w]))
    cells = np.concatenate([c for w, *_ in ends for c in (w, w)])
    ranks = np.concatenate([r for _, below, above, _ in ends for r in (below, above)])
    got = iter(
        np.split(
            order_statistics(stream, tally, cells, ranks, budget=budget),
            np.cumsum([w.size for w, *_ in ends for _ in range(2)])[:-1],
        )
    )
    lo, hi = np.full(estimate.size, np.nan), np.full(estimate.size, np.nan)
    for out, (w, _, _, frac) in zip((lo, hi), ends, strict=True):
        s_below, s_above = next(got), next(got)
        out[w] = s_below + frac * (s_above - s_below)
    return lo, hi


def _flat(values: Mapping[str, np.ndarray]) -> np.ndarray:
    """A block of replicates name → (b, ...) as (b, cells), the fields side by side."""
    return np.concatenate([v.reshape(len(v), -1) for v in values.values()], axis=1)


def method_of(method: str | Mapping[str, str], name: str) -> str:
    """The interval method of field ``name``: ``method`` itself, or its entry
    in a mapping of methods by field (percentile for a field it does not name)."""
    chosen = method if isinstance(method, str) else method.get(name, "percentile")
    if chosen not in METHODS:
        raise ValueError(
            f"invalid interval method {chosen!r}: expected percentile, bca or studentized"
        )
    return chosen


def contrasts(statistic: Statistic, ia: np.ndarray, ib: np.ndarray) -> Statistic:
    """The paired mode of the bootstrap: ``statistic``'s fields as differences
    of systems, ``value[..., ia] − value[..., ib]`` for every pair (ia, ib).

    Every resample draws the same topics for all systems, so the difference of
    two runs' replicates is the replicate of their difference; the intervals
    of :func:`bootstrap_intervals` on the contrasts are paired intervals of
    each difference, with every method (percentile, BCa, studentized), as
    scipy.stats.bootstrap's paired mode. The fields must hold systems on their
    last axis.
    """

    def paired(x: np.ndarray) -> dict[str, np.ndarray]:
        return {k: v[..., ia] - v[..., ib] for k, v in statistic(x).items()}

    return paired


def _flattener(names: list[str]) -> Callable[[Mapping[str, np.ndarray]], np.ndarray]:
    """A block of replicates of the fields ``names`` as (b, cells) (:func:`_flat`)."""

    def flat(values: Mapping[str, np.ndarray]) -> np.ndarray:
        return _flat({k: values[k] for k in names})

    return flat


@dataclass(frozen=True)
class _Bootstrap:
    """One topic bootstrap of ``statistic`` on ``x`` (Efron & Tibshirani
    1993): B resamples drawn from ``seed`` in blocks of ``block`` rows,
    intervals at confidence ``level``, replicates kept within ``budget``
    elements and streamed beyond."""

    x: np.ndarray
    statistic: Statistic
    B: int
    seed: int
    level: float
    block: int | None
    budget: int

    def stored_ends(
        self,
        estimate: dict[str, np.ndarray],
        methods: dict[str, str],
        jack: dict[str, np.ndarray],
        infl: dict[str, np.ndarray],
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Every field's (lo, hi) from its replicates held at once."""
        reps = bootstrap_replicates(self.x, self.statistic, B=self.B, seed=self.seed,
                                    block=self.block)  # fmt: skip
        ends: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name, e in estimate.items():
            if methods[name] == "bca":
                ends[name] = bca_interval(reps[name], e, jack[name], self.level)
            elif methods[name] == "studentized":
                t = studentized_replicates(
                    reps[name], e, infl[name], B=self.B, seed=self.seed,
                    rows=_block_rows(self.x, self.block),
                )  # fmt: skip
                ends[name] = studentized_interval(percentile_interval(t, self.level), e, infl[name])
            else:
                ends[name] = percentile_interval(reps[name], self.level)
        return ends

    def streamed_ends(
        self,
        estimate: dict[str, np.ndarray],
        methods: dict[str, str],
        jack: dict[str, np.ndarray],
        infl: dict[str, np.ndarray],
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Every field's (lo, hi) in bounded memory (:func:`streamed_intervals`):
        one stream of θ* (percentile, BCa), one of t* (studentized)."""
        ends: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for group in ("direct", "studentized"):
            names = [k for k, m in methods.items() if (m == "studentized") == (group != "direct")]
            if not names:
                continue
            if group == "direct":
                lo, hi = self.direct_ends(names, estimate, methods, jack)
            else:
                lo, hi = self.studentized_ends(names, estimate, infl)
            start = 0
            for name in names:
                e = estimate[name]
                part = slice(start, start + e.size)
                start += e.size
                ends[name] = lo[part].reshape(e.shape), hi[part].reshape(e.shape)
        return ends

    def direct_ends(
        self,
        names: list[str],
        estimate: dict[str, np.ndarray],
        methods: dict[str, str],
        jack: dict[str, np.ndarray],
    ) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) of the percentile and BCa fields ``names``, side by side, from
        one re-playable stream of θ*: a pass per method present (BCa needs its
        acceleration, percentile none)."""
        B, level, budget = self.B, self.level, self.budget
        est = np.concatenate([estimate[k].ravel() for k in names])
        stream = replayed(self.x, self.statistic, _flattener(names), B=B, seed=self.seed,
                          block=self.block)  # fmt: skip
        accel = [
            _acceleration(jack[k]).ravel()
            if methods[k] == "bca"
            else np.full(estimate[k].size, np.nan)
            for k in names
        ]
        bca = np.concatenate([np.full(estimate[k].size, methods[k] == "bca") for k in names])
        if bca.any():
            lo, hi = streamed_intervals(
                stream, est, B, level=level, acceleration=np.concatenate(accel), budget=budget
            )
        if not bca.all():
            lo_p, hi_p = streamed_intervals(stream, est, B, level=level, budget=budget)
            lo = np.where(bca, lo, lo_p) if bca.any() else lo_p
            hi = np.where(bca, hi, hi_p) if bca.any() else hi_p
        return lo, hi

    def studentized_ends(
        self, names: list[str], estimate: dict[str, np.ndarray], infl: dict[str, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) of the studentized fields ``names``, side by side, from one
        re-playable stream of t* (:func:`studentized_stream`)."""
        x = self.x
        est = np.concatenate([estimate[k].ravel() for k in names])
        n = x.shape[-1]
        influence = np.concatenate([infl[k].reshape(n, -1) for k in names], axis=1)
        stream = studentized_stream(
            x, self.statistic, _flattener(names), est, influence, B=self.B, seed=self.seed,
            block=self.block,
        )  # fmt: skip
        q = streamed_intervals(stream, np.zeros_like(est), self.B, level=self.level,
                               budget=self.budget)  # fmt: skip
        return studentized_interval(q, est, influence)


def bootstrap_intervals(
    x: np.ndarray,
    statistic: Statistic,
    *,
    B: int,
    seed: int,
    level: float = 0.95,
    method: str | Mapping[str, str] = "percentile",
    block: int | None = None,
    budget: int = REPLICATE_ELEMENTS,
) -> dict[str, Interval]:
    """Estimate and topic-bootstrap interval of every field of ``statistic`` on ``x``.

    ``method`` is "percentile" (default), "bca" (Efron & Tibshirani 1993) or
    "studentized" (bootstrap-t, :func:`studentized_interval`), or a mapping
    field name → method. Intervals are NaN where the estimate is undefined.
    Replicates are kept while cells × B ≤ ``budget`` elements and streamed
    beyond (:func:`streamed_intervals`): the same intervals, bit for bit.
    """
    _tail(level)
    x = np.asarray(x, dtype=float)
    estimate = {k: np.asarray(v, dtype=float) for k, v in statistic(x).items()}
    methods = {name: method_of(method, name) for name in estimate}
    needs_jack = any(m != "percentile" for m in methods.values())
    jack = jackknife_replicates(x, statistic, block=block) if needs_jack else {}
    infl = {k: influence_values(jack[k]) for k, m in methods.items() if m == "studentized"}
    run = _Bootstrap(x, statistic, B, seed, level, block, budget)
    if sum(v.size for v in estimate.values()) * B > budget:
        ends = run.streamed_ends(estimate, methods, jack, infl)
    else:
        ends = run.stored_ends(estimate, methods, jack, infl)
    out: dict[str, Interval] = {}
    for name, e in estimate.items():
        undefined = ~np.isfinite(e)
        lo, hi = ends[name]
        out[name] = Interval(e, np.where(undefined, np.nan, lo), np.where(undefined, np.nan, hi))
    return out


# --------------------------------------------------------------------------- Pareto front


def pareto_front(bias2: np.ndarray, var: np.ndarray) -> np.ndarray:
    """Runs on the Pareto front of (Bias², Var), both to be minimised: bool (..., m).

    Run i is dominated when another run j has Bias²_j ≤ Bias²_i and
    Var_j ≤ Var_i with at least one inequality strict (weak dominance), so
    runs tied in both stay on the front together. A run with an undefined
    Bias² or Var is not on the front and dominates no run.
    """
    b = np.asarray(bias2, dtype=float)
    v = np.asarray(var, dtype=float)
    b, v = np.broadcast_arrays(b, v)
    # axis -2: candidate dominator j, axis -1: dominated run i
    bj, bi = b[..., :, np.newaxis], b[..., np.newaxis, :]
    vj, vi = v[..., :, np.newaxis], v[..., np.newaxis, :]
    dominates = (bj <= bi) & (vj <= vi) & ((bj < bi) | (vj < vi))
    return np.isfinite(b) & np.isfinite(v) & ~dominates.any(axis=-2)


# --------------------------------------------------------------------------- random grouping


@dataclass(frozen=True)
class CorrelationSummary:
    """Distribution of a per-repeat correlation: mean and the central ``level``
    quantiles over the ``defined`` repeats where it is defined."""

    mean: float
    lo: float
    hi: float
    defined: int
    repeats: int


def correlation_distribution(
    correlations_by_name: Mapping[str, np.ndarray], level: float = 0.95
) -> dict[str, CorrelationSummary]:
    """Distribution of per-repeat correlations, e.g. the Pearson and Spearman
    correlation of Bias² and Var in each random-grouping repeat (docs/numbers.md):
    name → (R,) values (NaN where undefined) → mean and the α / 1 − α
    quantiles (2.5 % / 97.5 % for level 0.95; numpy's linear interpolation)
    over the repeats where it is defined; NaN when it is defined in none."""
    alpha = _tail(level)
    out: dict[str, CorrelationSummary] = {}
    for name, values in correlations_by_name.items():
        r = np.asarray(values, dtype=float)
        ok = r[np.isfinite(r)]
        if ok.size:
            lo, hi = np.quantile(ok, [alpha, 1.0 - alpha])
            out[name] = CorrelationSummary(
                float(ok.mean()), float(lo), float(hi), int(ok.size), len(r)
            )
        else:
            out[name] = CorrelationSummary(np.nan, np.nan, np.nan, 0, len(r))
    return out
