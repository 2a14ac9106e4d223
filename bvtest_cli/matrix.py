"""The systems × topics score matrix and the virtual target (SPEC §3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScoreMatrix:
    """Per-topic scores of one measure: ``values[i, j]`` is system i on topic j."""

    measure: str
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray  # shape (m, n), float64

    def __post_init__(self) -> None:
        if self.values.shape != (len(self.systems), len(self.topics)):
            raise ValueError(
                f"values shape {self.values.shape} does not match "
                f"{len(self.systems)} systems × {len(self.topics)} topics"
            )

    @property
    def target(self) -> np.ndarray:
        """The virtual target x_T[j] = max_i x[i, j] over all systems (SPEC §3)."""
        return virtual_target(self.values)

    def select_topics(self, keep: np.ndarray) -> ScoreMatrix:
        """The matrix restricted to the topics where boolean ``keep`` is true."""
        topics = tuple(t for t, k in zip(self.topics, keep, strict=True) if k)
        return ScoreMatrix(self.measure, self.systems, topics, self.values[:, keep])

    def select_systems(self, keep: np.ndarray) -> ScoreMatrix:
        """The matrix restricted to the systems where boolean ``keep`` is true."""
        systems = tuple(s for s, k in zip(self.systems, keep, strict=True) if k)
        return ScoreMatrix(self.measure, systems, self.topics, self.values[keep, :])


def virtual_target(values: np.ndarray) -> np.ndarray:
    """x_T[j] = max_i x[i, j] (seed 000 §3.2, seed 001 eq. 1); works on (..., m, n)."""
    return values.max(axis=-2)


def target_constant(target: np.ndarray, spec: str | float) -> np.ndarray | float:
    """The constant c that Bias² is measured against (SPEC §3).

    ``"max"``: c = mean of the virtual target over the last axis (topics or
    samples); ``"ideal"``: c = 1, the metric's maximum; a number: that constant.
    """
    if spec == "max":
        return target.mean(axis=-1)
    if spec == "ideal":
        return 1.0
    return float(spec)
