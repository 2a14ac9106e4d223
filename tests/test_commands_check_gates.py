"""Tests of the CI gates of ``bvtest check`` (bvtest_cli.commands.check.build, docs/formats.md)."""

from __future__ import annotations

import pytest
from report_helpers import report_from_dict

from bvtest_cli.commands.check.build import (
    Gate,
    GateError,
    Verdict,
    evaluate_gate,
    parse_gate,
    verdict_fields,
)
from bvtest_cli.report import registry
from bvtest_cli.report.model import Report

ALPHAS = ("0", "1", "5", "10")
SCALAR_FIELDS = [f.name for f in registry.SYSTEM_FIELDS if not f.alpha]
ALPHA_FIELDS = [f.name for f in registry.SYSTEM_FIELDS if f.alpha]


def format_verdict(verdict: Verdict, digits: int = 4) -> str:
    return "\t".join(verdict_fields(verdict, digits))


def as_report(result: dict) -> Report:
    return report_from_dict(result)


def _system(mse: float, georisk: tuple[float, ...], trisk: float | None = 1.0) -> dict:
    """A per-system entry with every field of docs/formats.md (baseline fields included)."""
    by_alpha = dict(zip(ALPHAS, georisk, strict=True))
    return {
        "mean": 0.3,
        "bias2": mse / 2,
        "var": mse / 2,
        "mse": mse,
        "var_rho": 0.01,
        "var_target": 0.02,
        "cov_target": 0.015,
        "zrisk": {a: -1.0 * float(a) for a in ALPHAS},
        "georisk": by_alpha,
        "zrisk_target": {a: -2.0 for a in ALPHAS},
        "trisk_mean": {a: 0.5 for a in ALPHAS},
        "urisk": {a: 0.01 for a in ALPHAS},
        "trisk": {a: trisk for a in ALPHAS},
        "zrisk_baseline": {a: 0.2 for a in ALPHAS},
    }


def _measure(systems: dict) -> dict:
    return {
        "n_topics": 50,
        "c": 0.61,
        "systems": systems,
        "tradeoff": {"pearson": -0.5, "pearson_p": 0.1, "spearman": -0.4, "spearman_p": 0.2},
    }


@pytest.fixture
def result() -> dict:
    """A hand-made result: new.run is better than bm25.run on AP and ERR@20,
    worse on nDCG@10 and AP(rel=2); weird.run has null values."""
    return {
        "group": None,
        "normalize": "none",
        "measures": {
            "AP": _measure(
                {
                    "new.run": _system(0.0512, (0.30, 0.28, 0.22, 0.18)),
                    "bm25.run": _system(0.0650, (0.25, 0.23, 0.20, 0.17)),
                    "weird.run": {**_system(0.07, (0.1, 0.1, 0.1, 0.1), trisk=None), "mse": None},
                }
            ),
            "nDCG@10": _measure(
                {
                    "new.run": _system(0.0712, (0.30, 0.28, 0.22, 0.18)),
                    "bm25.run": _system(0.0650, (0.31, 0.29, 0.24, 0.19)),
                }
            ),
            "ERR@20": _measure(
                {
                    "new.run": _system(0.0400, (0.40, 0.35, 0.30, 0.25)),
                    "bm25.run": _system(0.0450, (0.38, 0.34, 0.31, 0.26)),
                }
            ),
            "AP(rel=2)": _measure(
                {
                    "new.run": _system(0.0900, (0.2, 0.2, 0.2, 0.2)),
                    "bm25.run": _system(0.0800, (0.2, 0.2, 0.2, 0.2)),
                }
            ),
        },
    }


POOL = {"bm25.run", "weird.run"}


def check(text: str, result: dict, run: str = "new.run") -> Verdict:
    return evaluate_gate(parse_gate(text), as_report(result), run, POOL)


# --- parsing ------------------------------------------------------------------


