"""Figures of ``bvtest plot``: one row of three panels per measure.

Panels, left to right, for each measure of an ``eval`` report:

1. Bias², Var and Bias²+Var (= MSE) per run, runs sorted by Bias² ascending,
   as markers: runs are categories, so no line joins them (BV-Test Fig. 1).
   Vertical run names label the x axis; above TICK_LABEL_MAX_RUNS runs only
   every k-th is named and the axis label says so.
2. Bias² against Var, one point per run, with the Pearson and Spearman
   correlation of the result's ``tradeoff`` in the title (BV-Test §5.3),
   the Pareto front of (Bias², Var) drawn as a staircase through its runs,
   up to SCATTER_LABELS_MAX run names placed greedily without overlaps
   (lowest MSE first, then the front, then outliers) and, with ``--ci``, the
   runs' intervals as error bars.
3. GeoRisk against alpha, one line per run (Dinçer et al. 2016 Figs. 2–3),
   with a legend when there are at most LEGEND_MAX_RUNS runs; with negative
   scores GeoRisk is undefined and the panel says so.

``bvtest conditions --plot`` and ``bvtest variations --plot`` have their own
figures at the end of the module.

matplotlib is an optional dependency (``pip install 'bvtest[plot]'``): it is
imported only inside :func:`plot_report`, so the rest of the tool works
without it.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..errors import InputError
from ..io.files import checked_target, replacing
from ..report import registry
from ..report.model import Records, Report, Section, Table, leaves, table_of

#: Output formats, by file extension.
FIGURE_FORMATS: tuple[str, ...] = ("png", "svg", "pdf")
#: Above this many runs, panel 3 has no legend (it would hide the lines).
LEGEND_MAX_RUNS = 12
#: Above this many runs, panel 1 has no x tick labels (they would overlap).
TICK_LABEL_MAX_RUNS = 40
#: Longer run names are shortened in tick labels and legends, keeping the end,
#: which is where run names usually differ (``org_variant_k100.run``).
MAX_NAME_CHARS = 28
#: Tick labels of panel 1 and point labels of panel 2 are shorter still.
TICK_NAME_CHARS = 22
#: At most this many run names label the points of the Bias²–Var scatter.
SCATTER_LABELS_MAX = 12

_INSTALL_HINT = (
    "plotting needs matplotlib, which is not installed; "
    "install it with: pip install 'bvtest[plot]' (or pip install matplotlib)"
)


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed; the message says how to install it."""


def output_format(path: str) -> str:
    """The output format from the extension of ``path`` (ValueError if unsupported).

    Cheap and free of matplotlib, so the CLI calls it before any evaluation.
    """
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FIGURE_FORMATS:
        what = f"'.{ext}' is not a" if ext else "the name has no extension, so no"
        raise ValueError(
            f"cannot write a plot to {path!r}: {what} supported format; "
            f"use a file name ending in {', '.join('.' + f for f in FIGURE_FORMATS)}"
        )
    return ext


def check_output(path: str, inputs: Iterable[str] = ()) -> None:
    """Everything about the plot that can fail before evaluating (InputError):
    an empty path or one of the ``inputs``, the extension, matplotlib, the
    directory."""
    target = checked_target(path, inputs, "the plot")
    try:
        output_format(path)
        require_matplotlib()
    except (ValueError, PlotUnavailable) as exc:
        raise InputError(str(exc)) from None
    if not os.path.isdir(os.path.dirname(target)):
        raise InputError("cannot write the plot: no such directory", path)
    if os.path.isdir(target):
        raise InputError("cannot write the plot: is a directory", path)


