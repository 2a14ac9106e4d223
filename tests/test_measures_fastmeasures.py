"""The fast path against ir_measures' pytrec_eval provider, cell
for cell and bit for bit, and against the independent trec_eval reference
(tests/trec_ref.py) where pytrec_eval's float32 scores make false ties."""

from __future__ import annotations

import random
from pathlib import Path

import ir_measures
import numpy as np
import pytest
import trec_ref

from bvtest_cli.io.hashing import docno_digest
from bvtest_cli.io.sources import expand_sources
from bvtest_cli.io.trec import read_qrels, read_run_columns
from bvtest_cli.measures import fastmeasures as fm
from bvtest_cli.measures.bridge import pytrec_run
from bvtest_cli.measures.gdeval import GdevalERR, err_ranked

REPO = Path(__file__).resolve().parents[1]
MEASURES = [
    "AP",
    "AP@100",
    "AP(rel=2)",
    "nDCG",
    "nDCG@10",
    "nDCG@20",
    "P@10",
    "P(rel=2)@5",
    "R@100",
    "RR",
    "RR(rel=2)",
]


def compare_with_pytrec_eval(qrels_path: Path, runs: list[str]) -> int:
    """Every (run, measure, topic) cell pytrec_eval reports for a topic in the
    run equals the fast path's value exactly; returns the number of cells."""
    qf = read_qrels(str(qrels_path))
    table = qf.table
    ideal = fm.IdealDCG(table)
    measures = [ir_measures.parse_measure(n) for n in MEASURES]
    forms = [fm.fast_form(m) for m in measures]
    assert None not in forms
    evaluator = ir_measures.pytrec_eval.evaluator(measures, qf.qrels)
    cells = 0
    for source in expand_sources(runs):
        columns = read_run_columns(source)
        ranked = fm.rank_run(columns, table)
        values = fm.compute(ranked, table, forms, ideal)
        ours = {
            (str(m), t): v
            for m, column in zip(measures, values, strict=True)
            for t, v in zip(ranked.topics, column.tolist(), strict=True)
        }
        # stand-in scores give pytrec_eval bvtest's (trec_eval's) ranking
        theirs = pytrec_run(columns.as_dict(), qf.qrels.keys())
        for metric in evaluator.iter_calc(theirs):
            if metric.query_id not in columns.topics:
                continue  # ir_measures reports 0 for a topic the run lacks; bvtest fills 0 too
            assert ours[(str(metric.measure), metric.query_id)] == metric.value, (
                source.name,
                str(metric.measure),
                metric.query_id,
            )
            cells += 1
    return cells


def test_sample_track_equals_pytrec_eval():
    assert compare_with_pytrec_eval(REPO / "qrels" / "qrels.txt", [str(REPO / "sample_runs")])


@pytest.mark.parametrize("track", ["cast2021", "robust2003"])
def test_real_tracks_equal_pytrec_eval(shared_data, track):
    root = shared_data / track
    assert compare_with_pytrec_eval(root / "qrels.txt", [str(root / "runs")]) > 1000


def test_negative_grades_and_ties_equal_pytrec_eval(tmp_path):
    """Grades -2..3 (nDCG: only positive grades gain) and many tied scores
    (broken by docno descending)."""
    rng = random.Random(1)
    lines = []
    for t in range(1, 21):
        for d in rng.sample(range(200), 60):
            lines.append(f"{t} 0 d{d} {rng.choice([-2, -1, 0, 0, 1, 2, 3])}\n")
    (tmp_path / "qrels").write_text("".join(lines))
    runs = tmp_path / "runs"
    runs.mkdir()
    for r in range(3):
        out = []
        for t in range(1, 21):
            for i, d in enumerate(rng.sample(range(200), 80)):
                score = rng.choice([1.0, 0.5, 0.25, rng.random()])
                out.append(f"{t} Q0 d{d} {i + 1} {score} x\n")
        (runs / f"r{r}").write_text("".join(out))
    assert compare_with_pytrec_eval(tmp_path / "qrels", [str(runs)]) > 500


