"""Every per-topic estimate of NIST's sample_eval.pl: infNDCG, iP@k,
inum_rel, inum_rel_ret, and its infAP under the name sample_eval:infAP; and
iRprec, statAP_MQ_eval_v3.pl's R-precision on the same strata.

Oracles, none of them bvtest's code:
* a plain-Python, document-by-document transcription of the script's loops
  (:func:`sample_eval_topic`, in Perl's order of operations, its string sorts
  of strata and grades and its 1000-document limit), compared for equality
  (the same doubles) on generated sampled qrels and runs;
* small examples worked by hand from the script's formulas;
* for iRprec, a transcription of statAP_MQ_eval_v3.pl's R-prec loop (the
  Million Query track's script; sample_eval.pl defines no R-precision);
* trec_eval (through ir_measures) on plain qrels, where every listed document
  is judged and the estimators become nDCG, P@k, R-precision and the
  relevant counts;
* the Perl script itself when SAMPLE_EVAL_PL names it (not redistributable,
  so the test skips otherwise): every value it prints per topic, compared at
  its printed precision.
"""

from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from bvtest_cli.errors import InputError
from bvtest_cli.io.trec import read_qrels
from bvtest_cli.measures.bridge import RunEvaluator
from bvtest_cli.measures.names import parse_measures

REPO = Path(__file__).resolve().parents[1]
PRINTED_CUTOFFS = (10, 50, 1000)  # sample_eval.pl's @precisionranks


def ranking(run: dict[str, float]) -> list[str]:
    """Perl's sort: score descending, then docno descending (``$b cmp $a``)."""
    return sorted(run, key=lambda d: (run[d], d), reverse=True)


def sample_eval_topic(
    listed: dict[str, tuple[str, int]], run: dict[str, float], cutoffs=PRINTED_CUTOFFS
) -> dict[str, float]:
    """sample_eval.pl's per-topic values, transcribed loop by loop.
    ``listed``: docno → (stratum, rel), rel −1 = pooled, not judged."""
    max_result_size = 1000
    cats = sorted({c for c, _ in listed.values()})  # `sort keys`: string order
    docs_per_category = dict.fromkeys(cats, 0)
    sampled_docs = dict.fromkeys(cats, 0)
    sampled_rel = dict.fromkeys(cats, 0)
    sampled_rels_per_grade: dict[str, dict[int, int]] = {c: {} for c in cats}
    for c, r in listed.values():
        docs_per_category[c] += 1
        if r >= 0:
            sampled_docs[c] += 1
        if r > 0:
            sampled_rels_per_grade[c][r] = sampled_rels_per_grade[c].get(r, 0) + 1
            sampled_rel[c] += 1
    num_rels = 0
    for c in cats:
        if sampled_docs[c] != 0:
            num_rels += sampled_rel[c] * docs_per_category[c] / sampled_docs[c]
    num_rels_per_grade: dict[int, float] = {}
    for c in cats:
        for g in sorted(sampled_rels_per_grade[c], key=str):
            add = sampled_rels_per_grade[c][g] * docs_per_category[c] / sampled_docs[c]
            num_rels_per_grade[g] = num_rels_per_grade[g] + add if g in num_rels_per_grade else add
    optimal_dcg = 0
    start_rank = 0
    for g in sorted(num_rels_per_grade, key=str, reverse=True):  # `reverse sort keys`
        r = start_rank + 1
        while r <= start_rank + int(num_rels_per_grade[g] + 0.5):
            optimal_dcg += g / (math.log(r + 1) / math.log(2))
            if r >= max_result_size:
                break
            r += 1
        start_rank += int(num_rels_per_grade[g] + 0.5)

    num_depth100 = 0
    rank = 0
    num_sampled = dict.fromkeys(cats, 0)
    num_relevant = dict.fromkeys(cats, 0)
    num_docs = dict.fromkeys(cats, 0)
    gain_category = dict.fromkeys(cats, 0)
    sap_category = dict.fromkeys(cats, 0)
    precision: dict[int, float] = {}
    num_rel_ret = 0
    for doc in ranking(run):
        rank += 1  # noqa: SIM113 -- the script's own counter, kept literal
        c, rel = listed.get(doc, (None, -1))
        if rel > 0:
            prec_above = 0
            for cv in cats:
                if num_depth100 != 0:
                    prob_category = num_docs[cv] / num_depth100
                    if prob_category != 0:
                        prec_above += (
                            prob_category
                            * (num_relevant[cv] + 0.00001)
                            / (num_sampled[cv] + 0.00003)
                        )
            prec = 1 / rank + (num_depth100 / rank) * prec_above
            sap_category[c] += prec
            num_relevant[c] += 1
            gain_category[c] += rel / (math.log(rank + 1) / math.log(2))
        if doc in listed:
            num_depth100 += 1
            num_docs[c] += 1
            if rel >= 0:
                num_sampled[c] += 1
        num_rel_rank_k = 0
        for cv in cats:
            num_rel_rank_k += (
                num_docs[cv] * (num_relevant[cv] + 0.00001) / (num_sampled[cv] + 0.00003)
            )
        num_rel_ret = num_rel_rank_k
        for cutoff in cutoffs:
            if rank == cutoff:
                precision[cutoff] = num_rel_rank_k / cutoff
        if rank >= max_result_size:
            break
    for cutoff in cutoffs:
        if cutoff not in precision:
            precision[cutoff] = num_rel_ret / cutoff

    ap = 0
    for cv in cats:
        if sampled_docs[cv] != 0:
            rel_estimates_category = sampled_rel[cv] * docs_per_category[cv] / sampled_docs[cv]
            if num_rels != 0:
                prob_category = rel_estimates_category / num_rels
                ap_category = 0
                if sampled_rel[cv] != 0:
                    ap_category = sap_category[cv] / sampled_rel[cv]
                ap += prob_category * ap_category
    dcg_val = 0
    for cv in cats:
        if num_depth100 != 0:
            prob_category = num_docs[cv] / num_depth100
            if num_sampled[cv] != 0:
                dcg_val += prob_category * gain_category[cv] / num_sampled[cv]
    ndcg_val = 0
    if optimal_dcg != 0:
        ndcg_val = num_depth100 * dcg_val / optimal_dcg
    out = {"infAP": ap, "infNDCG": ndcg_val, "inum_rel_ret": num_rel_ret, "inum_rel": num_rels}
    out.update({f"iP{k}": precision[k] for k in cutoffs})
    return out


