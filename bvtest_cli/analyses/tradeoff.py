"""The effectiveness–stability tradeoff (docs/numbers.md; Zhang22 §5.3, Zhang14 Table 2).

Pearson and Spearman correlations of Bias² and Var across the m systems,
each with a two-sided p-value for H0: no association.

* m <= 10 (EXACT_MAX_SYSTEMS): the exact permutation p-value, the fraction of
  the m! pairings of the two vectors whose correlation is at least as large in
  absolute value as the observed one. The t-test is an approximation that
  assumes bivariate normal data and is poor for a handful of runs: with 3–5
  runs a perfect |r| = 1 gets p = 0 from it, while 2 of the 3! = 6 pairings
  of three runs reach |r| = 1, so the exact p is 1/3.
* m > 10: the usual t-test, t = r √((m−2)/(1−r²)) with m−2 degrees of freedom
  (the tests of scipy.stats.pearsonr and spearmanr).

Everything is computed with numpy and scipy.special because importing
scipy.stats costs most of a second, which a command-line tool pays on every
call. The correlations themselves (:func:`pearson_r`, :func:`spearman_r`,
:func:`rank_average`) take vectors with leading axes (..., m), e.g. a stack
of bootstrap samples.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from ..measures.matrix import quiet

EXACT_MAX_SYSTEMS = 10
"""Up to this many systems p-values are exact (10! = 3,628,800 pairings)."""

# Pairings whose |r| is within this of the observed |r| count as reaching it:
# the same pairing summed in another order may differ by a few ulps (m terms
# of size <= 1 in units of ‖x‖‖y‖), never by anything near 1e-12.
_TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Tradeoff:
    """Pearson and Spearman correlation of Bias² and Var across systems, with
    two-sided p-values; NaN with ``reason`` set when undefined."""

    pearson: float
    pearson_p: float
    spearman: float
    spearman_p: float
    reason: str | None = None

    FIELDS = ("pearson", "pearson_p", "spearman", "spearman_p")


@quiet
def correlate(bias2: np.ndarray, var: np.ndarray) -> Tradeoff:
    """Correlations across systems of Bias² and Var. A strongly negative value
    means a tradeoff: the more effective systems (low Bias²) are the less stable
    (high Var). Needs m >= 3 and non-constant vectors (docs/numbers.md). p-values are
    exact permutation p-values for m <= 10, t-test p-values above."""
    nan = float("nan")
    bias2 = np.asarray(bias2, dtype=float)
    var = np.asarray(var, dtype=float)
    if len(bias2) < 3:
        return Tradeoff(nan, nan, nan, nan, f"needs at least 3 systems, got {len(bias2)}")
    for name, v in (("Bias²", bias2), ("Var", var)):
        if not np.isfinite(v).all():  # scores so large that the moments overflowed
            return Tradeoff(nan, nan, nan, nan, f"{name} is not finite for every system")
        if constant(v):
            return Tradeoff(nan, nan, nan, nan, f"{name} is the same for every system")
    rb, rv = rank_average(bias2), rank_average(var)
    r = float(pearson_r(bias2, var))
    rho = float(pearson_r(rb, rv))
    return Tradeoff(r, p_value(bias2, var, r), rho, p_value(rb, rv, rho))


def constant(v: np.ndarray) -> np.ndarray:
    """True where the vector (last axis) is the same everywhere, to rounding:
    its range is at most 1e-15 of its largest magnitude (or of 1), (..., m) → (...)."""
    v = np.asarray(v, dtype=float)
    scale = np.maximum(1.0, np.abs(v).max(axis=-1))
    return (np.ptp(v, axis=-1) <= 1e-15 * scale)[()]


@quiet
def defined(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Where :func:`correlate` gives a correlation (docs/numbers.md): at least 3 systems,
    both vectors finite and neither constant; (..., m) → bool (...)."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    ok = np.isfinite(x).all(axis=-1) & np.isfinite(y).all(axis=-1)
    if x.shape[-1] < 3:
        return np.zeros(ok.shape, dtype=bool)[()]
    return (ok & ~constant(x) & ~constant(y))[()]


@quiet
def correlations(bias2: np.ndarray, var: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson and Spearman of Bias² and Var for stacks (..., m) → two (...)
    arrays: the numbers of :func:`correlate` (same arithmetic, row by row), NaN
    where it says undefined. For bootstrap resamples and random-grouping repeats.
    """
    b, v = np.broadcast_arrays(np.asarray(bias2, dtype=float), np.asarray(var, dtype=float))
    ok = np.asarray(defined(b, v))
    # Undefined rows are replaced by a harmless vector before dividing by their norm.
    safe = np.arange(b.shape[-1], dtype=float)
    b = np.where(ok[..., np.newaxis], b, safe)
    v = np.where(ok[..., np.newaxis], v, safe)
    nan = np.nan
    return np.where(ok, pearson_r(b, v), nan)[()], np.where(ok, spearman_r(b, v), nan)[()]


