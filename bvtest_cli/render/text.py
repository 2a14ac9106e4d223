"""Reports → text: trec (default), table, tsv, csv, json (docs/formats.md).

One renderer for every command. The layout comes from the report's types
(:mod:`bvtest_cli.report.model`) and the field registry: a :class:`Table` prints a
line per (field, row), alpha-indexed fields as ``field@A`` (the spelling of
the table headers and of ``check``'s gates), intervals as ``field.lo`` /
``field.hi`` (``field.lo@A``, as a gate names it); a :class:`Section` adds its
key to the name, and a Section keyed by an alpha-indexed field holds that
field's value per alpha (``field@A``); :class:`Records` print one line each (inside a
measure block, as rows like any other). All text formats come from one
flattening into (measure, name, system, value) rows, so they carry the same
numbers in the same stable order. In the table format a Section of Sections
of numbers is a grid (a row per child), and a Section of such grids is a set
of named matrices, one table each (``rankings``' Table 3 panels).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np

from ..report import registry
from ..report.model import Records, Report, Section, Table, Value, is_leaf
from ..report.registry import Field
from ..report.values import fmt, plain

ALL = "all"  # the system column of results that belong to no single system

Row = tuple[str, str, str, Any]  # measure, name, system, value


# --------------------------------------------------------------------------- flattening


def alpha_name(name: str, alpha: str) -> str:
    """An alpha-indexed field at one alpha, ``zrisk@5`` (an interval's end
    ``zrisk.lo@5``): one spelling in every format (trec, tsv, csv lines,
    table headers, ``check``'s gates), so a name copied from one output finds
    the same number in another, and is a gate."""
    return f"{name}@{alpha}"


def in_text(key: Any) -> bool:
    """Whether a leaf has a line (or a title item) in the text formats: not a
    JSON-only spelling (registry ``ASKED``)."""
    return not (isinstance(key, Field) and key.json_only)


def _table_rows(measure: str, prefix: str, t: Table, digits: int) -> Iterator[Row]:
    if t.children is not None:  # nested detail: row by row
        for i, row in enumerate(t.rows):
            for f in t.fields:
                yield from _cells(measure, prefix, t, f, [i])
            yield from _section_rows(measure, f"{prefix}{row}.", t.children[i], digits)
        return
    for f in t.fields:
        yield from _cells(measure, prefix, t, f, range(len(t.rows)))


def _cells(measure: str, prefix: str, t: Table, f: Field, indices: Sequence[int]) -> Iterator[Row]:
    column = np.asarray(t.values[f.name])
    interval = t.intervals.get(f.name)
    alphas: list[tuple[str | None, int | None]] = (
        list(zip(t.alphas, range(len(t.alphas)), strict=True)) if f.alpha else [(None, None)]
    )

    def named(name: str, alpha: str | None) -> str:
        # an interval's end before the alpha (zrisk.lo@5), as a gate names it
        return prefix + (name if alpha is None else alpha_name(name, alpha))

    for alpha, j in alphas:
        for i in indices:
            yield measure, named(f.name, alpha), t.rows[i], column[i] if j is None else column[i, j]
        if interval is not None:
            for end, e in (("lo", 0), ("hi", 1)):
                for i in indices:
                    cell = interval[i] if j is None else interval[i, j]
                    yield measure, named(f"{f.name}.{end}", alpha), t.rows[i], cell[e]


def _leaf_rows(measure: str, name: str, s: Section, key: Any, node: Any) -> Iterator[Row]:
    """A leaf's row, then its interval's ``.lo`` / ``.hi`` rows if it has one."""
    yield measure, name, ALL, node
    interval = s.intervals.get(str(key))
    if interval is not None:
        yield measure, f"{name}.lo", ALL, interval[0]
        yield measure, f"{name}.hi", ALL, interval[1]


def _section_rows(measure: str, prefix: str, s: Section, digits: int) -> Iterator[Row]:
    """Leaves first, then tables, nested sections and records in order."""
    for key, node in s.items:
        if is_leaf(node) and in_text(key):
            yield from _leaf_rows(measure, f"{prefix}{key}", s, key, node)
    for key, node in s.items:
        if isinstance(node, Table):
            yield from _table_rows(measure, prefix, node, digits)
        elif isinstance(node, Section):
            yield from _nested(measure, f"{prefix}{key}", node, by_alpha(key))
        elif isinstance(node, Records):
            # inside a measure block a record is one row: as_text gives (name, system, value)
            for item in node.items:
                name, system, value = node.as_text(item, digits)
                yield measure, f"{prefix}{name}", system, value


def by_alpha(key: Field | str) -> bool:
    """A Section keyed by an alpha-indexed field maps each alpha to that field's value."""
    return isinstance(key, Field) and key.alpha


def _nested(measure: str, name: str, s: Section, alpha: bool = False) -> Iterator[Row]:
    for key, node in s.items:
        if isinstance(node, Section):
            yield from _nested(measure, f"{name}.{key}", node)
        elif is_leaf(node) and in_text(key):
            if alpha:
                yield measure, alpha_name(name, str(key)), ALL, node
            else:
                yield from _leaf_rows(measure, f"{name}.{key}", s, key, node)


def flatten(report: Report, digits: int = 4) -> Iterator[Row]:
    """(measure, name, system, value) rows of every measure block, in order;
    ``digits`` formats the values of records (already text)."""
    for measure, block in report.measure_blocks():
        yield from _section_rows(measure, "", block, digits)


# --------------------------------------------------------------------------- json


def to_json(node: Any) -> Any:
    """The JSON value of a report node (NaN → null)."""
    if isinstance(node, Section):
        out_section: dict[str, Any] = {}
        for k, v in node.items:
            out_section[str(k)] = to_json(v)
            if str(k) in node.intervals:  # a sibling, so the key keeps its meaning
                out_section[f"{k}_ci"] = _lohi(node.intervals[str(k)])
        return out_section
    if isinstance(node, Records):
        return [{k: plain(v) for k, v in node.as_json(item).items()} for item in node.items]
    if isinstance(node, Table):
        out: dict[str, Any] = {}
        for i, row in enumerate(node.rows):
            cells: dict[str, Any] = {}
            for f in node.fields:
                cell = np.asarray(node.values[f.name])[i]
                cells[f.name] = (
                    {a: plain(cell[j]) for j, a in enumerate(node.alphas)}
                    if f.alpha
                    else plain(cell)
                )
                if f.name in node.intervals:
                    iv = np.asarray(node.intervals[f.name])[i]
                    cells[f"{f.name}_ci"] = (
                        {a: _lohi(iv[j]) for j, a in enumerate(node.alphas)}
                        if f.alpha
                        else _lohi(iv)
                    )
            if node.children is not None:
                cells.update(to_json(node.children[i]))
            out[row] = cells
        return out
    if isinstance(node, (tuple, list)):  # a list setting (variations' alphas), a matrix
        return [to_json(v) for v in node]
    return plain(node)


def document(report: Report) -> dict[str, Any]:
    """The JSON document of a report: its body, then ``notes``, the notes the
    command line prints on stderr (after ``bvtest: note:``), in that order."""
    out = to_json(report.body)
    out["notes"] = list(report.notes)
    return out


def _lohi(pair: Any) -> dict[str, Value]:
    return {"lo": plain(pair[0]), "hi": plain(pair[1])}


# --------------------------------------------------------------------------- table


def _header(f: Field, alpha: str | None) -> str:
    return f.name if alpha is None else alpha_name(f.name, alpha)


def child_columns(t: Table) -> list[tuple[str, list[Any], Field | None]]:
    """Columns a table's per-row children add to it in the table format: a
    child Table's (row, field) cells as ``ROW field``, a child Section's leaves
    (also one level down) by their header; in order of first appearance."""
    if t.children is None:
        return []
    columns: dict[str, list[Any]] = {}
    headers: dict[str, str] = {}
    owners: dict[str, Field | None] = {}

    def put(name: str, i: int, value: Any, header: str | None = None, f: Any = None) -> None:
        columns.setdefault(name, [None] * len(t.rows))[i] = value
        headers[name] = header or name
        owners[name] = f if isinstance(f, Field) else None

    for i, child in enumerate(t.children):
        for key, node in child.items:
            if isinstance(node, Table) and not node.alphas:
                for r, row in enumerate(node.rows):
                    for f in node.fields:
                        put(f"{row} {f.header}", i, np.asarray(node.values[f.name])[r], None, f)
            elif isinstance(node, Section):
                for k, v in node.items:
                    if is_leaf(v):
                        put(f"{key}.{k}", i, v, k.header if isinstance(k, Field) else str(k), k)
            elif is_leaf(node):
                put(str(key), i, node)
    return [(headers[name], values, owners[name]) for name, values in columns.items()]


def _wide(
    t: Table, shown: Sequence[Field], digits: int, first: str = "system"
) -> tuple[list[str], list[list[str]]]:
    columns = [(f, a) for f in shown for a in (t.alphas if f.alpha else (None,))]
    extra = child_columns(t)
    headers = Headers([first] + [_header(f, a) for f, a in columns] + [h for h, _, _ in extra])
    headers.better = (
        [None]
        + [f.better for f, _ in columns]
        + [f.better if f is not None else None for _, _, f in extra]
    )
    rows = []
    for i, row in enumerate(t.rows):
        cells = [row]
        for f, a in columns:
            column = np.asarray(t.values[f.name])
            v = column[i]
            if column.dtype == bool:  # a flag (pareto): marked, blank when false
                cells.append("*" if v else "")
                continue
            cell = fmt(plain(v if a is None else v[t.alphas.index(a)]), digits)
            if f.name in t.intervals:
                iv = np.asarray(t.intervals[f.name])[i]
                iv = iv if a is None else iv[t.alphas.index(a)]
                cell += f" [{fmt(plain(iv[0]), digits)}, {fmt(plain(iv[1]), digits)}]"
            cells.append(cell)
        cells += [fmt(plain(values[i]), digits) for _, values, _ in extra]
        rows.append(cells)
    return headers, rows


def _shared(t: Table, shown: Sequence[Field]) -> dict[str, Value]:
    """Scalar fields the table does not show that are equal for every row (var_target)."""
    out = {}
    for f in t.fields:
        if f in shown or f.alpha or not t.rows:
            continue
        column = np.asarray(t.values[f.name])
        if (column == column[0]).all():
            out[f.name] = plain(column[0])
    return out


def _grid(
    markup: Markup, rows: list[tuple[str, Section]], shown: Sequence[Field], digits: int
) -> str:
    """Sections of sections of numbers as one table: a row per child, a column
    per (grandchild, shown field) (Zhang22 Table 9's layout)."""
    columns: list[tuple[str, Field]] = []
    for _, s in rows:
        for gk, g in s.items:
            assert isinstance(g, Section)
            for k, v in g.items:
                if not isinstance(k, Field):  # a plain key is never a shown field
                    continue
                if is_leaf(v) and k in shown and (str(gk), k) not in columns:
                    columns.append((str(gk), k))
    headers = ["grouping"] + [f"{g} {f.header}" for g, f in columns]
    body = []
    for key, s in rows:
        cells = [key]
        for g, f in columns:
            node = s.get(g)
            cells.append(fmt(plain(node.get(f)) if isinstance(node, Section) else None, digits))
        body.append(cells)
    return _tabulate(markup, body, headers)


class Headers(list):
    """The headers of a table built by :func:`_wide`, with the direction
    ("lower"/"higher", None) of each column: latex bolds the best value."""

    better: list[str | None]


@dataclass(frozen=True)
class Markup:
    """The markup of the table layout: ``table`` (plain text), ``latex`` or
    ``markdown``, with a caption for the latter two."""

    name: str = "table"
    caption: str | None = None
    width: int | None = None  # columns of a line of the plain table at most (None: no limit)


def _latex_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "\\":
            out.append("\\textbackslash{}")
        elif ch == "~":
            out.append("\\textasciitilde{}")
        elif ch == "^":
            out.append("\\textasciicircum{}")
        else:
            out.append(ch)
    return _latex_symbols("".join(out))


#: The non-ASCII symbols bvtest writes, as LaTeX: all in LaTeX's own fonts, so
#: the output compiles with a standard preamble (booktabs for the tables) and
#: no other package; ▲ ▼ · (compare's significance matrix) as arrows and a dot.
LATEX_SYMBOLS = (
    ("²", "$^2$"), ("ρ", "$\\rho$"), ("−", "$-$"), ("√", "$\\surd$"),
    ("▲", "$\\uparrow$"), ("▼", "$\\downarrow$"), ("·", "$\\cdot$"),
    ("σ", "$\\sigma$"), ("μ", "$\\mu$"), ("α", "$\\alpha$"), ("τ", "$\\tau$"),
    ("Φ", "$\\Phi$"), ("≤", "$\\leq$"), ("≥", "$\\geq$"), ("×", "$\\times$"),
    ("′", "$'$"), ("∞", "$\\infty$"), ("—", "---"), ("–", "--"), ("…", "\\ldots{}"),
)  # fmt: skip


def _latex_symbols(text: str) -> str:
    """``text`` with bvtest's non-ASCII symbols in LaTeX. Comments (``%``
    lines: a title's settings, a matrix's meaning) keep theirs: LaTeX skips a
    comment unread, so any character is safe there."""
    for uni, tex in LATEX_SYMBOLS:
        text = text.replace(uni, tex)
    return text


def _number(cell: str) -> float | None:
    try:
        value = float(cell.split(" ")[0])
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _latex_table(rows: list[list[str]], headers: list[str], first_left: bool) -> str:
    """A booktabs tabular; the best value of each column whose field has a
    direction (registry ``better``) in bold, ties all bold."""
    # pop: once the list is freed its id may be reused by another table's headers
    better = getattr(headers, "better", None) or [None] * len(headers)
    bold = [[False] * len(headers) for _ in rows]
    for j, direction in enumerate(better):
        if direction is None:
            continue
        column = [_number(r[j]) for r in rows]
        known = [v for v in column if v is not None]
        if len(known) < 2:
            continue
        best = min(known) if direction == "lower" else max(known)
        for i, v in enumerate(column):
            bold[i][j] = v == best
    align = ("l" if first_left else "r") + "r" * (len(headers) - 1)
    lines = [f"\\begin{{tabular}}{{{align}}}", "\\toprule"]
    lines.append(" & ".join(_latex_escape(h) for h in headers) + " \\\\")
    lines.append("\\midrule")
    for i, r in enumerate(rows):
        cells = [
            f"\\textbf{{{_latex_escape(c)}}}" if bold[i][j] else _latex_escape(c)
            for j, c in enumerate(r)
        ]
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines)


