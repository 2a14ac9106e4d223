"""Sampling variance of the sampled estimators, its use by eval --ci, and the
topic set of --sampled-topics.

Oracles, none of them bvtest's code:
* a linear estimator (inum_rel, R̂ = Σ_h N_h r_h/n_h) whose stratified
  variance estimator Σ_h N_h² (1 − n_h/N_h) s_h²/n_h is worked by hand here
  (the delete-one stratified jackknife reproduces it exactly for a linear
  statistic), and its unbiasedness checked by enumerating every sample of a
  small design against the exact variance over those samples;
* simulation with a known truth: repeated pps samples of the sample track
  (bvtest_cli.analyses.budgets.sampling draws them), the truth being the estimate
  with every pooled document judged (statAP is then AP on the pool);
* hand computation of the two standard errors and of the topic means.
"""

from __future__ import annotations

import itertools
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

from bvtest_cli.analyses.budgets import sampling
from bvtest_cli.io.sources import expand_sources
from bvtest_cli.io.trec import read_qrels, read_run_columns
from bvtest_cli.measures.evaluate import evaluate_runs
from bvtest_cli.measures.fastmeasures import rank_run
from bvtest_cli.measures.names import parse_measures
from bvtest_cli.measures.sampled import SampledRankings, evaluate_run, sampling_variance_run
from bvtest_cli.sections.matrix import sampling_fields

REPO = Path(__file__).resolve().parents[1]

# One topic, two strata: documents 0-4 in stratum 0 (N = 5), 5-8 in stratum 1 (N = 4).
FULL = np.array([1, 0, 1, 0, 1, 1, 0, 0, 1])
CODE = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1])


def one_ranking() -> SampledRankings:
    order = np.array([5, 0, 2, 6, 1, 8, 3, 4, 7])  # every document, in this rank order
    return SampledRankings(
        order, np.arange(9), np.array([0, 9]), np.array([0]), np.zeros(9, int), FULL, 1, 1
    )


def judged_grades(judged: list[int]) -> np.ndarray:
    grade = np.full(9, -1)
    grade[judged] = FULL[judged]
    return grade


def test_jackknife_of_a_linear_estimate_is_the_stratified_formula():
    # judged: stratum 0 docs 0, 1, 2 (grades 1, 0, 1); stratum 1 docs 5, 6 (1, 0)
    grade = judged_grades([0, 1, 2, 5, 6])
    got = one_ranking().jackknife_variance("inum_rel", np.ones(9, bool), CODE, grade, 2)
    # stratum 0: s² of (1, 0, 1) = 1/3, term 5² (1 − 3/5) (1/3) / 3 = 10/9
    # stratum 1: s² of (1, 0) = 1/2, term 4² (1 − 2/4) (1/2) / 2 = 2
    assert got[0] == pytest.approx(10 / 9 + 2, rel=1e-12)


def test_jackknife_variance_is_unbiased_for_a_linear_estimate_over_every_sample():
    ranking = one_ranking()
    listed = np.ones(9, bool)
    estimates, variances = [], []
    for a in itertools.combinations(range(5), 3):
        for b in itertools.combinations(range(5, 9), 2):
            grade = judged_grades([*a, *b])
            estimates.append(ranking.evaluate(("inum_rel",), listed, CODE, grade, 2)["inum_rel"][0])
            variances.append(ranking.jackknife_variance("inum_rel", listed, CODE, grade, 2)[0])
    assert len(estimates) == 10 * 6
    assert np.mean(estimates) == pytest.approx(FULL.sum())  # R̂ is unbiased: 5 relevant
    assert np.mean(variances) == pytest.approx(np.var(estimates), rel=1e-12)


@pytest.mark.parametrize("method", ["jackknife", "linearized"])
def test_no_sampling_variance_when_every_document_is_judged(method):
    grade = judged_grades(list(range(9)))
    got = one_ranking().variance("statAP", np.ones(9, bool), CODE, grade, 2, method)
    assert got[0] == 0.0


def test_a_lone_stratum_with_one_judged_document_has_no_variance():
    grade = judged_grades([0, 1, 2, 5])  # stratum 1: one judged of four
    ranking = one_ranking()
    assert np.isnan(ranking.variance("statAP", np.ones(9, bool), CODE, grade, 2, "jackknife")[0])
    assert np.isnan(ranking.variance("statAP", np.ones(9, bool), CODE, grade, 2, "linearized")[0])


# --------------------------------------------------------------------------- simulation


