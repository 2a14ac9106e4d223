"""Estimators for sampled judgments: xinfAP, statAP and trec_eval's infAP on
sampled collections, and the sample_eval.pl qrels layout.

Oracles, none of them bvtest's code:
* xinfAP: a plain-Python, document-by-document transcription of the
  algorithm of NIST's sample_eval.pl (written here, in Perl's order of
  operations), and a two-stratum example worked by hand. (Against the Perl
  script itself, 346 of 346 per-topic values on the sample track were the
  same doubles; the script is not redistributable, so that check is not
  repeated here.)
* statAP: the issue's formula evaluated literally over all pairs of judged
  relevant documents (a double sum with the joint inclusion probabilities),
  and the identity statAP = AP when every listed document is judged.
* infAP: the trec_eval binary built from ../shared/tools on the same
  one-stratum file written in trec_eval's 4-column layout.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
import trec_ref
from conftest import assert_one_line_error

from bvtest_cli.io.trec import read_qrels
from bvtest_cli.measures.bridge import RunEvaluator
from bvtest_cli.measures.names import parse_measures

REPO = Path(__file__).resolve().parents[1]


def ranking(run: dict[str, float]) -> list[str]:
    return sorted(run, key=lambda d: (run[d], d), reverse=True)


def sample_eval_xinfap(listed: dict[str, tuple[str, int]], run: dict[str, float]) -> float:
    """sample_eval.pl's xinfAP of one topic, document by document.
    ``listed``: docno → (stratum, rel), rel −1 = pooled, not judged."""
    cats = sorted({c for c, _ in listed.values()})
    docs = {c: 0 for c in cats}
    sampled = {c: 0 for c in cats}
    rel = {c: 0 for c in cats}
    for c, r in listed.values():
        docs[c] += 1
        if r >= 0:
            sampled[c] += 1
        if r > 0:
            rel[c] += 1
    num_rels = 0
    for c in cats:
        if sampled[c] != 0:
            num_rels += rel[c] * docs[c] / sampled[c]
    n_docs = {c: 0 for c in cats}
    n_sampled = {c: 0 for c in cats}
    n_rel = {c: 0 for c in cats}
    sap = {c: 0 for c in cats}
    depth = 0
    for rank, d in enumerate(ranking(run)[:1000], 1):
        c, r = listed.get(d, (None, -1))
        if r > 0:
            above = 0
            for cv in cats:
                if depth != 0:
                    prob = n_docs[cv] / depth
                    if prob != 0:
                        above += prob * (n_rel[cv] + 0.00001) / (n_sampled[cv] + 0.00003)
            prec = 1 / rank + (depth / rank) * above
            sap[c] += prec
            n_rel[c] += 1
        if d in listed:
            depth += 1
            n_docs[c] += 1
            if r >= 0:
                n_sampled[c] += 1
    ap = 0
    for c in cats:
        if sampled[c] != 0:
            estimate = rel[c] * docs[c] / sampled[c]
            if num_rels != 0:
                within = sap[c] / rel[c] if rel[c] != 0 else 0
                ap += estimate / num_rels * within
    return ap


def literal_statap(listed: dict[str, tuple[str, int]], run: dict[str, float]) -> float:
    """statAP by the formula: a double sum over judged relevant documents."""
    big = {}
    small = {}
    for c, r in listed.values():
        big[c] = big.get(c, 0) + 1
        small[c] = small.get(c, 0) + (r >= 0)
    pi = {c: small[c] / big[c] for c in big}

    def joint(c1: str, c2: str) -> float:
        if c1 != c2:
            return pi[c1] * pi[c2]
        return pi[c1] * (small[c1] - 1) / (big[c1] - 1)

    relevant = [d for d, (c, r) in listed.items() if r > 0]
    r_hat = sum(1 / pi[listed[d][0]] for d in relevant)
    if r_hat == 0:
        return 0.0
    order = ranking(run)
    rank = {d: i + 1 for i, d in enumerate(order)}
    total = 0.0
    for d in relevant:
        if d not in rank:
            continue
        cd = listed[d][0]
        inner = 1.0 + sum(
            pi[cd] / joint(cd, listed[e][0])
            for e in relevant
            if e != d and e in rank and rank[e] < rank[d]
        )
        total += inner / (pi[cd] * rank[d])
    return total / r_hat


def random_topic(rng: random.Random, n: int = 60, strata=("1", "2", "10")):
    """A pooled topic: documents with a stratum, some judged, and a run."""
    listed = {}
    for i in range(n):
        c = rng.choice(strata)
        r = rng.choice((0, 0, 1, 2)) if rng.random() < 0.5 else -1
        listed[f"D{i:03d}"] = (c, r)
    docs = list(listed) + [f"X{i}" for i in range(15)]  # some not in the pool
    rng.shuffle(docs)
    run = {d: float(rng.randint(0, 30)) for d in docs[: rng.randint(5, len(docs))]}
    return listed, run


def write(tmp_path: Path, topics: dict, runs: dict[str, dict]) -> tuple[Path, Path]:
    q = tmp_path / "s.qrels"
    q.write_text(
        "".join(f"{t} 0 {d} {c} {r}\n" for t, docs in topics.items() for d, (c, r) in docs.items())
    )
    r = tmp_path / "r.run"
    r.write_text(
        "".join(
            f"{t} Q0 {d} {i + 1} {run[d]!r} r\n"
            for t, run in runs.items()
            for i, d in enumerate(ranking(run))
        )
    )
    return q, r


def evaluate(qrels_path: Path, run_path: Path, names: str):
    from bvtest_cli.io.sources import Source
    from bvtest_cli.io.trec import read_run_columns

    specs = parse_measures([names])
    evaluator = RunEvaluator(read_qrels(str(qrels_path)).table, specs)
    return evaluator.calc(read_run_columns(Source(str(run_path), "r")))


@pytest.fixture
def random_collection(tmp_path):
    rng = random.Random(2019)
    topics, runs = {}, {}
    for t in range(12):
        topics[str(300 + t)], runs[str(300 + t)] = random_topic(rng)
    q, r = write(tmp_path, topics, runs)
    return topics, runs, q, r


def test_xinfap_equals_sample_eval_transcription(random_collection):
    topics, runs, q, r = random_collection
    got = evaluate(q, r, "xinfAP")["xinfAP"]
    for t in topics:
        assert got[t] == sample_eval_xinfap(topics[t], runs[t]), t  # the same double


def test_xinfap_by_hand():
    """Two strata; run a(rel, A) b(unjudged, A) c(rel, B) d(nonrel, B).
    A: 2 listed, 1 judged (relevant) → R̂_A = 2; B: 2 listed, 2 judged,
    1 relevant → R̂_B = 1; R̂ = 3.
    a at rank 1: prec = 1.  c at rank 3: above = {a (A, judged rel), b (A, unjudged)}:
    prec_above = (2/2)·(1 + 1e-5)/(1 + 3e-5); prec = 1/3 + (2/3)·prec_above.
    AP = (2/3)·1 + (1/3)·prec_c."""
    listed = {"a": ("A", 1), "b": ("A", -1), "c": ("B", 1), "d": ("B", 0)}
    run = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    prec_c = 1 / 3 + (2 / 3) * ((1 + 1e-5) / (1 + 3e-5))
    assert sample_eval_xinfap(listed, run) == pytest.approx(2 / 3 + prec_c / 3, rel=1e-15)


def test_statap_equals_the_formula(random_collection):
    topics, runs, q, r = random_collection
    got = evaluate(q, r, "statAP")["statAP"]
    for t in topics:
        assert got[t] == pytest.approx(literal_statap(topics[t], runs[t]), rel=1e-12), t


def test_statap_by_hand():
    """One stratum of 4 listed, 2 judged (both relevant): π = 1/2, π_dd′ =
    (1/2)(1/3) = 1/6. Run: a (rank 1), x (unlisted), c (rank 3). R̂ = 4.
    a: (1/(½·1))·1 = 2; c: (1/(½·3))·(1 + (½)/(1/6)) = (2/3)·4 = 8/3.
    statAP = (2 + 8/3)/4 = 7/6 (an unbiased estimator may exceed 1)."""
    listed = {"a": ("1", 1), "b": ("1", -1), "c": ("1", 1), "d": ("1", -1)}
    run = {"a": 3.0, "x": 2.0, "c": 1.0}
    assert literal_statap(listed, run) == pytest.approx(7 / 6, rel=1e-15)


def test_statap_is_ap_on_full_judgments(bvtest):
    """Every listed document judged: π = 1, and statAP is AP to the bit."""
    q, runs = REPO / "qrels" / "qrels.txt", REPO / "sample_runs"
    ap = bvtest("scores", "--quiet", "-m", "AP", q, runs).stdout.splitlines()[1:]
    stat = bvtest("scores", "--quiet", "-m", "statAP", q, runs).stdout.splitlines()[1:]
    assert len(ap) > 300
    assert [line.replace("\tAP\t", "\tstatAP\t") for line in ap] == stat


@pytest.mark.parametrize("level", [2, 0])
def test_relevance_level_applies(random_collection, level):
    """rel=0: every judged document is relevant (the level is kept, not
    taken for the default)."""
    topics, runs, q, r = random_collection
    name = f"statAP(rel={level})"
    got = evaluate(q, r, name)[name]
    for t in topics:
        at_level = {d: (c, -1 if g < 0 else int(g >= level)) for d, (c, g) in topics[t].items()}
        assert got.get(t, 0.0) == pytest.approx(literal_statap(at_level, runs[t]), rel=1e-12)


@pytest.mark.parametrize("measure", ["infAP", "xinfAP", "statAP"])
def test_sampled_measures_in_eval_json(bvtest, random_collection, measure):
    _topics, _runs, q, r = random_collection
    proc = bvtest("eval", "-m", measure, "-f", "json", q, r)
    assert proc.returncode == 0, proc.stderr
    assert f'"{measure}"' in proc.stdout


def test_infap_on_a_one_stratum_file_equals_trec_eval(tmp_path):
    binary = trec_ref.trec_eval_binary()
    if binary is None:
        pytest.skip("trec_eval cannot be built here")
    rng = random.Random(7)
    topics, runs = {}, {}
    for t in range(10):
        topics[str(t + 1)], runs[str(t + 1)] = random_topic(rng, strata=("1",))
    q5, r = write(tmp_path, topics, runs)
    q4 = tmp_path / "s4.qrels"
    q4.write_text(
        "".join(f"{t} 0 {d} {g}\n" for t, docs in topics.items() for d, (_, g) in docs.items())
    )
    expected = trec_ref.trec_eval_per_topic(binary, q4, r, ["infAP"])
    assert expected is not None
    got = evaluate(q5, r, "infAP")["infAP"]
    checked = 0
    for (name, topic), value in expected.items():
        assert name == "infAP"
        assert got.get(topic, 0.0) == pytest.approx(value, abs=5e-5)  # trec_eval prints 4 digits
        checked += 1
    assert checked >= 8


# ---------------------------------------------------------------------------------
# The layout


def test_five_column_layout_reads_strata(tmp_path):
    p = tmp_path / "q"
    p.write_text("1 0 a 2 1\n1 0 b 10 -1\n1 0 c 2 0\n2 0 a 1 1\n")
    f = read_qrels(str(p))
    assert f.stratified
    assert f.qrels == {"1": {"a": 1, "b": -1, "c": 0}, "2": {"a": 1}}
    t = f.table
    assert t.strata == ("1", "10", "2")  # string order, as Perl's sort
    assert [t.strata[c] for c in t.stratum] == ["2", "10", "2", "1"]


def test_five_column_slow_path_reads_the_same(tmp_path):
    """A non-ASCII docno sends the file to the line-by-line reader."""
    p = tmp_path / "q"
    p.write_bytes(b"1 0 a\xe9 2 1\n1 0 b 10 -1\n")
    t = read_qrels(str(p)).table
    assert [t.strata[c] for c in t.stratum] == ["2", "10"]
    assert t.grade.tolist() == [1, -1]


@pytest.mark.parametrize(
    "text,fragments",
    [
        ("1 0 a 1 1\n1 0 b 1\n", (":2:", "expected 5 fields", "stratum")),
        ("1 0 a 1\n1 0 b 1 1\n", (":2:", "expected 4 fields")),
        ("1 0 a 1 1\n1 0 a 2 1\n", (":2:", "two strata")),
        ("1 0 a 1 x\n", (":1:", "not an integer")),
    ],
)
def test_bad_sampled_files(bvtest, tmp_path, text, fragments):
    p = tmp_path / "q"
    p.write_text(text)
    proc = bvtest("eval", "-m", "xinfAP", p, REPO / "sample_runs")
    assert_one_line_error(proc, *fragments)


def test_measure_names():
    (spec,) = parse_measures(["xinfAP"], rel_level=2)
    assert spec.name == "xinfAP" and spec.rel == 2
    (spec,) = parse_measures(["statAP(rel=3)"])
    assert spec.name == "statAP(rel=3)" and spec.rel == 3


@pytest.mark.skipif(
    not os.environ.get("SAMPLE_EVAL_PL") or shutil.which("perl") is None,
    reason="set SAMPLE_EVAL_PL to NIST's sample_eval.pl (not redistributable) to run it",
)
def test_xinfap_equals_sample_eval_pl(bvtest, random_collection):
    """NIST's script itself, where it is at hand: per-topic infAP as it
    prints it (4 decimals)."""
    topics, _runs, q, r = random_collection
    proc = subprocess.run(
        ["perl", os.environ["SAMPLE_EVAL_PL"], "-q", str(q), str(r)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    expected = {
        f[1]: float(f[2])
        for f in (line.split() for line in proc.stdout.splitlines())
        if f and f[0] == "infAP" and f[1] != "all"
    }
    got = evaluate(q, r, "xinfAP")["xinfAP"]
    assert len(expected) == len(topics)
    for t, value in expected.items():
        assert got.get(t, 0.0) == pytest.approx(value, abs=5e-5), t


# ------------------------------------------------------------ no judged relevant retrieved

# A topic in sample_eval.pl's layout: stratum 1 (4 listed, 2 judged, 1
# relevant), 2 (4, 2, 1) and 3 (2 listed, none judged). The run retrieves
# judged non-relevant, unjudged and unpooled documents, never A or J (the
# judged relevant ones): it has no hits, the case where the counts of
# relevant documents came back unwritten.
NO_HITS_QRELS = """\
401 0 A 1 1
401 0 B 1 0
401 0 C 1 -1
401 0 D 1 -1
401 0 E 2 0
401 0 F 2 -1
401 0 G 2 -1
401 0 J 2 1
401 0 K 3 -1
401 0 L 3 -1
"""
NO_HITS_RUN = ("B", "X1", "K", "C", "E", "F", "X2")  # in rank order


def _no_hits_expected() -> dict[str, float]:
    """sample_eval.pl's formulas by hand: Σ_h N_h (r_h + 1e-5) / (n_h + 3e-5)
    over the retrieved documents of each stratum (listed N_h, judged n_h,
    relevant r_h among the first k), then iP@k = that / k."""
    # all 7: stratum 1 B, C (2 listed, 1 judged, 0 relevant); 2 E, F (2, 1, 0); 3 K (1, 0, 0)
    whole = 2 * 1e-5 / (1 + 3e-5) + 2 * 1e-5 / (1 + 3e-5) + 1 * 1e-5 / 3e-5
    # the first 2, B and X1: stratum 1 B (1, 1, 0); X1 is not listed
    first2 = 1 * 1e-5 / (1 + 3e-5)
    # R̂ = 1·4/2 + 1·4/2 = 4, but no relevant document is retrieved: xinfAP 0
    return {"iP@10": whole / 10, "iP@2": first2 / 2, "inum_rel_ret": whole, "xinfAP": 0.0}


def test_no_judged_relevant_retrieved_by_the_command(tmp_path):
    """The topic 60 times and 4 such runs: enough arrays come and go that
    unwritten counts would show whatever memory they were given."""
    from conftest import run_bvtest

    topics = [str(401 + t) for t in range(60)]
    q = tmp_path / "s.qrels"
    lines = NO_HITS_QRELS.splitlines()
    q.write_text("".join(t + line[3:] + "\n" for t in topics for line in lines))
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("r1", "r2", "r3", "r4"):
        (runs / name).write_text(
            "".join(
                f"{t} Q0 {d} {i + 1} {10 - i} {name}\n"
                for t in topics
                for i, d in enumerate(NO_HITS_RUN)
            )
        )
    proc = run_bvtest(
        "scores", "-m", "iP10", "-m", "iP2", "-m", "inum_rel_ret", "-m", "xinfAP", q, runs,
        subprocess=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in proc.stdout.splitlines()[1:]]
    expected = _no_hits_expected()
    assert len(rows) == 4 * 60 * len(expected)
    for system, topic, name, value in rows:
        where = (system, topic, name)
        assert float(value) == pytest.approx(expected[name], rel=1e-12, abs=0), where
        if name.startswith("iP@"):
            assert 0 <= float(value) <= 1


def test_no_judged_relevant_retrieved_in_sampled_rankings():
    import numpy as np

    from bvtest_cli.measures.sampled import SampledRankings

    docs = [line.split() for line in NO_HITS_QRELS.splitlines()]
    row = {d[2]: i for i, d in enumerate(docs)}
    grade = np.array([int(d[4]) for d in docs])
    code = np.array([int(d[3]) - 1 for d in docs], dtype=np.int32)
    # ranking 0: the run; ranking 1: nothing retrieved (an empty topic)
    qrow = np.array([row.get(d, -1) for d in NO_HITS_RUN])
    starts = np.array([0, qrow.size, qrow.size])
    rankings = SampledRankings(
        qrow, np.arange(qrow.size), starts, np.zeros(2, np.int64),
        np.zeros(grade.size, np.int64), grade, 1, n_topics=1,
    )  # fmt: skip
    kinds = ("iP@10", "iP@2", "inum_rel_ret", "xinfAP")
    listed = np.ones(grade.size, dtype=bool)
    for _ in range(3):  # whatever memory the arrays are given
        np.full((3, 2), 12345, dtype=np.int16)
        got = rankings.evaluate(kinds, listed, code, grade, 3)
        for name, value in _no_hits_expected().items():
            assert got[name][0] == pytest.approx(value, rel=1e-12, abs=0), name
            assert got[name][1] == 0.0, name  # nothing retrieved: nothing estimated
    # the counting itself with nothing flagged, in memory left full of non-zeros
    at = np.zeros(2, dtype=np.int64)
    for _ in range(3):
        junk = np.full((3, at.size), 12345, dtype=rankings._count_dtype)
        del junk
        none = np.zeros(0, dtype=np.int64)
        counts = rankings._counts_within(none, none.astype(np.int32), at, at, 3)
        assert counts.shape == (3, 2) and not counts.any()
