"""Mean–variance evaluation over query variations (docs/variations.md; Zuccon et al. 2016).

Expected values come from the paper (the pilot study, the CLEF 2015 crossover
of §5.2), hand computations written here, small loop-based implementations
of the definitions written here, scipy, numpy's covariance, the statistics
module and ir_measures.
"""

from __future__ import annotations

import itertools
import statistics
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from scipy.stats import kendalltau

from bvtest_cli.analyses import variations as V
from bvtest_cli.commands.variations import inputs as vio
from bvtest_cli.errors import InputError
from bvtest_cli.io import maps
from bvtest_cli.io import sources as trecio_sources
from bvtest_cli.io import trec as trecio
from bvtest_cli.measures import evaluate, names
from bvtest_cli.measures.matrix import ScoreMatrix

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import gen_track  # noqa: E402


def _inter(values, systems, alphas="-20:20:1", weights=None) -> V.VariationsResult:
    """Plain data (one query per topic) in inter mode."""
    values = np.asarray(values, dtype=float)
    topics = tuple(str(t) for t in range(1, values.shape[1] + 1))
    matrix = ScoreMatrix("P@5", tuple(systems), topics, values)
    design = V.Design.one_per_topic(topics)
    return V.analyse(matrix, design, "inter", V.parse_alphas(alphas), weights)


def _o(result: V.VariationsResult, system: str, alpha: str) -> float:
    return float(result.o[result.systems.index(system), result.alphas.index(alpha)])


# ---------------------------------------------------------------------------
# The paper's numbers


def test_pilot_study_equal_means_stable_system_wins_for_positive_alpha():
    """Zuccon et al. 2016 §6: S1 = {0.4}×10 and S2 = {0.8}×5 ∪ {0}×5 have equal
    means, σ²(S2) = 0.1778; S1 is preferred for every α > 0, S2 for α < 0."""
    s1 = [0.4] * 10
    s2 = [0.8] * 5 + [0.0] * 5
    r = _inter([s1, s2], ["S1", "S2"])
    assert r.mu[0] == pytest.approx(0.4, abs=1e-15)
    assert r.mu[1] == pytest.approx(0.4, abs=1e-15)
    # by hand: every deviation is ±0.4, so Σ (x − 0.4)² = 10 · 0.16 = 1.6, over n − 1 = 9
    assert r.var[1] == pytest.approx(1.6 / 9, abs=1e-15)
    assert round(float(r.var[1]), 4) == 0.1778
    assert r.var[0] == pytest.approx(0.0, abs=1e-15)
    for alpha in r.alphas:
        a = float(alpha)
        if a > 0:
            assert _o(r, "S1", alpha) > _o(r, "S2", alpha)
        elif a < 0:
            assert _o(r, "S2", alpha) > _o(r, "S1", alpha)
    # one crossover, exactly at α = 0: the unstable S2 leads below it
    assert r.crossovers == (V.Crossover("S2", "S1", 0.0),)
    # equal means: the reference ranking has no order, no correlation is defined
    assert np.isnan(r.tau).all() and np.isnan(r.tau_ap).all()


def _with_moments(mean: float, var: float, n: int = 4) -> list[float]:
    """n scores whose mean and sample variance are exactly (up to rounding) given."""
    z = np.arange(n) - (n - 1) / 2  # mean 0
    z = z / np.sqrt((z**2).sum() / (n - 1))  # sample variance 1
    return list(mean + np.sqrt(var) * z)


@pytest.mark.parametrize("mode", ["inter", "intra"])
def test_clef_crossover_by_hand(mode):
    """Zuccon et al. 2016 §5.2: KISTI_EN_RUN.3 (mean 0.3730, variance 8.9e-3)
    and CUNI_EN_Run.5 (0.3682, 3.0e-3) swap at α* = 0.0048/0.0059 ≈ 0.8136
    (the paper's footnote says 0.83, from its unrounded values)."""
    kisti = _with_moments(0.3730, 8.9e-3)
    cuni = _with_moments(0.3682, 3.0e-3)
    systems = ("KISTI_EN_RUN.3", "CUNI_EN_Run.5")
    alphas = V.parse_alphas("0:2:0.01")
    if mode == "inter":
        r = _inter([kisti, cuni], systems, "0:2:0.01")
        mu, var = r.mu, r.var
    else:  # one topic, four variations
        variations = ("7-1", "7-2", "7-3", "7-4")
        vmap = maps.VariationMap("map", dict.fromkeys(variations, "7"))
        design = vio.build_design(variations, vmap, "intra")
        matrix = ScoreMatrix("P@10", systems, variations, np.array([kisti, cuni]))
        r = V.analyse(matrix, design, "intra", alphas)
        mu, var = r.mu[:, 0], r.var[:, 0]
    assert mu == pytest.approx([0.3730, 0.3682], abs=1e-15)
    assert var == pytest.approx([8.9e-3, 3.0e-3], abs=1e-15)
    (cross,) = r.crossovers
    assert (cross.a, cross.b) == systems  # KISTI (higher mean, less stable) leads below α*
    assert cross.alpha == pytest.approx(0.0048 / 0.0059, rel=1e-9)
    assert round(cross.alpha, 4) == 0.8136
    k, c = (0, 1)
    at = {a: i for i, a in enumerate(r.alphas)}
    o = r.o if mode == "inter" else r.o[:, 0, :]
    assert o[k, at["0.81"]] > o[c, at["0.81"]]
    assert o[c, at["0.82"]] > o[k, at["0.82"]]


