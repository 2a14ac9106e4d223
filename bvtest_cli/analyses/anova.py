"""The two-way ANOVA without replication of a systems × topics matrix.

Every system is run on every topic once, so a score x_ij is modelled as
μ + s_i + q_j + e_ij (systems × topics, one observation per cell). The
mean squares are the basis of Tukey's HSD over all pairs of systems
[Carterette12; Sakai14], of effect sizes standardised by the residual
standard deviation, of Generalizability theory's variance components
[Brennan01; Urbano13] and of topic-set-size design [Sakai16].

Shapes are (..., m, n): m systems, n topics; every result has shape (...).
Pure numpy, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TwoWay:
    """Sums of squares, degrees of freedom and mean squares, each of shape (...).

    ``ms_residual`` is V_E of [Sakai16] (the residual mean square), and
    2·V_E the average variance of a paired difference between two systems.
    """

    systems: int
    topics: int
    ss_systems: np.ndarray
    ss_topics: np.ndarray
    ss_residual: np.ndarray

    @property
    def df_systems(self) -> int:
        return self.systems - 1

    @property
    def df_topics(self) -> int:
        return self.topics - 1

    @property
    def df_residual(self) -> int:
        return (self.systems - 1) * (self.topics - 1)

    @property
    def ms_systems(self) -> np.ndarray:
        return self.ss_systems / self.df_systems

    @property
    def ms_topics(self) -> np.ndarray:
        return self.ss_topics / self.df_topics

    @property
    def ms_residual(self) -> np.ndarray:
        return self.ss_residual / self.df_residual


def two_way(x: np.ndarray) -> TwoWay:
    """The two-way ANOVA without replication of scores x (..., m, n).

    SS_s = n Σ_i (x̄_i· − x̄)², SS_q = m Σ_j (x̄_·j − x̄)²,
    SS_e = Σ_ij (x_ij − x̄_i· − x̄_·j + x̄)², with m − 1, n − 1 and
    (m − 1)(n − 1) degrees of freedom. The residual is summed from its own
    terms (not as SS_total − SS_s − SS_q), so that it is never negative by
    cancellation. Needs m ≥ 2 and n ≥ 2 and finite scores.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim < 2:
        raise ValueError("two_way needs scores of shape (..., m, n)")
    m, n = x.shape[-2], x.shape[-1]
    if m < 2 or n < 2:
        raise ValueError(f"two_way needs at least 2 systems and 2 topics, got {m} × {n}")
    grand = x.mean(axis=(-2, -1), keepdims=True)
    rows = x.mean(axis=-1, keepdims=True)
    cols = x.mean(axis=-2, keepdims=True)
    ss_s = n * ((rows - grand) ** 2).sum(axis=(-2, -1))
    ss_q = m * ((cols - grand) ** 2).sum(axis=(-2, -1))
    ss_e = ((x - rows - cols + grand) ** 2).sum(axis=(-2, -1))
    return TwoWay(systems=m, topics=n, ss_systems=ss_s, ss_topics=ss_q, ss_residual=ss_e)
