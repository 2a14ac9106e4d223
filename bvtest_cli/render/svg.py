"""Charts as inline SVG text for the HTML page (:mod:`bvtest_cli.render.html`).

Four kinds, each a ``<figure>`` holding one ``<svg>`` and a caption: a
scatter (one point per run, optional error bars on both axes, a marked and
joined front), lines (one series per run over a numeric x), grouped bars,
and a grid (runs × runs). Every run's mark carries the run's name as its
accessible name (an SVG ``<title>`` child, which browsers also show on
hover); decorations (axes, error bars, labels) are ``aria-hidden`` and
unnamed, so each run names exactly one element. The axes' ranges hold every
mark and every error bar whole. Hand-written rather than matplotlib's SVG
backend: the page needs no optional dependency, and the marks need classes,
``data-*`` attributes and titles that matplotlib does not write.

Readable on paper: every run is named by visible text. A scatter labels
each point beside it (greedy placement in priority order: no label over
another label, a mark, a tick label or an axis title, none outside the
frame; a label that finds no place within reach of its point goes further
out, joined to it by a leader line). Lines are labelled level with their
right-hand end, in a column outside the frame, spread apart so no two
touch and joined to their end by a leader line. Ten colours times four dash
patterns give 40 distinct line styles. With more than :data:`MAX_NAMED`
runs only the highlighted ones (chosen by the caller) are coloured and
named, the rest drawn in grey and listed by name under the chart.

Text widths are estimated from DejaVu Sans' advance widths (the widest of
the common sans fonts), so the layout errs towards room to spare.

May import: nothing of bvtest (pure text from numbers).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 72, 20, 16, 52
#: Runs named individually at most; beyond, only the highlighted ones.
MAX_NAMED = 20
# Tableau's ten colours: distinct in print and for the common colour blindnesses.
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)  # fmt: skip
#: Dash patterns, one per round of the palette: 40 distinct line styles.
DASHES = ("", "6 3", "2 2", "8 3 2 3")
GREY = "#c8c8c8"
FONT = 12  # px, the stylesheet's svg text size
LINE = 15  # px between two labels' baselines (DejaVu's ascent + descent is 14 px)
ASCENT, DESCENT = 11.5, 3.5  # a label's box around its baseline
#: The farthest a label sits from its point without a leader line.
REACH = 36


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def dash(i: int) -> str:
    return DASHES[(i // len(PALETTE)) % len(DASHES)]


def _num(value: float) -> str:
    """A coordinate: two decimals, no negative zero (identical bytes everywhere)."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


# DejaVu Sans advance widths in em, by character class.
_NARROW = set("ijlI.,:;'|!")
_SEMI = set('ft()[]{}-r /\\"`')
_WIDE = set("mwMW@%")


def text_width(text: str, size: float = FONT) -> float:
    """The width of ``text`` in px at ``size`` px (estimated, on the wide side)."""
    em = 0.0
    for ch in text:
        if ch in _NARROW:
            em += 0.30
        elif ch in _SEMI:
            em += 0.42
        elif ch in _WIDE:
            em += 1.0
        elif ch.isupper():
            em += 0.75
        elif ch.isascii():
            em += 0.64
        else:
            em += 0.8
    return em * size + 2


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
class Box:
    """A rectangle in px: left, top, right, bottom."""

    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box, gap: float = 1.0) -> bool:
        return not (
            self.x1 + gap <= other.x0
            or other.x1 + gap <= self.x0
            or self.y1 + gap <= other.y0
            or other.y1 + gap <= self.y0
        )

    def inside(self, other: Box) -> bool:
        return (
            self.x0 >= other.x0
            and self.x1 <= other.x1
            and self.y0 >= other.y0
            and self.y1 <= other.y1
        )

    def distance(self, x: float, y: float) -> float:
        dx = max(self.x0 - x, 0.0, x - self.x1)
        dy = max(self.y0 - y, 0.0, y - self.y1)
        return math.hypot(dx, dy)

    def nearest(self, x: float, y: float) -> tuple[float, float]:
        return min(max(x, self.x0), self.x1), min(max(y, self.y0), self.y1)


