"""Tests of depth-k pools, engineered runs and the TREC writers (docs/rankings.md;
Cormack & Grossman 2019 §4, §4.2).

Oracles: pools worked out by hand (with score ties decided by the docno
tie-break), the qrels restricted to retrieved documents computed here with
plain set operations, per-topic AP / nDCG@10 of ir_measures (pytrec_eval) on
the source runs, and the trecio readers for the written files. The real-data
test uses ../shared/data/robust2003 and is skipped without it.
"""

from __future__ import annotations

import math
from pathlib import Path

import ir_measures
import numpy as np
import pytest

from bvtest_cli.analyses.budgets.pooling import (
    engineer_run,
    engineered_name,
    pool,
    ranked,
    truncate_run,
)
from bvtest_cli.analyses.rankings import ranking_accuracy
from bvtest_cli.io.sources import Source, expand_sources
from bvtest_cli.io.trec import QrelsFile, format_qrels, read_qrels, read_run, sort_topics
from bvtest_cli.io.trec import format_run as format_ranking
from bvtest_cli.measures.collections import evaluate_collections
from bvtest_cli.measures.names import parse_measures
from bvtest_cli.measures.parallel import map_runs

REPO = Path(__file__).resolve().parents[1]
SAMPLE_QRELS = str(REPO / "qrels" / "qrels.txt")
SAMPLE_RUNS = str(REPO / "sample_runs")

MEASURES = [ir_measures.AP, ir_measures.nDCG @ 10]