def statap_mq_eval_rprec(listed: dict[str, tuple[str, int]], run: dict[str, float]) -> float:
    """statAP_MQ_eval_v3.pl's R-prec of one topic, transcribed, each judged
    document's inclusion probability being its stratum's n_h/N_h (0.0 where
    the script prints "NA--no relevant docs")."""
    big: dict[str, int] = {}
    small: dict[str, int] = {}
    for c, r in listed.values():
        big[c] = big.get(c, 0) + 1
        small[c] = small.get(c, 0) + (r >= 0)
    iprob = {d: small[c] / big[c] for d, (c, r) in listed.items() if r >= 0}
    rq_estimated = 0
    for d in iprob:
        if listed[d][1] > 0:
            rq_estimated += 1 / iprob[d]
    if not rq_estimated > 0:
        return 0.0
    rq_rounded = int(rq_estimated + 0.5)
    sys = ranking(run)
    sum_prec = 0
    rprec = -1
    for r in range(1, len(sys) + 1):
        doc = sys[r - 1]
        if doc in iprob and listed[doc][1] > 0:
            sum_prec += 1 / iprob[doc]
        if r == rq_rounded:
            rprec = sum_prec / r
    if rprec < 0:
        rprec = sum_prec / rq_estimated
    return rprec


def random_topic(rng: random.Random, n: int, strata: tuple[str, ...], grades: tuple[int, ...]):
    """A pooled topic (documents with a stratum, some judged, some relevant
    with the given grades) and a run that also retrieves unpooled documents."""
    listed = {}
    for i in range(n):
        c = rng.choice(strata)
        r = rng.choice(grades) if rng.random() < 0.5 else -1
        listed[f"D{i:04d}"] = (c, r)
    docs = list(listed) + [f"X{i}" for i in range(n // 4)]
    rng.shuffle(docs)
    run = {d: float(rng.randint(0, 3 * n)) for d in docs[: rng.randint(1, len(docs))]}
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


def evaluate(qrels_path: Path, run_path: Path, names: list[str]):
    from bvtest_cli.io.sources import Source
    from bvtest_cli.io.trec import read_run_columns

    specs = parse_measures(names)
    evaluator = RunEvaluator(read_qrels(str(qrels_path)).table, specs)
    return evaluator.calc(read_run_columns(Source(str(run_path), "r")))


def collection(tmp_path: Path, seed: int, n_topics: int = 10, n: int = 80):
    rng = random.Random(seed)
    topics, runs = {}, {}
    for t in range(n_topics):
        # strata 1, 2, 10 sort as strings; grade 10 sorts before 2 ("reverse sort keys")
        topics[str(300 + t)], runs[str(300 + t)] = random_topic(
            rng, n, ("1", "2", "10"), (0, 0, 1, 2, 3, 10)
        )
    return (topics, runs, *write(tmp_path, topics, runs))


MEASURES = ["sample_eval:infAP", "infNDCG", "inum_rel", "inum_rel_ret"]
CUTOFFS = (1, 3, 10, 50, 1000, 2000)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_estimate_equals_the_transcription(tmp_path, seed):
    topics, runs, q, r = collection(tmp_path, seed)
    names = MEASURES + [f"iP@{k}" for k in CUTOFFS]
    got = evaluate(q, r, names)
    checked = 0
    for t in topics:
        expected = sample_eval_topic(topics[t], runs[t], CUTOFFS)
        assert got["xinfAP"][t] == expected["infAP"], t
        for name in ("infNDCG", "inum_rel", "inum_rel_ret"):
            assert got[name][t] == expected[name], (t, name)  # the same double
            checked += 1
        for k in CUTOFFS:
            assert got[f"iP@{k}"][t] == expected[f"iP{k}"], (t, k)
            checked += 1
    assert checked == len(topics) * (3 + len(CUTOFFS))


@pytest.mark.parametrize("seed", [1, 2])
def test_irprec_equals_the_statap_mq_eval_transcription(tmp_path, seed):
    """The same up to the order in which R̂ adds its terms (the script adds
    them in hash order)."""
    topics, runs, q, r = collection(tmp_path, seed)
    got = evaluate(q, r, ["iRprec"])["iRprec"]
    for t in topics:
        assert got[t] == pytest.approx(statap_mq_eval_rprec(topics[t], runs[t]), rel=1e-13), t


def test_irprec_by_hand():
    """Stratum A: a (rel), b (unjudged) → π_A = 1/2; stratum B: c (rel),
    d (judged 0) → π_B = 1. R̂ = 2 + 1 = 3 = R. Run: c, x, a, d: within the
    first 3, c (1/π = 1) and a (2): iRprec = 3/3 = 1. Run c, a: shorter than
    R, so (1 + 2)/R̂ = 1 again; run x, y, c: 1/3."""
    listed = {"a": ("A", 1), "b": ("A", -1), "c": ("B", 1), "d": ("B", 0)}
    assert statap_mq_eval_rprec(listed, {"c": 4.0, "x": 3.0, "a": 2.0, "d": 1.0}) == 1.0
    assert statap_mq_eval_rprec(listed, {"c": 2.0, "a": 1.0}) == 1.0
    assert statap_mq_eval_rprec(listed, {"x": 3.0, "y": 2.0, "c": 1.0}) == 1 / 3


def test_irprec_by_hand_through_bvtest(tmp_path):
    listed = {"a": ("A", 1), "b": ("A", -1), "c": ("B", 1), "d": ("B", 0)}
    runs = {
        "1": {"c": 4.0, "x": 3.0, "a": 2.0, "d": 1.0},
        "2": {"c": 2.0, "a": 1.0},
        "3": {"x": 3.0, "y": 2.0, "c": 1.0},
        "4": {"x": 3.0, "y": 2.0, "z": 1.0, "a": 0.5},  # a at rank 4 > R
    }
    q, r = write(tmp_path, dict.fromkeys(runs, listed), runs)
    got = evaluate(q, r, ["iRprec"])["iRprec"]
    assert got == {"1": 1.0, "2": 1.0, "3": 1 / 3, "4": 0.0}


def test_long_rankings_and_more_than_1000_relevant(tmp_path):
    """Rankings beyond 1000 documents (only the first 1000 count) and an
    estimated 1600 relevant documents of grade 3, 800 of grade 2 and 600 of
    grade 1: the ideal DCG stops at rank 1000 within grade 3, then adds one
    rank beyond for each later grade (the script's ``last`` leaves only the
    inner loop)."""
    rng = random.Random(11)
    listed = {}
    for i in range(6000):
        judged = i % 3 == 0  # a third judged: R̂_g = 3 · (judged of grade g)
        grade = (3 if i < 1600 else 2 if i < 2400 else 1 if i < 3000 else 0) if judged else -1
        listed[f"D{i:05d}"] = ("A" if i % 2 else "B", grade)
    docs = list(listed)
    rng.shuffle(docs)
    run = {d: float(rng.randint(0, 5000)) for d in docs[:2500]}
    expected = sample_eval_topic(listed, run, CUTOFFS)
    q, r = write(tmp_path, {"7": listed}, {"7": run})
    got = evaluate(q, r, ["infNDCG", "inum_rel", "inum_rel_ret"] + [f"iP@{k}" for k in CUTOFFS])
    assert got["infNDCG"]["7"] == expected["infNDCG"]
    assert got["inum_rel"]["7"] == expected["inum_rel"]
    assert got["inum_rel_ret"]["7"] == expected["inum_rel_ret"]
    for k in CUTOFFS:
        assert got[f"iP@{k}"]["7"] == expected[f"iP{k}"], k
    assert got["iP@2000"]["7"] == expected["inum_rel_ret"] / 2000  # the first 1000 only


def test_by_hand():
    """Two strata; listed: a (A, grade 2), b (A, unjudged), c (B, grade 1),
    d (B, judged 0), e (B, unjudged). Run: a, x (not listed), b, c.

    Totals: A: N=2, n=1, r=1 (grade 2: 1); B: N=3, n=2, r=1 (grade 1: 1).
    inum_rel = 1·2/1 + 1·3/2 = 3.5.
    Ideal: R̂_2 = 1·2/1 = 2, R̂_1 = 1·3/2 = 1.5 → int(2.5) = 2 ranks of gain 2,
    then int(2.0) = 2 ranks of gain 1:
    2/log2(2) + 2/log2(3) + 1/log2(4) + 1/log2(5).
    Run, counts after each rank (N, n, r per stratum):
      1 a: A (1, 1, 1)            E1 = 1·(1+1e-5)/(1+3e-5)
      2 x: not listed             E2 = E1
      3 b: A (2, 1, 1)            E3 = 2·(1+1e-5)/(1+3e-5)
      4 c: B (1, 1, 1)            E4 = E3 + 1·(1+1e-5)/(1+3e-5)
    iP@3 = E3/3, iP@10 = E4/10 (the run is shorter), inum_rel_ret = E4.
    Gains: A: 2/log2(2) = 2; B: 1/log2(5). Depth D = 3 listed retrieved,
    A: N=2, n=1; B: N=1, n=1.
    dcg = (2/3)·2/1 + (1/3)·(1/log2(5))/1; infNDCG = 3·dcg / ideal."""
    listed = {"a": ("A", 2), "b": ("A", -1), "c": ("B", 1), "d": ("B", 0), "e": ("B", -1)}
    run = {"a": 4.0, "x": 3.0, "b": 2.0, "c": 1.0}
    got = sample_eval_topic(listed, run, (3, 10))
    log2 = math.log2
    one = (1 + 1e-5) / (1 + 3e-5)
    ideal = 2 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)
    dcg = (2 / 3) * 2 + (1 / 3) * (1 / log2(5))
    expected = {
        "inum_rel": 3.5,
        "iP3": 2 * one / 3,
        "iP10": 3 * one / 10,
        "inum_rel_ret": 3 * one,
        "infNDCG": 3 * dcg / ideal,
    }
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-14), name