def test_means_equal_up_to_rounding_noise_tie():
    """0.1 + 0.7 is 0.7999999999999999 in floating point, 0.4 + 0.4 is 0.8: the
    means are equal in real arithmetic and must tie (crossover at exactly 0,
    no order to correlate with), not differ by 5.6e-17."""
    assert (0.1 + 0.7) / 2 != (0.4 + 0.4) / 2
    r = _inter([[0.4, 0.4], [0.1, 0.7]], ["S1", "S2"], "-1,0,1")
    assert r.crossovers == (V.Crossover("S2", "S1", 0.0),)
    assert np.isnan(r.tau).all()
    # at α = 0 the two values of O differ by 5.6e-17 but tie when ranked
    assert r.o[0, 1] != r.o[1, 1]


# ---------------------------------------------------------------------------
# Rank correlations


def _yilmaz(reference: list[float], evaluated: list[float]) -> float:
    """τ_AP by its definition (Yilmaz et al. 2008), no ties: walk the evaluated
    ranking; C(i) counts the systems above rank i that the reference also
    puts above the system at rank i."""
    order = sorted(range(len(evaluated)), key=lambda s: -evaluated[s])
    n = len(order)
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in range(i) if reference[order[j]] > reference[order[i]])
        total += c / i
    return 2.0 * total / (n - 1) - 1.0


def _yilmaz_tie_broken(reference, evaluated) -> float:
    """The documented tie rule, by brute force: average of the definition over
    every order used to break ties (the same order in both rankings)."""
    m = len(reference)
    values = []
    for perm in itertools.permutations(range(m)):
        prio = {s: p for p, s in enumerate(perm)}
        ev_order = sorted(range(m), key=lambda s: (-evaluated[s], prio[s]))
        ref_order = sorted(range(m), key=lambda s: (-reference[s], prio[s]))
        # strict surrogates with the same orders
        ev_rank = {s: m - p for p, s in enumerate(ev_order)}
        ref_rank = {s: m - p for p, s in enumerate(ref_order)}
        values.append(_yilmaz([ref_rank[s] for s in range(m)], [ev_rank[s] for s in range(m)]))
    return float(np.mean(values))


def test_tau_ap_equals_its_definition_on_random_rankings():
    rng = np.random.default_rng(11)
    for m in range(2, 13):
        for _ in range(20):
            ref, ev = rng.permutation(m).astype(float), rng.permutation(m).astype(float)
            assert V.tau_ap(ref, ev) == pytest.approx(_yilmaz(list(ref), list(ev)), abs=1e-12)


def test_tau_ap_is_asymmetric_reference_first():
    """Reference = the ranking by μ, positions from the evaluated ranking."""
    ref = [5.0, 4, 3, 2, 1]
    ev = [4.0, 5, 3, 2, 1]  # top two swapped
    ev2 = [5.0, 4, 3, 1, 2]  # bottom two swapped
    # by hand, evaluated order 2,1,3,4,5 (ids by reference rank): C = 0, 2, 3, 4
    assert V.tau_ap(ref, ev) == pytest.approx(2 / 4 * (0 / 1 + 2 / 2 + 3 / 3 + 4 / 4) - 1)
    # order 1,2,3,5,4: C = 1, 2, 3, 3 → a swap at the bottom costs less
    assert V.tau_ap(ref, ev2) == pytest.approx(2 / 4 * (1 / 1 + 2 / 2 + 3 / 3 + 3 / 4) - 1)
    assert V.tau_ap(ref, ev2) > V.tau_ap(ref, ev)
    assert V.tau_ap(ref, ref[::-1]) == pytest.approx(-1.0)


def test_tau_ap_with_ties_is_the_expectation_over_tie_breaking_orders():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(150):
        m = int(rng.integers(2, 7))
        ref = rng.integers(0, 3, m).astype(float)
        ev = rng.integers(0, 3, m).astype(float)
        got = float(V.tau_ap(ref, ev))
        if len(set(ref)) == 1:
            assert np.isnan(got)  # the reference ties everything: undefined
            continue
        assert got == pytest.approx(_yilmaz_tie_broken(list(ref), list(ev)), abs=1e-12)
        checked += 1
    assert checked > 100
    # identical rankings score 1, ties included
    tied = np.array([0.3, 0.3, 0.1, 0.5, 0.1, 0.1])
    assert V.tau_ap(tied, tied) == pytest.approx(1.0, abs=1e-12)


def test_tau_and_tau_ap_are_one_at_alpha_zero_and_track_o():
    rng = np.random.default_rng(8)
    mu = rng.random((3, 7))  # leading axis: 3 independent sets of 7 systems
    var = rng.random((3, 7)) * 0.05
    alphas = V.alpha_values(V.parse_alphas("-3:3:0.5"))
    o = V.portfolio_value(mu, var, alphas)
    assert o.shape == (3, 7, 13)
    tau, tap = V.rank_correlations(mu, var, alphas)
    assert tau.shape == tap.shape == (3, 13)
    zero = list(alphas).index(0.0)
    assert tau[:, zero] == pytest.approx(1.0, abs=1e-12)
    assert tap[:, zero] == pytest.approx(1.0, abs=1e-12)
    for s, a in itertools.product(range(3), range(13)):
        assert tau[s, a] == pytest.approx(kendalltau(mu[s], o[s, :, a]).statistic, abs=1e-12)
        assert tap[s, a] == pytest.approx(_yilmaz(list(mu[s]), list(o[s, :, a])), abs=1e-12)


