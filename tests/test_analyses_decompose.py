"""docs/numbers.md: Bias², Var, MSE and Var(ρ) against the papers and identities."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bvtest_cli.analyses.decompose import decompose
from bvtest_cli.measures.matrix import target_constant, virtual_target

# Seed 000 Table 2: three systems on three topics.
TABLE2 = {"f1": (0.8, 0.9, 0.4), "f2": (0.5, 0.6, 0.7), "f3": (0.3, 0.6, 0.3)}


def table2_scores_file(tmp_path):
    lines = ["system\ttopic\tmeasure\tvalue"]
    for system, scores in TABLE2.items():
        lines += [f"{system}\tt{j + 1}\tAP\t{v}" for j, v in enumerate(scores)]
    path = tmp_path / "table2.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_seed000_table2_ideal_target(bvtest, tmp_path):
    # c = 1: Bias² = (1 − mean)² = (1 − .7)², (1 − .6)², (1 − .4)² (paper: .09 .16 .36)
    out = bvtest(
        "eval", "--scores", table2_scores_file(tmp_path), "--target", "ideal", "-f", "json"
    )
    assert out.returncode == 0, out.stderr
    systems = json.loads(out.stdout)["measures"]["AP"]["systems"]
    got = [systems[s]["bias2"] for s in ("f1", "f2", "f3")]
    assert np.allclose(got, [0.09, 0.16, 0.36], atol=1e-12)


def test_seed000_table2_max_target(bvtest, tmp_path):
    # x_T = (.8, .9, .7), c = .8: Bias² = .1², .2², .4² (paper: .01 .04 .16)
    out = bvtest("eval", "--scores", table2_scores_file(tmp_path), "-f", "json")
    assert out.returncode == 0, out.stderr
    block = json.loads(out.stdout)["measures"]["AP"]
    assert abs(block["c"] - 0.8) < 1e-12
    got = [block["systems"][s]["bias2"] for s in ("f1", "f2", "f3")]
    assert np.allclose(got, [0.01, 0.04, 0.16], atol=1e-12)


def test_table2_variance_by_hand():
    x = np.array(list(TABLE2.values()))
    bv = decompose(x, virtual_target(x), 0.8)
    # f1: mean .7, deviations .1 .2 −.3 → (.01 + .04 + .09)/3
    assert abs(bv.var[0] - 0.14 / 3) < 1e-12
    # f3: mean .4, deviations −.1 .2 −.1 → .06/3
    assert abs(bv.var[2] - 0.06 / 3) < 1e-12
    # ρ for f2 = x_T − f2 = (.3, .3, 0): Var = (.01+.01+.04)/3 = .02
    assert abs(bv.var_rho[1] - 0.02) < 1e-12


matrices = st.integers(1, 4).flatmap(
    lambda lead: arrays(
        np.float64,
        st.tuples(st.integers(1, 3), st.integers(1, 6), st.integers(1, 9)).map(
            lambda s: s[:lead] if lead < 3 else s
        ),
        elements=st.floats(0, 1, allow_nan=False),
    )
)


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 8), st.integers(1, 12)),
        elements=st.floats(0, 1, allow_nan=False),
    ),
    st.sampled_from(["max", "ideal", 0.3]),
)
def test_identities(x, target_spec):
    target = virtual_target(x)
    bv = decompose(x, target, target_constant(target, target_spec))
    assert np.allclose(bv.mse, bv.bias2 + bv.var, rtol=0, atol=1e-12)
    assert np.allclose(bv.var_rho, bv.var_target + bv.var - 2 * bv.cov_target, rtol=0, atol=1e-12)
    assert np.all(bv.var >= 0) and np.all(bv.bias2 >= 0)


@settings(max_examples=50, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 4), st.integers(1, 5), st.integers(1, 7)),
        elements=st.floats(0, 1, allow_nan=False),
    )
)
def test_stacked_equals_slices(x):
    target = virtual_target(x)
    c = target_constant(target, "max")
    stacked = decompose(x, target, c)
    for r in range(x.shape[0]):
        single = decompose(x[r], target[r], c[r])
        for field in stacked.FIELDS:
            assert np.allclose(getattr(stacked, field)[r], getattr(single, field), atol=1e-15)


def test_target_has_zero_bias():
    rng = np.random.default_rng(7)
    x = rng.random((5, 20))
    x = np.vstack([x, x.max(axis=0)])  # the virtual target itself as a system
    bv = decompose(x, virtual_target(x), target_constant(virtual_target(x), "max"))
    assert bv.bias2[-1] < 1e-30 and bv.var_rho[-1] < 1e-30