def test_parse_number_gate() -> None:
    gate = parse_gate("AP:mse<=0.06")
    assert gate == Gate(
        text="AP:mse<=0.06",
        measure="AP",
        field="mse",
        alpha=None,
        op="<=",
        right=0.06,
        right_text="0.06",
    )


def test_parse_run_gate_with_at_in_measure() -> None:
    gate = parse_gate("nDCG@10:mse<=bm25.run")
    assert (gate.measure, gate.field, gate.alpha, gate.op, gate.right) == (
        "nDCG@10",
        "mse",
        None,
        "<=",
        "bm25.run",
    )


def test_parse_alpha_gate() -> None:
    gate = parse_gate("ERR@20:georisk@5>=bm25.run")
    assert (gate.measure, gate.field, gate.alpha, gate.op, gate.right) == (
        "ERR@20",
        "georisk",
        "5",
        ">=",
        "bm25.run",
    )
    assert gate.lhs == "ERR@20:georisk@5"


@pytest.mark.parametrize(
    ("text", "measure"),
    [
        ("AP(rel=2):mse<0.1", "AP(rel=2)"),
        ("P(rel=2)@5:var>0", "P(rel=2)@5"),
        ("nDCG(dcg=exp-log2)@10:bias2<=0.2", "nDCG(dcg=exp-log2)@10"),
        ("ERR@20:mean > 0.3", "ERR@20"),
    ],
)
def test_parse_measure_with_at_and_parentheses(text: str, measure: str) -> None:
    assert parse_gate(text).measure == measure


def test_parse_whitespace_and_text_kept() -> None:
    gate = parse_gate("  nDCG@10:zrisk@1  >  -3.5 ")
    assert (gate.op, gate.right, gate.right_text, gate.alpha) == (">", -3.5, "-3.5", "1")
    assert gate.text == "nDCG@10:zrisk@1  >  -3.5"


@pytest.mark.parametrize("op", ["<=", "<", ">=", ">"])
def test_parse_every_operator(op: str) -> None:
    assert parse_gate(f"AP:mse{op}0.5").op == op


@pytest.mark.parametrize("field", SCALAR_FIELDS)
def test_every_scalar_field_parses(field: str) -> None:
    assert parse_gate(f"AP:{field}<1").alpha is None


@pytest.mark.parametrize("field", ALPHA_FIELDS)
def test_every_alpha_field_parses(field: str) -> None:
    assert parse_gate(f"AP:{field}@0.5<1").alpha == "0.5"


def test_non_finite_right_is_a_run_name() -> None:
    # 'nan' could be a run's file name; it must never become a NaN bound.
    assert parse_gate("AP:mse<nan").right == "nan"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty gate"),
        ("   ", "empty gate"),
        ("AP:mse", "no comparison operator"),
        ("AP:mse=0.06", "no comparison operator"),
        ("AP:mse==0.06", "no comparison operator"),
        ("AP:mse=<0.06", "bad operator"),
        ("AP:mse<<0.06", "bad operator"),
        ("AP:mse<>0.06", "bad operator"),
        ("AP:mse<==0.06", "bad operator"),
        ("AP:mse!<0.06", "bad operator"),
        ("AP:mse>=", "missing number or run name"),
        ("<=0.06", "missing MEASURE:FIELD"),
        ("AP<=0.06", "expected MEASURE:FIELD"),
        (":mse<=0.06", "missing measure"),
        ("AP:<=0.06", "missing field"),
        ("AP:precision<=0.06", "unknown field"),
        ("AP:MSE<=0.06", "unknown field"),
        ("AP:mse@5<=0.06", "takes no @ALPHA"),
        ("AP:georisk<=0.06", "needs @ALPHA"),
        ("AP:georisk@<=0.06", "needs @ALPHA"),
        ("AP:georisk@x<=0.06", "not a non-negative number"),
        ("AP:georisk@-1<=0.06", "not a non-negative number"),
    ],
)
def test_malformed_gates_raise(text: str, fragment: str) -> None:
    with pytest.raises(GateError, match=fragment) as info:
        parse_gate(text)
    assert "\n" not in str(info.value)