@dataclass(frozen=True)
class Axes:
    """A plotting frame: data ranges (from the ticks) mapped to the drawing
    area, which lies ``left``, ``right``, ``top`` and ``bottom`` px inside a
    ``width`` × ``height`` picture."""

    xticks: list[float]
    yticks: list[float]
    xlabel: str
    ylabel: str
    width: float = WIDTH
    height: float = HEIGHT
    left: float = LEFT
    right: float = RIGHT
    top: float = TOP
    bottom: float = BOTTOM

    def x(self, value: float) -> float:
        lo, hi = self.xticks[0], self.xticks[-1]
        return self.left + (value - lo) / (hi - lo) * (self.width - self.left - self.right)

    def y(self, value: float) -> float:
        lo, hi = self.yticks[0], self.yticks[-1]
        return (
            self.height
            - self.bottom
            - (value - lo) / (hi - lo) * (self.height - self.top - self.bottom)
        )

    @property
    def area(self) -> Box:
        return Box(self.left, self.top, self.width - self.right, self.height - self.bottom)

    def frame(self, xtick_labels: Sequence[str] | None = None) -> str:
        """Grid, ticks, tick labels and axis titles (decoration: aria-hidden)."""
        out = ['<g class="axes" aria-hidden="true">']
        x0, x1 = self.left, self.width - self.right
        y0, y1 = self.height - self.bottom, self.top
        for i, t in enumerate(self.xticks):
            px = _num(self.x(t))
            label = xtick_labels[i] if xtick_labels is not None else _tick_text(t, self.xticks)
            out.append(f'<line class="grid" x1="{px}" y1="{y0}" x2="{px}" y2="{y1}"/>')
            out.append(
                f'<text class="tick" x="{px}" y="{y0 + 20}" text-anchor="middle">'
                f"{escape(label)}</text>"
            )
        for t in self.yticks:
            py = _num(self.y(t))
            out.append(f'<line class="grid" x1="{x0}" y1="{py}" x2="{x1}" y2="{py}"/>')
            out.append(
                f'<text class="tick" x="{x0 - 6}" y="{_num(self.y(t) + 4)}" text-anchor="end">'
                f"{_tick_text(t, self.yticks)}</text>"
            )
        out.append(
            f'<rect class="frame" x="{_num(x0)}" y="{_num(y1)}" width="{_num(x1 - x0)}" '
            f'height="{_num(y0 - y1)}"/>'
        )
        out.append(
            f'<text class="axis-title" x="{_num((x0 + x1) / 2)}" y="{_num(self.height - 12)}" '
            f'text-anchor="middle">{escape(self.xlabel)}</text>'
        )
        out.append(
            f'<text class="axis-title" transform="translate(18 {_num((y0 + y1) / 2)}) '
            f'rotate(-90)" text-anchor="middle">{escape(self.ylabel)}</text>'
        )
        out.append("</g>")
        return "\n".join(out)

    def taken(self) -> list[Box]:
        """The boxes of the tick labels and axis titles (no label may cover one)."""
        x0, y0 = self.left, self.height - self.bottom
        boxes = []
        for t in self.xticks:
            w = text_width(_tick_text(t, self.xticks))
            boxes.append(Box(self.x(t) - w / 2, y0 + 20 - ASCENT, self.x(t) + w / 2, y0 + 24))
        for t in self.yticks:
            w = text_width(_tick_text(t, self.yticks))
            boxes.append(Box(x0 - 6 - w, self.y(t) + 4 - ASCENT, x0 - 6, self.y(t) + 8))
        return boxes


def _range(values: Sequence[float]) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    return (min(finite), max(finite)) if finite else (0.0, 1.0)


