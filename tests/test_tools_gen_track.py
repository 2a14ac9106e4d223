"""Tests of tools/gen_track.py, the seeded synthetic TREC track generator."""

from __future__ import annotations

import gzip
import itertools
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import ir_measures
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import gen_track  # noqa: E402

# the documented command that makes the bundled sample track (run from the repo root)
SAMPLE_ARGS = ["--qrels-out", "qrels/qrels.txt", "--runs-out", "sample_runs"]


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def _parse_run(path: Path) -> dict[str, list[tuple[str, int, float, str]]]:
    """qid -> [(docno, rank, score, text of score)] in file order; checks the columns."""
    out: dict[str, list[tuple[str, int, float, str]]] = defaultdict(list)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        for line in f:
            cols = line.rstrip("\n").split(" ")
            assert len(cols) == 6, line
            qid, q0, docno, rank, score, tag = cols
            assert q0 == "Q0"
            assert tag == path.name.removesuffix(".gz")
            assert docno.startswith("DOC-") and len(docno) == 15
            assert rank.isdigit()
            float(score)
            out[qid].append((docno, int(rank), float(score), score))
    return out


def _parse_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        cols = line.split(" ")
        assert len(cols) == 4, line
        qid, it, docno, grade = cols
        assert it == "0"
        assert docno not in out[qid]
        out[qid][docno] = int(grade)
    return out


@pytest.fixture(scope="module")
def default_track(tmp_path_factory: pytest.TempPathFactory) -> gen_track.Track:
    return gen_track.generate(tmp_path_factory.mktemp("default"))


def test_same_seed_is_byte_identical_other_seed_differs(tmp_path: Path) -> None:
    kw = {"runs": 6, "topics": 8, "min_depth": 50, "max_depth": 300, "judged": 120}
    gen_track.generate(tmp_path / "a", seed=7, **kw)
    gen_track.generate(tmp_path / "b", seed=7, **kw)
    gen_track.generate(tmp_path / "c", seed=8, **kw)
    a, b, c = (_files(tmp_path / x) for x in "abc")
    assert a == b
    assert len(a) == 7  # qrels + 6 runs
    assert a.keys() == c.keys()
    assert a["qrels.txt"] != c["qrels.txt"]
    assert all(a[k] != c[k] for k in a)


def test_gz_is_deterministic_and_decompresses_to_plain(tmp_path: Path) -> None:
    kw = {"runs": 3, "topics": 4, "depth": 40, "judged": 50, "seed": 3}
    gen_track.generate(tmp_path / "plain", **kw)
    gen_track.generate(tmp_path / "gz1", gz=True, **kw)
    gen_track.generate(tmp_path / "gz2", gz=True, **kw)
    assert _files(tmp_path / "gz1") == _files(tmp_path / "gz2")
    for p in sorted((tmp_path / "plain" / "runs").iterdir()):
        gz = tmp_path / "gz1" / "runs" / (p.name + ".gz")
        assert gzip.decompress(gz.read_bytes()) == p.read_bytes()
        assert _parse_run(gz).keys() == _parse_run(p).keys()


def test_default_track_format(default_track: gen_track.Track) -> None:
    t = default_track
    assert len(t.run_paths) == 12 and len(t.topic_ids) == 30
    assert t.topic_ids[0] == "401" and t.topic_ids[-1] == "430"
    depths = t.depths
    assert min(depths.values()) == 100 and max(depths.values()) == 1000
    assert len(set(depths.values())) > 10  # depth varies by topic

    qrels = _parse_qrels(t.qrels_path)
    assert sorted(qrels) == t.topic_ids
    retrieved: dict[str, set[str]] = defaultdict(set)
    any_ties = False
    missing_runs = []
    for path in t.run_paths:
        run = _parse_run(path)
        if set(run) != set(t.topic_ids):
            missing_runs.append(path.name)
        for qid, rows in run.items():
            docnos = [r[0] for r in rows]
            assert len(set(docnos)) == len(docnos)  # no duplicate docno per topic
            assert [r[1] for r in rows] == list(range(1, len(rows) + 1))
            assert len(rows) == depths[qid]
            for (d1, _, s1, _), (d2, _, s2, _) in itertools.pairwise(rows):
                assert s1 >= s2  # score descending
                if s1 == s2:  # trec_eval breaks ties by docno, descending
                    assert d1 > d2
                    any_ties = True
            assert all(len(r[3].split(".")[1]) == 6 for r in rows)  # %.6f
            retrieved[qid].update(docnos)
    assert any_ties
    # exactly one run misses a couple of topics entirely
    assert missing_runs == list(t.missing)
    (skipped,) = t.missing.values()
    assert len(skipped) == 2

    grades = Counter(g for q in qrels.values() for g in q.values())
    assert set(grades) <= {0, 1, 2, 3, 4}
    assert grades[0] > grades[1] > grades[2] > grades[3] > grades[4] > 0
    for qid, judged in qrels.items():
        n_rel = sum(g > 0 for g in judged.values())
        if qid in t.norel_topics:
            assert n_rel == 0
        else:
            assert n_rel >= 1
    assert t.norel_topics == ["430"]
    # pools: judged docs mostly retrieved, plus some relevant docs no run retrieved
    judged_total = sum(len(q) for q in qrels.values())
    unretrieved_rel = [
        d for qid, q in qrels.items() for d, g in q.items() if g > 0 and d not in retrieved[qid]
    ]
    unretrieved = [d for qid, q in qrels.items() for d in q if d not in retrieved[qid]]
    assert unretrieved_rel
    assert unretrieved == unretrieved_rel
    assert len(unretrieved) < 0.02 * judged_total


