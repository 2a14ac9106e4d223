"""The -f html page in a real browser: headless Chromium (Debian's package)
driven by Playwright for Python. Checks what only a browser can: nothing is
requested beyond the page itself, no console error, the page fits a 1280-px
window and A4's printable width (print media) without horizontal scroll,
the scatter names each run exactly once and marks the Pareto set, error bars
lie inside the axes. Skips cleanly where Playwright or Chromium is missing
(``make test`` installs both where it can)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = os.environ.get("BVTEST_CHROMIUM") or next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
# As the machine's notes advise: no sandbox as root, no GPU, and no background
# traffic (the closed network refuses it, and it would count as requests).
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
WINDOW = 1280
# A4 (210 mm) less 12 mm margins each side (the page's @page rule), in CSS px at 96 dpi.
A4_PRINTABLE = int((210 - 2 * 12) / 25.4 * 96)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no Chromium installed (apt-get install chromium)")
    try:
        subprocess.run([CHROMIUM, "--version"], capture_output=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"Chromium does not run here: {e}")
    with sync_api.sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as e:  # a browser that cannot start here: not this test's subject
            pytest.skip(f"Chromium does not start under Playwright: {e}")
        yield b
        b.close()


def page_file(tmp_path: Path, *args) -> Path:
    proc = run_bvtest(*args, "-f", "html")
    assert proc.returncode == 0, proc.stderr
    path = tmp_path / "report.html"
    path.write_text(proc.stdout, encoding="utf-8")
    return path


def opened(browser, path: Path, width: int, media: str = "screen"):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.emulate_media(media=media)
    page.goto(path.as_uri(), wait_until="load")
    return page, errors, requests


# What the page shows, read in the browser: per scatter, its marks; the
# widest element; the frame and error bars' boxes.
READ = """() => {
  const data = JSON.parse(document.getElementById('bvtest-data').textContent);
  const scatters = [...document.querySelectorAll('figure.scatter')].map(f => {
    const frame = f.querySelector('rect.frame').getBBox();
    const bars = [...f.querySelectorAll('.errorbars line')].map(l => l.getBBox());
    const named = [...f.querySelectorAll('svg *')].filter(e =>
        [...e.children].some(c => c.tagName === 'title'));
    return {
      caption: f.querySelector('figcaption').textContent,
      names: named.map(e => [e.tagName, e.getAttribute('data-run'),
                             e.querySelector(':scope > title').textContent,
                             e.classList.contains('pareto')]),
      front: !!f.querySelector('.pareto-front'),
      frame: [frame.x, frame.y, frame.width, frame.height],
      bars: bars.map(b => [b.x, b.y, b.width, b.height]),
    };
  });
  const lines = [...document.querySelectorAll('figure.lines')].map(f => ({
    caption: f.querySelector('figcaption').textContent,
    runs: [...f.querySelectorAll('g.series')]
          .map(g => g.querySelector(':scope > title').textContent),
  }));
  const right = Math.max(...[...document.querySelectorAll('table, svg, figure, h1, h2, dl')]
                         .map(e => e.getBoundingClientRect().right));
  return {data, scatters, lines, right,
          scroll: document.documentElement.scrollWidth, inner: window.innerWidth};
}"""


def brute_force_front(points: dict[str, tuple[float, float]]) -> set[str]:
    return {
        a
        for a, (x, y) in points.items()
        if not any(
            x2 <= x and y2 <= y and (x2 < x or y2 < y) for b, (x2, y2) in points.items() if b != a
        )
    }


def check_page(browser, path: Path, with_ci: bool) -> None:
    page, errors, requests = opened(browser, path, WINDOW)
    seen = page.evaluate(READ)
    assert errors == []
    assert requests == [path.as_uri()]  # the page itself, nothing else
    assert seen["scroll"] <= seen["inner"] == WINDOW
    assert seen["right"] <= WINDOW
    measures = seen["data"]["measures"]
    assert len(seen["scatters"]) == len(seen["lines"]) == len(measures)
    charts = zip(measures.items(), seen["scatters"], seen["lines"], strict=True)
    for (measure, block), scatter, lines in charts:
        systems = block["systems"]
        assert scatter["caption"].startswith(f"{measure}: Bias² against Var")
        assert lines["caption"].startswith(f"{measure}: GeoRisk against α")
        # exactly one named element per run, a point named by the run
        assert sorted(run for _, run, _, _ in scatter["names"]) == sorted(systems)
        assert all(tag == "circle" and name.split(" (")[0] == run
                   for tag, run, name, _ in scatter["names"])  # fmt: skip
        truth = brute_force_front({r: (v["bias2"], v["var"]) for r, v in systems.items()})
        marked = {run for _, run, name, pareto in scatter["names"] if pareto}
        assert marked == truth
        assert all("Pareto" in name for _, run, name, _ in scatter["names"] if run in truth)
        assert scatter["front"] == (len(truth) > 1)
        assert sorted(lines["runs"]) == sorted(systems)
        x, y, w, h = scatter["frame"]
        assert bool(scatter["bars"]) == with_ci
        for bx, by, bw, bh in scatter["bars"]:
            assert x - 0.5 <= bx and bx + bw <= x + w + 0.5
            assert y - 0.5 <= by and by + bh <= y + h + 0.5
    page.close()
    printed, errors, _ = opened(browser, path, A4_PRINTABLE, media="print")
    seen = printed.evaluate(READ)
    assert errors == []
    assert seen["scroll"] <= A4_PRINTABLE and seen["right"] <= A4_PRINTABLE
    pdf = printed.pdf(format="A4")
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    printed.close()


def test_sample_page(browser, tmp_path):
    check_page(browser, page_file(tmp_path, "eval", SAMPLE_QRELS, SAMPLE_RUNS), with_ci=False)


def test_sample_page_with_intervals(browser, tmp_path):
    path = page_file(tmp_path, "eval", "--ci", "0.95", SAMPLE_QRELS, SAMPLE_RUNS)
    check_page(browser, path, with_ci=True)


@pytest.mark.parametrize("ci", [False, True])
def test_robust2003_page(browser, tmp_path, shared_data, ci):
    robust = shared_data / "robust2003"
    if not robust.is_dir():
        pytest.skip("../shared/data/robust2003 is not present")
    args = ("--ci", "0.95") if ci else ()
    path = page_file(tmp_path, "eval", *args, robust / "qrels.txt", robust / "runs")
    check_page(browser, path, with_ci=ci)


def test_other_pages_fit_and_stay_offline(browser, tmp_path):
    """Every other command's page: offline, no console error, fits the window
    (also with run names that are markup)."""
    from tests.test_render_html import hostile_track

    uqv = Path(__file__).resolve().parents[1] / "docs" / "examples" / "uqv"
    hostile = hostile_track(tmp_path)
    for args in (
        ("eval", "--name", "tag", SAMPLE_QRELS, hostile),
        ("eval", SAMPLE_QRELS, hostile),
        ("compare", "--pairs", "all", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS),
        ("variations", "--mode", "inter", "--alpha=-10:10:0.5", SAMPLE_QRELS, SAMPLE_RUNS),
        ("variations", "--map", uqv / "map.txt", uqv / "qrels.txt", uqv / "runs"),
        ("tradeoff", SAMPLE_QRELS, SAMPLE_RUNS),
        ("pertopic", "-k", "10", SAMPLE_QRELS, SAMPLE_RUNS),
    ):
        path = page_file(tmp_path, *args)
        for width, media in ((WINDOW, "screen"), (A4_PRINTABLE, "print")):
            page, errors, requests = opened(browser, path, width, media)
            seen = page.evaluate(READ)
            assert errors == [] and requests == [path.as_uri()], args
            assert seen["scroll"] <= width and seen["right"] <= width, (args, media, seen["right"])
            page.close()


# ----------------------------------------------------------------------------- read on paper

# Per chart, read in print media: the runs it draws (from the marks' data-run),
# the runs its labels name, the visible text of the figure (labels and the
# note listing the runs in grey), every pair of overlapping text boxes, every
# text box not whole inside its svg, and the scatter labels farther than 40 px
# from their point with no leader line joining them.
LABELS = """() => {
  const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
                            a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const gap = (a, b) => Math.hypot(Math.max(a.left - b.right, 0, b.left - a.right),
                                   Math.max(a.top - b.bottom, 0, b.top - a.bottom));
  return [...document.querySelectorAll('figure.chart')].map(f => {
    const svg = f.querySelector('svg').getBoundingClientRect();
    const texts = [...f.querySelectorAll('svg text')].filter(t => t.textContent.trim())
                  .map(t => [t.textContent, t.getBoundingClientRect()]);
    const overlaps = [];
    texts.forEach(([a, ra], i) => texts.slice(i + 1).forEach(([b, rb]) => {
      if (overlap(ra, rb)) overlaps.push([a, b]);
    }));
    const clipped = texts.filter(([_, r]) => r.left < svg.left - 0.5 || r.right > svg.right + 0.5
                                 || r.top < svg.top - 0.5 || r.bottom > svg.bottom + 0.5)
                         .map(([t]) => t);
    const marks = [...f.querySelectorAll('circle.point, g.series')];
    const labels = [...f.querySelectorAll('text.label')];
    const far = labels.filter(t => {
      const run = t.getAttribute('data-run');
      const mark = f.querySelector(`circle.point[data-run="${CSS.escape(run)}"]`);
      const leader = f.querySelector(`line.leader[data-run="${CSS.escape(run)}"]`);
      return mark && !leader &&
             gap(mark.getBoundingClientRect(), t.getBoundingClientRect()) > 40;
    }).map(t => t.getAttribute('data-run'));
    const leadered = labels.filter(t => f.querySelector(
        `line.leader[data-run="${CSS.escape(t.getAttribute('data-run'))}"]`))
        .map(t => t.getAttribute('data-run'));
    return {
      kind: f.classList[1], caption: f.querySelector('figcaption').textContent,
      runs: marks.map(e => e.getAttribute('data-run')),
      labelled: labels.map(t => t.getAttribute('data-run')),
      label_texts: labels.map(t => t.textContent),
      leadered, far, overlaps, clipped,
      categories: [...f.querySelectorAll('text.category')].map(t => t.textContent),
      note: (f.querySelector('.chart-note') || {textContent: ''}).textContent,
      visible: f.innerText,
    };
  });
}"""


@pytest.fixture(scope="module")
def track60(tmp_path_factory):
    """A generated track of 60 runs, with two depth pools of it as collections."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import gen_track

    out = tmp_path_factory.mktemp("track60")
    track = gen_track.generate(out, runs=60, topics=25, depth=100, judged=250, seed=11)
    for depth in (5, 20):
        pool = run_bvtest("pool", "--depth", depth, track.qrels_path, track.runs_dir)
        (out / f"d{depth}.qrels").write_text(pool.stdout)
    return track.qrels_path, track.runs_dir, out