def _svg(label: str, body: list[str], width: float = WIDTH, height: float = HEIGHT) -> str:
    w, h = _num(width).removesuffix(".00"), _num(height).removesuffix(".00")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" '
        f'width="{w}" height="{h}" role="img" aria-label="{escape(label)}">\n'
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


def figure(kind: str, caption: str, svg: str, note: str = "") -> str:
    """A chart and its caption; ``note`` (the runs drawn grey) under it."""
    extra = f'\n<p class="chart-note">{escape(note)}</p>' if note else ""
    return (
        f'<figure class="chart {kind}">\n{svg}\n'
        f"<figcaption>{escape(caption)}</figcaption>{extra}\n</figure>"
    )


def shared_prefix(names: Sequence[str]) -> str:
    """A prefix every name shares up to a separator (``input.``), dropped from
    labels; none when a name would be left empty."""
    if len(names) < 2:
        return ""
    common = names[0]
    for n in names[1:]:
        while not n.startswith(common):
            common = common[:-1]
    cut = max(common.rfind(c) for c in "._-/: ") + 1
    prefix = common[:cut]
    return prefix if prefix and all(len(n) > len(prefix) for n in names) else ""


def _grey_note(greyed: Sequence[str]) -> str:
    if not greyed:
        return ""
    return f"{len(greyed)} runs in grey (not highlighted): " + ", ".join(greyed)


def _label(name: str, text: str, x: float, y: float) -> str:
    return (
        f'<text class="label" data-run="{escape(name)}" x="{_num(x)}" y="{_num(y)}">'
        f"{escape(text)}</text>"
    )


def _leader(name: str, x1: float, y1: float, x2: float, y2: float, style: str = "") -> str:
    return (
        f'<line class="leader" data-run="{escape(name)}" x1="{_num(x1)}" y1="{_num(y1)}" '
        f'x2="{_num(x2)}" y2="{_num(y2)}"{style}/>'
    )


@dataclass(frozen=True)
class Point:
    """One run on a scatter: its position, optional intervals, whether on the
    front, and whether highlighted (named when the runs are many)."""

    name: str
    x: float
    y: float
    x_interval: tuple[float, float] | None = None
    y_interval: tuple[float, float] | None = None
    front: bool = False
    highlight: bool = False


def _candidates(px: float, py: float, w: float) -> list[tuple[float, float]]:
    """Baseline-left positions of a label of width ``w`` around (px, py),
    nearest first: right, left, above, below and the diagonals."""
    h = ASCENT + DESCENT
    out = []
    for r in (6, 12, 20, 28):
        d = r * 0.7
        out += [
            (px + r, py + ASCENT - h / 2),  # right, level
            (px - r - w, py + ASCENT - h / 2),  # left, level
            (px + d, py - d - DESCENT),  # above right
            (px - d - w, py - d - DESCENT),  # above left
            (px + d, py + d + ASCENT),  # below right
            (px - d - w, py + d + ASCENT),  # below left
            (px - w / 2, py - r - DESCENT),  # above
            (px - w / 2, py + r + ASCENT),  # below
        ]
    return out


def _label_box(x: float, y: float, w: float) -> Box:
    return Box(x, y - ASCENT, x + w, y + DESCENT)