def test_rank_correlations_with_ties_and_crossovers_on_the_grid():
    """Means and variances from a few values: many pairs tie by μ (they cross
    at α = 0), some never cross (equal variances), some cross on a grid point
    (0.1/0.02 = 5), where their values of O differ by rounding noise only.
    rank_correlations must agree with scipy's τ_b on the values of O with
    that noise rounded away, and with τ_AP of the values (checked above
    against the definition and the brute-force tie rule)."""
    rng = np.random.default_rng(2)
    alphas = V.alpha_values(V.parse_alphas("-6:6:0.5"))
    for _ in range(30):
        mu = rng.choice([0.1, 0.2, 0.3], (2, 6))
        var = rng.choice([0.01, 0.02, 0.04], (2, 6))
        tau, tap = V.rank_correlations(mu, var, alphas)
        o = V.portfolio_value(mu, var, alphas)
        for s, k in itertools.product(range(2), range(alphas.size)):
            # scipy's τ_b, the values of O that are equal in real arithmetic
            # made equal in floating point too (bvtest ties them)
            expected_tau = kendalltau(mu[s], np.round(o[s, :, k], 12)).statistic
            expected_tap = V.tau_ap(mu[s], o[s, :, k])
            assert tau[s, k] == pytest.approx(expected_tau, abs=1e-12, nan_ok=True)
            assert tap[s, k] == pytest.approx(expected_tap, abs=1e-12, nan_ok=True)
    # two systems meeting at α = 2 tie there: τ_b undefined, τ_AP 0 (by hand:
    # the two tie-breaking orders give +1 and −1)
    tau, tap = V.rank_correlations([0.5, 0.3], [0.1, 0.0], np.array([1.0, 2.0, 3.0]))
    assert list(tau[:1]) == [1.0] and np.isnan(tau[1]) and tau[2] == -1.0
    assert list(tap) == pytest.approx([1.0, 0.0, -1.0])


def test_means_closer_than_the_tolerance_tie_in_tau_tau_ap_and_crossovers():
    """By hand. μ = (0.4, 0.4 + 5e-10, 0.1): 5e-10 is below the ranking's
    tolerance 1e-9 · max(1, 0.4), so the ranking by μ ties systems 0 and 1
    (docs/rankings.md#ties): S_μ = (0, +, +) over the pairs (0,1), (0,2),
    (1,2). With σ² = (0.01, 0.02, 0.03), at α = 1 O = (0.39, 0.38 + 5e-10,
    0.07): S_O = (+, +, +), so τ_b = 2 / √(2 · 3). scipy, ordering the means
    by their floats (μ_1 > μ_0), finds (0,1) discordant: (2 − 1)/3 = 1/3.
    At α = 0 both rankings are the ranking by μ: τ_b = 2/√(2·2) = 1. The
    crossover of systems 0 and 1 is at exactly α* = 0 (Δμ counts as 0), not
    at 5e-10 / 0.01 = 5e-8. τ_AP follows the reference with the tie: the
    brute-force expectation over tie-breaking orders of (0.4, 0.4, 0.1)."""
    mu = np.array([0.4, 0.4 + 5e-10, 0.1])
    var = np.array([0.01, 0.02, 0.03])
    tau, tap = V.rank_correlations(mu, var, np.array([0.0, 1.0]))
    assert tau[0] == pytest.approx(1.0, abs=1e-15)
    assert tau[1] == pytest.approx(2 / np.sqrt(6), abs=1e-15)
    o1 = mu - 1.0 * var
    assert kendalltau(mu, o1).statistic == pytest.approx(1 / 3)
    assert tap[1] == pytest.approx(_yilmaz_tie_broken([0.4, 0.4, 0.1], list(o1)), abs=1e-12)
    _, a, b, alpha = V.crossovers(mu, var, -1.0, 1.0)
    assert (list(a), list(b), list(alpha)) == ([1], [0], [0.0])
    # 2e-9 is above the tolerance: the means are ordered and cross at 2e-9 / 0.01
    _, a, b, alpha = V.crossovers(mu + np.array([0, 1.5e-9, 0]), var, -1.0, 1.0)
    assert (list(a), list(b)) == ([1], [0]) and alpha[0] == pytest.approx(2e-7, rel=1e-6)


def test_o_ties_by_the_tolerance_of_its_own_ranking():
    """By hand. μ = (0.5, 0.3), σ² = (0.1 + 2e-12, 0): the lines cross at
    α* = 0.2 / (0.1 + 2e-12) = 2 − 4e-11. At α = 2, O_0 − O_1 = −4e-12: far
    below the tolerance 1e-9 · max(1, |O|) of the ranking by O, a tie, so τ_b
    is undefined there (0/0) and τ_AP is the mean of +1 and −1. At α = 1000
    the tolerance is 1e-9 · 99.5 ≈ 1e-7 (O = (−99.5, 0.3)); the ranking is
    reversed, τ_b = −1."""
    tau, tap = V.rank_correlations([0.5, 0.3], [0.1 + 2e-12, 0.0], np.array([2.0, 1000.0]))
    assert np.isnan(tau[0]) and tap[0] == pytest.approx(0.0, abs=1e-15)
    assert tau[1] == -1.0 and tap[1] == pytest.approx(-1.0)


