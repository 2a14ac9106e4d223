"""Reports → long rows (measure, field, system, alpha, value) and pandas.

The same numbers in the same order as the trec format
(:func:`bvtest_cli.render.text.flatten`), with the alpha of an alpha-indexed field
in a column of its own instead of inside the name (``zrisk@5`` → field
``zrisk``, alpha ``5``), so that a notebook can filter on it. A JSON-only
leaf (the measure as asked, registry ``ASKED``) is a spelling, not a number:
it has no row here either. pandas is
imported only by :func:`to_frame` (an optional dependency).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..report.model import Records, Report, Section, Table, is_leaf
from ..report.registry import Field
from ..report.values import plain
from .text import ALL, in_text

LongRow = tuple[str, str, str, str | None, Any]  # measure, field, system, alpha, value
COLUMNS = ("measure", "field", "system", "alpha", "value")


def long_rows(report: Report) -> Iterator[LongRow]:
    """Every number of every measure block, in the trec format's order."""
    for measure, block in report.measure_blocks():
        yield from _section(measure, "", block)


def _section(measure: str, prefix: str, s: Section) -> Iterator[LongRow]:
    # Leaves first, then tables and nested sections: render._section_rows' order.
    for key, node in s.items:
        if is_leaf(node) and in_text(key):
            yield from _leaf(measure, f"{prefix}{key}", s, key, node)
    for key, node in s.items:
        if isinstance(node, Table):
            yield from _table(measure, prefix, node)
        elif isinstance(node, Section):
            yield from _nested(measure, f"{prefix}{key}", node)


def _nested(measure: str, name: str, s: Section) -> Iterator[LongRow]:
    for key, node in s.items:
        if isinstance(node, Section):
            yield from _nested(measure, f"{name}.{key}", node)
        elif is_leaf(node) and in_text(key):
            yield from _leaf(measure, f"{name}.{key}", s, key, node)


def _leaf(measure: str, name: str, s: Section, key: Any, node: Any) -> Iterator[LongRow]:
    """A leaf, then the ends of its interval (``tradeoff.pearson.lo``) if it has one.
    A leaf that is a word (the topic set's rule) is no number of the frame."""
    if isinstance(node, str):
        return
    yield measure, name, ALL, None, node
    interval = s.intervals.get(str(key))
    if interval is not None:
        yield measure, f"{name}.lo", ALL, None, interval[0]
        yield measure, f"{name}.hi", ALL, None, interval[1]


def _table(measure: str, prefix: str, t: Table) -> Iterator[LongRow]:
    if t.children is not None:  # nested detail, row by row
        for i, row in enumerate(t.rows):
            for f in t.fields:
                yield from _cells(measure, prefix, t, f, [i])
            yield from _section(measure, f"{prefix}{row}.", t.children[i])
        return
    for f in t.fields:
        yield from _cells(measure, prefix, t, f, range(len(t.rows)))


def _cells(
    measure: str, prefix: str, t: Table, f: Field, indices: Sequence[int]
) -> Iterator[LongRow]:
    column = np.asarray(t.values[f.name])
    interval = t.intervals.get(f.name)
    alphas: list[tuple[str | None, int | None]] = (
        list(zip(t.alphas, range(len(t.alphas)), strict=True)) if f.alpha else [(None, None)]
    )
    name = prefix + f.name
    for alpha, j in alphas:
        for i in indices:
            yield measure, name, t.rows[i], alpha, column[i] if j is None else column[i, j]
        if interval is not None:
            for end, e in (("lo", 0), ("hi", 1)):
                for i in indices:
                    cell = interval[i] if j is None else interval[i, j]
                    yield measure, f"{name}.{end}", t.rows[i], alpha, cell[e]


def _number(value: Any) -> Any:
    v = plain(value)
    if v is None:
        return float("nan")
    if isinstance(v, (bool, int)):
        return float(v)
    return v


def import_pandas() -> Any:
    """pandas, or an ImportError that says how to install it."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_frame needs pandas: pip install 'bvtest[pandas]'") from None
    return pandas


def record_tables(report: Report) -> list[str]:
    """The names of the record tables of a report's measure blocks (compare's
    ``pairs`` and ``significance_matrix``, design's ``dstudy``, …), in order."""
    names: list[str] = []
    for _, block in report.measure_blocks():
        for key, node in block.items:
            if isinstance(node, Records) and str(key) not in names:
                names.append(str(key))
    return names


def to_frame(report: Report, table: str | None = None) -> Any:
    """The report as a long pandas DataFrame (see :meth:`Report.to_frame`).

    Records per measure (compare, design, sensitivity) give one row per record
    of one table, with its measure: ``table`` (default the first, e.g.
    compare's ``pairs``) among :func:`record_tables`; each table has its own
    columns, so two are never laid under one header."""
    from ..errors import InputError

    pd = import_pandas()
    records = [v for _, v in report.body.items if isinstance(v, Records)]
    tables = [] if records else record_tables(report)
    if table is not None and table not in tables:
        shown = ", ".join(tables) if tables else "none: this report is one long table"
        raise InputError(f"table={table!r}: the report's record tables are {shown}")
    if records:
        r = records[0]
        rows = [{k: plain(v) for k, v in r.as_json(item).items()} for item in r.items]
        frame = pd.DataFrame(rows, columns=list(rows[0]) if rows else list(r.header) or None)
    elif tables:  # records per measure (compare's pairs): a row each, with its measure
        chosen = table or tables[0]
        nested = [
            (measure, node)
            for measure, block in report.measure_blocks()
            for key, node in block.items
            if isinstance(node, Records) and str(key) == chosen
        ]
        rows = [
            {"measure": m, **{k: plain(v) for k, v in r.as_json(item).items()}}
            for m, r in nested
            for item in r.items
        ]
        columns = list(rows[0]) if rows else ["measure", *nested[0][1].header]
        frame = pd.DataFrame(rows, columns=columns)
    else:
        # alpha as a number (NaN for fields without one), so a notebook can
        # filter with alpha == 5 or alpha > 1; its key as written is in the name
        data = [
            (m, f, s, float("nan") if a is None else float(a), _number(v))
            for m, f, s, a, v in long_rows(report)
        ]
        frame = pd.DataFrame(data, columns=list(COLUMNS))
    frame.attrs["settings"] = report.settings()
    return frame
