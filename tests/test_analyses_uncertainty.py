"""Tests for bvtest_cli.analyses.uncertainty (docs/uncertainty.md: topic bootstrap, paired
tests, Pareto).

Oracles: scipy.stats (bootstrap BCa, pearsonr, spearmanr, rankdata, t), numpy's
own generator and quantiles, direct per-resample loops written here, hand
computations (seed 000 Table 2, Holm), and the installed ``bvtest eval``
on the sample track.
"""

from __future__ import annotations

import inspect
import itertools
import json
import math

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest
from scipy import stats

from bvtest_cli.analyses import risk
from bvtest_cli.analyses.paired import CompareSpec, compare_runs, holm, pitman_morgan
from bvtest_cli.analyses.tradeoff import correlations, rank_average
from bvtest_cli.analyses.uncertainty import (
    bca_interval,
    bootstrap_indices,
    bootstrap_intervals,
    bootstrap_replicates,
    correlation_distribution,
    iter_bootstrap_indices,
    jackknife_indices,
    pareto_front,
    percentile_interval,
)
from bvtest_cli.measures.scores_file import read_scores
from bvtest_cli.report import registry
from bvtest_cli.sections.matrix import registry_statistic

ALPHAS = (0.0, 1.0, 5.0, 10.0)


def system_fields(y, *, alphas=ALPHAS, baseline_index=None, target="max"):
    """The bootstrap statistic of ``bvtest eval --ci``: the registry's fields
    (without the alpha-indexed ones when ``alphas`` is empty) on scores (..., m, n)."""
    fields = registry.system_fields(baseline_index is not None)
    if not len(alphas):
        fields = tuple(f for f in fields if not f.alpha)
    statistic = registry_statistic(
        fields,
        target=target,
        normalized=False,
        alphas=np.array(alphas, dtype=float),
        baseline=baseline_index,
    )
    return statistic(y)


def comparison_statistic(alphas):
    """compare's statistic: mean, var, mse, georisk of the registry."""
    fields = (registry.MEAN, registry.VAR, registry.MSE, registry.GEORISK)
    return registry_statistic(
        fields, target="max", normalized=False, alphas=np.array(alphas, float), baseline=None
    )


def scores(m: int, n: int, seed: int) -> np.ndarray:
    """Scores in [0, 1] with per-system levels and some exact zeros, like AP."""
    rng = np.random.default_rng(seed)
    x = np.clip(rng.beta(2, 3, (m, n)) + rng.normal(0, 0.1, (m, 1)), 0, 1)
    x[rng.random((m, n)) < 0.1] = 0.0
    return x


# --------------------------------------------------------------------------- resampling


def test_indices_are_numpys_stream_whatever_the_block():
    # The documented stream: default_rng(seed).integers(0, n, (B, n)).
    ref = np.random.default_rng(42).integers(0, 37, size=(1001, 37))
    for block in (1, 3, 64, 1000, 5000):
        got = bootstrap_indices(37, 1001, 42, block=block)
        assert np.array_equal(got, ref), block
    assert [len(b) for b in iter_bootstrap_indices(37, 10, 42, 4)] == [4, 4, 2]
    assert not np.array_equal(bootstrap_indices(37, 1001, 43), ref)


def test_jackknife_indices_leave_one_out():
    got = jackknife_indices(5)
    want = [[j for j in range(5) if j != i] for i in range(5)]
    assert got.tolist() == want


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_same_seed_same_intervals_whatever_the_block(method):
    x = scores(9, 23, 1)

    def statistic(y):
        return system_fields(y, alphas=ALPHAS, baseline_index=2)

    runs = [
        bootstrap_intervals(x, statistic, B=300, seed=5, method=method, block=block)
        for block in (None, 1, 7, 300)
    ]
    for other in runs[1:]:
        assert other.keys() == runs[0].keys()
        for name in runs[0]:
            for part in ("estimate", "lo", "hi"):
                a, b = getattr(runs[0][name], part), getattr(other[name], part)
                assert np.array_equal(a, b, equal_nan=True), (name, part)
    different = bootstrap_intervals(x, statistic, B=300, seed=6, method=method)
    assert not np.array_equal(different["var"].lo, runs[0]["var"].lo)


# --------------------------------------------------------------------------- intervals


