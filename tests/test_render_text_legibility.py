"""Printed output reads well: p-values below the printed precision in
exponent notation, Markdown cells that cannot add columns, tables that fit
160 columns."""

from __future__ import annotations

import json
import re

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

Q, R = SAMPLE_QRELS, SAMPLE_RUNS


def test_small_p_values_print_in_exponent_notation():
    doc = json.loads(run_bvtest("eval", "-m", "AP", "-f", "json", Q, R).stdout)
    p = doc["measures"]["AP"]["tradeoff"]["pearson_p"]
    assert 0 < p < 5e-5  # the sample track's tradeoff is that strong
    trec = run_bvtest("eval", "-m", "AP", Q, R).stdout
    line = next(x for x in trec.splitlines() if x.startswith("AP.tradeoff.pearson_p"))
    assert line.split("\t")[2] == f"{p:.1e}"  # by hand: two significant digits
    for fmt in ("table", "tsv", "csv", "markdown", "latex"):
        out = run_bvtest("eval", "-m", "AP", "-f", fmt, Q, R).stdout
        assert f"{p:.1e}" in out and "0.0000" not in re.findall(r"pearson_p\S*\s*\S+", out)[0]
    # a p-value above the printed precision prints as before
    compare = run_bvtest("compare", "-m", "AP", "--pairs", "all", "-f", "json", Q, R).stdout
    rows = json.loads(compare)["measures"]["AP"]["pairs"]
    text = run_bvtest("compare", "-m", "AP", "--pairs", "all", Q, R).stdout.splitlines()[1:]
    for row, line in zip(rows, text, strict=True):
        shown = line.split("\t")[7]
        assert shown == (f"{row['p']:.1e}" if row["p"] < 5e-5 else f"{row['p']:.4f}")


def test_a_pipe_in_a_run_name_stays_in_its_markdown_cell(tmp_path):
    scores = tmp_path / "s.tsv"
    scores.write_text(
        "system\ttopic\tmeasure\tvalue\n"
        + "".join(f"{s}\t{t}\tAP\t{v}\n" for s, t, v in
                  [("a|b", 1, 0.5), ("a|b", 2, 0.2), ("c\\d", 1, 0.3), ("c\\d", 2, 0.1),
                   ("e", 1, 0.9), ("e", 2, 0.4)])
    )  # fmt: skip
    out = run_bvtest("eval", "--scores", scores, "--alpha", "0", "-f", "markdown").stdout
    table = [x for x in out.splitlines() if x.startswith("|")]
    cells = {len(re.split(r"(?<!\\)\|", x)) for x in table}
    assert len(cells) == 1  # every row has as many unescaped separators as the header
    assert any("a\\|b" in x for x in table) and any("c\\\\d" in x for x in table)


@pytest.mark.parametrize(
    "args",
    [
        ("eval",), ("eval", "--baseline", "sys003"), ("eval", "--ci", "0.95"),
        ("instability",), ("tradeoff",), ("compare", "--pairs", "all"),
        ("eval", "--group", "random:4", "--repeats", "5"),
    ],
)  # fmt: skip
def test_default_tables_fit_160_columns(args):
    out = run_bvtest(*args, "-f", "table", Q, R).stdout
    assert out and max(len(line) for line in out.splitlines()) <= 160