def sample_track(tmp_path: Path):
    for depth in (5, 20):
        pool = run_bvtest("pool", "--depth", depth, SAMPLE_QRELS, SAMPLE_RUNS)
        (tmp_path / f"d{depth}.qrels").write_text(pool.stdout)
    return SAMPLE_QRELS, SAMPLE_RUNS, tmp_path


PRINTED = {
    "eval": lambda q, r, d: ("eval", q, r),
    "variations": lambda q, r, d: ("variations", "--mode", "inter", "--alpha=-4:4:1", q, r),
    "pertopic": lambda q, r, d: ("pertopic", "-k", "5", q, r),
    "rankings": lambda q, r, d: ("rankings", "--reference", f"G={q}", "--bootstrap", "60",
                                 "--collection", f"d5={d / 'd5.qrels'}",
                                 "--collection", f"d20={d / 'd20.qrels'}", r),
}  # fmt: skip


def check_printed_charts(browser, path: Path) -> list[dict]:
    """Every chart of the printed page names each of its runs by visible text,
    no two texts of a chart overlap and none leaves its svg."""
    page, errors, _ = opened(browser, path, A4_PRINTABLE, media="print")
    charts = page.evaluate(LABELS)
    data = page.evaluate(READ)["data"]
    page.close()
    assert errors == [] and charts
    systems = set()
    for block in data.get("measures", {}).values():
        systems |= set(block.get("systems", {}))
    for chart in charts:
        assert chart["overlaps"] == [], (chart["caption"], chart["overlaps"][:5])
        assert chart["clipped"] == [], (chart["caption"], chart["clipped"][:5])
        assert chart["far"] == [], (chart["caption"], chart["far"])
        if chart["kind"] == "bars":  # rankings: a bar group per collection, named under it
            names = [c.removesuffix(" ★") for c in chart["categories"]]
            assert sorted(names) == sorted(data["collections"])
            continue
        runs = chart["runs"]
        assert sorted(runs) == sorted(systems)
        labelled = set(chart["labelled"])
        if len(runs) <= 20:
            assert labelled == set(runs) and chart["note"] == ""
        else:  # the rest in grey, counted and listed under the chart
            greyed = set(runs) - labelled
            assert chart["note"].startswith(f"{len(greyed)} runs in grey")
            assert all(run in chart["note"] for run in greyed)
            assert 0 < len(labelled) <= 20
        assert all(run in chart["visible"] for run in runs if run not in labelled)
        # a label shows its run's name (less a prefix every run shares)
        for run, text in zip(chart["labelled"], chart["label_texts"], strict=True):
            assert run.endswith(text) and text
        if chart["kind"] == "lines":  # level with its end, or joined to it
            assert set(chart["leadered"]) == labelled
    return charts