def require_matplotlib() -> None:
    """Raise PlotUnavailable unless matplotlib can be imported.

    The CLI calls it before evaluating anything, so a missing optional
    dependency is reported at once rather than after a long evaluation.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotUnavailable(_INSTALL_HINT) from None


def _num(value: Any) -> float:
    """A JSON value as a float, with null (and anything non-numeric) as NaN."""
    if value is None or isinstance(value, bool):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _short(name: str, limit: int = MAX_NAME_CHARS) -> str:
    if len(name) <= limit:
        return name
    return "…" + name[-(limit - 1) :]


def display_names(names: list[str] | tuple[str, ...]) -> list[str]:
    """Run names as labels: an extension every name shares (``.run``) says
    nothing and is dropped, then long names are shortened (:func:`_short`)."""
    ext = {os.path.splitext(n)[1] for n in names}
    common = next(iter(ext)) if len(ext) == 1 else ""
    if common and all(len(n) > len(common) for n in names):
        names = [n[: -len(common)] for n in names]
    return [_short(n, TICK_NAME_CHARS) for n in names]


def _fmt_corr(value: Any, p: Any) -> str:
    r = _num(value)
    if math.isnan(r):
        return "n/a"
    pv = _num(p)
    return f"{r:.3f}" if math.isnan(pv) else f"{r:.3f} (p={pv:.2g})"


def _alpha_sorted(keys: list[str]) -> list[tuple[float, str]]:
    """Alpha keys with their numeric value, ascending (non-numeric keys dropped)."""
    pairs = [(_num(k), k) for k in keys]
    return sorted((a, k) for a, k in pairs if not math.isnan(a))


def _panel_decomposition(ax: Any, measure: str, block: Section) -> None:
    """Panel 1: Bias², Var, MSE per run, runs sorted by Bias² (NaN last).

    Runs are categories, not an ordered variable, so the values are markers
    (no line joins one run to the next: a slope between two runs means
    nothing). Above TICK_LABEL_MAX_RUNS runs only every k-th name is shown.
    """
    t = table_of(block)
    rows = list(
        zip(
            t.rows,
            *(t.column(f).tolist() for f in (registry.BIAS2, registry.VAR, registry.MSE)),
            strict=True,
        )
    )
    rows.sort(key=lambda r: (math.isnan(r[1]), r[1], r[0]))
    xs = list(range(len(rows)))
    n = len(rows)
    ms = 5 if n <= TICK_LABEL_MAX_RUNS else 3
    for k, (label, marker, colour) in enumerate(
        (("Bias²", "v", "C0"), ("Var", "^", "C1"), ("Bias² + Var (MSE)", "o", "C2")), start=1
    ):
        ax.plot(
            xs, [r[k] for r in rows], linestyle="none", marker=marker, ms=ms, color=colour,
            alpha=0.85, label=label,
        )  # fmt: skip
    ax.set_ylabel(f"{measure}: error")
    if n:
        # Vertical labels never overlap one another; above TICK_LABEL_MAX_RUNS
        # runs only every k-th is named so that the names stay readable.
        step = max(1, math.ceil(n / TICK_LABEL_MAX_RUNS))
        shown = xs[::step]
        ax.set_xticks(shown)
        labels = display_names([r[0] for r in rows])
        ax.set_xticklabels(
            [labels[i] for i in shown],
            rotation=90,
            fontsize=8 if len(shown) <= 20 else (7 if len(shown) <= 30 else 6),
        )
        if step == 1:
            ax.set_xlabel("run (sorted by Bias²)")
        else:
            ax.set_xlabel(f"{n} runs sorted by Bias² (every {step}th named)")
        ax.set_xlim(-0.5, n - 0.5)
    scalars = leaves(block)
    c = _num(scalars.get(registry.C.name))
    details = []
    if not math.isnan(c):
        details.append(f"c = {c:.3g}")
    if scalars.get(registry.N_TOPICS.name) is not None:
        details.append(f"{scalars[registry.N_TOPICS.name]} topics")
    if scalars.get(registry.N_GROUPS.name) is not None:
        details.append(f"{scalars[registry.N_GROUPS.name]} groups")
    suffix = f" ({', '.join(details)})" if details else ""
    ax.set_title(f"{measure}: Bias², Var, MSE per run{suffix}", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(True, alpha=0.3)


def _panel_tradeoff(ax: Any, measure: str, block: Section) -> list[tuple[float, float, str]]:
    """Panel 2: Bias²–Var scatter, correlations in the title; the Pareto front
    (runs with the pareto flag) as a staircase through its runs, and with
    ``--ci`` each run's Bias² and Var intervals as error bars."""
    t = table_of(block)
    bias2, var = t.column(registry.BIAS2), t.column(registry.VAR)
    ok = ~(np.isnan(bias2) | np.isnan(var))
    size = 25 if int(ok.sum()) <= TICK_LABEL_MAX_RUNS else 12
    if registry.BIAS2.name in t.intervals and registry.VAR.name in t.intervals:
        b_iv = np.asarray(t.intervals[registry.BIAS2.name], dtype=float)
        v_iv = np.asarray(t.intervals[registry.VAR.name], dtype=float)
        # errorbar wants distances below and above the point, never NaN
        xerr = np.nan_to_num(np.abs(np.stack([bias2 - b_iv[:, 0], b_iv[:, 1] - bias2])))
        yerr = np.nan_to_num(np.abs(np.stack([var - v_iv[:, 0], v_iv[:, 1] - var])))
        ax.errorbar(
            bias2[ok], var[ok], xerr=xerr[:, ok], yerr=yerr[:, ok], fmt="none",
            ecolor="0.6", elinewidth=0.7, capsize=0, zorder=1,
            label="bootstrap interval",
        )  # fmt: skip
    ax.scatter(bias2[ok], var[ok], s=size, alpha=0.75, zorder=2, label="run")
    if registry.PARETO in t.fields:
        front = np.asarray(t.values[registry.PARETO.name], dtype=bool) & ok
        order = np.argsort(bias2[front], kind="stable")
        fx, fy = bias2[front][order], var[front][order]
        if fx.size:
            # Everything up and to the right of the staircase is dominated.
            ax.step(fx, fy, where="post", color="C3", lw=1.0, zorder=3)
            ax.scatter(
                fx, fy, s=size * 1.8, facecolors="none", edgecolors="C3", zorder=4,
                label=f"Pareto front ({fx.size})",
            )  # fmt: skip
        ax.legend(fontsize=7, loc="best")
    trade = block.get(registry.TRADEOFF)
    assert isinstance(trade, Section)
    values = leaves(trade)
    pearson = _fmt_corr(values[registry.PEARSON.name], values[registry.PEARSON_P.name])
    spearman = _fmt_corr(values[registry.SPEARMAN.name], values[registry.SPEARMAN_P.name])
    ax.set_title(
        f"{measure}: Bias²–Var tradeoff\nPearson {pearson}, Spearman {spearman}", fontsize=10
    )
    ax.set_xlabel("Bias²")
    ax.set_ylabel("Var")
    ax.grid(True, alpha=0.3)
    mse = t.column(registry.MSE) if registry.MSE in t.fields else bias2 + var
    front = (
        np.asarray(t.values[registry.PARETO.name], dtype=bool)
        if registry.PARETO in t.fields
        else np.zeros(len(t.rows), dtype=bool)
    )
    names = display_names(t.rows)
    return [
        (float(bias2[i]), float(var[i]), names[i]) for i in label_priority(bias2, var, mse, front)
    ]


