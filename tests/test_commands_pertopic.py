"""end to end: `bvtest pertopic` (docs/pertopic.md; seed 000 Tables 10–11)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS
from scipy import stats

QRELS = "1 0 a 1\n1 0 b 1\n1 0 c 0\n2 0 d 1\n2 0 e 0\n3 0 f 1\n"


@pytest.fixture
def small_track(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    # perfect: relevant above non-relevant on every topic
    (runs / "perfect").write_text(
        "1 Q0 a 1 3 p\n1 Q0 b 2 2 p\n1 Q0 c 3 1 p\n2 Q0 d 1 2 p\n2 Q0 e 2 1 p\n3 Q0 f 1 1 p\n"
    )
    # blind: never retrieves a relevant document
    (runs / "blind").write_text("1 Q0 c 1 3 b\n1 Q0 x 2 2 b\n2 Q0 e 1 2 b\n3 Q0 y 1 1 b\n")
    (runs / "mixed").write_text(
        "1 Q0 c 1 3 m\n1 Q0 a 2 2 m\n1 Q0 x 3 1 m\n2 Q0 e 1 2 m\n2 Q0 d 2 1 m\n"
    )
    return tmp_path


def pertopic_json(bvtest, *args):
    proc = bvtest("pertopic", "-f", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc


def test_schema_and_table10_11(bvtest, small_track):
    doc, proc = pertopic_json(bvtest, "-q", "-k", "50", small_track / "q", small_track / "runs")
    block = doc["measures"]["AP"]
    assert block["k"] == 50 and block["n_topics"] == 3 and block["n_systems"] == 3
    assert set(block["tradeoff"]) == {"pearson", "pearson_p", "spearman", "spearman_p"}
    assert list(block["topics"]) == ["1", "2", "3"]
    assert "mixed: no ranking for 1 of 3 topics" in proc.stderr
    # the blind run retrieves no relevant document: AP 0 in every sample, so Var 0
    for topic in block["topics"].values():
        assert topic["systems"]["blind"]["var"] == 0.0
    # eqs. 13–14: the run's values are the means of its per-topic values
    for run in ("perfect", "blind", "mixed"):
        per_topic = [t["systems"][run]["bias2"] for t in block["topics"].values()]
        assert block["systems"][run]["bias2"] == pytest.approx(np.mean(per_topic), abs=1e-12)
    # Table 11: per topic, Pearson across runs of the per-topic values
    t1 = block["topics"]["1"]
    b = [t1["systems"][r]["bias2"] for r in ("perfect", "blind", "mixed")]
    v = [t1["systems"][r]["var"] for r in ("perfect", "blind", "mixed")]
    assert t1["pearson"] == pytest.approx(stats.pearsonr(b, v).statistic, abs=1e-9)


def test_perfect_run_topic3_is_exact(bvtest, small_track):
    # topic 3: R_q = 1, the perfect run retrieved only the relevant doc f (r = 1, N = 1),
    # so r_s = min(Poisson(1), 1): AP = 1 when r_s = 1, and when r_s = 0, R = 0 → AP 0.
    # Its Var across samples is p(1 − p) with p = P(Poisson(1) ≥ 1) = 1 − e^−1 ≈ 0.632,
    # i.e. about 0.2325 — checked loosely since it is estimated from 2000 samples.
    doc, _ = pertopic_json(bvtest, "-q", "-k", "2000", small_track / "q", small_track / "runs")
    var = doc["measures"]["AP"]["topics"]["3"]["systems"]["perfect"]["var"]
    p = 1 - np.exp(-1)
    assert var == pytest.approx(p * (1 - p), abs=0.02)


def test_deterministic_and_jobs_independent(bvtest):
    a = bvtest("pertopic", "-k", "20", "--seed", "3", "-j", "1", SAMPLE_QRELS, SAMPLE_RUNS)
    b = bvtest("pertopic", "-k", "20", "--seed", "3", "-j", "2", SAMPLE_QRELS, SAMPLE_RUNS)
    c = bvtest("pertopic", "-k", "20", "--seed", "4", "-j", "2", SAMPLE_QRELS, SAMPLE_RUNS)
    assert a.returncode == 0, a.stderr
    assert a.forks == 0 and b.forks > 0  # in this process: -j 2 forks its workers
    assert a.stdout == b.stdout
    assert a.stdout != c.stdout


def test_sample_track_tradeoff_shows(bvtest):
    doc, _ = pertopic_json(bvtest, "-k", "30", SAMPLE_QRELS, SAMPLE_RUNS)
    block = doc["measures"]["AP"]
    assert block["n_topics"] == 29 and "systems" not in block["topics"]["401"]
    assert block["tradeoff"]["pearson"] < 0  # the generator builds the tradeoff in


@pytest.mark.parametrize("fmt", ["trec", "table", "tsv", "csv"])
def test_text_formats(bvtest, small_track, fmt):
    proc = bvtest("pertopic", "-f", fmt, "-k", "10", small_track / "q", small_track / "runs")
    assert proc.returncode == 0 and "bias2" in proc.stdout


def test_bad_run_is_one_line(bvtest, small_track):
    (small_track / "runs" / "broken").write_text("1 Q0 a one 3 p\n")
    proc = bvtest("pertopic", small_track / "q", small_track / "runs")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "broken:1:" in proc.stderr


def test_help(bvtest):
    proc = bvtest("pertopic", "--help")
    assert proc.returncode == 0 and "Example" in proc.stdout
