"""Order statistics of bootstrap replicates that are streamed, not stored
(:func:`bvtest_cli.analyses.uncertainty.streamed_intervals`, docs/uncertainty.md).

The resamples are drawn again on every pass (the index stream depends only
on (seed, n, B), so every pass sees the same replicates, bit for bit). Pass 1
tallies each cell (:func:`tally_stream`: finite count, min, max, the counts
BCa's z0 needs) and histograms it over the range of its first replicates;
each later pass (:func:`order_statistics`) narrows every wanted order
statistic to one bin of a histogram of the values still in play, or collects
and sorts them once few enough remain. Memory is the tallies, the histograms
and the collected values, bounded by the budget whatever B. Pure numpy, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np


def below_estimate(replicates: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """2 · (fraction of finite replicates below the estimate, ties one half) · count:
    #{θ* < θ̂} + #{θ* ≤ θ̂} over the finite replicates (BCa's z0)."""
    finite = np.isfinite(replicates)
    return (finite & (replicates < estimate)).sum(axis=0) + (finite & (replicates <= estimate)).sum(
        axis=0
    )


_MAX_BINS = 1024  # per histogram: enough to leave ~ B/1000 values in the bin kept
_MAX_HISTOGRAM_PASSES = 16  # beyond: collect whatever remains (never reached on real data)

BlockStream = Callable[[], Iterator[np.ndarray]]  # a new pass over the (b, cells) replicates