def test_float32_false_ties_follow_trec_eval(tmp_path):
    """Doubles that round to one float32 value: pytrec_eval alone would tie
    them; the fast path ranks by the doubles, as the pure-Python trec_eval
    reference (tests/trec_ref.py) does."""
    rng = random.Random(7)
    base = 0.812345671
    qrels = {str(t): {f"d{i}".encode(): rng.choice([0, 1, 2]) for i in range(30)} for t in (1, 2)}
    run = {t: {f"d{i}".encode(): base + rng.randrange(20) * 1e-9 for i in range(30)} for t in qrels}
    (tmp_path / "q").write_text(
        "".join(f"{t} 0 {d.decode()} {g}\n" for t, docs in qrels.items() for d, g in docs.items())
    )
    trec_ref.write_run(tmp_path / "r", run)
    table = read_qrels(str(tmp_path / "q")).table
    (source,) = expand_sources([str(tmp_path / "r")])
    ranked = fm.rank_run(read_run_columns(source), table)
    forms = [fm.fast_form(ir_measures.parse_measure(n)) for n in ("AP", "nDCG@10")]
    ap, ndcg = fm.compute(ranked, table, forms, fm.IdealDCG(table))
    for i, t in enumerate(ranked.topics):
        assert ap[i] == pytest.approx(trec_ref.average_precision(qrels[t], run[t]), abs=1e-15)
        assert ndcg[i] == pytest.approx(trec_ref.ndcg_cut(qrels[t], run[t], 10), abs=1e-15)


def test_err_ranked_equals_gdeval_calc():
    """The vectorised ERR@k equals GdevalERR.calc (tested against gdeval.pl in
    tests/test_measures_gdeval.py) on the sample track."""
    qf = read_qrels(str(REPO / "qrels" / "qrels.txt"))
    table = qf.table
    for source in expand_sources([str(REPO / "sample_runs")])[:4]:
        columns = read_run_columns(source)
        ranked = fm.rank_run(columns, table)
        for k in (1, 5, 20):
            fast = err_ranked(ranked, table.num_rel(1) > 0, k)
            assert fast == GdevalERR(qf.qrels, k).calc(columns.as_dict())


def test_unsupported_forms_go_to_ir_measures():
    for name in ("nDCG(dcg='exp-log2')@10", "Bpref", "P(judged_only=True)@5", "ERR@20"):
        assert fm.fast_form(ir_measures.parse_measure(name)) is None
    assert fm.fast_form(ir_measures.parse_measure("P@5")) == ("P", 5, 1)


def test_impl_option_gives_the_same_scores(bvtest):
    """--impl ir_measures (every measure through pytrec_eval) and the default
    fast path print the same scores file."""
    args = ["scores", "--quiet", "-m", "AP,nDCG@10,P@5,R@10,RR", str(REPO / "qrels" / "qrels.txt")]
    args.append(str(REPO / "sample_runs"))
    fast = bvtest(*args)
    slow = bvtest(*args, "--impl", "ir_measures")
    assert fast.returncode == slow.returncode == 0
    assert fast.stdout == slow.stdout and fast.stdout.count("\n") > 1000


def test_qrels_table_lookup_and_dict_view(tmp_path):
    (tmp_path / "q").write_text("2 0 b 1\n1 0 a 2\n1 0 c -1\n2 0 a 0\n")
    qf = read_qrels(str(tmp_path / "q"))
    assert list(qf.qrels) == ["2", "1"] and qf.qrels == {
        "2": {"b": 1, "a": 0},
        "1": {"a": 2, "c": -1},
    }
    table = qf.table
    judged, grade = table.grades_of(
        np.array([1, 1, 0, 0], dtype=np.int32), np.array([b"a", b"b", b"a", b"zz"])
    )
    assert judged.tolist() == [True, False, True, False] and grade.tolist() == [2, 0, 0, 0]


