"""An independent oracle for correlation p-values (docs/numbers.md, tradeoff.py).

scipy.stats.permutation_test enumerates every pairing of x against y when
n_resamples is infinite (an exact test), with its own tolerance for ties
with the observed statistic; for more than 10 runs bvtest uses the t-test of
scipy.stats.pearsonr / spearmanr, which is returned unchanged.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def correlation_p(x, y, method: str) -> float:
    """Two-sided p-value of Pearson's r (method "pearson") or Spearman's rho
    ("spearman") of x and y: exact permutation test for len(x) <= 10, the
    t-test above."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if len(x) > 10:
        test = stats.pearsonr if method == "pearson" else stats.spearmanr
        return float(test(x, y).pvalue)
    if method == "spearman":
        x, y = stats.rankdata(x), stats.rankdata(y)
    yc = y - y.mean()

    def abs_r(a, axis):  # |Pearson r| of (permuted) a against the fixed y
        a = np.moveaxis(a, axis, -1)
        ac = a - a.mean(axis=-1, keepdims=True)
        return np.abs((ac * yc).sum(axis=-1) / np.sqrt((ac**2).sum(axis=-1) * (yc**2).sum()))

    res = stats.permutation_test(
        (x,),
        abs_r,
        permutation_type="pairings",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=True,
        batch=50_000,
    )
    return float(res.pvalue)