def direct_fields(x: np.ndarray) -> dict[str, np.ndarray]:
    """mean, bias2, var, mse of docs/numbers.md written out with numpy, c = mean of the
    column max."""
    c = x.max(axis=0).mean()
    mean = x.mean(axis=1)
    return {
        "mean": mean,
        "bias2": (mean - c) ** 2,
        "var": x.var(axis=1),
        "mse": ((x - c) ** 2).mean(axis=1),
    }


def test_percentile_interval_against_a_direct_loop():
    x = scores(3, 6, 2)
    B, seed = 50, 11
    idx = np.random.default_rng(seed).integers(0, 6, size=(B, 6))
    loop = {k: np.array([direct_fields(x[:, row])[k] for row in idx]) for k in direct_fields(x)}
    got = bootstrap_intervals(x, lambda y: system_fields(y, alphas=()), B=B, seed=seed)
    for name, reps in loop.items():
        lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
        np.testing.assert_allclose(got[name].lo, lo, rtol=0, atol=1e-13)
        np.testing.assert_allclose(got[name].hi, hi, rtol=0, atol=1e-13)
        np.testing.assert_allclose(got[name].estimate, direct_fields(x)[name], atol=1e-15)


def test_undefined_replicates_rule():
    # 40 replicates, 95 %: up to 2.5 % · 40 = 1 undefined replicate is tolerated.
    base = np.linspace(0.0, 1.0, 40)
    one = base.copy()
    one[7] = np.nan
    two = one.copy()
    two[30] = np.inf
    reps = np.stack([base, one, two], axis=1)
    lo, hi = percentile_interval(reps, 0.95)
    assert np.allclose(lo[:2], [np.quantile(base, 0.025), np.nanquantile(one, 0.025)])
    assert np.allclose(hi[:2], [np.quantile(base, 0.975), np.nanquantile(one, 0.975)])
    assert math.isnan(lo[2]) and math.isnan(hi[2])
    # At 80 % the tolerance is 10 % · 40 = 4, so two undefined are fine.
    lo, _ = percentile_interval(reps, 0.80)
    assert lo[2] == pytest.approx(np.nanquantile(np.where(np.isinf(two), np.nan, two), 0.1))


def _generator(seed: int) -> dict[str, np.random.Generator]:
    """scipy.stats.bootstrap's generator argument: ``rng`` from scipy 1.15 on,
    ``random_state`` before (the declared floor); both draw from it directly."""
    name = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
    return {name: np.random.default_rng(seed)}


def test_bca_against_scipy_on_the_same_resamples():
    # scipy draws rng.integers(0, n, (B, n)) in one batch: the same resamples.
    rng = np.random.default_rng(3)
    for data in (rng.exponential(1.0, 25), rng.beta(0.5, 2.0, 40)):
        for fn in (np.var, np.mean):
            ref = stats.bootstrap((data,), fn, n_resamples=999, **_generator(17), method="BCa")
            got = bootstrap_intervals(
                data[np.newaxis, :],
                lambda y, fn=fn: {"s": fn(y, axis=-1)},
                B=999,
                seed=17,
                method="bca",
            )["s"]
            assert got.lo[0] == pytest.approx(ref.confidence_interval.low, abs=1e-12)
            assert got.hi[0] == pytest.approx(ref.confidence_interval.high, abs=1e-12)
            pct = stats.bootstrap(
                (data,), fn, n_resamples=999, **_generator(17), method="percentile"
            )
            plain = bootstrap_intervals(
                data[np.newaxis, :], lambda y, fn=fn: {"s": fn(y, axis=-1)}, B=999, seed=17
            )["s"]
            assert plain.lo[0] == pytest.approx(pct.confidence_interval.low, abs=1e-12)
            assert plain.hi[0] == pytest.approx(pct.confidence_interval.high, abs=1e-12)


