"""The two-way ANOVA without replication against hand computation and identities."""

from __future__ import annotations

import numpy as np
import pytest

from bvtest_cli.analyses.anova import two_way


def test_hand_worked_two_by_two():
    # x = [[1, 2], [3, 6]]: grand mean 3, system means 1.5 and 4.5, topic
    # means 2 and 4; SS_s = 2·(1.5² + 1.5²) = 9, SS_q = 2·(1 + 1) = 4, the
    # residuals are ±0.5, so SS_e = 1; SS_total = 4 + 1 + 0 + 9 = 14.
    a = two_way(np.array([[1.0, 2.0], [3.0, 6.0]]))
    assert (a.ss_systems, a.ss_topics, a.ss_residual) == (9.0, 4.0, 1.0)
    assert (a.df_systems, a.df_topics, a.df_residual) == (1, 1, 1)
    assert (a.ms_systems, a.ms_topics, a.ms_residual) == (9.0, 4.0, 1.0)


def test_sums_of_squares_add_up_and_stack():
    rng = np.random.default_rng(3)
    x = rng.random((4, 5, 7))
    a = two_way(x)
    total = ((x - x.mean(axis=(-2, -1), keepdims=True)) ** 2).sum(axis=(-2, -1))
    np.testing.assert_allclose(a.ss_systems + a.ss_topics + a.ss_residual, total, rtol=1e-12)
    for k in range(4):
        one = two_way(x[k])
        assert one.ms_residual == pytest.approx(a.ms_residual[k], rel=1e-12)


def test_residual_is_the_mean_paired_difference_variance_over_two():
    # 2·V_E equals the paired-difference variance averaged over all pairs
    # (with ddof=1), an identity of the additive model.
    rng = np.random.default_rng(5)
    x = rng.random((6, 11))
    v = [np.var(x[i] - x[j], ddof=1) for i in range(6) for j in range(i + 1, 6)]
    assert 2 * two_way(x).ms_residual == pytest.approx(np.mean(v), rel=1e-12)


def test_too_small():
    with pytest.raises(ValueError):
        two_way(np.ones((1, 4)))
