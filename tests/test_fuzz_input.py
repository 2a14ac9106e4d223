"""seeded random byte mutations of a real run, qrels and scores file.

Whatever the bytes, ``bvtest`` exits 0 (results on stdout, only notes on
stderr) or 2 (nothing on stdout, exactly one ``bvtest: …`` line on stderr);
never a traceback or another status. The command runs in-process through
``cli.main()`` (the console script's entry point, so the real error path) with
``-j 1``, which keeps 60 mutations within a few seconds.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import random
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

from bvtest_cli.cli import main

TOPICS = (b"401", b"402", b"403")
# Bytes and tokens that stress the readers: separators, line ends, BOM, NUL,
# non-UTF-8, number look-alikes, huge numbers.
NASTY = [
    b"\x00",
    b"\xff",
    b"\xe9",
    b"\r",
    b"\r\n",
    b"\t",
    b" ",
    b"\n",
    b"#",
    b"-",
    b"+",
    b"e",
    b".",
    b"_",
    b"\xef\xbb\xbf",
    b"\xc2\xa0",
    b"\xef\xbc\x91",  # full-width 1
    b"\x1c",
    b"\x0b",
    b"inf",
    b"nan",
    b"1e400",
    b"99999999999999999999",
    b"-9223372036854775809",
    b"7",
    b"0",
    b"x",
]


def _sample(path: Path, per_topic: int) -> bytes:
    kept: dict[bytes, list[bytes]] = {t: [] for t in TOPICS}
    for line in path.read_bytes().splitlines(keepends=True):
        topic = line.split(maxsplit=1)[0]
        if topic in kept and len(kept[topic]) < per_topic:
            kept[topic].append(line)
    return b"".join(line for lines in kept.values() for line in lines)


RUN = _sample(SAMPLE_RUNS / "sys001", 60)
QRELS = _sample(SAMPLE_QRELS, 400)


def mutate(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        lines = bytes(buf).split(b"\n")
        op = rng.randrange(6)
        if op == 0 and buf:  # replace one byte
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        elif op == 1:  # insert a nasty token anywhere
            pos = rng.randrange(len(buf) + 1)
            buf[pos:pos] = rng.choice(NASTY)
        elif op == 2:  # replace one field of one line (numbers live there)
            i = rng.randrange(len(lines))
            fields = lines[i].split(b" ")
            fields[rng.randrange(len(fields))] = rng.choice(NASTY)
            lines[i] = b" ".join(fields)
            buf = bytearray(b"\n".join(lines))
        elif op == 3:  # delete a stretch
            pos = rng.randrange(len(buf) + 1)
            del buf[pos : pos + rng.randint(1, 40)]
        elif op == 4:  # repeat a line elsewhere
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(lines))
            buf = bytearray(b"\n".join(lines))
        else:  # cut the end
            buf = buf[: rng.randrange(len(buf) + 1)]
    return bytes(buf)


def run_main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["bvtest", *args]
    code: int | str | None = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv = argv
    return (code if isinstance(code, int) else 1), out.getvalue(), err.getvalue()


def check(code: int, out: str, err: str) -> None:
    assert "Traceback" not in err
    assert code in (0, 2), (code, err)
    lines = err.splitlines()
    if code == 2:
        assert out == ""
        assert len(lines) == 1 and lines[0].startswith("bvtest: "), err
        assert len(err.strip().splitlines()) == 1  # no \x1c, \u2028, ... inside either
    else:
        assert out != ""
        assert all(line.startswith("bvtest: note: ") for line in lines), err


@pytest.fixture(scope="module")
def good_scores(tmp_path_factory) -> bytes:
    d = tmp_path_factory.mktemp("fuzz")
    (d / "q").write_bytes(QRELS)
    (d / "r").write_bytes(RUN)
    code, out, err = run_main(
        "scores", "-j", "1", "-m", "AP,nDCG@10,ERR@20", str(d / "q"), str(d / "r")
    )
    assert code == 0, err
    return out.encode()


@pytest.mark.parametrize("seed", range(60))
def test_mutated_inputs_exit_0_or_one_line_2(tmp_path, good_scores, seed):
    rng = random.Random(seed)
    qrels, run, scores = tmp_path / "qrels.txt", tmp_path / "r.run", tmp_path / "s.tsv"
    qrels.write_bytes(QRELS)
    run.write_bytes(RUN)
    target = seed % 3
    if target == 0:
        data = mutate(RUN, rng)
        if rng.random() < 0.2:  # through gzip, sometimes the compressed bytes too
            run = tmp_path / "r.run.gz"
            data = gzip.compress(data, mtime=0)
            data = mutate(data, rng) if rng.random() < 0.5 else data
        run.write_bytes(data)
    elif target == 1:
        qrels.write_bytes(mutate(QRELS, rng))
    else:
        scores.write_bytes(mutate(good_scores, rng))
        check(*run_main("eval", "-j", "1", "--scores", str(scores)))
        return
    check(*run_main("scores", "-j", "1", "-m", "AP,nDCG@10,ERR@20", str(qrels), str(run)))
    check(
        *run_main(
            "eval", "-j", "1", "-m", "AP,P@5", "-l", str(rng.randint(-1, 2)), str(qrels), str(run)
        )
    )


def test_mutations_do_reach_the_error_path(tmp_path):
    """The fuzzing is not vacuous: many mutations are errors, some are not."""
    (tmp_path / "q").write_bytes(QRELS)
    codes = []
    for seed in range(30):
        (tmp_path / "r").write_bytes(mutate(RUN, random.Random(seed)))
        args = ("scores", "-j", "1", "-m", "AP", str(tmp_path / "q"), str(tmp_path / "r"))
        codes.append(run_main(*args)[0])
    assert codes.count(2) >= 5 and codes.count(0) >= 5, codes
