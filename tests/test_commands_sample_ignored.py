"""No option ignored silently by sample, budget and rankings: an option the
chosen method does not use is a usage error naming it; a measure that cannot
read a sampled collection gets a note naming the estimators that can.

Oracle: the command line's meaning, by the documented methods — pps alone has
strata, uniform and pps alone are random, mtf and hedge alone use relevance.
"""

from __future__ import annotations

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error

Q, R = SAMPLE_QRELS, SAMPLE_RUNS


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--method", "hedge", "--budget", 5, "--strata", 4], "--strata"),
        (["--method", "uniform", "--budget", 5, "--strata", 4], "--strata"),
        (["--method", "pps", "--budget", 5, "-l", 2], "--rel-level"),
        (["--method", "uniform", "--budget", 5, "-l", 2], "--rel-level"),
    ],
)
def test_sample_refuses_an_option_its_method_ignores(bvtest, tmp_path, args, flag):
    proc = bvtest("sample", *args, "--out", tmp_path / "o", Q, R)
    assert_one_line_error(proc, flag, "means something only with")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("option", [["--draws", 3], ["--strata", 4]])
def test_budget_refuses_pps_options_without_a_pps_method(bvtest, option):
    proc = bvtest("budget", "--methods", "depth,hedge", *option, Q, R)
    assert_one_line_error(proc, option[0], "xinfAP or statAP")


def test_sample_repeats_of_a_method_that_is_not_random_is_noted(bvtest, tmp_path):
    proc = bvtest("sample", "--method", "depth", "--depth", 2, "--draws", 3,
                  "--out", tmp_path / "d", Q, R)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "--draws: depth is not random; one sample is written" in proc.stderr
    assert [p.name for p in (tmp_path / "d").iterdir()] == ["depth.001.qrels"]


def test_the_options_work_where_they_mean_something(bvtest, tmp_path):
    proc = bvtest(
        "sample", "--method", "mtf", "--budget", 5, "-l", 2, "--out", tmp_path / "m", Q, R
    )
    assert proc.returncode == 0, proc.stderr
    proc = bvtest("budget", "--methods", "statAP", "--draws", 2, "--strata", 3, "--budget", 5,
                  "--bootstrap", 2, "--topics-scale", 1, Q, R)  # fmt: skip
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def sampled(tmp_path_factory):
    from conftest import run_bvtest

    out = tmp_path_factory.mktemp("ignored") / "pps"
    proc = run_bvtest("sample", "--budget", 20, "--draws", 2, "--out", out, Q, R)
    assert proc.returncode == 0, proc.stderr
    return out


def test_rankings_of_a_sample_by_full_judgment_ap_is_noted(bvtest, sampled):
    proc = bvtest(
        "rankings", "--bootstrap", 4, "--reference", Q, "--collection", f"pps={sampled}", R
    )
    assert proc.returncode == 0, proc.stderr
    assert "pps: a sampled collection" in proc.stderr and "-m statAP" in proc.stderr
    proc = bvtest("rankings", "-m", "statAP", "--bootstrap", 4, "--reference", Q,
                  "--collection", f"pps={sampled}", R)  # fmt: skip
    assert "a sampled collection" not in proc.stderr


def test_infap_on_a_stratified_sample_is_noted(bvtest, sampled):
    proc = bvtest("rankings", "-m", "infAP", "--bootstrap", 4, "--reference", Q,
                  "--collection", f"pps={sampled}", R)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "pps: a sample of 20 strata; infAP" in proc.stderr