# ---------------------------------------------------------------------------
# Moments


def test_general_variance_equals_the_covariance_form_of_eq4():
    """σ² = var_k Σ_i w_i r[k,i] must equal Σ_i Σ_j w_i w_j cov(r_i, r_j) with
    sample covariances (Zuccon et al. 2016, eqs. 3–4); μ = Σ_i w_i mean_k r[k,i]."""
    rng = np.random.default_rng(21)
    m, n, k = 4, 6, 9
    r = rng.random((m, n, k))
    w = rng.random(n)
    w /= w.sum()
    mu, var = V.general_moments(r, w)
    for s in range(m):
        cov = np.cov(r[s].T, rowvar=False)  # (n, n) over the k users, ddof 1
        expected = sum(w[i] * w[j] * cov[i, j] for i in range(n) for j in range(n))
        assert var[s] == pytest.approx(expected, rel=1e-12)
        assert mu[s] == pytest.approx(sum(w[i] * r[s, i].mean() for i in range(n)), rel=1e-12)
    mu_eq, var_eq = V.general_moments(r)  # equal weights
    assert mu_eq == pytest.approx(r.mean(axis=(1, 2)), rel=1e-12)
    assert var_eq == pytest.approx(V.general_moments(r, np.full(n, 1 / n))[1], rel=1e-12)


def test_intra_moments_per_topic_with_different_numbers_of_variations():
    rng = np.random.default_rng(4)
    variations = ("1-a", "1-b", "1-c", "2-a", "2-b", "3-a", "3-b", "3-c", "3-d")
    vmap = maps.VariationMap("m", {v: v.split("-")[0] for v in variations})
    design = vio.build_design(variations, vmap, "intra")
    x = rng.random((3, len(variations)))
    grid, mask = V.to_grid(x, design)
    mu, var = V.intra_moments(grid, mask)
    assert mu.shape == var.shape == (3, 3)
    for s in range(3):
        for i, topic in enumerate(("1", "2", "3")):
            cells = [x[s, j] for j, v in enumerate(variations) if v.startswith(topic + "-")]
            assert mu[s, i] == pytest.approx(statistics.mean(cells), rel=1e-12)
            assert var[s, i] == pytest.approx(statistics.variance(cells), rel=1e-12)


def test_inter_moments_equal_and_unequal_weights():
    x = np.array([[0.2, 0.5, 0.9, 0.4]])
    mu, var = V.inter_moments(x)
    assert mu[0] == pytest.approx(statistics.mean(x[0]))
    assert var[0] == pytest.approx(statistics.variance(x[0]))
    assert V.inter_moments(x, np.full(4, 0.25))[1][0] == pytest.approx(var[0], rel=1e-12)
    # by hand: x = (0, 1), w = (1/4, 3/4): μ = 3/4; Σ w (x − μ)² = 1/4·9/16 + 3/4·1/16 = 3/16;
    # 1 − Σ w² = 1 − 10/16 = 6/16, so σ² = 1/2
    mu, var = V.inter_moments(np.array([[0.0, 1.0]]), np.array([0.25, 0.75]))
    assert mu[0] == pytest.approx(0.75) and var[0] == pytest.approx(0.5)


def test_crossovers_match_a_brute_force_scan():
    rng = np.random.default_rng(9)
    mu = rng.random(8) * 0.4
    var = rng.random(8) * 0.05
    var[3] = var[5]  # parallel lines never cross
    lo, hi = -5.0, 5.0
    where, a, b, alpha = V.crossovers(mu, var, lo, hi)
    assert (where == 0).all()
    assert list(alpha) == sorted(alpha)
    found = {(int(i), int(j)): float(v) for i, j, v in zip(a, b, alpha, strict=True)}
    expected = {}
    for i, j in itertools.permutations(range(8), 2):
        if var[i] > var[j]:
            star = (mu[i] - mu[j]) / (var[i] - var[j])
            if lo <= star <= hi:
                expected[(i, j)] = star
    assert found.keys() == expected.keys()
    assert (3, 5) not in found and (5, 3) not in found
    for (i, j), star in found.items():
        assert star == pytest.approx(expected[(i, j)], rel=1e-12)
        before, after = star - 1e-6, star + 1e-6
        assert mu[i] - before * var[i] > mu[j] - before * var[j]  # a ahead below α*
        assert mu[j] - after * var[j] > mu[i] - after * var[i]  # b ahead above


# ---------------------------------------------------------------------------
# The α grid


def test_parse_alphas_grid_and_list_keys():
    default = V.parse_alphas(V.DEFAULT_ALPHAS)
    assert default == tuple(str(a) for a in range(-20, 21))
    assert V.parse_alphas("0:1:0.1") == (
        "0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1",
    )  # fmt: skip
    assert V.parse_alphas("-1:1:0.5") == ("-1", "-0.5", "0", "0.5", "1")
    assert V.parse_alphas("0:1:0.3") == ("0", "0.3", "0.6", "0.9")  # STOP not reached
    assert V.parse_alphas("-1000:1000:0.1")[10000] == "0"
    assert len(V.parse_alphas("-1000:1000:0.1")) == 20001
    assert V.parse_alphas(" -0.5, 0,2.50 ") == ("-0.5", "0", "2.50")  # as written
    assert list(V.alpha_values(("-0.5", "0", "2.50"))) == [-0.5, 0.0, 2.5]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a",
        "1,,2",
        "1,1.0",
        "nan",
        "1,inf",
        "0:1",
        "0:1:0",
        "0:1:-1",
        "1:0:1",
        "0:1e9:1",
        ":1:1",
    ],
)
def test_parse_alphas_rejects(text):
    with pytest.raises(ValueError):
        V.parse_alphas(text)