@pytest.mark.parametrize("command", sorted(PRINTED))
def test_printed_charts_name_every_run_on_the_sample_track(browser, tmp_path, command):
    path = page_file(tmp_path, *PRINTED[command](*sample_track(tmp_path)))
    charts = check_printed_charts(browser, path)
    if command == "pertopic":  # the front, computed from bias2 and var, drawn and labelled
        (scatter,) = charts
        assert "Pareto" in scatter["caption"]
    text = path.read_text()
    assert '<aside class="notes">' in text and '<section class="glossary">' in text


@pytest.mark.parametrize("command", sorted(PRINTED))
def test_printed_charts_name_every_run_on_robust2003(browser, tmp_path, shared_data, command):
    """The real track (17 runs, names such as input.pircRBa1 that share a prefix)."""
    robust = shared_data / "robust2003"
    if not robust.is_dir():
        pytest.skip("../shared/data/robust2003 is not present")
    qrels, runs = robust / "qrels.txt", robust / "runs"
    if command == "rankings":
        for depth in (5, 20):
            pool = run_bvtest("pool", "--depth", depth, qrels, runs)
            (tmp_path / f"d{depth}.qrels").write_text(pool.stdout)
    check_printed_charts(browser, page_file(tmp_path, *PRINTED[command](qrels, runs, tmp_path)))


