"""``--ci`` and ``compare`` in bounded memory whatever B.

Beyond a budget of replicate elements the bootstrap replicates are streamed
again instead of stored (bvtest_cli.analyses.uncertainty.streamed_intervals). Oracles:
np.sort / np.quantile of the stored replicates (an independent computation of
the same order statistics), the stored-replicates path that
tests/test_analyses_uncertainty.py checks against scipy and direct loops, and
tracemalloc's peak of the allocations.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

from bvtest_cli.analyses.orderstats import order_statistics, tally_stream
from bvtest_cli.analyses.paired import CompareSpec, compare_runs
from bvtest_cli.analyses.uncertainty import bootstrap_intervals, bootstrap_replicates
from bvtest_cli.report import registry
from bvtest_cli.sections.matrix import registry_statistic

ALPHAS = np.array([0.0, 1.0, 5.0])


def scores(m: int, n: int, seed: int, step: float | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.clip(rng.beta(2, 3, (m, n)) + rng.normal(0, 0.1, (m, 1)), 0, 1)
    x[rng.random((m, n)) < 0.1] = 0.0
    if step is not None:  # coarse scores: many tied replicates
        x = np.round(x / step) * step
    return x


def registry_fields(y: np.ndarray) -> dict[str, np.ndarray]:
    statistic = registry_statistic(
        registry.system_fields(True),
        target="max",
        normalized=False,
        alphas=ALPHAS,
        baseline=0,
    )
    return statistic(y)


MARK = 0.123456789  # the score of system 0 on topic 0, and on no other cell


def with_undefined(y: np.ndarray) -> dict[str, np.ndarray]:
    """Means, undefined on some resamples: for system 0 where topic 0 is drawn
    4 times or more (P ≈ 1.5 % < 2.5 %: the interval is kept over the others),
    for system 1 always (the interval is NaN)."""
    mean = y.mean(axis=-1)
    out = mean.copy()
    drawn = (y[..., 0, :] == MARK).sum(axis=-1)
    out[..., 0] = np.where(drawn >= 4, np.nan, mean[..., 0])
    out[..., 1] = np.inf
    return {"mean": mean, "odd": out}


def assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        for part in ("estimate", "lo", "hi"):
            np.testing.assert_array_equal(getattr(a[name], part), getattr(b[name], part), name)


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize(
    ("statistic", "step"),
    [(registry_fields, None), (registry_fields, 0.05), (with_undefined, None)],
)
def test_streamed_intervals_equal_the_stored_ones_bit_for_bit(method, statistic, step):
    x = scores(7, 18, 3, step)
    x[0, 0] = MARK
    B = 1500
    stored = bootstrap_intervals(x, statistic, B=B, seed=11, method=method)
    # a budget far below cells × B: streamed, with several histogram passes
    # (16 bins, 64 collected values per order statistic at this budget)
    streamed = bootstrap_intervals(x, statistic, B=B, seed=11, method=method, budget=64)
    assert_same(streamed, stored)
    if method == "percentile":  # and the stored ones are numpy's quantiles
        reps = bootstrap_replicates(x, statistic, B=B, seed=11)["mean"]
        lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
        # (numpy interpolates from the upper neighbour above h = 0.5: 1 ulp apart)
        np.testing.assert_allclose(stored["mean"].lo, lo, rtol=1e-15, atol=0)
        np.testing.assert_allclose(stored["mean"].hi, hi, rtol=1e-15, atol=0)
    assert np.isfinite(streamed["mean"].lo).all()
    if statistic is with_undefined:
        assert np.isfinite(streamed["odd"].lo[0]) and np.isnan(streamed["odd"].lo[1])


def test_order_statistics_on_hard_streams():
    """Against np.sort of the same values: ties, one-value cells, undefined
    values, huge and tiny magnitudes of both signs, values one ulp apart."""
    rng = np.random.default_rng(5)
    B = 3000
    cols = [
        rng.normal(size=B),
        np.round(rng.normal(size=B), 1),  # heavy ties
        np.full(B, 0.25),  # one value
        np.where(rng.random(B) < 0.01, np.nan, rng.exponential(size=B)),
        rng.choice([-1e300, -1e-300, 0.0, 1e-300, 1e300], size=B),
        0.5 + rng.integers(0, 3, B) * np.spacing(0.5),  # three adjacent floats
        np.where(rng.random(B) < 0.999, 0.5, rng.normal(size=B)),  # a spike
        rng.standard_cauchy(B),
    ]
    values = np.stack(cols, axis=1)
    blocks = [values[i : i + 7] for i in range(0, B, 7)]

    def stream():
        return iter(blocks)

    estimate = np.zeros(values.shape[1])
    tally = tally_stream(stream, estimate, budget=64)
    finite = np.isfinite(values)
    np.testing.assert_array_equal(tally.count, finite.sum(axis=0))
    cells, ranks, want = [], [], []
    for c in range(values.shape[1]):
        s = np.sort(values[finite[:, c], c])
        for r in sorted({0, 1, 74, 75, s.size // 2, s.size - 76, s.size - 1}):
            cells.append(c)
            ranks.append(r)
            want.append(s[r])
    got = order_statistics(stream, tally, np.array(cells), np.array(ranks), budget=64)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_streamed_compare_equals_the_stored_one(method):
    x = scores(6, 16, 9)
    statistic = registry_statistic(
        (registry.MEAN, registry.VAR, registry.MSE, registry.GEORISK),
        target="max",
        normalized=False,
        alphas=np.array([0.0, 5.0]),
        baseline=None,
    )
    names = [f"r{i}" for i in range(6)]
    kw = dict(alphas=("0", "5"), B=800, seed=4, method=method)
    stored = compare_runs(x, names, statistic=statistic, spec=CompareSpec(**kw)).rows
    streamed = compare_runs(x, names, statistic=statistic, spec=CompareSpec(budget=32, **kw)).rows
    assert [r.as_dict() for r in streamed] == [r.as_dict() for r in stored]


def peak_bytes(B: int, budget: int) -> int:
    x = scores(20, 30, 2)
    tracemalloc.start()
    try:
        bootstrap_intervals(x, registry_fields, B=B, seed=1, budget=budget)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_B():
    # numpy reports its allocations to tracemalloc. 20 systems × 362 cells of
    # replicates: stored, B = 20000 takes ~ 96 MiB; streamed within a budget
    # of 2^16 elements the peak is one block's working set (the statistic's
    # temporaries, ~ 30 MiB here), the same at B = 2000 and B = 20000.
    budget = 1 << 16
    small, large = peak_bytes(2000, budget), peak_bytes(20000, budget)
    assert large < 1.2 * small
    assert peak_bytes(20000, 1 << 30) > 2.5 * large  # the stored path, for contrast


@pytest.mark.parametrize(
    "args",
    [
        ("eval", "--ci", "0.9", "-m", "AP", "-m", "nDCG@10"),
        ("eval", "--ci", "0.95", "--ci-method", "bca", "-m", "AP"),
        ("compare", "--pairs", "all", "-m", "AP"),
    ],
)
def test_cli_streamed_output_is_byte_identical(args):
    """End to end: with --ci-memory 1 (1 MiB: 3000 resamples × ~ 180 cells per
    measure do not fit) the replicates are streamed; the JSON (full precision)
    is the same bytes as with the default budget, where they are stored."""
    common = (*args, "--bootstrap", "3000", "--seed", "3", "-f", "json")
    stored = run_bvtest(*common, str(SAMPLE_QRELS), str(SAMPLE_RUNS))
    streamed = run_bvtest(*common, "--ci-memory", "1", str(SAMPLE_QRELS), str(SAMPLE_RUNS))
    assert stored.returncode == 0, stored.stderr
    assert streamed.returncode == 0, streamed.stderr
    assert streamed.stdout == stored.stdout
    assert '"lo"' in stored.stdout or "_ci" in stored.stdout
