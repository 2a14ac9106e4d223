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