def test_bca_against_a_textbook_loop_on_a_whole_matrix():
    """Efron & Tibshirani 1993 §14.3 written out for MSE, which depends on every
    run through c: each resample and each leave-one-out matrix recomputes c."""
    x = scores(4, 12, 4)
    B, seed, level = 400, 9, 0.9
    idx = np.random.default_rng(seed).integers(0, 12, size=(B, 12))
    est = direct_fields(x)["mse"]
    reps = np.array([direct_fields(x[:, row])["mse"] for row in idx])
    jack = np.array([direct_fields(np.delete(x, j, axis=1))["mse"] for j in range(12)])
    got = bootstrap_intervals(
        x, lambda y: system_fields(y, alphas=()), B=B, seed=seed, level=level, method="bca"
    )["mse"]
    z = stats.norm.ppf(0.05)
    for i in range(4):
        below = np.sum(reps[:, i] < est[i]) + 0.5 * np.sum(reps[:, i] == est[i])
        z0 = stats.norm.ppf(below / B)
        d = jack[:, i].mean() - jack[:, i]
        a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
        a1 = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        a2 = stats.norm.cdf(z0 + (z0 - z) / (1 - a * (z0 - z)))
        assert got.lo[i] == pytest.approx(np.quantile(reps[:, i], a1), abs=1e-12)
        assert got.hi[i] == pytest.approx(np.quantile(reps[:, i], a2), abs=1e-12)


def test_bca_degenerate_cases():
    # Every replicate equals the estimate (the target's Bias² is 0 on every
    # resample): ties count half, z0 = 0, a = 0 → the interval is [0, 0].
    reps = np.zeros((100, 1))
    lo, hi = bca_interval(reps, np.zeros(1), np.zeros((10, 1)))
    assert lo.tolist() == [0.0] and hi.tolist() == [0.0]
    # Equal leave-one-out values give a = 0 exactly, although their mean 0.1·7/7
    # is not 0.1 in floating point (a is scale-free: the residue must not count).
    jack = np.full((7, 1), 0.1)
    assert jack.sum(axis=0)[0] / 7 != 0.1
    reps = np.random.default_rng(0).normal(size=(500, 1))
    lo, hi = bca_interval(reps, np.array([0.1]), jack)
    z0 = stats.norm.ppf(np.mean(reps < 0.1))
    levels = stats.norm.cdf(2 * z0 + stats.norm.ppf([0.025, 0.975]))  # BC: a = 0
    np.testing.assert_allclose([lo[0], hi[0]], np.quantile(reps[:, 0], levels), atol=1e-12)
    # No replicate below the estimate: z0 = −∞, BCa undefined.
    reps = np.linspace(1, 2, 100)[:, np.newaxis]
    lo, hi = bca_interval(reps, np.array([0.5]), np.linspace(0, 1, 10)[:, np.newaxis])
    assert math.isnan(lo[0]) and math.isnan(hi[0])
    # An undefined estimate gives no interval either way.
    for method in ("percentile", "bca"):
        out = bootstrap_intervals(
            np.ones((1, 5)),
            lambda y: {"s": np.full(y.shape[:-1], np.nan)},
            B=20,
            seed=0,
            method=method,
        )
        assert math.isnan(out["s"].lo[0]) and math.isnan(out["s"].hi[0])


def test_coverage_of_the_var_interval(record_property):
    """400 seeded trials of n = 50 normal scores with variance σ² = 0.04: the
    fraction whose 95 % interval of Var covers σ². All trials at once: x is
    (400, 1, 50), one system per trial."""
    sigma2 = 0.04
    x = np.random.default_rng(2024).normal(0.5, math.sqrt(sigma2), size=(400, 1, 50))

    def statistic(y):
        return {"var": system_fields(y, alphas=())["var"]}

    coverage = {}
    for method in ("percentile", "bca"):
        iv = bootstrap_intervals(x, statistic, B=1000, seed=7, method=method)["var"]
        coverage[method] = float(np.mean((iv.lo <= sigma2) & (sigma2 <= iv.hi)))
        record_property(f"coverage_{method}", coverage[method])
    print(f"coverage of 95 % Var intervals: {coverage}")
    assert coverage["percentile"] >= 0.87
    assert coverage["bca"] >= coverage["percentile"] - 0.01


# --------------------------------------------------------------------------- fields


@pytest.fixture(scope="module")
def sample_track():
    """Per-topic scores and the eval report (with a baseline) of the sample track."""
    scores_run = run_bvtest("scores", SAMPLE_QRELS, SAMPLE_RUNS)
    assert scores_run.returncode == 0, scores_run.stderr
    report = run_bvtest(
        "eval", "--format", "json", "--baseline", "sys003", SAMPLE_QRELS, SAMPLE_RUNS
    )
    assert report.returncode == 0, report.stderr
    return scores_run.stdout, json.loads(report.stdout)