@dataclass(frozen=True)
class _Level:
    """One histogram of a set of candidates: bins 1..bins across [lo, lo + 2·bins/scale),
    0 below, bins + 1 above (:func:`_bin`); ``chosen`` the bin kept."""

    lo: np.ndarray
    scale: np.ndarray
    bins: int
    chosen: np.ndarray

    def keeps(self, values: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Whether each value (b, len(rows)) falls in the chosen bin of target ``rows``."""
        return _bin(values, self.lo[rows], self.scale[rows], self.bins) == self.chosen[rows]


@dataclass(frozen=True)
class Tally:
    """Pass 1 over the replicates (B, cells): per cell, the finite count, min, max,
    #{< est} + #{≤ est} (BCa's z0), and a
    histogram (cells, bins + 2) of the finite values over [lo, lo + 2·bins/scale)."""

    count: np.ndarray
    minimum: np.ndarray
    maximum: np.ndarray
    below: np.ndarray
    lo: np.ndarray
    scale: np.ndarray
    histogram: np.ndarray


def _bin(values: np.ndarray, lo: np.ndarray, scale: np.ndarray, bins: int) -> np.ndarray:
    """Histogram bin of each value: 0 below ``lo``, 1..bins across, bins + 1 above.
    Monotone in the value and computed by the same operations on every pass, so
    a bin holds the same replicates each time. Halves keep v − lo finite."""
    with np.errstate(over="ignore"):  # far outside the bins: ±inf, clipped
        u = (values * 0.5 - lo * 0.5) * scale
    return np.clip(np.floor(u) + 1.0, 0.0, bins + 1.0)


def _scale(lo: np.ndarray, hi: np.ndarray, bins: int) -> np.ndarray:
    width = hi * 0.5 - lo * 0.5
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        scale = bins / width
    # a zero or subnormal width: any finite positive scale keeps the bins exact
    return np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)


def _count_bins(
    out: np.ndarray,
    values: np.ndarray,
    member: np.ndarray,
    lo: np.ndarray,
    scale: np.ndarray,
    bins: int,
) -> None:
    """Add the member values of each column of ``values`` (b, columns) to the
    histograms ``out`` (columns, bins + 2)."""
    b = _bin(np.where(member, values, lo), lo, scale, bins).astype(np.int64)
    b += np.arange(values.shape[1]) * (bins + 2)
    # ufunc.at touches only the bins hit (a bincount would allocate them all per block)
    np.add.at(out.reshape(-1), b[member], 1)


def _range(minimum: np.ndarray, maximum: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(lo, scale) of histograms over [minimum, maximum]; cells without a finite
    value (minimum inf) get any finite range."""
    defined = minimum <= maximum
    lo, hi = np.where(defined, minimum, 0.0), np.where(defined, maximum, 1.0)
    return lo, _scale(lo, hi, bins)


def tally_stream(stream: BlockStream, estimate: np.ndarray, budget: int) -> Tally:
    """Pass 1 over the replicates: the :class:`Tally` of every cell, its
    histogram's range set by the first replicates (about budget / (4 cells)
    rows, kept until then) and its bins sized to stay within ``budget``."""
    cells = estimate.size
    bins = int(np.clip(budget // max(1, 4 * cells), 16, _MAX_BINS))
    first_rows = max(1, budget // max(1, 4 * cells))  # stored to set the histogram's range
    count, below = (np.zeros(cells, dtype=np.int64) for _ in range(2))
    minimum, maximum = np.full(cells, np.inf), np.full(cells, -np.inf)
    histogram = np.zeros((cells, bins + 2), dtype=np.int64)
    first: list[np.ndarray] = []
    lo = scale = None
    for v in stream():
        finite = np.isfinite(v)
        count += finite.sum(axis=0)
        np.minimum(minimum, np.where(finite, v, np.inf).min(axis=0), out=minimum)
        np.maximum(maximum, np.where(finite, v, -np.inf).max(axis=0), out=maximum)
        below += below_estimate(v, estimate)
        if lo is None:
            first.append(v)
            if sum(len(f) for f in first) < first_rows:
                continue
            lo, scale = _range(minimum, maximum, bins)
            for f in first:  # block by block: the temporaries stay one block's size
                _count_bins(histogram, f, np.isfinite(f), lo, scale, bins)
            first.clear()
            continue
        assert scale is not None  # set with lo
        _count_bins(histogram, v, finite, lo, scale, bins)
    if lo is None:  # fewer replicates than first_rows
        lo, scale = _range(minimum, maximum, bins)
        for f in first:
            _count_bins(histogram, f, np.isfinite(f), lo, scale, bins)
    assert scale is not None  # set with lo
    return Tally(count, minimum, maximum, below, lo, scale, histogram)


@dataclass
class _Search:
    """Where :func:`order_statistics` stands, per target: the values below its
    candidates (``offset``), how many candidates are left (``left``), the
    range [lo, hi] they span, and the bins chosen so far (``levels``): a
    target's candidates are the values in every chosen bin."""

    rank: np.ndarray
    offset: np.ndarray
    left: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    levels: list[_Level]

    @classmethod
    def of(cls, rank: np.ndarray) -> _Search:
        targets = rank.size
        offset = np.zeros(targets, dtype=np.int64)
        left = np.zeros(targets, dtype=np.int64)
        return cls(rank, offset, left, np.zeros(targets), np.zeros(targets), [])

    def choose(
        self,
        level_lo: np.ndarray,
        level_scale: np.ndarray,
        level_bins: int,
        counts: np.ndarray,
        who: np.ndarray,
        smin: np.ndarray,
        smax: np.ndarray,
    ) -> None:
        """Keep, for each target ``who``, the bin of ``counts`` (len(who), bins + 2)
        that holds its order statistic; the next histogram spans that bin."""
        targets = self.rank.size
        cum = np.cumsum(counts, axis=1)
        wanted = (self.rank[who] - self.offset[who])[:, np.newaxis]
        chosen = (cum <= wanted).sum(axis=1)  # the first bin whose cumulative count passes it
        at = np.arange(who.size)
        before = np.where(chosen > 0, cum[at, np.maximum(chosen - 1, 0)], 0)
        self.offset[who] += before
        self.left[who] = cum[at, chosen] - before
        full = (np.zeros(targets), np.ones(targets), np.full(targets, -1.0))
        full[0][who], full[1][who], full[2][who] = level_lo, level_scale, chosen
        self.levels.append(_Level(*full[:2], level_bins, full[2]))
        edge = level_lo + 2.0 * (chosen - 1.0) / level_scale
        new_lo = np.where(chosen > 0, np.maximum(smin, edge), smin)
        new_hi = np.where(chosen <= level_bins, np.minimum(smax, edge + 2.0 / level_scale), smax)
        crossed = new_lo > new_hi  # rounding of the edges: span the candidates
        self.lo[who] = np.where(crossed, smin, new_lo)
        self.hi[who] = np.where(crossed, smax, new_hi)


def _search_pass(
    stream: BlockStream,
    cell: np.ndarray,
    search: _Search,
    ic: np.ndarray,
    ih: np.ndarray,
    h_lo: np.ndarray,
    h_scale: np.ndarray,
    bins: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One pass of :func:`order_statistics` over the replicates: the
    candidates of the targets ``ic`` collected (pool, (len(ic), slots), inf
    past the filled ones), those of ``ih`` histogrammed over [h_lo, h_lo +
    2·bins/h_scale) with their min and max. Returns (pool, counts, smin, smax)."""
    need = np.concatenate([ic, ih])
    pool = np.full((ic.size, max(1, int(search.left[ic].max()) if ic.size else 1)), np.inf)
    filled = np.zeros(ic.size, dtype=np.int64)
    counts = np.zeros((ih.size, bins + 2), dtype=np.int64)
    smin, smax = np.full(ih.size, np.inf), np.full(ih.size, -np.inf)
    for v in stream():
        vals = v[:, cell[need]]
        member = np.isfinite(vals)
        for level in search.levels:
            member &= level.keeps(vals, need)
        mc, vc = member[:, : ic.size], vals[:, : ic.size]
        rows, cols = np.nonzero(mc)
        if rows.size:
            within = np.cumsum(mc, axis=0)[rows, cols] - 1
            pool[cols, filled[cols] + within] = vc[rows, cols]
            filled += mc.sum(axis=0)
        mh, vh = member[:, ic.size :], vals[:, ic.size :]
        _count_bins(counts, vh, mh, h_lo, h_scale, bins)
        np.minimum(smin, np.where(mh, vh, np.inf).min(axis=0), out=smin)
        np.maximum(smax, np.where(mh, vh, -np.inf).max(axis=0), out=smax)
    return pool, counts, smin, smax


def order_statistics(
    stream: BlockStream, tally: Tally, cell: np.ndarray, rank: np.ndarray, *, budget: int
) -> np.ndarray:
    """The ``rank[t]``-th smallest (0-based) finite replicate of cell ``cell[t]``,
    for every t, without keeping the replicates: the tally's histogram gives
    each target a first bin; then one pass over ``stream`` per finer histogram,
    and one to collect the few values left (:func:`_search_pass`).

    A target's candidates are the values in every bin chosen so far
    (:class:`_Search`). Histograms have ``bins`` bins and collections ``cap``
    slots per target, both sized so that they stay within ``budget`` elements.
    """
    targets = cell.size
    bins = int(np.clip(budget // max(1, 4 * targets), 16, _MAX_BINS))
    cap = int(max(64, budget // max(1, 2 * targets)))
    search = _Search.of(rank)
    search.choose(
        tally.lo[cell], tally.scale[cell], tally.histogram.shape[1] - 2, tally.histogram[cell],
        np.arange(targets), tally.minimum[cell], tally.maximum[cell],
    )  # fmt: skip
    done = tally.minimum[cell] == tally.maximum[cell]  # one distinct value in the cell
    value = np.where(done, tally.minimum[cell], np.nan)
    for passes in range(_MAX_HISTOGRAM_PASSES + 1):
        active = ~done
        if not active.any():
            break
        left, offset = search.left, search.offset
        limit = cap if passes < _MAX_HISTOGRAM_PASSES else int(left.max())
        ic = np.flatnonzero(active & (left <= limit))  # collected this pass
        ih = np.flatnonzero(active & (left > limit))  # histogrammed this pass
        h_lo, h_scale = search.lo[ih], _scale(search.lo[ih], search.hi[ih], bins)
        pool, counts, smin, smax = _search_pass(stream, cell, search, ic, ih, h_lo, h_scale, bins)
        if ic.size:
            pool.sort(axis=1)
            value[ic] = pool[np.arange(ic.size), rank[ic] - offset[ic]]
            done[ic] = True
        if ih.size:
            tied = smin == smax  # every candidate equal: that is the value
            value[ih[tied]], done[ih[tied]] = smin[tied], True
            search.choose(h_lo, h_scale, bins, counts, ih, smin, smax)
    return value