def test_gate_error_is_a_value_error() -> None:
    assert issubclass(GateError, ValueError)


# --- evaluation -----------------------------------------------------------------


def test_number_gate_passes(result: dict) -> None:
    verdict = check("AP:mse<=0.06", result)
    assert verdict.passed and verdict.value == pytest.approx(0.0512) and verdict.bound == 0.06
    assert format_verdict(verdict) == "PASS\tAP:mse<=0.06\tnew.run\t0.0512 <= 0.06"


def test_number_gate_fails(result: dict) -> None:
    verdict = check("nDCG@10:mse<=0.06", result)
    assert not verdict.passed
    assert format_verdict(verdict) == "FAIL\tnDCG@10:mse<=0.06\tnew.run\t0.0712 <= 0.06 is false"


def test_run_gate_passes(result: dict) -> None:
    verdict = check("AP:mse<=bm25.run", result)
    assert verdict.passed and verdict.bound == pytest.approx(0.0650)
    assert verdict.bound_run == "bm25.run"
    assert format_verdict(verdict) == "PASS\tAP:mse<=bm25.run\tnew.run\t0.0512 <= 0.0650 (bm25.run)"


def test_run_gate_fails(result: dict) -> None:
    verdict = check("nDCG@10:mse<=bm25.run", result)
    assert not verdict.passed
    assert format_verdict(verdict) == (
        "FAIL\tnDCG@10:mse<=bm25.run\tnew.run\t0.0712 <= 0.0650 (bm25.run) is false"
    )


def test_alpha_gate_passes_and_fails(result: dict) -> None:
    # new.run's ERR@20 GeoRisk is higher than bm25's at alpha 0 and 1, lower at 5.
    assert check("ERR@20:georisk@1>=bm25.run", result).passed
    failing = check("ERR@20:georisk@5>=bm25.run", result)
    assert not failing.passed
    assert format_verdict(failing) == (
        "FAIL\tERR@20:georisk@5>=bm25.run\tnew.run\t0.3000 >= 0.3100 (bm25.run) is false"
    )
    assert check("ERR@20:georisk@10 > 0.2", result).passed
    assert not check("ERR@20:georisk@10 < 0.2", result).passed


def test_alpha_matches_numerically(result: dict) -> None:
    # '-a 5' writes key "5"; a gate may spell it 5.0.
    assert check("ERR@20:georisk@5.0<1", result).value == pytest.approx(0.30)


def test_strict_operators_on_equality(result: dict) -> None:
    assert check("AP:mse<=0.0512", result).passed
    assert check("AP:mse>=0.0512", result).passed
    assert not check("AP:mse<0.0512", result).passed
    assert not check("AP:mse>0.0512", result).passed


def test_parenthesised_measure_evaluates(result: dict) -> None:
    verdict = check("AP(rel=2):mse<bm25.run", result)
    assert not verdict.passed and verdict.value == pytest.approx(0.09)


def test_digits(result: dict) -> None:
    line = format_verdict(check("AP:mse<=bm25.run", result), digits=2)
    assert line.endswith("\t0.05 <= 0.07 (bm25.run)")


def test_null_value_fails(result: dict) -> None:
    verdict = check("AP:mse<=1", result, run="weird.run")
    assert not verdict.passed and verdict.value is None
    assert format_verdict(verdict) == "FAIL\tAP:mse<=1\tweird.run\tnull <= 1 is false"
    assert not check("AP:trisk@5>=-100", result, run="weird.run").passed


def test_null_bound_fails(result: dict) -> None:
    verdict = check("AP:mse<=weird.run", result)
    assert not verdict.passed and verdict.bound is None
    assert format_verdict(verdict).endswith("\t0.0512 <= null (weird.run) is false")


def test_nan_in_memory_is_null(result: dict) -> None:
    result["measures"]["AP"]["systems"]["new.run"]["mse"] = float("nan")
    verdict = check("AP:mse<=1", result)
    assert verdict.value is None and not verdict.passed