def test_bootstrap_statistic_equals_the_eval_pipeline_on_the_sample_track(sample_track, tmp_path):
    text, report = sample_track
    path = tmp_path / "scores.tsv"
    path.write_text(text)
    matrices = read_scores(str(path))
    assert {m.measure for m in matrices} == set(report["measures"])
    for m in matrices:
        block = report["measures"][m.measure]
        got = system_fields(m.values, alphas=ALPHAS, baseline_index=m.systems.index("sys003"))
        for i, s in enumerate(m.systems):
            want = block["systems"][s]
            for name, value in want.items():
                if name == "pareto":  # a flag: no interval, not in the statistic
                    assert value == bool(pareto_front(got["bias2"], got["var"])[i])
                    continue
                # The same functions on the same matrix: the same floats, bit for bit
                # (JSON writes floats by repr, which reads back exactly).
                if isinstance(value, dict):
                    expected = [np.nan if v is None else v for v in value.values()]
                    np.testing.assert_array_equal(got[name][i], expected, err_msg=f"{s} {name}")
                else:
                    assert got[name][i] == value, (s, name)
        for name in ("pearson", "spearman"):
            assert float(got[name]) == block["tradeoff"][name]


def test_correlations_against_scipy():
    rng = np.random.default_rng(8)
    b = rng.random((50, 17))
    v = np.round(rng.random((50, 17)) * 4) / 4 - 0.3 * b  # ties in v
    r, rho = correlations(b, v)
    for k in range(50):
        assert r[k] == pytest.approx(stats.pearsonr(b[k], v[k]).statistic, abs=1e-12)
        assert rho[k] == pytest.approx(stats.spearmanr(b[k], v[k]).statistic, abs=1e-12)
    np.testing.assert_array_equal(rank_average(v), stats.rankdata(v, method="average", axis=-1))
    # docs/numbers.md: undefined with fewer than 3 systems or a constant vector.
    assert np.isnan(correlations([0.1, 0.2], [0.3, 0.1])[0])
    assert np.isnan(correlations([0.1, 0.1, 0.1], [0.3, 0.1, 0.2])[1])
    assert correlations([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1])[0] == -1.0


def test_correlation_distribution_against_a_loop():
    rng = np.random.default_rng(12)
    bias2, var = rng.random((200, 9)), rng.random((200, 9)) - 0.2 * rng.random((200, 9))
    var[5] = 0.3  # Var the same for every run in repeat 5: undefined there
    pearson, spearman = correlations(bias2, var)
    got = correlation_distribution({"pearson": pearson, "spearman": spearman})
    for name, fn in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr)):
        rs = np.array([fn(bias2[k], var[k]).statistic for k in range(200) if k != 5])
        s = got[name]
        assert (s.defined, s.repeats) == (199, 200)
        assert s.mean == pytest.approx(rs.mean(), abs=1e-12)
        assert s.lo == pytest.approx(np.quantile(rs, 0.025), abs=1e-12)
        assert s.hi == pytest.approx(np.quantile(rs, 0.975), abs=1e-12)
    flat = correlations(np.ones((3, 4)), np.ones((3, 4)))
    empty = correlation_distribution({"pearson": flat[0], "spearman": flat[1]})
    assert empty["pearson"].defined == 0 and math.isnan(empty["pearson"].mean)


# --------------------------------------------------------------------------- paired tests


def test_pitman_morgan_against_a_direct_computation():
    rng = np.random.default_rng(13)
    for n in (5, 20, 50):
        for _ in range(10):
            a = rng.random(n)
            b = 0.5 * a + rng.random(n) * rng.uniform(0.2, 2.0)
            s, d = a + b, a - b
            r_direct = np.corrcoef(s, d)[0, 1]
            t_direct = r_direct * math.sqrt((n - 2) / (1 - r_direct**2))
            p_direct = 2 * stats.t.sf(abs(t_direct), n - 2)
            r, t, p = pitman_morgan(a, b)
            assert float(r) == pytest.approx(r_direct, abs=1e-12)
            assert float(t) == pytest.approx(t_direct, rel=1e-10)
            assert float(p) == pytest.approx(p_direct, rel=1e-9, abs=1e-15)
            # Var(a) − Var(b) = Cov(a + b, a − b): the sign of r is the sign of the difference.
            assert np.sign(float(r)) == np.sign(a.var() - b.var())
    a = rng.random(12)
    _, _, p = pitman_morgan(np.stack([a, a]), np.stack([a + 0.1, 1.0 - a]))
    assert p.tolist() == [1.0, 1.0]  # b = a + c and b = c − a: equal variances exactly


