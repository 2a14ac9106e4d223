"""The systems × topics score matrix and the virtual target (docs/inputs.md)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

F = TypeVar("F", bound=Callable)


def quiet(f: F) -> F:
    """Run ``f`` without numpy floating-point warnings.

    Scores so large that sums overflow (a scores file may hold 1e300), or a
    sample set with nothing kept, give inf or NaN, which the CLI prints as
    such (null in JSON); a RuntimeWarning would only clutter stderr. A fresh
    errstate per call, since numpy's is not reentrant.
    """

    @functools.wraps(f)
    def quiet_call(*args, **kwargs):
        with np.errstate(all="ignore"):
            return f(*args, **kwargs)

    return quiet_call  # type: ignore[return-value]


@dataclass(frozen=True)
class ScoreMatrix:
    """Per-topic scores of one measure: ``values[i, j]`` is system i on topic j."""

    measure: str
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray  # shape (m, n), float64
    # The sampling variance of each estimate of a sampled measure (statAP,
    # xinfAP), when the evaluation was asked for it (eval --ci); else None.
    sampling_variance: np.ndarray | None = None

    def __post_init__(self) -> None:
        shape = (len(self.systems), len(self.topics))
        for name, array in (("values", self.values), ("sampling_variance", self.sampling_variance)):
            if array is not None and array.shape != shape:
                raise ValueError(
                    f"{name} shape {array.shape} does not match "
                    f"{len(self.systems)} systems × {len(self.topics)} topics"
                )

    @property
    def target(self) -> np.ndarray:
        """The virtual target x_T[j] = max_i x[i, j] over all systems (docs/inputs.md)."""
        return virtual_target(self.values)


def virtual_target(values: np.ndarray) -> np.ndarray:
    """x_T[j] = max_i x[i, j] (Zhang22 §3.2, Zhang14 eq. 1); works on (..., m, n)."""
    return values.max(axis=-2)


@quiet
def exact_mean(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """The mean along ``axis``, exactly the common value where all values are equal.

    In floating point the mean of m copies of v is not always v (0.1 three
    times sums to 0.30000000000000004), and a difference that is
    mathematically zero, such as a run minus the mean of its identical copies,
    becomes noise that a ratio (TRisk) blows up. Where every value along the
    axis is equal the result is that value; elsewhere it is numpy's mean,
    bit for bit.
    """
    a = np.asarray(a, dtype=float)
    mean = a.mean(axis=axis)
    if a.shape[axis] == 0:
        return mean
    lo = a.min(axis=axis)
    return np.where(lo == a.max(axis=axis), lo, mean)[()]  # [()]: a scalar stays a scalar


def target_constant(target: np.ndarray, spec: str | float) -> np.ndarray | float:
    """The constant c that Bias² is measured against (docs/inputs.md).

    ``"max"``: c = mean of the virtual target over the last axis (topics or
    samples), exact when the target is constant (:func:`exact_mean`), so that a
    run equal to a constant target has Bias² exactly 0; ``"ideal"``: c = 1,
    the metric's maximum; a number: that constant.
    """
    if spec == "max":
        return exact_mean(target)
    if spec == "ideal":
        return 1.0
    return float(spec)
