"""Text a colleague reads in a terminal: ``-f table`` fits the width
(``--width N``, else $COLUMNS, else the terminal's, else 80) by cutting a
wide table into blocks of columns that repeat the key column, never breaking
a value; ``-f trec`` lines are trec_eval's (``%-22s\\t%s\\t%s``, read from
trec_eval's own source), so values line up after ``expand``."""

from __future__ import annotations

import os
import re
import subprocess
import tarfile

import pytest
from conftest import REPO, SAMPLE_QRELS, SAMPLE_RUNS, SHARED, bvtest_executable

TREC_EVAL_SOURCE = SHARED / "tools" / "trec_eval-src.tar.gz"
MEASURES = ("AP", "nDCG@10", "ERR@20")  # eval's default measures


def bvtest_env(*args: object, columns: str | None = None, stdout=subprocess.PIPE):
    """Run bvtest with $COLUMNS set to ``columns`` (unset when None)."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS" and not k.startswith("PYTEST")}
    if columns is not None:
        env["COLUMNS"] = columns
    return subprocess.run(
        [bvtest_executable(), *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
        text=True,
        timeout=300,
    )


def table(*extra: object, columns: str | None = None) -> str:
    proc = bvtest_env("eval", "-f", "table", "--quiet", *extra, SAMPLE_QRELS, SAMPLE_RUNS,
                      columns=columns)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def blocks(text: str) -> dict[str, list[list[str]]]:
    """Per measure, the tables of its runs as lists of lines (header first;
    the rule line under the header dropped)."""
    out: dict[str, list[list[str]]] = {}
    measure = ""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^# \S", line):  # a title ("#   ..." continues one)
            measure = line.split()[1]
            out[measure] = []
        elif line.startswith("system ") and i + 1 < len(lines) and lines[i + 1].startswith("---"):
            rows = [line]
            for row in lines[i + 2 :]:
                if not re.match(r"^sys\d{3}\b", row):
                    break
                rows.append(row)
            out[measure].append(rows)
    return out


def cells_by_row(tables: list[list[str]]) -> dict[str, list[str]]:
    """Each row's cells (by whitespace) across the blocks, the key said once;
    the header row is keyed ``system``."""
    out: dict[str, list[str]] = {}
    for t in tables:
        for line in t:
            key, *cells = line.split()
            out.setdefault(key, []).extend(cells)
    return out


def test_columns_80_no_line_over_80():
    text = table(columns="80")
    assert widest(text) <= 80
    # it did have to cut: the same tables are wider than 80 in one piece
    assert widest(table(columns="1000")) > 80


def test_columns_200_one_table_per_measure():
    found = blocks(table(columns="200"))
    assert list(found) == list(MEASURES)
    assert all(len(tables) == 1 for tables in found.values())


def test_blocks_repeat_the_key_and_keep_every_value_whole():
    """Oracle: the same table printed in one piece (a width no table reaches):
    cut into blocks, each row holds the same cells in the same order."""
    whole = blocks(table(columns="1000"))
    cut = blocks(table(columns="60"))
    assert widest(table(columns="60")) <= 60
    for measure in MEASURES:
        assert len(whole[measure]) == 1 and len(cut[measure]) >= 3
        for block in cut[measure]:
            assert block[0].startswith("system ")  # the key column in every block
            assert [line.split()[0] for line in block[1:]] == [f"sys{i:03d}" for i in range(1, 13)]
        assert cells_by_row(cut[measure]) == cells_by_row(whole[measure])


def test_width_option_beats_columns():
    text = table("--width", "70", columns="200")
    assert widest(text) <= 70
    assert widest(table("--width", "200", columns="70")) > 70


def test_pipe_without_columns_is_80_wide():
    text = table(columns=None)
    assert widest(text) <= 80
    assert text == table(columns="80")


@pytest.mark.skipif(os.name != "posix", reason="a pseudo-terminal needs POSIX")
def test_terminal_width_when_stdout_is_a_terminal():
    """No --width, no $COLUMNS, standard output a 120-column terminal."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
    try:
        proc = bvtest_env("eval", "-f", "table", "--quiet", SAMPLE_QRELS, SAMPLE_RUNS,
                          columns=None, stdout=slave)  # fmt: skip
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other end is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    assert proc.returncode == 0, proc.stderr
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    assert 80 < widest(text) <= 120


def test_width_is_an_option_of_every_command_with_format():
    from bvtest_cli.commands import COMMANDS

    with_format = [c for c in COMMANDS.values() if "fmt" in c.options]
    assert len(with_format) >= 10
    assert all("width" in c.options for c in with_format)
    assert not [
        c.name for c in COMMANDS.values() if "width" in c.options and "fmt" not in c.options
    ]
    help_text = bvtest_env("compare", "--help", columns="100").stdout
    assert "--width N" in help_text


def test_width_must_be_positive():
    proc = bvtest_env("eval", "-f", "table", "--width", "0", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--width" in proc.stderr


# --------------------------------------------------------------------------- trec


def trec_eval_line_format() -> str:
    """The format of trec_eval's measure lines, from its source (every
    ``printf`` of a measure line in meas_print_single.c / meas_print_final.c
    starts with the same name field)."""
    if not TREC_EVAL_SOURCE.is_file():
        pytest.skip("../shared/tools/trec_eval-src.tar.gz is not present")
    with tarfile.open(TREC_EVAL_SOURCE) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("meas_print_single.c"))
        source = tar.extractfile(member).read().decode()
    formats = set(re.findall(r'printf\s*\(\s*"(%-\d+s)\\t%s\\t', source))
    assert len(formats) == 1, formats
    name = formats.pop()
    return name + "\t%s\t%s\n"


def test_trec_lines_are_trec_eval_lines():
    line_format = trec_eval_line_format()
    assert line_format == "%-22s\t%s\t%s\n"
    proc = bvtest_env("eval", "--quiet", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines(keepends=True)
    assert len(lines) > 100
    for line in lines:
        name, system, value = line.rstrip("\n").split("\t")
        assert line == line_format % (name.rstrip(), system, value)
    # `expand` lines the values up: short names put every system at column 24
    expanded = subprocess.run(["expand"], input=proc.stdout, capture_output=True, text=True)
    if expanded.returncode == 0:
        for raw, shown in zip(lines, expanded.stdout.splitlines(), strict=True):
            if len(raw.split("\t")[0].rstrip()) <= 22:
                system = raw.split("\t")[1]
                assert shown[24 : 24 + len(system)] == system


def test_a_name_longer_than_22_is_printed_whole():
    proc = bvtest_env("eval", "--quiet", "-m", "nDCG@10", "--baseline", "sys003", SAMPLE_QRELS,
                      SAMPLE_RUNS)  # fmt: skip
    long = [line for line in proc.stdout.splitlines() if len(line.split("\t")[0]) > 22]
    assert long  # nDCG@10.zrisk_target@0 and the like
    assert all(line.split("\t")[0] == line.split("\t")[0].rstrip() for line in long)
    assert any(line.startswith("nDCG@10.zrisk_target@10\t") for line in long)
