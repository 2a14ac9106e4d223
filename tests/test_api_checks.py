"""The API checks what the CLI checks, in its own words."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

import bvtest

Q, R = SAMPLE_QRELS, SAMPLE_RUNS


def _error(call) -> str:
    with pytest.raises(bvtest.InputError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: bvtest.evaluate(Q, R, measures=[]), "measures: an empty list"),
        (lambda: bvtest.evaluate(Q, [], measures="AP"), "runs: an empty list"),
        (lambda: bvtest.evaluate(Q, {}, measures="AP"), "runs: an empty dict"),
        (lambda: bvtest.evaluate({"1": {"a": 1}}, {"x": {"1": {"a": "1.0"}}}), "is a string"),
        (lambda: bvtest.evaluate({"1": {"a": "1"}}, {"x": {"1": {"a": 1.0}}}), "is a string"),
        (lambda: bvtest.evaluate(Q, R, measures="AP", bootstrap=50), "bootstrap= means"),
        (lambda: bvtest.evaluate(Q, R, measures="AP", repeats=5), "repeats= means"),
        (lambda: bvtest.tradeoff(Q, R, scores="x.tsv"), "scores="),
    ],
)
def test_api_errors(call, words):
    message = _error(call)
    assert words in message
    assert "--" not in message  # no CLI flag in an API error


@pytest.mark.parametrize("digits", [-1, 18, 50, 2.5, True])
def test_render_checks_digits(digits):
    report = bvtest.evaluate(Q, R, measures="AP")
    assert "digits" in _error(lambda: report.render("table", digits=digits))
    assert "format" in _error(lambda: report.render("yaml"))


def test_a_scores_report_renders_in_full_precision():
    table = bvtest.scores(Q, R, measures="AP")
    cli_like = table.render("trec").splitlines()[1:]
    for fmt, sep in (("tsv", "\t"), ("csv", ",")):
        rows = table.render(fmt, digits=4).splitlines()[1:]
        assert [r.split(sep)[3] for r in rows] == [c.split("\t")[3] for c in cli_like]
    assert any(len(r.split("\t")[3]) > 8 for r in cli_like)  # more than 4 decimals shown


def test_frame_alphas_are_numbers():
    pytest.importorskip("pandas")
    frame = bvtest.evaluate(Q, R, measures="AP", alphas="0,2.5").to_frame()
    assert sorted(set(frame.alpha.dropna())) == [0.0, 2.5]
    assert frame.query("field == 'mean'").alpha.isna().all()