def test_requested_sizes_trec8_shape(tmp_path: Path) -> None:
    """TREC-8 shape (129 runs, depth 1000, ~1700 judgments) on a few topics."""
    t = gen_track.generate(tmp_path, runs=129, topics=3, depth=1000, judged=1700, seed=1)
    assert len(t.run_paths) == 129 and len(list((tmp_path / "runs").iterdir())) == 129
    qrels = _parse_qrels(tmp_path / "qrels.txt")
    assert sorted(qrels) == ["401", "402", "403"]
    for n in t.n_judged.values():
        assert 1200 <= n <= 2300
    for p in t.run_paths[:5]:
        run = _parse_run(p)
        assert all(len(rows) == 1000 for rows in run.values())


def test_requested_sizes_small(tmp_path: Path) -> None:
    t = gen_track.generate(
        tmp_path, runs=5, topics=7, depth=50, judged=60, norel_topics=0, missing_topics=0
    )
    assert [p.name for p in t.run_paths] == [f"sys{i:03d}" for i in range(1, 6)]
    for p in t.run_paths:
        run = _parse_run(p)
        assert sorted(run) == [str(q) for q in range(401, 408)]
        assert all(len(rows) == 50 for rows in run.values())
    qrels = _parse_qrels(tmp_path / "qrels.txt")
    assert all(any(g > 0 for g in q.values()) for q in qrels.values())


def test_effectiveness_stability_tradeoff(default_track: gen_track.Track) -> None:
    """AP per topic (ir_measures), then Bias² against c = mean_j max_i x_ij and Var."""
    t = default_track
    qrels = list(ir_measures.read_trec_qrels(str(t.qrels_path)))
    topics = sorted({q.query_id for q in qrels if q.relevance > 0})  # drop no-relevant topics
    col = {q: j for j, q in enumerate(topics)}
    x = np.zeros((len(t.run_paths), len(topics)))  # missing topic -> 0
    for i, p in enumerate(t.run_paths):
        run = list(ir_measures.read_trec_run(str(p)))
        for m in ir_measures.iter_calc([ir_measures.AP], qrels, run):
            if m.query_id in col:
                x[i, col[m.query_id]] = m.value
    mean = x.mean(axis=1)
    c = x.max(axis=0).mean()
    bias2 = (mean - c) ** 2
    var = x.var(axis=1)
    assert mean.max() - mean.min() > 0.25  # systems differ in effectiveness (observed 0.38)
    assert var.max() > 2.5 * var.min()  # ... and in stability (observed 0.097 vs 0.026)
    r = np.corrcoef(bias2, var)[0, 1]
    # observed on the default track (seed 42): r = -0.907
    assert r < -0.5


def test_bundled_sample_track_is_the_documented_command(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_track.py"), *SAMPLE_ARGS],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "qrels" / "qrels.txt").read_bytes() == (
        ROOT / "qrels" / "qrels.txt"
    ).read_bytes()
    assert _files(tmp_path / "sample_runs") == _files(ROOT / "sample_runs")


def test_cli_requires_outputs(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        gen_track.main(["--qrels-out", str(tmp_path / "q.txt")])
    with pytest.raises(ValueError):
        gen_track.generate(tmp_path, min_depth=10, max_depth=5)


def test_fill_judged_makes_sparse_qrels(tmp_path: Path) -> None:
    """--fill-judged (the many-topics bench track): each topic is judged to
    about ``judged`` documents although the runs retrieve at most 2 x depth
    distinct ones; the extra judgments are grade 0 and in no run."""
    t = gen_track.generate(
        tmp_path, runs=4, topics=6, depth=20, judged=300, seed=3, fill_judged=True
    )
    qrels = _parse_qrels(tmp_path / "qrels.txt")  # also checks: no docno judged twice
    retrieved: dict[str, set[str]] = defaultdict(set)
    for p in t.run_paths:
        for qid, rows in _parse_run(p).items():
            retrieved[qid].update(docno for docno, *_ in rows)
    for qid, judged in qrels.items():
        # the ±15 % log-normal target: exp(±5 sigma) bounds, far above 2 x depth = 40
        assert 300 * np.exp(-0.75) <= len(judged) <= 300 * np.exp(0.75)
        assert t.n_judged[qid] == len(judged)
        unretrieved = {d: g for d, g in judged.items() if d not in retrieved[qid]}
        assert len(unretrieved) >= len(judged) - 2 * 20
        # relevant unretrieved documents are only the few spare ones (<= 8 per topic)
        assert sum(g > 0 for g in unretrieved.values()) <= gen_track.MAX_UNRETRIEVED
    # with the option off the same call judges at most what the runs retrieved + spares
    plain = gen_track.generate(tmp_path / "plain", runs=4, topics=6, depth=20, judged=300, seed=3)
    assert all(n <= 2 * 20 + gen_track.MAX_UNRETRIEVED for n in plain.n_judged.values())


def test_docnos_formatting() -> None:
    gids = np.array([0, 7, 99_999, 100_000, 4_999_999, 1_234_567, 9_999_999])
    expected = [f"DOC-{g // 100_000:04d}-{g % 100_000:06d}".encode() for g in gids.tolist()]
    assert gen_track._docnos(gids).tolist() == expected