def place_scatter_labels(
    marks: Sequence[tuple[str, float, float]], area: Box, taken: list[Box]
) -> list[tuple[str, float, float, bool]]:
    """(name, x, y, leader) of each label, in the order given (most important
    first): the nearest free spot around its point inside ``area``, clear of
    ``taken``, the other labels and every mark; else the nearest free spot in
    the frame, joined by a leader line. None is left out: if the frame is
    full, the label may cover a mark (never a label)."""
    dots = [Box(x - 5, y - 5, x + 5, y + 5) for _, x, y in marks]
    placed: list[tuple[str, float, float, bool]] = []
    boxes = list(taken)
    for k, (name, px, py) in enumerate(marks):
        w = text_width(name)
        others = [d for j, d in enumerate(dots) if j != k]
        spot = None
        for x, y in _candidates(px, py, w):
            box = _label_box(x, y, w)
            if box.inside(area) and not any(box.overlaps(b) for b in boxes + others):
                spot = (x, y, False)
                break
        if spot is None:
            spot = _far_spot(px, py, w, area, boxes, others) or _far_spot(
                px, py, w, area, boxes, []
            )
        if spot is None:  # nowhere in the frame: its right-hand corner, over the rest
            spot = (area.x1 - w - 2, area.y0 + ASCENT + 2, True)
        x, y, leader = spot
        box = _label_box(x, y, w)
        leader = leader or box.distance(px, py) > REACH
        boxes.append(box)
        placed.append((name, x, y, leader))
    return placed


def _far_spot(
    px: float, py: float, w: float, area: Box, boxes: list[Box], dots: list[Box]
) -> tuple[float, float, bool] | None:
    """The free label position nearest (px, py) on an 6-px lattice of the frame."""
    best: tuple[float, float, float] | None = None
    y = area.y0 + ASCENT + 1
    while y + DESCENT <= area.y1 - 1:
        x = area.x0 + 1
        while x + w <= area.x1 - 1:
            box = _label_box(x, y, w)
            d = box.distance(px, py)
            if (best is None or d < best[0]) and not any(
                box.overlaps(b) for b in itertools.chain(boxes, dots)
            ):
                best = (d, x, y)
            x += 6
        y += 6
    return None if best is None else (best[1], best[2], True)


