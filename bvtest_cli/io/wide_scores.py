"""Wide score matrices in CSV: a header of run names, then one row per topic.

The layout of published systems × topics matrices (e.g. the TREC Robust 2004
and Terabyte 2006 matrices of Urbano, Lima & Hanjalic, SIGIR 2019): the first
line names the runs, comma-separated; each further line holds one topic's
scores, a number per run, in the header's order. The topics have no ids: they
are numbered 1..n in file order. One file holds one measure.

:func:`is_wide` tells it from a long scores file (``system topic measure
value``, tab- or space-separated, ``#`` comment lines) by the shape of the
first line that is neither blank nor a comment, never by a comma elsewhere: a
comment or a run name may hold commas.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .sources import has_control, score_field


@dataclass(frozen=True)
class WideScores:
    """``values[i, j]``: run ``systems[i]`` on topic ``topics[j]`` (1..n)."""

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray  # (m, n)


# A field that reads as a number, finite or not (what a scores file's value
# column or a row of the matrix holds, as opposed to a run name).
_NUMBER = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)",
    re.IGNORECASE,
)


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(1-based number, text) of each line that is not blank, without
    splitting the whole of a large file to find the first few."""
    start, lineno = 0, 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        lineno += 1
        raw = data[start:end]
        start = end + 1
        if raw.strip():
            yield lineno, raw


def _content(data: bytes) -> Iterator[tuple[int, bytes, bool]]:
    """(number, text) of each line that is neither blank nor a ``#`` comment,
    and whether a comment came before it."""
    commented = False
    for lineno, raw in _lines(data):
        if raw.lstrip().startswith(b"#"):
            commented = True
            continue
        yield lineno, raw, commented


def _header(data: bytes) -> tuple[int, bytes, bool]:
    """The first of :func:`_content` (0, b"", False if none)."""
    return next(_content(data), (0, b"", False))


def _long_line(line: bytes) -> bool:
    """Whether ``line`` (no tab) reads as a long scores file's line split on
    white space: 4 fields, the last a number."""
    words = line.split()
    return len(words) == 4 and _NUMBER.fullmatch(words[3]) is not None


def _wide_row(line: bytes, cells: int) -> bool:
    """Whether ``line`` reads as a wide matrix's row under a header of
    ``cells`` run names: as many comma-separated numbers."""
    row = line.split(b",")
    return len(row) == cells and all(_NUMBER.fullmatch(c.strip()) for c in row)


def is_wide(data: bytes, label: str) -> bool:
    """Whether ``data`` is a wide CSV matrix rather than a long scores file,
    judged on its first line that is neither blank nor a comment: a line with
    a tab, or without a comma, is long; a comma-separated one is the header of
    run names, unless it also reads as a space-separated long line (a run
    name with a comma), when the next line decides if it has only one of the
    two shapes. A file that could be either is a one-line error naming
    ``label`` and the line, never a guess."""
    content = _content(data)
    lineno, raw, commented = next(content, (0, b"", False))
    line = raw.strip()
    if not lineno or b"\t" in line or b"," not in line:
        return False
    cells = [c.strip() for c in line.split(b",")]
    if b"measure" in (c.lower() for c in cells):
        raise InputError(
            "a comma-separated table with a 'measure' column is neither a scores file "
            "(tab-separated 'system topic measure value') nor a wide CSV matrix "
            "(a header of run names)",
            label,
            lineno,
        )
    if _long_line(line):
        _, after, _ = next(content, (0, b"", False))
        after = after.strip()
        as_long = b"\t" not in after and _long_line(after)
        as_wide = b"\t" not in after and _wide_row(after, len(cells))
        if as_long != as_wide:
            return as_wide
        raise InputError(
            "ambiguous: 4 space-separated fields 'system topic measure value' or a wide "
            f"CSV header of {len(cells)} run names; separate a scores file's fields "
            "with tabs",
            label,
            lineno,
        )
    if commented and all(_NUMBER.fullmatch(c) for c in cells):
        # Either '#' lines are comments and the header names runs by numbers,
        # or the header is a '#' line whose run names start with '#'.
        raise InputError(
            "ambiguous: a wide CSV header of numbers after a '#' line (a comment, or "
            "the header itself?); a wide CSV matrix's first line must be its header",
            label,
            lineno,
        )
    return True


def read_wide(data: bytes, label: str) -> WideScores:
    """Parse a wide CSV matrix; one-line errors name ``label`` and the line:
    a row whose number of cells differs from the header's (ragged), a cell
    that is not a finite number, a run named twice or not at all. ``#`` lines
    before the header are comments, as :func:`is_wide` read them."""
    header_line, header, _ = _header(data)
    if not header_line:
        raise InputError("empty file", label)
    try:
        names = tuple(c.strip().decode("utf-8") for c in header.split(b","))
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", label, header_line) from None
    for k, name in enumerate(names, 1):
        if not name:
            raise InputError(f"header: run name {k} is empty", label, header_line)
        if has_control(name):
            raise InputError(
                f"header: run name {name!r} has a control character", label, header_line
            )
    seen: dict[str, int] = {}
    for k, name in enumerate(names, 1):
        if name in seen:
            raise InputError(
                f"header: run {name!r} is named twice (columns {seen[name]} and {k})",
                label,
                header_line,
            )
        seen[name] = k
    rows: list[list[float]] = []
    lines = data.split(b"\n")
    for lineno in range(header_line + 1, len(lines) + 1):
        raw = lines[lineno - 1]
        if not raw.strip():
            continue
        cells = raw.split(b",")
        if len(cells) != len(names):
            raise InputError(
                f"ragged row: {len(cells)} cells, the header names {len(names)} runs",
                label,
                lineno,
            )
        rows.append(
            [
                score_field(cell.strip(), f"column {k} ({names[k - 1]}):", label, lineno)
                for k, cell in enumerate(cells, 1)
            ]
        )
    if not rows:
        raise InputError("no topic rows after the header", label)
    values = np.asarray(rows, dtype=float).T.copy()
    topics = tuple(str(j) for j in range(1, len(rows) + 1))
    return WideScores(names, topics, values)
