"""docs/numbers.md p-values: exact permutation test for m <= 10 runs, t-test above.

With 3–5 runs the t-test gave p = 0 for |r| = 1 although 2 of the m!
pairings reach |r| = 1 (p = 2/m!). Oracles: scipy.stats.permutation_test
enumerating every pairing (tests/permutation_oracle.py), a brute force over
itertools.permutations written here, hand counts, and scipy.stats.pearsonr /
spearmanr (t-test) for m > 10.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from permutation_oracle import correlation_p
from scipy import stats

from bvtest_cli.analyses.tradeoff import correlate


def brute_force_p(x, y) -> float:
    """Fraction of the m! orders of y with |r| >= |r_observed| (scipy's r),
    every order listed by itertools and its r computed from the definition."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    observed = abs(stats.pearsonr(x, y).statistic)
    permuted = y[np.array(list(itertools.permutations(range(len(y)))))]  # (m!, m)
    xc = x - x.mean()
    pc = permuted - permuted.mean(axis=1, keepdims=True)
    r = (pc @ xc) / np.sqrt((xc**2).sum() * (pc**2).sum(axis=1))
    return float(np.mean(np.abs(r) >= observed - 1e-12))


def test_perfect_correlation_of_three_runs_is_p_one_third():
    """By hand: of the 3! = 6 pairings of (1, 2, 3) with (1, 2, 3), the identity
    gives r = 1 and the reversal r = −1; the other four give |r| = 1/2. So
    p = 2/6, where the t-test said 0."""
    t = correlate(np.array([0.1, 0.2, 0.3]), np.array([0.01, 0.02, 0.03]))
    assert t.pearson == 1.0 and t.spearman == 1.0
    assert t.pearson_p == 2 / 6 and t.spearman_p == 2 / 6


def test_perfect_negative_of_five_runs_is_p_one_sixtieth():
    """|r| = 1 only for the identity and the reversal: 2 of 5! = 120 pairings."""
    t = correlate(np.arange(5.0), -(np.arange(5.0) ** 3))
    assert t.spearman == -1.0 and t.spearman_p == 2 / 120
    # Pearson of x and −x³ is not ±1: only the order reversal attains |r|,
    # and the identity pairing ties with it: brute force decides.
    assert t.pearson_p == pytest.approx(brute_force_p(np.arange(5.0), -(np.arange(5.0) ** 3)))


@pytest.mark.parametrize("m", [3, 4, 5, 6, 7])
def test_brute_force(m):
    rng = np.random.default_rng(m)
    for _ in range(4):
        x = rng.random(m)
        y = np.round(rng.random(m) * 3)  # ties
        if np.ptp(y) == 0:
            continue
        t = correlate(x, y)
        assert t.pearson_p == pytest.approx(brute_force_p(x, y), abs=1e-15)
        assert t.spearman_p == pytest.approx(
            brute_force_p(stats.rankdata(x), stats.rankdata(y)), abs=1e-15
        )


@pytest.mark.parametrize("m", [3, 4, 6, 8, 9])
def test_against_scipy_permutation_test(m):
    rng = np.random.default_rng(100 + m)
    for _ in range(3):
        x = rng.random(m)
        y = np.round(rng.random(m) * 4) / 4 - 0.3 * x
        t = correlate(x, y)
        assert t.pearson == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
        assert t.spearman == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
        assert t.pearson_p == pytest.approx(correlation_p(x, y, "pearson"), rel=1e-12)
        assert t.spearman_p == pytest.approx(correlation_p(x, y, "spearman"), rel=1e-12)


def test_ten_runs_enumerate_all_pairings():
    """m = 10 is the largest exact case: 3,628,800 pairings."""
    rng = np.random.default_rng(10)
    x, y = rng.random(10), rng.random(10) + 0.5 * np.arange(10) / 10
    t = correlate(x, y)
    assert t.pearson_p == pytest.approx(correlation_p(x, y, "pearson"), rel=1e-12)
    assert t.pearson_p * math.factorial(10) == pytest.approx(
        round(t.pearson_p * math.factorial(10)), abs=1e-6
    )  # a count of pairings


@pytest.mark.parametrize("m", [11, 12, 30])
def test_t_test_above_ten_runs(m):
    rng = np.random.default_rng(m)
    x, y = rng.random(m), rng.random(m)
    t = correlate(x, y)
    assert t.pearson_p == pytest.approx(stats.pearsonr(x, y).pvalue, rel=1e-8)
    assert t.spearman_p == pytest.approx(stats.spearmanr(x, y).pvalue, rel=1e-8)


def test_vectorized_correlations_match_one_at_a_time():
    """pearson_r / spearman_r / rank_average take (..., m): each row equals the
    1-D result exactly, and scipy's statistic."""
    from bvtest_cli.analyses.tradeoff import pearson_r, rank_average, spearman_r

    rng = np.random.default_rng(7)
    x = np.round(rng.random((4, 3, 9)), 1)  # ties
    y = rng.random((4, 3, 9))
    r, rho, ranks = pearson_r(x, y), spearman_r(x, y), rank_average(x)
    assert r.shape == rho.shape == (4, 3) and ranks.shape == x.shape
    for idx in np.ndindex(4, 3):
        assert r[idx] == pearson_r(x[idx], y[idx])
        assert r[idx] == pytest.approx(stats.pearsonr(x[idx], y[idx]).statistic, abs=1e-12)
        assert rho[idx] == pytest.approx(stats.spearmanr(x[idx], y[idx]).statistic, abs=1e-12)
        assert ranks[idx].tolist() == stats.rankdata(x[idx]).tolist()


def test_cli_p_values_for_five_runs(bvtest, tmp_path):
    """A scores file of 5 runs (like CAsT's baselines): the printed p-values are
    the exact ones. Bias² and Var per run by hand are the correlated vectors."""
    # Topic scores: Var is the population variance, Bias² = (mean − c)², c = mean of max.
    table = {
        "r1": [0.9, 0.1, 0.5],
        "r2": [0.6, 0.4, 0.5],
        "r3": [0.2, 0.2, 0.8],
        "r4": [0.3, 0.3, 0.3],
        "r5": [0.7, 0.0, 0.2],
    }
    lines = ["system\ttopic\tmeasure\tvalue"]
    for s, row in table.items():
        lines += [f"{s}\tt{j}\tAP\t{v}" for j, v in enumerate(row)]
    path = tmp_path / "five.tsv"
    path.write_text("\n".join(lines) + "\n")
    proc = bvtest("eval", "--quiet", "-f", "json", "--scores", path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)["measures"]["AP"]["tradeoff"]
    x = np.array(list(table.values()))
    c = x.max(axis=0).mean()
    bias2 = (x.mean(axis=1) - c) ** 2
    var = x.var(axis=1)
    assert got["pearson_p"] == pytest.approx(correlation_p(bias2, var, "pearson"), rel=1e-12)
    assert got["spearman_p"] == pytest.approx(correlation_p(bias2, var, "spearman"), rel=1e-12)
    assert got["pearson_p"] == pytest.approx(brute_force_p(bias2, var), rel=1e-12)