def test_unknown_measure_errors(result: dict) -> None:
    with pytest.raises(GateError, match="unknown measure 'P@10'"):
        check("P@10:mse<=0.06", result)


def test_alpha_not_computed_errors(result: dict) -> None:
    with pytest.raises(GateError, match="alpha 2 was not computed"):
        check("AP:georisk@2>=0.1", result)


def test_right_neither_number_nor_pool_run_errors(result: dict) -> None:
    with pytest.raises(GateError, match="neither a number nor a pool run"):
        check("AP:mse<=bm26.run", result)
    # A run in the result but not in the pool (another new run) is not a bound.
    with pytest.raises(GateError, match="neither a number nor a pool run"):
        evaluate_gate(parse_gate("AP:mse<=new.run"), as_report(result), "bm25.run", {"weird.run"})


def test_baseline_field_missing_errors(result: dict) -> None:
    del result["measures"]["AP"]["systems"]["new.run"]["urisk"]
    with pytest.raises(GateError, match="needs --baseline"):
        check("AP:urisk@1>=0", result)


def test_unknown_run_errors(result: dict) -> None:
    with pytest.raises(GateError, match=r"run 'ghost\.run' is not in the results"):
        check("AP:mse<=0.06", result, run="ghost.run")


# --- test gates: RUN~DELTA (non-inferiority) and >> RUN (superiority) ----------

import itertools  # noqa: E402
import math  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from bvtest_cli.analyses.significance import (  # noqa: E402
    one_sided_power_t,
    one_sided_randomization,
    one_sided_t,
)
from bvtest_cli.commands.check.build import evaluate_test_gate  # noqa: E402
from bvtest_cli.measures.matrix import ScoreMatrix  # noqa: E402


def test_parse_non_inferiority() -> None:
    gate = parse_gate("AP:mean >= input.bm25 ~ 0.01")
    got = (gate.op, gate.right, gate.margin, gate.margin_text)
    assert got == (">=", "input.bm25", 0.01, "0.01")
    assert gate.tested and gate.threshold_text == "-0.01"


def test_parse_superiority() -> None:
    gate = parse_gate("AP:mean>>bm25")
    assert (gate.op, gate.right, gate.margin) == (">>", "bm25", 0.0)
    assert gate.tested and gate.threshold_text == "0"


def test_minus_zero_margin_is_zero() -> None:
    gate = parse_gate("AP:mean>=bm25~-0")
    assert gate.margin == 0.0 and math.copysign(1.0, gate.margin) == 1.0


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("AP:mean>=bm25~nan", "not a finite number"),
        ("AP:mean>=bm25~inf", "not a finite number"),
        ("AP:mean>=bm25~-0.01", "negative"),
        ("AP:mean>=bm25~", "needs the margin"),
        ("AP:mean>=bm25~x", "not a number"),
        ("AP:mean>=~0.01", "missing pool run"),
        ("AP:mean>>0.3", "not a number"),
        ("AP:mean>=0.3~0.01", "not a number"),
        ("AP:mean>>bm25~0.01", "takes no ~DELTA"),
        ("AP:mean<=bm25~0.01", "goes with '>='"),
        ("AP:mse>=bm25~0.01", "on the mean"),
        ("AP:mean.lo>=bm25~0.01", "on the mean"),
        ("AP:georisk@5>>bm25", "on the mean"),
        ("AP:mean>>>bm25", "bad operator"),
        ("AP:mean>>=bm25", "bad operator"),
    ],
)
def test_malformed_test_gates(text: str, fragment: str) -> None:
    with pytest.raises(GateError, match=fragment):
        parse_gate(text)


# An independent implementation: every sign vector enumerated, the one-sided
# count of flipped means of the shifted differences at least the observed one.


def enumerated_p(d: np.ndarray, margin: float) -> float:
    z = d - margin
    observed = z.mean()
    tol = 1e-12 * max(np.abs(d).max(), abs(margin))
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(d))))
    return float(((signs * z).mean(axis=1) >= observed - tol).mean())