def is_grid(node: Any) -> TypeGuard[Section]:
    """A Section of Sections of numbers (one row of :func:`_grid`, or one matrix).
    A cell may also hold sections (tradeoff's ``repeats``): the grid leaves
    them out, and they are printed under it."""
    return (
        isinstance(node, Section)
        and bool(node.items)
        and all(
            isinstance(g, Section)
            and any(is_leaf(v) for _, v in g.items)
            and all(is_leaf(v) or isinstance(v, Section) for _, v in g.items)
            for _, g in node.items
        )
    )


def _shows(node: Section, shown: Sequence[Field]) -> bool:
    """Whether a grid row has a column among the fields the table shows."""
    return any(k in shown for _, g in node.items if isinstance(g, Section) for k, _ in g.items)


def _is_matrices(node: Any) -> TypeGuard[Section]:
    """A Section of grids: named matrices (Cormack19 Table 3's panels)."""
    return isinstance(node, Section) and bool(node.items) and all(is_grid(g) for _, g in node.items)


def _matrices(markup: Markup, key: str, node: Section, digits: int) -> list[str]:
    """Each matrix M of ``node`` as a table, M[row][column], under a caption
    with the field's meaning when its key is a registry field."""
    out = []
    for mk, m in node.items:
        assert isinstance(m, Section)
        caption = f"{key}.{mk}" + (f": {mk.meaning}" if isinstance(mk, Field) else "")
        columns: list[str] = []
        for _, row in m.items:
            assert isinstance(row, Section)
            columns += [str(k) for k, _ in row.items if str(k) not in columns]
        body = []
        for rk, row in m.items:
            assert isinstance(row, Section)
            cells = dict((str(k), v) for k, v in row.items)
            body.append([str(rk)] + [fmt(plain(cells.get(c)), digits) for c in columns])
        gap = [] if markup.name == "markdown" else [""]  # markdown brings its own
        out += [*gap, _text(markup, caption, sep=" "), _tabulate(markup, body, ["", *columns])]
    return out


