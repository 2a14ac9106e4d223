"""The options that name files (a judge's qrels, rankings' reference and
collections, a conditions or variations map, topic weights, design's budget
report) take the data a Python user holds, with the numbers the files give
(the same JSON, byte for byte) and the same rules (a name given twice, a
bad row named by its row)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, SAMPLE_QRELS, SAMPLE_RUNS

import bvtest
from bvtest_cli.errors import InputError

EXAMPLES = REPO / "docs" / "examples"
JUDGE = str(EXAMPLES / "judge.qrels")
UQV = EXAMPLES / "uqv"


def qrels_of(path: str) -> dict[str, dict[str, int]]:
    """A qrels file as {topic: {docno: grade}}, read independently of bvtest."""
    out: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as lines:
        rows = [line.split() for line in lines]
    for topic, _, docno, grade in rows:
        out.setdefault(topic, {})[docno] = int(grade)
    return out


def rows_of(path: str | object) -> list[tuple[str, ...]]:
    lines = Path(str(path)).read_text(encoding="utf-8").splitlines()
    return [tuple(line.split()) for line in lines if line.strip() and not line.startswith("#")]


def test_a_judge_from_a_dict_or_a_frame_is_its_file():
    def report(judges):
        return bvtest.judges(SAMPLE_QRELS, SAMPLE_RUNS, judges=judges, measures="AP").render("json")

    from_file = report([f"llm={JUDGE}"])
    assert json.loads(from_file)  # a real document
    assert report({"llm": qrels_of(JUDGE)}) == from_file
    frame = pd.DataFrame(
        [(t, d, g) for t, docs in qrels_of(JUDGE).items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    assert report({"llm": frame}) == from_file
    assert report({"llm": JUDGE}) == from_file  # a path in a dict is a path


def test_a_judge_in_memory_keeps_the_rules_of_its_file():
    bad = {"401": {"d1": "2"}}  # a grade as a string: a file's text is parsed, a value is not
    with pytest.raises(InputError, match=r"<judge llm>:1: relevance '2' is a string"):
        bvtest.judges(SAMPLE_QRELS, SAMPLE_RUNS, judges={"llm": bad})
    with pytest.raises(InputError, match="a name is a non-empty string"):
        bvtest.judges(SAMPLE_QRELS, SAMPLE_RUNS, judges={"a=b": qrels_of(JUDGE)})


def test_rankings_reference_and_collections_from_memory_are_their_files():
    q = str(SAMPLE_QRELS)
    from_files = bvtest.rankings(runs=SAMPLE_RUNS, reference=q, collections=[f"X={q}", f"Y={q}"],
                                 bootstrap=50).render("json")  # fmt: skip
    held = qrels_of(q)
    from_memory = bvtest.rankings(runs=SAMPLE_RUNS, reference=("qrels.txt", held),
                                  collections={"X": held, "Y": [held]}, bootstrap=50)  # fmt: skip
    assert from_memory.render("json") == from_files


def test_a_conditions_map_from_a_dict_or_a_frame_is_its_file():
    path = EXAMPLES / "conditions.txt"
    from_file = bvtest.conditions(SAMPLE_QRELS, SAMPLE_RUNS, condition_map=str(path),
                                  measures="AP").render("json")  # fmt: skip
    rows = rows_of(path)
    as_dict = {run: (system, condition) for run, system, condition in rows}
    as_frame = pd.DataFrame(rows, columns=["run", "system", "condition"])
    for held in (as_dict, as_frame, rows):
        got = bvtest.conditions(SAMPLE_QRELS, SAMPLE_RUNS, condition_map=held, measures="AP")
        assert got.render("json") == from_file
    with pytest.raises(InputError, match=r"<map>:2: 'S 1' is empty or holds white space"):
        bvtest.conditions(
            SAMPLE_QRELS, SAMPLE_RUNS, condition_map=[rows[0], ("sys002", "S 1", "B")]
        )


def test_a_variations_map_and_weights_from_memory_are_their_files():
    qrels, runs = str(UQV / "qrels.txt"), str(UQV / "runs")
    kw = dict(measures="AP", mode="general", alphas="-2:2:1")
    files = dict(variation_map=str(UQV / "map.txt"), weights=str(UQV / "weights.txt"))
    from_files = bvtest.variations(qrels, runs, **files, **kw).render("json")
    as_map = pd.DataFrame(rows_of(UQV / "map.txt"), columns=["variation_id", "topic_id", "user"])
    as_weights = {topic: int(w) for topic, w in rows_of(UQV / "weights.txt")}
    got = bvtest.variations(qrels, runs, variation_map=as_map, weights=as_weights, **kw)
    assert got.render("json") == from_files


def test_design_reads_a_budget_report_it_is_handed(tmp_path):
    budget = bvtest.budget(SAMPLE_QRELS, SAMPLE_RUNS, budgets=[20], topics_scale=[1],
                           methods=["depth"], bootstrap=50)  # fmt: skip
    path = tmp_path / "budget.json"
    path.write_text(budget.render("json"), encoding="utf-8")
    kw = dict(measures="AP", totals=[200])
    from_file = bvtest.design(SAMPLE_QRELS, SAMPLE_RUNS, budget_report=str(path), **kw)
    from_report = bvtest.design(SAMPLE_QRELS, SAMPLE_RUNS, budget_report=budget, **kw)
    from_dict = bvtest.design(SAMPLE_QRELS, SAMPLE_RUNS, budget_report=budget.to_dict(), **kw)
    # the notes name the report where a file's name would be
    named = from_file.render("json").replace(str(path), "<budget report>")
    assert "<budget report>" in named
    assert from_report.render("json") == named
    assert from_dict.render("json") == named


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        # a dict of one topic is qrels, not {name: qrels}: refused only for what it holds
        ({"reference": {"a": {"401": {"d1": 1}}}}, r"<reference>:1: relevance \{'d1': 1\} is not"),
        ({"collections": {"X": []}}, "collection 'X' holds no qrels"),
        ({"collections": {"X/y": {"401": {"d1": 1}}}}, "a name is a non-empty string"),
        ({"collections": {"X": 5}}, r"<collection X 1>: expected records"),
        ({"reference": 5}, r"<reference>: expected records"),
    ],
)
def test_hostile_data_for_a_file_option_is_one_input_error(keywords, message):
    held = {"401": {"d1": 1}}
    keywords = {"reference": held, "collections": {"X": held}, **keywords}
    with pytest.raises(InputError, match=message):
        bvtest.rankings(runs=SAMPLE_RUNS, bootstrap=20, **keywords)


def test_a_one_topic_qrels_dict_is_a_reference():
    held = {"401": {"d1": 1}}
    report = bvtest.rankings(runs=SAMPLE_RUNS, reference=held, collections={"X": held},
                             bootstrap=20)  # fmt: skip
    assert report.to_dict()["reference"] == "reference"


def test_a_command_line_quoted_in_a_message_keeps_its_flags():
    with pytest.raises(InputError, match=r"not a `bvtest budget -f json` report"):
        bvtest.design(SAMPLE_QRELS, SAMPLE_RUNS, budget_report={"x": 1}, totals=[100])
    with pytest.raises(InputError, match="not a JSON document"):
        bvtest.design(SAMPLE_QRELS, SAMPLE_RUNS, budget_report={"x": object()}, totals=[100])


@pytest.mark.parametrize(
    "rows",
    [
        [],  # empty
        [("401", "FR940104-0-00001", 5)],  # a grade outside the human scale
        [("999", "d", 1)],  # no topic the human qrels share
        [("401", "x", 1), ("401", "x", 2)],  # one pair judged twice
    ],
)
def test_a_bad_judge_in_memory_fails_as_its_file(rows, tmp_path):
    def error(judge):
        with pytest.raises(InputError) as caught:
            bvtest.judges(SAMPLE_QRELS, SAMPLE_RUNS, judges={"llm": judge}, measures="AP")
        return str(caught.value)

    path = tmp_path / "judge.qrels"
    path.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in rows), encoding="utf-8")
    frame = pd.DataFrame(rows, columns=["qid", "docno", "label"])
    assert error(frame) == error(str(path)).replace(str(path), "<judge llm>")


def test_a_map_given_under_two_names_is_refused():
    held = {"sys001": ("S1", "A")}
    with pytest.raises(InputError, match=r"^map= and condition_map= name one option; give one"):
        bvtest.conditions(SAMPLE_QRELS, SAMPLE_RUNS, map=str(EXAMPLES / "conditions.txt"),
                          condition_map=held, measures="AP")  # fmt: skip


@pytest.mark.parametrize("weight", [float("nan"), float("inf"), -1.0])
def test_a_weight_that_is_not_a_finite_number_at_least_0_fails_as_in_its_file(weight, tmp_path):
    qrels, runs = str(UQV / "qrels.txt"), str(UQV / "runs")
    weights = {topic: int(w) for topic, w in rows_of(UQV / "weights.txt")}
    weights["401"] = weight  # type: ignore[assignment]
    path = tmp_path / "weights.txt"
    path.write_text("".join(f"{t} {w}\n" for t, w in weights.items()), encoding="utf-8")

    def error(held):
        with pytest.raises(InputError) as caught:
            bvtest.variations(qrels, runs, variation_map=str(UQV / "map.txt"), weights=held,
                              measures="AP", mode="general")  # fmt: skip
        return str(caught.value)

    assert "must be a finite number >= 0" in error(weights)
    assert error(weights) == error(str(path)).replace(str(path), "<weights>")


def test_weights_that_sum_to_0_fail_as_in_their_file():
    qrels, runs = str(UQV / "qrels.txt"), str(UQV / "runs")
    zero = {topic: 0 for topic, _ in rows_of(UQV / "weights.txt")}
    with pytest.raises(
        InputError, match=r"^<weights>: the weights of the analysed topics sum to 0"
    ):
        bvtest.variations(qrels, runs, variation_map=str(UQV / "map.txt"), weights=zero,
                          measures="AP", mode="general")  # fmt: skip


def test_old_and_new_spellings_in_a_params_dataclass_are_refused():
    from bvtest_cli.commands import COMMANDS
    from bvtest_cli.commands.rankings.params import RankingsParams
    from bvtest_cli.io.sources import Inputs

    q = str(SAMPLE_QRELS)
    p = RankingsParams(reference=q, collections=[f"X={q}"], samples=50, bootstrap=60)
    with pytest.raises(InputError, match="old spelling of --bootstrap; give one"):
        COMMANDS["rankings"].build(Inputs(runs=(str(SAMPLE_RUNS),)), p)