@pytest.mark.parametrize("n", [5, 6, 9])
def test_randomization_p_and_decision_by_enumeration(n: int) -> None:
    rng = np.random.default_rng(n)
    d = np.round(rng.normal(0.02, 0.08, n), 4)
    subset_means = sorted({float(np.mean(c)) for k in range(1, n + 1)
                           for c in itertools.combinations(d, k)})  # fmt: skip
    margins = [-0.2, -0.05, -0.01, 0.0, 0.03, *subset_means, *(m + 1e-7 for m in subset_means)]
    for margin in margins:
        got = one_sided_randomization(d, margin, 0.05)
        want = enumerated_p(d, margin)
        assert got.exact and got.p == pytest.approx(want, abs=1e-12), margin
        assert got.rejected == (want <= 0.05), margin
        # the bound and the decision never disagree
        assert got.rejected == (got.bound > margin), margin


def test_randomization_bound_is_the_smallest_margin_not_rejected() -> None:
    d = np.array([0.05, 0.12, -0.03, 0.08, 0.02, 0.1])
    bound = one_sided_randomization(d, 0.0, 0.05).bound
    # by hand: 64 vectors, K = floor(0.05 · 64) = 3 counts allowed. Ascending,
    # the flipped sets' means are: the identity (always counts), −0.03 alone,
    # mean(−0.03, 0.02) = −0.005, mean(−0.03, 0.05) = 0.01, mean(−0.03, 0.02,
    # 0.05) = 0.0133, ...: the fourth, 0.01, is the first margin not rejected
    assert bound == pytest.approx(0.01, abs=1e-12)
    assert one_sided_randomization(d, 0.0099, 0.05).rejected
    assert not one_sided_randomization(d, 0.0101, 0.05).rejected


def test_randomization_monte_carlo_near_the_exact_p() -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(0.01, 0.05, 18)
    exact = enumerated_p(d, -0.01)
    got = one_sided_randomization(d, -0.01, 0.05, seed=7, exact_topics=16)
    assert not got.exact and got.draws == 9999
    assert abs(got.p - exact) <= 4 * math.sqrt(exact * (1 - exact) / 9999) + 1e-4
    assert got.rejected == (got.bound > -0.01) == (got.p <= 0.05)
    again = one_sided_randomization(d, -0.01, 0.05, seed=7, exact_topics=16)
    assert again == got  # seeded by --seed


def test_one_sided_t_against_scipy_stats() -> None:
    d = np.array([0.05, 0.12, -0.03, 0.08, 0.02, 0.1, -0.06, 0.04])
    got = one_sided_t(d, -0.01, 0.05)
    n, mean, se = len(d), d.mean(), d.std(ddof=1) / math.sqrt(len(d))
    assert got.p == pytest.approx(stats.t.sf((mean + 0.01) / se, n - 1), rel=1e-10)
    assert got.bound == pytest.approx(mean - stats.t.ppf(0.95, n - 1) * se, rel=1e-10)
    assert got.rejected == (got.bound > -0.01) == (got.p <= 0.05)


@pytest.mark.parametrize("test", [one_sided_t, one_sided_randomization])
def test_identical_runs(test) -> None:
    d = np.zeros(30)
    copy = test(d, -0.01, 0.05)  # zero spread, diff 0 > −δ: passes
    assert copy.rejected and copy.bound > -0.01 and copy.p <= 0.05
    same = test(d, 0.0, 0.05)  # superiority over itself: fails
    assert not same.rejected and same.p == 1.0


def test_constant_shift_t_has_the_limit_of_no_spread() -> None:
    d = np.full(20, 0.1) + np.array([0.0, 1e-17] * 10)  # rounding noise of a shift
    got = one_sided_t(d, 0.0, 0.05)
    assert got.rejected and got.p == 0.0 and got.bound == pytest.approx(0.1)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_randomization_on_few_topics_cannot_pass(n: int) -> None:
    got = one_sided_randomization(np.full(n, 0.3), -0.01, 0.05)
    assert got.bound == -math.inf and not got.rejected
    assert got.p == pytest.approx(1 / 2**n)  # only the identity reaches the observed sum