def test_by_hand_through_bvtest(tmp_path):
    """The hand-worked topic above, through bvtest's parsing and evaluation
    (sample_eval.pl's names iP3 and iP10 included)."""
    listed = {"a": ("A", 2), "b": ("A", -1), "c": ("B", 1), "d": ("B", 0), "e": ("B", -1)}
    run = {"a": 4.0, "x": 3.0, "b": 2.0, "c": 1.0}
    q, r = write(tmp_path, {"1": listed}, {"1": run})
    got = evaluate(q, r, ["iP3", "iP10", "inum_rel", "inum_rel_ret", "infNDCG"])
    log2 = math.log2
    one = (1 + 1e-5) / (1 + 3e-5)
    ideal = 2 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)
    assert got["inum_rel"]["1"] == 3.5
    assert got["iP@3"]["1"] == pytest.approx(2 * one / 3, rel=1e-14)
    assert got["iP@10"]["1"] == pytest.approx(3 * one / 10, rel=1e-14)
    assert got["inum_rel_ret"]["1"] == pytest.approx(3 * one, rel=1e-14)
    dcg = (2 / 3) * 2 + (1 / 3) * (1 / log2(5))
    assert got["infNDCG"]["1"] == pytest.approx(3 * dcg / ideal, rel=1e-14)


