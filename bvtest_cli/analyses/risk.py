"""Risk-sensitive measures: URisk, TRisk, TRisk*, ZRisk and GeoRisk (docs/numbers.md).

Pure functions over numpy arrays, following Dinçer, Macdonald & Ounis,
"Risk-Sensitive Evaluation and Learning to Rank using Multiple Baselines"
(SIGIR 2016, Dincer16), eqs. (1), (2), (5)–(7).

Shapes: ``x`` holds scores of shape (..., m, n) — m systems, n topics, with
optional leading axes (e.g. a stack of random groupings, as in decompose.py).
``alphas`` is a 1-D sequence of risk-sensitivity parameters (alpha >= 0).
Every measure returns shape (..., m, k) with k = len(alphas): alphas are
broadcast along a trailing axis, never looped over.

Undefined values are NaN; the CLI renders them as null (docs/formats.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..measures.matrix import exact_mean, quiet
from .rankings import TIE_RTOL

__all__ = [
    "georisk",
    "georisk_from",
    "has_negative",
    "trisk",
    "trisk_mean",
    "urisk",
    "zrisk",
    "zrisk_pair",
    "zscores",
]

Alphas = Sequence[float] | np.ndarray


def _alphas(alphas: Alphas) -> np.ndarray:
    """alphas as a 1-D float array; alpha >= 0 (docs/numbers.md: losses weigh more, never less)."""
    a = np.atleast_1d(np.asarray(alphas, dtype=float))
    if a.ndim != 1:
        raise ValueError(f"alphas must be 1-D, got shape {a.shape}")
    if np.any(a < 0):
        raise ValueError("alphas must be >= 0")
    return a


def _scores(x: np.ndarray) -> np.ndarray:
    """x as a float array of shape (..., m, n) with at least one topic."""
    x = np.asarray(x, dtype=float)
    if x.ndim < 2:
        raise ValueError(f"scores must have shape (..., m, n), got {x.shape}")
    if x.shape[-1] == 0:
        # Every measure here is a per-topic average or sum: with no topics
        # they are undefined, and silently returning NaN would hide the bug.
        raise ValueError("scores must have at least one topic")
    return x


def _risk_reward(v: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Σ_{v>0} v + (1+α) Σ_{v<0} v over the last axis, for every α (Dincer16 eqs. 1, 6).

    The expression is linear in (1+α), so the wins and losses are summed once
    and combined by broadcasting: (...,) → (..., k). Without losses the
    result is the wins exactly (never −0.0 from 0 × a negative zero). A NaN
    term (scores so large that they overflowed) makes the result NaN rather
    than silently counting as neither a win nor a loss.
    """
    # max(v, 0) and min(v, 0) hold the same non-zero terms as "v where v > 0"
    # (resp. < 0), so the sums are the same floats; they propagate NaN, which
    # is the rule for an undefined term, in one pass each.
    wins = np.maximum(v, 0.0).sum(axis=-1)
    losses = np.minimum(v, 0.0).sum(axis=-1)
    out = wins[..., np.newaxis] + (1.0 + a) * losses[..., np.newaxis]
    return out + 0.0  # −0.0 + 0.0 = +0.0


def has_negative(x: np.ndarray) -> bool:
    """True when some score is negative: ZRisk/GeoRisk are then undefined (docs/numbers.md).

    The chi-square expectation e = S_i T_j / N and its square root assume
    non-negative cell values (Dincer16 §3.1), so the CLI prints null instead.
    """
    return bool(np.any(np.asarray(x) < 0))


@quiet
def urisk(x: np.ndarray, baseline: np.ndarray, alphas: Alphas) -> np.ndarray:
    """URisk of every system against one baseline run (docs/numbers.md, Dincer16 eq. 1).

    URisk_i = (1/n)[Σ_{δ>0} δ + (1+α) Σ_{δ<0} δ] with δ_j = x_ij − b_j.
    ``baseline`` has shape (..., n). Returns shape (..., m, k).
    At α = 0 this is mean(x_i) − mean(b).
    """
    x = _scores(x)
    a = _alphas(alphas)
    delta = x - np.asarray(baseline, dtype=float)[..., np.newaxis, :]
    return _risk_reward(delta, a) / x.shape[-1]


