"""compare's numbers on degenerate and tiny inputs, each against an independent
computation: the p-value as the estimate it is, effect sizes of zero spread,
intervals within what a measure can be, the bootstrap test on 2–3 topics
(bvtest_cli/analyses/paired.py, significance.py)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest
from scipy import stats

from bvtest_cli.analyses.significance import bootstrap_test


def scores_file(tmp_path: Path, matrix: dict[str, list[float]], measure: str = "AP") -> str:
    path = tmp_path / "scores.tsv"
    lines = [
        f"{run}\t{j + 1}\t{measure}\t{float(v)!r}"
        for run, row in matrix.items()
        for j, v in enumerate(row)
    ]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def compare_json(*args: object) -> tuple[dict, str]:
    proc = run_bvtest("compare", "-f", "json", *args)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout), proc.stderr


def mean_row(doc: dict, measure: str = "AP") -> dict:
    return next(r for r in doc["measures"][measure]["pairs"] if r["field"] == "mean")


# ---------------------------------------------------------------- the p-value is an estimate


def test_a_named_pairs_numbers_depend_on_that_pair_alone():
    # p and effect_size of sys001 vs sys003 with two runs, three runs, all twelve, and
    # another --significance: the same numbers (before: V_E of every run read, p a bound)
    base = ("-m", "AP", "--pair", "sys001", "sys003", "--fields", "mean")
    runs = Path(SAMPLE_RUNS)
    seen = []
    for inputs, extra in (
        ([runs / "sys001", runs / "sys003"], ()),
        ([runs / "sys001", runs / "sys003", runs / "sys007"], ()),
        ([runs], ()),
        ([runs], ("--significance", "0.01")),
    ):
        doc, _ = compare_json(*base, *extra, SAMPLE_QRELS, *inputs)
        row = mean_row(doc)
        seen.append((row["p"], row["effect_size"]))
        assert row["p_lo"] <= row["p"] <= row["p_hi"]
    # the same pair, the same correction and level: the same p, whatever else was read
    assert len(set(seen[:3])) == 1, seen
    # another level narrows the interval that settles the decision near that level,
    # and p is moved into it where its own 1000 draws fall outside: within their
    # Monte-Carlo error, towards the exact p
    p = seen[0][0]
    assert seen[3][1] == seen[0][1]
    assert abs(seen[3][0] - p) <= 4 * math.sqrt(p * (1 - p) / 1000) + 1 / 1001


def test_effect_size_of_a_named_pair_is_the_two_run_anova(tmp_path):
    # two runs × n topics: V_E = s²(d)/2, so d/√V_E = √2 · mean(d)/sd(d) (by hand)
    rng = np.random.default_rng(5)
    a, b, c = (rng.uniform(0, 1, 12) for _ in range(3))
    path = scores_file(tmp_path, {"a": a, "b": b, "c": c})
    doc, _ = compare_json("--scores", path, "--pair", "a", "b", "--fields", "mean")
    d = a - b
    assert mean_row(doc)["effect_size"] == pytest.approx(
        math.sqrt(2) * d.mean() / d.std(ddof=1), rel=1e-12
    )


def test_p_is_near_the_exact_p_not_a_bound(tmp_path):
    # 22 topics: beyond enumeration; exact p by 2^22 sign vectors in the test
    rng = np.random.default_rng(11)
    a = rng.uniform(0.2, 0.8, 22)
    b = np.clip(a - 0.03 + rng.normal(0, 0.1, 22), 0, 1)
    path = scores_file(tmp_path, {"a": a, "b": b})
    d = a - b
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=11)))
    sums = np.abs((signs @ d[:11])[:, None] + (signs @ d[11:])[None, :])
    exact = float((sums >= abs(d.sum()) * (1 - 1e-9)).mean())
    assert 0.005 < exact < 0.5
    doc, _ = compare_json("--scores", path, "--fields", "mean", "--bootstrap", "20000")
    row = mean_row(doc)
    assert abs(row["p"] - exact) <= 4 * math.sqrt(exact * (1 - exact) / 20000) + 1 / 20001
    assert row["p_lo"] <= exact <= row["p_hi"]
    # and the t-test it should resemble at this n
    assert row["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=0.03)


def test_significant_is_p_adj_at_most_alpha_for_every_test():
    for test in ("randomization", "t", "wilcoxon", "sign", "bootstrap", "tukey"):
        doc, _ = compare_json("--pairs", "all", "-m", "AP", "--test", test, "--bootstrap",
                              "200", SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
        for row in doc["measures"]["AP"]["pairs"]:
            assert row["significant"] == (row["p_adj"] <= 0.05), (test, row)
            assert row["p"] <= row["p_adj"] + 1e-15


# ---------------------------------------------------------------- zero spread


def test_glass_delta_against_a_constant_baseline_is_undefined(tmp_path):
    runs = {"flat": [0.3] * 8, "a": [0.1, 0.5, 0.4, 0.2, 0.6, 0.3, 0.7, 0.2]}
    path = scores_file(tmp_path, runs)
    doc, notes = compare_json("--scores", path, "--baseline", "flat", "--fields", "mean")
    row = mean_row(doc)
    assert row["glass_delta"] is None  # was ±1e15: d / sd of rounding noise
    assert "glass_delta null" in notes and "flat" in notes


def test_effect_size_of_an_exactly_additive_matrix_is_undefined(tmp_path):
    # every run = topic effect + its own constant, in decimals: V_E = 0 exactly,
    # about 1e-33 in binary (effect size was −1.3e15)
    topic = [0.1, 0.2, 0.35, 0.5, 0.05, 0.45]
    runs = {
        name: [t + shift for t in topic] for name, shift in (("a", 0.3), ("b", 0.1), ("c", 0.2))
    }
    path = scores_file(tmp_path, runs)
    doc, notes = compare_json("--scores", path, "--pairs", "all")
    for row in doc["measures"]["AP"]["pairs"]:
        assert row["effect_size"] is None, row
    assert "effect_size null" in notes


def test_trisk_of_a_constant_shift_in_decimals_is_not_rounding_noise(tmp_path):
    # b = a − 0.1 in decimal: δ = 0.1 on every topic, SE = 0 exactly (was ±3.6e15)
    a = [0.7, 0.4, 0.9, 0.3, 0.6]
    path = scores_file(tmp_path, {"a": a, "b": [round(v - 0.1, 10) for v in a]})
    proc = run_bvtest("eval", "-f", "json", "--scores", path, "--alpha", "0,5")
    assert proc.returncode == 0, proc.stderr
    systems = json.loads(proc.stdout)["measures"]["AP"]["systems"]
    for run in systems.values():
        for value in run["trisk_mean"].values():
            assert value is None  # a non-zero constant difference: undefined, not 1e15


# ---------------------------------------------------------------- tiny n


def enumerated_bootstrap_p(d: np.ndarray) -> float:
    """Sakai's studentized bootstrap ASL by every one of the n^n resamples
    (an independent small implementation: t* = ±∞ for a resample with no
    spread and a non-zero mean, 0 with a zero mean)."""
    n = len(d)
    t = d.mean() / (d.std(ddof=1) / math.sqrt(n))
    z = d - d.mean()
    hits = 0
    for pick in itertools.product(range(n), repeat=n):
        w = z[list(pick)]
        mean, sd = w.mean(), w.std(ddof=1)
        if sd <= 1e-12:
            ts = 0.0 if abs(mean) <= 1e-12 else math.inf
        else:
            ts = abs(mean) / (sd / math.sqrt(n))
        hits += ts >= abs(t)
    return hits / n**n


@pytest.mark.parametrize("d", [[0.3, 0.1], [0.2, 0.5, 0.4], [0.4, -0.1, 0.3]])
def test_bootstrap_test_on_two_and_three_topics_matches_enumeration(d):
    d = np.array(d)
    exact = enumerated_bootstrap_p(d)
    got = float(bootstrap_test(d[np.newaxis], B=40000, seed=3).p[0])
    assert got == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 40000) + 1e-12)
    assert got > 0  # was 0: a resample with no spread counted as t* = 0


def test_bootstrap_test_on_one_topic_is_undefined_not_a_traceback(tmp_path):
    path = scores_file(tmp_path, {"a": [0.4], "b": [0.2]})
    doc, _ = compare_json("--scores", path, "--test", "bootstrap", "--ci-method", "percentile")
    assert mean_row(doc)["p"] is None


def test_intervals_stay_within_what_a_difference_of_ap_can_be(tmp_path):
    rng = np.random.default_rng(3)
    seen_cut = False
    for k in range(20):
        a, b = rng.uniform(0, 1, 4), rng.uniform(0, 1, 4)
        b[k % 4] = a[k % 4]  # a near-zero jackknife spread now and then
        path = scores_file(tmp_path, {"a": a, "b": b})
        doc, notes = compare_json("--scores", path, "--seed", str(k))
        for row in doc["measures"]["AP"]["pairs"]:
            if row["field"] in ("mean", "mse"):
                assert -1 <= row["lo"] <= row["hi"] <= 1, row
            if row["field"] == "var":
                assert row["lo"] >= -0.25 * 4 and row["hi"] <= 0.25 * 4 / 3 + 1e-12
        seen_cut |= "were cut to it" in notes
    assert seen_cut  # the studentized interval did reach beyond [−1, 1] here


# ---------------------------------------------------------------- one dispatch


def test_compare_and_sensitivity_run_the_same_test_with_the_same_counts():
    from bvtest_cli.analyses.anova import system_pairs
    from bvtest_cli.analyses.paired import TestSpec, mean_test
    from bvtest_cli.analyses.sensitivity import delta_needed

    rng = np.random.default_rng(8)
    x = np.clip(rng.uniform(0.2, 0.6, (1, 15)) + rng.normal(0, 0.1, (6, 15)), 0, 1)
    i, j = system_pairs(6)
    # Sakai's bootstrap: sensitivity's ASL (delta_needed) and compare's test agree exactly
    sens = delta_needed(x, B=300, seed=4).p
    comp = mean_test(x, i, j, TestSpec("bootstrap", "none", (0.05,), 300, 4)).p
    np.testing.assert_array_equal(sens, comp)
    # randomised Tukey draws B permutations, as stated (its p is a multiple of 1/(B + 1))
    p = mean_test(x, i, j, TestSpec("randomised-tukey", "none", (0.05,), 300, 4)).p
    np.testing.assert_allclose(p * 301, np.rint(p * 301), atol=1e-9)


def test_the_sign_test_counts_rounding_noise_as_a_tie(tmp_path):
    # b differs from a by exactly 0 in decimal on 4 topics (0.3 vs 0.1 + 0.2 in binary)
    a = [0.3, 0.7, 0.6, 0.9, 0.5, 0.8, 0.4, 0.65]
    b = [0.1 + 0.2, 0.5 + 0.2, 0.4 + 0.2, 0.6 + 0.3, 0.4, 0.6, 0.3, 0.55]
    assert sum(x != y for x, y in zip(a, b, strict=True)) > 4  # binary sees more differences
    path = scores_file(tmp_path, {"a": a, "b": b})
    doc, _ = compare_json("--scores", path, "--test", "sign", "--fields", "mean")
    # 4 positive differences, 4 ties: p = 2 · P(X ≥ 4 | Bin(4, ½)) = 2/16 (by hand)
    assert mean_row(doc)["p"] == pytest.approx(2 / 16, rel=1e-12)
