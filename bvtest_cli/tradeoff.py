"""The effectiveness–stability tradeoff (SPEC §6; seed 000 §5.3, seed 001 Table 2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


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
    pearson = stats.pearsonr(bias2, var)
    spearman = stats.spearmanr(bias2, var)
    return Tradeoff(
        float(pearson.statistic),
        float(pearson.pvalue),
        float(spearman.statistic),
        float(spearman.pvalue),
    )