def _tabulate(
    markup: Markup,
    rows: list[list[str]],
    headers: list[str],
    first_left: bool = True,
    keys: int = 1,
) -> str:
    from tabulate import tabulate

    style = markup.name
    if style == "latex":
        return _latex_table(rows, headers, first_left)
    if style == "markdown":
        align = ("left",) + ("right",) * (len(headers) - 1) if first_left else None
        rows = [[_markdown_cell(c) for c in row] for row in rows]
        headers = [_markdown_cell(h) for h in headers]
        return "\n" + tabulate(
            rows, headers=headers, tablefmt="pipe", disable_numparse=True,
            colalign=align, stralign=None if first_left else "right",
        ) + "\n"  # fmt: skip

    def plain_table(rows: list[list[str]], headers: list[str]) -> str:
        if first_left:
            align = ("left",) + ("right",) * (len(headers) - 1)
            return tabulate(rows, headers=headers, disable_numparse=True, colalign=align)
        return tabulate(rows, headers=headers, disable_numparse=True, stralign="right")

    # A table wider than the terminal is cut into tables of consecutive
    # columns, each repeating the ``keys`` leading columns that say which row
    # it is (the row column; a pair's measure, runs and field), as R prints a
    # wide data frame; a column wider than the terminal by itself is still
    # printed whole.
    keys = max(1, min(keys, len(headers) - 1))

    def part(columns: list[int]) -> str:
        return plain_table(
            [[*r[:keys], *(r[j] for j in columns)] for r in rows],
            [*headers[:keys], *(headers[j] for j in columns)],
        )

    def width(text: str) -> int:
        return max(map(len, text.splitlines()), default=0)

    whole = plain_table(rows, headers)
    if markup.width is None or width(whole) <= markup.width:
        return whole
    groups: list[list[int]] = [[]]
    for j in range(keys, len(headers)):
        if groups[-1] and width(part([*groups[-1], j])) > markup.width:
            groups.append([])
        groups[-1].append(j)
    return "\n\n".join(part(g) for g in groups)


