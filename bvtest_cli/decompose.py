"""Bias², Var, MSE and the Var(ρ) decomposition (SPEC §4–§5).

Pure functions over numpy arrays. Every function accepts score arrays of
shape (..., m, n) — m systems, n topics or topic samples — so that the same
code serves the plain matrix and a stack of R random groupings (R, m, G).
All moments are population moments (1/n), as in seed 000 eq. 7.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BiasVariance:
    """Per-system fields of SPEC §4 and §5, each of shape (..., m)."""

    mean: np.ndarray
    bias2: np.ndarray
    var: np.ndarray
    mse: np.ndarray
    var_rho: np.ndarray
    var_target: np.ndarray
    cov_target: np.ndarray

    FIELDS = ("mean", "bias2", "var", "mse", "var_rho", "var_target", "cov_target")

    def average(self, axis: int = 0) -> BiasVariance:
        """Field-wise mean over a leading axis (random-grouping repeats, SPEC §7)."""
        return BiasVariance(*(getattr(self, f).mean(axis=axis) for f in self.FIELDS))


def bias_variance(x: np.ndarray, c: np.ndarray | float) -> tuple[np.ndarray, ...]:
    """mean, Bias², Var, MSE of each system against constant c (SPEC §4).

    Bias²_i = (mean_i − c)², Var_i = (1/n) Σ_j (x_ij − mean_i)²,
    MSE_i = (1/n) Σ_j (x_ij − c)² = Bias²_i + Var_i (seed 000 eq. 7).
    ``c`` is a scalar or an array of shape (...) broadcast over systems.
    """
    c = np.asarray(c, dtype=float)[..., np.newaxis]
    mean = x.mean(axis=-1)
    bias2 = (mean - c) ** 2
    var = x.var(axis=-1)
    mse = ((x - c[..., np.newaxis]) ** 2).mean(axis=-1)
    return mean, bias2, var, mse


def var_rho(x: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, ...]:
    """Var(ρ_i), Var(x_T), Cov(x_T, x_i) with ρ_ij = x_T[j] − x_ij (SPEC §5, seed 000 eq. 16).

    Var(ρ_i) = Var(x_T) + Var(x_i) − 2 Cov(x_T, x_i); it is computed directly
    from ρ so that the identity is a real check, not a definition.
    ``target`` has shape (..., n). Returns arrays of shape (..., m).
    """
    rho = target[..., np.newaxis, :] - x
    var_rho_ = rho.var(axis=-1)
    var_target = np.broadcast_to(target.var(axis=-1)[..., np.newaxis], var_rho_.shape)
    centred_target = target - target.mean(axis=-1, keepdims=True)
    centred_x = x - x.mean(axis=-1, keepdims=True)
    cov_target = (centred_x * centred_target[..., np.newaxis, :]).mean(axis=-1)
    return var_rho_, np.array(var_target), cov_target


def decompose(x: np.ndarray, target: np.ndarray, c: np.ndarray | float) -> BiasVariance:
    """All SPEC §4–§5 fields of every system for scores x (..., m, n) and target (..., n)."""
    mean, bias2, var, mse = bias_variance(x, c)
    vr, vt, cov = var_rho(x, target)
    return BiasVariance(mean, bias2, var, mse, vr, vt, cov)
