"""No silent wrong number in sample, budget, pool, rankings and compare.

Each case is a user's command line. Oracles: RMSE = √(b² + σ²) is a root of
squares (never negative, never below σ), written out here from the reported
b2 and sigma; the depth-1 pool sizes, the judged rows of a sample file and
the pooled documents are counted here by a plain parser of the run and
qrels files; a stratified sample's inclusion probabilities are judged /
listed per stratum, counted from the written file.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error

Q, R = SAMPLE_QRELS, SAMPLE_RUNS


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


def read_runs(directory: Path) -> dict[str, dict[str, list[str]]]:
    """run → topic → docnos in rank order (score descending, docno descending)."""
    out: dict[str, dict[str, list[str]]] = {}
    for path in sorted(directory.iterdir()):
        rows = defaultdict(list)
        for line in path.read_text().splitlines():
            qid, _, docno, _, score, _ = line.split()
            rows[qid].append((float(score), docno))
        out[path.name] = {t: [d for _, d in sorted(r, reverse=True)] for t, r in rows.items()}
    return out


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        f = line.split()
        out[f[0]][f[2]] = int(f[-1])
    return out


def read_strata(path: Path) -> dict[str, dict[str, tuple[int, int]]]:
    out: dict[str, dict[str, tuple[int, int]]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        qid, _, docno, stratum, rel = line.split()
        out[qid][docno] = (int(stratum), int(rel))
    return out


def relevant_topics(qrels: dict[str, dict[str, int]]) -> list[str]:
    return [t for t, docs in qrels.items() if any(g >= 1 for g in docs.values())]


# ---------------------------------------------------------------------- class 1


def test_rankings_rmse_squared_is_signed_b2_plus_sigma2(bvtest):
    # X = G: b = 0, so about half the seeds estimate b² < 0
    seen_negative = 0
    for seed in range(1, 9):
        proc = ok(bvtest("rankings", "-f", "json", "--bootstrap", 4, "--seed", seed,
                         "--reference", Q, "--collection", f"same={Q}", R))  # fmt: skip
        c = json.loads(proc.stdout)["collections"]["same"]
        assert c["rmse"] >= 0
        # RMSE² = b² + σ² with b² signed (Cormack & Grossman 2019 Table 1), 0 if negative
        assert c["rmse"] == pytest.approx(math.sqrt(max(c["b2"] + c["sigma"] ** 2, 0.0)))
        if c["b2"] < 0:
            seen_negative += 1
            assert c["bias"] == pytest.approx(-math.sqrt(-c["b2"]))
            assert c["rmse"] < c["sigma"]
            note = [x for x in proc.stderr.splitlines() if "same:" in x and "b2" in x]
            assert note and "only bias is signed" in note[0] and "below sigma" in note[0]
    assert seen_negative >= 1  # the case the fix is about did occur


def test_budget_rmse_squared_is_signed_b2_plus_sigma2(bvtest):
    proc = ok(bvtest("budget", "-f", "json", "--budget", "10,20", "--draws", 2, "--bootstrap", 2,
                     "--topics-scale", 1, "--seed", 13, Q, R))  # fmt: skip
    cells = json.loads(proc.stdout)["cells"]
    negative = [c for c in cells if c["bias"] < 0]
    assert negative, "no negative b² estimate: the test would not see the bug"
    for c in cells:
        assert c["rmse"] >= 0
        b2 = math.copysign(c["bias"] ** 2, c["bias"])
        assert c["rmse"] == pytest.approx(math.sqrt(max(b2 + c["sigma"] ** 2, 0.0)))
        if b2 < 0:
            assert c["rmse"] < c["sigma"]
    assert f"{len(negative)} cell(s) have a negative bootstrap estimate of b2" in proc.stderr
    assert "only bias is signed" in proc.stderr


# ---------------------------------------------------------------------- class 2


def test_budget_names_a_depth_pool_beyond_the_budget_and_its_cost(bvtest):
    qrels = read_qrels(Q)
    topics = relevant_topics(qrels)
    runs = read_runs(R)
    # depth-1 pool, by hand: the distinct top documents per topic
    pooled = {t: {r[t][0] for r in runs.values() if r.get(t)} for t in topics}
    mean = sum(len(p) for p in pooled.values()) / len(topics)
    assert mean > 5  # so budget 5 has no depth that fits
    proc = ok(bvtest("budget", "-f", "json", "--budget", 5, "--methods", "depth,hedge",
                     "--bootstrap", 2, "--topics-scale", 1, Q, R))  # fmt: skip
    cells = {c["method"]: c for c in json.loads(proc.stdout)["cells"]}
    assert cells["depth-1"]["assessments"] == sum(len(p) for p in pooled.values())
    assert cells["hedge"]["assessments"] == 5 * len(topics)
    lines = proc.stderr.splitlines()
    over = [x for x in lines if "no pool depth fits" in x]
    assert len(over) == 1 and f"{mean:.3g}" in over[0] and "depth-1" in over[0]
    cost = [x for x in lines if "cost different numbers of judgments" in x]
    assert len(cost) == 1 and f"depth-1 {mean:.3g}" in cost[0] and "hedge 5" in cost[0]
    assert not any("mean pool size per topic ≤ budget" in x and "5: depth" in x for x in lines)


# ---------------------------------------------------------------------- class 3


def test_sample_never_keeps_more_strata_than_the_budget(bvtest, tmp_path):
    out = tmp_path / "s"
    proc = ok(bvtest("sample", "--method", "pps", "--budget", 10, "--out", out, Q, R))
    assert "--strata 20" in proc.stderr and "10 strata used" in proc.stderr
    sample = read_strata(out / "pps.001.qrels")
    for topic, docs in sample.items():
        listed: dict[int, int] = defaultdict(int)
        judged: dict[int, int] = defaultdict(int)
        for stratum, rel in docs.values():
            listed[stratum] += 1
            judged[stratum] += rel >= 0
        assert max(listed) <= 10, topic
        # every stratum holds a judged document: no inclusion probability 0
        assert all(judged[h] > 0 for h in listed), (topic, dict(listed), dict(judged))


def test_budget_reduces_the_strata_to_the_budget(bvtest):
    proc = ok(bvtest("budget", "--budget", "4,30", "--methods", "statAP", "--draws", 2,
                     "--bootstrap", 2, "--topics-scale", 1, Q, R))  # fmt: skip
    note = [x for x in proc.stderr.splitlines() if x.startswith("bvtest: note: --strata 20")]
    assert len(note) == 1 and "budget 4: 4" in note[0] and "budget 30" not in note[0]


# ---------------------------------------------------------------------- class 4


@pytest.fixture(scope="module")
def pps_sample(tmp_path_factory):
    from conftest import run_bvtest

    out = tmp_path_factory.mktemp("inputs4") / "s"
    ok(run_bvtest("sample", "--method", "pps", "--budget", 10, "--strata", 10, "--out", out, Q, R))
    return out / "pps.001.qrels"


def test_pool_of_a_sample_leaves_unjudged_rows_out(bvtest, pps_sample):
    sample = read_strata(pps_sample)
    runs = read_runs(R)
    proc = ok(bvtest("pool", "--depth", 3, pps_sample, R))
    got = {tuple(line.split()) for line in proc.stdout.splitlines()}
    pooled = unjudged = 0
    expected = set()
    for topic, docs in sample.items():
        pool = {d for r in runs.values() for d in r.get(topic, [])[:3]}
        pooled += len(pool)
        for d in pool:
            if d in docs and docs[d][1] >= 0:
                expected.add((topic, "0", d, str(docs[d][1])))
            else:
                unjudged += 1
    assert got == expected
    assert all(g[3] != "-1" for g in got)
    assert f"{pooled} documents over {len(sample)} qrels topics; {unjudged} of them" in proc.stderr
    assert unjudged > 0


def test_budget_counts_only_judged_rows_of_a_sample_as_assessments(bvtest, pps_sample):
    sample = read_strata(pps_sample)
    topics = [t for t, docs in sample.items() if any(g >= 1 for _, g in docs.values())]
    judged = sum(1 for t in topics for _, g in sample[t].values() if g >= 0)
    listed = sum(len(sample[t]) for t in topics)
    assert listed > judged
    proc = ok(bvtest("budget", "-f", "json", "--budget", 5, "--methods", "hedge", "--bootstrap", 2,
                     "--topics-scale", 1, pps_sample, R))  # fmt: skip
    (reference,) = json.loads(proc.stdout)["reference"]
    assert reference["assessments"] == judged


def test_rankings_counts_a_topic_of_unjudged_rows_as_unjudged(bvtest, tmp_path):
    qrels = read_qrels(Q)
    topics = relevant_topics(qrels)
    lines = []
    for t in topics:
        for d, g in qrels[t].items():
            # the first two topics: every row pooled but not judged
            rel = -1 if t in topics[:2] else g
            lines.append(f"{t} 0 {d} 1 {rel}\n")
    sampled = tmp_path / "sampled.qrels"
    sampled.write_text("".join(lines))
    proc = ok(bvtest("rankings", "-m", "statAP", "--bootstrap", 4, "--reference", Q,
                     "--collection", f"s={sampled}", R))  # fmt: skip
    assert f"2 of {len(topics)} topics have no judgments" in proc.stderr


# ---------------------------------------------------------------------- class 5


def test_compare_notes_a_pitman_morgan_p_it_cannot_compute(bvtest, tmp_path):
    two = [x for x in Q.read_text().splitlines() if x.split()[0] in ("401", "402")]
    (tmp_path / "q").write_text("\n".join(two) + "\n")
    run = [x for x in (R / "sys001").read_text().splitlines() if x.split()[0] in ("401", "402")]
    (tmp_path / "a").write_text("\n".join(run) + "\n")
    (tmp_path / "b").write_text("\n".join(x.rsplit(" ", 1)[0] + " b" for x in run) + "\n")
    proc = ok(bvtest("compare", "-m", "AP", "--pair", "a", "b", tmp_path / "q", tmp_path / "a",
                     tmp_path / "b"))  # fmt: skip
    var = [x.split("\t") for x in proc.stdout.splitlines() if "\tvar\t" in x]
    assert var and var[0][-2] == "nan"  # the value the note is about
    assert "Pitman–Morgan" in proc.stderr and "at least 3 topics, got 2" in proc.stderr


# ---------------------------------------------------------------------- class 6


@pytest.mark.parametrize("command", ["sample", "budget"])
def test_qrels_sharing_no_topic_with_the_runs_is_an_error(bvtest, tmp_path, command):
    other = tmp_path / "other.qrels"
    other.write_text("999 0 DOC-1 1\n999 0 DOC-2 0\n")
    extra = ["--out", tmp_path / "o"] if command == "sample" else ["--bootstrap", 2]
    proc = bvtest(command, "--budget", 5, *extra, other, R)
    assert_one_line_error(proc, "other.qrels", "wrong qrels file?")
    assert not (tmp_path / "o").exists()
