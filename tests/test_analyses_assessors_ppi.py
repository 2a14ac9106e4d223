"""Prediction-powered means (bvtest_cli.analyses.assessors.ppi).

Oracles: ppi_python 0.2.3 (``ppi_py.ppi_mean_pointestimate``, ``ppi_mean_ci``,
``ppi_mean_pval``, ``classical_mean_ci`` and, for λ̂, ``ppi.ppi._calc_lam_glm``
called exactly as ``ppi_mean_ci`` calls it with ``lam=None``) run in a scratch
virtualenv outside the project (numpy 2.4.6) on the arrays :func:`case`
generates, its outputs recorded as literals (ppi_py is not a dependency of
bvtest); hand arithmetic written out in the comments; scipy.stats' Student t
interval; and a coverage simulation with a known true mean.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bvtest_cli.analyses.assessors.ppi import (
    human_mean,
    judge_mean,
    power_tuning,
    ppi_mean,
    ppi_point,
)


def case(k: int, n: int, N: int, slope: float, noise: float, runs: int = 0):
    """Seeded scores (y, f, f_unlabelled): per-topic truth y (an AP-like beta(2, 5)
    when k < 10, else a difference of two runs near 0) and the judge's
    f = slope·y + offset + noise on the first n topics and on the N − n others.
    The scratch-venv oracle ran this same function."""
    rng = np.random.default_rng(k)
    shape = (runs, N) if runs else (N,)
    if k < 10:
        truth = rng.beta(2.0, 5.0, size=shape)
        offset = 0.1
    else:
        truth = rng.normal(0.02, 0.1, size=shape)
        offset = 0.01
    judge = slope * truth + offset + rng.normal(0.0, noise, size=shape)
    return truth[..., :n], judge[..., :n], judge[..., n:]


# Keys: the arguments of case(). Sums of y, f and f_unlabelled as the oracle
# saw them: a failure here means numpy's streams changed, not the code.
SUMS = {
    (0, 10, 100, 1.0, 0.1): (2.193114024933454, 3.072324302255094, 34.73840096521317),
    (1, 30, 100, 1.0, 0.1): (9.462194421769222, 12.919098356996326, 24.669645466945965),
    (2, 10, 100, 0.3, 0.1): (2.8588338491641627, 1.3770154625520181, 15.68804465583544),
    (3, 30, 100, -0.5, 0.1): (8.588780873027247, -0.14043989345085128, -2.633908385725004),
    (5, 10, 100, 0.5, 0.01): (2.4320613080140063, 2.2586597964229886, 23.49035292294295),
    (11, 10, 100, 1.0, 0.1): (0.26962233410303155, 0.11473214174760743, 3.2124753634854177),
    (12, 30, 100, 0.8, 0.05): (0.649135130936989, 0.8857406290717399, 1.9101669462710484),
}

# ppi_py with lam=None: λ̂ (_calc_lam_glm(..., clip=True)), ppi_mean_pointestimate,
# ppi_mean_ci at alpha 0.1 (lower, upper) and 0.05 (lower, upper), and
# ppi_mean_pval(..., lam=λ̂). λ̂ is clipped to 0 in cases 2 and 3 and to 1 in
# case 5; there ppi_mean_pval(lam=None), which does not clip, gives another
# p (4.337443162192348e-09, 8.941949412262493e-33, 5.631509986164594e-54).
TUNED = {
    (0, 10, 100, 1.0, 0.1): (
        0.49922241806054785,
        0.25862506942966573,
        0.21525834906478883,
        0.30199178979454266,
        0.20695043489071893,
        0.3102997039686125,
        1.0260298009059745e-22,
    ),
    (1, 30, 100, 1.0, 0.1): (
        0.4183143785433085,
        0.28268881421773673,
        0.25677220170234916,
        0.3086054267331243,
        0.2518072656719352,
        0.3135703627635383,
        5.597084247387265e-72,
    ),
    (2, 10, 100, 0.3, 0.1): (
        0.0,
        0.2858833849164163,
        0.2063486798337461,
        0.3654180899990865,
        0.19111193843095498,
        0.3806548314018776,
        3.3727873229953537e-09,
    ),
    (3, 30, 100, -0.5, 0.1): (
        0.0,
        0.2862926957675749,
        0.23502140863553428,
        0.3375639828996155,
        0.22519918898177246,
        0.34738620255337727,
        4.128115236820463e-20,
    ),
    (5, 10, 100, 0.5, 0.01): (
        1.0,
        0.27834407252513454,
        0.24548307464144206,
        0.31120507040882706,
        0.2391877784374635,
        0.31750036661280556,
        4.0213488696229327e-44,
    ),
    (11, 10, 100, 1.0, 0.1): (
        0.6317064444662183,
        0.04226276774184003,
        0.017654182768292396,
        0.06687135271538766,
        0.012939830145235334,
        0.07158570533844472,
        0.004729972218298622,
    ),
    (12, 30, 100, 0.8, 0.05): (
        0.6956361702729921,
        0.020081985906564178,
        0.0015335488971601231,
        0.03863042291596823,
        -0.0020198400019939,
        0.042183811815122256,
        0.07493745813513272,
    ),
}

# ppi_py at alpha 0.05 with lam=1: ppi_mean_pointestimate, ppi_mean_ci
# (lower, upper), ppi_mean_pval; with lam=0: ppi_mean_ci (lower, upper); then
# classical_mean_ci(y) and classical_mean_ci(np.concatenate([f, f_unlabelled])).
FIXED = {
    (0, 10, 100, 1.0, 0.1): (
        0.29806120521464907,
        0.22137120521173,
        0.3747512052175681,
        2.5855358709818828e-14,
        0.14560465853241844,
        0.2930181464542724,
        0.14560465853241844,
        0.2930181464542724,
        0.3460763984818402,
        0.4101381068675251,
    ),
    (1, 30, 100, 1.0, 0.1): (
        0.23719337549641975,
        0.18738781469210372,
        0.2869989363007358,
        1.0184537447903296e-20,
        0.2734658403330105,
        0.357347121118271,
        0.2734658403330105,
        0.357347121118271,
        0.34504254781899046,
        0.40673232865985554,
    ),
    (2, 10, 100, 0.3, 0.1): (
        0.3224934459482749,
        0.2079142364640511,
        0.4370726554324987,
        3.458289874036009e-08,
        0.19111193843095498,
        0.3806548314018776,
        0.19111193843095498,
        0.3806548314018776,
        0.1492296224148873,
        0.192071579952862,
    ),
    (3, 30, 100, -0.5, 0.1): (
        0.2533467628960556,
        0.15203381294720356,
        0.3546597128449077,
        9.527456111882708e-07,
        0.22519918898177246,
        0.34738620255337727,
        0.22519918898177246,
        0.34738620255337727,
        -0.052522167996078034,
        -0.0029647975874390574,
    ),
    (5, 10, 100, 0.5, 0.01): (
        0.27834407252513454,
        0.2391877784374635,
        0.31750036661280556,
        4.0213488696229327e-44,
        0.16677246750587058,
        0.31963979409693066,
        0.16677246750587058,
        0.31963979409693066,
        0.24164876979890332,
        0.27333148458841544,
    ),
    (11, 10, 100, 1.0, 0.1): (
        0.051183189940935944,
        -0.002491869691666787,
        0.10485824957353868,
        0.06162664432166716,
        -0.02925513430123032,
        0.08317960112183663,
        -0.02925513430123032,
        0.08317960112183663,
        0.007512343789414441,
        0.05903180631524606,
    ),
    (12, 30, 100, 0.8, 0.05): (
        0.01940124929461852,
        -0.007026189540077353,
        0.04582868812931439,
        0.15018627622107542,
        -0.010777963917249257,
        0.054053639313048525,
        -0.010777963917249257,
        0.054053639313048525,
        0.011330598939668472,
        0.04458755256718731,
    ),
}

TOL = 1e-10


def close(value: np.ndarray | float, expected: float) -> None:
    # p-values reach 1e-72: relative as well as absolute.
    assert float(value) == pytest.approx(expected, abs=TOL, rel=1e-9)


@pytest.mark.parametrize("key", sorted(SUMS))
def test_inputs_as_the_oracle_saw_them(key: tuple) -> None:
    for array, total in zip(case(*key), SUMS[key], strict=True):
        assert float(array.sum()) == pytest.approx(total, abs=1e-12)


@pytest.mark.parametrize("key", sorted(TUNED))
def test_power_tuned_matches_ppi_py(key: tuple) -> None:
    y, f, unl = case(*key)
    lam, point, lo10, hi10, lo05, hi05, p = TUNED[key]
    close(power_tuning(y, f, unl), lam)
    wide = ppi_mean(y, f, unl, alpha=0.05)
    narrow = ppi_mean(y, f, unl, alpha=0.1)
    for result in (wide, narrow):
        close(result.lam, lam)
        close(result.estimate, point)
        assert result.interval == "normal" and np.isinf(result.df)
    close(narrow.lower, lo10)
    close(narrow.upper, hi10)
    close(wide.lower, lo05)
    close(wide.upper, hi05)
    close(wide.p, p)
    # The p-value and the interval come from one normal: p < α ⇔ 0 outside.
    assert (wide.p < 0.05) == (not wide.lower <= 0.0 <= wide.upper)


@pytest.mark.parametrize("key", sorted(FIXED))
def test_fixed_lambda_matches_ppi_py(key: tuple) -> None:
    y, f, unl = case(*key)
    point1, lo1, hi1, p1, lo0, hi0, clo, chi, jlo, jhi = FIXED[key]
    plain = ppi_mean(y, f, unl, lam=1.0)
    close(ppi_point(y, f, unl, 1.0), point1)
    close(plain.estimate, point1)
    close(plain.lower, lo1)
    close(plain.upper, hi1)
    close(plain.p, p1)
    none = ppi_mean(y, f, unl, lam=0.0)
    close(none.lower, lo0)
    close(none.upper, hi0)
    human = human_mean(y)
    close(human.lower, clo)
    close(human.upper, chi)
    judge = judge_mean(f, unl)
    close(judge.lower, jlo)
    close(judge.upper, jhi)
    assert np.isnan(judge.lam)


def test_vectorised_over_runs_matches_ppi_py() -> None:
    y, f, unl = case(4, 20, 100, 1.0, 0.1, runs=3)
    assert float(y.sum()) == pytest.approx(14.784449176588957, abs=1e-12)
    assert float(f.sum()) == pytest.approx(21.70817931019598, abs=1e-12)
    assert float(unl.sum()) == pytest.approx(97.59172840471953, abs=1e-12)
    # ppi_py run by run (λ̂, point estimate, ppi_mean_ci at 0.05), first with
    # each run's own y, then with run 0's y for the three judge runs.
    own = [
        (0.35634441948702483, 0.2641457167146351, 0.21166993331387252, 0.3166215001153977),
        (0.6420515982887163, 0.27102191748094195, 0.22845734292868722, 0.3135864920331967),
        (0.3431926130779674, 0.2439911194953893, 0.20495540434982984, 0.28302683464094874),
    ]
    shared = [
        (0.35634441948702483, 0.2641457167146351, 0.21166993331387252, 0.3166215001153977),
        (0.10954288421650646, 0.23361694416876705, 0.168132092658066, 0.2991017956794681),
        (0.0, 0.23627344596526795, 0.17000777028084807, 0.3025391216496878),
    ]
    for human, expected in ((y, own), (y[0], shared)):
        result = ppi_mean(human, f, unl)
        assert result.estimate.shape == (3,)
        np.testing.assert_allclose(result.lam, [e[0] for e in expected], atol=TOL, rtol=0)
        np.testing.assert_allclose(result.estimate, [e[1] for e in expected], atol=TOL, rtol=0)
        np.testing.assert_allclose(result.lower, [e[2] for e in expected], atol=TOL, rtol=0)
        np.testing.assert_allclose(result.upper, [e[3] for e in expected], atol=TOL, rtol=0)


# A small case by hand: y = .2 .4 .6 .8, f = .3 .4 .8 .9 on n = 4 topics,
# f_unlabelled = .5 .7 on N′ = 2.
Y = np.array([0.2, 0.4, 0.6, 0.8])
F = np.array([0.3, 0.4, 0.8, 0.9])
U = np.array([0.5, 0.7])


def test_lambda_one_and_zero_by_hand() -> None:
    # λ = 1: y − f = −.1 0 −.2 −.1, mean −.1, deviations 0 .1 −.1 0, Σ² = .02;
    # mean(f_u) = .6, deviations ∓.1, Σ² = .02. θ̂ = .6 − .1 = .5;
    # se² = (.02/2)/2 + (.02/4)/4 = .005 + .00125 = .00625.
    plain = ppi_mean(Y, F, U, lam=1.0)
    assert float(plain.estimate) == pytest.approx(0.5, abs=1e-12)
    assert float(plain.se) ** 2 == pytest.approx(0.00625, abs=1e-12)
    z = stats.norm.ppf(0.975)
    assert float(plain.lower) == pytest.approx(0.5 - z * 0.00625**0.5, abs=1e-12)
    # λ = 0: θ̂ = ȳ = .5, deviations ∓.3 ∓.1, Σ² = .2, se² = (.2/4)/4 = .0125;
    # the imputed part is 0·f_u, no variance.
    none = ppi_mean(Y, F, U, lam=0.0)
    assert float(none.estimate) == pytest.approx(0.5, abs=1e-12)
    assert float(none.se) ** 2 == pytest.approx(0.0125, abs=1e-12)
    # t with a given λ = 1: divisors N′ − 1 = 1 and n − 1 = 3, df 3:
    # se² = .02/2 + (.02/3)/4 = .01 + .0016667.
    t = ppi_mean(Y, F, U, lam=1.0, interval="t")
    assert float(t.se) ** 2 == pytest.approx(0.01 + 0.02 / 12, abs=1e-12)
    assert float(t.df) == 3.0
    assert float(t.upper) == pytest.approx(0.5 + stats.t.ppf(0.975, 3) * float(t.se), abs=1e-12)


def test_power_tuning_by_hand() -> None:
    # Cov(y, f) with divisor n: deviations y ∓.3 ∓.1, f −.3 −.2 .2 .3:
    # (.09 + .02 + .02 + .09)/4 = .055. Pooled f ∪ f_u = .3 .4 .8 .9 .5 .7,
    # mean .6, Σ² = .09 + .04 + .04 + .09 + .01 + .01 = .28, Var = .28/5 = .056.
    # 1 + n/N′ = 3: λ̂ = .055/(3·.056) = 55/168.
    assert float(power_tuning(Y, F, U)) == pytest.approx(55 / 168, abs=1e-12)
    # Clipping: a judge reversed (f → 1 − f) has Cov < 0, λ̂ = 0; a constant
    # judge has no variance, λ̂ = 0 (ppi_py: NaN) and θ̂ is the human mean.
    assert float(power_tuning(Y, 1 - F, 1 - U)) == 0.0
    flat = ppi_mean(Y, np.full(4, 0.3), np.full(2, 0.3))
    assert float(flat.lam) == 0.0 and float(flat.estimate) == pytest.approx(0.5)
    # f = y/4, f_u = .125 .125: Cov = Var(y)/4 = .05/4 = .0125; pooled f
    # deviations ∓.075 ∓.025 0 0, Σ² = .0125, Var = .0025: λ = .0125/(3·.0025)
    # = 5/3, clipped to 1.
    assert float(power_tuning(Y, Y / 4, np.full(2, 0.125))) == 1.0
    assert float(ppi_mean(Y, Y / 4, np.full(2, 0.125)).lam) == 1.0


def test_t_interval_at_small_n() -> None:
    y, f, unl = case(0, 10, 100, 1.0, 0.1)
    normal = ppi_mean(y, f, unl)
    t = ppi_mean(y, f, unl, interval="t")
    assert float(t.df) == 8.0  # n − 2: λ tuned
    assert t.lower < normal.lower and normal.upper < t.upper
    assert float(t.p) > float(normal.p)
    assert float(t.estimate) == float(normal.estimate)
    assert float(ppi_mean(y, f, unl, lam=0.5, interval="t").df) == 9.0
    # At λ = 0 the t interval is the Student interval of the human mean.
    expected = stats.t.interval(0.95, 9, loc=y.mean(), scale=stats.sem(y))
    for result in (ppi_mean(y, f, unl, lam=0.0, interval="t"), human_mean(y, interval="t")):
        assert (float(result.lower), float(result.upper)) == pytest.approx(expected, abs=1e-12)
        assert float(result.p) == pytest.approx(stats.ttest_1samp(y, 0.0).pvalue, rel=1e-9)
    pooled = np.concatenate([f, unl])
    judge = judge_mean(f, unl, interval="t")
    expected = stats.t.interval(0.95, 99, loc=pooled.mean(), scale=stats.sem(pooled))
    assert (float(judge.lower), float(judge.upper)) == pytest.approx(expected, abs=1e-12)


def test_coverage_with_a_known_truth() -> None:
    # Topics from a population whose mean human score is known: beta(2, 5),
    # mean 2/7; the judge is the score + 0.1 (bias) + N(0, 0.1²) noise. Each
    # replicate draws N = 100 topics, humans judge n = 20 of them.
    rng = np.random.default_rng(20240611)
    reps, n, truth = 1000, 20, 2 / 7
    y = rng.beta(2.0, 5.0, size=(reps, 100))
    judge = y + 0.1 + rng.normal(0.0, 0.1, size=y.shape)
    covered = {}
    for interval in ("normal", "t"):
        result = ppi_mean(y[:, :n], judge[:, :n], judge[:, n:], interval=interval)
        covered[interval] = float(np.mean((result.lower <= truth) & (truth <= result.upper)))
    mc_se = (0.95 * 0.05 / reps) ** 0.5
    assert covered["t"] >= covered["normal"]
    assert abs(covered["t"] - 0.95) <= 3 * mc_se
    # The judge alone is biased by 0.1 (its interval is for the judge's mean).
    alone = judge_mean(judge[:, :n], judge[:, n:])
    assert float(np.mean((alone.lower <= truth) & (truth <= alone.upper))) < 0.05


def test_edges() -> None:
    with pytest.raises(ValueError):
        ppi_mean(Y[:1], F[:1], U)  # one human-judged topic
    with pytest.raises(ValueError):
        ppi_mean(Y, F, U[:0])  # no judge-only topic
    with pytest.raises(ValueError):
        ppi_mean(Y, F[:3], U)
    with pytest.raises(ValueError):
        ppi_mean(Y, np.array([0.3, np.nan, 0.8, 0.9]), U)
    with pytest.raises(ValueError):
        ppi_mean(Y, F, U, alpha=1.0)
    with pytest.raises(ValueError):
        ppi_mean(Y, F, U, interval="bootstrap")
    with pytest.raises(ValueError):
        ppi_mean(Y[:2], F[:2], U, interval="t")  # tuned λ: n − 2 = 0 df
    with pytest.raises(ValueError):
        ppi_mean(Y, F, U[:1], interval="t")
    with pytest.raises(ValueError):
        human_mean(Y[:1])
    # No spread at all: se = 0, p = 1 at θ̂ = 0 and 0 elsewhere (ppi_py's floor).
    zero = ppi_mean(np.zeros(3), np.zeros(3), np.zeros(4), lam=1.0)
    assert float(zero.se) == 0.0 and float(zero.p) == 1.0
    shifted = ppi_mean(np.ones(3), np.zeros(3), np.zeros(4), lam=1.0)
    assert float(shifted.p) == 0.0 and float(shifted.lower) == float(shifted.upper) == 1.0