# ---------------------------------------------------------------------------
# Readers


def _one_line(exc: pytest.ExceptionInfo, *fragments: str) -> None:
    text = str(exc.value)
    assert "\n" not in text
    for fragment in fragments:
        assert fragment in text, text


def test_read_map_with_and_without_users(tmp_path):
    p = tmp_path / "map.txt"
    p.write_bytes(
        b"\xef\xbb\xbf# uqv map\r\n201-1 201 alice\r\n\r\n201-2\t201 bob\r\n202-1 202 alice\r\n"
    )
    vmap = maps.read_variations(str(p))
    assert vmap.topic == {"201-1": "201", "201-2": "201", "202-1": "202"}
    assert vmap.user == {"201-1": "alice", "201-2": "bob", "202-1": "alice"}
    assert vmap.line == {"201-1": 2, "201-2": 4, "202-1": 5}
    assert vio.default_mode(vmap) == "general"
    p.write_text("201-1 201\n201-2 201\n201-1 201\n")  # an identical repeat is fine
    vmap = maps.read_variations(str(p))
    assert vmap.user is None and vmap.topic == {"201-1": "201", "201-2": "201"}
    assert vio.default_mode(vmap) == "intra"
    assert vio.default_mode(None) == "inter"


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("201-1 201 u1\n201-2 201\n", 2, "line 1 has 3"),
        ("201-1 201\n201-2 201 u2\n", 2, "line 1 has 2"),
        ("201-1 201 u1 extra\n", 1, "found 4 fields"),
        ("201-1\n", 1, "found 1 fields"),
        ("201-1 201\n201-1 202\n", 2, "mapped differently on line 1"),
        ("201-1 201 u1\n\n201-1 201 u2\n", 3, "mapped differently on line 1"),
        ("201-1 201\n\xff\n", 2, "not UTF-8"),
    ],
)
def test_read_map_bad_lines(tmp_path, text, line, fragment):
    p = tmp_path / "map.txt"
    p.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as exc:
        maps.read_variations(str(p))
    _one_line(exc, f"{p}:{line}: ", fragment)


def test_read_map_empty_and_absent(tmp_path):
    p = tmp_path / "map.txt"
    p.write_text("# nothing\n\n")
    with pytest.raises(InputError) as exc:
        maps.read_variations(str(p))
    _one_line(exc, str(p), "empty map")
    with pytest.raises(InputError) as exc:
        maps.read_variations(str(tmp_path / "absent"))
    _one_line(exc, "absent", "cannot read")


def test_split_map():
    notes: list[str] = []
    vmap = vio.split_map(["201-4", "201-1", "a-b-3", "2024-1-x", "202", "-3"], "-", notes.append)
    assert vmap.topic == {"201-4": "201", "201-1": "201", "a-b-3": "a-b", "2024-1-x": "2024-1"}
    assert vmap.user is None
    assert notes == ["2 query id(s) hold no '-' with a topic before it; ignored"]
    assert vio.split_map(["q1_2"], "_").topic == {"q1_2": "q1"}
    with pytest.raises(InputError):
        vio.split_map(["201", "202"], "-")


def test_query_ids_of_runs(tmp_path):
    a = tmp_path / "a"
    a.write_text("201-1 Q0 d1 1 2.0 a\n201-1 Q0 d2 2 1.0 a\n201-2 Q0 d1 1 1.0 a\n")
    b = tmp_path / "b"
    b.write_bytes(b"\xef\xbb\xbf202-1 Q0 d1 1 1.0 b\r\n\r\n201-2 Q0 d3 1 1.0 b\r\n")
    ids = maps.query_ids(trecio_sources.expand_sources([str(a), str(b)]))
    assert ids == ["201-1", "201-2", "202-1"]


def test_read_weights_normalised(tmp_path):
    p = tmp_path / "w.txt"
    p.write_bytes(b"\xef\xbb\xbf201 1\r\n# comment\r\n202 3\r\n203 0\r\n999 5\r\n")
    weights = maps.read_weights(str(p))
    notes: list[str] = []
    assert list(weights.vector(["201", "202"], notes.append)) == [0.25, 0.75]
    assert notes == ["2 weighted topic(s) are not analysed; their weights ignored"]
    assert list(weights.vector(["201", "202", "203"])) == [0.25, 0.75, 0.0]
    with pytest.raises(InputError) as exc:
        weights.vector(["201", "204"])
    _one_line(exc, str(p), "'204' has no weight")
    with pytest.raises(InputError) as exc:
        weights.vector(["203"])
    _one_line(exc, "sum to 0")


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("201 1\n202 x\n", 2, "'x' is not a number"),
        ("201 1\n202 -1\n", 2, "must be a finite number >= 0"),
        ("201 inf\n", 1, "must be a finite number >= 0"),
        ("201 1\n202\n", 2, "found 1"),
        ("201 1 2\n", 1, "found 3"),
        ("201 1\n\n201 2\n", 3, "already has a weight on line 1"),
    ],
)
def test_read_weights_bad_lines(tmp_path, text, line, fragment):
    p = tmp_path / "w.txt"
    p.write_text(text)
    with pytest.raises(InputError) as exc:
        maps.read_weights(str(p))
    _one_line(exc, f"{p}:{line}: ", fragment)