def test_holm_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan, 0.5])
    # Five finite p-values; sorted 0.005, 0.01, 0.03, 0.04, 0.5 times 5, 4, 3, 2, 1:
    # 0.025, 0.04, 0.09, 0.08 → 0.09 (running max), 0.5.
    want = [0.04, 0.09, 0.09, 0.025, np.nan, 0.5]
    np.testing.assert_allclose(holm(p), want, rtol=1e-12)
    # Capped at 1: 0.3·3 = 0.9, 0.4·2 = 0.8 → 0.9, 0.6·1 = 0.6 → 0.9.
    np.testing.assert_allclose(holm(np.array([0.6, 0.3, 0.4])), [0.9, 0.9, 0.9])
    np.testing.assert_allclose(holm(np.array([0.6, 0.5])), [1.0, 1.0])


def test_compare_runs_against_a_direct_loop():
    x = scores(4, 15, 14)
    x[3] = x[1]  # a copy: every difference 0, p = 1
    systems = ("a", "b", "c", "d")
    B, seed = 200, 21
    rows = compare_runs(
        x,
        systems,
        statistic=comparison_statistic([0, 5]),
        spec=CompareSpec(alphas=("0", "5"), B=B, seed=seed),
    ).rows
    fields = ["mean", "var", "mse", "georisk@0", "georisk@5"]
    pairs = list(itertools.combinations(range(4), 2))
    assert [(r.a, r.b, r.field) for r in rows] == [
        (systems[i], systems[j], f) for i, j in pairs for f in fields
    ]

    def fields_of(y):
        out = direct_fields(y)
        geo = risk.georisk(y, [0.0, 5.0])
        return [out["mean"], out["var"], out["mse"], geo[:, 0], geo[:, 1]]

    idx = np.random.default_rng(seed).integers(0, 15, size=(B, 15))
    reps = [fields_of(x[:, row]) for row in idx]
    every_flip = np.array(list(itertools.product([False, True], repeat=15)))

    def stacked_fields(y):  # direct_fields over a stack (R, m, n)
        c = y.max(axis=1).mean(axis=-1)[:, np.newaxis]
        return {"mean": y.mean(axis=2), "var": y.var(axis=2),
                "mse": ((y - c[..., np.newaxis]) ** 2).mean(axis=2)}  # fmt: skip

    # the relabellings' documented stream: each topic swapped with probability ½
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    flips = rng.random((B, 15)) < 0.5
    est = fields_of(x)
    by_key = {(r.a, r.b, r.field): r for r in rows}
    for k, f in enumerate(fields):
        ps = []
        for i, j in pairs:
            row = by_key[(systems[i], systems[j], f)]
            d = np.array([rep[k][i] - rep[k][j] for rep in reps])
            assert row.diff == pytest.approx(est[k][i] - est[k][j], abs=1e-14)
            assert row.lo == pytest.approx(np.quantile(d, 0.025), abs=1e-12)
            assert row.hi == pytest.approx(np.quantile(d, 0.975), abs=1e-12)
            # the randomization test, relabelling the whole matrix (the
            # implementation uses the per-topic contrasts, or folds the other
            # runs into one row for GeoRisk)
            observed = abs(est[k][i] - est[k][j])
            assert row.test == "randomization"
            if k < 3:  # mean, Var, MSE: exact, all 2^15 relabellings at once
                y = np.repeat(x[np.newaxis], len(every_flip), axis=0)
                y[:, i] = np.where(every_flip, x[j], x[i])
                y[:, j] = np.where(every_flip, x[i], x[j])
                got = stacked_fields(y)[f]
                hits = np.sum(np.abs(got[:, i] - got[:, j]) >= observed * (1 - 1e-9))
                assert row.p == pytest.approx(hits / len(every_flip), abs=1e-6)
            else:
                hits = 0
                for flip in flips:
                    y = x.copy()
                    y[i], y[j] = np.where(flip, x[j], x[i]), np.where(flip, x[i], x[j])
                    got = fields_of(y)
                    hits += abs(got[k][i] - got[k][j]) >= observed * (1 - 1e-9)
                assert row.p == pytest.approx((1 + hits) / (1 + B), abs=1e-15)
            ps.append(row.p)
            if f == "var":
                assert row.p_pm == pytest.approx(float(pitman_morgan(x[i], x[j])[2]), abs=1e-15)
                assert set(row.as_dict()) >= {"p_pm", "test", "p_pm_adj"}
            else:
                assert "p_pm" not in row.as_dict()
        np.testing.assert_allclose(
            [by_key[(systems[i], systems[j], f)].p_adj for i, j in pairs], holm(np.array(ps))
        )
    copy = by_key[("b", "d", "mean")]
    assert (copy.diff, copy.lo, copy.hi, copy.p) == (0.0, 0.0, 0.0, 1.0)
    assert by_key[("b", "d", "var")].p_pm == 1.0


