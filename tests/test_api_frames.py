"""Inputs as Python users hold them: qrels and runs as pandas DataFrames in
ir_measures' column names (query_id, doc_id, relevance / score) and in
PyTerrier's (qid, docno, label / score[, rank]), one frame of several runs
with a name or run column, a dict of result frames — each the JSON that the
files give."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

import bvtest

pd = pytest.importorskip("pandas")


def qrels_frame(names: tuple[str, str, str]) -> object:
    rows = [line.split() for line in Path(SAMPLE_QRELS).read_text().splitlines()]
    return pd.DataFrame(
        {names[0]: [r[0] for r in rows], names[1]: [r[2] for r in rows],
         names[2]: [int(r[3]) for r in rows]}
    )  # fmt: skip


def run_frame(path: Path, names: tuple[str, str]) -> object:
    rows = [line.split() for line in path.read_text().splitlines()]
    return pd.DataFrame(
        {names[0]: [r[0] for r in rows], names[1]: [r[2] for r in rows],
         "score": [float(r[4]) for r in rows], "rank": [int(r[3]) for r in rows]}
    )  # fmt: skip


RUN_FILES = sorted(p for p in Path(SAMPLE_RUNS).iterdir() if p.is_file())


@pytest.fixture(scope="module")
def from_files() -> dict:
    doc = bvtest.evaluate(SAMPLE_QRELS, SAMPLE_RUNS, measures=["AP", "nDCG@10"]).to_dict()
    doc.pop("notes")
    return doc


@pytest.mark.parametrize(
    "qrels_names, run_names",
    [(("query_id", "doc_id", "relevance"), ("query_id", "doc_id")),
     (("qid", "docno", "label"), ("qid", "docno"))],
)  # fmt: skip
def test_dict_of_frames_is_the_files(from_files, qrels_names, run_names):
    runs = {p.name: run_frame(p, run_names) for p in RUN_FILES}
    doc = bvtest.evaluate(qrels_frame(qrels_names), runs, measures=["AP", "nDCG@10"]).to_dict()
    doc.pop("notes")
    assert doc == from_files


@pytest.mark.parametrize("column", ["name", "run"])
def test_one_frame_of_every_run_is_the_files(from_files, column):
    frame = pd.concat([run_frame(p, ("qid", "docno")).assign(**{column: p.name})
                       for p in RUN_FILES])  # fmt: skip
    doc = bvtest.evaluate(qrels_frame(("qid", "docno", "label")), frame,
                          measures=["AP", "nDCG@10"]).to_dict()  # fmt: skip
    doc.pop("notes")
    assert doc == from_files


def test_a_frame_without_the_columns_names_both_spellings():
    bare = pd.DataFrame({"q": ["1"], "d": ["a"], "g": [1]})
    run = {"x": run_frame(RUN_FILES[0], ("qid", "docno"))}
    with pytest.raises(bvtest.InputError, match=r"query_id, doc_id, relevance.*qid, docno, label"):
        bvtest.evaluate(bare, run, measures="AP")
    with pytest.raises(bvtest.InputError, match="name or run"):
        bvtest.evaluate(SAMPLE_QRELS, run_frame(RUN_FILES[0], ("qid", "docno")), measures="AP")


def test_a_duplicate_row_of_a_frame_is_the_files_error():
    run = run_frame(RUN_FILES[0], ("qid", "docno"))
    run = pd.concat([run, run.iloc[:1]])
    with pytest.raises(bvtest.InputError, match=r"twice|duplicate|more than once"):
        bvtest.evaluate(SAMPLE_QRELS, {"x": run}, measures="AP")