def scatter(points: Sequence[Point], xlabel: str, ylabel: str, caption: str,
            prefix: str = "") -> str:  # fmt: skip
    """One point per run; front points (class ``pareto``) joined by a staircase
    (the boundary of the region they dominate); intervals as error bars.
    Every point is labelled (with more than MAX_NAMED runs, only the
    highlighted and front ones; the others are grey and listed under the
    chart). ``prefix``: dropped from the labels."""
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
        body.append(
            f'<polyline class="pareto-front" points="{coords}" fill="none" aria-hidden="true"/>'
        )
    many = len(shown) > MAX_NAMED
    named = [p for p in shown if not many or p.front or p.highlight]
    greyed = [p.name for p in points if p not in named]
    marks = []
    order = sorted(points, key=lambda p: p in named)  # grey points beneath
    for p in order:
        if p not in shown:
            continue
        i = points.index(p)
        kind = "point pareto" if p.front else "point"
        name = f"{p.name} (Pareto front)" if p.front else p.name
        fill = colour(i) if not many else ("#4e79a7" if p in named else GREY)
        marks.append(
            f'<circle class="{kind}" data-run="{escape(p.name)}" '
            f'data-pareto="{"true" if p.front else "false"}" cx="{_num(axes.x(p.x))}" '
            f'cy="{_num(axes.y(p.y))}" r="{6 if p.front else 4.5}" fill="{fill}">'
            f"<title>{escape(name)}</title></circle>"
        )
    body += _group("marks", marks, decoration=False)
    # front first, then the rest from the outside in: the crowd's labels go last
    mx = sorted(p.x for p in shown)[len(shown) // 2] if shown else 0.0
    my = sorted(p.y for p in shown)[len(shown) // 2] if shown else 0.0
    sx = (axes.xticks[-1] - axes.xticks[0]) or 1.0
    sy = (axes.yticks[-1] - axes.yticks[0]) or 1.0
    ranked = sorted(
        named, key=lambda p: (not p.front, -math.hypot((p.x - mx) / sx, (p.y - my) / sy))
    )
    spots = place_scatter_labels(
        [(p.name[len(prefix) :], axes.x(p.x), axes.y(p.y)) for p in ranked],
        axes.area,
        axes.taken(),
    )
    labels, leaders = [], []
    for p, (text, x, y, leader) in zip(ranked, spots, strict=True):
        labels.append(_label(p.name, text, x, y))
        if leader:
            bx, by = _label_box(x, y, text_width(text)).nearest(axes.x(p.x), axes.y(p.y))
            leaders.append(_leader(p.name, axes.x(p.x), axes.y(p.y), bx, by))
    body += _group("leaders", leaders)
    body += _group("labels", labels)
    return figure("scatter", caption, _svg(caption, body), _grey_note(greyed))


@dataclass(frozen=True)
class Series:
    """One run's line: y at each x (NaN: no value there, the line breaks)."""

    name: str
    ys: tuple[float, ...]
    highlight: bool = False


def spread(wanted: Sequence[float], lo: float, hi: float, gap: float = LINE) -> list[float]:
    """Positions as near ``wanted`` (sorted ascending) as they can be, at least
    ``gap`` apart, inside [lo, hi] (when they fit; else from ``lo`` down)."""
    out = [min(max(w, lo), hi) for w in wanted]
    for i in range(1, len(out)):
        out[i] = max(out[i], out[i - 1] + gap)
    if out and out[-1] > hi:
        out[-1] = hi
        for i in range(len(out) - 2, -1, -1):
            out[i] = min(out[i], out[i + 1] - gap)
        if out[0] < lo:  # more labels than room: a column from lo down
            out = [lo + i * gap for i in range(len(out))]
    return out


def lines(xs: Sequence[float], series: Sequence[Series], xlabel: str, ylabel: str,
          caption: str, prefix: str = "") -> str:  # fmt: skip
    """One line per run over a numeric x, with a marker per value; the run's
    group (line and markers) carries its name. Each named line has a label
    level with its right-hand end, in a column right of the frame, joined to
    the end by a leader line in the line's colour and dash; a run with no
    value at all is listed under the chart. ``prefix``: dropped from labels."""
    ys = [y for s in series for y in s.ys]
    many = len(series) > MAX_NAMED
    named = [s for s in series if not many or s.highlight]
    texts = {s.name: s.name[len(prefix) :] for s in named}
    widest = max((text_width(t) for t in texts.values()), default=0.0)
    plot_h = max(HEIGHT - TOP - BOTTOM, LINE * (len(named) + 1))
    axes = Axes(
        nice_ticks(*_range(list(xs))),
        nice_ticks(*_range(ys)),
        xlabel,
        ylabel,
        width=WIDTH + widest + 24,
        height=TOP + plot_h + BOTTOM,
        right=RIGHT + widest + 24,
    )
    body = [axes.frame()]
    ends: list[tuple[Series, float, float]] = []
    style_of = {s.name: i for i, s in enumerate(named)}
    for s in sorted(series, key=lambda e: e.name in style_of):
        pieces: list[list[tuple[float, float]]] = [[]]
        for x, y in zip(xs, s.ys, strict=True):
            if math.isfinite(y):
                pieces[-1].append((axes.x(x), axes.y(y)))
            elif pieces[-1]:
                pieces.append([])
        k = style_of.get(s.name)
        c = GREY if k is None else colour(k)
        d = "" if k is None else dash(k)
        style = f"--c:{c}" + (f";--d:{d}" if d else "")
        kind = "series" if k is not None else "series grey"
        parts = [f'<g class="{kind}" data-run="{escape(s.name)}" style="{style}">']
        parts.append(f"<title>{escape(s.name)}</title>")
        for piece in pieces:
            if len(piece) > 1:
                coords = " ".join(f"{_num(x)},{_num(y)}" for x, y in piece)
                parts.append(f'<polyline points="{coords}" fill="none"/>')
        parts += [f'<circle cx="{_num(x)}" cy="{_num(y)}" r="2.5"/>' for p in pieces for x, y in p]
        parts.append("</g>")
        body.append("\n".join(parts))
        last = [pt for p in pieces for pt in p]
        if k is not None and last:
            ends.append((s, *last[-1]))
    ends.sort(key=lambda e: e[2])
    area = axes.area
    at = spread([y + 4 for _, _, y in ends], area.y0 + ASCENT, area.y1)
    labels, leaders = [], []
    x_label = area.x1 + 18
    for (s, ex, ey), ly in zip(ends, at, strict=True):
        k = style_of[s.name]
        style = f' style="stroke:{colour(k)};stroke-dasharray:{dash(k) or "none"}"'
        leaders.append(_leader(s.name, ex, ey, x_label - 3, ly - 4, style))
        labels.append(_label(s.name, texts[s.name], x_label, ly))
    body += _group("leaders", leaders)
    body += _group("labels", labels)
    drawn = {s.name for s, _, _ in ends}
    empty = [s.name for s in named if s.name not in drawn]
    note = _grey_note([s.name for s in series if s.name not in style_of])
    if empty:
        note = (note + "; " if note else "") + "no value to draw: " + ", ".join(empty)
    return figure("lines", caption, _svg(caption, body, axes.width, axes.height), note)


@dataclass(frozen=True)
class Reference:
    """A horizontal line across a bar chart (the reference collection's σ)."""

    label: str
    value: float


def bars(categories: Sequence[str], groups: Sequence[tuple[str, Sequence[float]]],
         ylabel: str, caption: str, best: int | None = None,
         reference: Reference | None = None,
         supergroups: Sequence[str] = ()) -> str:  # fmt: skip
    """Grouped bars: for each category (a collection), one bar per group
    (|b|, σ, RMSE); each bar is named ``category group value``. ``best``:
    the category marked ★ (its last group's bar); ``reference``: a dashed
    line with its label; ``supergroups``: a second row of category labels
    (a budget per run of methods), written once where it changes."""
    values = [v for _, vs in groups for v in vs] + [0.0]
    if reference is not None:
        values.append(reference.value)
    widest = max((text_width(c) for c in categories), default=0.0)
    band_min = widest + 10
    width = max(WIDTH, LEFT + RIGHT + band_min * len(categories))
    bottom = BOTTOM + (LINE if supergroups else 0)
    axes = Axes([0.0, 1.0], nice_ticks(*_range(values)), "", ylabel,
                width=width, height=HEIGHT + (LINE if supergroups else 0), bottom=bottom,
                top=TOP + 20)  # fmt: skip
    band = (width - LEFT - RIGHT) / max(len(categories), 1)
    bar_w = band * 0.8 / max(len(groups), 1)
    body = [axes.frame(xtick_labels=["", ""])]
    labels = []
    y_cat = axes.height - bottom + 16
    for c, name in enumerate(categories):
        x0 = LEFT + c * band + band * 0.1
        mark = " ★" if best == c else ""
        labels.append(
            f'<text class="category" x="{_num(x0 + band * 0.4)}" y="{_num(y_cat)}" '
            f'text-anchor="middle">{escape(name)}{mark}</text>'
        )
        if supergroups and (c == 0 or supergroups[c] != supergroups[c - 1]):
            here = supergroups[c]
            run = len(list(itertools.takewhile(here.__eq__, supergroups[c:])))
            labels.append(
                f'<text class="category" x="{_num(LEFT + (c + run / 2) * band)}" '
                f'y="{_num(y_cat + LINE)}" text-anchor="middle">{escape(supergroups[c])}</text>'
            )
        for g, (group, vs) in enumerate(groups):
            v = vs[c]
            if not math.isfinite(v):
                continue
            top, base = axes.y(max(v, 0.0)), axes.y(min(v, 0.0))
            outline = ' stroke="#1d1d1f" stroke-width="2"' if best == c else ""
            body.append(
                f'<rect class="bar" data-collection="{escape(name)}" data-field="{escape(group)}" '
                f'x="{_num(x0 + g * bar_w)}" y="{_num(top)}" width="{_num(bar_w)}" '
                f'height="{_num(base - top)}" fill="{colour(g)}"{outline}>'
                f"<title>{escape(name)} {escape(group)} {v:.4f}</title></rect>"
            )
    if reference is not None and math.isfinite(reference.value):
        ry = axes.y(reference.value)
        body.append(
            f'<line class="reference" x1="{LEFT}" y1="{_num(ry)}" x2="{_num(width - RIGHT)}" '
            f'y2="{_num(ry)}" aria-hidden="true"/>'
        )
    body += _group("labels", labels)
    legend: list[str] = []
    x: float = LEFT
    entries = [(colour(g), group) for g, (group, _) in enumerate(groups)]
    for fill, text in entries:
        legend.append(
            f'<rect x="{_num(x)}" y="{TOP + 3}" width="10" height="10" fill="{fill}"/>'
            f'<text class="legend" x="{_num(x + 14)}" y="{TOP + 12}">{escape(text)}</text>'
        )
        x += 14 + text_width(text) + 16
    if reference is not None:
        legend.append(
            f'<line class="reference" x1="{_num(x)}" y1="{TOP + 8}" x2="{_num(x + 18)}" '
            f'y2="{TOP + 8}"/><text class="legend" x="{_num(x + 22)}" y="{TOP + 12}">'
            f"{escape(reference.label)}</text>"
        )
        x += 22 + text_width(reference.label) + 16
    if best is not None:
        legend.append(f'<text class="legend" x="{_num(x)}" y="{TOP + 12}">★ least RMSE</text>')
    body += _group("legend", legend)
    return figure("bars", caption, _svg(caption, body, axes.width, axes.height))


@dataclass(frozen=True)
class Cell:
    """A grid cell: its symbol (▲, ▼ or ·), class and the numbers for its title."""

    symbol: str
    kind: str
    title: str


@dataclass(frozen=True)
class Grid:
    """Runs × runs: ``cells[i][j]`` compares row i with column j (None: no pair)."""

    names: list[str]
    cells: list[list[Cell | None]] = field(default_factory=list)


def grid(g: Grid, caption: str, prefix: str = "") -> str:
    """A runs × runs overview: rows and columns in the given order (columns
    numbered, the numbers keyed to the row names), a symbol per cell."""
    n = len(g.names)
    names = [f"{i + 1} {name[len(prefix) :]}" for i, name in enumerate(g.names)]
    left = max((text_width(t) for t in names), default=0.0) + 10
    cell = max(14.0, min(28.0, (WIDTH - left - RIGHT) / max(n, 1)))
    top = 24.0
    width = left + cell * n + RIGHT
    height = top + cell * n + 10
    body = []
    for i, text in enumerate(names):
        y = top + cell * i + cell / 2 + 4
        body.append(f'<text class="row" x="{_num(left - 6)}" y="{_num(y)}" text-anchor="end">'
                    f"{escape(text)}</text>")  # fmt: skip
    size = 10 if cell < 20 else 12
    for j in range(n):
        x = left + cell * j + cell / 2
        body.append(f'<text class="col" x="{_num(x)}" y="{_num(top - 6)}" text-anchor="middle" '
                    f'font-size="{size}">{j + 1}</text>')  # fmt: skip
    for i, row in enumerate(g.cells):
        for j, c in enumerate(row):
            if c is None:
                continue
            x, y = left + cell * j, top + cell * i
            body.append(
                f'<g class="cell {c.kind}"><rect x="{_num(x)}" y="{_num(y)}" '
                f'width="{_num(cell)}" height="{_num(cell)}"/><text x="{_num(x + cell / 2)}" '
                f'y="{_num(y + cell / 2 + 4)}" text-anchor="middle">{c.symbol}</text>'
                f"<title>{escape(c.title)}</title></g>"
            )
    return figure("grid", caption, _svg(caption, body, width, height))