def test_expand_qrels_applies_topic_judgments_to_every_variation(tmp_path):
    q = tmp_path / "qrels"
    q.write_text("201 0 d1 1\n201 0 d2 0\n202 0 d1 0\n203 0 d9 2\n")
    qrels = trecio.read_qrels(str(q))
    vmap = maps.VariationMap(
        "map", {"201-1": "201", "201-2": "201", "202-1": "202", "204-1": "204", "204-2": "204"}
    )
    notes: list[str] = []
    expanded = vio.expand_qrels(qrels, vmap, note=notes.append)
    assert expanded.qrels == {"201-1": {"d1": 1, "d2": 0}, "201-2": {"d1": 1, "d2": 0}}
    assert notes == [
        "1 map topic(s) are not in the qrels; their 2 variation(s) dropped",
        "1 topic(s) have no relevant document (rel >= 1); their 1 variation(s) dropped",
        "1 qrels topic(s) have no variation in the map; ignored",
    ]
    # -l 2: topic 201 has no relevant document any more
    with pytest.raises(InputError) as exc:
        vio.expand_qrels(qrels, vmap, rel_level=2)
    _one_line(exc, str(q), "no topic of the map has a relevant document")


def test_build_design_checks_what_each_mode_needs(tmp_path):
    p = tmp_path / "map.txt"
    p.write_text("1-a 1 u1\n1-b 1 u2\n2-a 2 u1\n2-b 2 u2\n3-a 3 u2\n")
    vmap = maps.read_variations(str(p))
    full = ("1-a", "1-b", "2-a", "2-b")
    d = vio.build_design(full, vmap, "general")
    assert d.users == ("u1", "u2") and d.topics == ("1", "2")
    assert list(d.topic_of) == [0, 0, 1, 1] and list(d.slot_of) == [0, 1, 0, 1]
    with pytest.raises(InputError) as exc:  # topic 3 lacks user u1
        vio.build_design((*full, "3-a"), vmap, "general")
    _one_line(exc, "topic '3' has no query from user 'u1'", "--mode intra")
    d = vio.build_design((*full, "3-a"), vmap, "intra")
    assert list(d.slot_of) == [0, 1, 0, 1, 0] and d.n_slots == 2
    with pytest.raises(InputError) as exc:
        vio.build_design(full, vmap, "inter")
    _one_line(exc, "topic '1' has 2 variations")
    assert vio.build_design(("1-a", "2-b", "3-a"), vmap, "inter").topics == ("1", "2", "3")

    p.write_text("1-a 1 u1\n1-b 1 u2\n2-a 2 u1\n2-b 2 u1\n")
    with pytest.raises(InputError) as exc:
        vio.build_design(("1-a", "1-b", "2-a", "2-b"), maps.read_variations(str(p)), "general")
    _one_line(exc, f"{p}:4: ", "user 'u1' has two queries for topic '2'")
    p.write_text("1-a 1\n1-b 1\n")
    with pytest.raises(InputError) as exc:
        vio.build_design(("1-a", "1-b"), maps.read_variations(str(p)), "general")
    _one_line(exc, "needs a user column")
    with pytest.raises(InputError) as exc:
        vio.build_design(("1", "2"), None, "intra")
    _one_line(exc, "needs query variations")


def test_intra_leaves_out_single_variation_topics_and_ignores_weights():
    variations = ("1-a", "1-b", "1-c", "2-a", "3-a", "3-b")
    vmap = maps.VariationMap("m", {v: v.split("-")[0] for v in variations})
    design = vio.build_design(variations, vmap, "intra")
    x = np.array(
        [
            [0.1, 0.5, 0.3, 0.9, 0.0, 0.0],
            [0.3, 0.3, 0.3, 0.0, 0.0, 0.0],
            [0.2, 0.4, 0.6, 0.5, 0.0, 0.0],
        ]
    )
    matrix = ScoreMatrix("AP", ("A", "B", "C"), variations, x)
    alphas = ("-1", "0", "1", "3")
    r = V.analyse(matrix, design, "intra", alphas, weights=np.array([0.4, 0.3, 0.3]))
    assert r.topics == ("1", "3")
    assert r.mu.shape == (3, 2) and r.o.shape == (3, 2, 4)
    assert "1 topic(s) have a single variation (no variance); left out" in " ".join(r.notes)
    assert any("not used in intra mode" in n for n in r.notes)
    assert any("1 topic(s) where every system has the same mean" in n for n in r.notes)
    # topic 1: means 0.3, 0.3, 0.4; variances 0.04, 0, 0.04 (by hand)
    assert r.mu[:, 0] == pytest.approx([0.3, 0.3, 0.4])
    assert r.var[:, 0] == pytest.approx([0.04, 0.0, 0.04])
    # topic 3: every system scores 0, nothing to correlate with; the means are topic 1's
    assert np.isnan(r.topic_tau[1]).all() and np.isnan(r.topic_tau_ap[1]).all()
    assert list(r.tau) == list(r.topic_tau[0]) and list(r.tau_ap) == list(r.topic_tau_ap[0])
    # by hand at α = 1: O = 0.26, 0.3, 0.36 against μ = 0.3, 0.3, 0.4 (A, B tied):
    # pairs (A,C), (B,C) concordant, (A,B) tied only in μ → τ_b = 2 / sqrt(2 · 3)
    assert r.topic_tau[0, 2] == pytest.approx(2 / np.sqrt(6))
    # A and B tie on the mean: they cross at α = 0; C (0.4 − 0.04α) meets B at α = 2.5
    assert [(c.a, c.b, c.alpha, c.topic) for c in r.crossovers] == [
        ("A", "B", 0.0, "1"),
        ("C", "B", pytest.approx(2.5), "1"),
    ]