def label_priority(
    bias2: np.ndarray, var: np.ndarray, mse: np.ndarray, front: np.ndarray
) -> list[int]:
    """Indices of the runs worth naming on the scatter, most important first:
    the three lowest MSE, then the Pareto front by MSE, then the others by how
    far they lie from the median point (axes scaled to their range), so the
    outliers come before the crowd. NaN points are left out."""
    ok = np.flatnonzero(~(np.isnan(bias2) | np.isnan(var)))
    if ok.size == 0:
        return []
    by_mse = sorted(ok.tolist(), key=lambda i: (_nan_high(float(mse[i])), i))
    span_x = float(np.ptp(bias2[ok])) or 1.0
    span_y = float(np.ptp(var[ok])) or 1.0
    mx, my = float(np.median(bias2[ok])), float(np.median(var[ok]))
    distance = np.hypot((bias2 - mx) / span_x, (var - my) / span_y)
    order: list[int] = []
    for i in (
        by_mse[:3]
        + [i for i in by_mse if front[i]]
        + sorted(ok.tolist(), key=lambda i: (-float(distance[i]), i))
    ):
        if i not in order:
            order.append(i)
    return order


def _nan_high(value: float) -> float:
    return math.inf if math.isnan(value) else value


#: Offsets (points) tried in turn for a label, with its alignment.
_LABEL_OFFSETS = (
    ((4, 3), "left", "bottom"),
    ((4, -3), "left", "top"),
    ((-4, 3), "right", "bottom"),
    ((-4, -3), "right", "top"),
)


