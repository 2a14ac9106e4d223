"""What a reader of ``-f table`` and ``-f latex`` gets on the sample track.

- A table cut into blocks of columns repeats, in every block, every column
  that says which row it is: compare's ``measure a b field`` (a p without its
  pair says nothing), the significance matrix's ``rank run``.
- No line of ``-f table`` output is wider than the width, titles included
  (the significance matrix's key is a sentence: it is cut between words).
- ``-f latex`` outside comments is ASCII: ▲ ▼ · are LaTeX commands that a
  standard preamble compiles (LaTeX skips a comment unread, so any character
  is safe in one).
"""

from __future__ import annotations

import re

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

S = (SAMPLE_QRELS, SAMPLE_RUNS)
PAIR_KEYS = ["measure", "a", "b", "field"]


def output(*args: object, columns: str | None = None) -> str:
    env = {"COLUMNS": columns} if columns is not None else None
    proc = run_bvtest(*args, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def blocks(text: str) -> list[list[str]]:
    """The tables of ``-f table`` output: runs of lines from a header line
    (followed by its ``---`` rule) to the next blank or ``#`` line."""
    lines = text.splitlines()
    out = []
    for i in range(len(lines) - 1):
        if re.fullmatch(r"[- ]*-[- ]*", lines[i + 1]) and lines[i].strip():
            table = [lines[i]]
            for line in lines[i + 2 :]:
                if not line.strip() or line.startswith("#"):
                    break
                table.append(line)
            out.append(table)
    return out


@pytest.mark.parametrize(
    "how", [("--width", "60"), ("--width", "80"), ()], ids=["width60", "width80", "columns80"]
)
def test_every_block_of_compares_pairs_repeats_measure_a_b_field(how):
    text = output("compare", "--pair", "sys001", "sys002", "-m", "AP,nDCG@10", "-f", "table",
                  *how, *S, columns="80")  # fmt: skip
    pairs = [b for b in blocks(text) if b[0].split()[:1] == ["measure"]]
    # the pairs' table is wider than 80 columns: it is cut into several blocks
    assert len(pairs) >= 2 * 2, text
    for table in pairs:
        assert table[0].split()[:4] == PAIR_KEYS, table[0]
        for line in table[1:]:
            measure, a, b, _field = line.split()[:4]
            assert measure in ("AP", "nDCG@10") and (a, b) == ("sys001", "sys002"), line
    # the same rows in the same order in every block of a measure
    for measure in ("AP", "nDCG@10"):
        keys = [[line.split()[:4] for line in t[1:]] for t in pairs if t[1].split()[0] == measure]
        assert len(keys) >= 2 and all(k == keys[0] for k in keys), keys
        fields = [k[3] for k in keys[0]]
        assert fields[0] == "mean" and len(set(fields)) == len(fields)


def test_every_block_of_the_significance_matrix_repeats_rank_and_run():
    text = output("compare", "--pairs", "all", "-m", "AP", "-f", "table", "--width", "60", *S)
    matrix = [b for b in blocks(text) if b[0].split()[:1] == ["rank"]]
    assert len(matrix) >= 2, text
    runs = sorted(p.name for p in SAMPLE_RUNS.iterdir())
    for table in matrix:
        assert table[0].split()[:2] == ["rank", "run"], table[0]
        rows = [line.split()[:2] for line in table[1:]]
        assert [r[0] for r in rows] == [str(k) for k in range(1, len(runs) + 1)]
        assert sorted(r[1] for r in rows) == runs


TABLE_COMMANDS = {
    "eval": ("eval",),
    "compare-all": ("compare", "--pairs", "all"),
    "compare-pair": ("compare", "--pair", "sys001", "sys002"),
    "sensitivity": ("sensitivity", "-m", "AP", "--bootstrap", "100"),
    "design": ("design", "-m", "AP"),
}


@pytest.mark.parametrize("name", list(TABLE_COMMANDS))
def test_no_line_of_table_output_is_wider_than_columns_80(name):
    text = output(*TABLE_COMMANDS[name], "-f", "table", *S, columns="80")
    assert text.strip()
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, wide


def test_the_matrix_key_is_folded_between_words_and_keeps_every_word():
    text = output("compare", "--pairs", "all", "-m", "AP", "-f", "table", "--width", "50", *S)
    assert all(len(line) <= 50 for line in text.splitlines())
    start = next(i for i, line in enumerate(text.splitlines()) if "row − column" in line)
    lines = text.splitlines()[start:]
    title = []
    for line in lines:
        if not line.startswith("#"):
            break
        title.append(line.lstrip("# "))
    key = "the mean, row − column: ▲ significantly higher, ▼ lower, · no significant difference"
    assert " ".join(title).endswith(key)
    assert len(title) >= 2


LATEX_COMMANDS = {
    "eval": ("eval", *S),
    "compare-all": ("compare", "--pairs", "all", *S),
    "compare-pair": ("compare", "--pair", "sys001", "sys002", *S),
    "sensitivity": ("sensitivity", "-m", "AP", "--bootstrap", "100", *S),
    "design": ("design", "-m", "AP", *S),
    "instability": ("instability", *S),
    "tradeoff": ("tradeoff", "--repeats", "20", *S),
    "pertopic": ("pertopic", "-k", "4", "-j", "1", *S),
    "variations": ("variations", "-m", "AP", *S),
    "budget": (
        *("budget", "--budget", "100", "--methods", "depth,xinfAP"),
        *("--bootstrap", "50", "--draws", "5", *S),
    ),
    "rankings": (
        *("rankings", "--reference", f"G={SAMPLE_QRELS}", "--collection", SAMPLE_QRELS),
        *("--bootstrap", "50", SAMPLE_RUNS),
    ),
}


def typeset(latex: str) -> str:
    """What LaTeX reads: each line up to its first unescaped ``%``."""
    return "\n".join(re.split(r"(?<!\\)%", line)[0] for line in latex.splitlines())


@pytest.mark.parametrize("name", list(LATEX_COMMANDS))
def test_latex_output_is_ascii_outside_comments(name):
    text = output(*LATEX_COMMANDS[name], "-f", "latex")
    assert "\\begin{tabular}" in text
    foreign = sorted({ch for ch in typeset(text) if ord(ch) > 127})
    assert not foreign, foreign


def test_latex_significance_matrix_marks_are_latex_math():
    text = output("compare", "--pairs", "all", "-m", "AP", "-f", "latex", *S)
    body = typeset(text)
    for mark in ("$\\uparrow$", "$\\downarrow$", "$\\cdot$"):
        assert mark in body, mark
    # every mark of the table format has its LaTeX twin, cell for cell
    table = output("compare", "--pairs", "all", "-m", "AP", "-f", "table", "--width", "1000", *S)
    for symbol, tex in (("▲", "$\\uparrow$"), ("▼", "$\\downarrow$"), ("·", "$\\cdot$")):
        cells = [line for line in table.splitlines() if not line.startswith("#")]
        in_table = sum(line.count(symbol) for line in cells)
        assert in_table > 0 and body.count(tex) == in_table, symbol
