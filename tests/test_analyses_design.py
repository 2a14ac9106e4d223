"""Test-collection design against published tables, hand computation,
scipy's distributions on the same numbers and simulation with a known truth."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from bvtest_cli.analyses.design import (
    CONSTANT_BIAS,
    FITTED,
    TopicsModel,
    TopicsUnreachable,
    _smallest,
    allocate,
    allocate_models,
    anova_power,
    bootstrap_topics,
    ci_width,
    dstudy,
    fit_topics_model,
    gstudy,
    n_anova,
    n_ci,
    n_ttest,
    predict_rmse,
    topics_needed,
    ttest_power,
    variances,
)

# Brennan (2001), Synthetic Data Set No. 4, Table 3.2 p. 73, recast as a p × i
# design (10 persons × 12 items) as on p. 182; transcribed from the test file
# of Urbano's gt4ireval. Rows are persons (our systems), columns items (topics).
SYNTHETIC4 = np.array(
    [
        [5, 6, 5, 5, 5, 3, 4, 5, 6, 7, 3, 3],
        [9, 3, 7, 7, 7, 5, 5, 5, 7, 7, 5, 2],
        [3, 4, 3, 3, 5, 3, 3, 5, 6, 5, 1, 6],
        [7, 5, 5, 3, 3, 1, 4, 3, 5, 3, 3, 5],
        [9, 2, 9, 7, 7, 7, 3, 7, 2, 7, 5, 3],
        [3, 4, 3, 5, 3, 3, 6, 3, 4, 5, 1, 2],
        [7, 3, 7, 7, 7, 5, 5, 7, 5, 5, 5, 4],
        [5, 8, 5, 7, 7, 5, 5, 4, 3, 2, 1, 1],
        [9, 9, 8, 8, 6, 6, 6, 5, 5, 8, 1, 1],
        [4, 4, 4, 3, 3, 5, 6, 5, 5, 7, 1, 1],
    ],
    dtype=float,
)


# --- G-study and D-study ---------------------------------------------------


def test_gstudy_hand_worked_three_by_three():
    # x = [[1, 2, 3], [2, 4, 6], [3, 3, 6]]: grand mean 30/9 = 10/3; system
    # means 2, 4, 4; topic means 2, 3, 5.
    # SS_s = 3·((2 − 10/3)² + 2·(4 − 10/3)²) = 3·(16/9 + 8/9) = 8, MS_s = 4.
    # SS_q = 3·((2 − 10/3)² + (3 − 10/3)² + (5 − 10/3)²) = 3·(16 + 1 + 25)/9 = 14,
    # MS_q = 7. SS_total = Σx² − 9·(10/3)² = 124 − 100 = 24, so SS_e = 2 and
    # MS_e = 2/4 = 0.5.
    # σ²_s = (4 − 0.5)/3 = 7/6, σ²_q = (7 − 0.5)/3 = 13/6, σ²_e = 1/2.
    x = np.array([[1, 2, 3], [2, 4, 6], [3, 3, 6]], dtype=float)
    g = gstudy(x)
    assert (g.ms_systems, g.ms_topics, g.ms_residual) == pytest.approx((4.0, 7.0, 0.5))
    assert g.var_systems == pytest.approx(7 / 6)
    assert g.var_topics == pytest.approx(13 / 6)
    assert g.var_residual == pytest.approx(0.5)
    assert g.clipped == ()
    # At n′ = 3: Eρ² = (7/6) / (7/6 + 0.5/3) = 7/8, Φ = (7/6) / (7/6 + (13/6 + 1/2)/3)
    # = (7/6) / (7/6 + 16/18) = 21/37; at n′ = 6: Eρ² = (7/6)/(7/6 + 1/12) = 14/15.
    d = dstudy(g, [3, 6])
    np.testing.assert_allclose(d.erho2, [7 / 8, 14 / 15])
    assert d.phi[0] == pytest.approx(21 / 37)
    # Feldt's interval written out from its formula with scipy's F quantiles:
    # r = (MS_s / (MS_e F_p(2, 4)) − 1) / 3, Eρ²(n′) = n′r / (1 + n′r).
    for p, end in ((0.975, d.erho2_low), (0.025, d.erho2_high)):
        r = max((4.0 / (0.5 * stats.f.ppf(p, 2, 4)) - 1.0) / 3.0, 0.0)
        np.testing.assert_allclose(end, [3 * r / (1 + 3 * r), 6 * r / (1 + 6 * r)], rtol=1e-9)
    # Topics for Eρ² ≥ 0.95: n′ ≥ 19·σ²_e/σ²_s = 19·(1/2)/(7/6) = 57/7 = 8.14 → 9;
    # for Φ: 19·(13/6 + 1/2)/(7/6) = 19·16/7 = 43.4 → 44.
    t = topics_needed(g, target=0.95)
    assert (t.erho2, t.phi) == (9, 44)
    assert t.erho2_low <= t.erho2 <= t.erho2_high
    assert t.phi_low <= t.phi <= t.phi_high


def test_brennan_table_6_2_variance_components():
    # Brennan (2001) Table 6.2 p. 182 (as gt4ireval's tests cite it).
    g = gstudy(SYNTHETIC4)
    assert (g.systems, g.topics) == (10, 12)
    assert g.var_systems == pytest.approx(0.6258, abs=1e-4)
    assert g.var_topics == pytest.approx(0.8840, abs=1e-4)
    assert g.var_residual == pytest.approx(2.7872, abs=1e-4)
    assert g.ms_systems == pytest.approx(10.2963, abs=1e-4)
    assert g.ms_topics == pytest.approx(11.6273, abs=1e-4)
    assert g.ms_residual == pytest.approx(2.7872, abs=1e-4)


def test_brennan_table_6_5_coefficients_and_80_percent_intervals():
    # Brennan (2001) Table 6.5 p. 198: n′ = 12, 80% two-sided intervals
    # (gt4ireval's alpha = .1 per side): Eρ² .729 [.541, .876] (Feldt),
    # Φ .672 [.457, .845] (Arteaga et al.).
    d = dstudy(gstudy(SYNTHETIC4), [12], level=0.80)
    got = [d.erho2[0], d.erho2_low[0], d.erho2_high[0], d.phi[0], d.phi_low[0], d.phi_high[0]]
    assert got == pytest.approx([0.729, 0.541, 0.876, 0.672, 0.457, 0.845], abs=6e-4)


def test_drop_keeps_systems_tied_at_the_cut():
    # gt4ireval's tests: dropping 30% of synthetic data set 4 keeps 7
    # systems, dropping 20% keeps 9 (the 2nd and 3rd worst are tied).
    assert gstudy(SYNTHETIC4, drop=0.3).systems == 7
    g = gstudy(SYNTHETIC4, drop=0.2)
    assert g.systems == 9
    # The worst system by mean (row 5, mean 3.5) is the one left out.
    assert 5 not in g.kept


def test_negative_component_clipped_and_named():
    # gt4ireval's tests: the 4 × 4 corner synthetic4[4:7, 4:7] (R, 1-based)
    # has a negative topic-variance estimate. Here by hand: MS_q < MS_e.
    x = SYNTHETIC4[3:7, 3:7]
    g = gstudy(x)
    centred = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0) + x.mean()
    ms_e = (centred**2).sum() / 9
    ms_q = 4 * ((x.mean(axis=0) - x.mean()) ** 2).sum() / 3
    assert ms_q < ms_e
    assert g.clipped == ("topics",)
    assert g.var_topics == 0.0


def test_feldt_interval_covers_at_its_level():
    # Simulation with a known truth: scores σ_s·a_i + σ_q·b_j + σ_e·e_ij with
    # normal effects; the true Eρ² at n′ = n is σ²_s / (σ²_s + σ²_e / n).
    # Feldt's interval is exact under this model, so it covers at its level.
    rng = np.random.default_rng(np.random.SeedSequence(20260101))
    m, n, s2, q2, e2 = 8, 10, 0.02, 0.03, 0.05
    truth_rho = s2 / (s2 + e2 / n)
    truth_phi = s2 / (s2 + (q2 + e2) / n)
    reps, rho_hits, phi_hits = 1500, 0, 0
    for _ in range(reps):
        x = (
            math.sqrt(s2) * rng.standard_normal((m, 1))
            + math.sqrt(q2) * rng.standard_normal((1, n))
            + math.sqrt(e2) * rng.standard_normal((m, n))
        )
        d = dstudy(gstudy(x), [n], level=0.90)
        rho_hits += d.erho2_low[0] <= truth_rho <= d.erho2_high[0]
        phi_hits += d.phi_low[0] <= truth_phi <= d.phi_high[0]
    # Monte Carlo standard error √(.9·.1/1500) = 0.0077.
    assert rho_hits / reps == pytest.approx(0.90, abs=0.03)
    assert phi_hits / reps == pytest.approx(0.90, abs=0.05)


def test_topics_needed_on_synthetic4():
    # By hand from Table 6.2's components: Eρ² ≥ .8 needs n′ ≥ 4·2.7872/0.6258
    # = 17.8 → 18; Φ ≥ .8 needs 4·(0.8840 + 2.7872)/0.6258 = 23.5 → 24. Each
    # reaches the target there and not one topic earlier.
    g = gstudy(SYNTHETIC4)
    t = topics_needed(g, target=0.8, level=0.8)
    assert (t.erho2, t.phi) == (18, 24)
    d = dstudy(g, [17, 18, 23, 24])
    assert d.erho2[0] < 0.8 <= d.erho2[1]
    assert d.phi[2] < 0.8 <= d.phi[3]
    # The ends come from the interval of the coefficient: at the lower end of
    # n′ the upper end of Eρ² reaches the target, one topic fewer does not.
    lo = dstudy(g, [t.erho2_low - 1, t.erho2_low], level=0.8)
    assert lo.erho2_high[0] < 0.8 <= lo.erho2_high[1]
    hi = dstudy(g, [t.phi_high - 1, t.phi_high], level=0.8)
    assert hi.phi_low[0] < 0.8 <= hi.phi_low[1]


def test_no_system_variance_needs_infinitely_many_topics():
    x = np.tile(np.array([[0.1, 0.5, 0.3, 0.9]]), (3, 1))  # systems identical
    x = x + np.array([[0.0], [0.01], [-0.01]]) * np.array([[1, -1, 1, -1]])
    g = gstudy(x)
    assert g.clipped == ("systems",)
    assert math.isinf(topics_needed(g).erho2)
    assert dstudy(g, [50]).erho2[0] == 0.0


# --- Topic-set-size design -------------------------------------------------


def test_variances_against_literal_definitions():
    rng = np.random.default_rng(11)
    x = rng.random((6, 15))
    v = variances(x)
    pairs = [np.var(x[i] - x[j], ddof=1) for i in range(6) for j in range(i + 1, 6)]
    assert len(pairs) == 15
    assert v.pairwise95 == pytest.approx(np.percentile(pairs, 95))
    # 2·V_E is the mean paired-difference variance (an identity of the model).
    assert v.residual == pytest.approx(np.mean(pairs))
    # V_E1 of equal groups is the mean of the per-system variances.
    assert v.within == pytest.approx(np.mean([np.var(row, ddof=1) for row in x]))


def test_variances_stack_over_leading_axes():
    rng = np.random.default_rng(12)
    x = rng.random((3, 4, 9))
    v = variances(x)
    for k in range(3):
        one = variances(x[k])
        got = (v.residual[k], v.pairwise95[k], v.within[k])
        assert got == pytest.approx((one.residual, one.pairwise95, one.within), rel=1e-12)


def test_ttest_exact_against_a_published_example():
    # Dalgaard, Introductory Statistics with R (2nd ed. 2008), §8.3 p. 145:
    # power.t.test(delta = 10, sd = 10·√2, power = .85, type = "paired")
    # gives n = 19.96892 pairs, so 20 topics (σ²_d = 200).
    assert n_ttest(10.0, 200.0, alpha=0.05, beta=0.15).exact == 20


@pytest.mark.parametrize(
    ("min_diff", "var_d", "alpha", "beta"),
    [(0.05, 0.04, 0.05, 0.20), (0.10, 0.10, 0.05, 0.20), (0.02, 0.01, 0.01, 0.10)],
)
def test_ttest_sizes_against_scipy_noncentral_t(min_diff, var_d, alpha, beta):
    r = n_ttest(min_diff, var_d, alpha, beta)
    effect = min_diff / math.sqrt(var_d)

    def power(n):  # scipy.stats on the same numbers: P(|t′| ≥ t_{α/2, n−1})
        w = stats.t.ppf(1 - alpha / 2, n - 1)
        nct = stats.nct(n - 1, math.sqrt(n) * effect)
        return nct.sf(w) + nct.cdf(-w)

    assert power(r.exact) >= 1 - beta > power(r.exact - 1)
    # Nagata's formula by hand: ((z_{α/2} + z_β)/Δ)² + z²_{α/2}/2, rounded up.
    za, zb = stats.norm.isf(alpha / 2), stats.norm.isf(beta)
    assert r.formula == math.ceil(((za + zb) / effect) ** 2 + za**2 / 2)
    # Sakai's tool steps up from the formula while the approximate power is short.
    assert r.approx >= r.formula
    assert ttest_power(r.approx, effect, alpha, exact=False) >= 1 - beta
    if r.approx > r.formula:
        assert ttest_power(r.approx - 1, effect, alpha, exact=False) < 1 - beta
    # The approximation is within a topic or two of the exact answer.
    assert abs(r.approx - r.exact) <= 2


def test_ttest_normal_approximation_is_close_to_the_noncentral_t():
    for n in (10, 30, 100):
        for effect in (0.2, 0.5):
            w = stats.t.ppf(0.975, n - 1)
            nct = stats.nct(n - 1, math.sqrt(n) * effect)
            exact = nct.sf(w) + nct.cdf(-w)
            assert ttest_power(n, effect, 0.05) == pytest.approx(exact, abs=1e-7)
            assert ttest_power(n, effect, 0.05, exact=False) == pytest.approx(exact, abs=0.01)


def test_anova_exact_against_a_published_example():
    # Vidakovic, Statistics for Bioengineering Sciences (2011), Example 11.8:
    # k = 4 groups, α = .05, f² = .0625, λ = n·k·f²: power 0.9122 at n = 60 and
    # n = 58 for power .90. Here λ = n·minD²/(2σ²) = n·0.25 with minD = 1, σ² = 2.
    assert anova_power(60, 4, 0.25, 0.05) == pytest.approx(0.9122, abs=5e-5)
    assert n_anova(1.0, 2.0, 4, alpha=0.05, beta=0.10).exact == 58


@pytest.mark.parametrize("m", [2, 5, 10, 20])
@pytest.mark.parametrize("min_range", [0.10, 0.20, 0.25])
def test_anova_sizes_against_scipy_noncentral_f(m, min_range):
    var_within, alpha, beta = 0.05, 0.05, 0.20
    r = n_anova(min_range, var_within, m, alpha, beta)
    delta = min_range**2 / (2 * var_within)

    def power(n):  # scipy.stats on the same numbers
        dfa, dfe = m - 1, m * (n - 1)
        return stats.ncf.sf(stats.f.ppf(1 - alpha, dfa, dfe), dfa, dfe, n * delta)

    assert power(r.exact) >= 1 - beta > power(r.exact - 1)
    # Sakai's approximation: close to the exact power, so within 3 topics.
    assert anova_power(r.approx, m, delta, alpha, exact=False) >= 1 - beta
    assert anova_power(r.approx - 1, m, delta, alpha, exact=False) < 1 - beta
    assert abs(power(r.approx) - (1 - beta)) < 0.02
    assert abs(r.approx - r.exact) <= 3
    # The starting value of the tool by hand: (4.86 + 3.584 √(m − 1)) / Δ.
    assert r.formula == math.ceil((4.86 + 3.584 * math.sqrt(m - 1)) / delta)


def test_anova_formula_only_for_its_own_alpha_and_beta():
    assert n_anova(0.1, 0.05, 10, alpha=0.01, beta=0.20).formula is None


def test_ci_sizes_against_the_width_at_n_and_n_minus_one():
    # Width 2·t_{α/2, n−1}·√(σ²/n) from scipy's t quantile; with c₄(n) from
    # the gamma function for the expected width.
    width, var_d, alpha = 0.1, 0.1, 0.05
    r = n_ci(width, var_d, alpha)

    def w(n, expected):
        c4 = math.sqrt(2 / (n - 1)) * math.gamma(n / 2) / math.gamma((n - 1) / 2)
        return (
            2 * stats.t.ppf(1 - alpha / 2, n - 1) * math.sqrt(var_d / n) * (c4 if expected else 1)
        )

    assert w(r.plugin, False) <= width < w(r.plugin - 1, False)
    assert w(r.expected, True) <= width < w(r.expected - 1, True)
    assert ci_width(r.plugin, var_d, alpha) == pytest.approx(w(r.plugin, False))
    # By hand: z-based start 4·1.96²·0.1/0.01 = 153.7, the t quantile adds a few.
    assert 154 <= r.expected <= r.plugin <= 160


def test_bad_design_inputs():
    with pytest.raises(ValueError):
        n_ttest(0.0, 0.1)
    with pytest.raises(ValueError):
        n_anova(0.1, 0.1, 1)
    with pytest.raises(ValueError):
        n_ci(0.1, 0.1, alpha=1.0)
    with pytest.raises(ValueError):
        gstudy(SYNTHETIC4, drop=1.0)
    with pytest.raises(ValueError):
        dstudy(gstudy(SYNTHETIC4), [0])


# --- Degenerate scores, intervals that hold their point, NaN-free powers -----


def test_degenerate_matrices_give_an_undefined_or_a_perfect_erho2():
    row = np.array([0.3, 0.8, 0.6, 0.2])
    # Identical systems: σ²_s = σ²_e = 0, so Eρ² = 0/0 for every n′.
    same = gstudy(np.tile(row, (3, 1)))
    # The same systems up to rounding: 0.1 + 0.2 and 0.7 + 0.1 are not 0.3 and 0.8.
    rounded = np.array([row, [0.1 + 0.2, 0.7 + 0.1, 0.6, 0.2], row])
    assert not np.array_equal(rounded[0], rounded[1])
    assert np.allclose(rounded[0], rounded[1], rtol=0, atol=1e-15)
    for g in (same, gstudy(rounded)):
        assert (g.ms_systems, g.ms_residual) == (0.0, 0.0)
        d = dstudy(g, [4, 40])
        assert np.isnan(d.erho2).all() and np.isnan(d.erho2_low).all()
        assert np.isnan(d.erho2_high).all()
        t = topics_needed(g)
        assert all(math.isnan(v) for v in (t.erho2, t.erho2_low, t.erho2_high))
        # Φ = 0 / (0 + σ²_q/n′) is defined: the topics differ.
        assert (d.phi == 0).all() and (d.phi_low == 0).all() and (d.phi_high == 0).all()
    # Every score the same: Φ is 0/0 too.
    flat = dstudy(gstudy(np.full((3, 4), 0.25)), [4])
    assert math.isnan(flat.phi[0]) and math.isnan(flat.phi_low[0]) and math.isnan(flat.phi_high[0])
    # A constant shift per system (exactly additive, σ²_e = 0 < σ²_s): the
    # ranking is the same on every topic, Eρ² = 1 with interval [1, 1], and
    # one topic reaches any target. Shifts of 0.1 and 0.3 add rounding error.
    for shifts in ([0.0, 0.25, 0.5], [0.0, 0.1, 0.3]):
        g = gstudy(row + np.array(shifts)[:, None])
        assert g.ms_residual == 0.0 < g.ms_systems
        d = dstudy(g, [1, 4, 40])
        assert (d.erho2 == 1).all() and (d.erho2_low == 1).all() and (d.erho2_high == 1).all()
        t = topics_needed(g, 0.99)
        assert (t.erho2, t.erho2_low, t.erho2_high) == (1, 1, 1)


def test_every_interval_holds_its_point():
    # Feldt's and Arteaga et al.'s intervals are not centred on the point
    # estimates: below a level of about .5 their ends can pass them.
    rng = np.random.default_rng(np.random.SeedSequence(20261201))
    for _ in range(200):
        m, n = rng.integers(2, 12), rng.integers(2, 30)
        s2, q2, e2 = rng.random(3) ** 3
        x = (
            math.sqrt(s2) * rng.standard_normal((m, 1))
            + math.sqrt(q2) * rng.standard_normal((1, n))
            + math.sqrt(e2) * rng.standard_normal((m, n))
        )
        g = gstudy(x)
        for level in (0.05, 0.1, 0.2, 0.5, 0.95):
            d = dstudy(g, [1, n, 4 * n], level)
            assert (d.erho2_low <= d.erho2).all() and (d.erho2 <= d.erho2_high).all()
            assert (d.phi_low <= d.phi).all() and (d.phi <= d.phi_high).all()
            t = topics_needed(g, 0.9, level)
            assert t.erho2_low <= t.erho2 <= t.erho2_high
            assert t.phi_low <= t.phi <= t.phi_high


def test_drop_keeps_means_tied_to_rounding():
    # System means 0.3 and (0.1 + 0.2 + 0.3)/2, equal but for the last bit,
    # and 0.6: the median, the 0.5 quantile, is the tied mean, so no system
    # is below it.
    x = np.array([[0.3, 0.3], [0.1 + 0.2, 0.3], [0.5, 0.7]])
    means = x.mean(axis=1)
    assert means[0] < means[1] and means[1] - means[0] < 1e-15
    assert gstudy(x, drop=0.5).kept == (0, 1, 2)
    # A real difference below the cut still goes.
    y = x.copy()
    y[0] -= 1e-6
    assert gstudy(y, drop=0.5).kept == (1, 2)


def chi_quad_power(n: int, effect: float, alpha: float) -> float:
    """The paired t-test's power by its definition, without the noncentral t:
    P(|Z + λ| ≥ w·S) with λ = √n·effect, w = t_{α/2}(n − 1) and S the sample
    sd in units of σ (χ_{n−1}/√(n − 1)), integrated over S by quad."""
    from scipy.integrate import quad

    df = n - 1
    lam, w = math.sqrt(n) * effect, stats.t.isf(alpha / 2, df)
    chi = stats.chi(df, scale=1 / math.sqrt(df))

    def integrand(s):
        return (stats.norm.sf(w * s - lam) + stats.norm.cdf(-w * s - lam)) * chi.pdf(s)

    lo, hi = chi.ppf(1e-16), chi.isf(1e-16)  # all but 2e-16 of S's probability
    inner = [1.0] if lo < 1 < hi else None
    value, _ = quad(integrand, lo, hi, points=inner, epsabs=1e-14, epsrel=1e-12, limit=200)
    return value


def quad_smallest(min_diff: float, var_d: float, alpha: float, beta: float) -> int:
    """The fewest topics whose :func:`chi_quad_power` is at least 1 − β (the
    power grows with n: double, then bisect)."""
    effect = min_diff / math.sqrt(var_d)

    def enough(n):
        return chi_quad_power(n, effect, alpha) >= 1 - beta

    hi = 2
    while not enough(hi):
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


#: How near the noncentral t and F powers come to the quadrature, over the
#: scipy versions pyproject allows (see test_ttest_power_against_quadrature).
QUAD_REL = 5e-7


@pytest.mark.parametrize(
    ("n", "effect", "alpha"),
    [
        # where scipy's nctdtr returned NaN for the lower tail (α = .001)
        (171, 0.11 / 0.28, 0.001), (86, 0.16 / 0.28, 0.001), (46, 0.23 / 0.28, 0.001),
        (16, 0.4 / 0.28, 0.001), (30, 1.0, 0.05), (2, 8.0, 0.05), (8, 2.4, 1e-4),
        # ordinary points
        (10, 0.5, 0.05), (50, 0.3, 0.01), (400, 0.1, 0.05),
    ],
)  # fmt: skip
def test_ttest_power_against_quadrature(n, effect, alpha):
    # scipy 1.10's noncentral t (cdflib) agrees with the quadrature to ~1e-7
    # relative (measured: 1.2e-7 at n = 2), scipy ≥ 1.15's (boost) to 1e-10
    assert ttest_power(n, effect, alpha) == pytest.approx(
        chi_quad_power(n, effect, alpha), rel=QUAD_REL, abs=1e-12
    )


def test_ttest_power_is_never_nan():
    for alpha in (0.05, 0.001, 1e-6):
        for effect in (0.05, 0.3, 1.0, 3.0, 10.0):
            for n in (2, 3, 5, 10, 30, 100, 1000, 10**5):
                p = ttest_power(n, effect, alpha)
                assert 0.0 <= p <= 1.0, (n, effect, alpha, p)


@pytest.mark.parametrize("min_diff", [0.1, 0.11, 0.16, 0.23, 0.4])
def test_ttest_sizes_at_significance_0001_against_quadrature(min_diff):
    # σ²_d of AP on the sample track (2·V_E = 0.0784); at α = .001 the search
    # used to meet NaN powers for all but min_diff 0.1 and overshoot (1080
    # topics for 0.11).
    got = n_ttest(min_diff, 0.0784, alpha=0.001, beta=0.20).exact
    assert got == quad_smallest(min_diff, 0.0784, 0.001, 0.20)


@pytest.mark.parametrize(
    ("n", "delta", "alpha"), [(457, 3.1375, 0.5), (20, 0.3, 0.05), (5, 2.0, 0.01)]
)
def test_anova_power_of_two_systems_is_the_t_test_squared(n, delta, alpha):
    # With m = 2 the F statistic is T′² for T′ noncentral t(2(n − 1), √λ):
    # P(F′ > w) = P(|T′| ≥ √w), the quadrature of chi_quad_power with its
    # degrees of freedom and noncentrality. At λ = 457·3.1375 ≈ 1434 scipy's
    # ncfdtr returned NaN.
    from scipy.integrate import quad

    df, lam = 2 * (n - 1), n * delta
    w = math.sqrt(stats.f.isf(alpha, 1, df))
    chi = stats.chi(df, scale=1 / math.sqrt(df))

    def integrand(s):
        nc = math.sqrt(lam)
        return (stats.norm.sf(w * s - nc) + stats.norm.cdf(-w * s - nc)) * chi.pdf(s)

    lo, hi = chi.ppf(1e-16), chi.isf(1e-16)
    expected, _ = quad(integrand, lo, hi, points=[1.0], epsabs=1e-14, epsrel=1e-12, limit=200)
    # scipy 1.10's noncentral F (cdflib) is the coarser: 8e-6 relative, measured
    assert anova_power(n, 2, delta, alpha) == pytest.approx(expected, rel=2e-5, abs=1e-12)


def test_the_search_refuses_a_nan():
    # NaN ≥ target is false: read as "not enough", the search went on to
    # larger n and returned a wrong number.
    with pytest.raises(ValueError, match="NaN"):
        _smallest(lambda n: math.nan, 0.8)
    with pytest.raises(ValueError, match="NaN"):
        _smallest(lambda n: 0.9 if n < 40 else math.nan, 0.95)
    assert _smallest(lambda n: n / 100, 0.5) == 50
    assert _smallest(lambda n: 1 / n, 0.1, below=True) == 10
    with pytest.raises(TopicsUnreachable):
        _smallest(lambda n: 0.0, 0.5)


# --- Judgments against topics ----------------------------------------------


def test_predict_rmse_by_hand():
    # b = .03, σ = .04 at n = 50, n′ = 200: √(.0009 + .0016·50/200) = √.0013.
    assert predict_rmse(0.03, 0.04, 50, 200) == pytest.approx(math.sqrt(0.0013))
    assert predict_rmse(-0.03, 0.0, 50, 7) == pytest.approx(0.03)


def test_allocate_by_hand():
    cells = [("pool", 100, 0.0, 0.04), ("sample", 20, 0.03, 0.06)]
    a = allocate(cells, [1000, 5000, 50, 10], n=50)
    # T = 1000: pool 10 topics, √(.0016·50/10) = √.008 = .0894; sample 50
    # topics, √(.0009 + .0036) = √.0045 = .0671 → sample.
    # T = 5000: pool 50 topics, √.0016 = .04; sample 250 topics,
    # √(.0009 + .0036·50/250) = √.00162 = .04025 → pool.
    # T = 50: only sample fits, 2 topics: √(.0009 + .0036·25) = √.0909.
    # T = 10: nothing fits.
    assert (a.best[1000].method, a.best[1000].topics) == ("sample", 50)
    assert a.best[1000].rmse == pytest.approx(math.sqrt(0.0045))
    assert (a.best[5000].method, a.best[5000].topics) == ("pool", 50)
    assert a.best[5000].rmse == pytest.approx(0.04)
    assert (a.best[50].method, a.best[50].rmse) == ("sample", pytest.approx(math.sqrt(0.0909)))
    assert a.best[10] is None
    assert len(a.candidates) == 2 + 2 + 1
    pool_1000 = next(c for c in a.candidates if c.total == 1000 and c.method == "pool")
    assert (pool_1000.topics, pool_1000.rmse) == (10, pytest.approx(math.sqrt(0.008)))


def test_allocate_tie_goes_to_fewer_judgments():
    # Both get 2 topics from 25 judgments and the same RMSE; "a" spends 20, "b" 24.
    a = allocate([("b", 12, 0.0, 0.1), ("a", 10, 0.0, 0.1)], [25], n=10)
    assert a.best[25].method == "a"


def _truth_b2(n_new):  # a known b²(n′) = b²_∞ + c·n/n′, n = 50
    return 0.004 + 0.006 * 50 / n_new


def _truth_s2(n_new):  # a known σ²(n′) = σ²(n)·(n/n′)^p, p = 1.4
    return 0.02 * (50 / n_new) ** 1.4


def test_fit_topics_model_recovers_a_known_truth():
    """b² and σ² constructed exactly at 50, 100, 200 and 400 topics: the fit
    gives back the constants they were made from, and predicts anywhere."""
    topics = [200, 50, 400, 100]  # any order
    bias = [math.sqrt(_truth_b2(t)) for t in topics]
    sigma = [math.sqrt(_truth_s2(t)) for t in topics]
    m = fit_topics_model(topics, bias, sigma)
    assert (m.model, m.n, m.topics) == (FITTED, 50, (50, 100, 200, 400))
    assert m.bias2_limit == pytest.approx(0.004, rel=1e-10)
    assert m.bias2_slope == pytest.approx(0.006, rel=1e-10)
    assert m.sigma2 == pytest.approx(0.02, rel=1e-10)
    assert m.exponent == pytest.approx(1.4, rel=1e-10)
    for t in (7, 25, 333, 5000):
        assert m.rmse(t) == pytest.approx(math.sqrt(_truth_b2(t) + _truth_s2(t)), rel=1e-10)


def test_fit_topics_model_signed_bias_and_clipping():
    """A negative bias in the report is −√(−b²): b²(n′) = −.002 + .004·50/n′
    is .002 at 50 topics, 0 at 100 and −.001 at 200; at 400 the fitted b² is
    −.0015, which the RMSE counts as 0."""
    topics = [50, 100, 200]
    b2 = [-0.002 + 0.004 * 50 / t for t in topics]
    bias = [math.copysign(math.sqrt(abs(v)), v) for v in b2]
    sigma = [0.1 * math.sqrt(50 / t) for t in topics]  # σ² ∝ 1/n′ exactly
    m = fit_topics_model(topics, bias, sigma)
    assert m.bias2(400) == pytest.approx(-0.0015, rel=1e-10)
    assert m.exponent == pytest.approx(1.0, rel=1e-10)
    assert m.rmse(400) == pytest.approx(math.sqrt(0.01 * 50 / 400), rel=1e-10)
    assert m.rmse(25) == pytest.approx(math.sqrt(-0.002 + 0.008 + 0.02), rel=1e-10)


def test_fit_topics_model_is_least_squares():
    """Noisy measurements at five scales: the fit against numpy's polyfit (b²
    on n/n′, log σ² on log(n/n′))."""
    rng = np.random.default_rng(np.random.SeedSequence(8, spawn_key=(1,)))
    topics = np.array([40, 80, 160, 320, 640])
    x = 40 / topics
    b2 = 0.01 + 0.004 * x + rng.normal(0, 0.001, 5)
    s2 = 0.03 * x**1.2 * np.exp(rng.normal(0, 0.1, 5))
    m = fit_topics_model(topics, np.sign(b2) * np.sqrt(np.abs(b2)), np.sqrt(s2))
    slope, limit = np.polyfit(x, b2, 1)
    exponent, log_s2 = np.polyfit(np.log(x), np.log(s2), 1)
    assert (m.bias2_limit, m.bias2_slope) == pytest.approx((limit, slope), rel=1e-9)
    assert (m.sigma2, m.exponent) == pytest.approx((math.exp(log_s2), exponent), rel=1e-9)


def test_fit_topics_model_one_scale_is_the_constant_bias_prediction():
    m = fit_topics_model([50], [0.03], [0.04])
    assert (m.model, m.bias2_slope, m.exponent) == (CONSTANT_BIAS, 0.0, 1.0)
    # √(.0009 + .0016·50/200) = √.0013, as predict_rmse
    assert m.rmse(200) == pytest.approx(math.sqrt(0.0013), rel=1e-12)
    assert m.rmse(200) == pytest.approx(predict_rmse(0.03, 0.04, 50, 200), rel=1e-12)
    # a negative |b| (b² estimated below 0) counts as no bias
    assert fit_topics_model([50], [-0.03], [0.04]).rmse(50) == pytest.approx(0.04, rel=1e-12)


def test_fit_topics_model_zero_sigma_keeps_one_over_n():
    """σ = 0 at 200 topics: no logarithm; exponent 1 and σ²(n) by least
    squares through the origin on x = n/n′: (1·.01 + .25·0)/(1 + .0625)."""
    m = fit_topics_model([50, 200], [0.1, 0.1], [0.1, 0.0])
    assert m.exponent == 1.0
    assert m.sigma2 == pytest.approx(0.01 / 1.0625, rel=1e-12)
    assert m.variance(100) == pytest.approx(0.01 / 1.0625 / 2, rel=1e-12)


@pytest.mark.parametrize(
    "topics,bias,sigma",
    [([50, 50], [0.1, 0.1], [0.1, 0.1]), ([50], [0.1, 0.2], [0.1]), ([0], [0.1], [0.1]),
     ([50], [0.1], [-0.1]), ([], [], [])],
)  # fmt: skip
def test_fit_topics_model_rejects(topics, bias, sigma):
    with pytest.raises(ValueError):
        fit_topics_model(topics, bias, sigma)


def test_allocate_models_by_hand():
    """A constant-bias cell against a fitted one whose b² falls with n′."""
    flat = TopicsModel(50, 0.0009, 0.0, 0.0036, 1.0, CONSTANT_BIAS, (50,))
    falling = TopicsModel(50, 0.0004, 0.002, 0.0016, 1.0, FITTED, (50, 100))
    a = allocate_models([("sample", 20, flat), ("pool", 100, falling)], [5000, 20000])
    # T = 5000: sample 250 topics √(.0009 + .0036/5) = √.00162 = .04025;
    # pool 50 topics √(.0004 + .002 + .0016) = √.004 = .0632 → sample.
    # T = 20000: sample 1000 topics √(.0009 + .0036/20) = √.00108 = .03286;
    # pool 200 topics √(.0004 + .0005 + .0004) = √.0013 = .03606 → sample.
    assert (a.best[5000].method, a.best[5000].model) == ("sample", CONSTANT_BIAS)
    assert a.best[5000].rmse == pytest.approx(math.sqrt(0.00162), rel=1e-12)
    pool = {c.total: c for c in a.candidates if c.method == "pool"}
    assert pool[5000].rmse == pytest.approx(math.sqrt(0.004), rel=1e-12)
    assert (pool[20000].rmse, pool[20000].model) == (pytest.approx(math.sqrt(0.0013)), FITTED)
    assert a.best[20000].rmse == pytest.approx(math.sqrt(0.00108), rel=1e-12)


# --- Topic bootstrap -------------------------------------------------------


def test_bootstrap_resamples_columns_reproducibly():
    x = np.vstack([np.arange(9.0), np.arange(9.0) ** 2])

    def stat(y):
        return y[0]

    one = bootstrap_topics(x, stat, B=50, seed=3)
    assert one.shape == (50, 9)
    # Every replicate is a resample of whole columns: row 1 is row 0 squared.
    again = bootstrap_topics(x, lambda y: y[1], B=50, seed=3)
    np.testing.assert_array_equal(again, one**2)
    assert np.isin(one, np.arange(9.0)).all()
    np.testing.assert_array_equal(bootstrap_topics(x, stat, B=50, seed=3), one)
    assert not np.array_equal(bootstrap_topics(x, stat, B=50, seed=4), one)
    stacked = bootstrap_topics(x, lambda y: y[:, 0], B=50, seed=3, vectorised=True)
    np.testing.assert_array_equal(stacked, one)


def test_bootstrap_standard_error_of_the_mean():
    # The bootstrap variance of a mean of n topic means is the plug-in
    # variance of the topic means over n, (n − 1)/n · s²/n.
    rng = np.random.default_rng(5)
    x = rng.random((3, 40))
    reps = bootstrap_topics(x, lambda y: y.mean(axis=(-2, -1)), B=4000, seed=1, vectorised=True)
    topic_means = x.mean(axis=0)
    expected = np.var(topic_means, ddof=0) / 40
    assert reps.var() == pytest.approx(expected, rel=0.08)