@pytest.mark.parametrize("command", sorted(PRINTED))
def test_printed_charts_name_every_run_on_60_runs(browser, tmp_path, track60, command):
    path = page_file(tmp_path, *PRINTED[command](*track60))
    charts = check_printed_charts(browser, path)
    kinds = {c["kind"] for c in charts}
    assert kinds == {"rankings": {"bars"}, "eval": {"scatter", "lines"},
                     "pertopic": {"scatter"}, "variations": {"lines"}}[command]  # fmt: skip


def test_pertopic_front_is_marked(browser, tmp_path):
    """pertopic reports Bias² and Var without a Pareto column: the page's
    front is the brute-force front of the JSON's values."""
    path = page_file(tmp_path, "pertopic", "-k", "5", SAMPLE_QRELS, SAMPLE_RUNS)
    page, errors, _ = opened(browser, path, WINDOW)
    seen = page.evaluate(READ)
    page.close()
    assert errors == []
    (scatter,) = seen["scatters"]
    systems = seen["data"]["measures"]["AP"]["systems"]
    truth = brute_force_front({r: (v["bias2"], v["var"]) for r, v in systems.items()})
    assert {run for _, run, _, pareto in scatter["names"] if pareto} == truth
    assert scatter["front"] == (len(truth) > 1)


def test_page_height_of_60_runs(browser, tmp_path, track60):
    """The 60-run eval page's height and A4 page count (docs/formats.md states them)."""
    qrels, runs, _ = track60
    path = page_file(tmp_path, "eval", qrels, runs)
    page, errors, _ = opened(browser, path, A4_PRINTABLE, media="print")
    height = page.evaluate("() => document.documentElement.scrollHeight")
    pdf = page.pdf(format="A4")
    page.close()
    pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
    print(f"60-run eval page: {height} px, {pages} A4 pages")
    assert errors == [] and pages >= 1