@pytest.mark.parametrize("seed", range(4))
def test_qrels_lookup_equals_a_dict(tmp_path, seed):
    """grades_of (hash, bucket directory, byte check) against a Python dict,
    on qrels big enough that many buckets hold several keys, with docnos of
    several widths and looked-up pairs judged, unjudged or judged for
    another topic."""
    rng = random.Random(seed)
    judged = {}
    for _ in range(3000):
        pair = (str(rng.randrange(20)), "d" * rng.randrange(1, 20) + str(rng.randrange(400)))
        judged[pair] = rng.randrange(-1, 4)
    (tmp_path / "q").write_text("".join(f"{t} 0 {d} {g}\n" for (t, d), g in judged.items()))
    table = read_qrels(str(tmp_path / "q")).table
    pairs = [rng.choice(list(judged)) for _ in range(500)]
    pairs += [
        (str(rng.randrange(20)), "d" * rng.randrange(1, 20) + str(rng.randrange(400)))
        for _ in range(300)
    ]
    pairs += [(t, d + "x") for t, d in pairs[:50]]  # a judged docno's prefix is not a match
    pairs = [(t, d) for t, d in pairs if t in table.topic_index]
    topics = np.array([table.topic_index[t] for t, _ in pairs], dtype=np.int32)
    docnos = np.array([d.encode() for _, d in pairs])
    got_judged, got_grade = table.grades_of(topics, docnos)
    assert got_judged.tolist() == [p in judged for p in pairs]
    assert got_grade.tolist() == [judged.get(p, 0) for p in pairs]
    # With the docnos' digests made beforehand (as the run parser does), the same.
    again = table.grades_of(topics, docnos, docno_digest(docnos))
    assert again[0].tolist() == got_judged.tolist() and again[1].tolist() == got_grade.tolist()


def _python_ranking(rows: list[tuple[int, float, bytes]]) -> list[tuple[int, float, bytes]]:
    """trec_eval's order by Python's sort: docno descending (bytes), then a
    stable sort by (topic ascending, score descending)."""
    by_docno = sorted(rows, key=lambda r: r[2], reverse=True)
    return sorted(by_docno, key=lambda r: (r[0], -r[1]))


@pytest.mark.parametrize("layout", ["shuffled", "score_sorted_docno_ascending", "sorted"])
@pytest.mark.parametrize("seed", range(6))
def test_ranking_order_equals_python_sort(layout, seed):
    # Few distinct scores and short docnos (some prefixes of others, some
    # longer than 8 bytes): many tie groups, docno words of unequal width.
    rng = random.Random(seed)
    rows = [
        (
            rng.randrange(4),
            float(rng.choice([0.0, -0.0, 1.5, 2.25, 7.0, -3.0, 1e300])),
            rng.choice([b"d", b"d1", b"d10", b"LA0101-0001x", b"LA0101-0001", b"b", b"zz9"]),
        )
        for _ in range(rng.randrange(2, 300))
    ]
    if layout == "shuffled":
        rng.shuffle(rows)
    else:  # a run by topic and score descending; ties ascending or descending by docno
        rows.sort(key=lambda r: r[2], reverse=layout == "sorted")
        rows.sort(key=lambda r: (r[0], -r[1]))
    t = np.array([r[0] for r in rows], dtype=np.int64)
    score = np.array([r[1] for r in rows])
    docno = np.array([r[2] for r in rows], dtype=bytes)
    order = fm.ranking_order(t, score, docno)
    perm = np.arange(len(rows)) if order is None else order
    got = [(int(t[i]), float(score[i]), bytes(docno[i])) for i in perm]
    assert got == _python_ranking(rows)
    assert sorted(perm.tolist()) == list(range(len(rows)))
    if layout == "sorted" and len(set(rows)) == len(rows):
        assert order is None  # nothing to do for a run already in trec_eval's order


def test_qrels_table_with_another_seed_ignores_run_digests(tmp_path, monkeypatch):
    """When two qrels pairs share a hash under seed 0 the table takes the next
    seed; a run's digests (made with seed 0 by the parser) are then not used
    for its lookups."""
    from bvtest_cli.io import hashing, trec

    real = hashing.docno_digest

    def colliding(docnos, seed=0):  # every docno collides under seed 0
        return np.zeros(docnos.size, np.uint64) if seed == 0 else real(docnos, seed)

    monkeypatch.setattr(hashing, "docno_digest", colliding)
    monkeypatch.setattr(trec, "docno_digest", colliding)
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 2\n2 0 a 3\n")
    table = read_qrels(str(tmp_path / "q")).table
    assert table.seed == 1
    docnos = np.array([b"a", b"b", b"c", b"a"])
    topics = np.array([table.topic_index[t] for t in "1112"], dtype=np.int32)
    judged, grade = table.grades_of(topics, docnos, colliding(docnos))
    assert judged.tolist() == [True, True, False, True] and grade.tolist() == [1, 2, 0, 3]
