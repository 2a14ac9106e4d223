"""Kendall's τ_b and bvtest's one tie rule between rankings (docs/rankings.md#ties).

Oracles: scipy.stats.kendalltau (variant b) on data whose only ties are
exact (no two values closer than 1e-6 unless equal); hand computations
written out here for near-ties, which the rule ties and scipy does not; a
loop over the pairs written here for swap counts.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from bvtest_cli.analyses.rankings import TIE_RTOL, kendall_tau_b, tie_tolerance
from bvtest_cli.analyses.sensitivity import swap_rates


def scipy_tau(x, y) -> float:
    return float(stats.kendalltau(x, y, variant="b").statistic)


def test_kendall_tau_b_equals_scipy_without_near_ties():
    rng = np.random.default_rng(3)
    for m in range(2, 12):
        for _ in range(15):
            # values on a grid of 0.05: exact ties, never a near-tie
            x = rng.integers(0, 8, m) * 0.05
            y = rng.integers(0, 8, m) * 0.05 + rng.choice([0.0, 10.0])
            expected = scipy_tau(x, y)
            got = float(kendall_tau_b(x, y))
            if math.isnan(expected):
                assert math.isnan(got)
            else:
                assert got == pytest.approx(expected, abs=1e-12)


def test_kendall_tau_b_vectorised_and_broadcast():
    rng = np.random.default_rng(4)
    x = rng.random(9)
    ys = rng.random((3, 5, 9))
    got = kendall_tau_b(x, ys)
    assert got.shape == (3, 5)
    for k, j in itertools.product(range(3), range(5)):
        assert got[k, j] == pytest.approx(scipy_tau(x, ys[k, j]), abs=1e-12)
    xs = rng.random((4, 9))
    both = kendall_tau_b(xs, xs[::-1])
    assert [float(v) for v in both] == pytest.approx(
        [scipy_tau(xs[k], xs[3 - k]) for k in range(4)], abs=1e-12
    )


def test_kendall_tau_b_undefined_when_a_ranking_ties_every_pair():
    assert math.isnan(float(kendall_tau_b([0.2, 0.2, 0.2], [0.1, 0.2, 0.3])))
    assert math.isnan(float(kendall_tau_b([0.1, 0.2, 0.3], [0.5, 0.5 + 1e-12, 0.5])))
    assert math.isnan(float(kendall_tau_b([0.4], [0.1])))  # m = 1: no pair
    assert float(kendall_tau_b([0.1, 0.2, 0.3], [1.0, 2.0, 3.0])) == 1.0
    assert float(kendall_tau_b([0.1, 0.2, 0.3], [3.0, 2.0, 1.0])) == -1.0


def test_two_scores_closer_than_the_tolerance_tie():
    """By hand. x = (0.3, 0.2, 0.1) orders every pair: S_x = (+, +, +) over the
    pairs (0,1), (0,2), (1,2). y = (0.5, 0.5 − 4e-10, 0.1): its tolerance is
    1e-9 · max(1, 0.5) = 1e-9 > 4e-10, so y ties systems 0 and 1:
    S_y = (0, +, +). τ_b = S_x·S_y / √(n_x n_y) = 2 / √(3 · 2) = 0.8165.
    scipy, which compares the floats exactly, orders them and gets 1."""
    x = [0.3, 0.2, 0.1]
    y = [0.5, 0.5 - 4e-10, 0.1]
    assert float(tie_tolerance(np.array(y))[0]) == pytest.approx(1e-9)
    assert float(kendall_tau_b(x, y)) == pytest.approx(2 / math.sqrt(6), abs=1e-15)
    assert scipy_tau(x, y) == pytest.approx(1.0)
    # 2e-9 is above the tolerance: an order, τ_b = 3 / √(3 · 3) = 1
    assert float(kendall_tau_b(x, [0.5, 0.5 - 2e-9, 0.1])) == 1.0


def test_the_tolerance_is_relative_to_the_largest_value_of_the_ranking():
    """By hand. Scaled by 1000, y = (500, 500 − 4e-7, 100) has tolerance
    1e-9 · 500 = 5e-7 > 4e-7: the same tie, the same τ_b = 2/√6 (a tolerance
    of 1e-12 per pair, 5e-10 here, would order them). Below 1 the floor
    max(1, ·) keeps it absolute: (0.005, 0.005 − 4e-10, 0.001) ties too."""
    x = [0.3, 0.2, 0.1]
    assert TIE_RTOL == 1e-9
    assert float(kendall_tau_b(x, [500.0, 500.0 - 4e-7, 100.0])) == pytest.approx(
        2 / math.sqrt(6), abs=1e-15
    )
    assert float(kendall_tau_b(x, [500.0, 500.0 - 6e-7, 100.0])) == 1.0
    assert float(kendall_tau_b(x, [0.005, 0.005 - 4e-10, 0.001])) == pytest.approx(
        2 / math.sqrt(6), abs=1e-15
    )


def test_rounding_noise_is_not_a_ranking():
    """0.1 + 0.2 = 0.30000000000000004 and 0.3 are equal in real arithmetic:
    they tie, so y = (0.1 + 0.2, 0.3, 0.5) has S_y = (0, −, −) against
    x = (1, 2, 3) with S_x = (−, −, −): τ_b = 2 / √(3 · 2)."""
    assert 0.1 + 0.2 != 0.3
    got = float(kendall_tau_b([1.0, 2.0, 3.0], [0.1 + 0.2, 0.3, 0.5]))
    assert got == pytest.approx(2 / math.sqrt(6), abs=1e-15)


def _swaps_by_loops(x, c, repeats, seed, width):
    """Swaps per bin by the definition: the two subsets order a pair
    oppositely; a difference within the rule's tolerance of its ranking
    (1e-9 · max(1, max |mean|) over the systems) is a tie, never a swap."""
    from bvtest_cli.analyses.sensitivity import disjoint_topic_subsets

    first, second = disjoint_topic_subsets(x.shape[1], c, repeats, seed)
    table: dict[int, list[int]] = {}
    for r in range(repeats):
        m1 = [float(np.mean(x[s, first[r]])) for s in range(len(x))]
        m2 = [float(np.mean(x[s, second[r]])) for s in range(len(x))]
        tol1 = 1e-9 * max(1.0, max(abs(v) for v in m1))
        tol2 = 1e-9 * max(1.0, max(abs(v) for v in m2))
        for i, j in itertools.combinations(range(len(x)), 2):
            d1, d2 = m1[i] - m1[j], m2[i] - m2[j]
            s1 = 0 if abs(d1) <= tol1 else (1 if d1 > 0 else -1)
            s2 = 0 if abs(d2) <= tol2 else (1 if d2 > 0 else -1)
            row = table.setdefault(int(abs(d1) // width), [0, 0])
            row[0] += 1
            row[1] += s1 * s2 < 0
    return table


def test_swap_rates_do_not_count_rounding_noise_as_swaps():
    """Systems 0 and 1 score 0.3 on every topic in real arithmetic, but system
    0's floats alternate above (0.1 + 0.2) and below (0.7 − 0.4) 0.3: their
    subset means differ by rounding noise whose sign depends on the subset.
    That noise is a tie in both subsets, so the pair never swaps; the other
    pairs (real differences) are counted as the loop above counts them."""
    n = 20
    noisy = np.array([0.1 + 0.2 if t % 2 else 0.7 - 0.4 for t in range(n)])
    assert (noisy != 0.3).all()
    rng = np.random.default_rng(6)
    x = np.vstack([noisy, np.full(n, 0.3), rng.random((3, n))])
    rows = swap_rates(x, sizes=[5], bin_width=0.05, repeats=40, seed=2)
    expected = _swaps_by_loops(x, 5, 40, 2, 0.05)
    assert [(int(r["bin_lo"] / 0.05 + 0.5), r["pairs"], r["swaps"]) for r in rows] == [
        (k, *expected[k]) for k in sorted(expected)
    ]
    # the pair (0, 1) alone: 40 observations, all in bin 0, none a swap
    alone = swap_rates(x[:2], sizes=[5], bin_width=0.05, repeats=40, seed=2)
    assert [(r["pairs"], r["swaps"]) for r in alone] == [(40, 0)]