def test_a_stratum_with_nothing_judged_above_counts_a_third():
    """The script's smoothing: listed documents of a stratum none of whose
    documents above is judged count (0 + 1e-5)/(0 + 3e-5) = 1/3 relevant
    each. Run: u1, u2 (stratum U, never judged), j (stratum J, judged 0)."""
    listed = {"u1": ("U", -1), "u2": ("U", -1), "j": ("J", 0)}
    run = {"u1": 3.0, "u2": 2.0, "j": 1.0}
    got = sample_eval_topic(listed, run, (2,))
    assert got["iP2"] == pytest.approx((2 / 3) / 2, rel=1e-12)
    assert got["inum_rel_ret"] == pytest.approx(2 / 3 + 1e-5 / (1 + 3e-5), rel=1e-12)
    assert got["inum_rel"] == 0 and got["infNDCG"] == 0


def test_plain_qrels_are_full_judgments(tmp_path):
    """A 4-column qrels file is one stratum, every listed document judged:
    inum_rel is the number of relevant documents, iRprec is R-precision,
    iP@k is P@k up to the
    smoothing (≤ 1e-5 · k per rank), and infNDCG is trec_eval's nDCG (its
    gains are the grades and its discount log2(rank + 1), the same as the
    script's) where no ranking is cut at 1000."""
    q = REPO / "qrels" / "qrels.txt"
    runs = sorted((REPO / "sample_runs").iterdir())[:4]
    for run in runs:
        got = evaluate(q, run, ["infNDCG", "nDCG", "inum_rel", "NumRel", "iP@10", "P@10"])
        got.update(evaluate(q, run, ["iRprec", "Rprec"]))
        got.update(evaluate(q, run, ["inum_rel_ret", "NumRet(rel=1)"]))
        assert got["infNDCG"].keys() == got["nDCG"].keys()
        for t, value in got["nDCG"].items():
            assert got["infNDCG"][t] == pytest.approx(value, rel=1e-12, abs=1e-15), (run, t)
            assert got["inum_rel"][t] == got["NumRel"][t]
            assert got["iRprec"][t] == got["Rprec"][t]
            assert got["iP@10"][t] == pytest.approx(got["P@10"][t], abs=1e-5)
            assert got["inum_rel_ret"][t] == pytest.approx(got["NumRet(rel=1)"][t], abs=1e-2)