def per_topic(qrels, run) -> dict[tuple[str, str], float]:
    """(measure, topic) → value, straight from ir_measures."""
    return {
        (str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(MEASURES, qrels, run)
    }


@pytest.fixture(scope="module")
def sample():
    qrels = read_qrels(SAMPLE_QRELS).qrels
    sources = expand_sources([SAMPLE_RUNS])
    return qrels, sources, [read_run(s) for s in sources]


# ------------------------------------------------------------------------------------
# Ranking rule and pools


def test_ranked_breaks_ties_by_docno_descending():
    docs = {"d1": 1.0, "d3": 2.0, "d2": 1.0, "d10": 1.0, "d0": 0.5}
    # 1.0 ties: "d2" > "d10" > "d1" as strings (strcmp, as trec_eval)
    assert [d for d, _ in ranked(docs)] == ["d3", "d2", "d10", "d1", "d0"]
    assert [d for d, _ in ranked(docs, 3)] == ["d3", "d2", "d10"]
    assert truncate_run({"1": docs}, 2) == {"1": {"d3": 2.0, "d2": 1.0}}


def test_pool_by_hand():
    qrels = {
        "1": {"a": 1, "b": 0, "c": 2, "d": 1, "z": 0},
        "2": {"p": 1, "q": 0},
        "3": {"u": 1},
    }
    runs = [
        # topic 1 top 2: a (3.0), then the 2.0 tie: "x" > "c" → x (unjudged)
        {"1": {"a": 3.0, "c": 2.0, "x": 2.0, "d": 1.0}, "2": {"q": 5.0, "p": 4.0, "r": 3.0}},
        # topic 1 top 2: the 1.0 tie → "d", "b"; topic 9 is not in the qrels
        {"1": {"b": 1.0, "d": 1.0, "a": 0.5}, "9": {"k": 1.0}},
    ]
    result = pool(qrels, runs, 2)
    # topic 1 pool {a, x, d, b}: judged a, b, d; topic 2 pool {q, p}; topic 3: nothing
    assert result.qrels == {"1": {"a": 1, "b": 0, "d": 1}, "2": {"p": 1, "q": 0}}
    assert list(result.qrels) == ["1", "2"] and list(result.qrels["1"]) == ["a", "b", "d"]
    assert (result.depth, result.pooled, result.unjudged) == (2, 6, 1)
    with pytest.raises(ValueError):
        pool(qrels, runs, 0)


def test_full_depth_pool_is_the_qrels_restricted_to_retrieved_documents(sample):
    qrels, _, runs = sample
    depth = max(len(docs) for run in runs for docs in run.values())
    retrieved: dict[str, set[str]] = {}
    for run in runs:
        for topic, docs in run.items():
            retrieved.setdefault(topic, set()).update(docs)
    expected = {
        t: {d: g for d, g in judged.items() if d in retrieved.get(t, set())}
        for t, judged in qrels.items()
    }
    expected = {t: docs for t, docs in expected.items() if docs}
    result = pool(qrels, runs, depth)
    assert result.qrels == expected
    assert result.unjudged == sum(
        len(docs - qrels[t].keys()) for t, docs in retrieved.items() if t in qrels
    )
    # Shallower pools are nested and smaller.
    shallow = pool(qrels, runs, 5).qrels
    assert all(shallow[t].items() <= expected[t].items() for t in shallow)
    assert sum(map(len, shallow.values())) < sum(map(len, expected.values()))


def test_pool_from_truncated_runs_is_the_same(sample):
    qrels, _, runs = sample
    assert pool(qrels, [truncate_run(r, 10) for r in runs], 10) == pool(qrels, runs, 10)


# ------------------------------------------------------------------------------------
# Writers


def format_run(run, tag):
    """A run in bvtest's rank order (score descending, ties by docno
    descending), topics in TREC order, written by the one run writer."""
    return format_ranking(((t, ranked(run[t])) for t in sort_topics(run)), tag)


def test_format_qrels_and_run_read_back(tmp_path):
    qrels = {"10": {"b": 1, "a": 0}, "2": {"z": 2, "c": -1}}
    text = format_qrels(qrels)
    assert text == "2 0 c -1\n2 0 z 2\n10 0 a 0\n10 0 b 1\n"
    (tmp_path / "q").write_text(text)
    assert read_qrels(str(tmp_path / "q")).qrels == qrels
    run = {"10": {"x": 0.1 + 0.2, "y": 1e-300}, "2": {"b": 1.0, "a": 1.0, "c": 2.5}}
    text = format_run(run, "tag1")
    assert text.splitlines()[:3] == ["2 Q0 c 1 2.5 tag1", "2 Q0 b 2 1.0 tag1", "2 Q0 a 3 1.0 tag1"]
    (tmp_path / "r").write_text(text)
    back = read_run(Source(str(tmp_path / "r"), "r"))
    assert back == run  # repr keeps every double
    with pytest.raises(ValueError):
        format_run(run, "two words")


# ------------------------------------------------------------------------------------
# Engineered runs


def test_engineered_runs_keep_per_topic_ap_and_ndcg_exactly(sample, tmp_path):
    qrels, sources, runs = sample
    depth5 = pool(qrels, runs, 5).qrels
    changed_top = differs_under_pool = 0
    for source, run in zip(sources, runs, strict=True):
        eng = engineer_run(run, qrels, name=source.name, seed=1)
        path = tmp_path / engineered_name(source.name)
        path.write_text(format_run(eng, engineered_name(source.name)))
        back = read_run(Source(str(path), path.name))
        assert back == eng
        full_src, full_eng = per_topic(qrels, run), per_topic(qrels, back)
        assert full_eng == full_src  # exactly, every topic and measure
        pooled_src, pooled_eng = per_topic(depth5, run), per_topic(depth5, back)
        differs_under_pool += sum(pooled_src[k] != pooled_eng[k] for k in pooled_src)
        for topic in run:
            src_top = [d for d, _ in ranked(run[topic], 5)]
            eng_top = [d for d, _ in ranked(back[topic], 5)]
            changed_top += src_top != eng_top
    assert differs_under_pool > 50
    assert changed_top > 100


def test_engineered_run_permutes_relevant_documents_within_grade(sample):
    qrels, sources, runs = sample
    run = runs[0]
    eng = engineer_run(run, qrels, name=sources[0].name, seed=3)
    for topic, docs in run.items():
        src = ranked(docs)
        new = ranked(eng[topic])
        assert sorted(docs) == sorted(eng[topic])
        judged = qrels.get(topic, {})
        for (d_src, s_src), (d_new, s_new) in zip(src, new, strict=True):
            assert judged.get(d_new, 0) == judged.get(d_src, 0)  # every position keeps its grade
            if judged.get(d_src, 0) <= 0:
                assert d_new == d_src  # non-relevant and unjudged documents stay
            # the source's score, or a few single-precision steps below at a tie
            assert s_new <= s_src and math.isclose(s_new, s_src, rel_tol=1e-4)


def test_engineered_run_is_keyed_by_seed_and_name(sample):
    qrels, _, runs = sample
    run = runs[2]
    a = engineer_run(run, qrels, name="sys003", seed=1)
    assert a == engineer_run(run, qrels, name="sys003", seed=1)
    assert a != engineer_run(run, qrels, name="sys003", seed=2)
    assert a != engineer_run(run, qrels, name="other", seed=1)
    # A topic's permutation does not depend on the run's other topics.
    one_topic = {"401": run["401"]}
    assert engineer_run(one_topic, qrels, name="sys003", seed=1)["401"] == a["401"]


def test_engineered_run_keeps_its_order_where_scores_tie():
    # Source order: d9 (2.0, rel), then the 1.0 tie d3 (non-rel) before d2
    # (rel). A swap puts d9 in the tie after d3, where the docno tie-break
    # would move it up: its score must drop below 1.0, to the next
    # single-precision float, 1 − 2⁻²⁴ (pytrec_eval compares C floats).
    qrels = {"1": {"d9": 1, "d2": 1, "d3": 0}}
    run = {"1": {"d9": 2.0, "d3": 1.0, "d2": 1.0}}
    relevant_positions = [0, 2]
    swapped = None
    for seed in range(40):
        eng = engineer_run(run, qrels, name="r", seed=seed)
        if next(d for d, _ in ranked(eng["1"])) == "d2":
            swapped = eng
            break
    assert swapped is not None, "no seed out of 40 swapped the two relevant documents"
    order = [d for d, _ in ranked(swapped["1"])]
    assert order == ["d2", "d3", "d9"]
    assert [i for i, d in enumerate(order) if qrels["1"][d] > 0] == relevant_positions
    assert swapped["1"] == {"d2": 2.0, "d3": 1.0, "d9": 1 - 2**-24}
    assert per_topic(qrels, swapped) == per_topic(qrels, run)


# ------------------------------------------------------------------------------------
# Real data: pooling bias and engineered runs on TREC 2003 Robust


def test_robust2003_shallow_pool_bias_grows_with_engineered_runs(shared_data, tmp_path):
    """Cormack & Grossman 2019 Tables 1–2: a depth-5 pool is biased, and more
    so when dissimilar (engineered) runs are ranked with the submitted ones."""
    root = shared_data / "robust2003"
    ref = read_qrels(str(root / "qrels.txt"))
    sources = expand_sources([str(root / "runs")])
    names = [s.name for s in sources]

    def make_work():
        def work(index: int, run):
            name = engineered_name(names[index])
            eng = engineer_run(run, ref.qrels, name=names[index], seed=1)
            (tmp_path / name).write_text(format_run(eng, name))
            return truncate_run(run, 10)

        return work

    tops = map_runs(sources, make_work, jobs=2)
    eng_sources = [Source(str(tmp_path / engineered_name(n)), engineered_name(n)) for n in names]
    depth5 = QrelsFile("depth5", pool(ref.qrels, tops, 5).qrels, {})
    depth10 = QrelsFile("depth10", pool(ref.qrels, tops, 10).qrels, {})
    cols = {"depth5": [depth5], "depth10": [depth10]}
    (both,) = evaluate_collections(ref, cols, sources + eng_sources, parse_measures(["AP"]), jobs=2)
    m = len(sources)
    # Same AP under G. Not bit for bit here: pytrec_eval ranks the source runs
    # by single-precision scores, which merges a few of oce03noXbmD's (scores
    # ~1015.8 with 11 digits), so bvtest's AP of the source differs from
    # trec_eval's (double) in the 6th decimal on 13 (run, topic) pairs.
    np.testing.assert_allclose(both.reference[0][m:], both.reference[0][:m], rtol=0, atol=1e-5)
    kwargs = dict(reference_name="G", samples=500, seed=7)
    sub = ranking_accuracy(
        both.reference[:, :m], {k: v[:, :m] for k, v in both.collections.items()}, **kwargs
    )
    eng = ranking_accuracy(both.reference, both.collections, **kwargs)
    s5, s10 = (c.accuracy for c in sub.collections)
    e5, e10 = (c.accuracy for c in eng.collections)
    assert s5.bias > s10.bias > 0 and s10.bias > 5 * s10.se_bias
    assert e5.bias > 1.5 * s5.bias and e10.bias > 1.5 * s10.bias