def place_labels(
    fig: Any,
    ax: Any,
    points: list[tuple[float, float, str]],
    limit: int = SCATTER_LABELS_MAX,
    id_prefix: str = "",
) -> list[str]:
    """Greedy labelling of scatter points: in priority order, each name goes at
    the first offset where its box (measured by the renderer) stays inside the
    axes and overlaps no label already placed, no legend and no other point;
    a name with no such place is skipped. Call after the layout is final.
    Returns the names placed."""
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    taken = [leg.get_window_extent(renderer) for leg in [ax.get_legend()] if leg is not None]
    pixels = ax.transData.transform(np.array([(x, y) for x, y, _ in points] or [(0, 0)]))
    marks = [Bbox.from_bounds(px - 3, py - 3, 6, 6) for px, py in pixels] if points else []
    placed: list[str] = []
    for k, (x, y, name) in enumerate(points):
        if len(placed) >= limit:
            break
        for offset, ha, va in _LABEL_OFFSETS:
            text = ax.annotate(
                name, (x, y), xytext=offset, textcoords="offset points", ha=ha, va=va,
                fontsize=7, color="0.15", zorder=5,
            )  # fmt: skip
            text.set_gid(f"run-label-{id_prefix}{len(placed)}")  # findable in an SVG
            box = text.get_window_extent(renderer)
            inside = (
                box.x0 >= frame.x0 and box.x1 <= frame.x1
                and box.y0 >= frame.y0 and box.y1 <= frame.y1
            )  # fmt: skip
            clear = not any(box.overlaps(b) for b in taken) and not any(
                box.overlaps(m) for j, m in enumerate(marks) if j != k
            )
            if inside and clear:
                taken.append(box)
                placed.append(name)
                break
            text.remove()
    return placed


def _panel_georisk(ax: Any, measure: str, block: Section, notes: tuple[str, ...] = ()) -> None:
    """Panel 3: GeoRisk against alpha, one line per run. GeoRisk needs
    non-negative scores (Dinçer et al. 2016); when every value is undefined the
    panel says why instead of staying blank."""
    t = table_of(block)
    n = len(t.rows)
    present = registry.GEORISK in t.fields
    column = t.column(registry.GEORISK).tolist() if present else [[] for _ in t.rows]
    georisk = {
        name: dict(zip(t.alphas, row, strict=False))
        for name, row in zip(t.rows, column, strict=True)
    }
    alphas = _alpha_sorted(list(t.alphas)) if present else []
    ax.set_title(f"{measure}: GeoRisk against alpha", fontsize=10)
    ax.set_xlabel("alpha (risk aversion)")
    ax.set_ylabel("GeoRisk")
    ax.grid(True, alpha=0.3)
    if not alphas:
        ax.text(0.5, 0.5, "no GeoRisk values", ha="center", va="center", transform=ax.transAxes)
        return
    if all(math.isnan(_num(v)) for geo in georisk.values() for v in geo.values()):
        negative = any(note.startswith(f"{measure}: negative scores") for note in notes)
        why = "GeoRisk undefined: negative scores" if negative else "GeoRisk undefined"
        ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes, fontsize=11)
        ax.set_xticks([a for a, _ in alphas])
        ax.set_xticklabels([k for _, k in alphas])
        return
    few = n <= LEGEND_MAX_RUNS
    first, last = alphas[0][1], alphas[-1][1]

    def geo_at(item: tuple[str, Any], key: str) -> float:
        return _nan_low(_num(item[1].get(key)))

    if few:
        # Legend order = the lines' order at the right edge, highest (least
        # risky) first. tab10 has only 10 colours, so runs 11-12 get a dashed
        # line instead of reusing a colour as an identical-looking line.
        order = sorted(georisk.items(), key=lambda item: -geo_at(item, last))
        palette = [f"C{i % 10}" for i in range(n)]
        styles = ["-" if i < 10 else "--" for i in range(n)]
    else:
        # Too many runs to tell apart by colour: shade them by their rank at the
        # smallest alpha instead, so a line that leaves its colour band is a run
        # whose position changes as risk aversion grows.
        order = sorted(georisk.items(), key=lambda item: geo_at(item, first))
        palette = [_viridis(i / max(n - 1, 1)) for i in range(n)]
        styles = ["-"] * n
        ax.set_title(
            f"{measure}: GeoRisk against alpha\n"
            f"{n} runs, shaded by GeoRisk at alpha={first} (no legend)",
            fontsize=10,
        )
    for i, (name, geo) in enumerate(order):
        ax.plot(
            [a for a, _ in alphas],
            [_num(geo.get(k)) for _, k in alphas],
            color=palette[i],
            linestyle=styles[i],
            marker="o" if few else None,
            ms=3,
            lw=1.2 if few else 0.8,
            alpha=1.0 if few else 0.7,
            label=_short(name),
        )
    ax.set_xticks([a for a, _ in alphas])
    ax.set_xticklabels([k for _, k in alphas])
    if few:
        # Outside the axes, so the legend never hides a line.
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)


