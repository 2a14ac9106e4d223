"""The vectorized run / qrels readers agree with the line-by-line readers.

The fast paths may decline a file (return None) but must never accept one
differently: whatever they return is exactly what the line-by-line reader
builds (same keys, same order, bit-identical floats), and whatever the
line-by-line reader rejects they decline, so error messages keep naming the
file and line.
"""

from __future__ import annotations

import random
import re
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bvtest_cli.errors import InputError
from bvtest_cli.io.fields import _parse_floats, find_fields
from bvtest_cli.io.sources import split_lines
from bvtest_cli.io.trec import _add_qrel, _parse_qrels_table, _parse_run_fast, _parse_run_slow

WEIRD_NUMBERS = [
    "0",
    "-0",
    "+0",
    "-0.0",
    "1",
    "+1",
    "-7",
    "007",
    "1.",
    ".5",
    "-.5",
    "+.25",
    ".",
    "+",
    "-",
    "1e-3",
    "1E5",
    "-2.5e+01",
    "inf",
    "-inf",
    "nan",
    "Infinity",
    "1_0",
    "1__0",
    "0x10",
    "1.2.3",
    "--1",
    "+-1",
    "1-",
    "12345678901234567",
    "0.1234567890123456",
    "123456789012345",
    "0.000000000000001",
    "999999999999999",
    "3.14159265358979",
    "1e400",
    "e5",
    "1e",
    "abc",
]
SPACES = [" ", "  ", "\t", " \t ", "\r ", "\x0b", "\x0c", "\x1c", "\x1f"]


def _parse_qrels_fast(data: bytes):
    """The qrels dict and first line of each grade by the columnar path, or
    None where it hands over to the line-by-line one."""
    parsed = _parse_qrels_table(data)
    return None if parsed is None else (parsed[0].as_dict(), parsed[1])


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def same_run(a: dict, b: dict) -> bool:
    if list(a) != list(b):
        return False
    for qid in a:
        if list(a[qid].items()) != list(b[qid].items()):
            return False
        if [bits(v) for v in a[qid].values()] != [bits(v) for v in b[qid].values()]:
            return False
    return True


def slow_qrels(data: bytes):
    qrels: dict = {}
    first: dict = {}
    for lineno, fields in split_lines(data, "q"):
        _add_qrel(qrels, first, fields, "q", lineno)
    return qrels, first


def check_run(data: bytes) -> None:
    fast = _parse_run_fast(data)
    try:
        slow = _parse_run_slow(data, "r")
    except InputError:
        assert fast is None, data
        return
    assert fast is None or same_run(fast, slow), data


def check_qrels(data: bytes) -> None:
    fast = _parse_qrels_fast(data)
    try:
        slow = slow_qrels(data)
    except InputError:
        assert fast is None, data
        return
    if fast is not None:
        assert fast[0] == slow[0] and list(fast[0]) == list(slow[0]), data
        assert list(fast[1].items()) == list(slow[1].items()), data


def random_run(rng: random.Random, n_lines: int, weird: float) -> bytes:
    out = []
    for i in range(n_lines):
        qid = rng.choice(["1", "2", "10", "301", "a-b", "q#1"])
        docno = f"d{i}" if rng.random() > weird else rng.choice(["d0", "D#1", "x" * 70])
        rank = str(i + 1) if rng.random() > weird else rng.choice(WEIRD_NUMBERS)
        if rng.random() > weird:
            score = f"{rng.uniform(-50, 50):.{rng.randrange(0, 8)}f}"
        else:
            score = rng.choice(WEIRD_NUMBERS)
        fields = [qid, "Q0", docno, rank, score, "tag"]
        if rng.random() < weird / 3:
            fields = fields[: rng.randrange(1, 6)] if rng.random() < 0.5 else [*fields, "extra"]
        sep = [rng.choice(SPACES) if rng.random() < weird else " " for _ in fields]
        line = "".join(f + s for f, s in zip(fields, sep, strict=True))
        out.append(line.rstrip(" ") if rng.random() < 0.5 else line)
        if rng.random() < weird / 4:
            out.append(rng.choice(["", "   ", "\t"]))
    text = "\n".join(out)
    return (text + "\n" if rng.random() < 0.7 else text).encode()


@pytest.mark.parametrize("seed", range(300))
def test_random_runs_agree(seed):
    rng = random.Random(seed)
    weird = [0.0, 0.01, 0.05, 0.3][seed % 4]
    check_run(random_run(rng, rng.randrange(1, 60), weird))


@pytest.mark.parametrize("seed", range(200))
def test_random_qrels_agree(seed):
    rng = random.Random(seed)
    weird = [0.0, 0.02, 0.2][seed % 3]
    lines = []
    for _ in range(rng.randrange(1, 50)):
        grade = str(rng.randrange(-1, 5)) if rng.random() > weird else rng.choice(WEIRD_NUMBERS)
        fields = [rng.choice(["1", "2", "x"]), "0", f"d{rng.randrange(30)}", grade]
        if rng.random() < weird / 2:
            fields = fields[:3] if rng.random() < 0.5 else [*fields, "y"]
        sep = rng.choice(SPACES) if rng.random() < weird else " "
        lines.append(sep.join(fields))
    check_qrels(("\n".join(lines) + "\n").encode())


