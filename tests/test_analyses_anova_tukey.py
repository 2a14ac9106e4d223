"""Tukey's HSD, the randomised Tukey HSD test and the effect sizes beside them,
against a two-way ANOVA written out with loops, a published table of the
studentized range, full enumeration of permutations, simulation under the
null hypothesis and hand computation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import studentized_range

from bvtest_cli.analyses.anova import (
    effect_size_residual,
    glass_delta,
    randomised_tukey,
    tukey_hsd,
)

#: A 4 × 6 systems × topics matrix with no structure to speak of.
SCORES_4X6 = np.array(
    [
        [0.31, 0.52, 0.12, 0.44, 0.27, 0.60],
        [0.25, 0.49, 0.05, 0.40, 0.22, 0.51],
        [0.45, 0.58, 0.20, 0.47, 0.39, 0.66],
        [0.10, 0.35, 0.09, 0.28, 0.15, 0.41],
    ]
)


def _two_way_by_loops(x):
    """V_E of the two-way ANOVA without replication, every sum an explicit loop."""
    m, n = len(x), len(x[0])
    grand = sum(x[i][j] for i in range(m) for j in range(n)) / (m * n)
    row = [sum(x[i][j] for j in range(n)) / n for i in range(m)]
    col = [sum(x[i][j] for i in range(m)) / m for j in range(n)]
    ss_e = 0.0
    for i in range(m):
        for j in range(n):
            ss_e += (x[i][j] - row[i] - col[j] + grand) ** 2
    df = (m - 1) * (n - 1)
    return row, ss_e / df, df


def test_hsd_against_a_two_way_anova_written_out():
    x = SCORES_4X6.tolist()
    row, v_e, df = _two_way_by_loops(x)
    m, n = 4, 6
    q_crit = studentized_range.ppf(0.95, m, df)
    h = tukey_hsd(SCORES_4X6)
    assert h.df == df == 15
    assert h.ms_residual == pytest.approx(v_e, rel=1e-12)
    k = 0
    for i in range(m):
        for j in range(i + 1, m):
            assert (h.pairs[0][k], h.pairs[1][k]) == (i, j)
            d = row[i] - row[j]
            q = abs(d) / math.sqrt(v_e / n)
            assert h.diff[k] == pytest.approx(d, rel=1e-12)
            assert h.q[k] == pytest.approx(q, rel=1e-12)
            assert h.p[k] == pytest.approx(studentized_range.sf(q, m, df), rel=1e-9)
            half = q_crit * math.sqrt(v_e / n)
            assert h.lo[k] == pytest.approx(d - half, rel=1e-12)
            assert h.hi[k] == pytest.approx(d + half, rel=1e-12)
            k += 1
    assert k == len(h.diff) == 6
    # A pair is significant at the 5 % level exactly when its interval excludes 0.
    excludes = (h.lo > 0) | (h.hi < 0)
    np.testing.assert_array_equal(excludes, h.p < 0.05)
    assert excludes.any() and not excludes.all()


# Upper 5 % points of the studentized range q_{0.05}(k, ν) as tabulated by
# Harter, H. L. (1960), "Tables of range and studentized range", Annals of
# Mathematical Statistics 31(4), 1122–1147 (the table most textbooks reprint,
# e.g. Montgomery's Design and Analysis of Experiments, Appendix VIII), with
# the systems × topics shape whose (m − 1)(n − 1) is ν.
HARTER_Q05 = [
    ((3, 6), 10, 3.877),
    ((4, 5), 12, 4.199),
    ((4, 6), 15, 4.076),
    ((3, 11), 20, 3.578),
    ((5, 6), 20, 4.232),
]


@pytest.mark.parametrize(("shape", "df", "table"), HARTER_Q05)
def test_critical_value_against_the_published_table(shape, df, table):
    x = np.random.default_rng(0).random(shape)
    h = tukey_hsd(x, with_p=False)
    assert h.df == df
    assert h.q_crit == pytest.approx(table, abs=5e-4)
    # the interval's half-width is q_crit standard errors
    se = math.sqrt(h.ms_residual / shape[1])
    np.testing.assert_allclose((h.hi - h.lo) / 2, table * se, rtol=2e-4)
    assert np.isnan(h.p).all()


def test_hsd_stacks_over_leading_axes():
    x = np.random.default_rng(1).random((3, 4, 7))
    stacked = tukey_hsd(x, with_p=False)
    for k in range(3):
        one = tukey_hsd(x[k], with_p=False)
        np.testing.assert_allclose(stacked.q[k], one.q, rtol=1e-12)
        np.testing.assert_allclose(stacked.lo[k], one.lo, rtol=1e-12)


def test_hsd_family_wise_error_under_the_null_is_its_level():
    # Normal scores, topic effects, no system effect: the probability that any
    # of the 10 pairs of 5 systems is significant at 5 % is 5 % (Tukey's HSD
    # is exact under these assumptions). 4000 simulated collections.
    rng = np.random.default_rng(20260513)
    S, m, n = 4000, 5, 10
    x = rng.normal(0.0, 1.0, (S, 1, n)) + rng.normal(0.0, 0.5, (S, m, n))
    h = tukey_hsd(x, with_p=False)
    fwer = np.mean((h.q > h.q_crit).any(axis=-1))
    se = math.sqrt(0.05 * 0.95 / S)
    assert abs(fwer - 0.05) <= 3 * se, fwer
    # the p-values say the same as the critical value (a few collections)
    few = tukey_hsd(x[:4])
    np.testing.assert_array_equal(few.p < 0.05, few.q > few.q_crit)


def test_hsd_of_an_exactly_additive_matrix():
    # x_ij = s_i + t_j with every mean exact in binary: V_E = 0, so a zero
    # difference has no q and a nonzero one is infinitely significant
    x = np.array([0.0, 0.0, 1.0, 3.0])[:, None] + np.array([0.0, 2.0, 4.0, 6.0])[None, :]
    h = tukey_hsd(x)
    assert h.ms_residual == 0.0
    assert np.isnan(h.q[0]) and np.isnan(h.p[0])
    assert np.isposinf(h.q[1:]).all() and (h.p[1:] == 0.0).all()


def test_randomised_p_of_a_huge_difference_is_the_smallest_possible():
    # System 0 is 10 above the others on every one of 20 topics; a permutation
    # reaches a range of that size only by keeping all 20 of its scores in one
    # row, with probability 3 · 3⁻²⁰ ≈ 9e-10 each.
    rng = np.random.default_rng(4)
    x = rng.normal(0.0, 0.1, (3, 20))
    x[0] += 10.0
    B = 2000
    p = randomised_tukey(x, B=B, seed=7)
    assert p[0] == p[1] == 1.0 / (B + 1)
    assert p[2] > 0.01  # systems 1 and 2 are alike


def test_randomised_p_of_identical_systems_is_one():
    x = np.random.default_rng(5).random((1, 8))
    x = np.vstack([x, x, x + 0.3])
    p = randomised_tukey(x, B=500, seed=1)
    assert p[0] == 1.0  # systems 0 and 1 are the same run
    # three identical systems: every permutation leaves every mean unchanged
    assert (randomised_tukey(np.vstack([x[0]] * 3), B=50, seed=1) == 1.0).all()


def test_randomised_p_against_full_enumeration():
    # 3 systems × 4 topics: 6⁴ = 1296 equally likely permutations of the columns.
    # The exact p of a pair is the share of them whose range of means is at
    # least the pair's difference; the Monte-Carlo p is (1 + B·share)/(B + 1)
    # in expectation, within a binomial error.
    x = np.array([[0.2, 0.9, 0.4, 0.7], [0.1, 0.5, 0.6, 0.3], [0.0, 0.4, 0.1, 0.2]])
    m, n = x.shape
    observed = {
        (i, j): abs(x[i].mean() - x[j].mean()) for i, j in itertools.combinations(range(m), 2)
    }
    counts = dict.fromkeys(observed, 0)
    total = 0
    for perms in itertools.product(itertools.permutations(range(m)), repeat=n):
        means = [sum(x[perms[j][i], j] for j in range(n)) / n for i in range(m)]
        r = max(means) - min(means)
        total += 1
        for key, d in observed.items():
            counts[key] += r >= d - 1e-12
    B = 20000
    p = randomised_tukey(x, B=B, seed=3)
    for k, key in enumerate(observed):
        exact = counts[key] / total
        expected = (1 + B * exact) / (B + 1)
        se = math.sqrt(exact * (1 - exact) / B)
        assert abs(p[k] - expected) <= 4 * se + 1e-12, (key, p[k], exact)


def test_randomised_family_wise_error_under_exchangeable_systems():
    # Skewed (exponential) scores, a topic effect, systems exchangeable within
    # every topic: rejecting any of the 6 pairs at p ≤ .05 happens with
    # probability .05 (B + 1 = 200, so .05 is an attainable level).
    rng = np.random.default_rng(99)
    S, m, n, B = 1500, 4, 8, 199
    errors = 0
    for s in range(S):
        x = rng.exponential(1.0, (1, n)) + rng.exponential(0.5, (m, n))
        errors += (randomised_tukey(x, B=B, seed=s) <= 0.05).any()
    fwer = errors / S
    se = math.sqrt(0.05 * 0.95 / S)
    assert fwer <= 0.05 + 3 * se, fwer
    assert fwer >= 0.05 - 3 * se, fwer  # not vacuously conservative


def test_randomised_is_reproducible_by_seed():
    x = np.random.default_rng(8).random((6, 10))
    a = randomised_tukey(x, B=3000, seed=11)
    assert a.tobytes() == randomised_tukey(x, B=3000, seed=11).tobytes()
    assert a.tobytes() != randomised_tukey(x, B=3000, seed=12).tobytes()


# x = [[1, 3], [2, 4], [6, 4]]: system means 2, 3, 5; grand mean 10/3; topic
# means 3 and 11/3. Residuals x − row − col + grand: (−2/3, 2/3), (−2/3, 2/3),
# (4/3, −4/3); SS_e = 4·4/9 + 2·16/9 = 16/3 on (3 − 1)(2 − 1) = 2 df, so
# V_E = 8/3 and √V_E = 1.632993…
TINY = np.array([[1.0, 3.0], [2.0, 4.0], [6.0, 4.0]])


def test_effect_size_residual_by_hand():
    root = math.sqrt(8 / 3)
    np.testing.assert_allclose(effect_size_residual(TINY), [-1 / root, -3 / root, -2 / root])
    np.testing.assert_allclose(
        effect_size_residual(TINY), [-0.612372, -1.837117, -1.224745], rtol=1e-6
    )


def test_glass_delta_by_hand():
    # baseline 0 is [1, 3]: mean 2, sd (ddof=1) √2
    np.testing.assert_allclose(glass_delta(TINY, 0), [0.0, 1 / math.sqrt(2), 3 / math.sqrt(2)])
    # baseline 2 is [6, 4]: mean 5, sd √2
    np.testing.assert_allclose(glass_delta(TINY, 2), [-3 / math.sqrt(2), -2 / math.sqrt(2), 0.0])
    stacked = glass_delta(np.stack([TINY, 2 * TINY]), 0)
    np.testing.assert_allclose(stacked[1], stacked[0])  # Δ is free of the scale


@pytest.mark.parametrize(("m", "df"), [(4, 15), (12, 308), (129, 6272)])
def test_studentized_range_tail_for_many_pairs_matches_scipy(m, df):
    """The spline used for many pairs agrees with scipy's integration: relative
    error ≤ 1e-4 wherever p is above the reported floor, and the floor is an
    upper bound beyond it."""
    from scipy.stats import studentized_range

    from bvtest_cli.analyses.anova import TUKEY_P_FLOOR, studentized_range_sf

    q_floor = studentized_range.isf(TUKEY_P_FLOOR, m, df)
    q = np.random.default_rng(m).uniform(0.0, 1.2 * q_floor, 400)
    got = studentized_range_sf(q, m, df)
    inside = q < q_floor
    check = np.flatnonzero(inside)[:25]
    exact = studentized_range.sf(q[check], m, df)
    np.testing.assert_allclose(got[check], exact, rtol=1e-4)
    assert (got[~inside] == TUKEY_P_FLOOR).all()
    beyond = q[~inside][:3]
    assert (studentized_range.sf(beyond, m, df) <= TUKEY_P_FLOOR * (1 + 1e-6)).all()