@quiet
def trisk(x: np.ndarray, baseline: np.ndarray, alphas: Alphas) -> np.ndarray:
    """TRisk = URisk / SE(URisk) against one baseline run (docs/numbers.md, Dincer16 eq. 2).

    SE = s_d / √n where d_j = δ_j if δ_j ≥ 0 else (1+α) δ_j and s_d is the
    *sample* standard deviation (n − 1), so TRisk is the paired Student t
    statistic of the d_j (Dinçer et al. 2014, cited as [13] in Dincer16).

    Computed from moments of the (..., m, n) differences instead of the
    (..., m, k, n) weighted ones (it runs once per bootstrap resample): with
    δ⁺ = max(δ, 0), δ⁻ = min(δ, 0) and c = 1 + α, d = δ⁺ + c δ⁻, so
    Σ (d − d̄)² = S₊₊ + 2c S₊₋ + c² S₋₋ with the centred (stable) sums
    S₊₊ = Σ (δ⁺ − mean δ⁺)², S₊₋, S₋₋ likewise. The numerator is
    :func:`urisk`, the mean of d.

    Edge cases: SE = 0 exactly when all d_j are equal, i.e. when all δ_j are
    (d is increasing in δ), which is also how it is detected, within the tie
    tolerance of the scale (:data:`~.rankings.TIE_RTOL`), so rounding can never
    turn 0/0 into ±1e16: TRisk is 0 if every δ_j is 0 (a run against
    itself), NaN otherwise. With n = 1 the sample deviation is undefined,
    which gives the same rule. Returns shape (..., m, k).
    """
    x = _scores(x)
    a = _alphas(alphas)
    n = x.shape[-1]
    delta = x - np.asarray(baseline, dtype=float)[..., np.newaxis, :]
    pos = np.maximum(delta, 0.0)
    neg = np.minimum(delta, 0.0)
    wins = pos.sum(axis=-1, keepdims=True)
    losses = neg.sum(axis=-1, keepdims=True)
    c = 1.0 + a
    u = (wins + c * losses + 0.0) / n  # URisk (eq. 1) as urisk computes it, (..., m, k)
    top = delta.max(axis=-1)[..., np.newaxis]
    # δ equal on every topic in exact arithmetic (0.7 − 0.6 and 0.4 − 0.3 differ in
    # binary): within the tie tolerance of the scores' scale, not to the last bit
    tol = TIE_RTOL * max(1.0, float(np.abs(x).max(initial=0.0)))
    constant = top - delta.min(axis=-1)[..., np.newaxis] <= tol
    if n > 1:
        pc = pos - wins / n  # centred: the sums of products below are stable
        nc = neg - losses / n
        spp = np.einsum("...j,...j->...", pc, pc)[..., np.newaxis]
        spn = np.einsum("...j,...j->...", pc, nc)[..., np.newaxis]
        snn = np.einsum("...j,...j->...", nc, nc)[..., np.newaxis]
        se = np.sqrt(np.maximum(spp + 2.0 * c * spn + c * c * snn, 0.0) / (n - 1) / n)
    else:
        se = np.zeros_like(u)
    # Divide only where SE is a genuine non-zero deviation; elsewhere NaN.
    out = np.divide(u, se, out=np.full_like(u, np.nan), where=~constant & (se > 0))
    return np.where(constant & (np.abs(top) <= tol), 0.0, out) + 0.0  # + 0.0: never −0.0


@quiet
def trisk_mean(x: np.ndarray, alphas: Alphas) -> np.ndarray:
    """TRisk* : TRisk against the per-topic mean of all m systems (docs/numbers.md, Dincer16 eq. 3).

    Mean_q = (1/m) Σ_i x_iq is the "unbiased baseline" of Dincer16 §2. On a
    topic where every system scores the same, Mean_q is that score exactly
    (matrix.exact_mean; the float mean of m equal values need not equal them),
    so copies of one run get TRisk* 0, as a run against itself (docs/numbers.md).
    With one system there is no baseline but the run itself: NaN (not the 0
    of a run against itself, which would read as "no risk"). Returns shape
    (..., m, k).
    """
    x = _scores(x)
    out = trisk(x, exact_mean(x, axis=-2), alphas)
    return out if x.shape[-2] > 1 else np.full_like(out, np.nan)


def _deviates(x: np.ndarray, st: np.ndarray, total: np.ndarray) -> np.ndarray:
    """z = (x − e)/√e with e = S_i T_j / N: e = 0 where N is not > 0 and z = 0
    where e is not > 0 (no information), and z undefined (NaN) where N is not
    finite (sums that overflowed). Those cells divide by +inf instead of
    going through a masked division, and the full-size masks are only built
    when such a cell exists (numpy's where is several times slower than
    arithmetic, and this runs once per bootstrap resample); elsewhere the
    floats are those of the plain formula."""
    e = st / np.where(total > 0, total, np.inf)  # total is small: (..., m or 1, 1)
    root = np.sqrt(np.maximum(e, 0.0))
    if not root.min(initial=np.inf) > 0:  # some e is 0 (or NaN)
        root = np.where(root > 0, root, np.inf)
    z = (x - e) / root
    finite = np.isfinite(total)
    return z if finite.all() else np.where(finite, z, np.nan)


