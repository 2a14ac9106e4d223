"""Tests for bvtest_cli.analyses.risk (docs/numbers.md).

Oracles: seed 004 (Dinçer, Macdonald & Ounis, SIGIR 2016) Tables 3–6, and hand
computations written out in the comments. No asserted number was produced by
running the code under test.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from bvtest_cli.analyses.risk import (
    georisk,
    georisk_from,
    has_negative,
    trisk,
    trisk_mean,
    urisk,
    zrisk,
    zrisk_pair,
    zscores,
)

# --------------------------------------------------------------------------
# Seed 004 Table 3: example data matrix X, 8 systems × 5 topics.
# --------------------------------------------------------------------------
TABLE3 = np.array(
    [
        [0.0500, 0.1500, 0.3000, 0.4500, 0.5500],  # s1
        [0.4000, 0.3500, 0.3000, 0.2500, 0.2000],  # s2
        [0.3000, 0.3000, 0.3000, 0.3000, 0.3000],  # s3
        [0.2500, 0.2500, 0.2500, 0.2500, 0.2500],  # s4
        [0.4000, 0.1500, 0.4000, 0.1500, 0.4000],  # s5
        [0.2000, 0.4500, 0.2000, 0.4500, 0.2000],  # s6
        [0.2542, 0.2629, 0.2802, 0.2975, 0.3061],  # s7
        [0.2918, 0.2994, 0.3147, 0.3301, 0.3378],  # s8
    ]
)
# The table's own margins, as printed.
TABLE3_S = np.array([1.5000, 1.5000, 1.5000, 1.2500, 1.5000, 1.5000, 1.4009, 1.5738])
TABLE3_MEAN = np.array([0.3000, 0.3000, 0.3000, 0.2500, 0.3000, 0.3000, 0.2802, 0.3148])
TABLE3_T = np.array([2.1460, 2.2123, 2.3449, 2.4776, 2.5440])
TABLE3_N = 11.7248
TABLE3_TOPIC_MEAN = np.array([0.2683, 0.2765, 0.2931, 0.3097, 0.3180])

ALPHAS = [0, 1, 5, 10]

# Seed 004 Table 5: ZRisk and GeoRisk at alpha = 0, 1, 5, 10 (3 decimals).
TABLE5_ZRISK = np.array(
    [
        [-0.049, -0.727, -3.442, -6.835],
        [0.026, -0.312, -1.668, -3.362],
        [0.006, -0.069, -0.368, -0.742],
        [0.005, -0.063, -0.336, -0.677],
        [0.006, -0.541, -2.727, -5.460],
        [0.005, -0.539, -2.718, -5.442],
        [-0.001, -0.008, -0.036, -0.072],
        [0.001, -0.010, -0.052, -0.106],
    ]
)
TABLE5_GEO = np.array(
    [
        [0.386, 0.364, 0.271, 0.160],
        [0.388, 0.378, 0.333, 0.274],
        [0.387, 0.385, 0.376, 0.364],
        [0.354, 0.352, 0.344, 0.334],
        [0.387, 0.370, 0.296, 0.203],
        [0.387, 0.370, 0.297, 0.204],
        [0.374, 0.374, 0.373, 0.372],
        [0.397, 0.396, 0.395, 0.393],
    ]
)
TABLE5_MEAN = np.array([0.300, 0.300, 0.300, 0.250, 0.300, 0.300, 0.280, 0.315])

# Seed 004 Table 4 (alpha = 0): per-topic z and ZRisk, 4 decimals.
# Row i-1 of *_VS_S1 is "s_i vs. s1"; of S1_VS_* is "s1 vs. s_i", i = 2..8.
TABLE4_VS_S1 = np.array(
    [
        [0.3689, 0.2000, 0.0000, -0.1690, -0.2858],
        [0.2988, 0.1581, 0.0000, -0.1225, -0.1917],
        [0.3077, 0.1599, 0.0000, -0.1209, -0.1884],
        [0.3689, 0.0000, 0.0845, -0.2739, -0.1088],
        [0.2121, 0.2739, -0.1000, 0.0000, -0.2858],
        [0.2799, 0.1422, 0.0000, -0.1057, -0.1669],
        [0.2792, 0.1445, -0.0001, -0.1097, -0.1732],
    ]
)
TABLE4_ZRISK_VS_S1 = np.array([0.1141, 0.1427, 0.1583, 0.0708, 0.1002, 0.1496, 0.1408])
TABLE4_S1_VS = np.array(
    [
        [-0.3689, -0.2000, 0.0000, 0.1690, 0.2858],
        [-0.2988, -0.1581, 0.0000, 0.1225, 0.1917],
        [-0.2809, -0.1460, 0.0000, 0.1103, 0.1720],
        [-0.3689, 0.0000, -0.0845, 0.2739, 0.1088],
        [-0.2121, -0.2739, 0.1000, 0.0000, 0.2858],
        [-0.2705, -0.1374, 0.0000, 0.1021, 0.1613],
        [-0.2860, -0.1480, 0.0001, 0.1123, 0.1774],
    ]
)
TABLE4_ZRISK_S1_VS = np.array([-0.1141, -0.1427, -0.1445, -0.0708, -0.1002, -0.1446, -0.1442])

# Half a unit in the last printed place (+ float slack): "reproduces to k decimals".
HALF_3DP = 0.0005 + 1e-12
HALF_4DP = 0.00005 + 1e-12


def test_table3_transcription_matches_printed_margins() -> None:
    """Guard the transcription of Table 3 against its own printed sums and means.

    s1..s6 are exact; s7 and s8 are printed rounded to 4 decimals, so a sum of
    k rounded cells may differ from the printed (rounded) total by up to
    k·0.00005 + 0.00005. This matters: T_5 is printed 2.5440 while the printed
    column sums to 2.5439, and N is printed 11.7248 vs 11.7247 from the cells —
    consistent with the authors' s7/s8 having more digits than shown, not a
    transcription error (every other margin matches exactly).
    """
    np.testing.assert_allclose(TABLE3.sum(axis=1), TABLE3_S, rtol=0, atol=5 * 5e-5 + 5e-5)
    np.testing.assert_allclose(TABLE3.mean(axis=1), TABLE3_MEAN, rtol=0, atol=5e-5 + 1e-12)
    np.testing.assert_allclose(TABLE3.sum(axis=0), TABLE3_T, rtol=0, atol=2 * 5e-5 + 5e-5)
    np.testing.assert_allclose(TABLE3.sum(), TABLE3_N, rtol=0, atol=10 * 5e-5 + 5e-5)
    np.testing.assert_allclose(
        TABLE3.mean(axis=0), TABLE3_TOPIC_MEAN, rtol=0, atol=(2 * 5e-5) / 8 + 5e-5
    )
    np.testing.assert_allclose(TABLE3.mean(axis=1), TABLE5_MEAN, rtol=0, atol=HALF_3DP)


def test_table5_zrisk_multiple_baselines() -> None:
    """Seed 004 Table 5, ZRisk columns: all 32 cells to 3 decimals."""
    got = zrisk(TABLE3, ALPHAS)
    assert got.shape == (8, 4)
    np.testing.assert_allclose(got, TABLE5_ZRISK, rtol=0, atol=HALF_3DP)


def test_table5_georisk() -> None:
    """Seed 004 Table 5, GeoRisk columns: all 32 cells to 3 decimals."""
    got = georisk(TABLE3, ALPHAS)
    assert got.shape == (8, 4)
    np.testing.assert_allclose(got, TABLE5_GEO, rtol=0, atol=HALF_3DP)


def test_table4_single_baseline_zrisk() -> None:
    """Seed 004 Table 4: ZRisk of s2..s8 against the single baseline s1, alpha = 0."""
    got = zrisk_pair(TABLE3[1:], TABLE3[0], [0])
    assert got.shape == (7, 1)
    np.testing.assert_allclose(got[:, 0], TABLE4_ZRISK_VS_S1, rtol=0, atol=HALF_4DP)


def test_table4_swapped_baseline_and_per_topic_z() -> None:
    """Seed 004 Table 4, the "s1 vs. s_i" rows and every per-topic z (4 decimals).

    The swapped rows also exercise leading axes: x has shape (7, 1, 5) — seven
    one-system matrices — and the reference (7, 5) pairs each with its own s_i.
    """
    s1_stack = np.broadcast_to(TABLE3[0], (7, 1, 5))
    got = zrisk_pair(s1_stack, TABLE3[1:], [0])
    assert got.shape == (7, 1, 1)
    np.testing.assert_allclose(got[:, 0, 0], TABLE4_ZRISK_S1_VS, rtol=0, atol=HALF_4DP)

    pairs = np.stack([TABLE3[1:], np.broadcast_to(TABLE3[0], (7, 5))], axis=-2)  # (7, 2, 5)
    z = zscores(pairs)
    np.testing.assert_allclose(z[:, 0, :], TABLE4_VS_S1, rtol=0, atol=HALF_4DP)
    np.testing.assert_allclose(z[:, 1, :], TABLE4_S1_VS, rtol=0, atol=HALF_4DP)


# --------------------------------------------------------------------------
# Seed 004 Table 6 (TREC 2012 Web, ERR@20, c = 50 topics, 49 runs).
# Columns: ERR, URisk(a=0), ZRisk(a=0), Geo(a=0), ZRisk(a=5), Geo(a=5).
# URisk/TRisk baseline is indriCASP (URisk printed "*").
#
# Paper typo: ICTNET12ADR2's ZRisk(a=0) is printed −0.233 but must be +0.233.
# (1) Its printed rank R is 3, between irra12c (0.265, R=2) and QUTparaBline
#     (0.004, R=4); −0.233 would rank 6th (see test_table6_zrisk_ranks).
# (2) Its printed GeoRisk 0.3284 = sqrt(0.2149 · Φ(+0.233/50)) = sqrt(0.2149 ·
#     0.50186); with −0.233 the identity gives 0.3272, outside rounding.
# So the cell below carries +0.233; every other cell is as printed.
# --------------------------------------------------------------------------
TABLE6 = {
    "uogTrA44xu": (0.3406, 0.146, 0.962, 0.4158, -29.255, 0.308),
    "srchvrs12c00": (0.3067, 0.112, -0.912, 0.3887, -37.069, 0.265),
    "DFalah121A": (0.2920, 0.097, -0.328, 0.3811, -32.635, 0.274),
    "QUTparaBline": (0.2901, 0.095, 0.004, 0.3809, -30.966, 0.279),
    "utw2012c1": (0.2203, 0.026, -0.172, 0.3314, -29.807, 0.246),
    "ICTNET12ADR2": (0.2149, 0.020, 0.233, 0.3284, -32.887, 0.234),
    "indriCASP": (0.1947, None, -0.339, 0.3111, -38.619, 0.207),
    "autoSTA": (0.1735, -0.021, -0.143, 0.2942, -38.215, 0.196),
    "irra12c": (0.1723, -0.022, 0.265, 0.2942, -30.410, 0.216),
}
TABLE6_C = 50
# The "R" column next to ZRisk(a=0), as printed.
TABLE6_ZRISK_RANK = {
    "uogTrA44xu": 1,
    "srchvrs12c00": 9,
    "DFalah121A": 7,
    "QUTparaBline": 4,
    "utw2012c1": 6,
    "ICTNET12ADR2": 3,
    "indriCASP": 8,
    "autoSTA": 5,
    "irra12c": 2,
}


def test_table6_zrisk_ranks() -> None:
    """The transcribed ZRisk(a=0) column (with the sign fix above) ranks as printed."""
    runs = list(TABLE6)
    z = np.array([TABLE6[r][2] for r in runs])
    ranks = np.empty(len(runs), dtype=int)
    ranks[np.argsort(-z)] = np.arange(1, len(runs) + 1)
    assert dict(zip(runs, ranks.tolist(), strict=True)) == TABLE6_ZRISK_RANK


def _geo_interval(err: float, z: float, err_half: float, z_half: float) -> tuple[float, float]:
    """Range of georisk_from over the rounding intervals of the printed ERR and ZRisk.

    GeoRisk is increasing in both the mean and ZRisk, so the extremes sit at the
    interval corners.
    """
    lo = georisk_from(np.array([err - err_half]), np.array([[z - z_half]]), TABLE6_C)
    hi = georisk_from(np.array([err + err_half]), np.array([[z + z_half]]), TABLE6_C)
    return float(lo[0, 0]), float(hi[0, 0])


@pytest.mark.parametrize("run", list(TABLE6))
def test_table6_georisk_identity(run: str) -> None:
    """GeoRisk = sqrt(ERR · Φ(ZRisk/50)) for every Table 6 row, at alpha 0 and 5.

    The printed ERR has 4 decimals and ZRisk 3, so the identity is checked as:
    the printed GeoRisk lies within half a printed unit of the range spanned by
    the inputs' rounding intervals. (E.g. irra12c: sqrt(0.1723·Φ(0.0053)) =
    0.29413, printed 0.2942 — reachable only because ERR may be up to 0.17235.)
    """
    err, _, z0, geo0, z5, geo5 = TABLE6[run]
    lo, hi = _geo_interval(err, z0, 5e-5, 5e-4)
    assert lo - 5e-5 - 1e-12 <= geo0 <= hi + 5e-5 + 1e-12
    lo, hi = _geo_interval(err, z5, 5e-5, 5e-4)
    assert lo - 5e-4 - 1e-12 <= geo5 <= hi + 5e-4 + 1e-12


def test_table6_urisk_alpha0_is_mean_difference() -> None:
    """URisk(alpha=0) = ERR − ERR(indriCASP) for the 8 runs of Table 6.

    Only the means are published, so each run gets arbitrary per-topic scores
    with that mean (a zero-mean perturbation over 50 topics): at alpha = 0 the
    per-topic shape must not matter. Tolerance: two ERRs rounded to 4 decimals
    (2 · 0.00005) plus the printed URisk rounded to 3 (0.0005).
    """
    rng = np.random.default_rng(4)
    runs = [r for r in TABLE6 if r != "indriCASP"]
    err = np.array([TABLE6[r][0] for r in runs])
    printed = np.array([TABLE6[r][1] for r in runs])

    def with_mean(means: np.ndarray) -> np.ndarray:
        noise = rng.uniform(-0.15, 0.15, size=(means.size, TABLE6_C))
        return means[:, np.newaxis] + noise - noise.mean(axis=1, keepdims=True)

    x = with_mean(err)
    baseline = with_mean(np.array([TABLE6["indriCASP"][0]]))[0]
    got = urisk(x, baseline, [0])[:, 0]
    np.testing.assert_allclose(got, printed, rtol=0, atol=2 * 5e-5 + 5e-4 + 1e-12)


# --------------------------------------------------------------------------
# URisk / TRisk by hand.
# --------------------------------------------------------------------------
# x = (0.5, 0.2, 0.4), b = (0.3, 0.3, 0.2)  →  δ = (0.2, −0.1, 0.2), n = 3.
#   URisk = [0.4 + (1+α)(−0.1)] / 3:  α=0: 0.1;  α=1: 0.2/3;  α=5: −0.2/3.
#   TRisk, d = (0.2, −(1+α)0.1, 0.2), SE = s_d/√3 with s_d² = Σ(d−d̄)²/2:
#   α=0: d̄ = 0.1,    dev = (0.1, −0.2, 0.1),   SS = 0.06,  s² = 0.03,
#        SE = √(0.03/3) = 0.1,          TRisk = 0.1/0.1 = 1.0
#   α=1: d = (0.2, −0.2, 0.2), d̄ = 0.2/3, dev = (0.4, −0.8, 0.4)/3,
#        SS = 0.96/9, s² = 0.48/9, SE = √(0.16/9) = 0.4/3, TRisk = 0.5
#   α=5: d = (0.2, −0.6, 0.2), d̄ = −0.2/3, dev = (0.8, −1.6, 0.8)/3,
#        SS = 3.84/9, s² = 1.92/9, SE = √(0.64/9) = 0.8/3, TRisk = −0.25
#   With the population (n) deviation instead, α=0 would give
#   SE = √(0.02/3) = 0.08165 and TRisk = 1.2247.
HAND_X = np.array([[0.5, 0.2, 0.4]])
HAND_B = np.array([0.3, 0.3, 0.2])


def test_urisk_by_hand() -> None:
    got = urisk(HAND_X, HAND_B, [0, 1, 5])
    assert got.shape == (1, 3)
    np.testing.assert_allclose(got[0], [0.1, 0.2 / 3, -0.2 / 3], rtol=1e-12, atol=1e-15)


def test_trisk_by_hand() -> None:
    got = trisk(HAND_X, HAND_B, [0, 1, 5])
    assert got.shape == (1, 3)
    np.testing.assert_allclose(got[0], [1.0, 0.5, -0.25], rtol=1e-10)


def test_trisk_standard_error_uses_n_minus_1() -> None:
    """s_d is the sample deviation: with 1/n the hand example would give √1.5 ≈ 1.2247."""
    got = trisk(HAND_X, HAND_B, [0])[0, 0]
    assert got == pytest.approx(1.0, rel=1e-10)
    assert got != pytest.approx(math.sqrt(1.5), rel=1e-3)


def test_trisk_mean_by_hand() -> None:
    """TRisk* with two systems whose per-topic mean is exactly the hand baseline.

    x1 = (0.5, 0.2, 0.4), x2 = (0.1, 0.4, 0.0): mean = (0.3, 0.3, 0.2) = b above,
    so row 1 repeats the hand TRisk. Row 2: δ = (−0.2, 0.1, −0.2).
      α=0: d = δ, d̄ = −0.1, dev = (−0.1, 0.2, −0.1), SE = 0.1 → −1.0
      α=1: d = (−0.4, 0.1, −0.4), d̄ = −0.7/3, dev = (−0.5, 1.0, −0.5)/3,
           SS = 1.5/9, s² = 0.75/9, SE = √(0.25/9) = 0.5/3 → −1.4
    """
    x = np.array([[0.5, 0.2, 0.4], [0.1, 0.4, 0.0]])
    got = trisk_mean(x, [0, 1])
    np.testing.assert_allclose(got, [[1.0, 0.5], [-1.0, -1.4]], rtol=1e-10)


def test_trisk_against_itself_is_zero() -> None:
    x = TABLE3
    got = trisk(x, x[2], ALPHAS)
    np.testing.assert_array_equal(got[2], np.zeros(4))
    # A run against itself through the broadcast path of every row at once.
    for i in range(x.shape[0]):
        assert np.all(trisk(x[i : i + 1], x[i], ALPHAS) == 0.0)


def test_trisk_zero_standard_error_with_nonzero_delta_is_nan() -> None:
    """δ = (0.2, 0.2, 0.2): every d_j equal, SE = 0 while URisk = 0.2 → undefined
    (docs/numbers.md)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = trisk(np.array([[0.5, 0.5, 0.5]]), np.array([0.3, 0.3, 0.3]), ALPHAS)
        assert np.all(np.isnan(got))
        # One topic: no sample deviation; 0 only if the run equals the baseline.
        assert np.isnan(trisk(np.array([[0.4]]), np.array([0.2]), [0])[0, 0])
        assert trisk(np.array([[0.4]]), np.array([0.4]), [0])[0, 0] == 0.0


