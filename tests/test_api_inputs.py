"""The API computes from the data it is given: every form a Python user holds
(dicts, ir_measures' named tuples, pandas frames in ir_measures' and
PyTerrier's names, a frame of several runs, long and wide scores frames)
gives the JSON the files give, byte for byte — on the sample track and on
TREC 2003 Robust — with no file written and no click imported; a frame's
bad rows get the files' rules and messages, naming the row."""

from __future__ import annotations

import gzip
import inspect
import math
import os
import subprocess
import sys
import tempfile
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, SAMPLE_QRELS, SAMPLE_RUNS

import bvtest
from bvtest_cli.errors import InputError

pd = pytest.importorskip("pandas")
ir_measures = pytest.importorskip("ir_measures")

RUN_FILES = sorted(p for p in Path(SAMPLE_RUNS).iterdir() if p.is_file())


def qrels_rows(path: Path) -> list[tuple[str, str, int]]:
    return [(r[0], r[2], int(r[3])) for r in map(str.split, path.read_text().splitlines()) if r]


def text_of(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()


def run_rows(path: Path) -> list[tuple[str, str, float, int]]:
    """(qid, docno, score, rank) of a run file, its score text read by float()."""
    rows = map(str.split, text_of(path).splitlines())
    return [(r[0], r[2], float(r[4]), int(r[3])) for r in rows if r]


def json_of(report) -> str:
    return report.render("json")


def forms_of_qrels(path: Path) -> dict[str, object]:
    rows = qrels_rows(path)
    nested: dict[str, dict[str, int]] = {}
    for q, d, g in rows:
        nested.setdefault(q, {})[d] = g
    return {
        "dict": nested,
        "ir_measures frame": pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]),
        "PyTerrier frame": pd.DataFrame(rows, columns=["qid", "docno", "label"]),
        "Qrel tuples": [ir_measures.Qrel(q, d, g) for q, d, g in rows],
        "ir_datasets-like iterator": iter(
            namedtuple("TrecQrel", "query_id doc_id relevance iteration")(q, d, g, "0")
            for q, d, g in rows
        ),
    }


def forms_of_runs(files: list[Path]) -> dict[str, object]:
    rows = {p.name.removesuffix(".gz"): run_rows(p) for p in files}
    frames = {
        name: pd.DataFrame(r, columns=["qid", "docno", "score", "rank"]) for name, r in rows.items()
    }
    one = pd.concat([f.assign(name=name) for name, f in frames.items()], ignore_index=True)
    return {
        "dict of dicts": {n: _nested_run(r) for n, r in rows.items()},
        "ScoredDoc tuples": {
            n: [ir_measures.ScoredDoc(q, d, s) for q, d, s, _ in r] for n, r in rows.items()
        },
        "dict of PyTerrier frames": frames,
        "one frame, name column": one,
        "one frame, run column": one.rename(columns={"name": "run"}),
        # every run's rows apart, the runs first met in file order
        "one frame, runs interleaved": one.sort_values(["rank", "name"], kind="stable"),
        "dict of paths": {p.name.removesuffix(".gz"): str(p) for p in files},
    }


def _nested_run(rows: list[tuple[str, str, float, int]]) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for q, d, s, _ in rows:
        run.setdefault(q, {})[d] = s
    return run


@pytest.fixture(scope="module")
def sample_json() -> str:
    return json_of(bvtest.evaluate(str(SAMPLE_QRELS), str(SAMPLE_RUNS), measures=["AP", "nDCG@10"]))


@pytest.mark.parametrize("form", list(forms_of_qrels(Path(SAMPLE_QRELS))))
def test_every_form_of_qrels_gives_the_files_json(sample_json, form):
    qrels = forms_of_qrels(Path(SAMPLE_QRELS))[form]
    report = bvtest.evaluate(qrels, str(SAMPLE_RUNS), measures=["AP", "nDCG@10"])
    assert json_of(report) == sample_json


@pytest.mark.parametrize("form", list(forms_of_runs(RUN_FILES)))
def test_every_form_of_runs_gives_the_files_json(sample_json, form):
    runs = forms_of_runs(RUN_FILES)[form]
    report = bvtest.evaluate(str(SAMPLE_QRELS), runs, measures=["AP", "nDCG@10"])
    assert json_of(report) == sample_json


def test_scores_as_long_and_wide_frames_give_the_files_json(tmp_path):
    table = bvtest.scores(str(SAMPLE_QRELS), str(SAMPLE_RUNS), measures="AP")
    path = tmp_path / "scores.tsv"
    path.write_text(table.render("tsv"))
    from_file = json_of(bvtest.analyse(str(path)))
    long = table.to_frame()
    assert json_of(bvtest.analyse(long)) == from_file
    assert json_of(bvtest.analyse(list(long.itertuples(index=False, name=None)))) == from_file
    wide = long.pivot(index="topic", columns="system", values="value")
    wide.attrs["measure"] = "AP"
    assert json_of(bvtest.analyse(wide)) == from_file