def test_compare_runs_bca_and_chosen_pairs():
    x = scores(5, 20, 15)
    names = ("r1", "r2", "r3", "r4", "r5")
    statistic = comparison_statistic([1.0])
    rows = compare_runs(
        x,
        names,
        [("r2", "r5")],
        statistic=statistic,
        spec=CompareSpec(alphas=(1.0,), B=300, seed=3, method="bca"),
    ).rows
    assert [r.field for r in rows] == ["mean", "var", "mse", "georisk@1"]
    mean = rows[0]
    # BCa on the mean difference of the paired topics, against scipy (paired=True
    # resamples the same topics for both runs, from the same generator stream).
    ref = stats.bootstrap(
        (x[1], x[4]),
        lambda a, b, axis: a.mean(axis=axis) - b.mean(axis=axis),
        paired=True,
        n_resamples=300,
        **_generator(3),
        method="BCa",
    )
    assert mean.lo == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert mean.hi == pytest.approx(ref.confidence_interval.high, abs=1e-12)
    with pytest.raises(ValueError, match="not among"):
        compare_runs(x, names, [("r2", "r9")], statistic=statistic, spec=CompareSpec(B=10))
    with pytest.raises(ValueError, match="itself"):
        compare_runs(x, names, [("r2", "r2")], statistic=statistic, spec=CompareSpec(B=10))


# --------------------------------------------------------------------------- Pareto


def test_pareto_on_seed_000_table_2():
    x = np.array([[0.8, 0.9, 0.4], [0.5, 0.6, 0.7], [0.3, 0.6, 0.3]])
    got = system_fields(x, alphas=())
    # x_T = (0.8, 0.9, 0.7), c = 0.8; means 0.7, 0.6, 0.4.
    np.testing.assert_allclose(got["bias2"], [0.01, 0.04, 0.16], atol=1e-15)
    # Var (1/n): f1 deviations (0.1, 0.2, −0.3) → 0.14/3; f2 (−0.1, 0, 0.1) → 0.02/3;
    # f3 (−0.1, 0.2, −0.1) → 0.06/3.
    np.testing.assert_allclose(got["var"], [0.14 / 3, 0.02 / 3, 0.06 / 3], atol=1e-15)
    # f3 is dominated by f2 (lower Bias² and lower Var); f1 and f2 trade off.
    assert pareto_front(got["bias2"], got["var"]).tolist() == [True, True, False]


def test_pareto_against_brute_force_with_ties():
    rng = np.random.default_rng(16)
    b = rng.integers(0, 4, (30, 8)).astype(float)  # many ties
    v = rng.integers(0, 4, (30, 8)).astype(float)
    b[0, 3] = np.nan
    got = pareto_front(b, v)
    for r in range(30):
        for i in range(8):
            dominated = any(
                b[r, j] <= b[r, i]
                and v[r, j] <= v[r, i]
                and (b[r, j] < b[r, i] or v[r, j] < v[r, i])
                for j in range(8)
                if j != i
            )
            assert got[r, i] == (not dominated and not np.isnan(b[r, i])), (r, i)
    # Two runs tied in both stay on the front together.
    assert pareto_front([0.1, 0.1, 0.2], [0.3, 0.3, 0.4]).tolist() == [True, True, False]


def test_replicates_shapes():
    x = scores(6, 11, 17)
    reps = bootstrap_replicates(x, lambda y: system_fields(y, alphas=(0, 1)), B=13, seed=1)
    assert reps["var"].shape == (13, 6)
    assert reps["zrisk"].shape == (13, 6, 2)
    assert reps["pearson"].shape == (13,)
