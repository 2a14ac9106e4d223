"""Charts as inline SVG text for the HTML page (:mod:`bvtest_cli.render.html`).

Three kinds, each a ``<figure>`` holding one ``<svg>`` and a caption: a
scatter (one point per run, optional error bars on both axes, a marked and
joined front), lines (one series per run over a numeric x) and grouped bars.
Every run's mark carries the run's name as its accessible name (an SVG
``<title>`` child, which browsers also show on hover); decorations (axes,
error bars, labels) are ``aria-hidden`` and unnamed, so each run names
exactly one element. The axes' ranges hold every mark and every error bar
whole. Hand-written rather than matplotlib's SVG backend: the page needs no
optional dependency, and the marks need classes, ``data-*`` attributes and
titles that matplotlib does not write.

May import: nothing of bvtest (pure text from numbers).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 72, 20, 16, 52
# Tableau's ten colours: distinct in print and for the common colour blindnesses.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)  # fmt: skip


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _num(value: float) -> str:
    """A coordinate: two decimals, no negative zero (identical bytes everywhere)."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (1, 2, 2.5 or 5 times a power of ten)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0, 1.0]
    if hi <= lo:
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    raw = (hi - lo) / count
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [round(k * step, 12) + 0.0 for k in range(first, last + 1)]


def _tick_text(value: float, ticks: Sequence[float]) -> str:
    """A tick label with as many decimals as the tick step needs (0.025 → 3)."""
    step = round(abs(ticks[1] - ticks[0]), 12) if len(ticks) > 1 else 1.0
    decimals = 0
    while decimals < 10 and abs(round(step, decimals) - step) > 1e-12:
        decimals += 1
    text = f"{value:.{decimals}f}"
    return "0" if float(text) == 0 else text


@dataclass(frozen=True)
class Axes:
    """A plotting frame: data ranges (from the ticks) mapped to the drawing area."""

    xticks: list[float]
    yticks: list[float]
    xlabel: str
    ylabel: str

    def x(self, value: float) -> float:
        lo, hi = self.xticks[0], self.xticks[-1]
        return LEFT + (value - lo) / (hi - lo) * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        lo, hi = self.yticks[0], self.yticks[-1]
        return HEIGHT - BOTTOM - (value - lo) / (hi - lo) * (HEIGHT - TOP - BOTTOM)

    def frame(self, xtick_labels: Sequence[str] | None = None) -> str:
        """Grid, ticks, tick labels and axis labels (decoration: aria-hidden)."""
        out = ['<g class="axes" aria-hidden="true">']
        x0, x1 = LEFT, WIDTH - RIGHT
        y0, y1 = HEIGHT - BOTTOM, TOP
        for i, t in enumerate(self.xticks):
            px = _num(self.x(t))
            label = xtick_labels[i] if xtick_labels is not None else _tick_text(t, self.xticks)
            out.append(f'<line class="grid" x1="{px}" y1="{y0}" x2="{px}" y2="{y1}"/>')
            out.append(f'<text x="{px}" y="{y0 + 16}" text-anchor="middle">{escape(label)}</text>')
        for t in self.yticks:
            py = _num(self.y(t))
            out.append(f'<line class="grid" x1="{x0}" y1="{py}" x2="{x1}" y2="{py}"/>')
            out.append(
                f'<text x="{x0 - 6}" y="{py}" text-anchor="end" dominant-baseline="middle">'
                f"{_tick_text(t, self.yticks)}</text>"
            )
        out.append(f'<rect class="frame" x="{x0}" y="{y1}" width="{x1 - x0}" height="{y0 - y1}"/>')
        out.append(
            f'<text x="{(x0 + x1) / 2}" y="{HEIGHT - 12}" text-anchor="middle">'
            f"{escape(self.xlabel)}</text>"
        )
        out.append(
            f'<text transform="translate(16 {(y0 + y1) / 2}) rotate(-90)" '
            f'text-anchor="middle">{escape(self.ylabel)}</text>'
        )
        out.append("</g>")
        return "\n".join(out)


def _range(values: Sequence[float]) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    return (min(finite), max(finite)) if finite else (0.0, 1.0)


def _svg(label: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(label)}">\n'
        + "\n".join(body)
        + "\n</svg>"
    )


def _group(kind: str, elements: Sequence[str], decoration: bool = True) -> list[str]:
    """A ``<g>`` of elements (none when empty); decoration is hidden from
    assistive technology, so only the runs' marks carry names."""
    if not elements:
        return []
    hidden = ' aria-hidden="true"' if decoration else ""
    return [f'<g class="{kind}"{hidden}>\n' + "\n".join(elements) + "\n</g>"]


def figure(kind: str, caption: str, svg: str) -> str:
    return (
        f'<figure class="chart {kind}">\n{svg}\n'
        f"<figcaption>{escape(caption)}</figcaption>\n</figure>"
    )


@dataclass(frozen=True)
class Point:
    """One run on a scatter: its position, optional intervals, whether on the front."""

    name: str
    x: float
    y: float
    x_interval: tuple[float, float] | None = None
    y_interval: tuple[float, float] | None = None
    front: bool = False


