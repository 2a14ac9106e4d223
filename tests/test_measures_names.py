"""Measure names as users type them, and one spelling per field in every format.

- ``-m`` takes ir_measures' and trec_eval's names in any case (``map@100``,
  ``ndcg@10``, ``p@10``, ``err@20``): each gives the numbers of bvtest's name
  for the measure, reported under that name; folding never turns a name into
  another measure (``r@10`` is recall, ``rr`` is RR, ``p`` alone is refused,
  a spelling two libraries give to two measures is refused naming both).
- A measure's block states the spelling that asked for it (``asked``) in
  JSON only.
- An alpha-indexed field is ``zrisk@5`` in every text format, as in the
  gates; the mean's trec line is found by its whole name.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO, SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest

from bvtest_cli.errors import InputError
from bvtest_cli.measures.names import (
    _foldable_names,
    _parse_named,
    _parse_one,
    asked_names,
    parse_measures,
)
from bvtest_cli.render import text as render
from bvtest_cli.report import registry
from bvtest_cli.report.model import Report, section

# The spellings users bring from trec_eval, ir_measures and habit, and the
# measure bvtest computes for each.
SPELLINGS = [
    ("map@100", "AP@100"),
    ("ndcg@10", "nDCG@10"),
    ("MAP", "AP"),
    ("P.10", "P@10"),
    ("ndcg_cut.10", "nDCG@10"),
    ("p@10", "P@10"),
    ("Recall@100", "R@100"),
    ("err@20", "ERR@20"),
    ("NDCG@10", "nDCG@10"),
    ("r@10", "R@10"),
    ("rr", "RR"),
    ("p.10", "P@10"),
    ("Ndcg_Cut.10", "nDCG@10"),
]
CANONICAL = sorted({name for _, name in SPELLINGS})
# a light analysis: the numbers compared are the same whatever the alphas
LIGHT = ("--alpha", "5", "--quiet", "-f", "json")
NEW_RUN = REPO / "docs" / "examples" / "new.run"  # a run the pool (the sample runs) lacks


def _eval_json(*measures: str) -> dict:
    proc = run_bvtest("eval", "-m", ",".join(measures), *LIGHT, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["measures"]


def _numbers(block: dict) -> dict:
    """A block without its spelling: what the measure computed."""
    return {k: v for k, v in block.items() if k != "asked"}


@pytest.fixture(scope="module")
def canonical() -> dict:
    return _eval_json(*CANONICAL)


@pytest.mark.parametrize("typed,name", SPELLINGS)
def test_spelling_gives_the_numbers_of_the_canonical_name(canonical, typed, name):
    (spec,) = parse_measures([typed])
    assert (spec.name, spec.asked) == (name, typed)
    blocks = _eval_json(typed)
    assert list(blocks) == [name]  # reported under bvtest's name
    assert _numbers(blocks[name]) == _numbers(canonical[name])
    assert blocks[name]["systems"]["sys001"]["mean"] > 0  # a measure, not an empty block


def test_eval_json_states_the_measure_as_asked():
    blocks = _eval_json("map", "ndcg@10", "ERR@20")
    assert {m: b["asked"] for m, b in blocks.items()} == {
        "AP": "map",
        "nDCG@10": "ndcg@10",
        "ERR@20": "ERR@20",  # always present, also where it is bvtest's name
    }


def test_asked_names_and_specs_keep_the_item_as_typed():
    assert asked_names(["map,ndcg_cut.10", "P.5,10"]) == {
        "AP": "map",
        "nDCG@10": "ndcg_cut.10",
        "P@5": "P.5,10",
        "P@10": "P.5,10",
    }
    (spec,) = parse_measures(["AP"])
    assert spec.asked == "AP" and spec.label == "AP"


def test_asked_is_in_json_only():
    """A block's ASKED leaf: a key of its JSON object, never a trec/tsv/csv
    line, a table's title item nor a pandas row."""
    from bvtest_cli.render.longform import long_rows

    block = section((registry.ASKED, "map"), (registry.N_TOPICS, 3))
    report = Report(section(("measures", section(("AP", block)))))
    doc = json.loads(render.render(report, "json"))
    assert doc["measures"]["AP"] == {"asked": "map", "n_topics": 3}
    for fmt in ("trec", "tsv", "csv", "table", "markdown", "latex"):
        out = render.render(report, fmt)
        assert "n_topics" in out and "asked" not in out and "map" not in out, fmt
    assert [row[1] for row in long_rows(report)] == ["n_topics"]


# --------------------------------------------------------------------------- hostile names


def test_one_measure_in_two_spellings_is_one_block_with_a_note():
    notes: list[str] = []
    specs = parse_measures(["MAP,map", "AP"], note=notes.append)
    assert [(s.name, s.asked) for s in specs] == [("AP", "MAP")]
    assert notes == [
        "-m: MAP and map and AP name one measure, AP: reported once, as asked by 'MAP'"
    ]
    quiet: list[str] = []
    assert len(parse_measures(["AP", "AP"], note=quiet.append)) == 1 and quiet == []
    assert list(_eval_json("MAP", "map")) == ["AP"]


@pytest.mark.parametrize(
    "typed,name",
    [("r@10", "R@10"), ("rr", "RR"), ("rr@10", "RR@10"), ("rprec", "Rprec"), ("mrr", "RR")],
)
def test_folding_never_changes_the_measure(typed, name):
    (spec,) = parse_measures([typed])
    assert spec.name == name


def test_p_alone_is_refused_naming_what_was_typed():
    proc = run_bvtest("eval", "-m", "p", SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, "-m p", "needs cutoff")


