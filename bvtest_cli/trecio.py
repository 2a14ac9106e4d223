"""Readers and writers for TREC runs, qrels and long-format score files (SPEC §1).

Every reader raises :class:`~bvtest_cli.errors.InputError` carrying the file
and line of the first malformed line; the CLI turns it into one line on stderr
and exit status 2.

Runs and qrels are parsed with a vectorized fast path: numpy finds the field
boundaries of the whole file at once, checks that every non-blank line has
exactly the expected number of fields, validates the rank / grade column and
converts plain decimal scores without per-token Python work; Python strings
are made only for the docnos (one ``str.split`` of the gathered docno bytes)
and for one qid per block of consecutive lines. Anything the fast path does
not accept is re-read line by line, which either builds the same result (e.g.
extra columns, non-ASCII docnos, ``1e-3`` scores) or names the bad line.

Text rules (trec_eval's, where it has one):

* Fields are separated by ASCII white space only (space, tab, CR, VT, FF):
  C's ``isspace``, not Python's ``str.split``, which also splits on
  U+00A0, U+2028, ``\x1c``... A UTF-8 byte-order mark is dropped, and CR-only
  (old Mac) line ends are read as line ends, so such files read exactly as
  the plain file does.
* Numbers are ASCII: ``[+-]?[0-9]+`` for ranks and grades, decimal or
  exponent notation for scores. Python's ``int()``/``float()`` also accept
  ``1_0``, full-width digits, ``inf``, surrounding Unicode spaces; a TREC
  file does not.
* Docnos are opaque bytes (trec_eval compares them with ``strcmp``): they are
  decoded as Latin-1, a bijection between bytes and code points 0-255, so any
  byte is data, equality and order are byte equality and byte order, and
  :func:`docno_bytes` gives the original bytes back for output. Topic ids
  are UTF-8 text (they are printed), numbers ASCII.
"""

from __future__ import annotations

import gzip
import math
import mmap
import os
import re
import sys
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InputError, printable
from .matrix import ScoreMatrix

Run = dict[str, dict[str, float]]  # topic → docno → score (ir_measures' dict format)
Qrels = dict[str, dict[str, int]]  # topic → docno → grade
Note = Callable[[str], None]

STDIN = "-"
SCORES_HEADER = ("system", "topic", "measure", "value")

# bytes.split() (C's isspace) splits on these; the fast tokenizer must agree.
_SPLIT_WS = np.zeros(256, dtype=bool)
_SPLIT_WS[[9, 10, 11, 12, 13, 32]] = True

# What C's atof reads as a decimal number (no hex, no inf/nan), ASCII only.
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DECIMAL_TEXT = re.compile(_DECIMAL.pattern.decode(), re.ASCII)
_NON_FINITE = re.compile(rb"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UTF8_BOM = b"\xef\xbb\xbf"


def _ignore(_: str) -> None:
    pass


def docno_bytes(docno: str) -> bytes:
    """The bytes a docno had in its file (docnos are decoded as Latin-1); any
    output that writes docnos writes these bytes."""
    return docno.encode("latin-1")


def shown_docno(docno: str) -> str:
    """A docno for a message, quoted: its bytes as UTF-8 where they are UTF-8,
    other bytes and control characters escaped (``'\\xe9t\\xe9'``)."""
    return _shown(docno_bytes(docno))


def _shown(field: bytes) -> str:
    """A raw field quoted for a message (one line, any bytes)."""
    return "'" + printable(field.decode("utf-8", "backslashreplace")) + "'"


# ---------------------------------------------------------------------------
# Files and names


@dataclass(frozen=True)
class Source:
    """One input file: where to read it and the system name it stands for."""

    path: str  # a filesystem path, or "-" for standard input
    name: str  # system name: file name without directory and without ".gz"

    @property
    def label(self) -> str:
        """How the file is named in messages."""
        return "<stdin>" if self.path == STDIN else self.path


def system_name(path: str) -> str:
    """SPEC §1: the file name without directory and without a trailing ``.gz``."""
    if path == STDIN:
        return "stdin"
    name = os.path.basename(os.path.normpath(path))
    return name[:-3] if name.endswith(".gz") else name


def expand_sources(paths: Iterable[str], note: Note = _ignore) -> list[Source]:
    """Run arguments → sources: a directory means its regular, non-hidden files
    sorted by name (anything else in it is skipped with a note); ``-`` means
    standard input. Names must be unique and usable in every output."""
    sources: list[Source] = []
    for path in paths:
        if path == STDIN:
            sources.append(Source(STDIN, system_name(STDIN)))
            continue
        p = Path(path)
        if p.is_dir():
            try:
                entries = sorted(e for e in os.listdir(p) if not e.startswith("."))
            except OSError as exc:
                raise InputError(f"cannot read directory: {exc.strerror}", path) from None
            files = [e for e in entries if (p / e).is_file()]
            skipped = [e for e in entries if not (p / e).is_file()]
            if skipped:
                note(f"{printable(path)}: skipped {_describe_skipped(p, skipped)}")
            if not files:
                raise InputError("directory holds no run files", path)
            sources.extend(Source(str(p / e), system_name(e)) for e in files)
        elif p.exists():
            sources.append(Source(path, system_name(path)))
        elif p.is_symlink():
            raise InputError("dangling symbolic link", path)
        else:
            raise InputError("no such file or directory", path)
    return unique_names(sources, "system name")


def unique_names(sources: list[Source], what: str) -> list[Source]:
    """``sources`` after checking that every name is usable in every output and
    names one input only (``what`` says where the names come from)."""
    seen: dict[str, str] = {}
    for source in sources:
        _check_system_name(source)
        if source.name in seen:
            raise InputError(
                f"{what} {source.name!r} also comes from {seen[source.name]}; "
                "run names must be unique",
                source.label,
            )
        seen[source.name] = source.label
    return sources


def _describe_skipped(directory: Path, names: list[str], shown: int = 5) -> str:
    """``2 entries that are not regular files: sub (directory), x.run (dangling
    symbolic link)``; only the first few are named."""

    def kind(name: str) -> str:
        entry = directory / name
        if entry.is_dir():
            return "directory"
        if entry.is_symlink() and not entry.exists():
            return "dangling symbolic link"
        return "not a regular file"

    listed = ", ".join(f"{printable(n)} ({kind(n)})" for n in names[:shown])
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    entries = "entry" if len(names) == 1 else "entries"
    return f"{len(names)} {entries} that are not regular files: {listed}{more}"


def _has_control(text: str) -> bool:
    """Control characters (C0, DEL, C1) or Unicode line/paragraph separators:
    what would break a line of output or a message."""
    return not text.isprintable() and any(
        unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text
    )


def _check_system_name(source: Source) -> None:
    """A system name must survive every output: trec lines and the scores file
    are tab-separated, one record per line, ``#`` starts a comment line of a
    scores file, fields are stripped of white space, and output is UTF-8."""
    name = source.name
    problem = None
    if any("\udc80" <= c <= "\udcff" for c in name):
        problem = "is not valid UTF-8"
    elif "\t" in name:
        problem = "contains a tab, the field separator of trec lines and scores files"
    elif any(c in name for c in "\n\r\x0b\x0c\x85\u2028\u2029"):
        problem = "contains a line break"
    elif _has_control(name):
        problem = "contains a control character"
    elif name != name.strip(" "):
        problem = "begins or ends with a space, which a scores file would strip"
    elif name.startswith("#"):
        problem = "begins with '#', which a scores file reads as a comment"
    if problem is not None:
        raise InputError(f"file name {problem}; rename the file to use it as a run", source.label)


def read_bytes(path: str) -> bytes:
    """The file's bytes, gunzipped when the name ends in ``.gz``; ``-`` is stdin.
    A UTF-8 byte-order mark is dropped and CR-only line ends become LF, so every
    reader sees the file as its plain LF version."""
    label = "<stdin>" if path == STDIN else path
    try:
        if path == STDIN:
            data = sys.stdin.buffer.read()
        elif os.path.isdir(path):
            raise InputError("is a directory, expected a file", label)
        else:
            with open(path, "rb") as fh:
                data = fh.read()
        if path.endswith(".gz") or data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except OSError as exc:  # includes gzip.BadGzipFile
        msg = exc.strerror or str(exc) or "cannot read file"
        raise InputError(f"cannot read: {msg}", label) from None
    except (EOFError, zlib.error):
        raise InputError("cannot read: truncated or corrupt gzip data", label) from None
    return _plain_text(data, label)


def _plain_text(data: bytes, label: str) -> bytes:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("UTF-16 text (byte-order mark); save the file as UTF-8 or ASCII", label)
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    # CR-only (old Mac) line ends. A CR before LF is white space at the end of
    # a line and stays; the count avoids copying CRLF files.
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _lines(data: bytes, label: str) -> Iterator[tuple[int, list[bytes]]]:
    """(line number, fields) of every non-blank line, fields split on ASCII
    white space as trec_eval does; decoding is left to the field's reader."""
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if b"\x00" in raw:
            raise InputError("binary data (NUL byte); not a text file", label, lineno)
        fields = raw.split()
        if fields:
            yield lineno, fields


def _topic(field: bytes, label: str, lineno: int) -> str:
    """A topic id: UTF-8 text, as it is printed."""
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"topic id {_shown(field)} is not UTF-8 text", label, lineno) from None