def test_six_fields_clean_file_takes_the_fast_path():
    data = b"1 Q0 a 1 2.5 t\n1 Q0 b 2 -1 t\n2 Q0 a 1 .5 t\n"
    assert _parse_run_fast(data) == {"1": {"a": 2.5, "b": -1.0}, "2": {"a": 0.5}}


@pytest.mark.parametrize(
    "line",
    [
        "1 Q0 a 1 2.5 t junk",  # extra column: the slow path ignores it
        "1 Q0 a +1 2.5 t",  # a signed rank (`1_0`, which int() takes, is refused:)
        "1 Q0 a 1 1e-3 t",  # exponent: float() on that token
        "1 Q0 \u00e9 1 2 t",  # non-ASCII docno
        "1\tQ0\ta\t1\t2\tt\r",  # tabs and CR
    ],
)
def test_unusual_but_valid_lines(line):
    check_run((line + "\n").encode())
    assert _parse_run_slow((line + "\n").encode(), "r")


def test_wide_docnos_take_the_fast_path():
    wide = ["d" * 100 + str(i) for i in range(3)]
    data = "".join(f"1 Q0 {d} {i} {i}.5 t\n" for i, d in enumerate(wide)).encode()
    run = _parse_run_fast(data)
    assert run == _parse_run_slow(data, "r") == {"1": {d: i + 0.5 for i, d in enumerate(wide)}}
    data += b"1 Q0 " + wide[1].encode() + b" 9 1 t"  # duplicate, no final newline
    assert _parse_run_fast(data) is None
    check_qrels("".join(f"1 0 {d} 1\n" for d in wide).encode())
    assert _parse_qrels_fast("".join(f"1 0 {d} 1\n" for d in wide).encode()) is not None


def test_long_fields_are_handled():
    long_doc, long_qid = "d" * 300, "q" * 100
    data = f"{long_qid} Q0 {long_doc} 1 1.5 t\n1 Q0 {long_doc}x 1 2 t\n".encode()
    check_run(data)
    assert _parse_run_slow(data, "r")[long_qid] == {long_doc: 1.5}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**15 - 1), st.integers(0, 15)), min_size=1))
def test_plain_decimals_are_exact(pairs):
    tokens = []
    for mantissa, decimals in pairs:
        digits = str(mantissa).rjust(decimals + 1, "0")
        text = digits[: len(digits) - decimals] + ("." + digits[-decimals:] if decimals else "")
        tokens.append(text)
        tokens.append("-" + tokens[-1])
    width = max(map(len, tokens))
    matrix = np.zeros((len(tokens), width), dtype=np.uint8)
    for i, t in enumerate(tokens):
        matrix[i, : len(t)] = np.frombuffer(t.encode(), dtype=np.uint8)
    values = _parse_floats(matrix)
    assert values is not None
    assert [bits(v) for v in values.tolist()] == [bits(float(t)) for t in tokens]


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["r", ".6f", ".2f", "e"]))
def test_formatted_floats_are_exact(x, fmt):
    text = repr(x) if fmt == "r" else format(x, fmt)
    data = f"1 Q0 d 1 {text} t\n".encode()
    run = _parse_run_fast(data)
    if len(text) > 64:  # wider fields are left to the line-by-line reader
        assert run is None
    else:
        assert run is not None and bits(run["1"]["d"]) == bits(float(text))


# Digits, the dot and the bytes around them ('/' 0x2F, ':' 0x3A), signs, an exponent.
SCORE_ALPHABET = "0123456789....+-/:e"


def field_tokens(pattern: str, alphabet: str, max_size: int, max_tokens: int):
    """Lists of fields: well-formed ones (``pattern``) and any text of ``alphabet``."""
    return st.lists(
        st.one_of(
            st.from_regex(pattern, fullmatch=True),
            st.text(alphabet, min_size=1, max_size=max_size),
        ),
        min_size=1,
        max_size=max_tokens,
    )


@settings(max_examples=400, deadline=None)
@given(field_tokens(r"[+-]?[0-9]{0,10}(\.[0-9]{0,10})?", SCORE_ALPHABET, 19, 8), st.booleans())
def test_word_decimals_are_float(tokens, short_lines):
    """Scores read 8 digits at a time equal float() bit for bit, for any
    placement of the dot, sign and digit count (the ones it leaves go to the
    byte-matrix reader), including fields within 9 bytes of the file start;
    a file with a token that is not a finite number is declined."""
    docno = "d" if short_lines else "document-"
    data = "".join(f"1 Q0 {docno}{i} 1 {t} t\n" for i, t in enumerate(tokens)).encode()
    run = _parse_run_fast(data)
    number = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?"
    numbers = all(re.fullmatch(number, t) and abs(float(t)) < float("inf") for t in tokens)
    if not numbers:
        assert run is None
        return
    assert run is not None
    values = [run["1"][f"{docno}{i}"] for i in range(len(tokens))]
    assert [bits(v) for v in values] == [bits(float(t)) for t in tokens]