def _viridis(fraction: float) -> Any:
    """A colour of the viridis map (imported lazily: matplotlib is optional)."""
    from matplotlib import colormaps

    return colormaps["viridis"](fraction)


def _nan_low(value: float) -> float:
    return -math.inf if math.isnan(value) else value


def plot_report(report: Report, path: str) -> None:
    """Draw the figure for an ``eval`` report and save it to ``path``.

    The format comes from the extension (.png, .svg or .pdf; anything else
    raises ValueError). Raises PlotUnavailable when matplotlib is missing and
    ValueError when the result has no measures; OSError when the file cannot
    be written. The figure is drawn to a temporary file next to ``path`` and
    renamed, so ``path`` is never left half-written.
    """
    fmt = output_format(path)  # before importing, so a bad name fails the same way everywhere
    measures = list(report.measure_blocks())
    if not measures:
        raise ValueError("the result has no measures to plot")
    try:
        import matplotlib

        matplotlib.use("Agg")  # never open a window, also on machines with a display
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailable(_INSTALL_HINT) from None

    n_runs = max(len(table_of(block).rows) for _, block in measures)
    # Rows get taller when panel 1 carries vertical run names.
    row_height = 4.6 if n_runs <= TICK_LABEL_MAX_RUNS else 3.8
    # Figure (not pyplot) keeps no global state, so repeated calls do not leak.
    fig = Figure(figsize=(18, row_height * len(measures) + 0.6))
    FigureCanvasAgg(fig)  # a renderer to measure the scatter labels with
    axes = fig.subplots(len(measures), 3, squeeze=False, gridspec_kw={"width_ratios": [1.4, 1, 1]})
    labels = []
    for row, (measure, block) in enumerate(measures):
        _panel_decomposition(axes[row][0], measure, block)
        labels.append(_panel_tradeoff(axes[row][1], measure, block))
        _panel_georisk(axes[row][2], measure, block, report.notes)

    settings = report.settings()
    applied = [f"{k}={v}" for k, v in settings.items() if v not in (None, "none")]
    suffix = f" [{', '.join(applied)}]" if applied else ""
    fig.suptitle(
        f"bvtest: bias–variance decomposition and risk of {n_runs} runs{suffix}", fontsize=13
    )
    fig.tight_layout()
    fig.canvas.draw()  # legends placed with loc="best" get their final position
    for row, points in enumerate(labels):
        place_labels(fig, axes[row][1], points, id_prefix=f"{row}-")
    _save(fig, path, fmt)


def _save(fig: Any, path: str, fmt: str) -> None:
    """Write ``fig`` whole or not at all (through a link, never half-written)."""
    with replacing(path, f".{fmt}") as tmp:
        fig.savefig(tmp, format=fmt)


# =========================================================================== variations
# `bvtest variations --plot FILE`: Zuccon16 Figs. 2–4 — the rank correlations
# between the ranking by O = μ − α σ² and the ranking by μ, against α.


def _figure_class() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailable(_INSTALL_HINT) from None
    return Figure