def test_a_wide_frame_needs_its_measure_named():
    wide = pd.DataFrame({"a": [0.5, 0.25], "b": [0.0, 1.0]}, index=["1", "2"])
    with pytest.raises(InputError, match="attrs"):
        bvtest.analyse(wide)


def test_robust2003_from_memory_is_the_files(shared_data):
    qrels_path = shared_data / "robust2003" / "qrels.txt"
    files = sorted(p for p in (shared_data / "robust2003" / "runs").iterdir() if p.is_file())
    options = {"measures": ["AP", "nDCG@10", "P@10"]}
    expected = json_of(bvtest.evaluate(str(qrels_path), [str(p) for p in files], **options))
    qrels = forms_of_qrels(qrels_path)
    runs = forms_of_runs(files)
    for qrels_form, runs_form in (("PyTerrier frame", "one frame, name column"),
                                  ("Qrel tuples", "ScoredDoc tuples"),
                                  ("dict", "dict of dicts")):  # fmt: skip
        report = bvtest.evaluate(qrels[qrels_form], runs[runs_form], **options)
        assert json_of(report) == expected, (qrels_form, runs_form)


def test_no_file_is_written_and_no_temporary_directory_made(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("the API made a temporary file")

    for name in ("TemporaryDirectory", "mkdtemp", "NamedTemporaryFile", "mkstemp"):
        monkeypatch.setattr(tempfile, name, refuse)
    monkeypatch.chdir(tmp_path)
    runs = {"x": {"1": {"a": 2.0, "b": 1.0}}, "y": [("1", "b", 2.0), ("1", "a", 1.0)]}
    before = sorted(os.listdir(tempfile.gettempdir()))
    report = bvtest.evaluate({"1": {"a": 1, "b": 0}}, runs, measures="AP", alphas=0, jobs=2)
    assert report.to_dict()["measures"]["AP"]["systems"]["y"]["mean"] == 0.5
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 2.0],
                          "name": ["z", "z"]})  # fmt: skip
    assert (
        bvtest.evaluate({"1": {"a": 1}}, frame, measures="AP").to_dict()["measures"]["AP"][
            "systems"
        ]["z"]["mean"]
        == 0.5
    )
    assert sorted(os.listdir(tempfile.gettempdir())) == before
    assert list(tmp_path.iterdir()) == []


