"""Tests of ``bvtest plot`` (bvtest_cli.render.plot): files are produced and are valid
images; the numbers drawn are checked elsewhere (they come from the result)."""

from __future__ import annotations

import dataclasses
import math
import random
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from report_helpers import report_from_dict

from bvtest_cli.render.plot import (
    PlotUnavailable,
    display_names,
    label_priority,
    place_labels,
    plot_report,
)


def plot_result(result: dict, path) -> None:
    plot_report(report_from_dict(result), str(path))


ALPHAS = ("0", "1", "5", "10")


def make_result(n_runs: int = 12, seed: int = 7) -> dict:
    """A plausible docs/formats.md result: ``n_runs`` runs × AP, nDCG@10, ERR@20.

    Made-up numbers with the right shapes: MSE = Bias² + Var, GeoRisk
    decreasing in alpha, a negative Bias²–Var tradeoff.
    """
    rng = random.Random(seed)
    measures = {}
    for measure, c in (("AP", 0.61), ("nDCG@10", 0.72), ("ERR@20", 0.55)):
        systems = {}
        for i in range(n_runs):
            mean = rng.uniform(0.1, c - 0.02)
            var = max(0.005, 0.09 - 0.15 * (c - mean) ** 2 + rng.gauss(0, 0.01))
            bias2 = (mean - c) ** 2
            zrisk = {a: rng.gauss(0, 3) - float(a) * rng.uniform(0.5, 2) for a in ALPHAS}
            systems[f"org{i % 7}_variant{i:03d}.run"] = {
                "mean": mean,
                "bias2": bias2,
                "var": var,
                "mse": bias2 + var,
                "var_rho": var * 0.6,
                "var_target": 0.04,
                "cov_target": 0.03,
                "zrisk": zrisk,
                "georisk": {
                    a: math.sqrt(mean * 0.5 * (1 + math.erf(z / 50 / math.sqrt(2))))
                    for a, z in zrisk.items()
                },
                "zrisk_target": {a: -5.0 * (1 + float(a)) for a in ALPHAS},
                "trisk_mean": dict.fromkeys(ALPHAS, None),
            }
        measures[measure] = {
            "n_topics": 50,
            "c": c,
            "systems": systems,
            "tradeoff": {
                "pearson": -0.62,
                "pearson_p": 0.03,
                "spearman": -0.55,
                "spearman_p": 0.06,
            },
        }
    return {"group": None, "normalize": "none", "measures": measures}


@pytest.fixture
def mpl() -> None:
    pytest.importorskip("matplotlib")