# ---------------------------------------------------------------------------
# A UQV100-like track from the generator, end to end


@pytest.fixture(scope="module")
def uqv(tmp_path_factory: pytest.TempPathFactory) -> gen_track.Track:
    return gen_track.generate(
        tmp_path_factory.mktemp("uqv"),
        runs=3,
        topics=4,
        variations=5,
        depth=30,
        judged=40,
        seed=7,
        norel_topics=1,
        missing_topics=2,
    )


def test_generator_writes_a_uqv_like_track(uqv, tmp_path):
    lines = uqv.map_path.read_text().splitlines()
    assert lines[:2] == ["401-1 401 u01", "401-2 401 u02"]
    assert len(lines) == 20
    qrels_topics = {line.split()[0] for line in uqv.qrels_path.read_text().splitlines()}
    assert qrels_topics == {"401", "402", "403", "404"}
    for path in uqv.run_paths:
        qids = {line.split()[0] for line in path.read_text().splitlines()}
        skipped = set(uqv.missing.get(path.name, []))
        assert qids == {f"{t}-{v}" for t in uqv.topic_ids for v in range(1, 6)} - skipped
    assert sum(len(s) for s in uqv.missing.values()) == 2
    again = gen_track.generate(
        tmp_path, runs=3, topics=4, variations=5, depth=30, judged=40, seed=7, norel_topics=1
    )
    assert again.map_path.read_bytes() == uqv.map_path.read_bytes()
    assert again.qrels_path.read_bytes() == uqv.qrels_path.read_bytes()
    for a, b in zip(again.run_paths, uqv.run_paths, strict=True):
        assert a.read_bytes() == b.read_bytes()


def test_generator_command_line_variations_and_map_out(tmp_path):
    map_out = tmp_path / "elsewhere" / "uqv.map"
    args = ["--out", str(tmp_path / "t"), "--runs", "2", "--topics", "2", "--depth", "10"]
    args += ["--judged", "20", "--variations", "3", "--map-out", str(map_out), "--quiet"]
    assert gen_track.main(args) == 0
    assert map_out.read_text().splitlines() == [
        "401-1 401 u01",
        "401-2 401 u02",
        "401-3 401 u03",
        "402-1 402 u01",
        "402-2 402 u02",
        "402-3 402 u03",
    ]
    assert not (tmp_path / "t" / "map.txt").exists()
    with pytest.raises(ValueError):
        gen_track.generate(tmp_path / "u", variations=-1)


def _expected_scores(track: gen_track.Track, topic_of: dict[str, str]) -> dict:
    """(run, variation) → AP by ir_measures directly, qrels copied per variation here."""
    by_topic: dict[str, list] = {}
    for q in ir_measures.read_trec_qrels(str(track.qrels_path)):
        by_topic.setdefault(q.query_id, []).append(q)
    relevant = {t for t, qs in by_topic.items() if any(q.relevance > 0 for q in qs)}
    qrels = [
        ir_measures.Qrel(v, q.doc_id, q.relevance)
        for v, t in topic_of.items()
        if t in relevant
        for q in by_topic[t]
    ]
    out = {}
    for path in track.run_paths:
        run = list(ir_measures.read_trec_run(str(path)))
        for metric in ir_measures.iter_calc([ir_measures.AP], qrels, run):
            out[(path.name, metric.query_id)] = metric.value
    return out, relevant


def _evaluate(track, vmap, notes):
    qrels = vio.expand_qrels(trecio.read_qrels(str(track.qrels_path)), vmap, note=notes.append)
    sources = trecio_sources.expand_sources([str(track.runs_dir)])
    (matrix,) = evaluate.evaluate_runs(
        qrels, sources, names.parse_measures(["AP"]), note=notes.append
    )
    return matrix


def _brute_crossovers(names, mu, var, lo, hi):
    out = set()
    for i, j in itertools.permutations(range(len(names)), 2):
        if var[i] > var[j]:
            star = (mu[i] - mu[j]) / (var[i] - var[j])
            if lo <= star <= hi:
                out.add((names[i], names[j], round(star, 9)))
    return out


