"""bvtest_cli/analyses/assessors/judges.py against independent computations: the judge's
error decomposition by hand, τ_AP_b by a literal transcription of Urbano &
Marrero's definition, ranks and correlations against scipy, the simulated
judge's frequencies, and the human-topics experiment's judge-only RMSE by hand."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from bvtest_cli.analyses.assessors import judges as jd


def test_judge_error_is_the_decomposition_of_e():
    human = np.array([[0.5, 0.2, 0.9], [0.1, 0.4, 0.4]])
    judge = np.array([[0.4, 0.4, 0.6], [0.1, 0.5, 0.7]])
    e = jd.judge_error(human, judge)
    # run 0: e = (−0.1, 0.2, −0.3): mean −0.0667, population variance 0.0422
    assert e.bias[0] == pytest.approx(-0.2 / 3, abs=1e-15)
    assert e.var[0] == pytest.approx(np.var([-0.1, 0.2, -0.3]), abs=1e-15)
    # mse = bias² + var = mean of e² when ddof = 0
    np.testing.assert_allclose(e.mse, ((judge - human) ** 2).mean(axis=1), atol=1e-15)
    sample = jd.judge_error(human, judge, ddof=1)
    assert sample.var[1] == pytest.approx(np.var([0.0, 0.1, 0.3], ddof=1), abs=1e-15)


def brute_tau_ap_b_one_way(x: list[float], y: list[float]) -> float:
    """Urbano & Marrero 2017's τ_AP_b(x, y) as their reference code reads,
    written out with loops: y gives the positions; for every item with an item
    strictly above it in y, the share of those that x also puts strictly above."""
    total, count = 0.0, 0
    for i in range(len(y)):
        above = [j for j in range(len(y)) if y[j] > y[i]]
        if not above:
            continue
        total += sum(1 for j in above if x[j] > x[i]) / len(above)
        count += 1
    return 2 * total / count - 1 if count else math.nan


def yilmaz_tau_ap(truth: list[float], evaluated: list[float]) -> float:
    """Yilmaz et al. 2008, no ties: positions by ``evaluated``."""
    order = sorted(range(len(evaluated)), key=lambda k: -evaluated[k])
    s = 0.0
    for pos in range(1, len(order)):
        item = order[pos]
        s += sum(1 for j in order[:pos] if truth[j] > truth[item]) / pos
    return 2 * s / (len(order) - 1) - 1


@pytest.mark.parametrize(
    "x, y",
    [
        ([0.9, 0.7, 0.5, 0.3, 0.1], [0.9, 0.5, 0.7, 0.3, 0.1]),
        ([0.5, 0.4, 0.3, 0.2, 0.1, 0.05], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]),
        ([0.5, 0.5, 0.3, 0.2, 0.2], [0.6, 0.4, 0.4, 0.1, 0.3]),  # ties in both
        ([0.3, 0.3, 0.3, 0.1], [0.4, 0.2, 0.3, 0.2]),
    ],
)
def test_tau_ap_b_is_urbano_and_marreros(x, y):
    want = (brute_tau_ap_b_one_way(x, y) + brute_tau_ap_b_one_way(y, x)) / 2
    assert jd.tau_ap_b(np.array(x), np.array(y)) == pytest.approx(want, abs=1e-12)
    if len(set(x)) == len(x) and len(set(y)) == len(y):  # no ties: Yilmaz's, both ways
        both = (yilmaz_tau_ap(x, y) + yilmaz_tau_ap(y, x)) / 2
        assert jd.tau_ap_b(np.array(x), np.array(y)) == pytest.approx(both, abs=1e-12)


def test_leaderboards_against_scipy():
    rng = np.random.default_rng(4)
    for _ in range(20):
        human = np.round(rng.uniform(0, 1, 9), 2)
        judge = np.round(human + rng.normal(0, 0.15, 9), 2)
        board = jd.leaderboards(human, judge)
        assert board.kendall_tau == pytest.approx(stats.kendalltau(human, judge)[0], abs=1e-12)
        assert board.spearman == pytest.approx(stats.spearmanr(human, judge)[0], abs=1e-12)
        # competition ranks (1 best), ties sharing the best rank of their group
        want = stats.rankdata(-human, method="min")
        np.testing.assert_array_equal(board.rank_human, want)
        judge_ranks = stats.rankdata(-judge, method="min")
        assert board.max_rank_change == int(np.abs(want - judge_ranks).max())


def test_simulated_grades_follow_the_confusion_rows():
    rows, columns = np.array([0, 1, 2]), np.array([0, 1, 2, 3])
    p = np.array([[0.7, 0.3, 0.0, 0.0], [0.1, 0.5, 0.4, 0.0], [0.0, 0.0, 0.2, 0.8]])
    grades = np.repeat([0, 1, 2], 20000)
    drawn = jd.simulated_grades(grades, rows, p, columns, seed=3)
    for r, g in enumerate(rows):
        got = np.array([(drawn[grades == g] == c).mean() for c in columns])
        np.testing.assert_allclose(got, p[r], atol=4 * math.sqrt(0.25 / 20000))
    # seeded: the same draws again; another key, other draws
    np.testing.assert_array_equal(drawn, jd.simulated_grades(grades, rows, p, columns, seed=3))
    other = jd.simulated_grades(grades, rows, p, columns, seed=3, key=(7,))
    assert (other != drawn).any()
    with pytest.raises(ValueError, match="no row"):
        jd.simulated_grades(np.array([5]), rows, p, columns, seed=3)


def test_experiment_judge_only_rmse_by_hand():
    rng = np.random.default_rng(9)
    human = rng.uniform(0, 1, (4, 12))
    judge = np.clip(human + 0.1 + rng.normal(0, 0.05, human.shape), 0, 1)
    rows = jd.human_topics_experiment(human, judge, jd.ExperimentSpec((3, 6), draws=25, seed=2))
    assert [(r.topics, r.method) for r in rows] == list(itertools.product((3, 6), jd.METHODS))
    # judge-only uses every topic whatever the draw: √mean (judge mean − human mean)²
    want = math.sqrt(np.mean((judge.mean(axis=1) - human.mean(axis=1)) ** 2))
    for r in rows:
        if r.method == "judge":
            assert r.rmse == pytest.approx(want, abs=1e-12)
        assert 0 <= r.coverage <= 1 and 0 <= r.wrong_claims <= 1 and r.width > 0
    with pytest.raises(ValueError, match="2 ≤"):
        jd.human_topics_experiment(human, judge, jd.ExperimentSpec((12,), draws=2))


def test_a_perfect_judge_in_the_experiment():
    # a judge equal to the humans: judge-only is the truth; PPI (λ = 1) is the mean of
    # the N − n judge-only topics, so with N − n > n it errs less than the n human ones
    rng = np.random.default_rng(10)
    human = rng.uniform(0, 1, (3, 10))
    rows = jd.human_topics_experiment(human, human.copy(), jd.ExperimentSpec((3,), draws=400))
    by = {r.method: r for r in rows}
    assert by["judge"].rmse == pytest.approx(0.0, abs=1e-15)
    assert 0 < by["ppi"].rmse < by["human"].rmse