def test_plain_qrels_equal_the_transcription(tmp_path):
    """The 4-column layout through the transcription with one stratum."""
    rng = random.Random(5)
    topics, runs = {}, {}
    for t in range(6):
        listed, run = random_topic(rng, 60, ("1",), (-1, 0, 1, 2))
        topics[str(t + 1)], runs[str(t + 1)] = listed, run
    q = tmp_path / "plain.qrels"
    q.write_text(
        "".join(f"{t} 0 {d} {g}\n" for t, docs in topics.items() for d, (_, g) in docs.items())
    )
    _, r = write(tmp_path, topics, runs)
    got = evaluate(q, r, ["infNDCG", "inum_rel", "inum_rel_ret", "iP@10"])
    for t in topics:
        expected = sample_eval_topic(topics[t], runs[t], (10,))
        for name in ("infNDCG", "inum_rel", "inum_rel_ret"):
            assert got[name][t] == expected[name], (t, name)
        assert got["iP@10"][t] == expected["iP10"]


def test_names():
    (spec,) = parse_measures(["sample_eval:infAP"])
    assert spec.name == "xinfAP"
    specs = parse_measures(["iP10,iP@50,iP1000(rel=2),infNDCG,inum_rel,inum_rel_ret"], rel_level=3)
    assert [(s.name, s.rel) for s in specs] == [
        ("iP@10", 3),  # -l 3 applies, the printed name is as given
        ("iP@50", 3),
        ("iP(rel=2)@1000", 2),
        ("infNDCG", None),  # its gains are the grades: no level
        ("inum_rel", 3),
        ("inum_rel_ret", 3),
    ]
    (spec,) = parse_measures(["infAP"])
    assert spec.measure.NAME == "infAP"  # trec_eval's estimator keeps the name


