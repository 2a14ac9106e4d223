"""Discriminative power, Sakai's estimated difference required and swap rates,
against hand counts, a loop transcription of Sakai's algorithm, Student's t,
a brute-force swap count and collections whose answer is known."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from bvtest_cli.analyses.sensitivity import (
    asl_curve,
    bootstrap_counts,
    delta_needed,
    discriminative_power,
    disjoint_topic_subsets,
    fit_swap_extrapolation,
    swap_rates,
)


def test_discriminative_power_by_hand():
    p = np.array([0.001, 0.02, 0.05, 0.2, np.nan, 0.04])
    # < .01: 0.001 → 1 of 6; < .05: 0.001, 0.02, 0.04 → 3 of 6 (0.05 itself is
    # not below .05, NaN is no significant pair); < .5: 5 of 6
    np.testing.assert_allclose(discriminative_power(p, [0.01, 0.05, 0.5]), [1 / 6, 3 / 6, 5 / 6])
    two = discriminative_power(np.stack([p, np.zeros(6)]), [0.05])
    np.testing.assert_allclose(two, [[0.5], [1.0]])


def test_asl_curve_by_hand():
    np.testing.assert_array_equal(
        asl_curve(np.array([0.3, np.nan, 0.01, 0.2])), [0.01, 0.2, 0.3, np.nan]
    )


def _sakai_by_loops(x, counts, level):
    """Sakai (SIGIR 2006) Figures 2 and 5 transcribed with loops: for each pair,
    the ASL of the paired bootstrap test and |w̄*| of the bootstrap sample whose
    |t*| is the B·level-th largest."""
    m, n = x.shape
    B = len(counts)
    rank = math.ceil(B * level)
    asl, diff = [], []
    for i in range(m):
        for j in range(i + 1, m):
            z = [x[i][k] - x[j][k] for k in range(n)]
            zbar = sum(z) / n
            sd = math.sqrt(sum((v - zbar) ** 2 for v in z) / (n - 1))
            t = abs(zbar) / (sd / math.sqrt(n))
            w = [v - zbar for v in z]
            ts, means = [], []
            for b in range(B):
                sample = [w[k] for k in range(n) for _ in range(counts[b][k])]
                mean = sum(sample) / n
                s = math.sqrt(sum((v - mean) ** 2 for v in sample) / (n - 1))
                ts.append(abs(mean) / (s / math.sqrt(n)))
                means.append(abs(mean))
            asl.append(sum(tb >= t for tb in ts) / B)
            order = sorted(range(B), key=lambda b: -ts[b])
            diff.append(means[order[rank - 1]])
    return np.array(asl), np.array(diff)


def test_delta_needed_against_a_loop_transcription_of_sakai():
    rng = np.random.default_rng(12)
    m, n, B, seed = 5, 12, 200, 4
    x = rng.random((m, n)) + np.linspace(0, 0.3, m)[:, None]
    counts = bootstrap_counts(n, B, seed)
    assert counts.shape == (B, n) and (counts.sum(axis=1) == n).all()
    asl, diff = _sakai_by_loops(x, counts, 0.05)
    r = delta_needed(x, level=0.05, B=B, seed=seed)
    np.testing.assert_allclose(r.p, asl, atol=1e-12)
    np.testing.assert_allclose(r.per_pair, diff, rtol=1e-9)
    assert r.delta == pytest.approx(diff.max(), rel=1e-9)
    # the observed-sd variant: t*_crit · sd(d)/√n
    d = x[0] - x[1]
    assert r.per_pair_observed_sd[0] == pytest.approx(
        r.t_crit[0] * d.std(ddof=1) / math.sqrt(n), rel=1e-12
    )


def test_bootstrap_asl_and_critical_t_approach_students_t():
    # Normal differences on 60 topics: the bootstrap null distribution of t is
    # close to Student's t with 59 df, so its 95 % point of |t*| is close to
    # t_{.975}(59) = 2.001 and the ASL close to the paired t-test's p.
    rng = np.random.default_rng(31)
    m, n = 6, 60
    x = rng.normal(0, 1, (m, n)) + np.array([0, 0.1, 0.2, 0.3, 0.4, 0.5])[:, None]
    r = delta_needed(x, level=0.05, B=4000, seed=2)
    t975 = stats.t.ppf(0.975, n - 1)
    assert np.abs(r.t_crit - t975).max() < 0.15, r.t_crit
    k = 0
    for i in range(m):
        for j in range(i + 1, m):
            p_t = stats.ttest_rel(x[i], x[j]).pvalue
            assert abs(r.p[k] - p_t) < 0.03, (i, j, r.p[k], p_t)
            k += 1


def test_delta_needed_degenerate_pairs_and_scale():
    rng = np.random.default_rng(2)
    base = rng.random(10)
    x = np.vstack([base, base, base + 0.2, rng.random(10)])
    r = delta_needed(x, B=300, seed=1)
    # pairs (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)
    assert r.p[0] == 1.0  # identical systems: t = 0 and every t* = 0
    assert r.p[1] == r.p[3] == 0.0  # a constant difference: |t| = ∞, no t* reaches it
    assert np.isnan(r.per_pair[[0, 1, 3]]).all()  # w ≡ 0: no difference is required
    assert np.isfinite(r.per_pair[[2, 4, 5]]).all()
    # a difference shifted by a constant has the same null sample w = d − d̄
    np.testing.assert_allclose(r.per_pair[[4, 5]], r.per_pair[2], rtol=1e-9)
    # the required difference is in the units of the scores
    scaled = delta_needed(3 * x, B=300, seed=1)
    assert scaled.delta == pytest.approx(3 * r.delta, rel=1e-9)
    np.testing.assert_array_equal(scaled.p, r.p)
    again = delta_needed(x, B=300, seed=1)
    assert again.per_pair.tobytes() == r.per_pair.tobytes()


def test_disjoint_topic_subsets():
    a, b = disjoint_topic_subsets(30, 10, 40, seed=5)
    assert a.shape == b.shape == (40, 10)
    for r in range(40):
        assert len(set(a[r]) | set(b[r])) == 20
        assert set(a[r]) <= set(range(30))
    # one size's draws do not depend on which other sizes are asked for
    a2, b2 = disjoint_topic_subsets(30, 10, 40, seed=5)
    assert (a == a2).all() and (b == b2).all()
    with pytest.raises(ValueError):
        disjoint_topic_subsets(30, 16, 4, seed=5)


def _swap_rows_by_loops(x, sizes, width, repeats, seed):
    m, n = x.shape
    table = {}
    for c in sizes:
        first, second = disjoint_topic_subsets(n, c, repeats, seed)
        for r in range(repeats):
            for i in range(m):
                for j in range(i + 1, m):
                    d1 = sum(x[i][t] - x[j][t] for t in first[r]) / c
                    d2 = sum(x[i][t] - x[j][t] for t in second[r]) / c
                    k = 0
                    while (k + 1) * width <= abs(d1):
                        k += 1
                    pairs, swaps = table.get((c, k), (0, 0))
                    swapped = (d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)
                    table[(c, k)] = (pairs + 1, swaps + swapped)
    return sorted(table.items())


def test_swap_rates_against_brute_force():
    rng = np.random.default_rng(7)
    x = rng.random((5, 24)) * np.linspace(0.5, 1.0, 5)[:, None]
    rows = swap_rates(x, sizes=[3, 6, 12], bin_width=0.05, repeats=30, seed=9)
    expected = _swap_rows_by_loops(x, [3, 6, 12], 0.05, 30, 9)
    assert len(rows) == len(expected)
    for row, ((c, k), (pairs, swaps)) in zip(rows, expected, strict=True):
        assert (row["c"], row["pairs"], row["swaps"]) == (c, pairs, swaps)
        assert row["bin_lo"] == pytest.approx(k * 0.05)
        assert row["bin_hi"] == pytest.approx((k + 1) * 0.05)
        assert row["swap_rate"] == pytest.approx(swaps / pairs)
    # the default sizes are 5, 10, … up to n // 2
    assert sorted(set(swap_rates(x, repeats=2)["c"])) == [5, 10]
    # a size's rows do not depend on the other sizes drawn
    alone = swap_rates(x, sizes=[6], bin_width=0.05, repeats=30, seed=9)
    assert alone.tobytes() == rows[rows["c"] == 6].tobytes()


def test_a_huge_gap_never_swaps():
    rng = np.random.default_rng(3)
    x = rng.random((2, 40))
    x[0] += 5.0
    rows = swap_rates(x, repeats=100, seed=1)
    assert rows["pairs"].sum() == 100 * 4  # sizes 5, 10, 15, 20
    assert (rows["swaps"] == 0).all()
    assert (rows["bin_lo"] >= 4.0).all()


def test_systems_alike_in_distribution_swap_half_the_time():
    # 30 systems drawn from one distribution on 400 topics: which of two
    # subsets of 5 topics favours which system is a coin toss (up to the small
    # pull of each pair's difference over all 400 topics, ≈ 0.3 % here).
    rng = np.random.default_rng(11)
    x = rng.normal(0.3, 0.2, (30, 400))
    rows = swap_rates(x, sizes=[5], bin_width=0.01, repeats=200, seed=4)
    overall = rows["swaps"].sum() / rows["pairs"].sum()
    assert abs(overall - 0.5) < 0.02, overall
    # and with a large gap between two groups, the pairs across them rarely swap
    x[:15] += 1.0
    gap = swap_rates(x, sizes=[5], bin_width=0.5, repeats=200, seed=4)
    far = gap[gap["bin_lo"] >= 0.5]
    assert far["swaps"].sum() / far["pairs"].sum() < 0.01


def test_fit_recovers_a_known_exponential():
    dtype = swap_rates(np.random.default_rng(0).random((2, 10)), repeats=1).dtype
    rows = []
    for c in (5, 10, 15, 20, 25):
        rows.append((c, 0.0, 0.01, 100, 0, 0.4 * math.exp(-0.08 * c)))
        rows.append((c, 0.01, 0.02, 100, 0, 0.2 * math.exp(-0.15 * c) if c < 25 else 0.0))
        rows.append((c, 0.02, 0.03, 100, 0, 0.1 if c == 5 else 0.0))
    fit = fit_swap_extrapolation(np.array(rows, dtype=dtype), n=50)
    assert list(fit["bin_lo"]) == [0.0, 0.01, 0.02]
    assert fit["a"][0] == pytest.approx(0.08, rel=1e-9)
    assert fit["intercept"][0] == pytest.approx(math.log(0.4), rel=1e-9)
    assert fit["predicted"][0] == pytest.approx(0.4 * math.exp(-0.08 * 50), rel=1e-9)
    # the zero rate at c = 25 is left out of the fit, not taken as its log
    assert fit["sizes"][1] == 4
    assert fit["a"][1] == pytest.approx(0.15, rel=1e-9)
    # one positive rate is not enough for a line
    assert fit["sizes"][2] == 1 and np.isnan(fit["a"][2]) and np.isnan(fit["predicted"][2])


@pytest.mark.parametrize("offset", [0.0, 100.0])
def test_a_difference_on_a_decimal_bin_edge_is_in_the_bin_it_starts(offset):
    """Systems constant over topics: every subset mean is the system's value,
    so the differences are 0.6 − 0.5, 0.9 − 0.5, ... exactly decimal edges of
    bins of width 0.1 (0.6 − 0.5 is 0.09999999999999998 in binary, one bin low
    by a plain floor). By hand, pairs (i < j) of 0.5, 0.6, 0.9, 1.0 and
    0.9499999 (just below the edge 0.45 from 0.5): |d| = 0.1, 0.4, 0.5,
    0.4499999 | 0.3, 0.4, 0.3499999 | 0.1, 0.0500001 | 0.0500001 → bins 1, 4,
    5, 4 | 3, 4, 3 | 1, 0 | 0, each once per draw; no pair ever swaps."""
    values = offset + np.array([0.5, 0.6, 0.9, 1.0, 0.9499999])
    x = np.repeat(values[:, np.newaxis], 10, axis=1)
    repeats = 3
    rows = swap_rates(x, sizes=[5], bin_width=0.1, repeats=repeats)
    expected = {0: 2, 1: 2, 3: 2, 4: 3, 5: 1}
    got = {round(float(r["bin_lo"]) / 0.1): int(r["pairs"]) // repeats for r in rows}
    assert got == expected
    assert (rows["swaps"] == 0).all()
    np.testing.assert_allclose(rows["bin_hi"] - rows["bin_lo"], 0.1)