def _docno(field: bytes) -> str:
    return field.decode("latin-1")


def _integer(field: bytes) -> int | None:
    """An ASCII ``[+-]?[0-9]+`` field as int, else None."""
    digits = field[1:] if field[:1] in (b"+", b"-") else field
    return int(field) if digits.isdigit() else None  # bytes.isdigit: ASCII digits only


def _parse_score(field: bytes) -> float | None:
    """An ASCII decimal or exponent number as float (None if it is not one);
    may be inf for a number beyond the double range."""
    digits = field[1:] if field[:1] in (b"+", b"-") else field
    if digits.replace(b".", b"", 1).isdigit() or _DECIMAL.fullmatch(field):  # plain decimals first
        return float(field)
    return None


def _score(field: bytes, what: str, label: str, lineno: int) -> float:
    value = _parse_score(field)
    if value is None:
        if _NON_FINITE.fullmatch(field):
            raise InputError(f"{what} {_shown(field)} is not a finite number", label, lineno)
        raise InputError(f"{what} {_shown(field)} is not a number", label, lineno)
    if not math.isfinite(value):
        raise InputError(
            f"{what} {_shown(field)} is not a finite number (beyond the double range)",
            label,
            lineno,
        )
    return value


# Byte classes for the vectorized checks.
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[48:58] = True
_PLUS, _MINUS, _DOT, _NEWLINE = 43, 45, 46, 10
_MAX_FIELD_WIDTH = 64  # wider qid / rank / score fields go to the line-by-line path
_MAX_PLAIN_DIGITS = 15  # a mantissa of <= 15 digits is exact in a float64
_POW10_FLOAT = np.array([10.0**i for i in range(_MAX_PLAIN_DIGITS + 1)])


_SWAR_HIGH = np.uint64(0x8080808080808080)
_SWAR_FROM_0 = np.uint64(0x5050505050505050)
_SWAR_PAST_9 = np.uint64(0x4646464646464646)
_BYTE_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
_TOP_BYTES = ~_BYTE_MASKS[::-1]  # _TOP_BYTES[n]: the n highest bytes of a word
_SWAR_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_SWAR_DOTS = np.uint64(0x2E2E2E2E2E2E2E2E)
_SWAR_ASCII_0 = np.uint64(0x3030303030303030)
_POW10_INT = np.array([10**i for i in range(9)], dtype=np.uint64)


def _swar_digits_high(word: np.ndarray) -> np.ndarray:
    """The high bit of each byte of ASCII words that is a digit: a byte
    (< 0x80) plus 0x50 reaches 0x80 from '0' (0x30) on, plus 0x46 from ':'
    (0x3A) on, and never carries into the next byte."""
    return (word + _SWAR_FROM_0) & ~(word + _SWAR_PAST_9) & _SWAR_HIGH


