"""Wide score matrices in CSV: a header of run names, then one row per topic.

The layout of published systems × topics matrices (e.g. the TREC Robust 2004
and Terabyte 2006 matrices of Urbano, Lima & Hanjalic, SIGIR 2019): the first
line names the runs, comma-separated; each further line holds one topic's
scores, a number per run, in the header's order. The topics have no ids: they
are numbered 1..n in file order. One file holds one measure.

A long scores file (``system topic measure value``, tab- or space-separated)
never has a comma-separated header without a ``measure`` column, which is
how :func:`is_wide` tells the two apart.
"""

from __future__ import annotations

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


def _first_line(data: bytes) -> tuple[int, bytes]:
    """(1-based number, text) of the first line that is not blank."""
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if raw.strip():
            return lineno, raw
    return 0, b""


def is_wide(data: bytes) -> bool:
    """Whether ``data`` starts with a header of the wide layout: a line with
    commas, none of whose cells is ``measure`` (the long layout's csv header)."""
    _, line = _first_line(data)
    if b"," not in line:
        return False
    cells = [c.strip().lower() for c in line.split(b",")]
    return b"measure" not in cells


def read_wide(data: bytes, label: str) -> WideScores:
    """Parse a wide CSV matrix; one-line errors name ``label`` and the line:
    a row whose number of cells differs from the header's (ragged), a cell
    that is not a finite number, a run named twice or not at all."""
    header_line, header = _first_line(data)
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