def _series(block: Section, field: registry.Field) -> tuple[list[float], list[float]]:
    """(alphas, values) of an alpha-keyed section, in ascending alpha."""
    node = block.get(field)
    assert isinstance(node, Section)
    values = {str(k): v for k, v in node.items}
    pairs = _alpha_sorted(list(values))
    return [a for a, _ in pairs], [_num(values[k]) for _, k in pairs]


def _grid_order(alphas: tuple[str, ...]) -> tuple[list[float], list[int]]:
    """The alphas ascending, and the column of each in ``alphas``."""
    column = {k: j for j, k in enumerate(alphas)}
    pairs = _alpha_sorted(list(alphas))
    return [a for a, _ in pairs], [column[k] for _, k in pairs]


def _panel_correlations(ax: Any, measure: str, block: Section, mode: str) -> None:
    """τ and τ_AP against α (Zuccon16 Figs. 2 and 4; intra: means over topics,
    each topic's τ_AP as a thin line, Fig. 3 flattened)."""
    topics = block.get(registry.VARIATIONS_TOPICS) if mode == "intra" else None
    if isinstance(topics, Table) and len(topics.rows) <= TOPIC_LINES_MAX:
        xs, order = _grid_order(topics.alphas)
        column = topics.column(registry.VARIATIONS_TOPIC_TAU_AP)
        for i in range(len(topics.rows)):
            ax.plot(
                xs,
                column[i, order],
                color="0.6",
                lw=0.6,
                alpha=0.6,
                label="τ_AP of one topic" if i == 0 else None,
            )
    xs, tau = _series(block, registry.VARIATIONS_TAU)
    _, tau_ap = _series(block, registry.VARIATIONS_TAU_AP)
    mean = "mean " if mode == "intra" else ""
    marker = "o" if len(xs) <= 60 else None
    ax.plot(xs, tau, marker=marker, ms=3, lw=1.6, color="C0", label=f"{mean}Kendall τ")
    ax.plot(xs, tau_ap, marker=marker, ms=3, lw=1.6, color="C3", label=f"{mean}τ_AP")
    ax.axvline(0.0, color="0.3", lw=0.6, ls=":")
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("α (α > 0: stability rewarded; α < 0: instability rewarded)")
    ax.set_ylabel("correlation with the ranking by μ")
    n = leaves(block).get(registry.N_TOPICS.name)
    ax.set_title(
        f"{measure} ({mode} mode, {n} topics): ranking by O = μ − α σ² vs by μ", fontsize=10
    )
    ax.grid(True, alpha=0.3)
    if all(math.isnan(v) for v in tau_ap):
        ax.text(
            0.5, 0.5, "undefined: every run has the same μ", ha="center", va="center",
            transform=ax.transAxes,
        )  # fmt: skip
    ax.legend(fontsize=8, loc="lower left")


def _panel_values(ax: Any, measure: str, block: Section, mode: str) -> None:
    """O = μ − α σ² per run against α: its crossings are the crossover list."""
    t = table_of(block)
    xs, order = _grid_order(t.alphas)
    o = t.column(registry.VARIATIONS_O)
    n = len(t.rows)
    few = n <= LEGEND_MAX_RUNS
    # Legend (and colour) order: the lines' order at the largest alpha, highest first.
    ranked = sorted(range(n), key=lambda r: (-_nan_low(float(o[r, order[-1]])), t.rows[r]))
    for i, row in enumerate(ranked):
        name = t.rows[row]
        ax.plot(
            xs,
            o[row, order],
            color=f"C{i % 10}" if few else _viridis(i / max(n - 1, 1)),
            linestyle="-" if i < 10 or not few else "--",
            lw=1.2 if few else 0.8,
            label=_short(name),
        )
    crossings = block.get(registry.VARIATIONS_CROSSOVERS)
    count = len(crossings.items) if isinstance(crossings, Records) else 0
    if mode == "intra":  # the crossovers are per topic, not of these means
        title = f"{measure}: mean over topics of O per run ({count} per-topic crossovers)"
    else:
        title = f"{measure}: O per run ({count} crossovers)"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("α")
    ax.set_ylabel("O = μ − α σ²")
    ax.grid(True, alpha=0.3)
    if few:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)


