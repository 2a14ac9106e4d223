"""docs/numbers.md: correlations and p-values against scipy.stats (the independent oracle).

p-values: the exact permutation test for m <= 10 runs (scipy.stats.permutation_test
over every pairing, tests/permutation_oracle.py), scipy's t-test above.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from permutation_oracle import correlation_p
from scipy import stats

from bvtest_cli.analyses.tradeoff import correlate, rank_average


@pytest.mark.parametrize("n", [3, 4, 7, 30, 129])
def test_against_scipy(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        a = rng.random(n)
        b = np.round(rng.random(n) * 4) / 4 - 0.3 * a  # ties in b
        t = correlate(a, b)
        p, s = stats.pearsonr(a, b), stats.spearmanr(a, b)
        assert t.pearson == pytest.approx(p.statistic, abs=1e-12)
        assert t.pearson_p == pytest.approx(correlation_p(a, b, "pearson"), rel=1e-8, abs=1e-14)
        assert t.spearman == pytest.approx(s.statistic, abs=1e-12)
        assert t.spearman_p == pytest.approx(correlation_p(a, b, "spearman"), rel=1e-8, abs=1e-14)
        if n > 10:  # the t-test, as scipy.stats computes it
            assert t.pearson_p == pytest.approx(p.pvalue, rel=1e-8, abs=1e-14)
            assert t.spearman_p == pytest.approx(s.pvalue, rel=1e-8, abs=1e-14)


def test_rank_average_ties():
    assert rank_average(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_perfect_negative():
    t = correlate(np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.4, 0.3, 0.2, 0.1]))
    # Exact for 4 runs: 2 of the 4! pairings (identity, reversal) reach |r| = 1.
    assert t.pearson == -1.0 and t.pearson_p == 2 / 24 and t.spearman == -1.0


@pytest.mark.parametrize(
    "bias2,var,why",
    [
        ([0.1, 0.2], [0.3, 0.1], "at least 3"),
        ([0.1, 0.1, 0.1], [0.1, 0.2, 0.3], "Bias²"),
        ([0.1, 0.2, 0.3], [0.2, 0.2, 0.2], "Var"),
    ],
)
def test_undefined(bias2, var, why):
    t = correlate(np.array(bias2), np.array(var))
    assert all(math.isnan(getattr(t, f)) for f in t.FIELDS)
    assert why in t.reason