# --------------------------------------------------------------------------
# Zero expectations: a topic every run fails, a run that fails everywhere.
# --------------------------------------------------------------------------
# x = [[0.5, 0, 0.2], [0.3, 0, 0.6], [0, 0, 0]]
#   S = (0.7, 0.9, 0), T = (0.8, 0, 0.8), N = 1.6.
#   e_11 = e_13 = 0.7·0.8/1.6 = 0.35; e_21 = e_23 = 0.9·0.8/1.6 = 0.45;
#   column 2 and row 3 have e = 0 → z = 0.
#   z_11 = 0.15/√0.35, z_13 = −0.15/√0.35, z_21 = −0.15/√0.45, z_23 = 0.15/√0.45.
#   ZRisk(α) row 1 = −α·0.15/√0.35, row 2 = −α·0.15/√0.45, row 3 = 0.
#   GeoRisk(α=0) = √(S_i/3 · Φ(0)) = √(S_i/6).
ZERO_X = np.array([[0.5, 0.0, 0.2], [0.3, 0.0, 0.6], [0.0, 0.0, 0.0]])


def test_zero_expectation_cells_are_zero_without_warnings() -> None:
    a1 = 0.15 / math.sqrt(0.35)
    a2 = 0.15 / math.sqrt(0.45)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = zscores(ZERO_X)
        zr = zrisk(ZERO_X, ALPHAS)
        geo = georisk(ZERO_X, ALPHAS)
        pair = zrisk_pair(ZERO_X, ZERO_X[2], ALPHAS)
    np.testing.assert_allclose(z, [[a1, 0, -a1], [-a2, 0, a2], [0, 0, 0]], rtol=1e-12, atol=1e-15)
    alphas = np.array(ALPHAS, dtype=float)
    expected = np.array([-alphas * a1, -alphas * a2, np.zeros(4)])
    np.testing.assert_allclose(zr, expected, rtol=1e-12, atol=1e-15)
    assert np.all(np.isfinite(geo))
    np.testing.assert_allclose(geo[:, 0], np.sqrt([0.7 / 6, 0.9 / 6, 0.0]), rtol=1e-12)
    # Against an all-zero reference every non-zero cell of x_i sits exactly on
    # its expectation (e = x since S_ref = 0), and the zero rows have N = 0.
    np.testing.assert_allclose(pair, np.zeros((3, 4)), rtol=0, atol=1e-12)


