"""io/memory: a frame's runs and topics found as blocks of equal adjacent
values, whether the equal values are one object or several."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

import bvtest
from bvtest_cli.io.memory import _blocks

pd = pytest.importorskip("pandas")


def fresh(text: str) -> str:
    """An equal string that is another object (never the interned one)."""
    copy = "".join(["\0", text])[1:]
    assert copy == text and (copy is not text or len(text) < 2)
    return copy


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["a", "a", "b", "b", "c"], (["a", "b", "c"], [0, 2, 4, 5])),
        # equal, but other objects: still one block
        ([fresh("run1"), fresh("run1"), fresh("run2")], (["run1", "run2"], [0, 2, 3])),
        (["a", "b", "a"], None),  # a's rows apart
        ([7, 7, 8], ([7, 8], [0, 2, 3])),
        (["x"], (["x"], [0, 1])),
        ([], None),
    ],
)
def test_blocks(values, expected):
    found = _blocks(np.array(values, dtype=object))
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert found[0] == expected[0] and found[1].tolist() == expected[1]


def test_blocks_of_a_strided_view_and_of_numbers():
    column = np.array(["a", "z", "a", "z", "b", "z"], dtype=object)
    found = _blocks(column[::2])  # not contiguous: compared by value alone
    assert found is not None and found[0] == ["a", "b"] and found[1].tolist() == [0, 2, 3]
    found = _blocks(np.array([1.0, 1.0, 2.0]))
    assert found is not None and found[0] == [1.0, 2.0]


def test_distinct_nan_objects_are_distinct_runs_and_one_nan_object_one_block():
    nan = float("nan")
    found = _blocks(np.array([float("nan"), float("nan")], dtype=object))
    assert found is not None and found[1].tolist() == [0, 1, 2]  # nan != nan
    found = _blocks(np.array([nan, nan, "x"], dtype=object))
    assert found is not None and found[1].tolist() == [0, 2, 3]
    for names in ([nan, nan], [float("nan"), float("nan")]):  # nan names no run either way
        with pytest.raises(bvtest.InputError, match="run name"):
            bvtest.evaluate(str(SAMPLE_QRELS), pd.DataFrame(
                {"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 0.5], "name": names}
            ), measures="AP")  # fmt: skip


def run_frame(shared: bool) -> object:
    """The sample runs as one frame whose every topic and name cell is one
    object per value (``shared``, as a parser makes them) or an object of
    its own (as rows built one by one are)."""
    rows = []
    for path in sorted(SAMPLE_RUNS.iterdir()):
        for line in path.read_text().splitlines():
            qid, _, docno, rank, score, _ = line.split()
            rows.append((qid, docno, float(score), int(rank), path.name))
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score", "rank", "name"])
    one: dict[str, str] = {}  # value -> the one object that holds it
    for column in ("qid", "name"):
        values = frame[column].to_numpy(dtype=object)
        frame[column] = pd.Series(
            [one.setdefault(v, v) if shared else fresh(v) for v in values], dtype=object
        )
    return frame


def json_of(report) -> str:
    return json.dumps(report.to_dict(), sort_keys=True)


@pytest.mark.parametrize("shared", [True, False])
def test_a_frames_json_is_the_files_whichever_objects_hold_its_values(shared):
    files = bvtest.evaluate(str(SAMPLE_QRELS), str(SAMPLE_RUNS), measures=["AP", "nDCG@10"])
    frame = bvtest.evaluate(str(SAMPLE_QRELS), run_frame(shared), measures=["AP", "nDCG@10"])
    assert json_of(frame) == json_of(files)
