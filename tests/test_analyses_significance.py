"""Paired significance tests and corrections (bvtest_cli.analyses.significance).

Oracles: scipy.stats on the same differences (ttest_rel, wilcoxon, binomtest),
hand computations written out here, brute-force enumeration of sign vectors
with itertools.product (in exact rational arithmetic where ties matter),
literal transcriptions of the definitions, and simulations under H0 with the
nominal level as the known truth.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from bvtest_cli.analyses.significance import (
    CORRECTIONS,
    TIE_TOLERANCE,
    Resolution,
    adjust,
    bootstrap_test,
    chernoff_bound,
    grid_bounds,
    randomization_test,
    sign_test,
    t_test,
    wilcoxon_test,
)
from bvtest_cli.analyses.streams import PAIRED_BOOTSTRAP


def rng(*key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(20261127, spawn_key=key))


def tied_differences(k: int, n: int, key: int) -> np.ndarray:
    """Differences of scores on a 1/10 grid: many ties and zeros, as with P@10."""
    r = rng(key)
    a = r.integers(0, 11, (k, n)) / 10
    b = np.clip(a + r.integers(-3, 4, (k, n)) / 10, 0, 1)
    return a - b


# ---------------------------------------------------------------- adjust


def test_adjust_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted: .005, .01, .03, .04 (k = 4)
    # Holm: 4·.005 = .02, 3·.01 = .03, 2·.03 = .06, 1·.04 = .04 → running max .02 .03 .06 .06
    np.testing.assert_allclose(adjust(p, "holm"), [0.03, 0.06, 0.06, 0.02], rtol=1e-12)
    # Bonferroni: 4p, capped at 1
    np.testing.assert_allclose(adjust(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02], rtol=1e-12)
    # BH: 4/1·.005 = .02, 4/2·.01 = .02, 4/3·.03 = .04, 4/4·.04 = .04 → running min from the top
    np.testing.assert_allclose(adjust(p, "bh"), [0.02, 0.04, 0.04, 0.02], rtol=1e-12)
    np.testing.assert_array_equal(adjust(p, "none"), p)
    # BH's step-up lowers an earlier p: 3/1·.04 = .12, 3/2·.045 = .0675, 3/3·.05 = .05
    np.testing.assert_allclose(adjust(np.array([0.04, 0.045, 0.05]), "bh"), [0.05] * 3)
    # caps at 1
    np.testing.assert_allclose(adjust(np.array([0.6, 0.9]), "bh"), [0.9, 0.9])
    np.testing.assert_allclose(adjust(np.array([0.6, 0.9]), "holm"), [1.0, 1.0])


def test_adjust_nan_is_not_in_the_family():
    p = np.array([0.01, np.nan, 0.02])
    for method in CORRECTIONS:
        got = adjust(p, method)
        assert np.isnan(got[1])
        np.testing.assert_array_equal(got[[0, 2]], adjust(p[[0, 2]], method))
    assert np.isnan(adjust(np.array([np.nan]), "holm")).all()
    with pytest.raises(ValueError):
        adjust(p, "sidak")
    with pytest.raises(ValueError):
        adjust(p.reshape(1, 3), "holm")


def literal_holm(p, alpha):
    """Holm 1979 as written: reject H_(1), H_(2), … while p_(i) ≤ α/(k − i + 1)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    rejected = set()
    for i, j in enumerate(order):
        if p[j] <= alpha / (len(p) - i):
            rejected.add(j)
        else:
            break
    return rejected


