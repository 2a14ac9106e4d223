"""bvtest_cli.measures.gdeval against its oracle, gdeval.pl itself (run with perl).

Expected values come only from gdeval.pl (the copy shipped with ir_measures)
or from hand computation.  gdeval needs integer topic ids, so string ids are
mapped to 1..n for the perl side and mapped back before comparing.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import ir_measures
import pytest

from bvtest_cli.measures.gdeval import GdevalERR, err_at_k

GDEVAL_PL = Path(ir_measures.__file__).resolve().parent / "bin" / "gdeval.pl"
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CAST = SHARED / "data" / "cast2021"

needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="perl not on PATH")

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def _fmt(values: dict[str, float]) -> dict[str, str]:
    return {t: f"{v:.5f}" for t, v in values.items()}


def _run_gdeval(qrels_lines: list[str], run_lines: list[str], k: int, tmp: Path) -> dict[str, str]:
    """Run gdeval.pl on raw lines; return {integer topic id: ERR@k string as printed}."""
    qf, rf = tmp / "qrels", tmp / "run"
    qf.write_text("".join(qrels_lines))
    rf.write_text("".join(run_lines))
    out = subprocess.run(
        ["perl", str(GDEVAL_PL), str(qf), str(rf), str(k)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert out[0] == f"runid,topic,ndcg@{k},err@{k}"
    result: dict[str, str] = {}
    for line in out[1:]:
        _runid, topic, _ndcg, err = line.split(",")
        assert topic not in result
        result[topic] = err
    return result


def gdeval_err(qrels: Qrels, run: Run, k: int, tmp: Path) -> dict[str, str]:
    """gdeval's ERR@k for dict inputs, keyed by the original string topic ids."""
    ids = sorted(set(qrels) | set(run))
    to_int = {t: str(i) for i, t in enumerate(ids, start=1)}
    back = {v: t for t, v in to_int.items()}
    qlines = [f"{to_int[t]} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items()]
    rlines = []
    for t, docs in run.items():
        # File order deliberately not the ranking order: gdeval sorts itself.
        items = list(docs.items())
        random.Random(len(items)).shuffle(items)
        rlines += [f"{to_int[t]} Q0 {d} {i} {s!r} tag\n" for i, (d, s) in enumerate(items)]
    return {back[t]: v for t, v in _run_gdeval(qlines, rlines, k, tmp).items()}


# Docnos whose string order differs from their numeric order ("d10" < "d9").
DOCNOS = [
    *(f"d{i}" for i in (1, 2, 9, 10, 11, 19, 90, 100, 101)),
    "d09",
    "D5",
    "10",
    "9",
    "100",
    "a",
    "Z",
    "doc-7",
    "x_1",
]
# Few distinct scores, so many ties; 0.1 + 0.2 != 0.3 and -0.0 == 0.0 on purpose.
SCORES = [0.0, -0.0, 1.0, 1.0, 2.0, 2.5, -1.0, 1e-3, 0.1 + 0.2, 0.3, 1e20, 3.0]
TOPICS = ["106_1", "106_10", "106_2", "a-1", "b-1", "q", "T7", "7", "07", "x"]


def random_case(seed: int) -> tuple[Qrels, Run]:
    rng = random.Random(seed)
    qrels: Qrels = {}
    run: Run = {}
    for topic in TOPICS:
        kind = rng.choice(["both", "both", "both", "qrels-only", "run-only", "no-relevant"])
        if kind != "run-only":
            docs = rng.sample(DOCNOS, rng.randint(1, len(DOCNOS)))
            high = 0 if kind == "no-relevant" else 4
            qrels[topic] = {d: rng.randint(-1, high) for d in docs}
        if kind != "qrels-only":
            docs = rng.sample(DOCNOS, rng.randint(1, len(DOCNOS)))
            run[topic] = {
                d: rng.choice(SCORES) if rng.random() < 0.8 else rng.random() for d in docs
            }
    return qrels, run


@needs_perl
@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("k", [1, 5, 20])
def test_random_against_gdeval(seed: int, k: int, tmp_path: Path) -> None:
    qrels, run = random_case(seed)
    expected = gdeval_err(qrels, run, k, tmp_path)
    got = err_at_k(qrels, run, k)
    assert set(got) == set(expected)
    assert _fmt(got) == expected
    # Values are already rounded as printed.
    assert all(v == float(expected[t]) for t, v in got.items())


@needs_perl
def test_evaluator_reused_across_runs(tmp_path: Path) -> None:
    qrels, _ = random_case(1)
    ev = GdevalERR(qrels, 5)
    for seed in range(5):
        _, run = random_case(100 + seed)
        assert _fmt(ev.calc(run)) == gdeval_err(qrels, run, 5, tmp_path)


@needs_perl
def test_against_ir_measures_provider() -> None:
    """The ir_measures provider agrees on gdeval's topics, but pads every other
    qrels topic (also those gdeval does not print) with 0."""
    qrels, run = random_case(7)
    to_int = {t: str(i) for i, t in enumerate(sorted(set(qrels) | set(run)), start=1)}
    iq = {to_int[t]: d for t, d in qrels.items()}
    ir = {to_int[t]: d for t, d in run.items()}
    measure = ir_measures.ERR @ 5
    provided = {
        m.query_id: m.value
        for m in ir_measures.gdeval.iter_calc([measure], iq, ir)  # type: ignore[attr-defined]
    }
    got = {to_int[t]: v for t, v in err_at_k(qrels, run, 5).items()}
    assert got == {q: provided[q] for q in got}
    assert set(provided) - set(got) <= set(iq)
    assert all(provided[q] == 0 for q in set(provided) - set(got))


def test_hand_computed_three_documents() -> None:
    # Scores tie for "a" and "b": gdeval breaks ties by docno DESCENDING, so the
    # ranking is b (grade 2), a (grade 0), c (grade 4).
    #   rank 1: r = (2^2-1)/16 = 0.1875;  score = 0.1875*1/1 = 0.1875;  decay = 0.8125
    #   rank 2: r = 0;                    score = 0.1875;               decay = 0.8125
    #   rank 3: r = (2^4-1)/16 = 0.9375;  score += 0.9375*0.8125/3 = 0.25390625
    #   ERR@3 = 0.44140625 -> "%.5f" -> 0.44141;  ERR@2 = ERR@1 = 0.18750
    # (Ascending docno order a, b, c would give 0.09375 + 0.25390625 = 0.34766.)
    qrels = {"t": {"a": 0, "b": 2, "c": 4}}
    run = {"t": {"a": 1.0, "b": 1.0, "c": 0.5}}
    assert err_at_k(qrels, run, 3) == {"t": 0.44141}
    assert err_at_k(qrels, run, 10) == {"t": 0.44141}
    assert err_at_k(qrels, run, 2) == {"t": 0.1875}
    assert err_at_k(qrels, run, 1) == {"t": 0.1875}


def test_hand_computed_half_even_rounding() -> None:
    # One grade-1 document at rank 4: r = 1/16, ERR = 0.0625/4 = 0.015625 exactly;
    # C printf "%.5f" rounds the exact tie to even: 0.01562.
    qrels = {"t": {"d": 1}}
    run = {"t": {"w": 4.0, "x": 3.0, "y": 2.0, "d": 1.0}}
    assert err_at_k(qrels, run, 4) == {"t": 0.01562}


@needs_perl
def test_half_even_rounding_matches_gdeval(tmp_path: Path) -> None:
    qrels = {"t": {"d": 1}}
    run = {"t": {"w": 4.0, "x": 3.0, "y": 2.0, "d": 1.0}}
    assert gdeval_err(qrels, run, 4, tmp_path) == {"t": "0.01562"}


def test_topic_set_rules() -> None:
    qrels = {"rel": {"a": 1}, "zero": {"a": 0, "b": -1}, "qonly": {"a": 3}}
    run = {"rel": {"a": 1.0}, "zero": {"a": 1.0}, "ronly": {"a": 1.0}, "empty": {}}
    assert err_at_k(qrels, run, 5) == {"rel": 0.0625}


def test_string_topic_ids_kept_verbatim() -> None:
    # gdeval would strip "a-" / "b-" and merge both into topic 1; we keep them apart.
    qrels = {"a-1": {"x": 4}, "b-1": {"x": 1}}
    run = {"a-1": {"x": 1.0}, "b-1": {"x": 1.0}}
    assert err_at_k(qrels, run, 1) == {"a-1": 0.9375, "b-1": 0.0625}


def test_negative_grade_is_gain_zero() -> None:
    qrels = {"t": {"a": -1, "b": 1}}
    run = {"t": {"a": 2.0, "b": 1.0}}
    # a: r = 0; b at rank 2: 0.0625/2 = 0.03125
    assert err_at_k(qrels, run, 2) == {"t": 0.03125}


def test_grade_above_four_raises() -> None:
    with pytest.raises(ValueError, match="5"):
        err_at_k({"t": {"a": 5}}, {"t": {"a": 1.0}}, 5)
    with pytest.raises(ValueError, match="5"):
        GdevalERR({"t": {"a": 1, "b": 5}}, 10)


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError):
        GdevalERR({"t": {"a": 1}}, 0)
    with pytest.raises(ValueError, match="NaN"):
        err_at_k({"t": {"a": 1}}, {"t": {"a": float("nan"), "b": 1.0}}, 1)