#: Columns of ``-f table`` output at most when nobody says (the command line
#: asks ``--width``, $COLUMNS and the terminal first): a wider table is cut
#: into several, a longer line of scalars folded.
TABLE_WIDTH = 80


def _fold(markup: Markup, line: str, indent: str = "  ", sep: str = "  ") -> str:
    """``line`` in lines of at most the markup's width in the plain table,
    cut only between items (``sep``: between ``k=v`` pairs, or words), so no
    value is broken; the lines after the first start with ``indent``. An item
    wider than a line by itself (a sentence: the significance matrix's key)
    is cut between its words; only a word wider than a line stays whole."""
    width = markup.width
    if markup.name != "table" or width is None or len(line) <= width:
        return line
    # (joiner, text): an item joins the line before at ``sep``, the words of
    # a cut item at one space
    tokens: list[tuple[str, str]] = []
    for item in line.split(sep):
        if len(indent) + len(item) > width and " " in item:
            words = item.split(" ")
            tokens += [(sep, words[0]), *((" ", w) for w in words[1:])]
        else:
            tokens.append((sep, item))
    lines: list[str] = []
    for joiner, text in tokens:
        if lines and len(lines[-1]) + len(joiner) + len(text) <= width:
            lines[-1] += joiner + text
        else:
            lines.append(text if not lines else indent + text)
    return "\n".join(lines)


