"""Tests for topic grouping and normalization (docs/numbers.md).

Expected numbers come from hand arithmetic (written in the comments) or from
the slow pure-Python oracle below, which is written independently of
``bvtest_cli.analyses.grouping`` (lists and loops, no numpy moments).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bvtest_cli.analyses.decompose import decompose
from bvtest_cli.analyses.grouping import (
    DEFAULT_SEED,
    analyse,
    difficulty_order,
    grouped_fields,
    minmax_normalize,
    normalized_topics,
    parse_group,
    random_orders,
)
from bvtest_cli.measures.matrix import ScoreMatrix, target_constant, virtual_target

FIELDS = ("mean", "bias2", "var", "mse", "var_rho", "var_target", "cov_target")


# --------------------------------------------------------------------------- oracle


def _pmean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _oracle_fields(rows: list[list[float]], target: list[float], c: float) -> dict:
    """docs/numbers.md by the textbook formulas, one system at a time, in pure Python."""
    out: dict[str, list[float]] = {f: [] for f in FIELDS}
    g = len(target)
    mt = _pmean(target)
    vt = sum((t - mt) ** 2 for t in target) / g
    for row in rows:
        mu = _pmean(row)
        rho = [t - x for t, x in zip(target, row, strict=True)]
        mr = _pmean(rho)
        out["mean"].append(mu)
        out["bias2"].append((mu - c) ** 2)
        out["var"].append(sum((x - mu) ** 2 for x in row) / g)
        out["mse"].append(sum((x - c) ** 2 for x in row) / g)
        out["var_rho"].append(sum((r - mr) ** 2 for r in rho) / g)
        out["var_target"].append(vt)
        out["cov_target"].append(
            sum((x - mu) * (t - mt) for x, t in zip(row, target, strict=True)) / g
        )
    return out


def _oracle_groups(order: list[int], k: int) -> list[list[int]]:
    return [order[s : s + k] for s in range(0, len(order), k)]


def _oracle_grouped(
    values: list[list[float]],
    xt: list[float],
    groups: list[list[int]],
    *,
    ratio: bool,
    c_spec,
    normalized: bool,
) -> dict | None:
    """Group means, optional ratio with zero-target drop, then the fields. None if all dropped."""
    gx = [[_pmean([row[j] for j in grp]) for grp in groups] for row in values]
    gt = [_pmean([xt[j] for j in grp]) for grp in groups]
    if ratio:
        kept = [g for g, t in enumerate(gt) if t != 0]
        if not kept:
            return None
        gx = [[row[g] / gt[g] for g in kept] for row in gx]
        gt = [1.0 for _ in kept]
    if c_spec in ("max", "ideal"):
        c = 1.0 if normalized or c_spec == "ideal" else _pmean(gt)
    else:
        c = float(c_spec)
    res = _oracle_fields(gx, gt, c)
    res["c"] = c
    return res


def _oracle_random(
    values: np.ndarray, k: int, repeats: int, seed: int, *, normalize: str, c_spec
) -> dict:
    """Slow random:K oracle: explicit loop over repeats, per-repeat drops, mean over repeats.

    Permutations follow the documented stream: stable argsort of each row of
    default_rng(seed).random((repeats, n)).
    """
    vals = [list(map(float, row)) for row in values]
    m, n = len(vals), len(vals[0])
    xt = [max(vals[i][j] for i in range(m)) for j in range(n)]
    if normalize == "minmax":
        keep = [j for j in range(n) if max(r[j] for r in vals) != min(r[j] for r in vals)]
        lo = {j: min(r[j] for r in vals) for j in keep}
        hi = {j: max(r[j] for r in vals) for j in keep}
        vals = [[(r[j] - lo[j]) / (hi[j] - lo[j]) for j in keep] for r in vals]
        xt = [1.0] * len(keep)
        n = len(keep)
    keys = np.random.default_rng(seed).random((repeats, n))
    per_repeat = []
    for r in range(repeats):
        order = sorted(range(n), key=lambda j, r=r: (keys[r, j], j))
        res = _oracle_grouped(
            vals,
            xt,
            _oracle_groups(order, k),
            ratio=normalize == "ratio",
            c_spec=c_spec,
            normalized=normalize != "none",
        )
        if res is not None:
            per_repeat.append(res)
    out = {f: [_pmean([p[f][i] for p in per_repeat]) for i in range(m)] for f in FIELDS}
    out["c"] = _pmean([p["c"] for p in per_repeat])
    out["used_repeats"] = len(per_repeat)
    return out


def _assert_fields(bv, expected: dict, tol: float = 1e-12) -> None:
    for f in FIELDS:
        np.testing.assert_allclose(getattr(bv, f), expected[f], rtol=0, atol=tol, err_msg=f)


def _sm(values, topics=None, measure="AP") -> ScoreMatrix:
    values = np.asarray(values, dtype=float)
    m, n = values.shape
    topics = tuple(topics) if topics is not None else tuple(f"t{j}" for j in range(n))
    return ScoreMatrix(measure, tuple(f"s{i}" for i in range(m)), topics, values)


# --------------------------------------------------------------------------- difficulty


# 3 systems × 5 topics. Matrix topic order "9", "10", "3", "4", "5".
DIFF_TOPICS = ("9", "10", "3", "4", "5")
DIFF_VALUES = [
    [0.4, 0.1, 0.2, 0.8, 0.5],
    [0.2, 0.4, 0.0, 0.6, 1.0],
    [0.0, 0.3, 0.1, 0.2, 0.7],
]
# x_T = (0.4, 0.4, 0.2, 0.8, 1.0). Ascending, ties by id as strings ("10" < "9"):
# "3"(0.2), "10"(0.4), "9"(0.4), "4"(0.8), "5"(1.0).  K = 2 → A = {3, 10},
# B = {9, 4}, C = {5} (remainder).  (Numeric or matrix-order tie-breaking would
# give {3, 9}, {10, 4} instead.)
# Group means:  s1: A (0.2+0.1)/2 = 0.15, B (0.4+0.8)/2 = 0.6, C 0.5
#               s2: A (0.0+0.4)/2 = 0.2,  B (0.2+0.6)/2 = 0.4, C 1.0
#               s3: A (0.1+0.3)/2 = 0.2,  B (0.0+0.2)/2 = 0.1, C 0.7
#               T : A (0.2+0.4)/2 = 0.3,  B (0.4+0.8)/2 = 0.6, C 1.0
# c = mean target = 1.9/3.  Means: s1 1.25/3, s2 1.6/3, s3 1.0/3.
# Bias²: s1 (0.65/3)² = 0.4225/9, s2 (0.3/3)² = 0.09/9, s3 (0.9/3)² = 0.81/9.
# Var = E[x²] − mean²:  s1 0.6325/3 − 1.5625/9 = 0.335/9,
#                       s2 1.2/3 − 2.56/9 = 1.04/9,  s3 0.54/3 − 1/9 = 0.62/9.
# Var(T) = 1.45/3 − 3.61/9 = 0.74/9.
# Cov(T, s1) = 0.905/3 − 2.375/9 = 0.34/9;  Cov(T, s2) = 1.3/3 − 3.04/9 = 0.86/9;
# Cov(T, s3) = 0.82/3 − 1.9/9 = 0.56/9.
# ρ1 = (0.15, 0, 0.5): Var = 0.2725/3 − 0.4225/9 = 0.395/9  (= 0.74 + 0.335 − 0.68)/9
# ρ2 = (0.1, 0.2, 0):  Var = 0.05/3 − 0.01 = 0.06/9          (= 0.74 + 1.04 − 1.72)/9
# ρ3 = (0.1, 0.5, 0.3): Var = 0.35/3 − 0.09 = 0.24/9         (= 0.74 + 0.62 − 1.12)/9
DIFF_EXPECTED = {
    "mean": [1.25 / 3, 1.6 / 3, 1.0 / 3],
    "bias2": [0.4225 / 9, 0.09 / 9, 0.81 / 9],
    "var": [0.335 / 9, 1.04 / 9, 0.62 / 9],
    "mse": [(0.4225 + 0.335) / 9, (0.09 + 1.04) / 9, (0.81 + 0.62) / 9],
    "var_rho": [0.395 / 9, 0.06 / 9, 0.24 / 9],
    "var_target": [0.74 / 9] * 3,
    "cov_target": [0.34 / 9, 0.86 / 9, 0.56 / 9],
}


def test_difficulty_order_ties_by_string_id():
    xt = virtual_target(np.array(DIFF_VALUES))
    order = difficulty_order(xt, DIFF_TOPICS)
    assert [DIFF_TOPICS[j] for j in order] == ["3", "10", "9", "4", "5"]


def test_difficulty_grouping_hand_computed():
    a = analyse(_sm(DIFF_VALUES, DIFF_TOPICS), group="difficulty:2", normalize="none", target="max")
    _assert_fields(a.bv, DIFF_EXPECTED)
    assert a.c == pytest.approx(1.9 / 3, abs=1e-15)
    assert a.n_groups == 3
    assert a.n_topics == 5
    assert a.group == "difficulty:2"
    assert a.notes == []


def test_difficulty_ideal_and_explicit_target():
    # Var and Cov do not depend on c; Bias² = (mean − c)².
    for spec, c in (("ideal", 1.0), (0.5, 0.5), ("0.25", 0.25)):
        a = analyse(
            _sm(DIFF_VALUES, DIFF_TOPICS), group="difficulty:2", normalize="none", target=spec
        )
        assert a.c == c
        means = np.array(DIFF_EXPECTED["mean"])
        np.testing.assert_allclose(a.bv.bias2, (means - c) ** 2, atol=1e-12)
        np.testing.assert_allclose(a.bv.var, DIFF_EXPECTED["var"], atol=1e-12)


def test_difficulty_uses_raw_target_with_minmax():
    # 2 systems × 4 topics; minmax makes the target 1 everywhere, but the groups
    # must still follow the raw x_T.  Raw x_T = (0.9, 0.1, 0.5, 0.3) for topics
    # a, b, c, d → order b, d, c, a; K = 2 → {b, d}, {c, a}.
    values = [[0.9, 0.0, 0.5, 0.1], [0.3, 0.1, 0.0, 0.3]]
    # minmax per topic: a (0.9,0.3)→(1,0); b (0,0.1)→(0,1); c (0.5,0)→(1,0); d (0.1,0.3)→(0,1)
    # groups: {b,d}: s1 (0+0)/2 = 0, s2 1;  {c,a}: s1 (1+1)/2 = 1, s2 0.  c = 1.
    # s1: mean 0.5, Bias² 0.25, Var 0.25;  s2: the same.  Target = 1 → Var(T) = Cov = 0.
    a = analyse(_sm(values, "abcd"), group="difficulty:2", normalize="minmax", target="max")
    np.testing.assert_allclose(a.bv.mean, [0.5, 0.5], atol=1e-15)
    np.testing.assert_allclose(a.bv.var, [0.25, 0.25], atol=1e-15)
    # Had the grouping used the normalized target (all 1, ties by id → {a,b}, {c,d})
    # the groups would be s1 (0.5, 0.5): Var 0.  So Var = 0.25 proves the raw order.
    assert a.c == 1.0


# --------------------------------------------------------------------------- minmax


MINMAX_VALUES = [
    [0.2, 0.5, 0.3],
    [0.4, 0.5, 0.1],
    [0.0, 0.5, 0.2],
]
# Topic t1 ties (all 0.5) → dropped.  t0: min 0, max 0.4 → (0.5, 1, 0);
# t2: min 0.1, max 0.3 → (1, 0, 0.5).  Target 1, c = 1.
# s0 (0.5, 1): mean 0.75, Bias² 0.0625, Var 0.0625
# s1 (1, 0):   mean 0.5,  Bias² 0.25,   Var 0.25
# s2 (0, 0.5): mean 0.25, Bias² 0.5625, Var 0.0625
# Var(T) = Cov = 0, so Var(ρ) = Var.


def test_minmax_normalize_values():
    norm, keep = minmax_normalize(np.array(MINMAX_VALUES))
    assert keep.tolist() == [True, False, True]
    np.testing.assert_allclose(norm, [[0.5, 1.0], [1.0, 0.0], [0.0, 0.5]], atol=1e-15)
    assert (virtual_target(norm) == 1.0).all()


def test_minmax_analysis_hand_computed():
    a = analyse(_sm(MINMAX_VALUES), group=None, normalize="minmax", target="max")
    assert a.c == 1.0
    assert a.n_topics == 2
    assert a.n_groups is None
    assert a.notes == ["AP: 1 topic dropped by minmax normalization (max == min)"]
    _assert_fields(
        a.bv,
        {
            "mean": [0.75, 0.5, 0.25],
            "bias2": [0.0625, 0.25, 0.5625],
            "var": [0.0625, 0.25, 0.0625],
            "mse": [0.125, 0.5, 0.625],
            "var_rho": [0.0625, 0.25, 0.0625],
            "var_target": [0.0, 0.0, 0.0],
            "cov_target": [0.0, 0.0, 0.0],
        },
    )
    assert analyse(_sm(MINMAX_VALUES), group=None, normalize="minmax", target="ideal").c == 1.0
    assert analyse(_sm(MINMAX_VALUES), group=None, normalize="minmax", target=0.7).c == 0.7


def test_normalized_topics_minmax():
    mat, notes = normalized_topics(_sm(MINMAX_VALUES), "minmax")
    assert mat.topics == ("t0", "t2")
    assert (mat.target == 1.0).all()
    assert notes == ["AP: 1 topic dropped by minmax normalization (max == min)"]
    same, notes = normalized_topics(_sm(MINMAX_VALUES), "none")
    assert np.array_equal(same.values, np.array(MINMAX_VALUES))
    assert notes == []


def test_minmax_all_topics_tied_is_an_error():
    with pytest.raises(ValueError, match="no topics left"):
        analyse(_sm([[0.3, 0.2], [0.3, 0.2]]), group=None, normalize="minmax", target="max")


# --------------------------------------------------------------------------- ratio


RATIO_VALUES = [
    [0.2, 0.0, 0.3],
    [0.4, 0.0, 0.6],
    [0.2, 0.0, 0.15],
]
# x_T = (0.4, 0, 0.6): t1 has target 0 → dropped.
# s0 (0.2/0.4, 0.3/0.6) = (0.5, 0.5):  mean 0.5,   Bias² 0.25,     Var 0
# s1 (1, 1):                            mean 1,     Bias² 0,        Var 0
# s2 (0.5, 0.25):                       mean 0.375, Bias² 0.390625, Var 0.015625
# c = 1; normalized target (1, 1): Var(T) = Cov = 0.


def test_ratio_per_topic_hand_computed():
    a = analyse(_sm(RATIO_VALUES), group=None, normalize="ratio", target="max")
    assert a.c == 1.0
    assert a.n_topics == 2
    assert a.notes == ["AP: 1 topic dropped by ratio normalization (target 0)"]
    _assert_fields(
        a.bv,
        {
            "mean": [0.5, 1.0, 0.375],
            "bias2": [0.25, 0.0, 0.390625],
            "var": [0.0, 0.0, 0.015625],
            "mse": [0.25, 0.0, 0.40625],
            "var_rho": [0.0, 0.0, 0.015625],
            "var_target": [0.0, 0.0, 0.0],
            "cov_target": [0.0, 0.0, 0.0],
        },
    )
    mat, notes = normalized_topics(_sm(RATIO_VALUES), "ratio")
    assert notes == ["AP: 1 topic dropped by ratio normalization (target 0)"]
    np.testing.assert_allclose(mat.values, [[0.5, 0.5], [1, 1], [0.5, 0.25]], atol=1e-15)
    assert mat.topics == ("t0", "t2")


def test_ratio_after_difficulty_grouping_drops_zero_group():
    # 2 systems × 5 topics, x_T = (0, 0.4, 0, 0.8, 0.6) for ids a..e.
    values = [[0.0, 0.4, 0.0, 0.4, 0.6], [0.0, 0.2, 0.0, 0.8, 0.3]]
    # Order: a(0), c(0), b(0.4), e(0.6), d(0.8); K = 2 → {a,c}, {b,e}, {d}.
    # {a,c}: target 0 → dropped.
    # {b,e}: s0 (0.4+0.6)/2 = 0.5, s1 (0.2+0.3)/2 = 0.25, T (0.4+0.6)/2 = 0.5
    #        → ratio s0 1, s1 0.5
    # {d}:   s0 0.4, s1 0.8, T 0.8 → ratio s0 0.5, s1 1
    # s0 (1, 0.5): mean 0.75, Bias² 0.0625, Var 0.0625; s1 (0.5, 1): the same.
    a = analyse(_sm(values, "abcde"), group="difficulty:2", normalize="ratio", target="max")
    assert a.c == 1.0
    assert a.n_groups == 2
    assert a.n_topics == 3
    assert a.notes == ["AP: 1 of 3 groups dropped by ratio normalization (target 0)"]
    np.testing.assert_allclose(a.bv.mean, [0.75, 0.75], atol=1e-15)
    np.testing.assert_allclose(a.bv.bias2, [0.0625, 0.0625], atol=1e-15)
    np.testing.assert_allclose(a.bv.var, [0.0625, 0.0625], atol=1e-15)
    np.testing.assert_allclose(a.bv.var_target, [0.0, 0.0], atol=1e-15)


def test_ratio_random_with_drops_matches_loop_oracle():
    # Two all-zero topics: a repeat drops a group exactly when both land in it.
    values = np.array(
        [
            [0.0, 0.3, 0.0, 0.5, 0.9, 0.1, 0.4],
            [0.0, 0.6, 0.0, 0.2, 0.3, 0.2, 0.1],
            [0.0, 0.1, 0.0, 0.7, 0.5, 0.0, 0.2],
        ]
    )
    k, repeats, seed = 2, 200, 7
    a = analyse(
        _sm(values),
        group=f"random:{k}",
        normalize="ratio",
        target="max",
        repeats=repeats,
        seed=seed,
    )
    orc = _oracle_random(values, k, repeats, seed, normalize="ratio", c_spec="max")
    _assert_fields(a.bv, orc)
    assert a.c == 1.0
    assert a.n_groups == 4
    # Some repeats dropped a group, some did not (else the test would not test the mask).
    orders = random_orders(7, repeats, seed)
    _, _, keep = grouped_fields(
        values, virtual_target(values), orders, k, normalize="ratio", target_spec="max"
    )
    dropped_per_repeat = (~keep).sum(axis=1)
    assert dropped_per_repeat.min() == 0 and dropped_per_repeat.max() == 1
    assert len(a.notes) == 1 and "ratio normalization dropped" in a.notes[0]


def test_ratio_random_repeat_with_every_group_dropped():
    # Scores-file data may be negative: x_T = (1, −1, 1, −1); a pair {+1, −1}
    # has group target 0, so some repeats lose both groups and are left out.
    values = np.array([[1.0, -1.0, 1.0, -1.0], [0.5, -2.0, 0.0, -3.0]])
    a = analyse(_sm(values), group="random:2", normalize="ratio", target="max", repeats=60, seed=3)
    orc = _oracle_random(values, 2, 60, 3, normalize="ratio", c_spec="max")
    assert 0 < orc["used_repeats"] < 60
    _assert_fields(a.bv, orc)
    assert any("left out of the average" in note for note in a.notes)


def test_masked_decompose_equals_decompose_with_full_mask():
    rng = np.random.default_rng(0)
    x = rng.random((4, 3, 6))
    t = x.max(axis=-2)
    c = t.mean(axis=-1)
    full = decompose(x, t, c, np.ones((4, 6), dtype=bool))
    plain = decompose(x, t, c)
    for f in FIELDS:
        np.testing.assert_allclose(getattr(full, f), getattr(plain, f), atol=1e-14)
    # and both are numpy's own population moments
    np.testing.assert_allclose(full.mean, x.mean(axis=-1), atol=1e-14)
    np.testing.assert_allclose(full.var, x.var(axis=-1), atol=1e-14)
    np.testing.assert_allclose(full.var_rho, (t[:, None, :] - x).var(axis=-1), atol=1e-14)


def test_masked_decompose_equals_numpy_on_kept_samples():
    rng = np.random.default_rng(1)
    x = rng.random((3, 5))
    t = x.max(axis=0)
    keep = np.array([True, False, True, True, False])
    masked = decompose(x, t, 0.7, keep)
    xk, tk = x[:, keep], t[keep]
    np.testing.assert_allclose(masked.mean, xk.mean(axis=1), atol=1e-14)
    np.testing.assert_allclose(masked.var, xk.var(axis=1), atol=1e-14)
    np.testing.assert_allclose(masked.mse, ((xk - 0.7) ** 2).mean(axis=1), atol=1e-14)
    np.testing.assert_allclose(masked.var_target, np.full(3, tk.var()), atol=1e-14)


# --------------------------------------------------------------------------- random


RANDOM_VALUES = np.array(
    [
        [0.31, 0.05, 0.62, 0.44, 0.18, 0.90, 0.27, 0.53, 0.11, 0.70, 0.36],
        [0.12, 0.40, 0.33, 0.81, 0.09, 0.64, 0.22, 0.47, 0.58, 0.19, 0.03],
        [0.50, 0.25, 0.10, 0.35, 0.45, 0.15, 0.60, 0.05, 0.40, 0.30, 0.20],
        [0.00, 0.00, 0.71, 0.10, 0.20, 0.30, 0.85, 0.12, 0.02, 0.66, 0.49],
    ]
)


@pytest.mark.parametrize("path", ["matmul", "gather"])
@pytest.mark.parametrize("normalize", ["none", "minmax", "ratio"])
@pytest.mark.parametrize("c_spec", ["max", "ideal", 0.4])
@pytest.mark.parametrize("k", [1, 3, 4, 11])
def test_random_grouping_matches_loop_oracle(normalize, c_spec, k, path, monkeypatch):
    import bvtest_cli.analyses.grouping as grouping

    # Group means have two implementations (one-hot matmul for few groups,
    # gather + reduceat for many): force each in turn.
    monkeypatch.setattr(grouping, "_MATMUL_MAX_GROUPS", 10**6 if path == "matmul" else 0)
    repeats, seed = 50, 11
    a = analyse(
        _sm(RANDOM_VALUES),
        group=f"random:{k}",
        normalize=normalize,
        target=c_spec,
        repeats=repeats,
        seed=seed,
    )
    orc = _oracle_random(RANDOM_VALUES, k, repeats, seed, normalize=normalize, c_spec=c_spec)
    _assert_fields(a.bv, orc)
    assert a.c == pytest.approx(orc["c"], abs=1e-12)
    assert a.n_groups == math.ceil(11 / k)
    assert a.n_topics == 11


def test_random_virtual_target_has_zero_bias():
    # Append x_T itself as a system: it does not change x_T, and with c = mean_g
    # target[g] per repeat its Bias² is 0 in every repeat, hence on average.
    xt = virtual_target(RANDOM_VALUES)
    values = np.vstack([RANDOM_VALUES, xt])
    a = analyse(_sm(values), group="random:3", normalize="none", target="max", repeats=100)
    assert a.bv.bias2[-1] == pytest.approx(0.0, abs=1e-24)
    assert a.bv.var_rho[-1] == pytest.approx(0.0, abs=1e-24)


def test_random_k1_equals_no_grouping():
    # Groups of one topic are a permutation of the topics: moments are unchanged.
    plain = analyse(_sm(RANDOM_VALUES), group=None, normalize="none", target="max")
    rnd = analyse(_sm(RANDOM_VALUES), group="random:1", normalize="none", target="max", repeats=20)
    for f in FIELDS:
        np.testing.assert_allclose(getattr(rnd.bv, f), getattr(plain.bv, f), atol=1e-12)


def test_grouped_fields_with_injected_orders():
    # The hand-computed difficulty example, injected as explicit orders: the
    # difficulty order and its reverse-within-groups twin give the same groups.
    values = np.array(DIFF_VALUES)
    xt = virtual_target(values)
    orders = np.array([[2, 1, 0, 3, 4], [1, 2, 3, 0, 4]])
    bv, c, keep = grouped_fields(values, xt, orders, 2, normalize="none", target_spec="max")
    assert keep.all()
    np.testing.assert_allclose(c, [1.9 / 3, 1.9 / 3], atol=1e-15)
    for r in range(2):
        for f in FIELDS:
            np.testing.assert_allclose(bv[f][r], DIFF_EXPECTED[f], atol=1e-12)


def test_random_same_seed_identical_other_seed_differs():
    kw = dict(group="random:3", normalize="none", target="max", repeats=100)
    a1 = analyse(_sm(RANDOM_VALUES), seed=5, **kw)
    a2 = analyse(_sm(RANDOM_VALUES), seed=5, **kw)
    a3 = analyse(_sm(RANDOM_VALUES), seed=6, **kw)
    for f in FIELDS:
        assert np.array_equal(getattr(a1.bv, f), getattr(a2.bv, f))
    assert not np.array_equal(a1.bv.var, a3.bv.var)
    assert np.array_equal(random_orders(11, 100, 5), random_orders(11, 100, 5))
    assert not np.array_equal(random_orders(11, 100, 5), random_orders(11, 100, 6))
    # Default seed is a fixed constant.
    d1 = analyse(_sm(RANDOM_VALUES), **kw)
    d2 = analyse(_sm(RANDOM_VALUES), seed=DEFAULT_SEED, **kw)
    assert np.array_equal(d1.bv.bias2, d2.bv.bias2)


def test_random_orders_are_permutations():
    orders = random_orders(9, 30, 1)
    assert orders.shape == (30, 9)
    assert (np.sort(orders, axis=1) == np.arange(9)).all()


def test_block_size_does_not_change_result(monkeypatch):
    import bvtest_cli.analyses.grouping as grouping

    kw = dict(group="random:4", normalize="none", target="max", repeats=37, seed=2)
    whole = analyse(_sm(RANDOM_VALUES), **kw)
    # m = 4, n = 11, K = 4 → G = 3; the block bound is max(m·G, n·G) = 33 per repeat.
    monkeypatch.setattr(grouping, "_BLOCK_ELEMENTS", 33 * 5)  # 5 repeats per block
    blocked = analyse(_sm(RANDOM_VALUES), **kw)
    for f in FIELDS:
        np.testing.assert_allclose(getattr(blocked.bv, f), getattr(whole.bv, f), atol=1e-15)


# --------------------------------------------------------------------------- exactness, identities


@pytest.mark.parametrize("spec", ["max", "ideal", 0.3])
def test_no_grouping_no_normalization_is_exactly_decompose(spec):
    values = RANDOM_VALUES
    a = analyse(_sm(values), group=None, normalize="none", target=spec)
    xt = virtual_target(values)
    ref = decompose(values, xt, target_constant(xt, spec))
    for f in FIELDS:
        assert np.array_equal(getattr(a.bv, f), getattr(ref, f))
    assert a.c == float(target_constant(xt, spec))


@settings(max_examples=60, deadline=None)
@given(
    values=arrays(
        np.float64,
        st.tuples(st.integers(1, 5), st.integers(1, 12)),
        elements=st.floats(0, 1, allow_nan=False, width=32),
    ),
    kind=st.sampled_from(["difficulty", "random", None]),
    k=st.integers(1, 6),
    normalize=st.sampled_from(["none", "minmax", "ratio"]),
    spec=st.sampled_from(["max", "ideal", 0.5]),
)
def test_identities_after_grouping(values, kind, k, normalize, spec):
    m = _sm(values)
    group = None if kind is None else f"{kind}:{k}"
    try:
        a = analyse(m, group=group, normalize=normalize, target=spec, repeats=20, seed=1)
    except ValueError as exc:  # every topic / sample dropped
        assert "left" in str(exc)
        return
    bv = a.bv
    np.testing.assert_allclose(bv.mse, bv.bias2 + bv.var, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        bv.var_rho, bv.var_target + bv.var - 2 * bv.cov_target, rtol=0, atol=1e-12
    )
    if normalize != "none" and spec == "max":
        assert a.c == 1.0


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "text", ["random:0", "random:x", "foo:3", "random", "random:-1", "random:2.5", "difficulty:"]
)
def test_parse_group_rejects(text):
    with pytest.raises(ValueError) as info:
        parse_group(text)
    assert "\n" not in str(info.value) and text in str(info.value)


def test_parse_group_accepts():
    assert parse_group(None) is None
    assert parse_group("none") is None
    assert parse_group("difficulty:5") == ("difficulty", 5)
    assert parse_group("random:10") == ("random", 10)