def _swar_value(word: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The integer written by the ``keep`` bytes (the highest ones) of ASCII
    digit words: the first byte is the lowest (little-endian), so the bytes
    masked off below are leading zeros. Pairs, then quads, then the eight
    digits are combined in place, no lane ever reaching the next."""
    v = (word & keep) - (_SWAR_ASCII_0 & keep)  # 0-9 per byte, 0 outside
    v = (v * np.uint64(10) + (v >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    v = (v * np.uint64(100) + (v >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    return (v * np.uint64(10000) + (v >> np.uint64(32))) & np.uint64(0xFFFFFFFF)


@dataclass(frozen=True)
class _Fields:
    """Field boundaries of a file whose non-blank lines all have ``ncols`` fields."""

    buf: np.ndarray  # the file's bytes (uint8)
    starts: np.ndarray  # (rows, ncols) offset of each field's first byte
    ends: np.ndarray  # (rows, ncols) offset just past each field
    lines: np.ndarray  # (rows,) 0-based line number of each row
    # The 8 bytes at every offset of the data (but the last 7) as a
    # little-endian uint64 (an unaligned, overlapping view): one gather reads
    # 8 bytes of every field at once.
    words_at: np.ndarray

    def words(self, col: int) -> np.ndarray | None:
        """Column ``col`` as (rows, words) little-endian uint64, each field's
        bytes followed by zeros (viewed as bytes: the field, NUL-padded), or
        None when a field is wider than _MAX_FIELD_WIDTH."""
        starts = self.starts[:, col]
        lens = self.ends[:, col] - starts
        width = int(lens.max())
        if width > _MAX_FIELD_WIDTH:
            return None
        n_words = -(-width // 8)
        out = np.empty((starts.size, n_words), dtype=np.uint64)
        limit = self.words_at.size - 1  # the last offset with 8 bytes after it
        for j in range(n_words):
            at = starts + 8 * j
            # Fields are in file order: only the last few can have a word that
            # would pass the end of the data. It is read at the last offset and
            # shifted down (little-endian: the first byte is lowest).
            late = int(np.searchsorted(starts, limit - 8 * j, side="right"))
            if late == at.size:
                word = self.words_at[at]
            else:
                word = self.words_at[np.minimum(at, limit)]
                shift = np.minimum(at[late:] - limit, 7).astype(np.uint64) * np.uint64(8)
                word[late:] >>= shift  # bytes past the data are past the field: masked below
            # Bytes past the field are masked off (no NUL in the data: 0 marks padding).
            valid = np.clip(lens - 8 * j, 0, 8) if j or width > 8 else lens
            np.bitwise_and(word, _BYTE_MASKS[valid], out=out[:, j])
        return out

    def column(self, col: int) -> np.ndarray | None:
        """Column ``col`` as a (rows, width) byte matrix padded with 0 (a view
        of :meth:`words`), or None when a field is wider than _MAX_FIELD_WIDTH."""
        words = self.words(col)
        if words is None:
            return None
        width = int((self.ends[:, col] - self.starts[:, col]).max())
        return words.view(np.uint8).reshape(words.shape[0], -1)[:, :width]

    def floats(self, col: int) -> np.ndarray | None:
        """float() of every field of column ``col``, or None if one is not a
        number (as :func:`_parse_floats`, which it calls for the fields it
        cannot read itself).

        Most scores are ``[+-]?digits[.digits]`` with at most 8 digits on
        either side of the dot: those are read from three words per field
        (the 8 bytes before the end, which hold the dot; the fraction; the
        integer part) and their digits combined 8 at a time (SWAR), no byte
        matrix. The mantissa, below 10**15, is exact in a float64 and divided
        by an exact power of ten: correctly rounded, the same bits as
        _parse_floats and float()."""
        starts, ends = self.starts[:, col], self.ends[:, col]
        values, slow = self._plain_decimals(starts, ends)
        if slow.size:
            matrix = self.column(col)
            rest = None if matrix is None else _parse_floats(matrix[slow])
            if rest is None:
                return None
            values[slow] = rest
        return values

    def _plain_decimals(
        self, starts: np.ndarray, ends: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(values, rows left to the caller): the fields' values where they are
        plain decimals of at most 8 + 8 digits (15 in all); the values of the
        rows left over are meaningless (the caller replaces them)."""
        words_at = self.words_at
        lead = self.buf[starts]
        minus = lead == _MINUS
        first = starts + (minus | (lead == _PLUS))  # the first digit (or dot)
        # Words wholly inside the data: the first fields of a file may have
        # fewer than 9 bytes before their end (those rows are left over).
        low = ends - 9 < 0
        decimals, dot = self._dots(first, ends)
        whole = dot - first  # digits before the dot
        low |= (whole < 0) | (whole > 8) | (dot - 8 < 0)
        low |= (whole + decimals < 1) | (whole + decimals > 15)
        np.clip(whole, 0, 8, out=whole)
        int_word = words_at[np.maximum(dot - 8, 0)]
        int_keep = _TOP_BYTES[whole]
        frac_word = words_at[np.maximum(ends - 8, 0)]
        frac_keep = _TOP_BYTES[decimals]
        high_int, high_frac = int_keep & _SWAR_HIGH, frac_keep & _SWAR_HIGH
        low |= (_swar_digits_high(int_word) & high_int) != high_int
        low |= (_swar_digits_high(frac_word) & high_frac) != high_frac
        mantissa = _swar_value(int_word, int_keep) * _POW10_INT[decimals]
        mantissa += _swar_value(frac_word, frac_keep)
        values = mantissa.astype(np.float64)  # below 10**15: exact
        values /= _POW10_FLOAT[decimals]
        np.negative(values, out=values, where=minus)
        return values, np.flatnonzero(low)

    def _dots(self, first: np.ndarray, ends: np.ndarray) -> tuple[Any, np.ndarray]:
        """(decimals, offset of the dot) of each field from ``first`` to
        ``ends``, for a dot among the 8 bytes before the last (1 to 8
        decimals); no dot there reads as a whole number (decimals 0, the dot
        at the end), which a digit check then refuses if it has a dot.
        ``decimals`` is one number when every field has the first one's (the
        usual run: its scores printed with one format)."""
        head = bytes(self.buf[first[0] : ends[0]])
        same = len(head) - 1 - head.rfind(b".") if b"." in head else 0
        if 1 <= same <= 8:
            dot = ends - (same + 1)
            if (self.buf[np.maximum(dot, 0)] == _DOT).all():
                return same, dot
        window = self.words_at[np.maximum(ends - 9, 0)]
        inside = _TOP_BYTES[np.clip(ends - first - 1, 0, 8)]
        x = window ^ _SWAR_DOTS
        dots = ~(((x & _SWAR_LOW7) + _SWAR_LOW7) | x | _SWAR_LOW7) & inside  # exact: 0x80 per '.'
        lowest = dots & (~dots + np.uint64(1))  # the lowest dot's bit, 2**(8 j + 7)
        _, exponent = np.frexp(lowest.astype(np.float64))
        has_dot = dots != 0
        decimals = np.where(has_dot, 8 - (exponent - 8) // 8, 0)
        return decimals, ends - decimals - has_dot

    def integers_ok(self, col: int) -> bool:
        """Whether every field of column ``col`` is ``[+-]?[0-9]+`` (as
        :func:`_integers_ok`); fields of up to 8 bytes are checked a word at
        a time (SWAR), the byte matrix only for wider ones."""
        words = self.words(col)
        if words is None:
            return False
        if words.shape[1] > 1:
            return _integers_ok(words.view(np.uint8).reshape(words.shape[0], -1))
        word = words[:, 0]
        lens = self.ends[:, col] - self.starts[:, col]
        digit = _swar_digits_high(word)
        wanted = _BYTE_MASKS[lens] & _SWAR_HIGH  # every byte of the field
        lead = word & np.uint64(0xFF)
        signed = ((lead == _PLUS) | (lead == _MINUS)) & (lens > 1)
        wanted[signed] &= ~np.uint64(0x80)  # a sign first, if digits follow
        return bool(((digit & wanted) == wanted).all())

    def strings(self, col: int) -> list[str]:
        """Column ``col`` as Python strings, made by one split of the gathered
        field bytes (fields hold no white space)."""
        matrix = self.column(col)
        if matrix is not None:
            return _matrix_strings(matrix)
        # Wide fields: mark the bytes inside the column's fields instead.
        starts, ends = self.starts[:, col], self.ends[:, col]
        inside = np.zeros(self.buf.size + 1, dtype=np.int8)
        inside[starts] = 1  # a column's field starts and ends never coincide
        inside[ends] = -1
        keep = np.cumsum(inside, dtype=np.int8).view(bool)
        gathered = np.append(self.buf, np.uint8(0))  # room for a separator after the end
        gathered[ends] = _NEWLINE
        keep[ends] = True
        out = gathered[keep].tobytes().decode("ascii").split("\n")
        out.pop()  # after the last separator
        return out

    def segments(self, col: int) -> list[tuple[str, int, int]] | None:
        """(value, first row, end row) of each block of consecutive rows with the
        same value in column ``col``; None if the column is too wide."""
        words = self.words(col)
        if words is None:
            return None
        rows = words.shape[0]
        changed = words[1:, 0] != words[:-1, 0]
        for j in range(1, words.shape[1]):
            changed |= words[1:, j] != words[:-1, j]
        cuts = np.flatnonzero(changed) + 1
        bounds = [0, *cuts.tolist(), rows]
        firsts = self.starts[bounds[:-1], col].tolist()
        lasts = self.ends[bounds[:-1], col].tolist()
        data = self.buf.data
        return [
            (bytes(data[a:b]).decode("ascii"), lo, hi)
            for a, b, lo, hi in zip(firsts, lasts, bounds[:-1], bounds[1:], strict=True)
        ]


def _matrix_strings(matrix: np.ndarray, encoding: str = "ascii") -> list[str]:
    """The rows of a 0-padded byte matrix as strings, by one decode and split
    of all their bytes (rows holding no NUL and no newline)."""
    lined = np.empty((matrix.shape[0], matrix.shape[1] + 1), dtype=np.uint8)
    lined[:, :-1] = matrix
    lined[:, -1] = _NEWLINE
    out = lined.tobytes().replace(b"\0", b"").decode(encoding).split("\n")
    out.pop()  # after the last separator
    return out


_EDGE_BLOCK = 1 << 20  # bytes scanned at a time: temporaries stay in cache, and small


def _fields(data: bytes, ncols: int) -> _Fields | None:
    """Field boundaries of an ASCII file in which every non-blank line has
    exactly ``ncols`` fields (str.split() semantics), or None when that does not
    hold (the caller then reads line by line)."""
    if not data or not data.isascii() or b"\x00" in data:
        return None
    # A file shorter than a word is copied with zeros after it (see words_at).
    base = np.frombuffer(data if len(data) >= 8 else data + bytes(8), dtype=np.uint8)
    buf = base[: len(data)]
    pos, n_newlines = _field_edges(buf)
    if pos.size == 0 or pos.size % (2 * ncols):
        return None
    pos = pos.reshape(-1, ncols, 2)
    starts, ends = pos[:, :, 0], pos[:, :, 1]
    rows = starts.shape[0]
    first, last = int(starts[0, 0]), int(ends[-1, -1])
    # The usual file: each row's last field is followed by its newline, and no
    # other newline lies between the first and the last field, so no row spans
    # two lines and the rows are consecutive lines.
    before = np.count_nonzero(buf[:first] == _NEWLINE)
    after = np.count_nonzero(buf[last:] == _NEWLINE)
    if n_newlines - before - after == rows - 1 and (buf[ends[:-1, -1]] == _NEWLINE).all():
        line = np.arange(rows) + before
    else:
        newlines = np.flatnonzero(buf == _NEWLINE)
        line = np.searchsorted(newlines, starts[:, 0])  # line of each row's first field
        line_end = np.append(newlines, buf.size)[line]  # where that line ends
        # Fields are in file order: a row whose last field starts before its
        # first field's line ends is on one line, and strictly increasing lines
        # mean one row per line.
        if (starts[:, -1] > line_end).any() or (line.size > 1 and np.diff(line).min() <= 0):
            return None
    words_at = np.ndarray((base.size - 7,), dtype="<u8", buffer=base, strides=(1,))
    return _Fields(buf, starts, ends, line, words_at)


def _field_edges(buf: np.ndarray) -> tuple[np.ndarray, int]:
    """Offsets of every field's start and end (start, end, start, end, ...) and
    the number of newlines, block by block: no full-size temporaries (the
    offsets are int32 when they fit, half the memory of flatnonzero's)."""
    dtype = np.int32 if buf.size < 2**31 else np.int64
    parts: list[np.ndarray] = []
    n_newlines = 0
    solid_before = False  # the byte before the block is white space (or none)
    for lo in range(0, buf.size, _EDGE_BLOCK):
        block = buf[lo : lo + _EDGE_BLOCK]
        newlines = np.count_nonzero(block == _NEWLINE)
        n_newlines += newlines
        # With no control byte but newlines (no tab, CR, ...), a comparison will do.
        plain = np.count_nonzero(block < 32) == newlines
        solid = block > 32 if plain else ~_SPLIT_WS[block]
        edges = np.empty(block.size, dtype=bool)  # edges[i]: solid[i-1] != solid[i]
        edges[0] = solid[0] != solid_before
        np.not_equal(solid[1:], solid[:-1], out=edges[1:])
        found = np.flatnonzero(edges).astype(dtype)
        found += lo
        parts.append(found)
        solid_before = bool(solid[-1])
    if solid_before:  # the last field ends with the data
        parts.append(np.array([buf.size], dtype=dtype))
    return np.concatenate(parts), n_newlines


def _integers_ok(matrix: np.ndarray) -> bool:
    """Every field of a padded byte matrix is ``[+-]?[0-9]+`` (which int() accepts;
    other spellings int() accepts, such as ``1_0``, go to the line-by-line path)."""
    digit = _DIGIT[matrix]
    lead = matrix[:, 0]
    digit[:, 0] |= ((lead == _PLUS) | (lead == _MINUS)) & digit[:, 1 % matrix.shape[1]]
    return bool((digit | (matrix == 0)).all() and digit[:, 0].all())


def _integer_values(matrix: np.ndarray) -> np.ndarray:
    """int() of every field of a padded byte matrix that passed _integers_ok and
    has at most 18 characters (so that it fits an int64)."""
    value = np.zeros(matrix.shape[0], dtype=np.int64)
    for column in matrix.T:
        digit = _DIGIT[column]
        value[digit] = value[digit] * 10 + (column[digit] - 48)
    np.negative(value, out=value, where=matrix[:, 0] == _MINUS)
    return value


def _parse_floats(matrix: np.ndarray) -> np.ndarray | None:
    """float() of every field of a padded byte matrix, or None if one is not a
    number. Plain decimals ``[+-]?digits[.digits]`` with at most 15 digits are
    converted vectorized and exactly (an integer mantissa below 2**53 divided
    by an exact power of ten is correctly rounded, as float() is); any other
    spelling goes through float() if it is a decimal or exponent number
    (float() alone would also take ``1_0`` or ``inf``)."""
    rows = matrix.shape[0]
    mantissa = np.zeros(rows)  # integers below 10**15 are exact in a float64
    n_digits = np.zeros(rows, dtype=np.int64)
    decimals = np.zeros(rows, dtype=np.int64)
    n_dots = np.zeros(rows, dtype=np.int64)
    lead = matrix[:, 0]
    odd = ~((lead == _PLUS) | (lead == _MINUS) | (lead == _DOT) | _DIGIT[lead])
    for position, column in enumerate(np.ascontiguousarray(matrix.T)):
        digit = _DIGIT[column]
        dot = column == _DOT
        if position:  # the first character may also be a sign (checked above)
            odd |= (column != 0) & ~digit & ~dot
        # Computed on every row and kept where a digit is (cheaper than three
        # boolean gathers); the same operations on the digit rows, so bit-equal.
        step = mantissa * 10.0
        step += column
        step -= 48.0
        np.copyto(mantissa, step, where=digit)
        n_digits += digit
        decimals += digit & (n_dots > 0)
        n_dots += dot
    plain = ~odd & (n_dots <= 1) & (n_digits >= 1) & (n_digits <= _MAX_PLAIN_DIGITS)
    np.minimum(decimals, _MAX_PLAIN_DIGITS, out=decimals)
    values = mantissa / _POW10_FLOAT[decimals]
    np.negative(values, out=values, where=lead == _MINUS)
    others = np.flatnonzero(~plain)
    if others.size:
        tokens = _matrix_strings(matrix[others])
        if not all(map(_DECIMAL_TEXT.fullmatch, tokens)):
            return None
        values[others] = list(map(float, tokens))
    return values


def _nested(
    names: list[str], topic: np.ndarray, docno: np.ndarray, values: np.ndarray
) -> dict[str, dict]:
    """name → docno → value from rows in order (``topic`` indexes ``names``):
    each block of consecutive rows of one topic is added in one dict update."""
    nested: dict[str, dict] = {t: {} for t in names}
    if not topic.size:
        return nested
    docnos = _docno_strings(docno)
    vals = values.tolist()
    cuts = [0, *(np.flatnonzero(topic[1:] != topic[:-1]) + 1).tolist(), topic.size]
    for t, lo, hi in zip(topic[cuts[:-1]].tolist(), cuts[:-1], cuts[1:], strict=True):
        nested[names[t]].update(zip(docnos[lo:hi], vals[lo:hi], strict=True))
    return nested


def _docno_strings(docno: np.ndarray) -> list[str]:
    """An ``S`` array of docnos as str (Latin-1, byte for byte): one decode and
    split of all their bytes, a fifth of the time of a decode per docno.
    Docnos read from files hold no NUL and no newline; any other array takes
    numpy's decode."""
    size, width = docno.size, docno.dtype.itemsize
    matrix = np.ascontiguousarray(docno).view(np.uint8).reshape(size, width)
    padding = size * width - int(getattr(np, "strings", np.char).str_len(docno).sum())
    if np.count_nonzero(matrix == 0) != padding:  # a NUL inside a docno
        return np.char.decode(docno, "latin-1").tolist()
    out = _matrix_strings(matrix, "latin-1")
    if len(out) != size:  # a newline inside a docno
        return np.char.decode(docno, "latin-1").tolist()
    return out


def _check_nonempty(data: bytes, label: str) -> None:
    if not data or data.isspace():  # as `not data.strip()`, without copying the data
        raise InputError("empty file", label)


# ---------------------------------------------------------------------------
# Runs


def read_run(source: Source) -> Run:
    """Parse a TREC run ``qid Q0 docno rank score tag`` (SPEC §1)."""
    data = read_bytes(source.path)
    _check_nonempty(data, source.label)
    run = _parse_run_fast(data)
    return run if run is not None else _parse_run_slow(data, source.label)


def _parse_run_fast(data: bytes) -> Run | None:
    """The run of a well-formed file by the columnar parser, or None when
    anything needs a closer look (the slow path then decides)."""
    columns = _parse_run_columns(data)
    return None if columns is None else columns.as_dict()


def _parse_run_slow(data: bytes, label: str) -> Run:
    run: Run = {}
    for lineno, fields in _lines(data, label):
        if len(fields) < 6:
            raise InputError(
                f"expected 6 fields 'qid Q0 docno rank score tag', found {len(fields)}",
                label,
                lineno,
            )
        if _integer(fields[3]) is None:  # the value is ignored; a non-integer means a shifted line
            raise InputError(
                f"rank {_shown(fields[3])} is not an integer (shifted or broken line?)",
                label,
                lineno,
            )
        value = _score(fields[4], "score", label, lineno)
        qid, docno = _topic(fields[0], label, lineno), _docno(fields[2])
        ranking = run.setdefault(qid, {})
        if docno in ranking:
            raise InputError(
                f"duplicate docno {shown_docno(docno)} for topic {qid!r}", label, lineno
            )
        ranking[docno] = value
    return run


def run_tag(source: Source) -> str:
    """The run tag (column 6) shared by every line of a run file (``--name tag``).

    A run whose lines carry more than one tag is an error at the first line
    whose tag differs from the first line's; so is a line without a tag.
    Reads the file once more, apart from the scores: the fast path compares
    the tag column as one byte matrix, so it costs little next to evaluation.
    """
    if source.path == STDIN:
        raise InputError("--name tag needs run files; standard input cannot be read twice")
    data = read_bytes(source.path)
    _check_nonempty(data, source.label)
    fields = _fields(data, 6)
    segments = fields.segments(5) if fields is not None else None
    if fields is not None and segments is not None:
        if len(segments) > 1:
            first, (other, lo, _) = segments[0][0], segments[1]
            raise InputError(
                f"a second run tag {other!r} (the first line has {first!r}); "
                "--name tag needs one tag per run",
                source.label,
                int(fields.lines[lo]) + 1,
            )
        return segments[0][0]
    tag = None
    for lineno, row in _lines(data, source.label):
        if len(row) < 6:
            raise InputError(
                f"expected 6 fields 'qid Q0 docno rank score tag', found {len(row)}",
                source.label,
                lineno,
            )
        this = row[5].decode("utf-8", "replace")
        if tag is None:
            tag = this
        elif this != tag:
            raise InputError(
                f"a second run tag {printable(this)!r} (the first line has {printable(tag)!r}); "
                "--name tag needs one tag per run",
                source.label,
                lineno,
            )
    assert tag is not None  # the file is not empty
    return tag


def tagged_sources(sources: Iterable[Source]) -> list[Source]:
    """The sources named by their run tags (``--name tag``), names unique."""
    return unique_names([Source(source.path, run_tag(source)) for source in sources], "run tag")


# ---------------------------------------------------------------------------
# Qrels


class QrelsFile:
    """Parsed qrels and the line of each grade's first use (for error messages).

    Held as a :class:`QrelsTable` (arrays) or as a dict, whichever it was
    built from; the other view is made on first use, so evaluating large
    qrels never builds the dict of dicts."""

    def __init__(
        self,
        label: str,
        qrels: Qrels | None = None,
        first_line_of_grade: dict[int, int] | None = None,
        *,
        table: QrelsTable | None = None,
    ) -> None:
        if qrels is None and table is None:
            raise ValueError("QrelsFile needs qrels or a table")
        self.label = label
        self._qrels = qrels
        self._table = table
        self.first_line_of_grade = first_line_of_grade or {}

    @property
    def qrels(self) -> Qrels:
        """topic → docno → grade, in file order."""
        if self._qrels is None:
            assert self._table is not None
            self._qrels = self._table.as_dict()
        return self._qrels

    @property
    def table(self) -> QrelsTable:
        if self._table is None:
            assert self._qrels is not None
            self._table = QrelsTable.from_dict(self._qrels)
        return self._table

    def topics(self) -> list[str]:
        """Every qrels topic, in file order."""
        return list(self._qrels) if self._qrels is not None else list(self.table.topics)

    def relevant_topics(self, rel_level: int) -> list[str]:
        """Topics with at least one document of grade >= rel_level (SPEC §3)."""
        if self._qrels is not None:
            return [
                t for t, docs in self._qrels.items() if any(g >= rel_level for g in docs.values())
            ]
        table = self.table
        has = table.num_rel(rel_level) > 0
        return [t for t, keep in zip(table.topics, has.tolist(), strict=True) if keep]


def read_qrels(path: str) -> QrelsFile:
    """Parse qrels ``qid iter docno rel`` with integer (graded) rel (SPEC §1)."""
    label = "<stdin>" if path == STDIN else path
    mapped = _mapped(path)
    if path == STDIN:
        data = read_bytes(path)
        fast = _parse_qrels_table(data)
    else:
        # The parser drops the file's bytes (or mapping) once it has split them,
        # before it builds the table (the peak memory of a large qrels file);
        # the line-by-line path then reads the file again.
        box: list = [read_bytes(path) if mapped is None else mapped]
        del mapped
        fast = _parse_qrels_table(box)
        data = b"" if fast is not None else read_bytes(path)
    if fast is not None:
        table, first_line = fast
        if len(table) > _TRIM_ROWS:
            _release_freed_memory()
        return QrelsFile(label, None, first_line, table=table)
    _check_nonempty(data, label)
    qrels: Qrels = {}
    first_line: dict[int, int] = {}
    for lineno, fields in _lines(data, label):
        _add_qrel(qrels, first_line, fields, label, lineno)
    return QrelsFile(label, qrels, first_line)


_TRIM_ROWS = 1 << 20  # qrels lines from which the parse's freed memory is handed back
_MAP_BYTES = 1 << 26  # files from this size (64 MiB) are mapped rather than read


def _mapped(path: str) -> mmap.mmap | None:
    """A large plain file mapped read-only, its pages taken from the page cache
    at once (MAP_POPULATE): no copy of hundreds of MB into fresh memory, which
    the kernel would first have to zero. None for standard input, a small or
    gzipped file, a file that read_bytes would change (byte-order mark, CR
    line ends), or where mapping is not available."""
    if path == STDIN or path.endswith(".gz") or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size < _MAP_BYTES:
                return None
            flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
            mapped = mmap.mmap(fh.fileno(), 0, flags=flags, prot=mmap.PROT_READ)
    except (OSError, ValueError, AttributeError):
        return None  # read_bytes meets the error again and reports it
    head = mapped[:3]
    changed = head == UTF8_BOM or mapped.find(b"\r") >= 0  # as read_bytes would
    if head[:2] in (b"\x1f\x8b", b"\xff\xfe", b"\xfe\xff") or changed:
        mapped.close()
        return None
    return mapped


def _release_freed_memory() -> None:
    """Give the heap pages freed by a large parse back to the OS (glibc's
    malloc_trim; nothing elsewhere). The parse allocates and frees hundreds of
    MB in pieces below glibc's mmap threshold; kept, they would stay resident
    in this process and in every worker forked after it."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_KEEP_FREED = 1 << 25  # 32 MiB: glibc's largest mmap threshold on 64-bit systems


def keep_freed_memory() -> None:
    """Let this process (and the workers it forks) reuse the memory it frees
    (glibc's mallopt; nothing elsewhere). Parsing a run allocates and frees a
    dozen arrays of a few MB; by default glibc maps each afresh and unmaps it
    when freed, or trims the heap above 2x its last such size, so every array
    is paid again in page faults: about a third of the CPU of evaluating a
    TREC-8-size run. Arrays up to 32 MiB now come from the heap, and the heap
    keeps up to 32 MiB of free memory at its top."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, _KEEP_FREED)
        libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_FREED)
    except (OSError, AttributeError):
        pass


def _add_qrel(
    qrels: Qrels, first_line: dict[int, int], fields: list[bytes], label: str, lineno: int
) -> None:
    if len(fields) != 4:
        # trec_eval rejects a qrels line with more fields too (a run is not qrels)
        hint = "; is this a run file?" if len(fields) == 6 else ""
        raise InputError(
            f"expected 4 fields 'qid iter docno rel', found {len(fields)}{hint}", label, lineno
        )
    grade = _integer(fields[3])
    if grade is None:
        raise InputError(f"relevance {_shown(fields[3])} is not an integer", label, lineno)
    if not INT64_MIN <= grade <= INT64_MAX:
        raise InputError(f"relevance {_shown(fields[3])} is beyond 64-bit integers", label, lineno)
    qid, docno = _topic(fields[0], label, lineno), _docno(fields[2])
    docs = qrels.setdefault(qid, {})
    old = docs.get(docno)
    if old is not None and old != grade:
        raise InputError(
            f"topic {qid!r} docno {shown_docno(docno)} judged twice with different grades "
            f"({old}, {grade})",
            label,
            lineno,
        )
    docs[docno] = grade
    first_line.setdefault(grade, lineno)


# ---------------------------------------------------------------------------
# Long-format score files


def read_scores(path: str, note: Note = _ignore) -> list[ScoreMatrix]:
    """Parse ``system topic measure value`` lines into one matrix per measure,
    measures in order of first appearance (SPEC §1). A missing cell scores 0
    (with a note), as a run missing a topic does."""
    label = "<stdin>" if path == STDIN else path
    data = read_bytes(path)
    _check_nonempty(data, label)
    cells: dict[str, dict[tuple[str, str], float]] = {}
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        line = raw.lstrip()  # ASCII white space, as the fields below
        if not line.strip() or line.startswith(b"#"):
            continue
        parts = raw.split(b"\t") if b"\t" in raw else raw.split()
        try:
            fields = tuple(part.strip().decode("utf-8") for part in parts)
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", label, lineno) from None
        if fields == SCORES_HEADER:
            continue
        if len(fields) != 4:
            raise InputError(
                f"expected 4 fields 'system topic measure value', found {len(fields)}",
                label,
                lineno,
            )
        for i, field in enumerate(fields):
            if not field:
                raise InputError(
                    f"empty field {i + 1} ({SCORES_HEADER[i]}) in "
                    "'system<TAB>topic<TAB>measure<TAB>value'",
                    label,
                    lineno,
                )
            if i in (0, 2) and _has_control(field):  # names are printed in notes and tables
                raise InputError(
                    f"field {i + 1} ({SCORES_HEADER[i]}) {field!r} contains a control character",
                    label,
                    lineno,
                )
        system, topic, measure, _ = fields
        score = _score(parts[3].strip(), "value", label, lineno)
        table = cells.setdefault(measure, {})
        if (system, topic) in table:
            raise InputError(
                f"duplicate score for system {system!r} topic {topic!r} measure {measure!r}",
                label,
                lineno,
            )
        table[(system, topic)] = score
    if not cells:
        raise InputError("no scores found", label)
    n_cells = sum(len(table) for table in cells.values())
    if len(cells) > 10 and len(cells) * 2 > n_cells:
        # A real scores file repeats each measure over systems × topics; a qrels
        # or run file read as one has a "measure" (its docno column) per line.
        raise InputError(
            f"{len(cells)} different measures in {n_cells} lines: not a scores file "
            "'system topic measure value' (a qrels or run file?)",
            label,
        )
    return [_matrix_from_cells(measure, table, note) for measure, table in cells.items()]


def _matrix_from_cells(
    measure: str, table: dict[tuple[str, str], float], note: Note
) -> ScoreMatrix:
    systems = list(dict.fromkeys(s for s, _ in table))
    topics = sort_topics({t for _, t in table})
    s_index = {s: i for i, s in enumerate(systems)}
    t_index = {t: j for j, t in enumerate(topics)}
    values = np.zeros((len(systems), len(topics)))
    missing = np.ones_like(values, dtype=bool)
    for (s, t), v in table.items():
        values[s_index[s], t_index[t]] = v
        missing[s_index[s], t_index[t]] = False
    for s, count in zip(systems, missing.sum(axis=1), strict=True):
        if count:
            note(f"{measure}: {s} has no score for {count} topic(s); they score 0")
    return ScoreMatrix(measure, tuple(systems), tuple(topics), values)


def sort_topics(topics: Iterable[str]) -> list[str]:
    """Topics in the order a TREC user expects: numeric ids numerically, and
    ids such as ``106_1`` by their numeric parts, others as strings."""

    def key(topic: str) -> tuple:
        parts = topic.replace("-", "_").split("_")
        if all(p.isdigit() for p in parts):
            return (0, tuple(int(p) for p in parts), topic)
        return (1, (), topic)

    return sorted(topics, key=key)


# ---------------------------------------------------------------------------
# Columnar runs and qrels (issue 16): arrays straight from the parsed columns,
# no dict of dicts. Docnos stay bytes (a numpy ``S`` array, byte order is
# trec_eval's strcmp order); a 64-bit hash of (topic, docno) gives numeric
# sorts and lookups, and every hash match is checked against the bytes, so a
# collision can never change a result.

_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
_HASH_MIX = np.uint64(0xBF58476D1CE4E5B9)


def _docno_words(docnos: np.ndarray, dtype: str = ">u8") -> np.ndarray:
    """(rows, words) uint64 view of an ``S`` array, NUL-padded to a multiple of
    8 bytes. Big-endian (the default), lexicographic order of the rows is byte
    order of the docnos (a shorter docno is a prefix padded with NULs, which
    sort first); ``"<u8"`` is the machine's own order, for hashing."""
    width = docnos.dtype.itemsize
    words = -(-width // 8)
    if width != 8 * words:
        docnos = docnos.astype(f"S{8 * words}")
    return np.ascontiguousarray(docnos).view(dtype).reshape(docnos.size, words)


def docno_digest(docnos: np.ndarray, seed: int = 0) -> np.ndarray:
    """A 64-bit hash of each docno's bytes: the docno's part of a
    :func:`pair_key`, computed once per run and shared by its duplicate check
    and its qrels lookups. Zero words are padding (a docno holds no NUL), so
    the digest does not depend on the array's width."""
    if docnos.size > _HASH_BLOCK:
        # Block by block: the padded docno words and the mixing temporaries of
        # 12 M qrels lines would otherwise cost several times the result.
        out = np.empty(docnos.size, dtype=np.uint64)
        for lo in range(0, docnos.size, _HASH_BLOCK):
            out[lo : lo + _HASH_BLOCK] = docno_digest(docnos[lo : lo + _HASH_BLOCK], seed)
        return out
    h = np.full(docnos.size, (seed * int(_HASH_MUL)) % 2**64, dtype=np.uint64)
    for j, word in enumerate(_docno_words(docnos, "<u8").T):
        mixed = (h ^ word) * _HASH_MIX
        mixed ^= mixed >> np.uint64(31)
        if j == 0:  # a docno's first byte is not NUL: the first word is never padding
            h = mixed
        else:
            np.copyto(h, mixed, where=word != 0)
    return h


def pair_key(topic: np.ndarray, digest: np.ndarray) -> np.ndarray:
    """The 64-bit key of each (topic index, docno digest) pair: one for a
    topic and a docno, different keys for different topics of one docno
    (the mix is a bijection of each argument)."""
    key = topic.astype(np.uint64)  # in place from here: one temporary, not five
    key *= _HASH_MUL
    key ^= digest
    key *= _HASH_MIX
    key ^= key >> np.uint64(31)
    return key


def docno_hash(topic: np.ndarray, docnos: np.ndarray, seed: int = 0) -> np.ndarray:
    """The :func:`pair_key` of (topic index, docno) per row, block by block:
    the temporaries of 12 M qrels lines would otherwise be fresh memory that
    the kernel zeroes, several times the size of the result."""
    if topic.size <= _HASH_BLOCK:
        return pair_key(topic, docno_digest(docnos, seed))
    out = np.empty(topic.size, dtype=np.uint64)
    for lo in range(0, topic.size, _HASH_BLOCK):
        hi = lo + _HASH_BLOCK
        out[lo:hi] = pair_key(topic[lo:hi], docno_digest(docnos[lo:hi], seed))
    return out


def _sort_keys(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(order, key[order]): an argsort of 64-bit hashes (equal keys adjacent,
    in no particular order), as one plain sort of the keys with the row
    number in their low bits, twice as fast as numpy's argsort on millions of
    rows. The few rows whose keys agree on the remaining high bits (about
    n**2 / 2**(65 - bits) pairs) are then ordered by their full keys."""
    n = key.size
    bits = max(1, (n - 1).bit_length())
    if n < 1 << 16:
        order = np.argsort(key, kind="stable")
        return order, key[order]
    low = np.uint64((1 << bits) - 1)
    packed = key & ~low
    # Block by block, here and below: no temporary of n rows (fresh memory).
    for lo in range(0, n, _HASH_BLOCK):
        packed[lo : lo + _HASH_BLOCK] |= np.arange(lo, min(lo + _HASH_BLOCK, n), dtype=np.uint64)
    packed.sort()
    # Neighbours whose order the row numbers decided: the same high bits, so
    # their exclusive or is within the low bits.
    tied = np.empty(n - 1, dtype=bool)
    for lo in range(0, n - 1, _HASH_BLOCK):
        hi = min(lo + _HASH_BLOCK, n - 1)
        np.less_equal(packed[lo + 1 : hi + 1] ^ packed[lo:hi], low, out=tied[lo:hi])
    packed &= low
    order = packed.view(np.int64)  # row numbers < 2**63
    sorted_key = key[order]
    rows = np.flatnonzero(tied)
    if rows.size:
        rows = np.union1d(rows, rows + 1)  # both sides of each tie (runs are adjacent)
        starts = np.ones(rows.size, dtype=bool)  # a run of ties starts after a gap
        starts[1:] = ~tied[rows[1:] - 1]
        run = np.cumsum(starts)
        within = np.lexsort((sorted_key[rows], run))
        order[rows] = order[rows[within]]
        sorted_key[rows] = sorted_key[rows[within]]
    return order, sorted_key


def _same_bytes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a == b`` for two ``S`` arrays, compared 8 bytes at a time when both
    have the same width, a multiple of 8 (numpy compares strings bytewise)."""
    width = a.dtype.itemsize
    contiguous = a.flags.c_contiguous and b.flags.c_contiguous
    if width != b.dtype.itemsize or width % 8 or not contiguous:
        return a == b
    wa, wb = a.view(np.uint64).reshape(-1, width // 8), b.view(np.uint64).reshape(-1, width // 8)
    same = wa[:, 0] == wb[:, 0]
    for j in range(1, width // 8):
        same &= wa[:, j] == wb[:, j]
    return same


_HASH_BLOCK = 1 << 20  # rows hashed at a time (element-wise: the blocks do not interact)


@dataclass(frozen=True)
class RunColumns:
    """A run as columns: one row per line, ``topic[i]`` indexes ``topics``."""

    topics: list[str]  # distinct topic ids, in order of first appearance
    topic: np.ndarray  # (rows,) int32
    docno: np.ndarray  # (rows,) bytes_ (``S`` width), the docnos' bytes
    score: np.ndarray  # (rows,) float64
    digest: np.ndarray | None = None  # (rows,) docno_digest(docno), when the parser made it

    @classmethod
    def from_dict(cls, run: Run) -> RunColumns:
        topics = list(run)
        sizes = [len(d) for d in run.values()]
        docnos = [docno_bytes(d) for docs in run.values() for d in docs]
        return cls(
            topics,
            np.repeat(np.arange(len(topics), dtype=np.int32), sizes),
            np.array(docnos, dtype=bytes) if docnos else np.zeros(0, "S1"),
            np.fromiter(
                (v for docs in run.values() for v in docs.values()), float, count=sum(sizes)
            ),
        )

    def as_dict(self) -> Run:
        """topic → docno → score, topics and docnos in file order."""
        return _nested(self.topics, self.topic, self.docno, self.score)


def read_run_columns(source: Source) -> RunColumns:
    """Parse a TREC run (SPEC §1) into columns; the same checks and errors as
    :func:`read_run`."""
    data = read_bytes(source.path)
    _check_nonempty(data, source.label)
    columns = _parse_run_columns(data)
    if columns is None:
        columns = RunColumns.from_dict(_parse_run_slow(data, source.label))
    return columns


def _parse_run_columns(data: bytes) -> RunColumns | None:
    fields = _fields(data, 6)
    if fields is None:
        return None
    if not fields.integers_ok(3):
        return None
    scores = fields.floats(4)
    if scores is None or not np.isfinite(scores).all():
        return None
    segments = fields.segments(0)
    if segments is None:
        return None
    topics: dict[str, int] = {}
    topic = np.empty(scores.size, dtype=np.int32)
    for name, lo, hi in segments:
        topic[lo:hi] = topics.setdefault(name, len(topics))
    docno = _docno_column(fields)
    digest = docno_digest(docno)
    if _has_duplicates(topic, docno, digest):
        return None  # the line-by-line path names the line
    return RunColumns(list(topics), topic, docno, scores, digest)


def _docno_column(fields: _Fields) -> np.ndarray:
    """The docno column (the third field) as an ``S`` array."""
    words = fields.words(2)
    if words is None:  # wide docnos: through Python strings (ASCII here)
        return np.array(fields.strings(2), dtype=bytes)
    # The words' bytes are the docno's, NUL-padded to a multiple of 8 (which
    # an ``S`` array drops): no copy, and 8-byte words for hashing and compares.
    return words.view(f"S{8 * words.shape[1]}").ravel()


def _parse_qrels_fast(data: bytes) -> tuple[Qrels, dict[int, int]] | None:
    """The qrels dict and first line of each grade by the columnar path, or None
    (kept for the tests that compare it with the line-by-line path)."""
    parsed = _parse_qrels_table(data)
    return None if parsed is None else (parsed[0].as_dict(), parsed[1])


def _has_duplicates(topic: np.ndarray, docno: np.ndarray, digest: np.ndarray) -> bool:
    """Whether a (topic, docno) pair occurs twice (``digest``: the docnos')."""
    keys = pair_key(topic, digest)
    # Equal pairs have equal hashes, so they fall in the same of ~8n buckets
    # (at most 2**21, 16 MB of counts: a large run sorts more, not a larger
    # temporary): only the rows that share a bucket (a tenth of them) are
    # sorted, and rows are looked at only if two hashes are equal (a
    # duplicate, or rarely a collision).
    bits = min(max(1, (keys.size - 1).bit_length() + 3), 21)
    bucket = (keys >> np.uint64(64 - bits)).astype(np.intp)
    crowded = np.flatnonzero(np.bincount(bucket, minlength=1 << bits)[bucket] > 1)
    if crowded.size == 0:
        return False
    keys = keys[crowded]
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return False
    order = np.argsort(keys)
    keys = keys[order]
    same = np.flatnonzero(keys[1:] == keys[:-1])
    # equal hashes: equal pairs, or a collision
    return _any_same_pair(topic, docno, crowded[order[same]], crowded[order[same + 1]])


def _any_same_pair(topic: np.ndarray, docno: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether some rows a[i], b[i] (of equal hashes) hold the same (topic, docno)."""
    return bool(((topic[a] == topic[b]) & _same_bytes(docno[a], docno[b])).any())


def _joined(column: np.ndarray | list[np.ndarray]) -> np.ndarray:
    """A column given as parts, concatenated; the list is emptied (its parts freed)."""
    if isinstance(column, np.ndarray):
        return column
    joined = np.concatenate(column)
    column.clear()
    return joined


class QrelsTable:
    """Qrels as arrays in file order (``topic``, ``docno``, ``grade``) and their
    (topic, docno) hashes sorted (``key``, with ``row``, the file row of each
    key), for vectorized lookups. The columns are not reordered: sorting the
    docnos too would cost a random gather of the widest column and a second
    copy of it at the peak, for one gather (``row``) saved per lookup."""

    def __init__(
        self,
        topics: list[str],
        topic: np.ndarray | list[np.ndarray],
        docno: np.ndarray | list[np.ndarray],
        grade: np.ndarray | list[np.ndarray],
    ) -> None:
        """Columns as arrays, or as lists of parts (a chunked parse): the parts
        are joined one column at a time, the grades once the keys are sorted,
        which bounds the peak memory of a large qrels file."""
        self.topics = topics
        self.topic_index = {t: i for i, t in enumerate(topics)}
        topic, docno = _joined(topic), _joined(docno)
        n = topic.size
        self.has_duplicates = False
        for seed in range(8):  # a new seed if two different pairs share a hash
            key = docno_hash(topic, docno, seed)
            order, key = _sort_keys(key)
            same = np.flatnonzero(key[1:] == key[:-1])
            if same.size == 0:
                break
            if _any_same_pair(topic, docno, order[same], order[same + 1]):
                self.has_duplicates = True  # a pair judged twice: the caller decides
                break
        else:  # pragma: no cover - eight collisions in a row
            raise InputError("cannot index the qrels (hash collisions)")
        self.seed = seed
        self.key = key
        # Directory of the sorted keys by their top bits: bucket b starts at
        # key[first[b]] (an empty one where the next starts), a quarter of a
        # key on average (at most 2**22 buckets, 16 MB, for 12 M qrels: a few
        # keys), so a lookup reads its bucket's first key and rarely another,
        # instead of a binary search or a sort of the looked-up keys.
        self._bits = min(max(1, (n - 1).bit_length()) + 2, 22)
        buckets = 1 << self._bits
        self._first = np.empty(buckets, dtype=np.int32 if n < 2**31 else np.int64)
        for lo in range(0, buckets, _HASH_BLOCK):  # in blocks: no large temporaries
            smallest = np.arange(lo, min(lo + _HASH_BLOCK, buckets), dtype=np.uint64)
            smallest <<= np.uint64(64 - self._bits)
            self._first[lo : lo + smallest.size] = np.searchsorted(key, smallest)
        self.row = order.astype(np.int32 if n < 2**31 else np.int64)
        del order
        self.docno, self.topic = docno, topic
        grade = _joined(grade)
        small = grade.size == 0 or (grade.min() >= -(2**31) and grade.max() < 2**31)
        self.grade = grade.astype(np.int32 if small else np.int64, copy=False)
        self._num_rel: dict[int, np.ndarray] = {}

    @classmethod
    def from_dict(cls, qrels: Qrels) -> QrelsTable:
        sizes = [len(d) for d in qrels.values()]
        docnos = [docno_bytes(d) for docs in qrels.values() for d in docs]
        grades = (g for docs in qrels.values() for g in docs.values())
        return cls(
            list(qrels),
            np.repeat(np.arange(len(qrels), dtype=np.int32), sizes),
            np.array(docnos, dtype=bytes) if docnos else np.zeros(0, "S1"),
            np.fromiter(grades, np.int64, count=sum(sizes)),
        )

    def __len__(self) -> int:
        return self.key.size

    def grades_of(
        self, topic: np.ndarray, docno: np.ndarray, digest: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(judged, grade) of each (qrels topic index, docno) row; grade 0
        where unjudged. ``digest``, if given, is docno_digest(docno)."""
        if digest is None or self.seed:
            digest = docno_digest(docno, self.seed)
        key = pair_key(topic, digest)
        n = self.key.size
        if n == 0:
            return np.zeros(key.size, bool), np.zeros(key.size, np.int64)
        bucket = (key >> np.uint64(64 - self._bits)).astype(np.intp)
        pos = self._first[bucket].astype(np.intp)
        np.minimum(pos, n - 1, out=pos)  # an empty last bucket starts at n
        found = self.key[pos]
        # Walk the few rows whose bucket holds smaller keys before theirs to
        # the first key >= theirs. The keys are sorted, so the walk needs no
        # bucket end: a key of the next bucket is larger, and stops it.
        walked = rows = np.flatnonzero(found < key)
        while rows.size:
            pos[rows] += 1
            rows = rows[pos[rows] < n]
            rows = rows[self.key[pos[rows]] < key[rows]]
        if walked.size:
            np.minimum(pos, n - 1, out=pos)
            found[walked] = self.key[pos[walked]]
        # Equal keys are checked against the docno itself: a collision never
        # counts. (Equal docnos have equal digests, and for one digest the
        # key is a bijection of the topic: equal keys then mean equal topics.)
        judged = found == key
        row = self.row[pos].astype(np.intp)  # an intp index: the fast gather
        judged &= _same_bytes(self.docno[row], docno)
        return judged, np.where(judged, self.grade[row], 0)

    def num_rel(self, rel: int) -> np.ndarray:
        """Per qrels topic, the documents with grade >= rel."""
        if rel not in self._num_rel:
            self._num_rel[rel] = np.bincount(
                self.topic[self.grade >= rel], minlength=len(self.topics)
            )
        return self._num_rel[rel]

    def max_grade_per_topic(self) -> np.ndarray:
        out = np.full(len(self.topics), np.iinfo(np.int64).min)
        np.maximum.at(out, self.topic, self.grade)
        return out

    def as_dict(self) -> Qrels:
        """topic → docno → grade in file order."""
        return _nested(self.topics, self.topic, self.docno, self.grade)


_QRELS_CHUNK = 1 << 24  # bytes parsed at a time: bounds the parser's temporary arrays


def _parse_qrels_table(data: bytes | list[bytes]) -> tuple[QrelsTable, dict[int, int]] | None:
    """Qrels table and first line of each grade for a well-formed file with
    four fields on every line and no (qid, docno) judged twice; None otherwise
    (the line-by-line path then accepts repeated equal judgments or names the
    line). The file is parsed in chunks of whole lines, so the temporary
    arrays stay small whatever the size of the file. Given a one-element list,
    the parser takes the bytes out of it and frees them after the last chunk."""
    if isinstance(data, list):
        data = data.pop()
    topics: dict[str, int] = {}
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    first: dict[int, int] = {}
    start, line_offset = 0, 0
    chunk = b""
    while start < len(data):
        end = data.find(b"\n", min(start + _QRELS_CHUNK, len(data)) - 1)
        end = len(data) if end < 0 else end + 1
        chunk = data[start:end]
        start = end
        if not chunk.strip():
            line_offset += chunk.count(b"\n")
            continue
        fields = _fields(chunk, 4)
        if fields is None:
            return None
        grades_matrix = fields.column(3)
        if grades_matrix is None or grades_matrix.shape[1] > 18:
            return None  # wider than 18 characters might not fit an int64
        if not _integers_ok(grades_matrix):
            return None
        grades = _integer_values(grades_matrix)
        segments = fields.segments(0)
        if segments is None:
            return None
        topic = np.empty(grades.size, dtype=np.int32)
        for name, lo, hi in segments:
            topic[lo:hi] = topics.setdefault(name, len(topics))
        values, first_rows = np.unique(grades, return_index=True)
        for value, row in zip(values.tolist(), first_rows.tolist(), strict=True):
            if value not in first:
                first[value] = int(fields.lines[row]) + 1 + line_offset
        line_offset += chunk.count(b"\n")
        if grades.min() >= -(2**31) and grades.max() < 2**31:
            grades = grades.astype(np.int32)  # the table keeps int32 grades when all fit
        parts.append((topic, _docno_column(fields), grades))
        del fields, grades_matrix
    del data, chunk  # the caller passed a list: these were the last references
    if not parts:
        return None
    # Handed over as lists of parts: the table joins and frees them column by column.
    columns = [list(c) for c in zip(*parts, strict=True)]
    del parts
    if line_offset > _TRIM_ROWS:
        _release_freed_memory()  # the chunks' temporaries, before the table's peak
    table = QrelsTable(list(topics), *columns)
    if table.has_duplicates:
        return None
    first_line = dict(sorted(first.items(), key=lambda item: item[1]))
    return table, first_line