@quiet
def zscores(x: np.ndarray) -> np.ndarray:
    """Standardised chi-square deviates z_ij = (x_ij − e_ij)/√e_ij (docs/numbers.md,
    Dincer16 eq. 5).

    e_ij = S_i T_j / N with S_i the row sums, T_j the column sums and N the
    grand total. A cell with e_ij = 0 carries no information (its row or its
    column is all zero, so x_ij = 0 too when x ≥ 0): z_ij = 0. N = 0 gives
    z = 0 everywhere. No numpy warnings are emitted for these cells.

    When all m rows are equal (copies of one run, or a run paired with itself
    in :func:`zrisk_pair`) e_ij = x_ij mathematically, but S_i T_j / N
    rounds; z is then exactly 0 rather than ±1e-16 noise.
    Requires x ≥ 0 (see has_negative). Returns shape (..., m, n).
    """
    x = _scores(x)
    s = x.sum(axis=-1, keepdims=True)  # S_i, (..., m, 1)
    t = x.sum(axis=-2, keepdims=True)  # T_j, (..., 1, n)
    total = s.sum(axis=-2, keepdims=True)  # N, (..., 1, 1)
    z = _deviates(x, s * t, total)
    # Equal rows have equal sums: only then is the full comparison needed.
    candidates = np.all(s == s[..., :1, :], axis=(-2, -1), keepdims=True)
    if not candidates.any():
        return z
    same = candidates & np.all(x == x[..., :1, :], axis=(-2, -1), keepdims=True)
    return np.where(same, 0.0, z)


@quiet
def zrisk(x: np.ndarray, alphas: Alphas) -> np.ndarray:
    """ZRisk with all m systems as multiple baselines (docs/numbers.md, Dincer16 eq. 6).

    ZRisk_i = Σ_{z>0} z_ij + (1+α) Σ_{z<0} z_ij, z from :func:`zscores`.
    Requires x ≥ 0. Returns shape (..., m, k); an all-zero matrix gives 0.
    """
    a = _alphas(alphas)
    return _risk_reward(zscores(x), a)


@quiet
def zrisk_pair(x: np.ndarray, reference: np.ndarray, alphas: Alphas) -> np.ndarray:
    """ZRisk of each system on the two-row matrix [x_i; reference] (docs/numbers.md, Dincer16 §4.1).

    With ``reference`` a baseline run this is the single-baseline ZRisk of
    Dincer16 Table 4; with the virtual target x_T[j] = max_i x_ij and α = 0
    it is the ZRisk against the target of Zhang22 Table 8.
    ``reference`` has shape (..., n). Requires x ≥ 0 and reference ≥ 0.
    Returns shape (..., m, k).

    :func:`zscores` of the m two-row matrices without stacking them: only row
    i's z-scores count, and they need only S_i, S_r, N = S_i + S_r and the
    column sums T_j = x_ij + r_j, so e_ij = S_i T_j / N is computed as
    zscores computes it (the same floating-point operations, hence the same
    numbers), with its edge cases: z = 0 where e = 0, NaN where N overflowed,
    and exactly 0 when x_i equals the reference.
    """
    # Row sums of a C-ordered array: numpy sums a strided row (a minmax-
    # normalized matrix is Fortran-ordered) in another order, and the numbers
    # should not depend on the caller's memory layout.
    x = np.ascontiguousarray(_scores(x))
    a = _alphas(alphas)
    ref = np.ascontiguousarray(np.asarray(reference, dtype=float)[..., np.newaxis, :])
    s = x.sum(axis=-1, keepdims=True)  # S_i, (..., m, 1)
    s_ref = ref.sum(axis=-1, keepdims=True)
    total = s + s_ref  # N = S_i + S_r
    z = _deviates(x, s * (x + ref), total)  # S_i T_j / N
    candidates = s == s_ref  # a run paired with itself has the reference's sum
    if candidates.any():
        z = np.where(candidates & np.all(x == ref, axis=-1, keepdims=True), 0.0, z)
    return _risk_reward(z, a)


@quiet
def georisk_from(mean: np.ndarray, z: np.ndarray, n: int) -> np.ndarray:
    """GeoRisk = √( mean · Φ(ZRisk / n) ) from its parts (docs/numbers.md, Dincer16 eq. 7).

    ``mean`` is S_i / n, shape (..., m); ``z`` the ZRisk values, shape (..., m, k);
    Φ (scipy.special.ndtr) maps ZRisk/n into [0, 1] so that both factors of the
    geometric mean are on the scale of the effectiveness measure.
    """
    mean = np.asarray(mean, dtype=float)[..., np.newaxis]
    from scipy.special import ndtr  # lazily: 0.27 s of start-up

    return np.sqrt(mean * ndtr(np.asarray(z, dtype=float) / n))


@quiet
def georisk(x: np.ndarray, alphas: Alphas) -> np.ndarray:
    """GeoRisk_i = √( (S_i/n) · Φ(ZRisk_i/n) ) with all systems as baselines
    (docs/numbers.md, Dincer16 eq. 7).

    Requires x ≥ 0. Returns shape (..., m, k).
    """
    x = _scores(x)
    return georisk_from(x.mean(axis=-1), zrisk(x, alphas), x.shape[-1])