def _markdown_cell(text: str) -> str:
    """A cell of a Markdown table: a ``|`` in a run name would start a new
    column, a backslash an escape; both are escaped."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|")


def row_header(key: str) -> str:
    """The header of a table's row column: its key in the singular (systems → system)."""
    return key[:-1] if key.endswith("s") else key


def render_table(markup: Markup, report: Report, digits: int) -> str:
    """One table per measure: a row per system, scalars and settings in the title."""
    # A list setting (variations' alphas) is not a title item: the tables show its values.
    settings = [
        f"{k}={v}"
        for k, v in report.settings().items()
        if v is not None and not isinstance(v, (tuple, list))
    ]
    out: list[str] = []
    for measure, block in report.measure_blocks():
        title = [
            _leaf_text(block, k, v, digits) for k, v in block.items if is_leaf(v) and in_text(k)
        ]
        tables = [(str(k), v) for k, v in block.items if isinstance(v, Table)]
        systems = tables[0][1] if tables else None
        shown: list[Field] = []
        if systems is not None:
            shown = [f for f in report.table_fields if f in systems.fields] or list(systems.fields)
            title += [f"{k}={fmt(v, digits)}" for k, v in _shared(systems, shown).items()]
        out.append(_title(markup, f"# {measure}  " + "  ".join(title + settings), measure))
        if systems is not None and systems.rows:
            first = row_header(tables[0][0])
            out.append(_tabulate(markup, *_wide(systems, shown, digits, first)[::-1]))
        grid = [
            (str(k), v) for k, v in block.items if is_grid(v) and _shows(v, report.table_fields)
        ]
        if grid:
            out.append(_grid(markup, grid, report.table_fields, digits))
            for grid_key, row in grid:  # what a cell holds beyond its columns (tradeoff's repeats)
                for gk, cell in row.items:
                    assert isinstance(cell, Section)
                    for k, v in cell.items:
                        if isinstance(v, Section):
                            out += [
                                _text(markup, line)
                                for line in _section_lines(f"{grid_key}.{gk}.{k}", v, digits)
                            ]
        for key, node in block.items:
            if _is_matrices(node):
                out += _matrices(markup, str(key), node, digits)
            elif isinstance(node, Section) and (str(key), node) not in grid and not by_alpha(key):
                out += [_text(markup, line) for line in _section_lines(str(key), node, digits)]
        series = [(str(k), v) for k, v in block.items if isinstance(v, Section) and by_alpha(k)]
        if series:
            out.append(_alpha_table(markup, series, digits))
        for key, detail in tables[1:]:  # per-topic rows, per-condition rows, ...
            if any(f.alpha for f in detail.fields):  # as many columns as fields
                out.append(_long_table(markup, detail, digits))
                continue
            if detail.children is not None:
                first = row_header(key)
                out.append(_tabulate(markup, *_wide(detail, detail.fields, digits, first)[::-1]))
                continue
            headers = [row_header(str(key))] + [f.name for f in detail.fields]
            rows = [
                [row]
                + [fmt(plain(np.asarray(detail.values[f.name])[i]), digits) for f in detail.fields]
                for i, row in enumerate(detail.rows)
            ]
            out.append(_tabulate(markup, rows, headers, first_left=False))
        for key, node in block.items:
            if isinstance(node, Records):
                out.append(_text(markup, f"{key}:" if node.items else f"{key}: none"))
                if node.items:
                    out.append(_records_table(markup, node, digits))
        if markup.name == "latex":
            out.append("\\end{table}")
        out.append("")
    return "\n".join(out)