def test_all_zero_matrix() -> None:
    x = np.zeros((4, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(zrisk(x, ALPHAS), np.zeros((4, 4)))
        np.testing.assert_array_equal(georisk(x, ALPHAS), np.zeros((4, 4)))
        np.testing.assert_array_equal(zrisk_pair(x, x[0], ALPHAS), np.zeros((4, 4)))


# --------------------------------------------------------------------------
# Shapes, validation, helpers.
# --------------------------------------------------------------------------
def test_single_system_has_zero_zrisk() -> None:
    """r = 1: e_ij = x_ij, so G² = 0 and every z is 0 (seed 004 §3.1)."""
    np.testing.assert_allclose(zrisk(TABLE3[:1], ALPHAS), np.zeros((1, 4)), atol=1e-15)


def test_leading_axes_match_per_slice() -> None:
    stack = np.stack([TABLE3, TABLE3[::-1, ::-1]])
    for fn in (zrisk, georisk, trisk_mean):
        whole = fn(stack, ALPHAS)
        assert whole.shape == (2, 8, 4)
        for k in range(2):
            np.testing.assert_allclose(whole[k], fn(stack[k], ALPHAS), rtol=1e-14)


def test_negative_alpha_and_empty_topics_rejected() -> None:
    with pytest.raises(ValueError):
        zrisk(TABLE3, [-1.0])
    with pytest.raises(ValueError):
        urisk(np.zeros((2, 0)), np.zeros(0), [0])


def test_has_negative() -> None:
    assert not has_negative(TABLE3)
    assert has_negative(np.array([[0.1, -0.2]]))


# --------------------------------------------------------------------------
# The kernels without (..., m, 2, n) or (..., m, k, n) stacks (: they
# run once per bootstrap resample) against the formulas written out directly.
# --------------------------------------------------------------------------
def _direct_zrisk_pair(x, ref, alphas):
    """ZRisk of row 0 of each two-row matrix [x_i; ref] by zscores (seed 004 §4.1)."""
    pairs = np.stack([x, np.broadcast_to(ref[..., np.newaxis, :], x.shape)], axis=-2)
    z = zscores(pairs)[..., 0, :]
    wins = np.where(z > 0, z, 0).sum(-1)[..., np.newaxis]
    losses = np.where(z < 0, z, 0).sum(-1)[..., np.newaxis]
    return wins + (1 + np.asarray(alphas, float)) * losses


def _direct_trisk(x, ref, alphas):
    """Seed 004 eq. 2 with d_j = δ_j or (1+α) δ_j built out, sample deviation."""
    delta = x - ref[..., np.newaxis, :]
    a = np.asarray(alphas, float)[:, np.newaxis]
    d = np.where(
        delta[..., np.newaxis, :] < 0,
        (1 + a) * delta[..., np.newaxis, :],
        delta[..., np.newaxis, :],
    )
    n = x.shape[-1]
    return d.mean(-1) / (d.std(-1, ddof=1) / math.sqrt(n))


def _scores(m, n, seed):
    rng = np.random.default_rng(seed)
    x = np.clip(rng.beta(2, 3, (m, n)) + rng.normal(0, 0.1, (m, 1)), 0, 1)
    x[rng.random((m, n)) < 0.1] = 0.0
    return x


def test_fused_kernels_equal_the_direct_formulas() -> None:
    x = np.stack([_scores(7, 30, 5), _scores(7, 30, 6), _scores(7, 30, 7)])
    x[1, :, ::3] = 0.0
    for ref in (x.max(axis=-2), x[:, 0], x.mean(axis=-2)):
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(
                zrisk_pair(x, ref, ALPHAS), _direct_zrisk_pair(x, ref, ALPHAS)
            )
            want = _direct_trisk(x, ref, ALPHAS)
        got = trisk(x, ref, ALPHAS)
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-13, atol=1e-13)
        delta = x - ref[..., np.newaxis, :]
        for j, a in enumerate(ALPHAS):
            d = np.where(delta < 0, (1 + a) * delta, delta)
            np.testing.assert_allclose(urisk(x, ref, ALPHAS)[..., j], d.mean(-1), atol=1e-15)
    # Exactly 0 for a run paired with itself, undefined for a constant δ.
    y = np.round(_scores(6, 20, 8) * 64) / 64  # dyadic: the differences below are exact
    y[4] = y[0]
    y[5] = y[0] + 0.125
    assert np.all(trisk(y, y[0], ALPHAS)[[0, 4]] == 0.0)
    assert np.all(np.isnan(trisk(y, y[0], ALPHAS)[5]))
    assert np.all(zrisk_pair(y, y[0], ALPHAS)[[0, 4]] == 0.0)
