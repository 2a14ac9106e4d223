"""How a scores file is told from a wide CSV matrix, and a budget report read
back: the decision on the first line that is neither blank nor a comment
(never on a comma elsewhere), an error where the shape could be either, and
the file named in every refusal. Expected numbers are worked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest

# Runs A (0.5, 0.3, 0.2), "run,b" (0.4, 0.1, 0.3) and C (0.9, 0.6, 0.2) on
# topics 1..3: AP means 1/3, 4/15 and 17/30.
MATRIX = {"A": (0.5, 0.3, 0.2), "run,b": (0.4, 0.1, 0.3), "C": (0.9, 0.6, 0.2)}
LONG = "system\ttopic\tmeasure\tvalue\n" + "".join(
    f"{s}\t{t + 1}\tAP\t{v!r}\n" for s, row in MATRIX.items() for t, v in enumerate(row)
)
COMMENT = "# made by bvtest scores, on the sample runs\n"


def run(*args: object):
    return run_bvtest(*args, subprocess=True)


def ok(*args: object) -> str:
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def anova(x: np.ndarray) -> dict[str, float]:
    """Two-way ANOVA without replication (systems × topics), by its formulas."""
    m, n = x.shape
    rows, cols, grand = x.mean(1), x.mean(0), x.mean()
    return {
        "ms_systems": n * ((rows - grand) ** 2).sum() / (m - 1),
        "ms_topics": m * ((cols - grand) ** 2).sum() / (n - 1),
        "ms_residual": ((x - rows[:, None] - cols[None, :] + grand) ** 2).sum()
        / ((m - 1) * (n - 1)),
    }


def test_eval_a_comment_with_a_comma(tmp_path):
    """A first line '# made by X, on Y' is a comment, not a CSV header."""
    plain = write(tmp_path, "plain.tsv", LONG)
    commented = write(tmp_path, "commented.tsv", COMMENT + LONG)
    expected = ok("eval", "--scores", plain, "-f", "json")
    assert ok("eval", "--scores", commented, "-f", "json") == expected
    assert ok("eval", "--scores", commented) == ok("eval", "--scores", plain)


def test_eval_a_run_name_with_a_comma(tmp_path):
    """No header, first line 'run,b<TAB>1<TAB>AP<TAB>0.4': tab-separated, so long."""
    body = "".join(line + "\n" for line in LONG.splitlines()[1:])
    first_run_b = "".join(sorted(body.splitlines(keepends=True), key=lambda x: "run,b" not in x))
    for text in (body, first_run_b):
        assert text.startswith("A\t") or text.startswith("run,b\t")
        path = write(tmp_path, "s.tsv", text)
        doc = json.loads(ok("eval", "--scores", path, "-f", "json"))
        systems = doc["measures"]["AP"]["systems"]
        assert set(systems) == {"A", "run,b", "C"}
        assert systems["A"]["mean"] == pytest.approx(1 / 3, rel=1e-12)
        assert systems["run,b"]["mean"] == pytest.approx(4 / 15, rel=1e-12)
        assert systems["C"]["mean"] == pytest.approx(17 / 30, rel=1e-12)


def test_design_a_comment_and_a_run_name_with_commas(tmp_path):
    path = write(tmp_path, "s.tsv", COMMENT + "".join(LONG.splitlines(keepends=True)[1:]))
    doc = json.loads(ok("design", "--scores", path, "-f", "json", "--bootstrap", 20))
    gstudy = doc["measures"]["AP"]["gstudy"]
    assert (gstudy["systems"], gstudy["topics"]) == (3, 3)
    # by hand: grand mean 3.5/9; ms_systems = 3·Σ(row − grand)²/2 = 0.07444…
    expected = anova(np.array(list(MATRIX.values())))
    assert expected["ms_systems"] == pytest.approx(0.0744444444, rel=1e-9)
    for key, value in expected.items():
        assert gstudy[key] == pytest.approx(value, rel=1e-10), key


@pytest.mark.parametrize("comment", ["", COMMENT])
def test_a_wide_csv_is_still_wide(tmp_path, comment):
    """A header of run names, a row per topic: the same matrix transposed;
    '#' lines before the header are comments."""
    header = ",".join(name for name in MATRIX if "," not in name)
    rows = "".join(f"{MATRIX['A'][t]},{MATRIX['C'][t]}\n" for t in range(3))
    path = write(tmp_path, "toy.csv", comment + header + "\n" + rows)
    doc = json.loads(ok("eval", "--scores", path, "-f", "json"))
    systems = doc["measures"]["toy"]["systems"]  # named after the file
    assert systems["A"]["mean"] == pytest.approx(1 / 3, rel=1e-12)
    assert systems["C"]["mean"] == pytest.approx(17 / 30, rel=1e-12)
    doc = json.loads(ok("design", "--scores", path, "-m", "AP", "-f", "json", "--bootstrap", 20))
    expected = anova(np.array([MATRIX["A"], MATRIX["C"]]))
    for key, value in expected.items():
        assert doc["measures"]["AP"]["gstudy"][key] == pytest.approx(value, rel=1e-10), key


def test_space_separated_with_commas_told_by_the_next_line(tmp_path):
    """'run,b 1 AP 0.4' reads as a long line and as a header of two runs: the
    next line, in only one of the two shapes, decides."""
    long = "".join(line.replace("\t", " ") + "\n" for line in LONG.splitlines()[1:])
    long = "".join(sorted(long.splitlines(keepends=True), key=lambda x: "run,b" not in x))
    doc = json.loads(ok("eval", "--scores", write(tmp_path, "s.txt", long), "-f", "json"))
    assert doc["measures"]["AP"]["systems"]["run,b"]["mean"] == pytest.approx(4 / 15, rel=1e-12)
    # runs 'BM25 k1 1.2' and 'QL mu 1000' (4 space-separated words, the last a number)
    wide = "BM25 k1,QL mu 1000\n0.5,0.9\n0.3,0.6\n0.2,0.2\n"
    doc = json.loads(ok("eval", "--scores", write(tmp_path, "w.csv", wide), "-f", "json"))
    systems = doc["measures"]["w"]["systems"]
    assert systems["BM25 k1"]["mean"] == pytest.approx(1 / 3, rel=1e-12)
    assert systems["QL mu 1000"]["mean"] == pytest.approx(17 / 30, rel=1e-12)


@pytest.mark.parametrize(
    "text,line,fragments",
    [
        # space-separated 'run,b 1 AP 0.4' or a header of runs 'run' and
        # 'b 1 AP 0.4', and no line after it to tell
        ("run,b 1 AP 0.4\n", 1, ("ambiguous", "4 space-separated fields")),
        # and the next line has both shapes: 4 words and 4 numbers
        ("a,b c,d 1,AP 0.5\n0.1, 0.2, 0.3, 0.4\n", 1, ("ambiguous", "4 run names")),
        # '#' lines are comments and the runs are named 0.1 and 0.2, or the
        # header is '#1,#2' and the rows follow
        ("#1,#2\n0.1,0.2\n0.3,0.4\n", 2, ("ambiguous", "after a '#' line")),
        # eval -f csv's layout is neither
        ("measure,name,system,value\nAP,mean,A,0.5\n", 1, ("'measure' column",)),
    ],
)
def test_a_shape_that_could_be_either_is_an_error(tmp_path, text, line, fragments):
    path = write(tmp_path, "s.txt", text)
    for command in ("eval", "design", "sensitivity"):
        assert_one_line_error(run(command, "--scores", path), f"{path}:{line}:", *fragments)


def test_a_duplicate_budget_cell_names_the_file_and_the_cell(tmp_path):
    def cell(scale: int) -> dict[str, object]:
        return {"budget": 40, "topics_scale": scale, "method": "hedge", "bias": 0.1,
                "sigma": 0.1, "rmse": 0.14, "se_rmse": 0.01}  # fmt: skip

    path = write(
        tmp_path, "budget.json", json.dumps({"n_topics": 50, "cells": [cell(1), cell(2), cell(1)]})
    )
    proc = run("design", "-m", "AP", "--budget-report", path, SAMPLE_QRELS, SAMPLE_RUNS)
    where = f"bvtest: {path}: "
    assert_one_line_error(proc, where, "cell 3 repeats cell 1", "hedge at 40", "topics_scale 1")
