"""The API's reports as frames and one-line reprs: a record table per frame
(compare's pairs apart from its significance matrix), design's repr naming its
runs and topics, usage errors raised inside a command as InputError."""

from __future__ import annotations

import math

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

import bvtest

pytest.importorskip("pandas")

PAIR = [f"{SAMPLE_RUNS}/sys001", f"{SAMPLE_RUNS}/sys002"]


def test_one_pair_frame_holds_only_its_comparisons():
    report = bvtest.compare(SAMPLE_QRELS, PAIR, measures="AP", bootstrap=100)
    assert report.tables() == ["pairs", "significance_matrix"]
    frame = report.to_frame()
    # mean, var, mse, georisk@0,1,5,10: seven rows, every one a comparison
    assert len(frame) == 7
    assert frame["a"].notna().all() and frame["field"].notna().all()
    grid = report.to_frame("significance_matrix")
    assert list(grid.columns) == ["measure", "rank", "run", "mean", "above", "below"]
    assert list(grid["run"]) == ["sys001", "sys002"]
    with pytest.raises(bvtest.InputError, match="pairs, significance_matrix"):
        report.to_frame("nope")


def test_design_frames_keep_each_tables_columns():
    report = bvtest.design(SAMPLE_QRELS, SAMPLE_RUNS, measures="AP", topic_counts=[29, 58])
    dstudy = report.to_frame("dstudy")
    assert list(dstudy["topics"]) == [29, 58]
    tssd = report.to_frame("tssd")
    assert "design" in tssd.columns and tssd["design"].notna().all()


def test_design_repr_names_runs_and_topics():
    report = bvtest.design(SAMPLE_QRELS, SAMPLE_RUNS, measures="AP")
    assert repr(report) == "<Report design: AP · 12 runs · 29 topics>"


def test_a_usage_check_inside_a_command_is_an_input_error():
    with pytest.raises(bvtest.InputError, match="pair"):
        bvtest.compare(SAMPLE_QRELS, SAMPLE_RUNS, measures="AP")


def test_trisk_mean_of_one_run_is_undefined():
    report = bvtest.evaluate(SAMPLE_QRELS, [PAIR[0]], measures="AP")
    values = report.to_dict()["measures"]["AP"]["systems"]["sys001"]["trisk_mean"]
    assert all(v is None or math.isnan(v) for v in values.values())
