"""The effectiveness–stability tradeoff (SPEC §6; seed 000 §5.3, seed 001 Table 2).

Pearson and Spearman correlations with the usual two-sided t-test p-values
(the tests of scipy.stats.pearsonr and spearmanr). They are computed here with
scipy.special because importing scipy.stats costs most of a second, which a
command-line tool pays on every call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import stdtr


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


def correlate(bias2: np.ndarray, var: np.ndarray) -> Tradeoff:
    """Correlations across systems of Bias² and Var. A strongly negative value
    means a tradeoff: the more effective systems (low Bias²) are the less stable
    (high Var). Needs m >= 3 and non-constant vectors (SPEC §6)."""
    nan = float("nan")
    if len(bias2) < 3:
        return Tradeoff(nan, nan, nan, nan, f"needs at least 3 systems, got {len(bias2)}")
    for name, v in (("Bias²", bias2), ("Var", var)):
        if np.ptp(v) <= 1e-15 * max(1.0, float(np.abs(v).max())):
            return Tradeoff(nan, nan, nan, nan, f"{name} is the same for every system")
    r = pearson(bias2, var)
    rho = pearson(rank_average(bias2), rank_average(var))
    n = len(bias2)
    return Tradeoff(r, t_test_p(r, n), rho, t_test_p(rho, n))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r; within rounding of ±1 it is ±1 (else p would be ~1e-9, not 0)."""
    xc, yc = x - x.mean(), y - y.mean()
    r = float(np.dot(xc, yc) / np.sqrt(np.dot(xc, xc) * np.dot(yc, yc)))
    return float(np.sign(r)) if abs(r) > 1.0 - 1e-12 else r


def t_test_p(r: float, n: int) -> float:
    """Two-sided p-value of H0: no correlation, t = r √((n−2)/(1−r²)) with n−2 df."""
    if abs(r) >= 1.0:
        return 0.0
    df = n - 2
    t = abs(r) * np.sqrt(df / (1.0 - r * r))
    return float(2.0 * stdtr(df, -t))


def rank_average(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank (as Spearman's rho needs)."""
    order = np.argsort(x, kind="mergesort")
    sorted_x = x[order]
    # first index of each run of equal values, and the run's average rank
    starts = np.flatnonzero(np.r_[True, sorted_x[1:] != sorted_x[:-1]])
    ends = np.r_[starts[1:], len(x)]
    average = (starts + ends + 1) / 2.0
    ranks = np.empty(len(x))
    ranks[order] = np.repeat(average, ends - starts)
    return ranks
