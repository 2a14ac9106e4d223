"""``bvtest judges`` from the command line and the API: the numbers against
hand computations from the per-topic scores of ``bvtest scores``, every
output format, and the bad inputs of docs/judges.md (one line, exit 2)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest

import bvtest

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
JUDGE = str(EXAMPLES / "judge.qrels")
HUMAN10 = str(EXAMPLES / "human10.qrels")
CONFUSION = str(EXAMPLES / "confusion.json")


def judges_json(*args: object) -> tuple[dict, str]:
    proc = run_bvtest("judges", "-f", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def scores(qrels: str, measure: str = "AP") -> dict[str, dict[str, float]]:
    proc = run_bvtest("scores", "-m", measure, "--topic-set", "all", qrels, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, dict[str, float]] = {}
    for line in proc.stdout.splitlines()[1:]:
        system, topic, _, value = line.split("\t")
        out.setdefault(system, {})[topic] = float(value)
    return out


def qrels_dict(path: str) -> dict[tuple[str, str], int]:
    rows = (line.split() for line in Path(path).read_text().splitlines())
    return {(t, d): int(g) for t, _, d, g in rows}


@pytest.fixture(scope="module")
def doc() -> dict:
    d, _ = judges_json("--judge", f"llm={JUDGE}", "-m", "AP", "--lambda", "1", HUMAN10, SAMPLE_RUNS)
    return d


def test_agreement_by_hand(doc):
    human, judge = qrels_dict(HUMAN10), qrels_dict(JUDGE)
    both = [(human[k], judge[k]) for k in human if k in judge]
    a = doc["judges"]["llm"]["agreement"]
    assert a["pairs"] == len(both) and a["only_judge"] == len(judge) - len(both)
    counts = Counter(both)
    c = a["confusion"]
    for i, h in enumerate(c["human_grades"]):
        for j, g in enumerate(c["judge_grades"]):
            assert c["counts"][i][j] == counts[h, g]
        assert sum(c["p"][i]) == pytest.approx(1.0)
    # Cohen's κ on relevance at -l 1, by its definition
    rel = [(h >= 1, g >= 1) for h, g in both]
    p_o = sum(x == y for x, y in rel) / len(rel)
    ph, pj = sum(x for x, _ in rel) / len(rel), sum(y for _, y in rel) / len(rel)
    p_e = ph * pj + (1 - ph) * (1 - pj)
    assert a["kappa"] == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-12)
    assert a["accuracy"] == pytest.approx(sum(h == g for h, g in both) / len(both), abs=1e-12)
    assert a["mean_grade_diff"] == pytest.approx(np.mean([g - h for h, g in both]), abs=1e-12)


def test_bias_variance_and_ppi_by_hand(doc):
    human, judge = scores(HUMAN10), scores(JUDGE)
    block = doc["judges"]["llm"]["measures"]["AP"]
    human_topics = sorted({t for t, _ in qrels_dict(HUMAN10)})
    only = sorted({t for t, _ in qrels_dict(JUDGE)} - set(human_topics))
    assert block["topics"] == len(human_topics) and block["judge_only_topics"] == len(only)
    for run, row in block["systems"].items():
        e = np.array([judge[run][t] - human[run][t] for t in human_topics])
        assert row["bias"] == pytest.approx(e.mean(), abs=1e-12)
        assert row["var"] == pytest.approx(e.var(), abs=1e-12)
        assert row["mse"] == pytest.approx(row["bias"] ** 2 + row["var"], abs=1e-15)
        # --lambda 1: plain PPI, mean of the judge-only topics + the mean rectifier
        want = np.mean([judge[run][t] for t in only]) - e.mean()
        assert row["ppi"] == pytest.approx(want, abs=1e-12) and row["lambda"] == 1.0
        assert row["ppi_lo"] <= row["ppi"] <= row["ppi_hi"]
        assert row["human_lo"] <= row["human"] <= row["human_hi"]
    ranks = sorted(block["systems"], key=lambda r: -block["systems"][r]["human"])
    assert block["systems"][ranks[0]]["rank_human"] == 1
    # pairs: every pair once, p ≤ p_adj, resolved = p_adj ≤ α
    assert len(block["pairs"]) == 66
    for p in block["pairs"]:
        assert p["p"] <= p["p_adj"] + 1e-15 and p["resolved"] == (p["p_adj"] <= 0.05)
        assert p["lo"] <= p["diff"] <= p["hi"]


def test_no_topic_to_correct_gives_null_ppi_with_a_note():
    d, notes = judges_json("--judge", f"llm={JUDGE}", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    block = d["judges"]["llm"]["measures"]["AP"]
    assert block["judge_only_topics"] == 0 and block["pairs"] == []
    assert all(r["ppi"] is None for r in block["systems"].values())
    assert "nothing for PPI to correct" in notes


@pytest.mark.parametrize("fmt", ["trec", "tsv", "csv", "table", "latex", "markdown", "html"])
def test_every_format(fmt):
    proc = run_bvtest("judges", "-f", fmt, "--judge", f"llm={JUDGE}", "--human-topics", "3",
                      "--draws", "5", "-m", "AP", HUMAN10, SAMPLE_RUNS)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout
    if fmt == "trec":
        assert "llm:AP.bias" in proc.stdout and "experiment:llm:AP.rmse@3" in proc.stdout
    if fmt == "html":
        assert proc.stdout.count("<svg") >= 2  # RMSE and τ against n


def test_the_experiment_and_a_simulated_judge():
    d, _ = judges_json("--judge", f"sim=sim:{CONFUSION}", "--human-topics", "4,8",
                       "--draws", "20", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    rows = d["experiment"]
    assert [(r["topics"], r["method"]) for r in rows] == [
        (n, m) for n in (4, 8) for m in ("human", "judge", "ppi", "ppi++")
    ]
    # the simulated judge draws every human-judged document's grade
    a = d["judges"]["sim"]["agreement"]
    assert a["pairs"] == len(qrels_dict(SAMPLE_QRELS)) and a["only_judge"] == 0
    # seeded: again the same; another seed, another judge
    again, _ = judges_json("--judge", f"sim=sim:{CONFUSION}", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    other, _ = judges_json("--judge", f"sim=sim:{CONFUSION}", "-m", "AP", "--seed", "5",
                           SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    assert again["judges"]["sim"]["agreement"] == a
    assert other["judges"]["sim"]["agreement"]["confusion"] != a["confusion"]


def test_api_is_the_command():
    report = bvtest.judges(HUMAN10, SAMPLE_RUNS, judges=[f"llm={JUDGE}"], measures="AP",
                           ppi_lambda=1.0)  # fmt: skip
    d = report.to_dict()
    d.pop("notes")
    cli, _ = judges_json("--judge", f"llm={JUDGE}", "-m", "AP", "--lambda", "1", HUMAN10,
                         SAMPLE_RUNS)  # fmt: skip
    cli.pop("notes")
    assert d == cli


# ---------------------------------------------------------------- bad input


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_judge_with_no_pair_in_common(tmp_path):
    other = write(tmp_path, "other.qrels", "401 0 nosuchdoc 1\n")
    proc = run_bvtest("judges", "--judge", f"x={other}", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, other, "no (topic, document) pair")


def test_a_grade_outside_the_scale_names_its_line(tmp_path):
    lines = Path(JUDGE).read_text().splitlines()
    lines[2] = lines[2].rsplit(" ", 1)[0] + " 7"
    bad = write(tmp_path, "bad.qrels", "\n".join(lines) + "\n")
    proc = run_bvtest("judges", "--judge", f"x={bad}", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, f"{bad}:3:", "grade 7", "--grade-map")
    ok = run_bvtest("judges", "--judge", f"x={bad}", "--grade-map", "7=4", "-m", "AP",
                    SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("not json", "not a JSON confusion block"),
        ('{"a": 1}', "not a confusion block"),
        (
            '{"human_grades": [0, 1], "judge_grades": [0, 1], "p": [[0.5, 0.4], [0, 1]]}',
            "sums to 0.9",
        ),
        (
            '{"human_grades": [0, 1], "judge_grades": [0, 1], "p": [[1.5, -0.5], [0, 1]]}',
            "outside [0, 1]",
        ),
        (
            '{"human_grades": [0, 1], "judge_grades": [0, 1], "p": [[1, 0], [0, 1]]}',
            "no row for human grade(s) 2, 3, 4",
        ),
        ('{"human_grades": [0, 1], "judge_grades": [0], "p": [[1, 0], [0, 1]]}', "row"),
    ],
)
def test_a_bad_confusion_block(tmp_path, text, fragment):
    sim = write(tmp_path, "c.json", text)
    proc = run_bvtest("judges", "--judge", f"s=sim:{sim}", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, sim, fragment)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("--human-topics", "29"), "2 ≤ N < 29"),
        (("--human-topics", "1"), "2 ≤ N < 29"),
        (("--human-topics", "5,5"), "given twice"),
        (("--human-topics", "5,nan"), "positive integers"),
        (("--grade-map", "1:2"), "GRADE=GRADE"),
        (("--grade-map", "1=2,1=3"), "mapped twice"),
        (("--lambda", "nan"), "finite"),
        (("--lambda", "2"), "lambda"),
        (("--ppi-interval", "z"), "ppi-interval"),
    ],
)
def test_bad_options(args, fragment):
    proc = run_bvtest("judges", "--judge", f"llm={JUDGE}", *args, "-m", "AP", SAMPLE_QRELS,
                      SAMPLE_RUNS)  # fmt: skip
    assert_one_line_error(proc, fragment)


def test_two_judges_of_one_name():
    proc = run_bvtest("judges", "--judge", f"a={JUDGE}", "--judge", f"a={JUDGE}", SAMPLE_QRELS,
                      SAMPLE_RUNS)  # fmt: skip
    assert_one_line_error(proc, "given twice")


def test_the_api_refuses_in_keywords():
    with pytest.raises(bvtest.InputError, match="finite"):
        bvtest.judges(SAMPLE_QRELS, SAMPLE_RUNS, judges=[f"llm={JUDGE}"], ppi_lambda=math.nan)


# ---------------------------------------------------------------- hostile inputs


def test_a_judge_that_is_the_humans_has_no_error():
    d, _ = judges_json("--judge", f"same={SAMPLE_QRELS}", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    a = d["judges"]["same"]["agreement"]
    assert a["kappa"] == 1.0 and a["accuracy"] == 1.0 and a["mean_grade_diff"] == 0.0
    block = d["judges"]["same"]["measures"]["AP"]
    for row in block["systems"].values():  # zero spread: exactly 0, not rounding noise
        assert row["bias"] == 0.0 and row["var"] == 0.0 and row["mse"] == 0.0
        assert row["rank_human"] == row["rank_judge"]
    assert block["kendall_tau"] == 1.0 and block["tau_ap_b"] == 1.0
    assert block["max_rank_change"] == 0


def test_one_human_topic_leaves_ppi_null_with_a_note(tmp_path):
    lines = [x for x in Path(HUMAN10).read_text().splitlines() if x.split()[0] == "401"]
    one = write(tmp_path, "one.qrels", "\n".join(lines) + "\n")
    d, notes = judges_json("--judge", f"llm={JUDGE}", "-m", "AP", one, SAMPLE_RUNS)
    block = d["judges"]["llm"]["measures"]["AP"]
    assert block["topics"] == 1 and all(r["ppi"] is None for r in block["systems"].values())
    assert "PPI needs 2 or more human topics" in notes


@pytest.mark.parametrize(
    "args, fragment",
    [(("--human-topics", "5", "--draws", "1000000000"), "--draws 1000000000"),
     (("--bootstrap", "100000000"), "--bootstrap 100000000"),
     (("--draws", "5"), "--human-topics")],
)  # fmt: skip
def test_huge_or_idle_counts_are_refused_before_the_work(args, fragment):
    proc = run_bvtest("judges", "--judge", f"llm={JUDGE}", *args, "-m", "AP", HUMAN10,
                      SAMPLE_RUNS)  # fmt: skip
    assert_one_line_error(proc, fragment)


def test_the_grade_map_from_python_as_a_list(tmp_path):
    lines = Path(JUDGE).read_text().splitlines()
    lines[0] = lines[0].rsplit(" ", 1)[0] + " 9"
    bad = write(tmp_path, "nine.qrels", "\n".join(lines) + "\n")
    as_list = bvtest.judges(SAMPLE_QRELS, SAMPLE_RUNS, judges=[f"x={bad}"], measures="AP",
                            grade_map=["9=4"]).to_dict()  # fmt: skip
    as_text = bvtest.judges(SAMPLE_QRELS, SAMPLE_RUNS, judges=[f"x={bad}"], measures="AP",
                            grade_map="9=4").to_dict()  # fmt: skip
    assert as_list == as_text
    with pytest.raises(bvtest.InputError, match="grade 9"):
        bvtest.judges(SAMPLE_QRELS, SAMPLE_RUNS, judges=[f"x={bad}"], measures="AP")