def _alpha_table(markup: Markup, series: list[tuple[str, Section]], digits: int) -> str:
    """Sections keyed by alpha-indexed fields as one table: a row per alpha,
    a column per field (variations' tau and tau_ap)."""
    alphas = list(dict.fromkeys(str(a) for _, s in series for a, _ in s.items))
    columns = [{str(a): v for a, v in s.items} for _, s in series]
    rows = [[a] + [fmt(plain(c.get(a)), digits) for c in columns] for a in alphas]
    return _tabulate(markup, rows, ["alpha"] + [name for name, _ in series], first_left=False)


def _long_table(markup: Markup, t: Table, digits: int) -> str:
    """A detail table with alpha-indexed fields, a line per (row, alpha): as many
    columns as fields, however long the alpha grid."""
    headers = ["topic", "alpha"] + [f.name for f in t.fields]
    rows = []
    for i, row in enumerate(t.rows):
        for j, a in enumerate(t.alphas):
            cells = [row, a]
            for f in t.fields:
                v = np.asarray(t.values[f.name])[i]
                cells.append(fmt(plain(v[j] if f.alpha else v), digits))
            rows.append(cells)
    return _tabulate(markup, rows, headers, first_left=False)


def _record_cells(records: Records, digits: int) -> tuple[list[str], list[list[str]]]:
    """The headers and the printed cells of records (in full precision where
    the records say so)."""
    rows = [records.as_json(item) for item in records.items]
    headers = list(rows[0]) if rows else []
    if records.full_precision:
        exact = [[repr(v) if isinstance(v, float) else str(v) for v in r.values()] for r in rows]
        return headers, exact
    return headers, [[fmt(plain(v), digits) for v in row.values()] for row in rows]


