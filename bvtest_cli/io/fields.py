"""The vectorised field reader of whitespace-separated TREC files.

numpy finds the field boundaries of a whole file at once, checks field counts,
and converts ranks, grades and plain decimal scores 8 digits at a time (SWAR);
anything it does not accept goes back to the line-by-line rules of
:mod:`bvtest_cli.io.sources`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from .sources import DECIMAL_TEXT

# bytes.split() (C's isspace) splits on these; the fast tokenizer must agree.
_SPLIT_WS = np.zeros(256, dtype=bool)
_SPLIT_WS[[9, 10, 11, 12, 13, 32]] = True

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
class Fields:
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
        :func:`matrix_integers_ok`); fields of up to 8 bytes are checked a word at
        a time (SWAR), the byte matrix only for wider ones."""
        words = self.words(col)
        if words is None:
            return False
        if words.shape[1] > 1:
            return matrix_integers_ok(words.view(np.uint8).reshape(words.shape[0], -1))
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


def find_fields(data: bytes, ncols: int) -> Fields | None:
    """Field boundaries of an ASCII file in which every non-blank line has
    exactly ``ncols`` fields (str.split() semantics), or None when that does not
    hold (the caller then reads line by line)."""
    if not data or not data.isascii() or b"\x00" in data:
        return None
    base, buf = _bytes_of(data)
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
    return _fields(base, buf, starts, ends, line)


def _bytes_of(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """The data as uint8, and the same with at least 8 bytes (a file shorter
    than a word is copied with zeros after it; see Fields.words_at)."""
    base = np.frombuffer(data if len(data) >= 8 else data + bytes(8), dtype=np.uint8)
    return base, base[: len(data)]


def _fields(
    base: np.ndarray, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, line: np.ndarray
) -> Fields:
    words_at: np.ndarray = np.ndarray((base.size - 7,), dtype="<u8", buffer=base, strides=(1,))
    return Fields(buf, starts, ends, line, words_at)


def find_lines(data: bytes) -> Fields | None:
    """What :func:`find_fields` ``(data, 1)`` finds in a column joined by
    newlines (one field a line, no newline after the last), found from the
    newlines alone when no other byte below 33 is there (no white space, no
    control byte, no NUL) and no line is empty; otherwise by find_fields."""
    if not data or not data.isascii():
        return None
    base, buf = _bytes_of(data)
    dtype = np.int32 if buf.size < 2**31 else np.int64
    newlines = np.flatnonzero(buf == _NEWLINE).astype(dtype)
    starts = np.empty(newlines.size + 1, dtype=dtype)
    starts[0], starts[1:] = 0, newlines + 1
    ends = np.empty_like(starts)
    ends[:-1], ends[-1] = newlines, buf.size
    if np.count_nonzero(buf < 33) != newlines.size or (ends <= starts).any():
        return find_fields(data, 1)
    return _fields(base, buf, starts[:, None], ends[:, None], np.arange(starts.size))


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
        found: np.ndarray = np.flatnonzero(edges).astype(dtype)
        found += lo
        parts.append(found)
        solid_before = bool(solid[-1])
    if solid_before:  # the last field ends with the data
        parts.append(np.array([buf.size], dtype=dtype))
    return np.concatenate(parts), n_newlines


def matrix_integers_ok(matrix: np.ndarray) -> bool:
    """Every field of a padded byte matrix is ``[+-]?[0-9]+`` (which int() accepts;
    other spellings int() accepts, such as ``1_0``, go to the line-by-line path)."""
    digit = _DIGIT[matrix]
    lead = matrix[:, 0]
    digit[:, 0] |= ((lead == _PLUS) | (lead == _MINUS)) & digit[:, 1 % matrix.shape[1]]
    return bool((digit | (matrix == 0)).all() and digit[:, 0].all())


def matrix_integer_values(matrix: np.ndarray) -> np.ndarray:
    """int() of every field of a padded byte matrix that passed matrix_integers_ok and
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
        if not all(map(DECIMAL_TEXT.fullmatch, tokens)):
            return None
        values[others] = list(map(float, tokens))
    return values


def nested_by_name(
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


def check_nonempty(data: bytes, label: str) -> None:
    """An empty (or blank) file is an error, whatever the reader expected of it."""
    if not data or data.isspace():  # as `not data.strip()`, without copying the data
        raise InputError("empty file", label)
