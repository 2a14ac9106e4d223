"""Numbers at the edges of float64 give the numbers they stand for."""

from __future__ import annotations

import json

import numpy as np
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

from bvtest_cli.analyses.decompose import decompose


def _variations(tmp_path, weights: dict[str, float], name: str) -> dict:
    topics = sorted({line.split()[0] for line in SAMPLE_QRELS.read_text().splitlines()})
    path = tmp_path / name
    path.write_text("".join(f"{t} {weights.get(t, weights['*'])!r}\n" for t in topics))
    proc = run_bvtest(
        "variations", "--mode", "inter", "--weights", path, "-m", "AP", "-f", "json",
        SAMPLE_QRELS, SAMPLE_RUNS,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["measures"]["AP"]["systems"]


def test_weights_near_the_float_maximum_are_proportions(tmp_path):
    """Weights 2**1023 and 2**1022 say what 2 and 1 say (their sum overflows)."""
    big = _variations(tmp_path, {"401": 2.0**1023, "*": 2.0**1022}, "big.txt")
    small = _variations(tmp_path, {"401": 2.0, "*": 1.0}, "small.txt")
    assert big == small
    assert all(v["mu"] > 0 for v in big.values())


def test_subnormal_weights_are_proportions(tmp_path):
    tiny = _variations(tmp_path, {"401": 2 * 5e-324, "*": 5e-324}, "tiny.txt")
    assert tiny == _variations(tmp_path, {"401": 2.0, "*": 1.0}, "small.txt")


def test_var_rho_survives_a_large_target():
    """x_T = 1e17 on every topic: ρ_i = 1e17 − x_i rounds to 1e17, yet
    Var(ρ_i) = Var(x_i) since x_T is constant (here 0.04, by hand)."""
    x = np.array([[1e17, 1e17], [0.5, 0.1]])
    bv = decompose(x, x.max(axis=0), c=0.0)
    assert bv.var_rho[1] == np.float64(0.04) or abs(bv.var_rho[1] - 0.04) < 1e-17
    # and the other way round: exact differences, large deviations cancel
    x = np.array([[1e17, 0.5], [1e17, 0.1]])
    bv = decompose(x, x.max(axis=0), c=0.0)
    assert abs(bv.var_rho[1] - 0.04) < 1e-17 and bv.var_rho[0] == 0.0


def test_var_rho_identity_with_random_scales():
    """Var(ρ) = Var(x_T) + Var(x_i) − 2 Cov(x_T, x_i) (Zhang22 eq. 16) where the
    terms are moderate, checked on random matrices at several scales."""
    rng = np.random.default_rng(5)
    for scale in (1e-6, 1.0, 1e6):
        x = rng.random((4, 30)) * scale
        bv = decompose(x, x.max(axis=0), c=0.0)
        identity = bv.var_target + bv.var - 2 * bv.cov_target
        np.testing.assert_allclose(bv.var_rho, identity, rtol=1e-12, atol=1e-15 * scale**2)