def test_uqv_general_mode_end_to_end(uqv):
    notes: list[str] = []
    vmap = maps.read_variations(str(uqv.map_path))
    mode = vio.default_mode(vmap)
    assert mode == "general"
    matrix = _evaluate(uqv, vmap, notes)
    assert any("1 topic(s) have no relevant document" in n for n in notes)
    assert any("no ranking for 2 of 15 topics" in n for n in notes)  # the skipped queries
    scores, relevant = _expected_scores(uqv, vmap.topic)
    assert relevant == {"401", "402", "403"}
    design = vio.build_design(matrix.topics, vmap, mode)
    alphas = V.parse_alphas("-50:50:5")
    r = V.analyse(matrix, design, mode, alphas)
    names = [p.name for p in uqv.run_paths]
    assert r.systems == tuple(names)
    users = sorted(set(vmap.user.values()))
    query = {(vmap.topic[v], vmap.user[v]): v for v in vmap.topic}
    topics = sorted(relevant)
    mus, variances = [], []
    for s in names:
        # R_P[k] = Σ_i (1/N) r[k, i] per user; μ and the sample variance over users
        port = [statistics.mean(scores.get((s, query[(t, u)]), 0.0) for t in topics) for u in users]
        mus.append(statistics.mean(port))
        variances.append(statistics.variance(port))
    assert r.mu == pytest.approx(mus, abs=1e-12)
    assert r.var == pytest.approx(variances, abs=1e-12)
    a = V.alpha_values(alphas)
    for k in range(len(alphas)):
        o = [mus[i] - a[k] * variances[i] for i in range(3)]
        assert r.o[:, k] == pytest.approx(o, abs=1e-12)
        assert r.tau[k] == pytest.approx(kendalltau(mus, o).statistic, abs=1e-12)
        assert r.tau_ap[k] == pytest.approx(_yilmaz(mus, o), abs=1e-12)
    got = {(c.a, c.b, round(c.alpha, 9)) for c in r.crossovers}
    assert got == _brute_crossovers(names, mus, variances, -50, 50)

    # weighted: μ = Σ_i w_i mean_k r[k, i]
    w = np.array([0.5, 0.25, 0.25])
    rw = V.analyse(matrix, design, mode, alphas, w)
    for i, s in enumerate(names):
        per_topic = [
            statistics.mean(scores.get((s, f"{t}-{k}"), 0.0) for k in range(1, 6)) for t in topics
        ]
        assert rw.mu[i] == pytest.approx(float(np.dot(w, per_topic)), abs=1e-12)


def test_uqv_intra_mode_end_to_end(uqv, tmp_path):
    plain = tmp_path / "map2.txt"
    plain.write_text(
        "".join(" ".join(line.split()[:2]) + "\n" for line in uqv.map_path.read_text().splitlines())
    )
    vmap = maps.read_variations(str(plain))
    mode = vio.default_mode(vmap)
    assert mode == "intra"
    matrix = _evaluate(uqv, vmap, [])
    scores, relevant = _expected_scores(uqv, vmap.topic)
    design = vio.build_design(matrix.topics, vmap, mode)
    alphas = V.parse_alphas("-10:10:2")
    r = V.analyse(matrix, design, mode, alphas)
    topics = sorted(relevant)
    assert r.topics == tuple(topics)
    names = [p.name for p in uqv.run_paths]
    a = V.alpha_values(alphas)
    taus = np.full((len(topics), len(alphas)), np.nan)
    expected_cross = set()
    for i, t in enumerate(topics):
        cells = [[scores.get((s, f"{t}-{k}"), 0.0) for k in range(1, 6)] for s in names]
        mus = [statistics.mean(c) for c in cells]
        variances = [statistics.variance(c) for c in cells]
        assert r.mu[:, i] == pytest.approx(mus, abs=1e-12)
        assert r.var[:, i] == pytest.approx(variances, abs=1e-12)
        for k in range(len(alphas)):
            o = [mus[j] - a[k] * variances[j] for j in range(3)]
            taus[i, k] = kendalltau(mus, o).statistic
            assert r.topic_tau_ap[i, k] == pytest.approx(_yilmaz(mus, o), abs=1e-12)
        expected_cross |= {(*c, t) for c in _brute_crossovers(names, mus, variances, -10, 10)}
    assert r.topic_tau == pytest.approx(taus, abs=1e-12, nan_ok=True)
    assert r.tau == pytest.approx(np.nanmean(taus, axis=0), abs=1e-12)
    assert r.tau_ap == pytest.approx(r.topic_tau_ap.mean(axis=0), abs=1e-12)
    got = {(c.a, c.b, round(c.alpha, 9), c.topic) for c in r.crossovers}
    assert got == expected_cross
    assert [c.topic for c in r.crossovers] == sorted(c.topic for c in r.crossovers)


def test_uqv_inter_mode_end_to_end(uqv, tmp_path):
    """One query per topic: the map keeps only each topic's first variation."""
    first = tmp_path / "first.txt"
    first.write_text("".join(f"{t}-1 {t}\n" for t in uqv.topic_ids))
    vmap = maps.read_variations(str(first))
    notes: list[str] = []
    matrix = _evaluate(uqv, vmap, notes)
    assert any("in the runs are not in the qrels; ignored" in n for n in notes)  # 401-2 ...
    scores, relevant = _expected_scores(uqv, vmap.topic)
    design = vio.build_design(matrix.topics, vmap, "inter")
    alphas = V.parse_alphas("-20:20:1")
    r = V.analyse(matrix, design, "inter", alphas)
    names = [p.name for p in uqv.run_paths]
    cells = [[scores.get((s, f"{t}-1"), 0.0) for t in sorted(relevant)] for s in names]
    mus = [statistics.mean(c) for c in cells]
    variances = [statistics.variance(c) for c in cells]
    assert r.mu == pytest.approx(mus, abs=1e-12)
    assert r.var == pytest.approx(variances, abs=1e-12)
    zero = r.alphas.index("0")
    assert r.tau[zero] == pytest.approx(1.0) and r.tau_ap[zero] == pytest.approx(1.0)
    got = {(c.a, c.b, round(c.alpha, 9)) for c in r.crossovers}
    assert got == _brute_crossovers(names, mus, variances, -20, 20)
