"""Requests too big to fit are refused up front: one line naming the option,
exit 2, nothing on stdout, in seconds — never an allocation traceback."""

from __future__ import annotations

import time

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest

import bvtest

HUGE = "1000000000000"
Q, R = SAMPLE_QRELS, SAMPLE_RUNS
CASES = {
    "eval --repeats": (["eval", "-m", "AP", "--group", "random:4", "--repeats", HUGE, Q, R],
                       "--repeats"),
    "tradeoff --repeats": (["tradeoff", "-m", "AP", "--repeats", HUGE, Q, R], "--repeats"),
    "eval --bootstrap": (["eval", "-m", "AP", "--ci", "0.9", "--bootstrap", HUGE, Q, R],
                         "--bootstrap"),
    "instability --bootstrap": (["instability", "-m", "AP", "--ci", "0.9", "--bootstrap", HUGE,
                                 Q, R], "--bootstrap"),
    "compare --bootstrap": (["compare", "-m", "AP", "--pairs", "all", "--bootstrap", HUGE, Q, R],
                            "--bootstrap"),
    "pertopic -k": (["pertopic", "-k", HUGE, Q, R], "-k"),
    "rankings --bootstrap": (["rankings", "--reference", Q, "--collection", f"x={Q}",
                              "--bootstrap", HUGE, R], "--bootstrap"),
    "rankings --topics": (["rankings", "--reference", Q, "--collection", f"x={Q}", "--topics",
                           HUGE, R], "--topics"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_request_beyond_the_limits_is_refused_in_one_line(case):
    args, option = CASES[case]
    start = time.monotonic()
    proc = run_bvtest(*args)
    assert_one_line_error(proc, f"{option} ")
    assert "more than the limit" in proc.stderr
    assert time.monotonic() - start < 60


def test_the_memory_limit_is_set_by_the_environment(monkeypatch):
    """A small limit refuses a realistic request; the message names it."""
    monkeypatch.setenv("BVTEST_MEMORY_MB", "1")
    with pytest.raises(bvtest.InputError, match="repeats=5000"):
        bvtest.evaluate(Q, R, measures="AP", group="random:4", repeats=5000)
    monkeypatch.setenv("BVTEST_MEMORY_MB", "4096")
    report = bvtest.evaluate(Q, R, measures="AP", group="random:4", repeats=20)
    assert report.to_dict()["measures"]["AP"]["systems"]


def test_the_api_refuses_as_the_cli_does():
    with pytest.raises(bvtest.InputError, match="repeats="):
        bvtest.evaluate(Q, R, measures="AP", group="random:4", repeats=10**12)


def test_ranking_products_stay_small_whatever_the_samples():
    """Δ over B × B pairs is summed in steps whose (rows, rows) products stay
    within ~128 MB: B = 20000 samples of 12 runs needed 11 GB in one step."""
    from bvtest_cli.analyses.rankings import default_block_rows

    for pairs in (1, 66, 136, 8256, 10**6):
        rows = default_block_rows(pairs)
        assert rows >= 64
        assert rows * rows * 32 <= (128 << 20) or rows == 64
        assert rows * pairs * 8 <= (128 << 20) or rows == 64
