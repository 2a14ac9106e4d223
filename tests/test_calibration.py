"""A small, fast version of the calibration study (bench/calibration.py,
``make calibration``): simulated worlds with a known truth, checked against
thresholds that a broken method fails — and each check is shown to fail on a
deliberately broken method, so that it can."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from bvtest_cli.analyses.paired import holm
from bvtest_cli.analyses.rankings import ranking_accuracy
from bvtest_cli.analyses.uncertainty import bootstrap_intervals
from bvtest_cli.report.registry import interval_methods

_SPEC = importlib.util.spec_from_file_location(
    "calibration", Path(__file__).resolve().parents[1] / "bench" / "calibration.py"
)
calibration = importlib.util.module_from_spec(_SPEC)
sys.modules["calibration"] = calibration  # its dataclasses look their module up
_SPEC.loader.exec_module(calibration)

N, WORLDS, B = 50, 200, 400


@pytest.fixture(scope="module")
def truth():
    return calibration.truths("skewed", topics=400_000, seed=3)


def coverage(truth, level: float, method) -> dict[str, float]:
    """Share of intervals (every run of WORLDS worlds) holding the truth, by field."""
    x = calibration.scores(np.random.default_rng(8), "skewed", WORLDS, N)
    statistic = calibration.statistic()
    hits: dict[str, list[np.ndarray]] = {}
    for start in range(0, WORLDS, 50):
        iv = bootstrap_intervals(
            x[start : start + 50], statistic, B=B, seed=start, level=level, method=method
        )
        for f in calibration.FIELDS:
            t = truth[f.name] * (N if f.name in calibration.SUMS else 1)
            got = iv[f.name]
            hits.setdefault(f.name, []).append(((got.lo <= t) & (t <= got.hi)).ravel())
    return {name: float(np.concatenate(v).mean()) for name, v in hits.items()}


def failures(rates: dict[str, float], floor: float) -> list[str]:
    return [f"{name}: {rate:.3f}" for name, rate in rates.items() if rate < floor]


# 95 % intervals of 200 worlds × 4 runs: coverage's Monte-Carlo se is ~.008, so
# .90 is ~5 se below the nominal level and ~12 se above an 80 % interval's.
FLOOR = 0.90


def test_default_intervals_cover(truth):
    rates = coverage(truth, 0.95, interval_methods("auto", calibration.FIELDS))
    assert not failures(rates, FLOOR), rates


def test_the_coverage_check_fails_80_percent_intervals_labelled_95(truth):
    rates = coverage(truth, 0.80, interval_methods("auto", calibration.FIELDS))
    assert len(failures(rates, FLOOR)) == len(rates), rates


@functools.cache
def _null_worlds() -> dict[str, np.ndarray]:
    """The seeded study both level checks read (~1.5 min of CPU): run once."""
    task = calibration.Task("null", "skewed", N, 100, seed=5, B=200)
    out = calibration.tests_task(task)
    for values in out.values():
        values.flags.writeable = False  # shared by the tests: none may change it
    return out


def null_pvalues(broken: bool = False) -> dict[str, np.ndarray]:
    """compare's p and Holm's p on 100 worlds of 5 exchangeable runs (10 pairs)."""
    out = dict(_null_worlds())
    if broken:  # a one-sided p-value reported as two-sided, a third of the truth
        out = {k: v / 3 if k.endswith(":p") else v for k, v in out.items()}
        for name in [k for k in out if k.endswith(":p")]:
            out[name.replace(":p", ":p_adj")] = np.apply_along_axis(holm, 1, out[name])
    return out


def type_one(out: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """Rejection rate at .05 and Holm's family-wise error, by test."""
    return {
        name[:-2]: (
            float((p < 0.05).mean()),
            float((out[name[:-2] + ":p_adj"] < 0.05).any(1).mean()),
        )
        for name, p in out.items()
        if name.endswith(":p")
    }


def too_hot(rates: dict[str, tuple[float, float]]) -> list[str]:
    # 1000 tests per field (10 per world, not independent): .08 is 3 of their se
    # above .05 even if they counted as 300; FWER over 100 families: se ~.02 at .05.
    return [name for name, (rate, fwer) in rates.items() if rate > 0.08 or fwer > 0.12]


def test_compare_tests_hold_their_level():
    out = null_pvalues()
    rates = type_one(out)
    assert not too_hot(rates), rates
    # and the intervals of the differences hold the true difference, 0
    held = {k: float(v.mean()) for k, v in out.items() if k.endswith(":covers")}
    assert held and min(held.values()) >= 0.9, held


def test_the_randomization_tests_own_p_is_not_conservative():
    """mean, Var and MSE use the exact sign-flip test: their own p (not only
    Holm's decision) must reject a true H0 near .05. Over these 3000
    p-values (se ≈ .005 if independent) the rate is .049; p-values reported
    as upper bounds settled only for Holm's decision gave .031."""
    rates = type_one(null_pvalues())
    own = np.mean([rates[field][0] for field in ("mean", "var", "mse")])
    assert 0.04 <= own <= 0.065, rates


def test_the_level_check_fails_a_test_three_times_too_hot():
    rates = type_one(null_pvalues(broken=True))
    hot = too_hot(rates)
    # Pitman–Morgan is conservative here, and Tukey's p-values are family-wise
    # (a third of them still holds a single pair's level): every other test
    # must be caught
    exempt = {"var(pitman-morgan)", "mean[tukey]", "mean[randomised-tukey]"}
    assert set(rates) - exempt <= set(hot), rates


def x_equals_g_share(se_of_bias) -> float:
    """Share of worlds where |bias| > 2 se with a collection identical to the
    reference (b = 0), se from ``se_of_bias(accuracy, batches)``."""
    rng = np.random.default_rng(13)
    margins = tuple(
        (a * (1 + 0.08 * i), b) for i, (a, b) in enumerate(calibration.SHAPES["skewed"] * 2)
    )
    x = calibration.scores(rng, "skewed", 80, N, margins)
    hits = 0
    for i in range(len(x)):
        res = ranking_accuracy(x[i], {"X": x[i].copy()}, samples=300, seed=i)
        acc = res.collections[0].accuracy
        hits += abs(acc.bias) > 2 * se_of_bias(acc)
    return hits / len(x)


def test_rankings_se_of_bias_is_right_at_b_zero():
    assert x_equals_g_share(lambda acc: acc.se_bias) <= 0.12


def test_the_x_equals_g_check_fails_an_se_too_small():
    """An se 1.8 times too small — what batch means of the roots gave at b = 0
    (docs/rankings.md) — fails the check."""
    assert x_equals_g_share(lambda acc: acc.se_bias / 1.8) > 0.12
