"""docs/measures.md, docs/inputs.md against trec_eval's and gdeval's own numbers."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import unpadded

# ../shared/data/README.md: trec_eval 10.0 -m map -m ndcg_cut.10 on the CAsT 2021 runs
CAST_TREC_EVAL = {
    "org_convdr.run": (0.2024, 0.3444),
    "org_convdr_bert.run": (0.2203, 0.3911),
    "org_manual_ance.run": (0.2667, 0.4938),
    "org_manual_ance_bert.run": (0.2936, 0.5138),
    "org_manual_bm25.run": (0.2161, 0.3764),
}


def test_cast2021_ap_ndcg_match_trec_eval(bvtest, shared_data):
    cast = shared_data / "cast2021"
    proc = bvtest("eval", "-m", "AP,nDCG@10", "-f", "json", cast / "qrels.txt", cast / "runs")
    assert proc.returncode == 0, proc.stderr
    measures = json.loads(proc.stdout)["measures"]
    assert measures["AP"]["n_topics"] == 158
    for run, (map_, ndcg) in CAST_TREC_EVAL.items():
        assert measures["AP"]["systems"][run]["mean"] == pytest.approx(map_, abs=5e-5)
        assert measures["nDCG@10"]["systems"][run]["mean"] == pytest.approx(ndcg, abs=5e-5)


def test_cast2021_default_measures_string_topic_ids(bvtest, shared_data):
    cast = shared_data / "cast2021"
    proc = bvtest("eval", cast / "qrels.txt", cast / "runs")
    assert proc.returncode == 0, proc.stderr
    for measure in ("AP", "nDCG@10", "ERR@20"):
        for run in CAST_TREC_EVAL:
            assert f"{measure}.mean\t{run}\t" in unpadded(proc.stdout)
    scores = bvtest("scores", "--quiet", cast / "qrels.txt", cast / "runs").stdout
    assert "\t106_1\tERR@20\t" in scores


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl (gdeval) not available")
def test_cast2021_err_matches_gdeval_per_topic(bvtest, shared_data):
    """ERR@20 per topic: bvtest's code vs gdeval.pl run through ir_measures."""
    cast = shared_data / "cast2021"
    fast = bvtest("scores", "--quiet", "-m", "ERR@20", cast / "qrels.txt", cast / "runs").stdout
    perl = bvtest(
        "scores", "--quiet", "-m", "ERR@20", "--err-impl", "perl", cast / "qrels.txt", cast / "runs"
    ).stdout
    fast_rows, perl_rows = fast.splitlines()[1:], perl.splitlines()[1:]
    assert len(fast_rows) == 5 * 158
    assert fast_rows == perl_rows


@pytest.mark.parametrize(
    "qrels,run,trec_eval_map,trec_eval_num_q,kept",
    [
        ("qrels.test", "results.test", 0.1785, 3, 3),
        # one of trec_eval's 31 topics has no relevant document: bvtest drops it
        # (docs/inputs.md), trec_eval averages it in with AP = 0
        ("qrels.comment.test", "results.comment.test", 0.2689, 31, 30),
    ],
)
def test_trec_eval_test_suite_map(
    bvtest, shared_data, qrels, run, trec_eval_map, trec_eval_num_q, kept
):
    """trec_eval's own expected output (out.test, out.comment.test)."""
    d = shared_data / "trec_eval_tests"
    proc = bvtest("eval", "-m", "AP", "-f", "json", d / qrels, d / run)
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["measures"]["AP"]
    assert block["n_topics"] == kept
    total_ap = block["systems"][run]["mean"] * kept
    assert total_ap / trec_eval_num_q == pytest.approx(trec_eval_map, abs=5e-5)


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl (gdeval) not available")
def test_sample_track_err_matches_gdeval_per_topic(bvtest):
    """ERR@20 on every (run, topic) of the bundled track, including its ties: bvtest's
    code vs gdeval.pl (ir_measures' provider, topic ids mapped to integers)."""
    from conftest import SAMPLE_QRELS, SAMPLE_RUNS

    fast = bvtest("scores", "--quiet", "-m", "ERR@20", SAMPLE_QRELS, SAMPLE_RUNS).stdout
    perl = bvtest(
        "scores", "--quiet", "-m", "ERR@20", "--err-impl", "perl", SAMPLE_QRELS, SAMPLE_RUNS
    ).stdout
    assert len(fast.splitlines()) == 1 + 12 * 29
    assert fast == perl