def _records_table(markup: Markup, records: Records, digits: int) -> str:
    headers, cells = _record_cells(records, digits)
    return _tabulate(markup, cells, headers, keys=records.key_count(headers))


def _leaf_text(node: Section, key: Any, value: Any, digits: int) -> str:
    """``key=value``, and `` [lo, hi]`` when the leaf has an interval."""
    text = f"{key}={fmt(value, digits)}"
    interval = node.intervals.get(str(key))
    if interval is not None:
        text += f" [{fmt(plain(interval[0]), digits)}, {fmt(plain(interval[1]), digits)}]"
    return text


def _section_lines(name: str, node: Section, digits: int) -> list[str]:
    """``name: k=v  k=v [lo, hi]`` for a section's leaves, then one such line
    per nested section (``name.sub: ...``)."""
    pairs = [_leaf_text(node, k, v, digits) for k, v in node.items if is_leaf(v) and in_text(k)]
    lines = [f"{name}: " + "  ".join(pairs)] if pairs else []
    for k, v in node.items:
        if isinstance(v, Section):
            lines.extend(_section_lines(f"{name}.{k}", v, digits))
    return lines


def _title(markup: Markup, line: str, measure: str) -> str:
    """The title line of a measure: a comment (table), a heading (markdown),
    the start of a table float with its caption (latex)."""
    style, caption = markup.name, markup.caption
    if style == "markdown":
        head = f"**{caption}**\n\n" if caption else ""
        return f"{head}### {line[2:]}"
    if style == "latex":
        lines = ["\\begin{table}[ht]", "\\centering"]
        if caption:
            lines.append(f"\\caption{{{_latex_escape(caption)} ({_latex_escape(measure)})}}")
        lines.append(f"% {line[2:]}")
        return "\n".join(lines)
    return _fold(markup, line, indent="#   ")


def _text(markup: Markup, line: str, sep: str = "  ") -> str:
    """A line of scalars under a table: a comment in latex, a paragraph in
    markdown, folded at ``sep`` to the width in the plain table."""
    style = markup.name
    if style == "latex":
        return f"% {line}"
    if style == "markdown":
        return f"\n{line}\n"
    return _fold(markup, line, sep=sep)


def render_styled(report: Report, style: str, digits: int, caption: str | None = None) -> str:
    """-f latex / -f markdown: the table layout, tables in that markup."""
    markup = Markup(style, caption)
    records = [] if report.blocks else [v for _, v in report.body.items if isinstance(v, Records)]
    if records:
        text = "\n".join(_render_records(markup, rs, "table", digits) for rs in records)
        if style == "latex":
            return _wrap_latex(text, caption)
        return (f"**{caption}**\n\n" if caption else "") + text
    nested = _measure_records(report)
    if nested:
        return _render_measure_records(markup, report, nested, "table", digits)
    return render_table(markup, report, digits)


def _wrap_latex(tabular: str, caption: str | None) -> str:
    head = ["\\begin{table}[ht]", "\\centering"]
    if caption:
        head.append(f"\\caption{{{_latex_escape(caption)}}}")
    return "\n".join([*head, tabular.rstrip("\n"), "\\end{table}", ""])


# --------------------------------------------------------------------------- entry point