def test_import_bvtest_imports_no_click():
    code = (
        "import sys, bvtest; bvtest.evaluate({'1': {'a': 1}}, {'x': {'1': {'a': 1.0}}}, "
        "measures='AP'); assert 'click' not in sys.modules, 'click imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


# --------------------------------------------------------------------------- a frame's bad rows


def frame(**columns) -> object:
    base = {"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]}
    return pd.DataFrame({**base, **columns})


QRELS = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}


@pytest.mark.parametrize(
    ("columns", "fragments"),
    [
        ({"score": [3.0, float("nan"), 1.0]}, ("<run r>:2:", "not a finite number")),
        ({"score": [3.0, float("inf"), 1.0]}, ("<run r>:2:", "not a finite number")),
        ({"docno": ["a", "a", "c"]}, ("<run r>:2:", "duplicate docno")),
        ({"docno": ["a", "b c", "c"]}, ("<run r>:2:", "white space")),
        ({"docno": ["a", "", "c"]}, ("<run r>:2:", "empty docno")),
        ({"qid": ["1", None, "2"]}, ("<run r>:2:", "not a string")),
        ({"score": ["3", "2", "1"]}, ("<run r>:1:", "is a string, not a number")),
    ],
)
def test_a_frames_bad_row_is_named_as_a_files_line(columns, fragments):
    with pytest.raises(InputError) as info:
        bvtest.evaluate(QRELS, {"r": frame(**columns)}, measures="AP")
    for fragment in fragments:
        assert fragment in str(info.value)


def test_what_the_frame_path_cannot_take_still_gives_the_texts_numbers():
    """Non-ASCII docnos, integer topic ids and an empty-looking frame go
    through the text; the numbers are those of the same rows as a dict."""
    rows = {"qid": [1, 1, 2], "docno": ["ä", "b", "c"], "score": [3.0, 2.0, 1.0]}
    qrels = {"1": {"ä": 1, "b": 0}, "2": {"c": 1}}
    as_frame = bvtest.evaluate(qrels, {"r": pd.DataFrame(rows)}, measures="AP")
    as_dict = bvtest.evaluate(qrels, {"r": {"1": {"ä": 3.0, "b": 2.0}, "2": {"c": 1.0}}},
                              measures="AP")  # fmt: skip
    assert json_of(as_frame) == json_of(as_dict)
    with pytest.raises(InputError, match="empty"):
        bvtest.evaluate(QRELS, {"r": pd.DataFrame(columns=["qid", "docno", "score"])},
                        measures="AP")  # fmt: skip


# --------------------------------------------------------------------------- signatures


def cli_options(command: str) -> set[str]:
    from bvtest_cli.cli import cli

    params = {p.name for p in cli.commands[command].params if not getattr(p, "hidden", False)}
    inputs = {"inputs", "scores", "qrels", "pool", "new_runs", "runs", "fmt", "digits", "quiet"}
    return params - inputs


@pytest.mark.parametrize("command", bvtest.commands())
def test_the_api_signature_is_the_clis_options(command):
    """The keywords of every API function are the options of its command (both
    made from the one declaration), each with its default."""
    function = {"eval": bvtest.evaluate}.get(command) or getattr(bvtest, command)
    sig = inspect.signature(function)
    keywords = {n for n, p in sig.parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    keywords -= {"scores", "pool", "new_runs"}
    assert keywords == cli_options(command)
    for name in keywords:
        assert sig.parameters[name].default == bvtest.keywords(command)[name]
    assert "Keywords" in (function.__doc__ or "")


def test_an_unknown_keyword_names_the_valid_ones_before_reading_anything():
    with pytest.raises(TypeError, match=r"unexpected keyword 'bootstrapp'.*bootstrap"):
        bvtest.evaluate("no/such/qrels", "no/such/runs", bootstrapp=10)


def test_lists_are_lists():
    report = bvtest.compare(str(SAMPLE_QRELS), str(SAMPLE_RUNS), pair=("sys001", "sys002"),
                            measures="AP", compare_fields=["mean", "var"])  # fmt: skip
    fields = {row["field"] for row in report.to_dict()["measures"]["AP"]["pairs"]}
    assert fields == {"mean", "var"}


def test_the_manuals_reference_is_the_signatures():
    import re

    from bvtest_cli.api import reference

    page = (REPO / "docs" / "api.md").read_text()
    found = re.search(r"<!-- api-reference -->\n(.*?)<!-- /api-reference -->", page, re.S)
    assert found, "docs/api.md has no reference block"
    assert found[1] == reference(), "docs/api.md is stale: python tools/gen_docs.py"


# ------------------------------------------------------------ hostile values from Python


@pytest.mark.parametrize(
    ("keywords", "fragment"),
    [
        ({"alphas": []}, "names nothing"),
        ({"alphas": [0, 0.0]}, "listed twice"),
        ({"alphas": [float("nan")]}, "not a finite number"),
        ({"ci": float("inf")}, "not a finite number"),
        ({"bootstrap": 10**30, "ci": 0.9}, "bootstrap"),
        ({"repeats": 2.5}, "repeats=2.5"),
        ({"per_topic": 1}, "expected True or False"),
        ({"topic_set": "some"}, "'some' is not one of"),
        ({"measures": ["AP", "NOPE"]}, "NOPE"),
    ],
)
def test_a_bad_keyword_value_is_an_input_error_naming_it(keywords, fragment):
    with pytest.raises(InputError) as info:
        bvtest.evaluate(str(SAMPLE_QRELS), str(SAMPLE_RUNS), **keywords)
    assert fragment in str(info.value)
    assert "--" not in str(info.value)  # the API's words, not flags


def test_lists_in_any_order_and_of_one_element():
    one = bvtest.evaluate(QRELS, {"r": frame()}, measures=["AP"], alphas=[5])
    assert list(one.to_dict()["measures"]["AP"]["systems"]["r"]["zrisk"]) == ["5"]
    both = bvtest.evaluate(QRELS, {"r": frame()}, measures="AP", alphas=[5, 0])
    assert list(both.to_dict()["measures"]["AP"]["systems"]["r"]["zrisk"]) == ["5", "0"]


@pytest.mark.parametrize(
    ("docno", "fragment"),
    [
        (b"a", "not a string"), ("a\x00b", None), ("\ufeffa", None), ("a\tb", "white space"),
        # bytes the newline-joined docno column must not take for its own
        ("a\nb", None), ("a\rb", None), ("a b", None), ("", None), ("a\x1cb", None),
        ("a\x7fb", None),
    ],
)  # fmt: skip
def test_odd_docnos_from_python_get_a_files_rules(docno, fragment):
    """A docno that is bytes, or holds a NUL, a byte-order mark or a tab: the
    dict and the frame of the same rows give the same error or the same numbers."""
    rows = {"qid": ["1", "1"], "docno": [docno, "b"], "score": [2.0, 1.0]}
    as_dict = {"1": {docno: 2.0, "b": 1.0}}
    outcomes = []
    for run in (as_dict, pd.DataFrame(rows)):
        try:
            outcomes.append(json_of(bvtest.evaluate({"1": {"b": 1}}, {"r": run}, measures="AP")))
        except InputError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]
    if fragment is not None:
        assert fragment in outcomes[0]


def test_numpy_and_categorical_columns_are_read_as_their_values():
    rows = {"qid": np.array([1, 1, 2]), "docno": pd.Categorical(["a", "b", "c"]),
            "score": np.array([3, 2, 1], dtype=np.int16)}  # fmt: skip
    report = bvtest.evaluate(QRELS, {"r": pd.DataFrame(rows)}, measures="AP")
    expected = bvtest.evaluate(QRELS, {"r": frame()}, measures="AP")
    assert json_of(report) == json_of(expected)


# --------------------------------------------------------------------------- parameters


def test_a_commands_parameters_are_a_frozen_dataclass_checked_once():
    import dataclasses

    p = bvtest.params("compare", compare_fields=["var", "mean"], bootstrap=200, ci=0.9)
    assert type(p).__name__ == "CompareParams" and dataclasses.is_dataclass(p)
    assert p.compare_fields == ("mean", "var") and p.bootstrap == 200  # the parsed values
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.bootstrap = 5  # type: ignore[misc]
    with pytest.raises(InputError, match=r"invalid bootstrap=1: "):
        bvtest.params("compare", bootstrap=1)
    with pytest.raises(InputError, match="missing gates"):
        bvtest.params("check")
    with pytest.raises(TypeError, match="colour"):
        bvtest.params("eval", colour="red")
    fields = {f.name: f.default for f in dataclasses.fields(bvtest.params("eval"))}
    # besides its keywords, how the report is shown (set by the doors, no keyword)
    rendering = {"fmt": "trec", "digits": 4, "quiet": False}
    assert {k: v for k, v in fields.items() if k not in rendering} == bvtest.keywords("eval")
    assert {k: fields[k] for k in rendering} == rendering


def test_a_command_builds_from_inputs_and_parameters():
    from bvtest_cli.commands import COMMANDS
    from bvtest_cli.commands.eval.params import EvalParams
    from bvtest_cli.io.memory import qrels_input, runs_input
    from bvtest_cli.io.sources import Inputs

    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 2}}
    runs = {"x": {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}},
            "y": [("1", "b", 2.0), ("1", "a", 1.0), ("2", "d", 1.0)]}  # fmt: skip
    inputs = Inputs(qrels=qrels_input(qrels), runs=tuple(runs_input(runs)))
    report = bvtest.Report.of(
        COMMANDS["eval"].build(inputs, EvalParams(measures="AP", alphas=[0], quiet=True))
    )
    assert report.to_dict()["measures"]["AP"]["systems"]["y"]["mean"] == 0.25  # (1/2 + 0) / 2
    with pytest.raises(InputError, match="only with"):
        COMMANDS["eval"].build(inputs, bvtest.params("eval", bootstrap=100))  # no ci