def scatter(points: Sequence[Point], xlabel: str, ylabel: str, caption: str) -> str:
    """One point per run; front points (class ``pareto``) joined by a staircase
    (the boundary of the region they dominate); intervals as error bars."""
    shown = [p for p in points if math.isfinite(p.x) and math.isfinite(p.y)]
    xs = [p.x for p in shown] + [v for p in shown if p.x_interval for v in p.x_interval]
    ys = [p.y for p in shown] + [v for p in shown if p.y_interval for v in p.y_interval]
    axes = Axes(nice_ticks(*_range(xs)), nice_ticks(*_range(ys)), xlabel, ylabel)
    body = [axes.frame()]
    bars = []
    for p in shown:
        cx, cy = _num(axes.x(p.x)), _num(axes.y(p.y))
        if p.x_interval and all(map(math.isfinite, p.x_interval)):
            lo, hi = (_num(axes.x(v)) for v in p.x_interval)
            bars.append(f'<line x1="{lo}" y1="{cy}" x2="{hi}" y2="{cy}"/>')
        if p.y_interval and all(map(math.isfinite, p.y_interval)):
            lo, hi = (_num(axes.y(v)) for v in p.y_interval)
            bars.append(f'<line x1="{cx}" y1="{lo}" x2="{cx}" y2="{hi}"/>')
    body += _group("errorbars", bars)
    front = sorted((p for p in shown if p.front), key=lambda p: (p.x, -p.y))
    if len(front) > 1:
        steps = [(front[0].x, front[0].y)]
        for a, b in itertools.pairwise(front):
            steps += [(b.x, a.y), (b.x, b.y)]
        coords = " ".join(f"{_num(axes.x(x))},{_num(axes.y(y))}" for x, y in steps)
        body.append(f'<polyline class="pareto-front" points="{coords}" aria-hidden="true"/>')
    marks = []
    for i, p in enumerate(points):
        if p not in shown:
            continue
        kind = "point pareto" if p.front else "point"
        name = f"{p.name} (Pareto front)" if p.front else p.name
        marks.append(
            f'<circle class="{kind}" data-run="{escape(p.name)}" '
            f'data-pareto="{"true" if p.front else "false"}" cx="{_num(axes.x(p.x))}" '
            f'cy="{_num(axes.y(p.y))}" r="{6 if p.front else 4.5}" fill="{colour(i)}">'
            f"<title>{escape(name)}</title></circle>"
        )
    body += _group("marks", marks, decoration=False)
    labels = [
        f'<text x="{_num(axes.x(p.x) + 8)}" y="{_num(axes.y(p.y) - 8)}">{escape(p.name)}</text>'
        for p in front
    ]
    body += _group("labels", labels)
    return figure("scatter", caption, _svg(caption, body))


@dataclass(frozen=True)
class Series:
    """One run's line: y at each x (NaN: no value there, the line breaks)."""

    name: str
    ys: tuple[float, ...]


def lines(xs: Sequence[float], series: Sequence[Series], xlabel: str, ylabel: str,
          caption: str) -> str:  # fmt: skip
    """One line per run over a numeric x, with a marker per value; the run's
    group (line and markers) carries its name."""
    ys = [y for s in series for y in s.ys]
    axes = Axes(nice_ticks(*_range(list(xs))), nice_ticks(*_range(ys)), xlabel, ylabel)
    body = [axes.frame()]
    for i, s in enumerate(series):
        pieces: list[list[tuple[float, float]]] = [[]]
        for x, y in zip(xs, s.ys, strict=True):
            if math.isfinite(y):
                pieces[-1].append((axes.x(x), axes.y(y)))
            elif pieces[-1]:
                pieces.append([])
        parts = [f'<g class="series" data-run="{escape(s.name)}" style="--c:{colour(i)}">']
        parts.append(f"<title>{escape(s.name)}</title>")
        for piece in pieces:
            if len(piece) > 1:
                coords = " ".join(f"{_num(x)},{_num(y)}" for x, y in piece)
                parts.append(f'<polyline points="{coords}"/>')
        parts += [f'<circle cx="{_num(x)}" cy="{_num(y)}" r="2.5"/>' for p in pieces for x, y in p]
        parts.append("</g>")
        body.append("\n".join(parts))
    return figure("lines", caption, _svg(caption, body))


def bars(categories: Sequence[str], groups: Sequence[tuple[str, Sequence[float]]],
         ylabel: str, caption: str) -> str:  # fmt: skip
    """Grouped bars: for each category (a collection), one bar per group
    (|b|, σ, RMSE); each bar is named ``category group value``."""
    values = [v for _, vs in groups for v in vs] + [0.0]
    axes = Axes([0.0, 1.0], nice_ticks(*_range(values)), "", ylabel)
    band = (WIDTH - LEFT - RIGHT) / max(len(categories), 1)
    width = band * 0.8 / max(len(groups), 1)
    body = [axes.frame(xtick_labels=["", ""])]
    labels = []
    for c, name in enumerate(categories):
        x0 = LEFT + c * band + band * 0.1
        labels.append(
            f'<text x="{_num(x0 + band * 0.4)}" y="{HEIGHT - BOTTOM + 16}" '
            f'text-anchor="middle">{escape(name)}</text>'
        )
        for g, (group, vs) in enumerate(groups):
            v = vs[c]
            if not math.isfinite(v):
                continue
            top, base = axes.y(max(v, 0.0)), axes.y(min(v, 0.0))
            body.append(
                f'<rect class="bar" data-collection="{escape(name)}" data-field="{escape(group)}" '
                f'x="{_num(x0 + g * width)}" y="{_num(top)}" width="{_num(width)}" '
                f'height="{_num(base - top)}" fill="{colour(g)}">'
                f"<title>{escape(name)} {escape(group)} {v:.4f}</title></rect>"
            )
    body += _group("labels", labels)
    legend = [
        f'<g aria-hidden="true"><rect x="{LEFT + 10 + 90 * g}" y="{TOP + 6}" width="10" '
        f'height="10" fill="{colour(g)}"/><text x="{LEFT + 24 + 90 * g}" y="{TOP + 15}">'
        f"{escape(group)}</text></g>"
        for g, (group, _) in enumerate(groups)
    ]
    body += legend
    return figure("bars", caption, _svg(caption, body))
