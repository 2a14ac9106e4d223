"""Reports → one self-contained HTML page (``-f html``).

The page opens with a title and the inputs (files, runs, topics, measures,
bvtest's version, the command line), then one section per measure: its
charts first (inline SVG from :mod:`bvtest_cli.render.svg`: Bias² against
Var with the Pareto front, GeoRisk against alpha; |b|, σ and RMSE per
collection for ``rankings``; the mean–variance objective over alpha for
``variations``), then every value of the report as tables. The tables are
laid out from the report's types and the field registry, as
:mod:`bvtest_cli.render.text` lays out the others: a :class:`Table`'s
scalar fields in one table and each alpha-indexed field in its own (a run
per row, an alpha per column), intervals under their value, a grid (a
Section of Sections of numbers) as one table, records as a table. No table
has more than :data:`MAX_COLUMNS` value columns (a wider one is cut into
consecutive parts, each repeating the row names), so the page fits a
1280-px window and A4's printable width without scrolling. The JSON
document is embedded as data (``<script type="application/json">``, never
executed) for a reader who wants the numbers back in full precision.

Offline by construction: the stylesheet is inline, the charts are ``<svg>``
elements, and nothing is fetched (no script, font or image).

May import: report (model, registry, values), render (text, svg).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

from ..analyses.uncertainty import pareto_front
from ..report import registry
from ..report.model import COMPARISONS, Records, Report, Section, Table, is_leaf
from ..report.registry import Field
from ..report.values import PValue, fmt, plain
from . import svg
from .text import by_alpha, child_columns, document, is_grid, row_header

#: Value columns per table at most: eight cells of a value and its interval
#: fit A4's printable width (18 cm) at the print font size.
MAX_COLUMNS = 8
#: Columns that name a record together with the first (budget's cells), so
#: every part of a cut table repeats them.
KEYS = frozenset(
    f.name for f in (registry.BUDGET_BUDGET, registry.BUDGET_SCALE, registry.BUDGET_METHOD)
)


@dataclass(frozen=True)
class Page:
    """What the page says about how it was made (the runner knows it; a
    report does not): a title, the command line, bvtest's version, and the
    input files as (role, path) pairs."""

    title: str = "bvtest"
    command: str = ""
    version: str = ""
    inputs: tuple[tuple[str, str], ...] = ()


STYLE = """
:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #1d1d1f; line-height: 1.4; }
body { margin: 0 auto; padding: 1.5rem; max-width: 1180px; box-sizing: border-box; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 .6rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
h4 { font-size: .95rem; margin: 1rem 0 .3rem; }
dl.inputs { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem;
  margin: 0 0 1rem; }
dl.inputs dt { font-weight: 600; }
dl.inputs dd { margin: 0; overflow-wrap: anywhere; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .9em; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; }
figure.chart { margin: 0; flex: 1 1 480px; max-width: 820px; }
figure.grid { flex-basis: 100%; }
figure.chart svg { width: 100%; height: auto; display: block; }
figcaption { font-size: .85rem; color: #444; margin-top: .2rem; }
svg text { font-size: 12px; fill: #333; }
svg .grid { stroke: #e4e4e4; }
svg .frame { fill: none; stroke: #888; }
svg .errorbars line { stroke: #777; stroke-width: 1; }
svg .pareto-front { fill: none; stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 5 3; }
svg circle.point { stroke: #fff; stroke-width: 1; }
svg circle.pareto { stroke: #c0392b; stroke-width: 2.5; }
svg .series polyline { fill: none; stroke: var(--c); stroke-width: 1.8;
  stroke-dasharray: var(--d, none); }
svg .series circle { fill: var(--c); }
svg .series.grey polyline { stroke-width: 1; }
svg .leaders line { stroke: #999; stroke-width: .8; }
figure.lines svg .leaders line { stroke-width: 1.2; }
svg text.label { font-size: 11px; fill: #1d1d1f; }
svg .reference { stroke: #1d1d1f; stroke-width: 1.5; stroke-dasharray: 6 3; }
svg .cell rect { fill: #f4f4f4; stroke: #fff; }
svg .cell.better rect { fill: #b7dfb0; }
svg .cell.worse rect { fill: #f4b6b6; }
svg .cell text { font-size: 11px; }
p.chart-note { font-size: .8rem; color: #444; margin: .2rem 0 0; }
* { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
aside.notes { border: 1px solid #d9a400; background: #fff8e0; padding: .4rem .8rem;
  margin: 0 0 1rem; }
aside.notes h2, section.glossary h2, nav.toc h2 { font-size: 1rem; margin: 0 0 .3rem; border: 0; }
aside.notes ul { margin: 0; padding-left: 1.2rem; font-size: .85rem; }
section.glossary dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem;
  font-size: .8rem; margin: 0 0 1rem; }
section.glossary dt { font-weight: 600; }
section.glossary dd { margin: 0; }
div.summary { background: #f2f5f9; border-left: 4px solid #4e79a7; padding: .3rem .8rem;
  margin: .4rem 0 1rem; }
div.summary ul { margin: 0; padding-left: 1.2rem; }
div.summary h2 { margin: .2rem 0; border: 0; font-size: 1rem; }
p.banner { font-size: 1.2rem; font-weight: 700; padding: .4rem .8rem; margin: 0 0 1rem; }
p.banner.pass { background: #d8f0d3; border: 2px solid #59a14f; }
p.banner.fail { background: #f8d4d4; border: 2px solid #c0392b; }
th .dir { color: #555; font-weight: 400; }
nav.toc { margin: 0 0 1rem; }
nav.toc ol { margin: 0; padding-left: 1.4rem; }
svg .series:hover polyline { stroke-width: 4; }
svg .bar:hover, svg circle.point:hover { opacity: .7; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: .85rem;
  font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; caption-side: top; }
th, td { padding: .1rem .45rem; border-bottom: 1px solid #e4e4e4; line-height: 1.25; }
div.tables { display: flex; flex-wrap: wrap; gap: 0 1.2rem; align-items: flex-start; }
thead th { border-bottom: 2px solid #999; text-align: right; }
thead th:first-child, tbody th { text-align: left; }
tbody th { font-weight: 500; max-width: 16rem; overflow-wrap: anywhere; }
td { text-align: right; white-space: nowrap; }
td.list { text-align: left; white-space: normal; }
td.best strong { font-weight: 700; }
td .ci { display: block; font-size: .8em; color: #666; }
table.kv th { white-space: nowrap; }
table.kv td { text-align: left; white-space: normal; overflow-wrap: anywhere; }
p.none { color: #666; }
script { display: none; }
@media print {
  @page { size: A4; margin: 12mm; }
  body { padding: 0; max-width: none; font-size: 9pt; }
  table { font-size: 7.5pt; }
  th, td { padding: .1rem .3rem; }
  figure.chart { flex-basis: 100%; max-width: 100%; break-inside: avoid; }
  h2 { break-after: avoid; }
}
"""


def _text(value: Any, digits: int) -> str:
    v = plain(value)
    if isinstance(v, bool):
        return "yes" if v else "no"
    return "—" if v is None else fmt(v, digits)  # null in JSON: undefined or unset


def _cell(value: Any, interval: Any, digits: int) -> str:
    """A value, with its interval under it when it has one; a list (compare's
    runs significantly above or below one) as words that wrap."""
    if isinstance(value, list):
        return f'<td class="list">{escape(", ".join(_text(v, digits) for v in value))}</td>'
    text = escape(_text(value, digits))
    if interval is not None:
        lo, hi = (escape(_text(v, digits)) for v in interval)
        text += f'<span class="ci">[{lo}, {hi}]</span>'
    return f"<td>{text}</td>"


@dataclass(frozen=True)
class Column:
    header: str
    cells: list[str]  # <td> elements, one per row
    meaning: str = ""
    better: str | None = None  # "higher" | "lower": shown as ↑ / ↓ after the header


def _direction(better: str | None) -> str:
    if better is None:
        return ""
    arrow = "↑" if better == "higher" else "↓"
    return f' <span class="dir" title="{better} is better">{arrow}</span>'


def _tables(caption: str, first: str, rows: Sequence[str], columns: list[Column]) -> list[str]:
    """``columns`` as tables of at most MAX_COLUMNS value columns each, every
    part repeating the row names; the caption on the first part."""
    out = []
    for start in range(0, max(len(columns), 1), MAX_COLUMNS):
        part = columns[start : start + MAX_COLUMNS]
        head = "".join(
            f'<th scope="col"{f" title={_attr(c.meaning)}" if c.meaning else ""}>'
            f"{escape(c.header)}{_direction(c.better)}</th>"
            for c in part
        )
        body = "\n".join(
            f'<tr><th scope="row">{escape(row)}</th>' + "".join(c.cells[i] for c in part) + "</tr>"
            for i, row in enumerate(rows)
        )
        label = caption if start == 0 else f"{caption} (continued)"
        out.append(
            f"<table>\n<caption>{escape(label)}</caption>\n"
            f'<thead><tr><th scope="col">{escape(first)}</th>{head}</tr></thead>\n'
            f"<tbody>\n{body}\n</tbody>\n</table>"
        )
    return out


def _attr(text: str) -> str:
    return '"' + escape(text, quote=True) + '"'


def _table(key: str, t: Table, digits: int) -> list[str]:
    """A Table: its scalar fields (and per-row children's values) in one
    table, each alpha-indexed field in a table of its own."""
    if not t.rows:
        return [f'<p class="none">{escape(key)}: none</p>']
    first = row_header(key)
    scalar = [f for f in t.fields if not f.alpha]
    columns = [Column(f.header, _field_cells(t, f, digits), f.meaning, f.better) for f in scalar]
    for header, values, owner in child_columns(t):
        meaning = owner.meaning if owner is not None else ""
        columns.append(Column(header, [_cell(v, None, digits) for v in values], meaning))
    out = _tables(key, first, t.rows, columns) if columns else []
    for f in t.fields:
        if f.alpha:
            alpha_columns = [
                Column(f"α={a}", _field_cells(t, f, digits, j)) for j, a in enumerate(t.alphas)
            ]
            arrow = {"higher": " (↑ higher is better)", "lower": " (↓ lower is better)"}
            caption = f"{key}: {f.name} — {f.meaning}{arrow.get(f.better or '', '')}"
            out += _tables(caption, first, t.rows, alpha_columns)
    # A row per run in each of a table's parts (its scalars, each alpha-indexed
    # field): side by side where the window has room, as tall as one of them
    # rather than as all of them stacked; a narrow window or print wraps them.
    if len(out) > 1:
        return ['<div class="tables">\n' + "\n".join(out) + "\n</div>"]
    return out


def _field_cells(t: Table, f: Field, digits: int, alpha: int | None = None) -> list[str]:
    """The cells of one field, a row each (its ``alpha``-th value for an
    alpha-indexed field), with the interval under the value when there is one."""
    values = np.asarray(t.values[f.name])
    intervals = np.asarray(t.intervals[f.name]) if f.name in t.intervals else None

    def at(array: np.ndarray, i: int) -> Any:
        return array[i] if alpha is None else array[i][alpha]

    return [
        _cell(at(values, i), None if intervals is None else at(intervals, i), digits)
        for i in range(len(t.rows))
    ]


def _records(key: str, records: Records, digits: int) -> list[str]:
    """Records as a table: a column per key of any record (a record without
    it leaves the cell empty), in full precision where the records say so."""
    if not records.items:
        return [f'<p class="none">{escape(key)}: none</p>']
    rows = [records.as_json(item) for item in records.items]
    headers = list(dict.fromkeys(k for row in rows for k in row))

    least = _least_rmse(rows)

    def cell(row: Mapping[str, Any], k: str) -> str:
        if k not in row:
            return "<td></td>"
        v = row[k]
        if records.full_precision and isinstance(v, float):
            return f"<td>{escape(repr(v))}</td>"
        if k == registry.RANK_RMSE.name and id(row) in least:
            title = _attr("the least RMSE at this budget and topic-set size")
            text = escape(_text(v, digits))
            return f'<td class="best" title={title}><strong>{text}</strong></td>'
        return _cell(v, None, digits)

    # The leading text columns (compare's a, b, field) name each row together,
    # so that a table cut into parts repeats them all.
    k = 1
    while k < len(headers) - 1 and (
        headers[k] in KEYS or all(isinstance(row.get(headers[k]), str) for row in rows)
    ):
        k += 1
    names = [" ".join(_text(row.get(h), digits) for h in headers[:k]) for row in rows]
    columns = [Column(h, [cell(row, h) for row in rows]) for h in headers[k:]]
    caption = f"{key} (bold: the least RMSE of each budget and topic-set size)" if least else key
    return _tables(caption, " ".join(headers[:k]), names, columns)


def _least_rmse(rows: Sequence[Mapping[str, Any]]) -> set[int]:
    """budget's cells: the ids of the rows whose RMSE is the least of their
    budget and topic-set size (the methods compared at the same cost, a row
    of Cormack & Grossman's Table 1), ties all; none for other records."""
    cost = (registry.BUDGET_BUDGET.name, registry.BUDGET_SCALE.name, registry.BUDGET_METHOD.name)
    rmse = registry.RANK_RMSE.name
    if not rows or not all(all(f in row for f in (*cost, rmse)) for row in rows):
        return set()
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row[cost[0]], row[cost[1]]), []).append(row)
    out: set[int] = set()
    for group in groups.values():
        values = [_finite(row[rmse]) for row in group]
        known = [v for v in values if math.isfinite(v)]
        if len(group) < 2 or not known:
            continue
        out |= {id(row) for row, v in zip(group, values, strict=True) if v == min(known)}
    return out


def _grid(key: Field | str, node: Section, digits: int) -> list[str]:
    """A Section of Sections of numbers: a row per child, a column per leaf."""
    names: list[str] = []
    meanings: dict[str, str] = {}
    for _, child in node.items:
        assert isinstance(child, Section)
        for k, v in child.items:
            if is_leaf(v) and str(k) not in names:
                names.append(str(k))
                meanings[str(k)] = k.meaning if isinstance(k, Field) else ""
    rows = [str(k) for k, _ in node.items]
    columns = []
    for name in names:
        cells = []
        for _, child in node.items:
            assert isinstance(child, Section)
            values = {str(k): v for k, v in child.items}
            cells.append(_cell(values.get(name), child.intervals.get(name), digits))
        columns.append(Column(name, cells, meanings[name]))
    caption = str(key) + (f" — {key.meaning}" if isinstance(key, Field) else "")
    out = _tables(str(caption), "", rows, columns)
    for rk, child in node.items:  # what a cell holds beyond its numbers (tradeoff's repeats)
        assert isinstance(child, Section)
        for k, v in child.items:
            if isinstance(v, Section):
                out += _section(f"{key}.{rk}.{k}", v, digits, 4)
    return out


def _alpha_series(series: list[tuple[Any, Section]], digits: int) -> list[str]:
    """Sections keyed by alpha-indexed fields as one table: an alpha per row."""
    alphas = list(dict.fromkeys(str(a) for _, s in series for a, _ in s.items))
    columns = []
    for key, s in series:
        values = {str(a): v for a, v in s.items}
        cells = [_cell(values.get(a), s.intervals.get(a), digits) for a in alphas]
        columns.append(Column(str(key), cells, key.meaning if isinstance(key, Field) else ""))
    return _tables("by alpha", "α", alphas, columns)


def _leaves(node: Section, digits: int) -> list[str]:
    """A section's scalars (and list settings) as a two-column table."""
    rows = []
    for k, v in node.items:
        if isinstance(v, (tuple, list)):
            text = f"<td>{escape(', '.join(_text(x, digits) for x in v))}</td>"
        elif is_leaf(v):
            text = _cell(v, node.intervals.get(str(k)), digits)
        else:
            continue
        title = f" title={_attr(k.meaning)}" if isinstance(k, Field) else ""
        rows.append(f'<tr><th scope="row"{title}>{escape(str(k))}</th>{text}</tr>')
    if not rows:
        return []
    return ['<table class="kv">\n<tbody>\n' + "\n".join(rows) + "\n</tbody>\n</table>"]


def _section(key: str, node: Section, digits: int, level: int) -> list[str]:
    """A Section under a heading: its scalars, then its children in order."""
    out = [f"<h{level}>{escape(key)}</h{level}>"] if key else []
    out += _leaves(node, digits)
    series = [(k, v) for k, v in node.items if isinstance(v, Section) and by_alpha(k)]
    for k, v in node.items:
        name = str(k)
        if isinstance(v, Table):
            out += _table(name, v, digits)
        elif isinstance(v, Records):
            out += _records(name, v, digits)
        elif isinstance(v, Section) and by_alpha(k):
            if v is series[0][1]:
                out += _alpha_series(series, digits)
        elif isinstance(v, Section) and is_grid(v):
            out += _grid(k, v, digits)
        elif isinstance(v, Section):
            out += _section(name, v, digits, min(level + 1, 6))
    return out


# --------------------------------------------------------------------------- charts


def _finite(value: Any) -> float:
    v = plain(value)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def _systems(block: Section) -> Table | None:
    tables = [v for _, v in block.items if isinstance(v, Table)]
    return tables[0] if tables else None


def _interval(t: Table, f: Field, i: int) -> tuple[float, float] | None:
    if f.name not in t.intervals:
        return None
    lo, hi = np.asarray(t.intervals[f.name], dtype=float)[i]
    return float(lo), float(hi)


#: What each axis shows, and which way is better.
AXIS = {
    "bias2": "Bias² — squared distance of the mean from the target (lower is better)",
    "var": "Var — variance over topics (lower is steadier)",
    "georisk": "GeoRisk — risk-adjusted effectiveness (higher is better)",
    "o": "o(α) = μ − α σ² (higher is better)",
}


def _front(t: Table) -> np.ndarray:
    """The Pareto set of (Bias², Var): the report's own where it has one, else
    computed here from the two columns (pertopic reports them without it)."""
    if registry.PARETO in t.fields:
        return np.asarray(t.values[registry.PARETO.name], dtype=bool)
    return pareto_front(t.column(registry.BIAS2), t.column(registry.VAR))


def _extremes(t: Table, baseline: str | None = None) -> set[str]:
    """The runs worth naming among many: the Pareto set, the highest and
    lowest mean (μ in variations), the least and largest MSE, and the
    --baseline."""
    out: set[str] = {baseline} & set(t.rows) if baseline else set()
    if registry.BIAS2 in t.fields and registry.VAR in t.fields:
        out |= {r for r, on in zip(t.rows, _front(t), strict=True) if on}
    for f in (registry.MEAN, registry.VARIATIONS_MU, registry.MSE):
        if f in t.fields:
            column = t.column(f)
            if np.isfinite(column).any():
                out |= {t.rows[int(np.nanargmax(column))], t.rows[int(np.nanargmin(column))]}
    return out


def _tradeoff_chart(measure: str, t: Table, baseline: str | None = None) -> list[str]:
    if registry.BIAS2 not in t.fields or registry.VAR not in t.fields:
        return []
    bias2, var = t.column(registry.BIAS2), t.column(registry.VAR)
    front = _front(t)
    named = _extremes(t, baseline)
    points = [
        svg.Point(
            name,
            float(bias2[i]),
            float(var[i]),
            _interval(t, registry.BIAS2, i),
            _interval(t, registry.VAR, i),
            bool(front[i]),
            name in named,
        )
        for i, name in enumerate(t.rows)
    ]
    caption = f"{measure}: Bias² against Var, a point per run; the Pareto front joined"
    if registry.BIAS2.name in t.intervals:
        caption += ", with the intervals on both axes"
    prefix = svg.shared_prefix(t.rows)
    return [svg.scatter(points, AXIS["bias2"], AXIS["var"], caption, prefix)]


def _alpha_chart(
    measure: str, t: Table, f: Field, caption: str, baseline: str | None = None
) -> list[str]:
    if f not in t.fields or not t.alphas:
        return []
    try:
        xs = [float(a) for a in t.alphas]
    except ValueError:
        return []
    column = t.column(f)
    named = _extremes(t, baseline)
    series = [
        svg.Series(name, tuple(float(v) for v in column[i]), name in named)
        for i, name in enumerate(t.rows)
    ]
    prefix = svg.shared_prefix(t.rows)
    return [svg.lines(xs, series, "α — risk aversion", AXIS[f.name], f"{measure}: {caption}",
                      prefix)]  # fmt: skip


def _rankings_chart(measure: str, t: Table) -> list[str]:
    fields = (registry.RANK_BIAS, registry.RANK_SIGMA, registry.RANK_RMSE)
    if not all(f in t.fields for f in fields):
        return []
    groups = [("|b|" if f is registry.RANK_BIAS else f.name, t.column(f).tolist()) for f in fields]
    rmse = t.column(registry.RANK_RMSE)
    best = int(np.nanargmin(rmse)) if np.isfinite(rmse).any() else None
    caption = f"{measure}: |b|, σ and RMSE of each collection's ranking (★ least RMSE)"
    ylabel = "distance 1 − τ from the true ranking (lower is better)"
    return [svg.bars(list(t.rows), groups, ylabel, caption, best=best)]


#: Points of an ASL curve drawn at most (evenly spaced over the pairs' ranks).
ASL_POINTS = 400


def _asl_chart(measure: str, block: Section) -> list[str]:
    """sensitivity's ASL curves [Sakai06]: each pair's p-value against its rank
    (the share of pairs with a smaller p), the chosen test's and the paired
    bootstrap's, on a log scale."""
    keys = {str(k) for k, _ in block.items}
    curves: list[tuple[str, np.ndarray]] = []
    for f, label in (
        (registry.SENS_ASL, "the test's ASL"),
        (registry.BOOTSTRAP_ASL, "bootstrap ASL"),
    ):
        node = block.get(f) if f.name in keys else None
        if isinstance(node, tuple) and node:
            values = [math.nan if v is None else float(v) for v in node]
            curves.append((label, np.asarray(values, dtype=float)))
    if not curves:
        return []
    k = len(curves[0][1])
    idx = np.unique(np.linspace(0, k - 1, min(k, ASL_POINTS)).round().astype(int))
    xs = [float((i + 1) / k) for i in idx]
    # a p of 0 (no bootstrap replicate as extreme) is drawn at the decade
    # below the least positive p, not at an arbitrary depth
    positive = [v for _, c in curves for v in c if np.isfinite(v) and v > 0]
    floor = 10.0 ** math.floor(math.log10(min(positive))) if positive else 1e-3
    series = [
        svg.Series(label, tuple(float(np.log10(max(v, floor))) if np.isfinite(v) else math.nan
                                for v in c[idx]), True)
        for label, c in curves
    ]  # fmt: skip
    caption = (f"{measure}: ASL curves — each pair's p-value (log₁₀) against its rank among "
               f"the {k} pairs; lower and further left is more discriminating; a p of 0 is "
               f"drawn at {floor:.0e}")  # fmt: skip
    return [svg.lines(xs, series, "share of pairs (ranked by p)", "log₁₀ p (lower: surer)",
                      caption)]  # fmt: skip


def _charts(measure: str, block: Section, baseline: str | None = None) -> list[str]:
    t = _systems(block)
    charts = []
    if t is not None and t.rows:
        charts += _rankings_chart(measure, t)
        charts += _tradeoff_chart(measure, t, baseline)
        charts += _alpha_chart(
            measure, t, registry.GEORISK, "GeoRisk against α, a line per run", baseline
        )
        charts += _alpha_chart(
            measure,
            t,
            registry.VARIATIONS_O,
            "the mean–variance objective against α, a line per run",
        )
    pairs = _pairs(block)
    if pairs:
        charts.append(_compare_grid(measure, pairs))
    charts += _asl_chart(measure, block)
    charts += _allocation_charts(measure, block)
    charts += _experiment_charts(measure, block)
    return ['<div class="charts">\n' + "\n".join(charts) + "\n</div>"] if charts else []


def _experiment_charts(measure: str, block: Section) -> list[str]:
    """judges --human-topics: RMSE and Kendall's τ against the number of human
    topics, a line per method (human-only, judge-only, PPI, PPI++)."""
    methods = registry.EXP_METHODS
    node = block.get(methods) if methods in block.keys() else None  # noqa: SIM118
    if not isinstance(node, Table) or registry.EXP_RMSE not in node.fields:
        return []
    xs = [float(a) for a in node.alphas]
    charts = []
    for f, ylabel in (
        (registry.EXP_RMSE, "RMSE against the all-topic human means (lower is better)"),
        (registry.EXP_TAU, "Kendall τ_b with the all-topic human ranking (higher is better)"),
    ):
        column = node.column(f)
        series = [svg.Series(m, tuple(float(v) for v in column[i]), True)
                  for i, m in enumerate(node.rows)]  # fmt: skip
        charts.append(svg.lines(xs, series, "human-judged topics n", ylabel,
                                f"{measure}: {f.name} against n, a line per method"))  # fmt: skip
    return charts


def _allocation_rows(block: Section, key: str) -> list[Mapping[str, Any]]:
    """design's allocation records (``allocation``: the best per total,
    ``candidates``: every cell at every total) as JSON objects, when the
    block has them with the registry's allocation fields."""
    node = block.get(key) if key in block.keys() else None  # noqa: SIM118 (a Section)
    if not isinstance(node, Records):
        return []
    rows = [node.as_json(item) for item in node.items]
    names = {f.name for f in registry.ALLOCATION_FIELDS}
    return rows if all(names <= set(row) for row in rows) else []


def _allocation_charts(measure: str, block: Section) -> list[str]:
    """design --budget-report: for each total of judgments, every (method,
    judgments per topic) cell's predicted RMSE at the topics that total buys,
    the allocation (the least) marked ★."""
    candidates = _allocation_rows(block, registry.ALLOC_CANDIDATES)
    if not candidates:
        return []
    method, budget = registry.ALLOC_METHOD.name, registry.ALLOC_BUDGET.name
    topics, total = registry.ALLOC_TOPICS.name, registry.ALLOC_TOTAL.name
    rmse = registry.ALLOC_RMSE.name
    allocation = _allocation_rows(block, registry.ALLOCATION)
    chosen = {row[total]: (row[method], row[budget]) for row in allocation}
    charts = []
    for t in dict.fromkeys(row[total] for row in candidates):
        part = [row for row in candidates if row[total] == t]
        values = [_finite(row[rmse]) for row in part]
        best = next(
            (i for i, row in enumerate(part) if (row[method], row[budget]) == chosen.get(t)), None
        )
        caption = (f"{measure}: predicted RMSE of each method and budget N (judgments per "
                   f"topic) at a total of {t} judgments, n′ = {t} // N topics "
                   "(★ the allocation: the least predicted RMSE)")  # fmt: skip
        supergroups = [f"N={row[budget]}, n′={row[topics]}" for row in part]
        charts.append(svg.bars([str(row[method]) for row in part], [("predicted RMSE", values)],
                               "predicted RMSE of the ranking (lower is better)", caption,
                               best=best, supergroups=supergroups))  # fmt: skip
    return charts


def _pairs(block: Section) -> list[Mapping[str, Any]]:
    """compare's paired differences of the mean, as JSON records."""
    for _, v in block.items:
        if isinstance(v, Records) and v.kind == COMPARISONS:
            rows = [v.as_json(item) for item in v.items]
            return [r for r in rows if r[registry.COMPARE_FIELD] == registry.MEAN.name]
    return []


def _compare_grid(measure: str, pairs: list[Mapping[str, Any]]) -> str:
    """Runs × runs, rows and columns by mean (highest first, from the paired
    differences): ▲ the row's mean significantly higher (the row's
    ``significant``: the test and correction of the report), ▼ lower, · not
    significant; the numbers in each cell's title."""
    diff: dict[tuple[str, str], Mapping[str, Any]] = {}
    total: dict[str, list[float]] = {}
    a_of, b_of, diff_of = registry.COMPARE_A, registry.COMPARE_B, registry.COMPARE_DIFF
    lo_of, hi_of = registry.COMPARE_LO, registry.COMPARE_HI
    for pair in pairs:
        diff[pair[a_of], pair[b_of]] = pair
        d = _finite(pair[diff_of])
        total.setdefault(pair[a_of], []).append(d)
        total.setdefault(pair[b_of], []).append(-d)
    # with every pair, a run's mean difference to the others orders the means
    names = sorted(total, key=lambda n: (-float(np.nanmean(total[n] or [0.0])), n))
    cells: list[list[svg.Cell | None]] = []
    for a in names:
        row: list[svg.Cell | None] = []
        for b in names:
            r, sign = (diff.get((a, b)), 1.0) if (a, b) in diff else (diff.get((b, a)), -1.0)
            if r is None or a == b:
                row.append(None)
                continue
            d, p = sign * _finite(r[diff_of]), _finite(r[registry.COMPARE_P_ADJ])
            lo, hi = sorted(sign * _finite(r[k]) for k in (lo_of, hi_of)) if lo_of in r else (0, 0)
            significant = bool(r.get(registry.COMPARE_SIGNIFICANT))
            symbol = ("▲" if d > 0 else "▼") if significant else "·"
            kind = ("better" if d > 0 else "worse") if significant else "same"
            title = (f"{a} − {b}: mean difference {fmt(d, 4)} [{fmt(lo, 4)}, {fmt(hi, 4)}], "
                     f"p (corrected) {fmt(PValue(p), 4)}")  # fmt: skip
            row.append(svg.Cell(symbol, kind, title))
        cells.append(row)
    caption = (
        f"{measure}: runs × runs by mean, highest first: ▲ the row's mean is higher "
        "than the column's (significant after the correction), ▼ lower, · no significant "
        "difference"
    )
    return svg.grid(svg.Grid(names, cells), caption, svg.shared_prefix(names))


def _budget_charts(report: Report) -> list[str]:
    """budget: |b|, σ and RMSE per method and budget, a chart per topic-set
    size, the reference σ as a line and the least-RMSE cell marked."""
    body = report.body
    if registry.BUDGET_CELLS not in body or registry.BUDGET_REFERENCE not in body:
        return []
    cells, reference = body.get(registry.BUDGET_CELLS), body.get(registry.BUDGET_REFERENCE)
    assert isinstance(cells, Records) and isinstance(reference, Records)
    scale_of, sigma = registry.BUDGET_SCALE.name, registry.RANK_SIGMA.name
    rows = [cells.as_json(c) for c in cells.items]
    refs = {r[scale_of]: r for r in map(reference.as_json, reference.items)}
    charts = []
    for scale in dict.fromkeys(r[scale_of] for r in rows):
        part = [r for r in rows if r[scale_of] == scale]
        groups = [(label, [_finite(r[f.name]) for r in part])
                  for label, f in (("|b|", registry.RANK_BIAS), ("σ", registry.RANK_SIGMA),
                                   ("RMSE", registry.RANK_RMSE))]  # fmt: skip
        rmse = np.array(groups[2][1])
        best = int(np.nanargmin(rmse)) if np.isfinite(rmse).any() else None
        ref = refs.get(scale)
        line = None
        if ref is not None:
            line = svg.Reference(f"reference σ {fmt(ref[sigma], 3)}", _finite(ref[sigma]))
        caption = (f"|b|, σ and RMSE per method and budget, topic-set size {scale}·n "
                   "(★ least RMSE; dashed: σ of the full qrels)")  # fmt: skip
        charts.append(svg.bars([str(r[registry.BUDGET_METHOD.name]) for r in part], groups,
                               "distance 1 − τ from the true ranking (lower is better)", caption,
                               best=best, reference=line,
                               supergroups=[f"budget {r[registry.BUDGET_BUDGET.name]}"
                                            for r in part]))  # fmt: skip
    return ['<div class="charts">\n' + "\n".join(charts) + "\n</div>"] if charts else []


# --------------------------------------------------------------------------- page


def _counts(report: Report) -> list[tuple[str, str]]:
    """Runs, topics and measures, as the report states them."""
    blocks = list(report.measure_blocks()) if _has_measures(report) else []
    out = []
    if blocks:
        _, block = blocks[0]
        leaves = {str(k): v for k, v in block.items if is_leaf(v)}
        t = _systems(block)
        runs = leaves.get(registry.N_SYSTEMS.name, len(t.rows) if t is not None else None)
        if runs is not None:
            out.append(("runs", str(runs)))
        if leaves.get(registry.N_TOPICS.name) is not None:
            out.append(("topics", str(leaves[registry.N_TOPICS.name])))
        out.append(("measures", ", ".join(name for name, _ in blocks)))
        return out
    # a report without measure blocks (budget) may still state them at its top
    leaves = {str(k): v for k, v in report.body.items if is_leaf(v)}
    for label, key in (("runs", registry.N_SYSTEMS.name), ("topics", registry.N_TOPICS.name),
                       ("measures", "measure")):  # fmt: skip
        if leaves.get(key) is not None:
            out.append((label, str(leaves[key])))
    return out


def _has_measures(report: Report) -> bool:
    listed = registry.MEASURES in report.body.keys()  # noqa: SIM118 (a Section, not a dict)
    return bool(report.blocks) or report.measure is not None or listed


def _fields(node: Any, out: dict[tuple[str, str], Field]) -> None:
    """Every registry field the page shows, in order of first appearance."""
    if isinstance(node, Table):
        for f in node.fields:
            out.setdefault((f.name, f.meaning), f)
        for child in node.children or ():
            _fields(child, out)
    elif isinstance(node, Section):
        for k, v in node.items:
            if isinstance(k, Field):
                out.setdefault((k.name, k.meaning), k)
            _fields(v, out)


def _glossary(report: Report) -> list[str]:
    """One line per field on the page: its meaning and which way is better."""
    found: dict[tuple[str, str], Field] = {}
    _fields(report.body, found)
    if not found:
        return []
    way = {"higher": " ↑ higher is better.", "lower": " ↓ lower is better."}
    items = "\n".join(
        f"<dt>{escape(f.name)}{_direction(f.better)}</dt>"
        f"<dd>{escape(f.meaning[:1].upper() + f.meaning[1:])}.{way.get(f.better or '', '')}</dd>"
        for f in found.values()
    )
    return [f'<section class="glossary">\n<h2>What the numbers mean</h2>\n<dl>\n{items}\n'
            "</dl>\n</section>"]  # fmt: skip


def _notes(report: Report) -> list[str]:
    """The report's notes, as stderr prints them."""
    if not report.notes:
        return []
    items = "\n".join(f"<li>bvtest: note: {escape(n)}</li>" for n in report.notes)
    return [f'<aside class="notes">\n<h2>Notes</h2>\n<ul>\n{items}\n</ul>\n</aside>']


def _banner(report: Report) -> list[str]:
    """check: whether every gate held."""
    body = report.body
    if registry.CHECK_PASSED not in body or registry.CHECK_VERDICTS not in body:
        return []
    passed = bool(plain(body.get(registry.CHECK_PASSED)))
    verdicts = body.get(registry.CHECK_VERDICTS)
    failed = 0
    if isinstance(verdicts, Records):
        failed = sum(1 for v in verdicts.items
                     if verdicts.as_json(v).get(registry.CHECK_PASSED) is False)  # fmt: skip
    if passed:
        return ['<p class="banner pass">PASS — every gate holds</p>']
    return [f'<p class="banner fail">FAIL — {failed or "a"} gate(s) failed</p>']


def _names(names: Sequence[str]) -> str:
    return ", ".join(escape(n) for n in names) or "none"


def _summary(block: Section, digits: int) -> list[str]:
    """A measure's headline: the tradeoff, the least-MSE run, the Pareto set
    (rankings: the least-RMSE collection, overall and per reference row)."""
    lines = []
    if registry.TRADEOFF in block and isinstance(block.get(registry.TRADEOFF), Section):
        tr = leaves_of(block.get(registry.TRADEOFF))
        if registry.PEARSON.name in tr:
            r, p = tr[registry.PEARSON.name], tr.get(registry.PEARSON_P.name)
            text = f"Bias²–Var tradeoff across runs: Pearson r = {_text(r, digits)}"
            if p is not None:
                text += f" (p = {escape(fmt(PValue(_finite(p)), digits))})"
            if registry.SPEARMAN.name in tr:
                text += f", Spearman ρ = {_text(tr[registry.SPEARMAN.name], digits)}"
                sp = tr.get(registry.SPEARMAN_P.name)
                if sp is not None:
                    text += f" (p = {escape(fmt(PValue(_finite(sp)), digits))})"
            lines.append(text)
    t = _systems(block)
    if t is not None and t.rows:
        for f, how, word in ((registry.MSE, np.nanargmin, "least MSE"),
                             (registry.MEAN, np.nanargmax, "highest mean"),
                             (registry.VARIATIONS_MU, np.nanargmax, "highest μ"),
                             (registry.RANK_RMSE, np.nanargmin, "least RMSE")):  # fmt: skip
            if f in t.fields and np.isfinite(t.column(f)).any():
                i = int(how(t.column(f)))
                lines.append(f"{word}: {escape(t.rows[i])} ({_text(t.column(f)[i], digits)})")
        if registry.BIAS2 in t.fields and registry.VAR in t.fields:
            front = [r for r, on in zip(t.rows, _front(t), strict=True) if on]
            lines.append(f"Pareto set of (Bias², Var): {_names(front)}")
    matrix = block.get(registry.RANK_MATRIX) if registry.RANK_MATRIX in block else None
    if isinstance(matrix, Section):
        rmse = next((v for k, v in matrix.items if str(k) == registry.PAIR_RMSE.name), None)
        if isinstance(rmse, Section):
            for g, row in rmse.items:
                values = {str(x): _finite(v) for x, v in leaves_of(row).items() if str(x) != str(g)}
                values = {x: v for x, v in values.items() if math.isfinite(v)}
                if values:
                    x = min(values, key=values.__getitem__)
                    lines.append(f"against {escape(str(g))}: least RMSE {escape(x)} "
                                 f"({_text(values[x], digits)})")  # fmt: skip
    if not lines:
        return []
    items = "\n".join(f"<li>{line}</li>" for line in lines)
    return [f'<div class="summary">\n<ul>\n{items}\n</ul>\n</div>']


def leaves_of(node: Any) -> dict[str, Any]:
    return {str(k): v for k, v in node.items if is_leaf(v)} if isinstance(node, Section) else {}


def render_html(report: Report, digits: int = 4, page: Page | None = None) -> str:
    """The whole page; ends with a newline."""
    page = page or Page()
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(page.title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        + render_fragment(report, digits, page)
        + "</body>\n</html>\n"
    )


def render_fragment(report: Report, digits: int = 4, page: Page | None = None) -> str:
    """What the page's ``<body>`` holds (a notebook shows it): the header, the
    notes, the charts and tables of every measure and the JSON document as
    data; ends with a newline."""
    page = page or Page()
    facts = [*page.inputs, *_counts(report)]
    if page.version:
        facts.append(("bvtest", page.version))
    if page.command:
        facts.append(("command", page.command))
    dl = "\n".join(
        f"<dt>{escape(k)}</dt><dd>"
        + (f"<code>{escape(v)}</code>" if k == "command" else escape(v))
        + "</dd>"
        for k, v in facts
    )
    parts = [f"<h1>{escape(page.title)}</h1>", *_banner(report)]
    parts += [f'<dl class="inputs">\n{dl}\n</dl>', *_notes(report)]
    blocks = list(report.measure_blocks()) if _has_measures(report) else []
    if len(blocks) > 1:
        links = "\n".join(
            f'<li><a href="#measure-{i}">{escape(m)}</a></li>' for i, (m, _) in enumerate(blocks)
        )
        parts.append(f'<nav class="toc">\n<h2>Measures</h2>\n<ol>\n{links}\n</ol>\n</nav>')
    if len(blocks) > 1:
        heads = [f"<li><b>{escape(m)}</b><ul>" + "".join(
            line.replace('<div class="summary">', "").replace("</div>", "")
            for line in _summary(b, digits)) + "</ul></li>" for m, b in blocks]  # fmt: skip
        if any("<li>" in h[4:] for h in heads):
            parts.append('<div class="summary">\n<h2>Summary</h2>\n<ul>\n'
                         + "\n".join(heads) + "\n</ul>\n</div>")  # fmt: skip
    parts += _glossary(report)
    parts += _budget_charts(report)
    if report.measure is None:
        top = tuple((k, v) for k, v in report.body.items if str(k) != registry.MEASURES)
        settings = Section(top)
        parts += _section("", settings, digits, 2)
    named = report.body.get(registry.BASELINE) if registry.BASELINE in report.body.keys() else None  # noqa: SIM118 (a Section, not a dict)
    baseline = str(named) if isinstance(named, str) else None
    for i, (measure, block) in enumerate(blocks):
        parts.append(f'<section class="measure" id="measure-{i}">\n<h2>{escape(measure)}</h2>')
        parts += _summary(block, digits)
        parts += _charts(measure, block, baseline)
        parts += _section("", block, digits, 3)
        parts.append("</section>")
    # "<" as \u003c: no run name can end the data block or open a comment in it
    data = json.dumps(document(report), allow_nan=False).replace("<", "\\u003c")
    return (
        "\n".join(parts) + f'\n<script type="application/json" id="bvtest-data">{data}</script>\n'
    )