def test_a_spelling_of_two_measures_is_refused_naming_both():
    # trec_eval's recall is R@5 … R@1000, ir_measures' Recall one R: the
    # exact spellings keep their meaning, another case is neither
    assert [s.name for s in parse_measures(["Recall@100"])] == ["R@100"]
    assert len(parse_measures(["recall"])) > 1
    proc = run_bvtest("eval", "-m", "RECALL", SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, "'RECALL' could be", "'Recall'", "'recall'")


def test_unknown_names_get_the_closest_name_and_a_case_is_no_typo():
    near_misses = [
        ("ndgc@10", "did you mean nDCG@10?"),
        ("mapp", "did you mean MAP?"),
        ("precison@10", "did you mean Precision@10?"),
        # two estimators are called infAP: a wrong case gets both names
        ("infap", "did you mean xinfAP (sample_eval.pl's infAP) or infAP (trec_eval's)?"),
        ("INFAP", "did you mean xinfAP (sample_eval.pl's infAP) or infAP (trec_eval's)?"),
    ]
    for typed, hint in near_misses:
        proc = run_bvtest("eval", "-m", typed, SAMPLE_QRELS, SAMPLE_RUNS)
        assert_one_line_error(proc, f"unknown measure {typed!r}", hint)
    # the names those hints give, in the case typed, are no near misses
    assert [s.name for s in parse_measures(["ndcg@10,map,precision@10"])] == [
        "nDCG@10",
        "AP",
        "P@10",
    ]


def test_a_parameter_the_measure_does_not_take_is_one_line():
    proc = run_bvtest("eval", "-m", "nDCG(rel=2)@10", SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, "nDCG has no parameter 'rel'")


def test_every_case_of_every_known_name_is_that_name_or_refused():
    """Over every ir_measures and trec_eval name (with a cutoff, a trec_eval
    parameter, or none): another case of a spelling gives a measure one of
    its exact spellings gives, or an error; never a third measure. Where the
    exact spellings agree (map, MAP), every case gives it."""
    checked = 0
    for known in _foldable_names():
        for suffix in ("", "@10", ".10"):
            exact: dict[str, str] = {}
            for other in _foldable_names():
                if other.lower() == known.lower():
                    try:
                        parsed = _parse_named(other + suffix)
                    except InputError:
                        continue
                    if not isinstance(parsed, str):
                        exact[other] = " ".join(map(str, parsed))
            if known not in exact:
                continue
            checked += 1
            for typed in {(known + suffix).lower(), (known + suffix).upper()}:
                if typed[: len(known)] in exact:  # an exact spelling keeps its meaning
                    continue
                try:
                    got = " ".join(map(str, _parse_one(typed)))
                except InputError as exc:
                    assert len(set(exact.values())) > 1, (typed, str(exc))
                    continue
                assert len(set(exact.values())) == 1 and got in exact.values(), (typed, got)
    assert checked > 80


# --------------------------------------------------------------------------- one field spelling


def test_every_format_spells_an_alpha_field_as_the_gates_do():
    for fmt in ("trec", "tsv", "csv", "table", "markdown", "latex", "html"):
        proc = run_bvtest(
            "eval", "-m", "AP", "--alpha", "0,5", "--quiet", "-f", fmt, SAMPLE_QRELS, SAMPLE_RUNS
        )
        assert proc.returncode == 0, proc.stderr
        assert "(alpha=" not in proc.stdout, fmt
        if fmt != "html":  # the page heads a column by the alpha alone, under the field
            assert "zrisk@5" in proc.stdout and "georisk@5" in proc.stdout, fmt
    trec = run_bvtest("eval", "-m", "AP", "--alpha", "5", SAMPLE_QRELS, SAMPLE_RUNS).stdout
    lines = [line.split("\t") for line in trec.splitlines()]
    assert [n.rstrip() for n, *_ in lines if "zrisk@5" in n] == ["AP.zrisk@5"] * 12
    assert all(len(n) == 22 for n, *_ in lines if n.rstrip() == "AP.georisk@5")  # %-22s
    doc = json.loads(
        run_bvtest(
            "eval", "-m", "AP", "--alpha", "5", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS
        ).stdout
    )
    assert set(doc["measures"]["AP"]["systems"]["sys001"]["zrisk"]) == {"5"}
    # the name a line prints is the gate that checks it
    gate = run_bvtest("check", "--gate", "AP:zrisk@5>=-1000", SAMPLE_QRELS, SAMPLE_RUNS, NEW_RUN)
    assert gate.returncode == 0 and "AP:zrisk@5>=-1000" in gate.stdout, gate.stderr


def test_an_interval_of_an_alpha_field_is_named_as_its_gate():
    ci = ("--alpha", "5", "--ci", "0.9", "--bootstrap", "50")
    proc = run_bvtest("eval", "-m", "AP", *ci, "-f", "tsv", SAMPLE_QRELS, SAMPLE_RUNS)
    names = {line.split("\t")[1] for line in proc.stdout.splitlines()[1:]}
    assert {"zrisk@5", "zrisk.lo@5", "zrisk.hi@5"} <= names, proc.stderr
    assert not any("@5." in name for name in names)
    gate = run_bvtest(
        "check", *ci, "--gate", "AP:zrisk.lo@5>=-1000", SAMPLE_QRELS, SAMPLE_RUNS, NEW_RUN
    )
    assert gate.returncode == 0, gate.stderr


def test_the_mean_line_is_found_by_its_whole_name():
    trec = run_bvtest("eval", "-m", "AP", "--alpha", "0", SAMPLE_QRELS, SAMPLE_RUNS).stdout
    assert "AP.trisk_mean@0" in trec  # a name that holds "mean"
    found = [line for line in trec.splitlines() if re.match(r"^AP\.mean\s", line)]
    assert len(found) == 12 and all(line.split("\t")[0].rstrip() == "AP.mean" for line in found)
