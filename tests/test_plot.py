"""Tests of ``bvtest plot`` (bvtest_cli.plot): files are produced and are valid
images; the numbers drawn are checked elsewhere (they come from the result)."""

from __future__ import annotations

import math
import random
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from report_helpers import report_from_dict

from bvtest_cli.plot import PlotUnavailable, plot_report


def plot_result(result: dict, path) -> None:
    plot_report(report_from_dict(result), str(path))


ALPHAS = ("0", "1", "5", "10")


def make_result(n_runs: int = 12, seed: int = 7) -> dict:
    """A plausible SPEC §12 result: ``n_runs`` runs × AP, nDCG@10, ERR@20.

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