def test_t_on_one_topic_is_undefined_and_two_are_a_test() -> None:
    one = one_sided_t(np.array([0.2]), -0.01, 0.05)
    assert math.isnan(one.bound) and not one.rejected
    two = one_sided_t(np.array([0.2, 0.1]), -0.01, 0.05)
    # by hand: mean 0.15, se 0.05, t_{0.95,1} = 6.3138: bound 0.15 − 0.31569 < −0.01
    assert two.bound == pytest.approx(0.15 - 6.313751514675 * 0.05, rel=1e-9)
    assert not two.rejected


def matrix(values: list[list[float]]) -> ScoreMatrix:
    x = np.array(values, dtype=float)
    return ScoreMatrix("AP", ("new", "base"), tuple(f"t{j}" for j in range(x.shape[1])), x)


def test_gate_leaves_out_topics_without_a_finite_score() -> None:
    new = [0.5, 0.4, 0.6, 0.7, 0.3, 0.5, np.nan]
    base = [0.4, 0.4, 0.5, 0.6, 0.2, 0.45, 0.9]
    gate = parse_gate("AP:mean>=base~0.01")
    verdict, notes = evaluate_test_gate(gate, matrix([new, base]), "new", "randomization", 0.05, 1)
    d = np.array(new[:6]) - np.array(base[:6])
    assert verdict.topics == 6 and verdict.diff == pytest.approx(d.mean())
    assert verdict.p == pytest.approx(enumerated_p(d, -0.01))
    assert verdict.passed == (verdict.p <= 0.05) and "1 topic(s)" in notes[0]


def test_gate_on_one_topic_fails_with_a_note() -> None:
    gate = parse_gate("AP:mean>>base")
    verdict, notes = evaluate_test_gate(gate, matrix([[0.9], [0.1]]), "new", "randomization",
                                        0.05, 1)  # fmt: skip
    assert not verdict.passed and verdict.bound is None and "1/2" in notes[0]
    line = "\t".join(verdict_fields(verdict))
    assert line.startswith("FAIL\tAP:mean>>base\tnew\tnull > 0 (") and line.endswith("is false")


def test_power_by_the_noncentral_t() -> None:
    # one-sided, 50 topics, effect 0.01, sd 0.05: ncp = √2, critical t_{.95,49}
    want = stats.nct.sf(stats.t.ppf(0.95, 49), 49, math.sqrt(2))
    assert one_sided_power_t(0.01, 0.05, 50, 0.05) == pytest.approx(want, rel=1e-8)


# A fast version of the gates' calibration (bench/calibration.py, gate section):
# 300 worlds of 50 topics with Normal differences of sd 0.05.

REPLICATES = 300


def _pass_rate(shift: float, test: str, seed: int) -> float:
    rng = np.random.default_rng(seed)
    d = rng.normal(shift, 0.05, (REPLICATES, 50))
    if test == "t":
        return float(np.mean([one_sided_t(row, -0.01, 0.05).rejected for row in d]))
    return float(np.mean([one_sided_randomization(row, -0.01, 0.05, seed=k, draws=999).rejected
                          for k, row in enumerate(d)]))  # fmt: skip


@pytest.mark.parametrize("test", ["t", "randomization"])
def test_a_run_delta_worse_passes_at_most_alpha(test: str) -> None:
    rate = _pass_rate(-0.01, test, 11)
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / REPLICATES)


@pytest.mark.parametrize("test", ["t", "randomization"])
def test_an_equal_run_passes_as_often_as_the_power_says(test: str) -> None:
    power = one_sided_power_t(0.01, 0.05, 50, 0.05)  # ≈ 0.40
    rate = _pass_rate(0.0, test, 12)
    assert rate >= power - 3 * math.sqrt(power * (1 - power) / REPLICATES)