def literal_bh(p, alpha):
    """Benjamini–Hochberg 1995 as written: the largest i with p_(i) ≤ iα/k, reject H_(1…i)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    last = 0
    for i, j in enumerate(order, 1):
        if p[j] <= i * alpha / len(p):
            last = i
    return set(order[:last])


def test_adjust_matches_the_literal_procedures():
    r = rng(1)
    for trial in range(200):
        k = int(r.integers(1, 30))
        # p-values on a coarse grid make ties and values at the boundaries
        p = np.round(r.uniform(0, 0.2, k) ** (1 + trial % 3), 3)
        for alpha in (0.01, 0.05, 0.1):
            holm = {i for i in range(k) if adjust(p, "holm")[i] <= alpha * (1 + 1e-12)}
            assert holm == literal_holm(list(p), alpha)
            bh = {i for i in range(k) if adjust(p, "bh")[i] <= alpha * (1 + 1e-12)}
            assert bh == literal_bh(list(p), alpha)
            bonf = {i for i in range(k) if adjust(p, "bonferroni")[i] <= alpha * (1 + 1e-12)}
            assert bonf == {i for i in range(k) if p[i] * k <= alpha * (1 + 1e-12)}


# ---------------------------------------------------------------- classical tests


def test_t_test_matches_scipy():
    d = np.concatenate([tied_differences(40, 25, 2), rng(3).normal(0.02, 0.1, (40, 25))])
    got = t_test(d)
    want = stats.ttest_rel(d, np.zeros_like(d), axis=1)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-10)
    np.testing.assert_allclose(got.p, want.pvalue, rtol=1e-10)


def test_t_test_zero_variance():
    got = t_test(np.array([[0.0, 0.0, 0.0], [0.25, 0.25, 0.25], [-0.5, -0.5, -0.5]]))
    np.testing.assert_array_equal(got.p, [1.0, 0.0, 0.0])
    assert np.isnan(t_test(np.zeros((2, 1))).p).all()


def test_wilcoxon_normal_approximation_matches_scipy():
    # ties and zeros: R (and scipy with method="approx") use the normal approximation
    d = tied_differences(60, 30, 4)
    assert ((d == 0).any(axis=1)).all()
    got = wilcoxon_test(d)
    want = [
        stats.wilcoxon(row, zero_method="wilcox", correction=True, method="approx").pvalue
        for row in d
    ]
    np.testing.assert_allclose(got.p, want, rtol=1e-10)
    # ties without zeros, and n ≥ 50 without ties: the normal approximation too
    r = rng(5)
    d = np.concatenate(
        [r.integers(1, 6, (10, 20)) * r.choice([-1, 1], (10, 20)) / 8, np.zeros((10, 40))], axis=1
    )
    d[:, 20:] = r.normal(0, 1, (10, 40))  # 60 non-zero values, ties among the first 20
    big = r.normal(0.1, 1, (10, 60))
    for x in (d, big):
        want = [stats.wilcoxon(row, correction=True, method="approx").pvalue for row in x]
        np.testing.assert_allclose(wilcoxon_test(x).p, want, rtol=1e-10)


def test_wilcoxon_exact_matches_scipy():
    # n < 50, no tie, no zero: R's exact null distribution
    r = rng(6)
    for n in (1, 2, 5, 12, 30, 49):
        d = r.normal(0.3, 1, (8, n))
        want = [stats.wilcoxon(row, method="exact").pvalue for row in d]
        np.testing.assert_allclose(wilcoxon_test(d).p, want, rtol=1e-10)
    # the statistic V is the sum of the positive ranks, as R reports it
    assert wilcoxon_test(np.array([[0.5, -0.1, 0.3, -0.7]])).statistic[0] == 2 + 3


def test_wilcoxon_tie_case_by_hand():
    d = np.array([[1.0, -2.0, 2.0, 3.0, 0.0, 3.0, 3.0, -1.0]])
    # the zero is dropped: n′ = 7; |d| sorted 1 1 2 2 3 3 3 → mid-ranks 1.5 1.5 3.5 3.5 6 6 6
    # V = 1.5 (the +1) + 3.5 (+2) + 6 + 6 + 6 (the +3s) = 23; E V = 7·8/4 = 14
    # Var V = 7·8·15/24 − ((2³−2) + (2³−2) + (3³−3))/48 = 35 − 36/48 = 34.25
    z = (23 - 14 - 0.5) / math.sqrt(34.25)
    want = math.erfc(z / math.sqrt(2))  # 2 (1 − Φ(z))
    got = wilcoxon_test(d)
    assert got.statistic[0] == 23
    assert got.p[0] == pytest.approx(want, rel=1e-12)
    assert wilcoxon_test(np.zeros((1, 5))).p[0] == 1.0


def test_sign_test_matches_binomtest():
    d = tied_differences(50, 27, 7)
    d[0] = 0.0  # all ties
    d[1, :] = np.abs(d[1]) + 0.1  # all positive
    got = sign_test(d)
    for row, p, s, dropped in zip(d, got.p, got.statistic, got.dropped, strict=True):
        kept = row[row != 0]
        assert dropped == len(row) - len(kept)
        assert s == (kept > 0).sum()
        want = stats.binomtest(int(s), len(kept)).pvalue if len(kept) else 1.0
        assert p == pytest.approx(want, rel=1e-10)
    # |d| ≤ tol counts as a tie
    near = np.array([[1e-13, -1e-13, 0.2, 0.3, 0.1]])
    assert sign_test(near).dropped[0] == 2
    assert sign_test(near, tol=0).dropped[0] == 0


def test_bootstrap_test_is_sakais_algorithm():
    """A literal transcription of [Sakai06]'s paired bootstrap test, pair by pair,
    on the documented resample stream."""
    d = np.concatenate([rng(8).normal(0.05, 0.2, (6, 15)), tied_differences(6, 15, 9)])
    B, seed = 300, 4
    got = bootstrap_test(d, B, seed)
    # the documented stream: SeedSequence(seed, spawn_key=(PAIRED_BOOTSTRAP,)), drawn at once
    draws = np.random.default_rng(
        np.random.SeedSequence(seed, spawn_key=(PAIRED_BOOTSTRAP,))
    ).integers(0, 15, (B, 15))
    for row, p in zip(d, got.p, strict=True):
        n = len(row)
        t_obs = row.mean() / (row.std(ddof=1) / math.sqrt(n))
        z = row - row.mean()
        count = 0
        for b in range(B):
            zs = z[draws[b]]
            sd = zs.std(ddof=1)
            if sd > 1e-9:
                t_star = zs.mean() / (sd / math.sqrt(n))
            else:  # no spread: a constant shift is t* = ±∞, a zero mean t* = 0
                t_star = 0.0 if abs(zs.mean()) <= 1e-9 else math.inf
            count += abs(t_star) >= abs(t_obs)
        assert p == pytest.approx(count / B, abs=1e-12)
    # it estimates the t test's p on well-behaved data
    big = rng(10).normal(0.1, 0.3, (200, 40))
    diff = bootstrap_test(big, 2000, 0).p - t_test(big).p
    assert np.abs(diff).mean() < 0.02


# ---------------------------------------------------------------- randomization test


def brute_force_p(row) -> float:
    """p = #{ε ∈ {±1}^n: |Σ ε_i d_i| ≥ |Σ d_i|} / 2^n over all sign vectors, in
    exact rational arithmetic (decimal values as written, so ties are ties)."""
    exact = [Fraction(str(v)) for v in row]
    observed = abs(sum(exact))
    hits = sum(
        abs(sum(e * v for e, v in zip(signs, exact, strict=True))) >= observed
        for signs in itertools.product([-1, 1], repeat=len(exact))
    )
    return hits / 2 ** len(exact)


def test_exact_randomization_matches_brute_force():
    r = rng(11)
    rows = []
    for n in (1, 2, 5, 9, 12):
        rows.append([round(v, 2) for v in r.normal(0.05, 0.2, n)])  # on a 1/100 grid
        rows.append([round(v, 1) for v in r.normal(0.0, 0.3, n)])  # ties and zeros
    rows.append([0.1, 0.2, -0.3, 0.3, 0.0, -0.1, 0.2, 0.1, -0.2, 0.3, 0.1, -0.4])  # Σ d = 0.3
    rows.append([0.0] * 8)
    for row in rows:
        d = np.array([row])
        got = randomization_test(d, correction="none")
        assert got.exact[0] and got.resolved[0] and got.resamples[0] == 0
        assert got.p[0] == pytest.approx(float(brute_force_p(row)), rel=1e-12), row


def test_exact_for_pairs_with_few_non_zero_differences():
    # 40 topics but only 10 non-zero: flipping a zero changes nothing, so 2^9 vectors decide
    row = [0.0] * 40
    row[3:13] = [0.3, -0.1, 0.2, 0.2, 0.4, -0.2, 0.1, 0.3, 0.5, 0.1]
    got = randomization_test(np.array([row]), correction="none")
    assert got.exact[0]
    assert got.p[0] == pytest.approx(float(brute_force_p(row[3:13])), rel=1e-12)


def test_exact_results_do_not_depend_on_the_batch():
    d = tied_differences(30, 14, 12)
    d[:, :3] += rng(13).normal(0, 0.01, (30, 3))
    base = randomization_test(d)
    for batch in (1, 7, 1000, 1 << 14):
        other = randomization_test(d, resolution=Resolution(batch=batch))
        np.testing.assert_array_equal(other.p, base.p)
        np.testing.assert_array_equal(other.significant, base.significant)
    # the pairs in another order: the same p, pair by pair
    perm = rng(14).permutation(30)
    np.testing.assert_array_equal(randomization_test(d[perm]).p, base.p[perm])


def enumerated_p(d: np.ndarray) -> np.ndarray:
    """Exact p of each row by all 2^n sign vectors at once (numpy, n ≤ 20)."""
    n = d.shape[1]
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=n)))
    sums = np.abs(signs @ d.T)
    return (sums >= np.abs(d.sum(axis=1)) * (1 - 1e-9)).mean(axis=0)


def test_monte_carlo_interval_holds_the_exact_p():
    r = rng(15)
    d = r.normal(0, 0.2, (60, 18)) + r.normal(0, 0.1, (60, 1))  # p spread over (0, 1]
    truth = enumerated_p(d)
    got = randomization_test(
        d, correction="none", max_resamples=1 << 16, resolution=Resolution(exact_topics=0)
    )
    assert not got.exact.any()
    assert (got.p_lower <= truth).all() and (truth <= got.p_upper).all()
    assert (got.p_lower <= got.p).all() and (got.p <= got.p_upper).all()
    assert (got.bound >= truth).all()  # Hoeffding's bound is an upper bound
    # the reported p is the estimate of the first 1000 draws: within their Monte-Carlo
    # error of the exact p (an upper bound would sit above it everywhere)
    se = np.sqrt(truth * (1 - truth) / got.draws) + 1 / (1 + got.draws)
    assert got.draws == 1000 and (np.abs(got.p - truth) <= 5 * se).all()
    assert (got.p < truth).sum() >= 10
    drawn = got.resamples > 0
    assert drawn.sum() > 40
    # the plain estimate is within Monte-Carlo error of the truth
    se = np.sqrt(truth * (1 - truth) / np.maximum(got.resamples, 1)) + 1e-9
    assert (np.abs(got.estimate - truth)[drawn] <= 5 * se[drawn]).all()
    # resolved decisions are the exact test's, under every correction
    levels = (0.001, 0.01, 0.05)
    for correction in CORRECTIONS:
        mine = randomization_test(
            d, levels=levels, correction=correction, resolution=Resolution(exact_topics=0)
        )
        ok = mine.resolved
        assert ok.mean() > 0.9
        want = adjust(truth, correction)[:, np.newaxis] <= np.array(levels)
        np.testing.assert_array_equal(mine.significant[ok], want[ok])
        # and so is each pair's own decision p ≤ α, whatever the correction
        own = mine.p[:, np.newaxis] <= np.array(levels)
        np.testing.assert_array_equal(own[ok], (truth[:, np.newaxis] <= np.array(levels))[ok])
        # unresolved pairs keep the conservative decision (their p is p_upper)
        assert not (mine.significant & ~want).any()
        np.testing.assert_array_equal(mine.p[~ok], mine.p_upper[~ok])
        # significant is p_adj ≤ α, one rule
        np.testing.assert_array_equal(
            mine.significant, mine.p_adjusted[:, np.newaxis] <= np.array(levels)
        )


def test_grid_bounds_hold_the_exact_p():
    r = rng(22)
    d = np.concatenate(
        [
            r.normal(0, 0.2, (30, 17)) + r.normal(0, 0.15, (30, 1)),  # p over (0, 1]
            r.integers(-4, 5, (10, 17)) / 8,  # dyadic: ties among the sums
            np.abs(r.normal(0.1, 0.1, (5, 17))),  # all positive: p = 2^-16
        ]
    )
    truth = enumerated_p(d)
    widths = []
    for points in (1 << 8, 1 << 11, 1 << 14):
        lower, upper = grid_bounds(d, points=points)
        assert (lower <= truth).all() and (truth <= upper).all(), points
        widths.append(np.log(upper / np.maximum(lower, 1e-300)))
    assert (widths[2] <= widths[0] + 1e-12).all()
    ok = truth > 1e-3  # away from the lattice's extremes the fine grid is tight
    assert np.median(widths[2][ok]) < 0.05
    # Chernoff's bound: above the truth, never above Hoeffding's
    threshold = np.abs(d.sum(axis=1)) - TIE_TOLERANCE * np.abs(d).sum(axis=1)
    chernoff = chernoff_bound(d, threshold)
    hoeffding = np.minimum(1, 2 * np.exp(-(d.sum(axis=1) ** 2) / (2 * (d * d).sum(axis=1))))
    assert (truth <= chernoff).all() and (chernoff <= hoeffding * (1 + 1e-12)).all()
    # all positive: min over λ of 2 e^(−λ t) Π cosh(λ d_i) tends to 2 · 2^−17 = 2^−16
    assert chernoff[-5:] == pytest.approx(truth[-5:], rel=1e-3)


def test_grid_bounds_are_exact_on_a_decimal_grid():
    # differences of scores on a 1/20 grid (P@20): the bounds meet at the exact p
    r = rng(24)
    d = (r.integers(0, 21, (12, 17)) - r.integers(0, 21, (12, 17))) / 20
    d[0] = [0.05] * 12 + [-0.05] * 5  # sums tie with the observed one
    truth = enumerated_p(d)
    lower, upper = grid_bounds(d, points=1 << 11)
    np.testing.assert_allclose(lower, truth, rtol=1e-8)
    np.testing.assert_allclose(upper, truth, rtol=1e-8)
    # by hand: |Σ ε d| ≥ 0.35 iff at least 12 or at most 5 of the 17 signs agree with d's
    hand = 2 * sum(math.comb(17, j) for j in range(12, 18)) / 2**17
    assert upper[0] == pytest.approx(hand, rel=1e-8) and lower[0] == pytest.approx(hand, rel=1e-8)


def test_no_floor_at_one_over_b_plus_one():
    # 40 topics, every difference positive: the exact p is 2 / 2^40
    d = np.abs(rng(23).normal(0.1, 0.05, (1, 40)))
    got = randomization_test(d, correction="none", max_resamples=1 << 16)
    # the interval's upper end is the deterministic bound plus the Monte-Carlo error allowance
    assert 2.0**-39 <= got.p_upper[0] <= got.error + got.bound[0]
    assert got.error == 0.05 / 1e6
    assert got.p[0] <= got.p_upper[0] < 1e-6 < 1 / (1 + (1 << 16))


@pytest.mark.parametrize("systems, n", [(12, 29), (12, 50), (17, 29), (17, 50)])
def test_a_large_difference_survives_holm(systems, n):
    """One run far above the others: with a floor of 1/(B + 1) and Holm over k pairs,
    no p_holm could be below k/(B + 1) (66/1001 > .05 at the usual B = 1000)."""
    r = rng(16, systems, n)
    topic = r.normal(0.4, 0.15, n)
    x = np.clip(topic + r.normal(0, 0.08, (systems, n)), 0, 1)
    x[0] = np.clip(x[0] + 0.2, 0, 1)
    ia, ib = np.triu_indices(systems, k=1)
    got = randomization_test(x[ia] - x[ib])
    best = ia == 0
    assert got.significant[best, 0].all()
    assert got.resolved[best].all()
    assert (got.p_adjusted[best] < 0.05).all()
    assert len(ia) * 1 / 1001 > 0.05  # the old floor made this impossible


def test_the_reported_p_is_the_pairs_own_estimate():
    # 24 topics (beyond enumeration): p is the share of the first `draws` sign vectors,
    # whatever the other pairs, the correction or the level; the exact p by enumerating
    # 2^24 vectors in the test (an independent count)
    r = rng(31)
    d = r.normal(0.04, 0.1, (1, 24))
    others = r.normal(0, 0.1, (30, 24))
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=12)))

    def exact(row: np.ndarray) -> float:
        sums = np.abs((signs @ row[:12])[:, np.newaxis] + (signs @ row[12:])[np.newaxis, :])
        return float((sums >= abs(row.sum()) * (1 - 1e-9)).mean())

    for shift, want_same in ((0.025, True), (0.0, False)):
        row = d - shift
        truth = exact(row[0])
        ps = set()
        for rows, correction, level in (
            (row, "holm", 0.05),
            (np.vstack([row, others]), "holm", 0.05),
            (np.vstack([row, others]), "bonferroni", 0.01),
            (row, "none", 0.001),
        ):
            got = randomization_test(rows, levels=(level,), correction=correction, draws=20000)
            assert got.resolved[0] and got.draws == 20000
            assert got.p_lower[0] <= got.p[0] <= got.p_upper[0]
            assert abs(got.p[0] - truth) <= 4 * math.sqrt(truth * (1 - truth) / 20000) + 1 / 20001
            ps.add(float(got.p[0]))
        # a p whose interval is wider than its Monte-Carlo error depends on the pair
        # alone; where the interval that settles the decision is narrower (here a grid's
        # near-exact bounds), p is moved into it: nearer the exact p, never farther
        assert (len(ps) == 1) == want_same, (shift, ps)
    assert 0.001 < truth < 0.05


def test_non_finite_pairs_are_left_out():
    d = rng(17).normal(0.3, 0.2, (3, 20))
    d[1, 4] = np.nan
    got = randomization_test(d)
    assert np.isnan(got.p[1]) and np.isnan(got.p_adjusted[1])
    assert not got.significant[1].any() and got.resolved[1]
    alone = randomization_test(d[[0, 2]])
    np.testing.assert_array_equal(got.p_adjusted[[0, 2]], alone.p_adjusted)


def test_same_seed_same_output():
    d = rng(18).normal(0.01, 0.2, (40, 30))
    a, b = randomization_test(d, seed=3), randomization_test(d, seed=3)
    for field in ("p", "p_lower", "p_upper", "estimate", "resamples", "resolved", "significant"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    c = randomization_test(d, seed=4)
    drawn = a.resamples > 0
    assert drawn.any() and not np.array_equal(a.estimate[drawn], c.estimate[drawn])
    np.testing.assert_array_equal(bootstrap_test(d, 200, 1).p, bootstrap_test(d, 200, 1).p)


def test_unresolved_pairs_are_reported():
    # 15 of 20 differences +0.1, 5 of them −0.1: |Σ ε d| ≥ 1 iff at least 15 or at most 5
    # signs agree, so p = 2 Σ_{j ≥ 15} C(20, j) / 2^20 exactly; at that very level no
    # interval around p can settle the decision
    level = 2 * sum(math.comb(20, j) for j in range(15, 21)) / 2**20
    on_level = np.array([0.1] * 15 + [-0.1] * 5)
    r = rng(19)
    d = np.stack([r.normal(0.3, 0.1, 20), on_level, r.normal(0, 0.1, 20)])
    for grids in ((), (1 << 11,)):
        got = randomization_test(
            d, levels=(level,), correction="none", max_resamples=1 << 14,
            resolution=Resolution(grids=grids),
        )  # fmt: skip
        np.testing.assert_array_equal(got.unresolved, [1])
        assert got.p_lower[1] <= level <= got.p_upper[1] == got.p[1]
        assert not got.significant[1, 0]  # the conservative decision
        assert got.resolved[0] and got.significant[0, 0]
        assert got.resolved[2] and not got.significant[2, 0]
    # without the grid's bounds the Monte-Carlo draws go on to the maximum
    assert got.resamples[1] <= 1 << 14
    mc_only = randomization_test(
        d, levels=(level,), correction="none", max_resamples=1 << 14,
        resolution=Resolution(grids=()),
    )  # fmt: skip
    assert mc_only.resamples[1] == 1 << 14


# ---------------------------------------------------------------- type-I error by simulation

REPLICATES = 2000
LEVEL = 0.05
CEILING = LEVEL + 3 * math.sqrt(LEVEL * (1 - LEVEL) / REPLICATES)


def null_differences(n: int, key: int) -> np.ndarray:
    """REPLICATES rows of differences symmetric about 0 (H0 of every test here):
    normal, heavy-tailed and on a grid with ties and zeros, a third each."""
    r = rng(20, key)
    third = REPLICATES // 3
    normal = r.normal(0, 0.2, (third, n))
    heavy = r.standard_t(2, (third, n)) * 0.1
    grid = r.integers(-3, 4, (REPLICATES - 2 * third, n)) / 10
    return np.concatenate([normal, heavy, grid])


@pytest.mark.parametrize("n", [12, 30])
def test_type_one_error(n):
    d = null_differences(n, n)
    normal = d[: REPLICATES // 3]
    assert (t_test(normal).p <= LEVEL).mean() <= LEVEL + 3 * math.sqrt(
        LEVEL * (1 - LEVEL) / len(normal)
    )
    for name, p in [
        ("wilcoxon", wilcoxon_test(d).p),
        ("sign", sign_test(d).p),
        ("randomization", randomization_test(d, correction="none", max_resamples=1 << 15).p),
        # decided under Holm over all the rows, its own p still holds the level
        ("under holm", randomization_test(d, correction="holm", max_resamples=1 << 15).p),
        # the Monte-Carlo p alone, without the grid's bounds
        (
            "draws",
            randomization_test(
                d, correction="none", max_resamples=1 << 15, resolution=Resolution(grids=())
            ).p,
        ),
    ]:
        rate = (p <= LEVEL).mean()
        assert rate <= CEILING, (name, rate)
        assert rate > 0.02 or name == "sign", (name, rate)  # not trivially conservative
        if name == "under holm":  # as the uncorrected test's, not halved by the correction
            assert rate >= (randomization_test(d, correction="none").p <= LEVEL).mean() - 0.005


def test_family_wise_error_of_randomization_and_holm():
    """Five exchangeable runs (the complete null), ten pairs, Holm at .05."""
    families = 1500
    ceiling = LEVEL + 3 * math.sqrt(LEVEL * (1 - LEVEL) / families)
    r = rng(21)
    ia, ib = np.triu_indices(5, k=1)
    errors = 0
    for f in range(families):
        n = 14 if f % 2 else 24
        x = r.normal(0.4, 0.15, n) + r.normal(0, 0.1, (5, n))
        got = randomization_test(x[ia] - x[ib], seed=f, resolution=Resolution(batch=1024))
        errors += got.significant.any()
    assert errors / families <= ceiling