def _panel_topics(ax: Any, measure: str, block: Section) -> None:
    """Intra mode: τ_AP per topic and α as an image (Zuccon16 Fig. 3, seen from above)."""
    topics = block.get(registry.VARIATIONS_TOPICS)
    assert isinstance(topics, Table)
    xs, order = _grid_order(topics.alphas)
    values = topics.column(registry.VARIATIONS_TOPIC_TAU_AP)[:, order]
    # Cell edges halfway between grid points, so a list grid (uneven steps)
    # draws each alpha's column where it belongs.
    mids = [(a + b) / 2 for a, b in itertools.pairwise(xs)]
    first = xs[0] - (mids[0] - xs[0] if mids else 0.5)
    last = xs[-1] + (xs[-1] - mids[-1] if mids else 0.5)
    n = len(topics.rows)
    image = ax.pcolormesh(
        [first, *mids, last],
        [i - 0.5 for i in range(n + 1)],
        np.ma.masked_invalid(values),
        cmap="RdBu",
        vmin=-1.0,
        vmax=1.0,
    )
    ax.invert_yaxis()
    if n <= TOPIC_LABEL_MAX:
        ax.set_yticks(range(n))
        ax.set_yticklabels([_short(t) for t in topics.rows], fontsize=7)
    ax.set_ylabel("topic")
    ax.set_xlabel("α")
    ax.set_title(f"{measure}: τ_AP per topic (white: undefined or 0)", fontsize=10)
    ax.figure.colorbar(image, ax=ax, fraction=0.05, pad=0.02)


#: Intra mode: at most this many topics get their own τ_AP line.
TOPIC_LINES_MAX = 60
#: Intra mode: at most this many topic ids label the per-topic image.
TOPIC_LABEL_MAX = 40


def plot_variations(report: Report, path: str) -> None:
    """Draw a ``bvtest variations`` report: per measure a row of τ and τ_AP
    against α, O per run against α and, in intra mode, τ_AP per topic.
    Same contract as :func:`plot_report` (format by extension, written
    through a temporary file)."""
    fmt = output_format(path)
    measures = list(report.measure_blocks())
    if not measures:
        raise ValueError("the result has no measures to plot")
    figure = _figure_class()
    mode = str(report.settings().get(registry.VARIATIONS_MODE))
    cols = 3 if mode == "intra" else 2
    fig = figure(figsize=(6.2 * cols, 4.6 * len(measures) + 0.6))
    axes = fig.subplots(len(measures), cols, squeeze=False)
    for row, (measure, block) in enumerate(measures):
        _panel_correlations(axes[row][0], measure, block, mode)
        _panel_values(axes[row][1], measure, block, mode)
        if mode == "intra":
            _panel_topics(axes[row][2], measure, block)
    n_runs = max(len(table_of(block).rows) for _, block in measures)
    fig.suptitle(
        f"bvtest variations: mean–variance evaluation of {n_runs} runs ({mode} mode)",
        fontsize=13,
    )
    fig.tight_layout()
    _save(fig, path, fmt)


# =========================================================================== conditions
# `bvtest conditions --plot FILE`: Zhang22 Figs. 2–3 — Bias² and Var per system,
# one mark per experimental condition.

#: Markers of the conditions, in turn (colour changes too, so ten stay apart).
_CONDITION_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")


def _condition_cube(block: Section) -> tuple[list[str], list[str], np.ndarray]:
    """(systems, conditions, values[field, system, condition]) of one measure
    of a conditions report, fields Bias², Var, MSE; NaN where a system has no
    run under a condition."""
    systems_table = block.get(registry.SYSTEMS)
    assert isinstance(systems_table, Table)
    per_system = systems_table.children or ()
    conditions = sorted({c for child in per_system for c in table_of_conditions(child).rows})
    fields = (registry.BIAS2, registry.VAR, registry.MSE)
    cube = np.full((3, len(systems_table.rows), len(conditions)), np.nan)
    for i, child in enumerate(per_system):
        t = table_of_conditions(child)
        for r, cond in enumerate(t.rows):
            for k, f in enumerate(fields):
                cube[k, i, conditions.index(cond)] = float(t.column(f)[r])
    return list(systems_table.rows), conditions, cube


def table_of_conditions(child: Any) -> Table:
    table = child.get(registry.CONDITIONS) if isinstance(child, Section) else None
    assert isinstance(table, Table)
    return table


