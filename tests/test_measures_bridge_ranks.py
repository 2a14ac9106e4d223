""", items 1 and 3: rankings and relevance levels as trec_eval has them.

Expected values come from hand computations written here, from the
pure-Python trec_eval rules in tests/trec_ref.py, and from the trec_eval C
binary when it can be built (those tests skip otherwise).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import trec_ref
from conftest import SAMPLE_QRELS, SAMPLE_RUNS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bvtest_cli.io.sources import Source
from bvtest_cli.io.trec import read_qrels, read_run
from bvtest_cli.measures.bridge import RunEvaluator, ascending_float32, float32_keeps_order
from bvtest_cli.measures.names import parse_measures


@pytest.fixture
def files(tmp_path):
    def make(name: str, data: str | bytes):
        path = tmp_path / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path

    return make


def scores_of(proc) -> dict[tuple[str, str, str], float]:
    """(system, topic, measure) → value from `bvtest scores` output."""
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in proc.stdout.splitlines()[1:]]
    return {(s, t, m): float(v) for s, t, m, v in rows}


@pytest.fixture(scope="module")
def trec_eval():
    binary = trec_ref.trec_eval_binary()
    if binary is None:
        pytest.skip("trec_eval cannot be built (no ../shared tarball or no C compiler)")
    return binary


# ---------------------------------------------------------------------------
# Item 1: scores keep their double precision


def test_near_equal_scores_rank_as_doubles(bvtest, files):
    # By hand: a (relevant) scores higher than b, so it is ranked first:
    # AP = (1/1) / 1 = 1, nDCG@10 = 1. In float32 both scores are 0.81234568,
    # and the docno tie-break (b > a) would put b first: AP 0.5.
    assert np.float32(0.812345679) == np.float32(0.812345671)
    qrels = files("q", "1 0 a 1\n1 0 b 0\n")
    run = files("r", "1 Q0 a 1 0.812345679 x\n1 Q0 b 2 0.812345671 x\n")
    got = scores_of(bvtest("scores", "-m", "AP,nDCG@10,P@1,RR", qrels, run))
    assert got == {
        ("r", "1", "AP"): 1.0,
        ("r", "1", "nDCG@10"): 1.0,
        ("r", "1", "P@1"): 1.0,
        ("r", "1", "RR"): 1.0,
    }


def test_exact_ties_break_by_docno_descending(bvtest, files):
    # By hand: equal scores, so docno descending: b then a; a relevant at rank 2:
    # AP = (1/2) / 1, RR = 1/2.
    qrels = files("q", "1 0 a 1\n1 0 b 0\n")
    run = files("r", "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.5 x\n")
    got = scores_of(bvtest("scores", "-m", "AP,RR", qrels, run))
    assert got == {("r", "1", "AP"): 0.5, ("r", "1", "RR"): 0.5}


def test_large_scores_near_1e8(bvtest, files):
    # float32 steps are 8 apart at 1e8: all three scores become 1e8 and the
    # docno tie-break would give c, b, a (AP 1/3). By hand in score order
    # a, b, c with only a relevant: AP = 1.
    assert np.float32(99999999.0) == np.float32(99999997.0)
    qrels = files("q", "1 0 a 1\n1 0 b 0\n1 0 c 0\n")
    run = files("r", "1 Q0 a 1 99999999 x\n1 Q0 b 2 99999998 x\n1 Q0 c 3 99999997 x\n")
    got = scores_of(bvtest("scores", "-m", "AP", qrels, run))
    assert got[("r", "1", "AP")] == 1.0


def test_cast_scores_replaced_by_1e8_minus_rank(bvtest, shared_data, tmp_path):
    """score = 1e8 − rank on CAsT 2021's org_manual_ance_bert: the reported case
    (pytrec_eval alone gave map 0.2883 and nDCG@10 0.4975). Every topic
    against the pure-Python trec_eval rules, the means against the binary."""
    cast = shared_data / "cast2021"
    lines = (cast / "runs" / "org_manual_ance_bert.run").read_bytes().splitlines()
    out = []
    for line in lines:
        f = line.split()
        out.append(b" ".join([*f[:4], b"%.1f" % (1e8 - int(f[3])), f[5]]))
    run_path = tmp_path / "ance_1e8.run"
    run_path.write_bytes(b"\n".join(out) + b"\n")
    got = scores_of(bvtest("scores", "--quiet", "-m", "AP,nDCG@10", cast / "qrels.txt", run_path))

    qrels: dict[str, dict[bytes, int]] = {}
    for line in (cast / "qrels.txt").read_bytes().splitlines():
        t, _, d, g = line.split()
        qrels.setdefault(t.decode(), {})[d] = int(g)
    run: dict[str, dict[bytes, float]] = {}
    for line in out:
        f = line.split()
        run.setdefault(f[0].decode(), {})[f[2]] = float(f[4])
    topics = [t for t, docs in qrels.items() if any(g >= 1 for g in docs.values())]
    assert len(topics) == 158
    for t in topics:
        docs = run.get(t, {})
        assert got[("ance_1e8.run", t, "AP")] == pytest.approx(
            trec_ref.average_precision(qrels[t], docs), abs=1e-12
        ), t
        assert got[("ance_1e8.run", t, "nDCG@10")] == pytest.approx(
            trec_ref.ndcg_cut(qrels[t], docs), abs=1e-12
        ), t
    mean_ap = sum(got[("ance_1e8.run", t, "AP")] for t in topics) / len(topics)
    mean_ndcg = sum(got[("ance_1e8.run", t, "nDCG@10")] for t in topics) / len(topics)
    assert abs(mean_ap - 0.2883) > 1e-3 and abs(mean_ndcg - 0.4975) > 1e-2  # the old values

    binary = trec_ref.trec_eval_binary()
    if binary is not None:
        ref = trec_ref.trec_eval_per_topic(
            binary, cast / "qrels.txt", run_path, ["map", "ndcg_cut.10"]
        )
        assert ref is not None
        for t in topics:
            if ("map", t) in ref:
                assert got[("ance_1e8.run", t, "AP")] == pytest.approx(ref[("map", t)], abs=5e-5)
                assert got[("ance_1e8.run", t, "nDCG@10")] == pytest.approx(
                    ref[("ndcg_cut_10", t)], abs=5e-5
                )


def test_stand_in_scores_survive_float32():
    # Below 2**24 the stand-ins are the integers 1..n (exact in float32).
    assert ascending_float32(5).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert float(np.float32(2**24 - 1)) == 2**24 - 1 and np.float32(2**24 + 1) == 2**24
    # Past the bound (made small here), consecutive float32 values from 1.0:
    # strictly increasing after rounding to float32, and exactly representable.
    values = ascending_float32(1000, exact_integers=10)
    single = values.astype(np.float32)
    assert (np.diff(single) > 0).all()
    assert (single.astype(np.float64) == values).all()
    assert values[0] == 1.0 and values[1] == np.nextafter(np.float32(1.0), np.float32(2.0))


@pytest.mark.parametrize(
    "scores,keeps",
    [
        ([3.0, 2.0, 2.0, 1.0], True),  # exact ties: pytrec_eval breaks them as trec_eval
        ([0.812345679, 0.812345671], False),  # one float32 value
        ([1.0, 1.0 + 2**-30], False),  # one float32 value
        ([1.0, float(np.nextafter(np.float32(1.0), np.float32(2.0)))], True),  # adjacent
        ([1e39, 1.0], False),  # beyond float32: inf
        ([-0.0, 0.0], True),  # equal doubles
    ],
)
def test_float32_order_check(scores, keeps):
    docs = {f"d{i}": s for i, s in enumerate(scores)}
    assert float32_keeps_order(docs) is keeps


def test_pytrec_eval_rounds_to_nearest():
    """What float32_keeps_order relies on: pytrec_eval keeps apart two doubles
    that round to adjacent float32 values, even when one lies just past the
    midpoint (truncation would merge them and let the docno tie-break swap them)."""
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator({"1": {"a": 1, "b": 0}}, {"recip_rank"})
    rng = np.random.default_rng(10)
    for v in rng.uniform(-100, 100, 200).astype(np.float32):
        w = np.nextafter(v, np.float32(np.inf))
        low = float(np.nextafter(float(v), np.inf))  # rounds to v
        high = float(np.nextafter((float(v) + float(w)) / 2, np.inf))  # rounds to w
        assert np.float32(low) == v and np.float32(high) == w
        # a scores higher; b would come first on a tie (docno descending)
        got = evaluator.evaluate({"1": {"a": high, "b": low}})
        assert got["1"]["recip_rank"] == 1.0


# ---------------------------------------------------------------------------
# Item 3: relevance levels, also <= 0

# Topic 1 judged a=2, b=0, c=-1; x is not in the qrels. Run order: x, c, a, b.
LEVEL_QRELS = "1 0 a 2\n1 0 b 0\n1 0 c -1\n"
LEVEL_RUN = "1 Q0 x 1 5 t\n1 Q0 c 2 4 t\n1 Q0 a 3 3 t\n1 Q0 b 4 2 t\n"


@pytest.mark.parametrize(
    "level,ap,p2",
    [
        (2, 1 / 3, 0.0),  # relevant {a}: rank 3
        (1, 1 / 3, 0.0),
        (0, (1 / 3 + 2 / 4) / 2, 0.0),  # relevant {a, b}: ranks 3, 4
        (-1, (1 / 2 + 2 / 3 + 3 / 4) / 3, 0.5),  # relevant {c, a, b}: ranks 2, 3, 4
        (-5, (1 / 2 + 2 / 3 + 3 / 4) / 3, 0.5),  # x is never relevant: not judged
    ],
)
def test_rel_level_by_hand(bvtest, files, level, ap, p2):
    qrels, run = files("q", LEVEL_QRELS), files("r", LEVEL_RUN)
    got = scores_of(bvtest("scores", "-l", str(level), "-m", "AP,P@2", qrels, run))
    assert got[("r", "1", "AP")] == pytest.approx(ap, abs=1e-15)
    assert got[("r", "1", "P@2")] == pytest.approx(p2, abs=1e-15)


def test_rel_param_below_one_by_hand(bvtest, files):
    # AP(rel=0) used to crash pytrec_eval; by hand as level 0 above, while AP
    # keeps the default level 1.
    qrels, run = files("q", LEVEL_QRELS), files("r", LEVEL_RUN)
    got = scores_of(bvtest("scores", "-m", "AP(rel=0),AP", qrels, run))
    assert got[("r", "1", "AP(rel=0)")] == pytest.approx((1 / 3 + 2 / 4) / 2, abs=1e-15)
    assert got[("r", "1", "AP")] == pytest.approx(1 / 3, abs=1e-15)


@pytest.mark.parametrize("rel", ["99999999999", "99999999999999999999"])
def test_rel_param_beyond_c_int(bvtest, files, rel):
    # pytrec_eval takes the level as a C int (TypeError beyond); no grade
    # reaches it, so by hand AP = 0, next to AP at the default level 1/3.
    qrels, run = files("q", LEVEL_QRELS), files("r", LEVEL_RUN)
    got = scores_of(bvtest("scores", "-m", f"AP(rel={rel}),AP", qrels, run))
    assert got == {("r", "1", f"AP(rel={rel})"): 0.0, ("r", "1", "AP"): pytest.approx(1 / 3)}


def test_level_above_every_grade_is_an_error(bvtest, files):
    from conftest import assert_one_line_error

    qrels, run = files("q", LEVEL_QRELS), files("r", LEVEL_RUN)
    assert_one_line_error(bvtest("eval", "-l", "3", qrels, run), "no topic", "rel >= 3")


def test_same_measure_under_two_names(bvtest):
    """-l 2 makes AP mean AP(rel=2): both columns carry the values (the second
    name used to take the first's values away, leaving AP all zeros)."""
    got = scores_of(
        bvtest("scores", "--quiet", "-l", "2", "-m", "AP,AP(rel=2)", SAMPLE_QRELS, SAMPLE_RUNS)
    )
    ap = {k[:2]: v for k, v in got.items() if k[2] == "AP"}
    ap2 = {k[:2]: v for k, v in got.items() if k[2] == "AP(rel=2)"}
    assert ap == ap2 and len(ap) == 12 * 29 and sum(ap.values()) > 10


def test_level_leaves_graded_measures_alone(bvtest, files):
    # NumRet counts retrieved documents (4) at any level; nDCG uses the grades.
    qrels, run = files("q", LEVEL_QRELS), files("r", LEVEL_RUN)
    for level in ("1", "2"):
        got = scores_of(bvtest("scores", "-l", level, "-m", "NumRet,nDCG@10", qrels, run))
        assert got[("r", "1", "NumRet")] == 4.0
        # by hand: gain 2 at rank 3; ideal gain 2 at rank 1
        assert got[("r", "1", "nDCG@10")] == pytest.approx((2 / math.log2(4)) / 2, abs=1e-15)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_rel_level_matches_trec_eval_on_sample_track(bvtest, trec_eval, level):
    """Every run and topic of the bundled track: trec_eval -l L (L >= 0; below
    0 trec_eval counts unjudged documents as relevant, see README)."""
    names = {"map": "AP", "P_10": "P@10", "Rprec": "Rprec", "bpref": "Bpref", "recip_rank": "RR"}
    got = scores_of(
        bvtest(
            "scores",
            "--quiet",
            "-l",
            level,
            "-m",
            ",".join(names.values()),
            SAMPLE_QRELS,
            SAMPLE_RUNS,
        )
    )
    compared, runs = 0, 0
    for run in sorted(SAMPLE_RUNS.iterdir()):
        ref = trec_ref.trec_eval_per_topic(
            trec_eval, SAMPLE_QRELS, run, ["map", "P.10", "Rprec", "bpref", "recip_rank"], level
        )
        if ref is None:  # trec_eval -l 0 fails on sys004, which lacks two topics
            continue
        runs += 1
        for (measure, topic), value in ref.items():
            key = (run.name, topic, names[measure])
            if key in got:  # bvtest's topic set: topics with a relevant document
                # trec_eval prints %.4f (round half even on the binary value)
                assert got[key] == pytest.approx(value, abs=5e-5 + 1e-12), key
                compared += 1
    assert runs >= 11 and compared > 1500


# ---------------------------------------------------------------------------
# Property: per-topic AP and nDCG@10 against trec_eval's rules and binary

DOCNOS = [
    b"a",
    b"b",
    b"B",
    b"a1",
    b"a10",
    b"a2",
    b"d\xe9",  # Latin-1 é
    b"d\xc3\xa9",  # UTF-8 é: compared with the Latin-1 one byte by byte
    b"d\xff",
    b"z#1",
]


def near(x: float, steps: int) -> float:
    for _ in range(abs(steps)):
        x = math.nextafter(x, math.inf if steps > 0 else -math.inf)
    return x


@st.composite
def tracks(draw):
    base = draw(st.sampled_from([0.812345679, 1e8, -3.25, 0.0, 1e-30, 12.345678, 3e38]))
    score = st.one_of(
        st.just(base),
        st.integers(-3, 3).map(lambda k: near(base, k)),  # near-equal doubles
        st.floats(-20, 20, allow_nan=False, allow_subnormal=False),
        st.sampled_from([-0.0, 0.0, 1.0]),  # exact ties
    )
    run, qrels = {}, {}
    for t in draw(st.lists(st.sampled_from(["1", "2", "30"]), min_size=1, max_size=3, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, max_size=10, unique=True))
        run[t] = {d: draw(score) for d in docs}
        judged = {d: draw(st.integers(-1, 4)) for d in docs if draw(st.booleans())}
        for i in range(draw(st.integers(0, 3))):  # judged but not retrieved
            judged[b"q%d" % i] = draw(st.integers(-1, 4))
        if judged:
            qrels[t] = judged
    if not qrels:
        qrels["1"] = {b"a": 1}
    level = draw(st.integers(-1, 2))
    return run, qrels, level


@settings(
    max_examples=70,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(track=tracks())
def test_property_ap_ndcg_match_trec_eval_rules(tmp_path, track):
    run, qrels, level = track
    run_path, qrels_path = tmp_path / "r.run", tmp_path / "q.txt"
    trec_ref.write_run(run_path, run)
    trec_ref.write_qrels(qrels_path, qrels)
    # Read back by bvtest's readers, evaluated by its evaluator.
    parsed_qrels = read_qrels(str(qrels_path)).qrels
    specs = parse_measures(["AP,nDCG@10"], level)
    got = RunEvaluator(parsed_qrels, specs).calc(read_run(Source(str(run_path), "r.run")))
    for t, judged in qrels.items():
        if not any(g >= level for g in judged.values()) or t not in run:
            continue  # bvtest's topic set / scored 0 without a ranking
        assert got["AP"][t] == pytest.approx(
            trec_ref.average_precision(judged, run[t], level), abs=1e-12
        )
        assert got["nDCG@10"][t] == pytest.approx(trec_ref.ndcg_cut(judged, run[t]), abs=1e-12)

    binary = trec_ref.trec_eval_binary()
    if binary is None or level < 0:  # below 0 trec_eval counts unjudged documents
        return
    # trec_eval on bvtest's topic set only: it refuses some topics outside it
    # (all judgments negative; at -l 0, a qrels topic the run lacks)
    kept = [t for t, j in qrels.items() if any(g >= level for g in j.values()) and t in run]
    if not kept:
        return
    trec_ref.write_run(run_path, {t: run[t] for t in kept})
    trec_ref.write_qrels(qrels_path, {t: qrels[t] for t in kept})
    ref = trec_ref.trec_eval_per_topic(binary, qrels_path, run_path, ["map", "ndcg_cut.10"], level)
    assert ref is not None
    for t in kept:
        assert got["AP"][t] == pytest.approx(ref[("map", t)], abs=5e-5 + 1e-12)
        assert got["nDCG@10"][t] == pytest.approx(ref[("ndcg_cut_10", t)], abs=5e-5 + 1e-12)


def test_property_reference_is_not_vacuous():
    """The reference distinguishes what the fix is about: in float32 order (and
    docnos as text) the first example below would score 0.5, not 1."""
    judged = {b"a": 1, b"b": 0}
    assert trec_ref.average_precision(judged, {b"a": 0.812345679, b"b": 0.812345671}) == 1.0
    assert trec_ref.average_precision(judged, {b"a": 0.5, b"b": 0.5}) == 0.5
    # byte order: b"d\xe9" > b"d\xc3\xa9", so the Latin-1 docno comes first on a tie
    tie = {b"d\xe9": 1.0, b"d\xc3\xa9": 1.0}
    assert trec_ref.ranking(tie) == [b"d\xe9", b"d\xc3\xa9"]


def test_json_keeps_rel_level_topic_set(bvtest, files):
    # -l 0 keeps topic 2, whose only judgment is grade 0; -l 1 drops it.
    qrels = files("q", "1 0 a 1\n2 0 b 0\n")
    run = files("r", "1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n")
    for level, n in (("0", 2), ("1", 1)):
        proc = bvtest("eval", "--quiet", "-l", level, "-m", "AP", "-f", "json", qrels, run)
        assert json.loads(proc.stdout)["measures"]["AP"]["n_topics"] == n