def render(
    report: Report,
    fmt_name: str,
    digits: int = 4,
    caption: str | None = None,
    width: int | None = TABLE_WIDTH,
) -> str:
    """The whole output of one report; ends with a newline. ``width``: the
    columns a line of ``table`` may take (None: no limit)."""
    if fmt_name in ("latex", "markdown"):
        return render_styled(report, fmt_name, digits, caption)
    if fmt_name == "json":
        return json.dumps(document(report), indent=2, allow_nan=False) + "\n"
    markup = Markup(width=width)
    # a report with blocks of its own (judges) is laid out by them, records included
    records = [] if report.blocks else [v for _, v in report.body.items if isinstance(v, Records)]
    if records:  # several lists (budget's cells and reference): one after the other
        gap = "\n" if fmt_name == "table" else ""
        return gap.join(_render_records(markup, rs, fmt_name, digits) for rs in records)
    nested = _measure_records(report)
    if nested:
        return _render_measure_records(markup, report, nested, fmt_name, digits)
    if fmt_name == "trec":
        return "".join(
            trec_line(f"{m}.{name}", system, fmt(plain(v), digits))
            for m, name, system, v in flatten(report, digits)
        )
    if fmt_name in ("tsv", "csv"):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="\t" if fmt_name == "tsv" else ",", lineterminator="\n")
        writer.writerow(["measure", "name", "system", "value"])
        writer.writerows((m, n, s, fmt(plain(v), digits)) for m, n, s, v in flatten(report, digits))
        return buf.getvalue()
    if fmt_name == "table":
        return render_table(markup, report, digits)
    raise ValueError(f"unknown format {fmt_name!r}")


#: trec_eval's line (meas_print_single.c, meas_print_final.c): the measure's
#: name left-aligned in 22 columns, so that its values line up after `expand`.
TREC_LINE = "%-22s\t%s\t%s\n"


def trec_line(name: str, system: str, value: str) -> str:
    """One line of ``-f trec``, as trec_eval prints it; a name longer than 22
    characters is printed whole (the value column then moves, as in trec_eval)."""
    return TREC_LINE % (name, system, value)


def _render_records(markup: Markup, records: Records, fmt_name: str, digits: int) -> str:
    """trec (and check's text): one line per record; the others a table."""
    if fmt_name in ("trec", "text"):
        lines = [records.header] if records.header else []
        lines += [records.as_text(item, digits) for item in records.items]
        return "".join("\t".join(line) + "\n" for line in lines)
    if fmt_name == "table":
        return _records_table(markup, records, digits) + "\n"
    headers, cells = _record_cells(records, digits)
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="\t" if fmt_name == "tsv" else ",", lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(cells)
    return buf.getvalue()


def _measure_records(report: Report) -> list[tuple[str, Records]]:
    """The Records of measure blocks made only of records (``compare``'s pairs)."""
    if registry.MEASURES not in report.body.keys():  # noqa: SIM118 (a Section, not a dict)
        return []
    blocks = list(report.measure_blocks())
    # Only blocks that are nothing but records (compare's pairs); records beside
    # numbers (variations' crossovers) are rows of their block.
    if not blocks or not all(
        block.items and all(isinstance(node, Records) for _, node in block.items)
        for _, block in blocks
    ):
        return []
    return [
        (measure, node)
        for measure, block in blocks
        for _, node in block.items
        if isinstance(node, Records)  # all are (checked above); says so to the type checker
    ]


def _render_measure_records(
    markup: Markup, report: Report, nested: list[tuple[str, Records]], fmt_name: str, digits: int
) -> str:
    """Records inside measure blocks: their ``as_text`` lines (which name the
    measure) under one header line in trec/tsv/csv; a table per measure in
    the table format (and latex, markdown)."""
    header = list(nested[0][1].header)
    if fmt_name == "table":
        settings = [f"{k}={v}" for k, v in report.settings().items() if v is not None]
        out = []
        for measure, records in nested:
            if records.overview:
                out.append(_title(markup, f"# {measure}  {records.overview}", measure))
            else:
                out.append(_title(markup, f"# {measure}  " + "  ".join(settings), measure))
            rows = [list(records.as_text(item, digits)) for item in records.items]
            columns = list(records.header)
            out.append(_tabulate(markup, rows, columns, keys=records.key_count(columns)))
            if markup.name == "latex":
                out.append("\\end{table}")
            out.append("")
        return "\n".join(out)
    lines = [
        records.as_text(item, digits)
        for _, records in nested
        if not records.overview
        for item in records.items
    ]
    if fmt_name == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(lines)
        return buf.getvalue()
    return "".join("\t".join(line) + "\n" for line in [tuple(header), *lines])
