"""`bvtest sample`, `rankings NAME=DIR` and `bvtest budget` end to end.

Oracles: `bvtest pool` for depth samples; the file layout read back by a
plain parser here; the per-file evaluation (`bvtest scores -m xinfAP,statAP`
on the written samples, itself checked against sample_eval.pl's algorithm
and the statAP formula in test_measures_sampled.py) for the in-memory
evaluation of `budget`; the full qrels' MAP restricted to the pool (computed
here) for statAP's mean; Kendall's τ from scipy; the paper's findings as
inequalities on TREC 2003 Robust.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_line_error
from scipy.stats import kendalltau

from bvtest_cli.commands.budget.build import Experiment, stratum_order
from bvtest_cli.commands.budget.params import BudgetParams
from bvtest_cli.io.sources import expand_sources
from bvtest_cli.io.trec import read_qrels
from bvtest_cli.measures.topics import topic_set
from bvtest_cli.measures.track import read_track

REPO = Path(__file__).resolve().parents[1]
QRELS = REPO / "qrels" / "qrels.txt"
RUNS = REPO / "sample_runs"


def read_layout(path: Path) -> dict[str, dict[str, tuple[int, int]]]:
    out: dict[str, dict[str, tuple[int, int]]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) == 5:
            out[f[0]][f[2]] = (int(f[3]), int(f[4]))
        else:
            out[f[0]][f[2]] = (1, int(f[3]))
    return out


def scores_of(bvtest, qrels, measures: str) -> dict[tuple[str, str, str], float]:
    proc = bvtest("scores", "--quiet", "-m", measures, qrels, RUNS)
    assert proc.returncode == 0, proc.stderr
    out = {}
    for line in proc.stdout.splitlines()[1:]:
        system, topic, measure, value = line.split("\t")
        out[system, topic, measure] = float(value)
    return out


@pytest.mark.parametrize("method,budget", [("pps", 20), ("uniform", 7), ("mtf", 15), ("hedge", 15)])
def test_sample_budgets_are_exact(bvtest, tmp_path, method, budget):
    out = tmp_path / "s"
    proc = bvtest("sample", "--method", method, "--budget", budget, "--draws", 2,
                  "--out", out, QRELS, RUNS)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    files = sorted(out.iterdir())
    random_method = method in ("pps", "uniform")
    assert [f.name for f in files] == [f"{method}.{i:03d}.qrels" for i in (1, 2)][
        : 2 if random_method else 1
    ]
    pool_size = read_layout(files[0])  # listed = pool for the stratified layouts
    for f in files:
        docs = read_layout(f)
        for topic, listed in docs.items():
            judged = sum(1 for _, g in listed.values() if g >= 0)
            if random_method:
                assert judged == min(budget, len(pool_size[topic])), topic
            else:
                assert judged == len(listed) and judged <= budget
    if random_method:
        assert files[0].read_bytes() != files[1].read_bytes()


def test_same_seed_same_bytes(bvtest, tmp_path):
    for name in ("a", "b"):
        proc = bvtest("sample", "--method", "pps", "--budget", 10, "--draws", 2, "--seed", 3,
                      "--out", tmp_path / name, QRELS, RUNS)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    for f in ("pps.001.qrels", "pps.002.qrels"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()


def test_depth_sample_is_the_pool(bvtest, tmp_path):
    proc = bvtest("sample", "--method", "depth", "--depth", 5, "--out", tmp_path / "d", QRELS, RUNS)
    assert proc.returncode == 0, proc.stderr
    pooled = bvtest("pool", "--quiet", "--depth", 5, QRELS, RUNS).stdout
    sample = (tmp_path / "d" / "depth.001.qrels").read_text()
    judged = {tuple(line.split()) for line in pooled.splitlines()}
    # the sample also lists the pooled documents QRELS does not judge, as 0
    relevant = {t for t in (tuple(line.split()) for line in sample.splitlines()) if t[3] != "0"}
    assert relevant == {t for t in judged if t[3] != "0"}
    assert {t[:3] for t in judged} <= {tuple(line.split()[:3]) for line in sample.splitlines()}


def test_sample_bad_input(bvtest, tmp_path):
    bad = tmp_path / "q"
    bad.write_text("401 0 a\n")
    proc = bvtest("sample", "--budget", 5, "--out", tmp_path / "o", bad, RUNS)
    assert_one_line_error(proc, "q:1:", "expected 4 fields")
    assert not (tmp_path / "o").exists()
    proc = bvtest("sample", "--method", "depth", "--out", tmp_path / "o", QRELS, RUNS)
    assert_one_line_error(proc, "--depth")
    proc = bvtest("sample", "--budget", "5,6", "--out", tmp_path / "o", QRELS, RUNS)
    assert_one_line_error(proc, "one budget")


def test_in_memory_evaluation_equals_the_files(bvtest, tmp_path):
    """budget's evaluation of a pps sample (no file) gives the values that
    `scores` gives on the written sample file, to the bit."""
    out = tmp_path / "s"
    assert bvtest("sample", "--budget", 12, "--seed", 5, "--out", out, QRELS, RUNS).returncode == 0
    from_file = scores_of(bvtest, out / "pps.001.qrels", "xinfAP,statAP")

    from bvtest_cli.analyses.budgets.sampling import MethodOptions, pps_design, sample

    qrels_file = read_qrels(str(QRELS))
    sources = expand_sources([str(RUNS)])
    topics = sorted({t for (_, t, _) in from_file}, key=int)
    track = read_track(qrels_file, sources, topics, 1, True)
    rankings, grades = track.for_sampling()
    design = pps_design(rankings, 12)
    options = MethodOptions(strata=12, design=design)
    drawn = sample("pps", rankings, grades, budget=12, seed=5, options=options)
    listed, code, grade = track.sample_columns(drawn.topics, stratum_order(12))
    got = track.evaluator(1).evaluate(("xinfAP", "statAP"), listed, code, grade, 12, "pps")
    checked = 0
    for kind in ("xinfAP", "statAP"):
        values = got[kind].reshape(len(track.names), len(topics))
        for i, system in enumerate(track.names):
            for j, topic in enumerate(topics):
                expected = from_file.get((system, topic, kind))
                if expected is not None:
                    assert values[i, j] == expected, (kind, system, topic)
                    checked += 1
    assert checked > 500


@pytest.mark.parametrize("repeat", [0, 2])
def test_budget_draws_the_samples_sample_writes(bvtest, tmp_path, repeat):
    """budget's own path (the designs over the universe, pps_draws, the
    in-memory evaluator) scores the sample that `sample --draws` writes
    for the same seed and repeat, to the bit; its pools (hedge, mtf,
    depth) score as their written files do."""
    out = tmp_path / "s"
    proc = bvtest("sample", "--budget", 12, "--seed", 5, "--draws", 3, "--out", out, QRELS, RUNS)
    assert proc.returncode == 0
    expected = {"pps": scores_of(bvtest, out / f"pps.{repeat + 1:03d}.qrels", "xinfAP,statAP")}
    for method in ("hedge", "mtf"):
        written = tmp_path / method
        proc = bvtest("sample", "--method", method, "--budget", 12, "--seed", 5, "--out",
                      written, QRELS, RUNS)  # fmt: skip
        assert proc.returncode == 0
        expected[method] = scores_of(bvtest, written / f"{method}.001.qrels", "AP")

    qrels_file = read_qrels(str(QRELS))
    sources = expand_sources([str(RUNS)])
    s = BudgetParams(jobs=1, quiet=True, seed=5)
    topics = topic_set(qrels_file, s.rel_level, lambda note: None)  # as budget's
    track = read_track(qrels_file, sources, topics, s.jobs, s.quiet)
    rankings, grades = track.for_sampling()
    ex = Experiment(s, track, rankings, grades, topics, track.evaluator(1))
    kinds = ("xinfAP", "statAP")
    ex.design(12, kinds)
    values, judged = ex.pps(12, repeat, kinds)
    lines = [line.split() for line in (out / f"pps.{repeat + 1:03d}.qrels").open()]
    assert judged == sum(1 for f in lines if f[-1] != "-1" and f[0] in topics)
    got = {("pps", kind): ex.scores(values[k]) for k, kind in enumerate(kinds)}
    for method in ("hedge", "mtf"):
        _, ap, judged, _ = ex.pooled(method, 12)
        got[method, "AP"] = ex.scores(ap)
    checked = 0
    for (method, kind), matrix in got.items():
        for i, system in enumerate(track.names):
            for j, topic in enumerate(topics):
                value = expected[method].get((system, topic, kind))
                if value is not None:
                    assert matrix[i, j] == value, (method, kind, system, topic)
                    checked += 1
    assert checked > 1000


def test_rankings_reads_a_directory_of_samples(bvtest, tmp_path):
    out = tmp_path / "pps"
    assert bvtest("sample", "--budget", 10, "--draws", 3, "--out", out, QRELS, RUNS).returncode == 0
    listed = ",".join(str(out / f"pps.{i:03d}.qrels") for i in (1, 2, 3))
    common = ("rankings", "-m", "statAP", "--bootstrap", 50, "-f", "json", "--reference", QRELS)
    by_dir = bvtest(*common, "--collection", f"pps={out}", RUNS)
    by_list = bvtest(*common, "--collection", f"pps={listed}", RUNS)
    assert by_dir.returncode == 0, by_dir.stderr
    assert by_dir.stdout == by_list.stdout
    assert json.loads(by_dir.stdout)["collections"]["pps"]["sigma"] > 0


def test_budget_json_schema_and_table(bvtest):
    proc = bvtest("budget", "--budget", "10,40", "--draws", 4, "--bootstrap", 40, "-f", "json",
                  QRELS, RUNS)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    cells = doc["cells"]
    keys = {"budget", "topics_scale", "method", "bias", "sigma", "rmse", "se_bias", "se_sigma",
            "se_rmse", "assessments"}  # fmt: skip
    assert all(set(c) == keys for c in cells)
    assert len(cells) == 2 * 2 * 5
    assert {c["method"] for c in cells} >= {"xinfAP", "statAP", "hedge", "mtf"}
    assert {(c["topics_scale"]) for c in doc["reference"]} == {1, 4}
    # pps judges min(N, pool) per topic over the 29 topics: 29·10 at scale 1
    pps = [c for c in cells if c["method"] == "statAP" and c["budget"] == 10]
    assert {c["assessments"] for c in pps} == {290, 1160}
    table = bvtest("budget", "--budget", 10, "--draws", 2, "--bootstrap", 20, "-f", "table",
                   QRELS, RUNS)  # fmt: skip
    assert table.returncode == 0 and "topics_scale" in table.stdout and "hedge" in table.stdout


def test_budget_is_deterministic_and_engineered_doubles_the_runs(bvtest):
    args = ("budget", "--budget", 10, "--draws", 3, "--bootstrap", 30, "--topics-scale", 1,
            "--methods", "statAP,depth", "-f", "json")  # fmt: skip
    a = bvtest(*args, "-j", 1, QRELS, RUNS)
    b = bvtest(*args, "-j", 2, QRELS, RUNS)
    assert a.returncode == 0, a.stderr
    assert a.forks == 0 and b.forks > 0  # in this process: -j 2 forks its workers
    assert a.stdout == b.stdout
    e = bvtest(*args, "--engineered", QRELS, RUNS)
    assert json.loads(e.stdout)["n_systems"] == 2 * json.loads(a.stdout)["n_systems"]


# ---------------------------------------------------------------------------------
# TREC 2003 Robust: the estimators and the paper's findings


def test_robust_statap_and_xinfap_against_the_pool_truth(shared_data):
    """60 pps samples of 100 per topic (by budget's in-memory evaluation,
    the same doubles as the written files: see above). Truth: AP under the
    qrels restricted to the pool, over every topic with a relevant document."""
    from bvtest_cli.analyses.budgets.sampling import MethodOptions, pps_design, sample
    from bvtest_cli.measures.topics import topic_set

    robust = shared_data / "robust2003"
    qrels_file = read_qrels(str(robust / "qrels.txt"))
    topics = topic_set(qrels_file, 1, lambda _: None)
    track = read_track(qrels_file, expand_sources([str(robust / "runs")]), topics, 2, True)
    rankings, grades = track.for_sampling()
    evaluator = track.evaluator(1)
    m, n = len(track.names), len(topics)
    pooled = np.zeros(track.grade.size, bool)
    for run in track.rankings:
        for i, ids in enumerate(run):
            pooled[track.offsets[i] + ids] = True
    one = np.zeros(track.grade.size, np.int64)
    # every pooled judged document judged, one stratum: statAP is AP there
    truth = evaluator.evaluate(("statAP",), track.judged & pooled, one, track.grade, 1)
    t = truth["statAP"].reshape(m, n).mean(1)
    design = pps_design(rankings, 20)
    est = {"statAP": [], "xinfAP": []}
    for rep in range(60):
        options = MethodOptions(design=design)
        drawn = sample("pps", rankings, grades, budget=100, seed=11, repeat=rep, options=options)
        listed, code, grade = track.sample_columns(drawn.topics, stratum_order(20))
        got = evaluator.evaluate(("statAP", "xinfAP"), listed, code, grade, 20, "pps")
        for kind in est:
            est[kind].append(got[kind].reshape(m, n).mean(1))
    stat, xinf = np.array(est["statAP"]), np.array(est["xinfAP"])
    # statAP's MAP, averaged over the samples, within 5 % of the pool's true MAP
    assert np.abs(stat.mean(0) / t - 1).max() < 0.05
    for values in (stat, xinf):
        assert kendalltau(values.mean(0), t)[0] >= 0.85
        assert np.median([kendalltau(row, t)[0] for row in values]) >= 0.85


def test_robust_budget_findings(bvtest, shared_data):
    robust = shared_data / "robust2003"
    proc = bvtest("budget", "--quiet", "--budget", "25,100", "--draws", 10, "--bootstrap", 200,
                  "-f", "json", robust / "qrels.txt", robust / "runs")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    cell = {(c["budget"], c["topics_scale"], c["method"].split("-")[0]): c for c in doc["cells"]}
    ref = {r["topics_scale"]: r for r in doc["reference"]}
    for method in ("xinfAP", "statAP", "depth", "hedge", "mtf"):
        for b in (25, 100):
            one, four = cell[b, 1, method], cell[b, 4, method]
            # four times the topics: σ about halves (σ ∝ 1/√n), |b| stays
            assert 0.35 < four["sigma"] / one["sigma"] < 0.65, (method, b)
        # four times the judgments per topic: RMSE falls
        for scale in (1, 4):
            assert cell[100, scale, method]["rmse"] < cell[25, scale, method]["rmse"], method
        # no method beats the reference's σ beyond chance
        for scale in (1, 4):
            c, r = cell[100, scale, method], ref[scale]
            assert c["rmse"] > r["sigma"] - 2 * (c["se_rmse"] + r["se_sigma"]), method


def test_budget_refuses_what_cannot_fit(bvtest, monkeypatch):
    monkeypatch.setenv("BVTEST_MEMORY_MB", "1")
    proc = bvtest("budget", "--draws", 100, QRELS, RUNS)
    assert_one_line_error(proc, "--draws 100", "more than the limit")


def test_budget_bad_input(bvtest, tmp_path):
    bad = tmp_path / "r"
    bad.write_text("401 Q0 d1 x 1.0 r\n")
    assert_one_line_error(bvtest("budget", QRELS, bad, RUNS), "r:1:", "rank")
    assert_one_line_error(bvtest("budget", "--methods", "depth,nope", QRELS, RUNS), "nope")
    assert_one_line_error(bvtest("budget", "--budget", "0", QRELS, RUNS), "--budget")


def test_depth_sample_notes_that_k_sets_the_size(bvtest, tmp_path):
    proc = bvtest("sample", "--method", "depth", "--depth", 3, "--budget", 50,
                  "--out", tmp_path / "d", QRELS, RUNS)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "depth-3 pooling judges what K sets" in proc.stderr