@pytest.mark.parametrize(
    "name,fragment",
    [
        ("xinfap", "did you mean xinfAP (sample_eval.pl's infAP) or infAP (trec_eval's)?"),
        ("infap", "did you mean xinfAP (sample_eval.pl's infAP) or infAP (trec_eval's)?"),
        ("sample_eval:infap", "did you mean xinfAP (sample_eval.pl's infAP) or infAP"),
        ("XinfAP(rel=2)", "did you mean xinfAP(rel=2) (sample_eval.pl's infAP)"),
        ("infndcg", "did you mean infNDCG?"),
        ("ip10", "did you mean iP@10?"),
        ("inum_rels", "did you mean inum_rel?"),
        ("irprec", "did you mean iRprec?"),
        ("iP", "iP needs a rank k"),
        ("infNDCG(rel=2)", "infNDCG takes no relevance level"),
    ],
)
def test_near_misses(name, fragment):
    with pytest.raises(InputError) as err:
        parse_measures([name])
    assert fragment in str(err.value)


def test_in_every_command(bvtest, tmp_path):
    """The names work where measures are parsed: eval and scores."""
    _topics, _runs, q, r = collection(tmp_path, 4, n_topics=3, n=30)
    for command in ("eval", "scores"):
        proc = bvtest(command, "-m", "infNDCG,iP10,inum_rel,inum_rel_ret", q, r)
        assert proc.returncode == 0, proc.stderr
        for name in ("infNDCG", "iP@10", "inum_rel", "inum_rel_ret"):
            assert name in proc.stdout, (command, name)


def _sample_eval_pl(qrels: Path, run: Path) -> dict[tuple[str, str], str]:
    proc = subprocess.run(
        ["perl", os.environ["SAMPLE_EVAL_PL"], "-q", str(qrels), str(run)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return {
        (f[0], f[1]): f[2]
        for f in (line.split() for line in proc.stdout.splitlines())
        if len(f) == 3 and f[1] != "all" and f[0] != "num_ret"
    }


@pytest.mark.skipif(
    not os.environ.get("SAMPLE_EVAL_PL") or shutil.which("perl") is None,
    reason="set SAMPLE_EVAL_PL to NIST's sample_eval.pl (not redistributable) to run it",
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_estimate_equals_sample_eval_pl(tmp_path, seed):
    """NIST's script itself: every per-topic value it prints (infAP,
    infNDCG, iP10, iP50, iP1000, inum_rel_ret, inum_rel), formatted as it
    formats it (4 decimals), equal to bvtest's formatted the same way."""
    topics, _runs, q, r = collection(tmp_path, seed, n_topics=20, n=400)
    printed = _sample_eval_pl(q, r)
    ours = {"infAP": "xinfAP", "iP10": "iP@10", "iP50": "iP@50", "iP1000": "iP@1000"}
    got = evaluate(
        q, r, ["xinfAP", "infNDCG", "iP10", "iP50", "iP1000", "inum_rel_ret", "inum_rel"]
    )
    assert len(printed) == 7 * len(topics)
    for (name, topic), text in printed.items():
        assert f"{got[ours.get(name, name)][topic]:.4f}" == text, (name, topic)