def _remap(lines: list[str], to_int: dict[str, str]) -> list[str]:
    """Replace the topic id (first field) of each TREC line by its integer id."""
    out = []
    for line in lines:
        t, rest = line.split(None, 1)
        out.append(f"{to_int[t]} {rest}\n")
    return out


@needs_perl
@pytest.mark.skipif(not SHARED.is_dir(), reason="shared data directory absent")
@pytest.mark.parametrize("k", [1, 5, 20, 1000])
def test_cast2021_against_gdeval(k: int, tmp_path: Path) -> None:
    if not (CAST / "qrels.txt").is_file():
        pytest.skip("CAsT 2021 data absent")
    qrels_text = (CAST / "qrels.txt").read_text().splitlines()
    run_files = sorted((CAST / "runs").glob("*.run"))
    assert run_files
    qrels: Qrels = {}
    for line in qrels_text:
        t, _, d, g = line.split()
        qrels.setdefault(t, {})[d] = int(g)
    ev = GdevalERR(qrels, k)
    compared = 0
    for path in run_files:
        run_text = path.read_text().splitlines()
        run: Run = {}
        for line in run_text:
            t, _, d, _, s, _ = line.split()
            run.setdefault(t, {})[d] = float(s)
        ids = sorted(set(qrels) | set(run))
        to_int = {t: str(i) for i, t in enumerate(ids, start=1)}
        back = {v: t for t, v in to_int.items()}

        # gdeval reads the original lines (original score text), only the topic
        # id replaced by an integer.
        printed = _run_gdeval(_remap(qrels_text, to_int), _remap(run_text, to_int), k, tmp_path)
        expected = {back[t]: v for t, v in printed.items()}
        got = ev.calc(run)
        assert set(got) == set(expected), path.name
        assert _fmt(got) == expected, path.name
        compared += len(got)
    assert compared > 0
    print(f"CAsT 2021 ERR@{k}: {compared} (run, topic) pairs equal to gdeval")