def _track():
    qrels = read_qrels(str(REPO / "qrels/qrels.txt")).qrels
    runs = [read_run_columns(s) for s in expand_sources([str(REPO / "sample_runs")], print)]
    rankings: dict[str, list[list[str]]] = {}
    for run in runs:
        for topic, docs in run.as_dict().items():
            ranked = sorted(docs, key=lambda d: (docs[d], d), reverse=True)
            rankings.setdefault(topic, []).append(ranked)
    return qrels, runs, rankings


def _table(sample: sampling.Sample, directory: str):
    fd, path = tempfile.mkstemp(suffix=".qrels", dir=directory)
    with os.fdopen(fd, "w") as f:
        for topic, docs in sample.topics.items():
            for docno, (stratum, grade) in docs.items():
                f.write(f"{topic} 0 {docno} {stratum} {grade}\n")
    return read_qrels(path).table


def _per_topic(runs, table, topics, kind, variance: bool):
    values = np.zeros((len(runs), len(topics)))
    for i, run in enumerate(runs):
        ranked = rank_run(run, table)
        got = (
            sampling_variance_run(ranked, table, kind, 1)
            if variance
            else evaluate_run(ranked, table, (kind,), 1)[kind]
        )
        column = {t: j for j, t in enumerate(topics)}
        for t, v in zip(ranked.topics, got.tolist(), strict=True):
            values[i, column[t]] = v
    return values


def test_se_sampling_covers_the_same_topics_full_judgment_map(tmp_path):
    """16 pps samples of 100 judgments (20 strata) per topic: statAP's MAP
    from each, ± 1.96 se_sampling, holds the full-judgment MAP over the same
    topics; the jackknife's mean variance is near the variance over samples."""
    qrels, runs, rankings = _track()
    design = sampling.pps_design(rankings, 20)
    everything = sampling.pps_sample(rankings, qrels, 10**6, strata=20, seed=1, design=design)
    topics = sorted(everything.topics)
    truth = _per_topic(runs, _table(everything, str(tmp_path)), topics, "statAP", False)
    estimates, variances = [], []
    for repeat in range(16):
        drawn = sampling.pps_sample(
            rankings, qrels, 100, strata=20, seed=11, repeat=repeat, design=design
        )
        table = _table(drawn, str(tmp_path))
        estimates.append(_per_topic(runs, table, topics, "statAP", False))
        variances.append(_per_topic(runs, table, topics, "statAP", True))
    e, v = np.array(estimates), np.array(variances)
    n = len(topics)
    # the per-topic variances, summed over runs and topics: estimated vs observed
    ratio = v.mean(axis=0).sum() / e.var(axis=0, ddof=1).sum()
    assert 0.75 < ratio < 1.35
    se = np.sqrt(v.sum(axis=2)) / n
    covered = np.abs(e.mean(axis=2) - truth.mean(axis=1)) <= 1.96 * se
    assert covered.mean() >= 0.85  # 192 intervals; nominal 0.95
    # an se_sampling a third too small must fail the same check
    assert (np.abs(e.mean(axis=2) - truth.mean(axis=1)) <= 1.96 * se / 3).mean() < 0.85


# --------------------------------------------------------------------------- eval --ci


def test_sampling_fields_by_hand():
    x = np.array([[0.2, 0.4, 0.9]])
    v = np.array([[0.01, 0.04, 0.04]])
    got = sampling_fields(x, v, 0.95)
    # se_sampling = √0.09 / 3 = 0.1; s² = 0.13, v̄ = 0.03: se_topics = √(0.10/3)
    assert got["se_sampling"][0] == pytest.approx(0.1)
    assert got["se_topics"][0] == pytest.approx(math.sqrt(0.10 / 3))
    assert got["sampling_lo"][0] == pytest.approx(0.5 - 1.959963984540054 * 0.1)
    assert got["sampling_hi"][0] == pytest.approx(0.5 + 1.959963984540054 * 0.1)


def test_eval_ci_reports_both_parts_for_statap_only(bvtest, tmp_path):
    import json

    qrels = tmp_path / "s.qrels"
    qrels.write_text(
        "1 0 a 1 1\n1 0 b 1 0\n1 0 c 1 -1\n1 0 d 2 1\n1 0 e 2 -1\n2 0 a 1 1\n2 0 b 1 1\n2 0 c 1 0\n"
    )
    run = tmp_path / "r1"
    run.write_text(
        "".join(f"{t} Q0 {d} {i + 1} {9 - i} r1\n" for t in "12" for i, d in enumerate("cabde"))
    )
    out = bvtest("eval", "-m", "statAP,AP", "--ci", "0.9", "-f", "json", str(qrels), str(run))
    assert out.returncode == 0, out.stderr
    systems = json.loads(out.stdout)["measures"]
    assert set(systems["statAP"]["systems"]["r1"]) >= {"se_sampling", "se_topics", "sampling_lo"}
    assert "se_sampling" not in systems["AP"]["systems"]["r1"]