def _panel_conditions(
    ax: Any, measure: str, what: str, systems: list[str], conditions: list[str],
    values: np.ndarray, counts: dict[str, Any],
) -> None:  # fmt: skip
    """One quantity per system (x, categories) with one mark per condition,
    dodged sideways so coinciding marks stay visible."""
    n, k = len(systems), len(conditions)
    width = min(0.6, 0.15 * k)
    xs = np.arange(n, dtype=float)
    for j, cond in enumerate(conditions):
        shift = (j - (k - 1) / 2) * (width / max(k - 1, 1)) if k > 1 else 0.0
        best = counts.get(cond)
        label = f"{cond} (best for {best})" if best is not None else cond
        ax.plot(
            xs + shift, values[:, j], linestyle="none",
            marker=_CONDITION_MARKERS[j % len(_CONDITION_MARKERS)], ms=5,
            color=f"C{j % 10}", alpha=0.85, label=label,
        )  # fmt: skip
    step = max(1, math.ceil(n / TICK_LABEL_MAX_RUNS))
    shown = list(range(n))[::step]
    ax.set_xticks(shown)
    labels = display_names(systems)
    ax.set_xticklabels(
        [labels[i] for i in shown], rotation=90,
        fontsize=8 if len(shown) <= 20 else (7 if len(shown) <= 30 else 6),
    )  # fmt: skip
    if n:
        ax.set_xlim(-0.5, n - 0.5)
    ax.set_xlabel("system (sorted by mean MSE over conditions)")
    ax.set_ylabel(f"{measure}: {what}")
    ax.set_title(f"{measure}: {what} per system under each condition", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="best", title="condition (best for k systems)", title_fontsize=7)


def plot_conditions(report: Report, path: str) -> None:
    """Draw a ``bvtest conditions`` report (Zhang22 Figs. 2–3): per measure a
    row of Bias² and Var per system, one mark per condition, systems sorted by
    their mean MSE over the conditions. Same contract as :func:`plot_report`."""
    fmt = output_format(path)
    measures = list(report.measure_blocks())
    if not measures:
        raise ValueError("the result has no measures to plot")
    figure = _figure_class()
    fig = figure(figsize=(16, 4.8 * len(measures) + 0.6))
    axes = fig.subplots(len(measures), 2, squeeze=False)
    n_systems = 0
    for row, (measure, block) in enumerate(measures):
        systems, conditions, cube = _condition_cube(block)
        n_systems = max(n_systems, len(systems))
        with warnings.catch_warnings():
            # nanmean of an all-NaN row warns; such a system simply sorts last
            warnings.simplefilter("ignore", RuntimeWarning)
            mean_mse = np.nanmean(cube[2], axis=1) if conditions else np.zeros(len(systems))
        order = sorted(range(len(systems)), key=lambda i: (_nan_high(float(mean_mse[i])), i))
        names = [systems[i] for i in order]
        node = block.get(registry.BEST_COUNTS)
        counts = dict(leaves(node)) if isinstance(node, Section) else {}
        for col, what in enumerate(("Bias²", "Var")):
            _panel_conditions(
                axes[row][col], measure, what, names, conditions, cube[col][order], counts
            )
    fig.suptitle(
        f"bvtest conditions: Bias² and Var of {n_systems} systems under each condition",
        fontsize=13,
    )
    fig.tight_layout()
    _save(fig, path, fmt)


def draw(plotter: Any, report: Report, path: str) -> None:
    """Run ``plotter(report, path)`` for a command's ``--plot FILE``, turning its
    failures into one-line input errors (exit 2)."""
    try:
        plotter(report, path)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot write the plot: {exc.strerror or exc}", path) from None


def plotted(
    plotter: Any, path: str | None, build: Callable[[], Report], inputs: Iterable[str] = ()
) -> Report:
    """The report ``build()`` makes, drawn by ``plotter`` into ``path`` when a
    path is given. What can fail about the plot (extension, matplotlib, the
    directory) is checked before ``build`` evaluates anything."""
    if path is None:
        return build()
    check_output(path, inputs)
    report = build()
    draw(plotter, report, path)
    return report