def test_tied_scores_in_a_frame_break_as_in_a_file():
    """Equal scores are ranked by docno, descending, as trec_eval ranks a
    file's: the frame, the dict and the file of the same rows agree."""
    rows = [("1", "a", 1.0), ("1", "b", 1.0), ("1", "c", 1.0), ("2", "d", 0.5), ("2", "e", 0.5)]
    qrels = {"1": {"a": 1, "c": 0}, "2": {"d": 1}}
    as_frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    as_dict = {"1": {"a": 1.0, "b": 1.0, "c": 1.0}, "2": {"d": 0.5, "e": 0.5}}
    doc = json_of(bvtest.evaluate(qrels, {"r": as_frame}, measures="AP"))
    assert doc == json_of(bvtest.evaluate(qrels, {"r": as_dict}, measures="AP"))
    # hand values: topic 1 ranks c, b, a (AP 1/3), topic 2 ranks e, d (AP 1/2)
    mean = bvtest.evaluate(qrels, {"r": as_frame}, measures="AP").measures["AP"].systems["r"].mean
    assert math.isclose(mean, (1 / 3 + 1 / 2) / 2, rel_tol=1e-12)


def test_pairs_from_python_as_a_list_of_tuples():
    report = bvtest.compare(str(SAMPLE_QRELS), str(SAMPLE_RUNS), measures="AP",
                            pair=[("sys001", "sys002"), ("sys001", "sys003")])  # fmt: skip
    assert {(p.a, p.b) for p in report.pairs} == {("sys001", "sys002"), ("sys001", "sys003")}
    with pytest.raises(InputError, match="expected 2 values"):
        bvtest.compare(str(SAMPLE_QRELS), str(SAMPLE_RUNS), pair=[("sys001",)])


def test_the_parameters_modules_examples_run():
    import doctest

    from bvtest_cli.options import params

    result = doctest.testmod(params, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