def p_value(x: np.ndarray, y: np.ndarray, r: float) -> float:
    """Two-sided p-value of the correlation r of 1-D x and y: exact permutation
    p-value up to EXACT_MAX_SYSTEMS values, t-test above (module docstring)."""
    if len(x) <= EXACT_MAX_SYSTEMS:
        return permutation_p(x, y)
    return t_test_p(r, len(x))


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ a·b over the last axis for any leading axes, in numpy's own fixed
    order (einsum without ``optimize`` never calls BLAS): the same bits for a
    vector alone or in a stack, and on every CPU, whichever BLAS kernel it
    selects (a BLAS dot's summation order depends on the kernel). C order puts
    the summed axis innermost, which makes every row sum alike."""
    return np.einsum("...j,...j->...", np.ascontiguousarray(a), np.ascontiguousarray(b))


@quiet
def pearson_r(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r along the last axis of x and y, shape (..., m) → (...).

    Within rounding of ±1 it is ±1 (a perfect correlation must read as one);
    NaN where either vector is constant.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    r = _dot(xc, yc) / np.sqrt(_dot(xc, xc) * _dot(yc, yc))
    return np.where(np.abs(r) > 1.0 - 1e-12, np.sign(r), r)[()]


def spearman_r(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho: Pearson's r of the average ranks, shape (..., m) → (...)."""
    return pearson_r(rank_average(x), rank_average(y))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of two 1-D vectors as a float (see :func:`pearson_r`)."""
    return float(pearson_r(x, y))


def t_test_p(r: float, n: int) -> float:
    """Two-sided p-value of H0: no correlation, t = r √((n−2)/(1−r²)) with n−2 df."""
    if abs(r) >= 1.0:
        return 0.0
    df = n - 2
    t = abs(r) * np.sqrt(df / (1.0 - r * r))
    from scipy.special import stdtr  # lazily: 0.27 s of start-up

    return float(2.0 * stdtr(df, -t))


@quiet
def permutation_p(x: np.ndarray, y: np.ndarray) -> float:
    """Exact two-sided permutation p-value of the correlation of 1-D x and y.

    The fraction of the m! pairings π (y permuted against x) with
    |Σ x_c[i] y_c[π(i)]| >= |Σ x_c[i] y_c[i]| (x_c, y_c centred), i.e.
    |r_π| >= |r|, since the norms do not depend on π. For Spearman pass the
    ranks. The observed pairing is one of the m!, so p >= 1/m!; ties in the
    data simply repeat pairings, which is the permutation distribution.

    Meet in the middle rather than m! × m products: the first h = m // 2
    positions take some h-subset C of y's values in one of h! orders, the
    rest take the complement in one of (m−h)! orders, and the sum splits
    accordingly. Per subset the h! and (m−h)! partial sums are added as an
    outer sum, so the m! totals cost one addition each (10!: ~30 ms).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    m = len(x)
    if m > EXACT_MAX_SYSTEMS:
        raise ValueError(f"exact permutation p-values need m <= {EXACT_MAX_SYSTEMS}, got {m}")
    xc = x - x.mean()
    yc = y - y.mean()
    scale = float(np.sqrt(_dot(xc, xc) * _dot(yc, yc)))
    if not scale > 0:
        return float("nan")
    first, second = _pairing_halves(m)
    h = first.shape[-1]
    s1 = (yc[first] * xc[:h]).sum(axis=-1)  # (C, h!)
    s2 = (yc[second] * xc[h:]).sum(axis=-1)  # (C, (m−h)!)
    observed = abs(float(_dot(xc, yc)))
    totals = s1[:, :, np.newaxis] + s2[:, np.newaxis, :]  # (C, h!, (m−h)!): all m! pairings
    hits = int(np.count_nonzero(np.abs(totals) >= observed - _TIE_TOLERANCE * scale))
    return hits / totals.size


@functools.lru_cache(maxsize=EXACT_MAX_SYSTEMS + 1)
def _pairing_halves(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays enumerating all m! pairings as (subset, order, order).

    ``first[c, p]`` are the indices of y placed at positions 0..h−1 by order p
    of subset c, ``second[c, q]`` those at positions h..m−1 by order q of
    the complement; every permutation of range(m) is exactly one
    (c, p, q). Shapes (C(m, h), h!, h) and (C(m, h), (m−h)!, m−h).
    """
    h = m // 2
    subsets = np.array(list(itertools.combinations(range(m), h)), dtype=np.intp).reshape(-1, h)
    rest = np.array(
        [[i for i in range(m) if i not in set(c)] for c in subsets.tolist()], dtype=np.intp
    ).reshape(len(subsets), m - h)
    orders_h = np.array(list(itertools.permutations(range(h))), dtype=np.intp).reshape(-1, h)
    orders_r = np.array(list(itertools.permutations(range(m - h))), dtype=np.intp).reshape(
        -1, m - h
    )
    return subsets[:, orders_h], rest[:, orders_r]


def rank_average(x: np.ndarray) -> np.ndarray:
    """Ranks 1..m along the last axis with ties given their average rank (as
    Spearman's rho needs); shape (..., m) → (..., m)."""
    x = np.asarray(x, dtype=float)
    m = x.shape[-1]
    if m == 0:
        return np.zeros(x.shape)
    order = np.argsort(x, axis=-1, kind="mergesort")
    sorted_x = np.take_along_axis(x, order, axis=-1)
    position = np.broadcast_to(np.arange(m), x.shape)
    # For each sorted position, the first and one-past-last index of its run of
    # equal values: a running max of run starts, a reversed running min of ends.
    new_run = np.ones(x.shape, dtype=bool)
    new_run[..., 1:] = sorted_x[..., 1:] != sorted_x[..., :-1]
    starts = np.maximum.accumulate(np.where(new_run, position, 0), axis=-1)
    run_ends = np.ones(x.shape, dtype=bool)
    run_ends[..., :-1] = new_run[..., 1:]
    ends = np.flip(
        np.minimum.accumulate(np.flip(np.where(run_ends, position + 1, m), axis=-1), axis=-1),
        axis=-1,
    )
    ranks = np.empty(x.shape)
    np.put_along_axis(ranks, order, (starts + ends + 1) / 2.0, axis=-1)
    return ranks
