"""Bias², Var, MSE and the Var(ρ) decomposition (docs/numbers.md).

Pure functions over numpy arrays. :func:`decompose` accepts score arrays of
shape (..., m, n) — m systems, n topics or topic samples — so that the same
code serves the plain matrix and a stack of R random groupings (R, m, G).
All moments are population moments (1/n), as in Zhang22 eq. 7, unless
``ddof=1`` asks for the sample (1/(n−1)) estimator of the variances and the
covariance (Zhang22 Table 8 prints sample variances); an optional mask
restricts them to the kept samples (1/n_kept), which ratio normalization needs
when it drops samples whose target is 0 (docs/numbers.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..measures.matrix import quiet


@dataclass(frozen=True)
class BiasVariance:
    """Per-system fields of docs/numbers.md and §5, each of shape (..., m)."""

    mean: np.ndarray
    bias2: np.ndarray
    var: np.ndarray
    mse: np.ndarray
    var_rho: np.ndarray
    var_target: np.ndarray
    cov_target: np.ndarray

    FIELDS = ("mean", "bias2", "var", "mse", "var_rho", "var_target", "cov_target")

    def average(self, axis: int = 0) -> BiasVariance:
        """Field-wise mean over a leading axis (random-grouping repeats, docs/numbers.md)."""
        return BiasVariance(*(getattr(self, f).mean(axis=axis) for f in self.FIELDS))


@dataclass(frozen=True)
class _Moments:
    """Means and moments over the last axis of the kept samples (docs/numbers.md).

    Means are sums over the kept samples divided by their ``count``, as
    numpy's mean is. The means that deviations are taken from (of x, x_T and
    ρ) are exact where every kept value is equal (as matrix.exact_mean): a
    constant run has mean exactly its score and Var exactly 0, and copies of
    one run have Var(ρ), Bias² and so on exactly 0, instead of rounding noise
    (0.1 three times sums to 0.30000000000000004). The other means average
    values that are then exactly 0 already. ``scale`` is n / (n − ddof),
    which turns a population moment into the sample one (Zhang22 Table 8);
    it is None for ddof 0, so that default results stay bit-identical to the
    plain 1/n moments.
    """

    keep: np.ndarray | None
    count: np.ndarray
    scale: np.ndarray | None

    @classmethod
    def of(cls, x: np.ndarray, keep: np.ndarray | None, ddof: int) -> _Moments:
        count = np.asarray(x.shape[-1] if keep is None else keep.sum(axis=-1), dtype=float)
        scale = None
        if ddof:
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = np.where(count > ddof, count / (count - ddof), np.nan)
        return cls(keep, count, scale)

    def mean(self, a: np.ndarray, per_system: bool, exact: bool = False) -> np.ndarray:
        """The mean of ``a`` (..., m, n) per system, or of ``a`` (..., n)."""
        keep, count = self.keep, self.count
        if a.shape[-1] == 0:
            return np.full(a.shape[:-1], np.nan)
        mask = None if keep is None else keep[..., np.newaxis, :] if per_system else keep
        if mask is not None:
            a = a * mask
        # NaN where nothing is kept
        plain = a.sum(axis=-1) / (count[..., np.newaxis] if per_system else count)
        if not exact:
            return plain
        if mask is None:
            first = a[..., 0]
            equal = np.all(a == a[..., :1], axis=-1)
        else:  # compare with the first kept value; dropped samples do not count
            first_kept = np.argmax(np.broadcast_to(mask, a.shape), axis=-1)[..., np.newaxis]
            first = np.take_along_axis(a, first_kept, axis=-1)
            equal = np.all((a == first) | ~mask, axis=-1) & np.any(mask, axis=-1)
            first = first[..., 0]
        return np.where(equal, first, plain)

    def moment(self, a: np.ndarray, per_system: bool) -> np.ndarray:
        """The mean of ``a`` made the sample moment (divided by n − ddof)."""
        plain = self.mean(a, per_system)
        if self.scale is None:
            return plain
        return plain * (self.scale[..., np.newaxis] if per_system else self.scale)


def _rho_deviations(x: np.ndarray, target: np.ndarray, moments: _Moments) -> np.ndarray:
    """ρ_ij = x_T[j] − x_ij minus its mean per system (Zhang22 eq. 16), with
    the rounding error of each difference kept (Knuth's TwoSum): when x_T is
    large, 1e17 − 0.5 rounds to 1e17 and the run's own variation would vanish
    from Var(ρ); the error terms carry it. Where every difference is exact
    (the usual case) the error terms are 0 and add nothing."""
    t = np.broadcast_to(target[..., np.newaxis, :], x.shape)
    rho = t - x
    back = rho - t
    err = (t - (rho - back)) + (-x - back)
    err = np.where(np.isfinite(err), err, 0.0)
    dev = rho - moments.mean(rho, True, exact=True)[..., np.newaxis]
    if err.any():
        dev = dev + (err - moments.mean(err, True)[..., np.newaxis])
    return dev


@quiet
def decompose(
    x: np.ndarray,
    target: np.ndarray,
    c: np.ndarray | float,
    keep: np.ndarray | None = None,
    ddof: int = 0,
) -> BiasVariance:
    """All docs/numbers.md fields of every system for scores x (..., m, n), target (..., n).

    mean_i, Bias²_i = (mean_i − c)², Var_i = (1/n) Σ_j (x_ij − mean_i)²,
    MSE_i = (1/n) Σ_j (x_ij − c)² = Bias²_i + Var_i (Zhang22 eq. 7);
    Var(ρ_i) with ρ_ij = x_T[j] − x_ij, Var(x_T) and Cov(x_T, x_i) (Zhang22
    eq. 16). Var(ρ) is computed from ρ itself (with the rounding error of each
    difference x_T − x_i), so that Var(ρ) = Var(x_T) + Var(x_i) −
    2 Cov(x_T, x_i) is a real check, not a definition, and a large x_T beside
    small scores cannot hide the run's variation. ``c`` is a scalar or an array of shape (...).

    ``keep`` (boolean, shape (..., n)) restricts every moment to the kept
    samples (weight 1/n_kept, 0 elsewhere; values there must be finite);
    where nothing is kept every field is NaN. Scores so large that the
    moments overflow give inf or NaN, without numpy warnings.

    ``ddof`` (0 or 1) is the delta degrees of freedom of Var, Var(ρ), Var(x_T)
    and Cov(x_T, x_i): their sums of squares are divided by n − ddof (NaN
    where n − ddof <= 0). Bias² and MSE stay 1/n, so with ddof 1
    MSE = Bias² + (n−1)/n · Var, while Var(ρ) = Var(x_T) + Var(x_i) −
    2 Cov(x_T, x_i) still holds (every term has the same divisor).
    """
    x = np.asarray(x, dtype=float)
    target = np.asarray(target, dtype=float)
    moments = _Moments.of(x, keep, ddof)
    mean, moment = moments.mean, moments.moment
    cc = np.asarray(c, dtype=float)[..., np.newaxis]  # (..., 1): broadcast over systems
    mean_x = mean(x, True, exact=True)
    dx = x - mean_x[..., np.newaxis]
    var = moment(dx**2, True)
    mse = mean((x - cc[..., np.newaxis]) ** 2, True)
    dt = target - mean(target, False, exact=True)[..., np.newaxis]
    var_target = np.broadcast_to(moment(dt**2, False)[..., np.newaxis], var.shape).copy()
    cov = moment(dx * dt[..., np.newaxis, :], True)
    var_rho = moment(_rho_deviations(x, target, moments) ** 2, True)
    bias2 = (mean_x - cc) ** 2
    return BiasVariance(mean_x, bias2, var, mse, var_rho, var_target, cov)