def test_eval_ci_says_why_the_sampling_variance_is_missing(bvtest, tmp_path):
    """One judged document in a stratum of several: the jackknife has no
    spread there (docs/measures.md), the fields are null and a note says
    why; two or more judged per stratum: numbers and no note."""
    import json

    for budget, strata, defined in ((20, 20, False), (100, 20, True), (20, 5, True)):
        out = tmp_path / f"s{budget}-{strata}"
        proc = bvtest("sample", "--budget", budget, "--strata", strata, "--seed", 3,
                      "--out", out, SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        proc = bvtest("eval", "-m", "statAP", "--ci", "0.95", "-f", "json",
                      out / "pps.001.qrels", SAMPLE_RUNS)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        runs = json.loads(proc.stdout)["measures"]["statAP"]["systems"].values()
        said = "no sampling variance" in proc.stderr
        assert said != defined, (budget, strata, proc.stderr)
        for run in runs:
            for name in ("se_sampling", "se_topics", "sampling_lo", "sampling_hi"):
                assert (run[name] is not None) == defined, (budget, strata, name)


# --------------------------------------------------------------------------- --sampled-topics


def test_sampled_topics_all_averages_over_every_topic(tmp_path):
    qrels = tmp_path / "s.qrels"
    # topic 1: fully judged, relevant b; topic 2: judged but nothing relevant
    qrels.write_text("1 0 a 1 0\n1 0 b 1 1\n2 0 a 1 0\n2 0 c 1 0\n")
    run = tmp_path / "r1"
    run.write_text("1 Q0 a 1 2 r1\n1 Q0 b 2 1 r1\n2 Q0 a 1 2 r1\n")
    sources = expand_sources([str(run)], print)
    specs = parse_measures(("statAP",), 1)
    judged = evaluate_runs(read_qrels(str(qrels)), sources, specs)[0]
    every = evaluate_runs(read_qrels(str(qrels)), sources, specs, topic_set_rule="all")[0]
    # AP of topic 1: relevant b at rank 2, 1/2; topic 2 scores 0
    assert judged.topics == ("1",) and judged.values.mean() == pytest.approx(0.5)
    assert every.topics == ("1", "2") and every.values.mean() == pytest.approx(0.25)


def test_eval_ci_reads_a_run_from_stdin_once(bvtest, tmp_path):
    """The sampling variances come from the same reading of each run as its
    scores: a run on standard input (read once) gets the se_sampling it gets
    from its file, equal to the jackknife's √(Σ v_t)/n computed here."""
    import json

    out = tmp_path / "s"
    proc = bvtest("sample", "--budget", 100, "--seed", 3, "--out", out, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    qrels = out / "pps.001.qrels"
    run_file = SAMPLE_RUNS / "sys001"
    other = SAMPLE_RUNS / "sys002"
    args = ("eval", "-m", "statAP,xinfAP", "--ci", "0.95", "-f", "json", qrels)
    from_files = bvtest(*args, run_file, other)
    from_stdin = bvtest(*args, "-", other, stdin=run_file.read_bytes())
    assert from_files.returncode == 0 and from_stdin.returncode == 0, from_stdin.stderr
    a = json.loads(from_files.stdout)["measures"]
    b = json.loads(from_stdin.stdout)["measures"]
    table = read_qrels(str(qrels)).table
    ranked = rank_run(read_run_columns(expand_sources([str(run_file)])[0]), table)
    for measure in ("statAP", "xinfAP"):
        got = b[measure]["systems"]["stdin"]["se_sampling"]
        assert got == a[measure]["systems"]["sys001"]["se_sampling"]
        v = sampling_variance_run(ranked, table, measure, 1)
        scored = [t for t in ranked.topics if table.num_rel(1)[table.topic_index[t]] > 0]
        keep = [i for i, t in enumerate(ranked.topics) if t in set(scored)]
        assert got == pytest.approx(math.sqrt(v[keep].sum()) / len(keep), rel=1e-12)
