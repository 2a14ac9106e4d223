"""``bvtest plot`` through the installed command: the file is produced and is a
valid image, nothing goes to stdout, and the failures are one line, exit 2."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest
from conftest import (
    SAMPLE_QRELS,
    SAMPLE_RUNS,
    assert_one_line_error,
    bvtest_executable,
    clean_env,
)

needs_mpl = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is not installed (pip install 'bvtest[plot]')",
)


@needs_mpl
def test_png_from_sample_track(bvtest, tmp_path):
    out = tmp_path / "bv.png"
    proc = bvtest("plot", "--quiet", "-o", out, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and proc.stderr == ""
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Written via a temporary file that is renamed: nothing else is left behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bv.png"]


@needs_mpl
def test_svg(bvtest, tmp_path):
    out = tmp_path / "bv.svg"
    proc = bvtest("plot", "--quiet", "-m", "AP", "-o", out, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert ET.parse(out).getroot().tag == "{http://www.w3.org/2000/svg}svg"


@needs_mpl
def test_pdf_with_analysis_options(bvtest, tmp_path):
    out = tmp_path / "bv.PDF"  # the extension is case-insensitive
    proc = bvtest(
        "plot", "--quiet", "-m", "nDCG@10", "--normalize", "minmax", "--group", "difficulty:5",
        "--alpha", "0,2,5", "--target", "ideal", "--baseline", "sys001",
        "-o", out, SAMPLE_QRELS, SAMPLE_RUNS,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-1024:]


@needs_mpl
def test_from_scores_file(bvtest, tmp_path):
    scores = bvtest("scores", "--quiet", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    assert scores.returncode == 0
    path = tmp_path / "scores.tsv"
    path.write_text(scores.stdout)
    out = tmp_path / "s.png"
    proc = bvtest("plot", "--scores", path, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert out.read_bytes()[:4] == b"\x89PNG"


@needs_mpl
def test_notes_go_to_stderr_unless_quiet(bvtest, tmp_path):
    proc = bvtest("plot", "-m", "AP", "-o", tmp_path / "a.png", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert "bvtest: note:" in proc.stderr  # sys004 misses topics


@needs_mpl
def test_overwrites_existing_file(bvtest, tmp_path):
    out = tmp_path / "bv.svg"
    out.write_text("old")
    proc = bvtest("plot", "--quiet", "-m", "AP", "-o", out, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0
    assert ET.parse(out).getroot().tag.endswith("svg")


@pytest.mark.parametrize("name", ["bv.gif", "bv.jpeg", "bv"])
def test_bad_extension_fails_before_evaluation(bvtest, tmp_path, name):
    # The qrels does not exist: the extension error proves nothing was read first.
    out = tmp_path / name
    proc = bvtest("plot", "-o", out, tmp_path / "missing-qrels", SAMPLE_RUNS)
    assert_one_line_error(proc, "supported format", ".png", ".svg", ".pdf")
    assert not out.exists()


@needs_mpl
def test_missing_directory(bvtest, tmp_path):
    out = tmp_path / "nodir" / "bv.png"
    proc = bvtest("plot", "-o", out, SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, "no such directory")


def test_bad_input(bvtest, tmp_path):
    run = tmp_path / "bad.run"
    run.write_text("401 Q0 DOC 1\n")
    out = tmp_path / "bv.png"
    proc = bvtest("plot", "--quiet", "-o", out, SAMPLE_QRELS, run)
    assert_one_line_error(proc, "bad.run:1")
    assert not out.exists()


def test_output_is_required(bvtest):
    proc = bvtest("plot", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--output" in proc.stderr


def test_without_matplotlib(tmp_path):
    """A matplotlib that cannot be imported (a stub ahead of site-packages):
    one line naming the install command, exit 2, no file, before evaluating."""
    stub = tmp_path / "stub" / "matplotlib"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError('matplotlib blocked by the test')\n")
    env = clean_env()
    env["PYTHONPATH"] = str(stub.parent)
    out = tmp_path / "bv.png"
    proc = subprocess.run(
        [bvtest_executable(), "plot", "-o", str(out), str(tmp_path / "missing-qrels"), "x"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert_one_line_error(proc, "pip install 'bvtest[plot]'")
    assert not out.exists()


@needs_mpl
def test_svg_labels_scatter_points_with_run_names(bvtest, tmp_path):
    out = tmp_path / "bv.svg"
    proc = bvtest("plot", "--quiet", "-m", "AP", "-o", out, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    labelled = re.findall(r'<g id="run-label-0-\d+">\s*<!-- (.*?) -->', out.read_text())
    # The run with the lowest MSE, from eval's own table (independent of the plot).
    table = bvtest("eval", "--quiet", "-m", "AP", "-f", "tsv", SAMPLE_QRELS, SAMPLE_RUNS)
    rows = [line.split("\t") for line in table.stdout.splitlines()[1:]]
    mse = {system: float(value) for _, name, system, value in rows if name == "mse"}
    assert min(mse, key=mse.get) in labelled
    assert 1 <= len(labelled) <= 12 and set(labelled) <= set(mse)


@needs_mpl
def test_negative_scores_say_why_georisk_is_empty(bvtest, tmp_path):
    scores = tmp_path / "scores.tsv"
    lines = ["system\ttopic\tmeasure\tvalue"]
    for i, system in enumerate(("a", "b", "c")):
        for t, value in enumerate((-0.5, 0.2, 0.4, 0.1)):
            lines.append(f"{system}\tt{t}\tDIFF\t{value + 0.1 * i}")
    scores.write_text("\n".join(lines) + "\n")
    out = tmp_path / "neg.svg"
    proc = bvtest("plot", "--scores", scores, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "negative scores" in proc.stderr
    assert "<!-- GeoRisk undefined: negative scores -->" in out.read_text()


def _condition_map(tmp_path):
    # sys001..sys012 as 4 systems (A-D) under 3 conditions (rl1-rl3)
    path = tmp_path / "conditions.txt"
    path.write_text(
        "".join(f"sys{i:03d} {'ABCD'[(i - 1) % 4]} rl{(i - 1) // 4 + 1}\n" for i in range(1, 13))
    )
    return path


@needs_mpl
def test_conditions_plot(bvtest, tmp_path):
    cmap = _condition_map(tmp_path)
    out = tmp_path / "cond.svg"
    args = ("conditions", "--quiet", "-m", "AP", "--map", cmap, SAMPLE_QRELS, SAMPLE_RUNS)
    plain = bvtest(*args)
    proc = bvtest(*args, "--plot", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout != ""  # the plot changes nothing on stdout
    text = out.read_text()
    assert ET.fromstring(text).tag.endswith("svg")
    for name in ("rl1", "rl2", "rl3", "A", "B", "C", "D"):
        assert re.search(rf"<!-- {name}( \(best for \d+\))? -->", text), name
    png = tmp_path / "cond.png"
    proc = bvtest(*args, "--plot", png)
    assert proc.returncode == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_conditions_plot_bad_extension_fails_before_evaluation(bvtest, tmp_path):
    out = tmp_path / "cond.gif"
    proc = bvtest(
        "conditions", "--map", _condition_map(tmp_path), "--plot", out,
        tmp_path / "missing-qrels", SAMPLE_RUNS,
    )  # fmt: skip
    assert_one_line_error(proc, "supported format")
    assert not out.exists()