@pytest.mark.parametrize(
    "scores",
    [
        ["1.00000", "5"],  # the dot 6 bytes before "5"'s end is in the docno "a.b.c"
        ["1.00000", "-5"],
        ["1.5", "2.25", "3.125"],  # no common number of decimals
        ["0.12345678", "12345678.12345678", "-.5", "+7.00000000"],
        ["1.123456789", "2.5"],  # 9 decimals: the byte-matrix reader
    ],
)
def test_word_decimals_with_dots_elsewhere(scores):
    """A dot at the first score's place but outside a field (in the docno) is
    not taken for the field's dot; mixed numbers of decimals are read."""
    data = "".join(f"1 Q0 a.b.c{i} 1 {t} t\n" for i, t in enumerate(scores)).encode()
    run = _parse_run_fast(data)
    assert run is not None
    assert [bits(v) for v in run["1"].values()] == [bits(float(t)) for t in scores]


def test_fields_require_one_row_per_line():
    assert find_fields(b"1 Q0 a 1 2 t 1 Q0 b 2 1 t\n", 6) is None  # 12 fields on one line
    assert find_fields(b"1 Q0 a\n1 2 t\n", 6) is None  # one row split over two lines
    fields = find_fields(b"\n1 Q0 a 1 2 t\n\n\n2 Q0 b 1 1 t", 6)
    assert fields is not None and fields.lines.tolist() == [1, 4]


# Bytes on both sides of the digits ('/' is 0x2F, ':' 0x3A), signs, and the
# highest ASCII bytes, where a carry between bytes of a word would show.
RANK_ALPHABET = "0123456789+-./:a~\x7f"


@settings(max_examples=300, deadline=None)
@given(field_tokens(r"[+-]?[0-9]{1,11}", RANK_ALPHABET, 12, 6))
def test_word_integer_check_is_the_pattern(tokens):
    """The word-at-a-time rank check accepts exactly ``[+-]?[0-9]+`` (the
    pattern, by the re module), for fields of one word and of several."""
    data = "".join(f"1 Q0 d{i} {t} 1 t\n" for i, t in enumerate(tokens)).encode()
    fields = find_fields(data, 6)
    assert fields is not None
    expected = all(re.fullmatch(r"[+-]?[0-9]+", t) for t in tokens)
    assert fields.integers_ok(3) == expected


@pytest.mark.parametrize(
    "data, col, expected",
    [
        (b"1 Q0 d 1 2.5 abcdefghijk", 5, b"abcdefghijk"),  # a word past the end of the data
        (b"1 Q0 d 1 2.5 t\n1 Q0 e 1 2.5 tag", 5, b"tag"),
        (b"a b c d", 3, b"d"),  # shorter than a word
        (b"qid 0 1234567 x\n", 2, b"1234567"),
    ],
)
def test_words_at_the_end_of_the_data(data, col, expected):
    """A field's words hold its bytes then zeros, even where 8 bytes from the
    field's start would pass the end of the data."""
    fields = find_fields(data, data.split(b"\n")[0].count(b" ") + 1)
    assert fields is not None
    words = fields.words(col)
    assert words is not None
    assert words[-1].tobytes() == expected.ljust(words.shape[1] * 8, b"\0")


@pytest.mark.parametrize("n", [1000, 70_000, 1 << 17, (1 << 20) + 3])  # the last: two blocks
def test_sort_keys_is_an_argsort(n):
    """sort_keys (a sort of keys packed with row numbers, then ties on the
    high bits ordered by full key) orders the keys as numpy's sort does; a
    third of the keys share their high 14 bits and some repeat exactly."""
    from bvtest_cli.io.hashing import sort_keys

    rng = np.random.default_rng(n)
    keys = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * np.uint64(2)
    keys[: n // 3] = (keys[: n // 3] >> np.uint64(50) << np.uint64(50)) | rng.integers(
        0, 1000, n // 3
    ).astype(np.uint64)
    keys[-10:] = keys[:10]
    order, ordered = sort_keys(keys)
    assert np.array_equal(ordered, np.sort(keys))
    assert np.array_equal(keys[order], ordered)
    assert np.array_equal(np.sort(order), np.arange(n))


@pytest.mark.parametrize(
    "docnos",
    [
        [b"d1", b"LA010189-0001", b"x" * 24, b"\xe9t\xe9", b"#"],
        [b"a\x00b", b"c"],  # a NUL inside (only from a dict, never from a file)
        [b"a\nb", b"c"],  # a newline inside (likewise)
        [b"a\x00\nb", b"\n", b"z"],
    ],
)
def test_docno_strings_are_numpy_decode(docnos):
    """The one-split decode of a docno column equals numpy's per-docno decode."""
    from bvtest_cli.io.fields import _docno_strings

    array = np.array(docnos, dtype=bytes)
    assert _docno_strings(array) == np.char.decode(array, "latin-1").tolist()
    assert _docno_strings(array) == [d.decode("latin-1") for d in docnos]