@pytest.mark.usefixtures("mpl")
def test_png(tmp_path: Path) -> None:
    out = tmp_path / "bv.png"
    plot_result(make_result(), str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.usefixtures("mpl")
def test_svg(tmp_path: Path) -> None:
    out = tmp_path / "bv.svg"
    plot_result(make_result(), str(out))
    root = ET.parse(out).getroot()
    assert root.tag in ("svg", "{http://www.w3.org/2000/svg}svg")


@pytest.mark.usefixtures("mpl")
def test_pdf(tmp_path: Path) -> None:
    out = tmp_path / "bv.pdf"
    plot_result(make_result(), str(out))
    assert out.read_bytes()[:4] == b"%PDF"


@pytest.mark.usefixtures("mpl")
def test_upper_case_extension(tmp_path: Path) -> None:
    out = tmp_path / "bv.PNG"
    plot_result(make_result(), str(out))
    assert out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.usefixtures("mpl")
def test_many_runs_nulls_and_normalization(tmp_path: Path) -> None:
    """129 runs (no legend, no tick labels), null values and nan tradeoff."""
    result = make_result(n_runs=129)
    result["normalize"] = "minmax"
    result["group"] = "difficulty:5"
    ap = result["measures"]["AP"]
    first = next(iter(ap["systems"].values()))
    first["bias2"] = None
    first["georisk"]["5"] = None
    ap["tradeoff"] = dict.fromkeys(ap["tradeoff"], None)
    out = tmp_path / "many.png"
    plot_result(result, str(out))
    assert out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.usefixtures("mpl")
def test_single_measure_without_georisk(tmp_path: Path) -> None:
    result = make_result(n_runs=2)
    del result["measures"]["nDCG@10"], result["measures"]["ERR@20"]
    for system in result["measures"]["AP"]["systems"].values():
        del system["georisk"]
    out = tmp_path / "one.svg"
    plot_result(result, str(out))
    assert ET.parse(out).getroot().tag.endswith("svg")


@pytest.mark.parametrize("name", ["bv.jpg", "bv.txt", "bv", "dir.png/bv.eps"])
def test_unsupported_extension(tmp_path: Path, name: str) -> None:
    # Checked before matplotlib is imported: same error with or without it.
    with pytest.raises(ValueError, match=r"supported format.*png.*svg.*pdf"):
        plot_result(make_result(), str(tmp_path / name))


def test_no_measures(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no measures"):
        plot_result({"group": None, "normalize": "none", "measures": {}}, str(tmp_path / "x.png"))


def test_missing_matplotlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules makes 'import matplotlib' raise ImportError.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "bv.png"
    with pytest.raises(PlotUnavailable) as info:
        plot_result(make_result(), str(out))
    message = str(info.value)
    assert "pip install 'bvtest[plot]'" in message and "pip install matplotlib" in message
    assert "\n" not in message
    assert isinstance(info.value, RuntimeError)
    assert not out.exists()


# Readable figures: run names on the scatter, no lines between runs, GeoRisk
# says why it is empty. The figure is captured instead of saved.


def _capture(monkeypatch: pytest.MonkeyPatch, report) -> Any:
    """The matplotlib Figure plot_report draws for ``report``."""
    import bvtest_cli.render.plot as plot_module

    captured = {}
    monkeypatch.setattr(plot_module, "_save", lambda fig, path, fmt: captured.update(fig=fig))
    plot_module.plot_report(report, "unused.png")
    return captured["fig"]


def test_label_priority_hand_computed() -> None:
    # No Pareto flags. MSE = [1, 2, 3, 4, 11]: the three lowest are runs 0, 1, 2.
    # Then by distance from the median point (2, 1), x scaled by its range 10
    # (y has range 0, scaled by 1): |x - 2| / 10 = [.2, .1, 0, .1, .8] -> run 4
    # (the outlier) before run 3.
    bias2 = np.array([0.0, 1.0, 2.0, 3.0, 10.0])
    var = np.ones(5)
    order = label_priority(bias2, var, bias2 + var, np.zeros(5, dtype=bool))
    assert order == [0, 1, 2, 4, 3]


def test_label_priority_pareto_front_after_top_three() -> None:
    # MSE = [.40, .25, .25, .92, NaN]; ties keep index order: 1, 2, then 0.
    # Pareto front by hand (lower Bias² and lower Var are better): run 0
    # (.30, .10) is beaten by run 2 (.20, .05); runs 1, 2, 3 are not beaten.
    # Run 4 has no Var: never labelled.
    bias2 = np.array([0.30, 0.05, 0.20, 0.90, 0.10])
    var = np.array([0.10, 0.20, 0.05, 0.02, math.nan])
    front = np.array([False, True, True, True, False])
    assert label_priority(bias2, var, bias2 + var, front) == [1, 2, 0, 3]


@pytest.mark.usefixtures("mpl")
def test_place_labels_never_overlap() -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rng = np.random.default_rng(3)
    xs, ys = rng.normal(0, 1, 60), rng.normal(0, 1, 60)
    fig = Figure(figsize=(5, 4))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.scatter(xs, ys)
    points = [
        (float(x), float(y), f"run_name_{i:02d}")
        for i, (x, y) in enumerate(zip(xs, ys, strict=True))
    ]
    placed = place_labels(fig, ax, points, limit=12)
    assert 1 <= len(placed) <= 12
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert [t.get_text() for t in ax.texts] == placed  # failed attempts were removed
    frame = ax.get_window_extent(renderer)
    for i, a in enumerate(boxes):
        assert frame.x0 <= a.x0 and a.x1 <= frame.x1 and frame.y0 <= a.y0 and a.y1 <= frame.y1
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b)


@pytest.mark.usefixtures("mpl")
def test_svg_names_the_lowest_mse_run(tmp_path: Path) -> None:
    result = make_result(n_runs=12)
    out = tmp_path / "bv.svg"
    plot_result(result, str(out))
    text = out.read_text()
    labelled = re.findall(r'<g id="run-label-0-\d+">\s*<!-- (.*?) -->', text)
    systems = result["measures"]["AP"]["systems"]
    best = min(systems, key=lambda name: systems[name]["mse"])
    # every run ends in .run, so the labels drop it
    assert best.removesuffix(".run") in labelled
    assert 1 <= len(labelled) <= 12
    assert set(labelled) <= {name.removesuffix(".run") for name in systems}


@pytest.mark.usefixtures("mpl")
def test_panel_one_draws_markers_not_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    fig = _capture(monkeypatch, report_from_dict(make_result(n_runs=12)))
    panel = fig.axes[0]
    assert len(panel.lines) == 3  # Bias², Var, MSE
    for line in panel.lines:
        assert line.get_linestyle() == "None" and line.get_marker() not in (None, "None", "")
        assert len(line.get_xdata()) == 12


@pytest.mark.usefixtures("mpl")
def test_many_runs_skip_tick_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    # 129 runs, at most 40 names: every ceil(129 / 40) = 4th -> 33 labels.
    fig = _capture(monkeypatch, report_from_dict(make_result(n_runs=129)))
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert len(labels) == 33


@pytest.mark.usefixtures("mpl")
def test_georisk_panel_says_negative_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    result = make_result(n_runs=4)
    for system in result["measures"]["AP"]["systems"].values():
        system["georisk"] = dict.fromkeys(ALPHAS, None)
    note = "AP: negative scores; ZRisk and GeoRisk are undefined (null)"
    report = dataclasses.replace(report_from_dict(result), notes=(note,))
    fig = _capture(monkeypatch, report)
    ap, ndcg = fig.axes[2], fig.axes[5]
    assert [t.get_text() for t in ap.texts] == ["GeoRisk undefined: negative scores"]
    assert len(ndcg.texts) == 0 and len(ndcg.lines) == 4  # other measures unaffected


def test_display_names() -> None:
    assert display_names(["a.run", "b.run"]) == ["a", "b"]
    assert display_names(["a.run", "b.txt"]) == ["a.run", "b.txt"]
    long = "x" * 30 + ".run"
    assert display_names([long, "b.run"]) == ["…" + "x" * 21, "b"]
