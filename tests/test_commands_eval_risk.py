"""end to end: seed 004 Tables 3 → 4/5 through a scores file and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_analyses_risk import (
    HALF_3DP,
    HALF_4DP,
    TABLE3,
    TABLE4_ZRISK_VS_S1,
    TABLE5_GEO,
    TABLE5_ZRISK,
)

SYSTEMS = [f"s{i + 1}" for i in range(8)]


@pytest.fixture
def table3_scores(tmp_path):
    lines = ["system\ttopic\tmeasure\tvalue"]
    for name, row in zip(SYSTEMS, TABLE3, strict=True):
        lines += [f"{name}\tT{j + 1}\tERR@20\t{v:.4f}" for j, v in enumerate(row)]
    path = tmp_path / "table3.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_table5_through_scores_file(bvtest, table3_scores):
    proc = bvtest("eval", "--scores", table3_scores, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    systems = json.loads(proc.stdout)["measures"]["ERR@20"]["systems"]
    alphas = ["0", "1", "5", "10"]
    zrisk = np.array([[systems[s]["zrisk"][a] for a in alphas] for s in SYSTEMS])
    geo = np.array([[systems[s]["georisk"][a] for a in alphas] for s in SYSTEMS])
    np.testing.assert_allclose(zrisk, TABLE5_ZRISK, rtol=0, atol=HALF_3DP)
    np.testing.assert_allclose(geo, TABLE5_GEO, rtol=0, atol=HALF_3DP)


def test_table4_single_baseline(bvtest, table3_scores):
    proc = bvtest(
        "eval", "--scores", table3_scores, "--baseline", "s1", "--alpha", "0", "-f", "json"
    )
    assert proc.returncode == 0, proc.stderr
    systems = json.loads(proc.stdout)["measures"]["ERR@20"]["systems"]
    got = np.array([systems[s]["zrisk_baseline"]["0"] for s in SYSTEMS[1:]])
    np.testing.assert_allclose(got, TABLE4_ZRISK_VS_S1, rtol=0, atol=HALF_4DP)
    # URisk at alpha 0 is the difference of means (seed 004 Table 6 identity)
    for s, row in zip(SYSTEMS, TABLE3, strict=True):
        assert systems[s]["urisk"]["0"] == pytest.approx(row.mean() - TABLE3[0].mean(), abs=1e-12)
    assert systems["s1"]["trisk"]["0"] == 0.0  # a run against itself


def test_alpha_keys_as_written(bvtest, table3_scores):
    proc = bvtest("eval", "--scores", table3_scores, "--alpha", "0.5,2", "-f", "json")
    systems = json.loads(proc.stdout)["measures"]["ERR@20"]["systems"]
    for field in ("zrisk", "georisk", "zrisk_target", "trisk_mean"):
        assert list(systems["s1"][field]) == ["0.5", "2"]
    text = bvtest("eval", "--scores", table3_scores, "--alpha", "0.5,2").stdout
    assert f"{'ERR@20.georisk@2':<22}\ts8\t" in text  # trec_eval's %-22s name column


def test_zero_cells_no_nan_no_warnings(bvtest, tmp_path):
    # topic t2 every run fails, run c fails everywhere
    rows = {"a": (0.5, 0.0, 0.2), "b": (0.3, 0.0, 0.6), "c": (0.0, 0.0, 0.0)}
    text = "".join(f"{s}\tt{j}\tAP\t{v}\n" for s, vals in rows.items() for j, v in enumerate(vals))
    path = tmp_path / "s.tsv"
    path.write_text(text)
    proc = bvtest("eval", "--scores", path, "-f", "json")
    assert proc.returncode == 0
    assert "Warning" not in proc.stderr
    systems = json.loads(proc.stdout)["measures"]["AP"]["systems"]
    for s in rows:
        for field in ("zrisk", "georisk", "zrisk_target"):
            assert all(v is not None for v in systems[s][field].values()), (s, field)
    assert systems["c"]["georisk"]["0"] == 0.0


def test_negative_scores_give_null_risk(bvtest, tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("a\t1\tX\t-0.5\nb\t1\tX\t0.5\na\t2\tX\t0.1\nb\t2\tX\t0.2\n")
    proc = bvtest("eval", "--scores", path, "-f", "json")
    assert proc.returncode == 0
    assert "negative" in proc.stderr
    systems = json.loads(proc.stdout)["measures"]["X"]["systems"]
    assert systems["a"]["zrisk"]["0"] is None and systems["a"]["georisk"]["5"] is None
    assert systems["a"]["trisk_mean"]["0"] is not None


def test_instability_view(bvtest, table3_scores):
    proc = bvtest("instability", "--scores", table3_scores, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["measures"]["ERR@20"]
    systems = block["systems"]
    means = [v["mean"] for v in systems.values()]
    assert means == sorted(means, reverse=True)
    target = TABLE3.max(axis=0)
    for name, row in zip(SYSTEMS, TABLE3, strict=True):
        # independent oracle: numpy's population moments on Table 3
        rho = target - row
        assert systems[name]["var_rho"] == pytest.approx(rho.var(), abs=1e-12)
        assert systems[name]["var"] == pytest.approx(row.var(), abs=1e-12)
        cov = np.mean((row - row.mean()) * (target - target.mean()))
        assert systems[name]["cov_target"] == pytest.approx(cov, abs=1e-12)
    assert block["var_target"] == pytest.approx(target.var(), abs=1e-12)
    table = bvtest("instability", "--scores", table3_scores, "-f", "table").stdout
    assert "abs_zrisk_target" in table and "var_rho" in table
