"""-f html: one self-contained page holding every value of the JSON document,
with charts whose marks name their runs (checked here without a browser;
tests/test_render_html_browser.py opens the page in Chromium)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bvtest_cli.report.values import PValue, fmt
from tests.conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

REPO = Path(__file__).resolve().parents[1]
UQV = REPO / "docs" / "examples" / "uqv"
NEW_RUN = REPO / "docs" / "examples" / "new.run"
CONDITIONS = REPO / "docs" / "examples" / "conditions.txt"


class Page(HTMLParser):
    """The parsed page: visible text, tags, attributes, the embedded JSON,
    and the SVG marks with their <title> (accessible name)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.titles: list[tuple[str, dict[str, str | None], str]] = []  # (tag, attrs, name)
        self.data = ""
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag not in ("meta", "br", "link", "img", "input"):  # void elements: no end tag
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break

    def handle_data(self, data):
        tags = [t for t, _ in self.stack]
        if tags and tags[-1] == "script":
            self.data += data
        elif tags and tags[-1] == "title" and "svg" in tags:
            parent, attrs = self.stack[-2]
            self.titles.append((parent, attrs, data))
        elif "style" not in tags:
            self.text.append(data)


def page_of(*args, fmt_name: str = "html") -> tuple[Page, str]:
    proc = run_bvtest(*args, "-f", fmt_name)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    return (Page(proc.stdout) if fmt_name == "html" else None), proc.stdout


def json_of(*args) -> dict:
    proc = run_bvtest(*args, "-f", "json")
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def leaf_texts(node, digits: int = 4):
    """Every leaf of a JSON document as the page prints it (a number: either
    way it may print)."""
    if isinstance(node, dict):
        for v in node.values():
            yield from leaf_texts(v, digits)
    elif isinstance(node, list):
        for v in node:
            yield from leaf_texts(v, digits)
    elif isinstance(node, bool):
        yield "yes" if node else "no"
    elif node is None:
        yield "—"
    elif isinstance(node, float):  # a p-value prints in exponent notation below the digits
        yield (fmt(node, digits), fmt(PValue(node), digits))
    else:
        yield str(node)


def shown(text: str | tuple[str, ...], visible: str) -> bool:
    return any(t in visible for t in ((text,) if isinstance(text, str) else text))


COMMANDS = {
    "eval": ("eval", SAMPLE_QRELS, SAMPLE_RUNS),
    "eval-ci": ("eval", "--ci", "0.9", "--bootstrap", "200", SAMPLE_QRELS, SAMPLE_RUNS),
    "eval-baseline": ("eval", "--baseline", "sys003", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS),
    "instability": ("instability", SAMPLE_QRELS, SAMPLE_RUNS),
    "tradeoff": ("tradeoff", SAMPLE_QRELS, SAMPLE_RUNS),
    "check": ("check", SAMPLE_QRELS, SAMPLE_RUNS, NEW_RUN, "--gate", "AP:mse<=sys012"),
    "compare": ("compare", "--pair", "sys001", "sys002", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS),
    "conditions": ("conditions", "--map", CONDITIONS, SAMPLE_QRELS, SAMPLE_RUNS),
    "pertopic": ("pertopic", "-k", "20", SAMPLE_QRELS, SAMPLE_RUNS),
    "variations": ("variations", "--map", UQV / "map.txt", UQV / "qrels.txt", UQV / "runs"),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_page_holds_every_value_of_the_json(name):
    args = COMMANDS[name]
    page, text = page_of(*args)
    document = json_of(*args)
    # the embedded data is the JSON document itself
    assert json.loads(page.data) == document
    visible = "\n".join(page.text)
    missing = [t for t in leaf_texts(document) if not shown(t, visible)]
    assert not missing, missing[:10]
    # and the JSON's keys name the page's columns and rows
    for key in ("mean", "bias2", "var") if name.startswith("eval") else ():
        assert re.search(rf">{key}( <span class=\"dir\"[^>]*>[↑↓]</span>)?</th>", text)


def test_page_is_self_contained():
    _, text = page_of(*COMMANDS["eval-ci"])
    assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")
    # nothing fetched: no src/href, no url(), no @import, scripts are data only
    assert not re.search(r"\bsrc\s*=", text)
    # links only within the page (the table of contents), each to an element there
    targets = re.findall(r'\bhref\s*=\s*"([^"]*)"', text)
    assert all(t.startswith("#") and f'id="{t[1:]}"' in text for t in targets), targets
    assert "url(" not in text and "@import" not in text
    scripts = re.findall(r"<script\b[^>]*>", text)
    assert scripts == ['<script type="application/json" id="bvtest-data">']
    addresses = set(re.findall(r"https?://[^\s\"'<>]+", text))
    assert addresses == {"http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched


def test_header_names_inputs_version_and_command():
    page, _ = page_of(*COMMANDS["eval"])
    visible = "\n".join(page.text)
    from bvtest_cli import __version__

    for fact in ("qrels", str(SAMPLE_QRELS), "runs", "12", "topics", "29",
                 "AP, nDCG@10, ERR@20", __version__, "bvtest eval"):  # fmt: skip
        assert fact in visible, fact


def brute_force_front(points: dict[str, tuple[float, float]]) -> set[str]:
    """Runs no other run dominates (lower-or-equal on both, strictly lower on one)."""
    return {
        a
        for a, (x, y) in points.items()
        if not any(
            (x2 <= x and y2 <= y) and (x2 < x or y2 < y) for b, (x2, y2) in points.items() if b != a
        )
    }


@pytest.mark.parametrize("name", ["eval", "eval-ci"])
def test_scatter_and_georisk_marks(name):
    _, text = page_of(*COMMANDS[name])
    document = json_of(*COMMANDS[name])
    figures = re.findall(r"<figure class=\"chart (\w+)\">(.*?)</figure>", text, re.S)
    measures = document["measures"]
    scatters = [body for kind, body in figures if kind == "scatter"]
    lines = [body for kind, body in figures if kind == "lines"]
    assert len(scatters) == len(lines) == len(measures)
    for (measure, block), scatter, chart in zip(measures.items(), scatters, lines, strict=True):
        assert f"<figcaption>{measure}: Bias² against Var" in scatter
        assert f"<figcaption>{measure}: GeoRisk against α" in chart
        systems = block["systems"]
        runs = set(systems)
        # exactly one named mark per run in the scatter, and one per run in the lines
        named = re.findall(r"<circle ([^>]*)><title>([^<]*)</title>", scatter)
        assert sorted(re.search(r'data-run="([^"]*)"', a).group(1) for a, _ in named) == sorted(
            runs
        )
        assert all(t.split(" (")[0] in runs for _, t in named)
        assert len(re.findall(r"<title>", scatter)) == len(runs)
        series = re.findall(r'<g class="series" data-run="([^"]*)"[^>]*>\n<title>([^<]*)</title>',
                            chart)  # fmt: skip
        assert sorted(r for r, t in series) == sorted(runs) and all(r == t for r, t in series)
        # the Pareto set, computed here from the JSON, is the set marked on the points
        truth = brute_force_front({r: (v["bias2"], v["var"]) for r, v in systems.items()})
        marked = {
            re.search(r'data-run="([^"]*)"', a).group(1)
            for a, t in named
            if 'class="point pareto"' in a
        }
        assert marked == truth and truth
        assert {r for r, v in systems.items() if v["pareto"]} == truth
        if len(truth) > 1:
            assert 'class="pareto-front"' in scatter
        # error bars (with --ci) drawn in full inside the axes' frame
        frame = re.search(r'<rect class="frame" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" '
                          r'height="([\d.]+)"',
                          scatter)  # fmt: skip
        x0, y0, w, h = map(float, frame.groups())
        bars = re.search(r'<g class="errorbars"[^>]*>(.*?)</g>', scatter, re.S)
        assert (bars is not None) == (name == "eval-ci")
        if bars:
            coords = re.findall(r'x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"',
                                bars.group(1))  # fmt: skip
            assert len(coords) == 2 * len(runs)
            for x1, y1, x2, y2 in coords:
                for x in (float(x1), float(x2)):
                    assert x0 - 1e-6 <= x <= x0 + w + 1e-6
                for y in (float(y1), float(y2)):
                    assert y0 - 1e-6 <= y <= y0 + h + 1e-6


def test_rankings_page_has_bars_per_collection(tmp_path):
    for depth in (5, 20):
        proc = run_bvtest("pool", "--depth", depth, SAMPLE_QRELS, SAMPLE_RUNS)
        (tmp_path / f"d{depth}.qrels").write_text(proc.stdout)
    args = ("rankings", "--reference", f"G={SAMPLE_QRELS}", "--bootstrap", "200",
            "--collection", f"d5={tmp_path / 'd5.qrels'}",
            "--collection", f"d20={tmp_path / 'd20.qrels'}", SAMPLE_RUNS)  # fmt: skip
    page, text = page_of(*args)
    document = json_of(*args)
    assert json.loads(page.data) == document
    bars = re.findall(r'<rect class="bar" data-collection="([^"]*)" data-field="([^"]*)"', text)
    assert sorted(bars) == sorted((c, f) for c in ("d5", "d20") for f in ("|b|", "sigma", "rmse"))
    visible = "\n".join(page.text)
    missing = [t for t in leaf_texts(document) if not shown(t, visible)]
    assert not missing, missing[:10]


def test_same_bytes_whatever_jobs():
    args = (*COMMANDS["eval-ci"][:-2], "--seed", "7", SAMPLE_QRELS, SAMPLE_RUNS)
    one = run_bvtest(*args, "-f", "html", "-j", "1")
    two = run_bvtest(*args, "-f", "html", "-j", "2")
    assert one.returncode == 0
    assert one.forks == 0 and two.forks > 0  # in this process: -j 2 forks its workers
    # the command line differs (-j); nothing else
    assert one.stdout.replace("-j 1</code>", "-j 2</code>") == two.stdout


def test_api_renders_the_same_page_body():
    import bvtest

    report = bvtest.eval(str(SAMPLE_QRELS), [str(SAMPLE_RUNS)])
    text = report.render("html")
    cli = run_bvtest("eval", SAMPLE_QRELS, SAMPLE_RUNS, "-f", "html").stdout
    # the same sections and charts; only the header (command line) differs
    assert (
        text[text.index('<section class="measure"') :]
        == cli[cli.index('<section class="measure"') :]
    )


def test_html_of_bad_input_is_one_line(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("401 Q0 d1 x 1.0 tag\n")
    proc = run_bvtest("eval", "-f", "html", SAMPLE_QRELS, bad)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1


def test_variations_page_draws_the_objective_per_run():
    args = ("variations", "--mode", "inter", "--alpha=-2:2:0.5", "-m", "AP",
            SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    page, text = page_of(*args)
    document = json_of(*args)
    systems = document["measures"]["AP"]["systems"]
    (chart,) = re.findall(r'<figure class="chart lines">(.*?)</figure>', text, re.S)
    assert "<figcaption>AP: the mean–variance objective against α" in chart
    series = re.findall(r'<g class="series" data-run="([^"]*)"[^>]*>\n<title>([^<]*)</title>',
                        chart)  # fmt: skip
    assert sorted(r for r, _ in series) == sorted(systems)
    # a marker per alpha on every line
    assert chart.count("<circle") == len(systems) * 9
    visible = "\n".join(page.text)
    assert all(shown(t, visible) for t in leaf_texts(document))


def hostile_track(tmp_path: Path) -> Path:
    """Runs whose names are markup: a file name and a run tag."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "<img src=x onerror=alert(1)>").write_bytes((SAMPLE_RUNS / "sys001").read_bytes())
    tag = '</script><!--<b>"x"&amp;'
    lines = (SAMPLE_RUNS / "sys002").read_text().splitlines()
    (runs / "tagged").write_text("".join(" ".join([*ln.split()[:5], tag]) + "\n" for ln in lines))
    (runs / "plain").write_bytes((SAMPLE_RUNS / "sys003").read_bytes())
    return runs


@pytest.mark.parametrize("name", ["file", "tag"])
def test_run_names_that_are_markup_stay_text(tmp_path, name):
    runs = hostile_track(tmp_path)
    args = ("eval", "--name", name, "-m", "AP", SAMPLE_QRELS, runs)
    page, _ = page_of(*args)
    document = json_of(*args)
    assert json.loads(page.data) == document  # the data block was not cut short
    assert not [t for t, _ in page.tags if t in ("img", "b")]
    assert [t for t, _ in page.tags].count("script") == 1
    visible = "\n".join(page.text)
    for run in document["measures"]["AP"]["systems"]:
        assert run in visible
    assert len(page.titles) >= 3  # the marks are named by the runs, markup and all


def test_p_values_below_the_digits_read_in_exponent_notation():
    """A p-value below 10^-digits reads in exponent notation on the page (p = 2.1e-06
    at --digits 2 reads 2.1e-06, not 0.00), as in every format."""
    args = ("compare", "--pair", "sys001", "sys002", "-m", "AP", "--digits", "2",
            SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    _, text = page_of(*args)
    mean_row = re.search(r"sys001 sys002 mean</th>(.*?)</tr>", text).group(1)
    cells = re.findall(r"<td>([^<]*)</td>", mean_row)
    p = next(r for r in json_of(*args)["measures"]["AP"]["pairs"] if r["field"] == "mean")["p"]
    assert p < 0.005
    assert cells[3:5] == [f"{p:.1e}", f"{p:.1e}"], cells  # p, p_adj
    trec = run_bvtest(*args).stdout
    assert f"{p:.1e}" in trec


def test_check_page_opens_with_its_verdict():
    _, text = page_of(*COMMANDS["check"])
    passed = json_of(*COMMANDS["check"])["passed"]
    banner = re.search(r'<p class="banner (pass|fail)">([^<]*)</p>', text)
    assert banner.group(1) == ("pass" if passed else "fail")
    assert banner.group(2).startswith("PASS" if passed else "FAIL")
    assert text.index("banner") < text.index('<dl class="inputs">')


def test_summary_comes_before_the_tables_and_glossary_gives_directions():
    _, text = page_of(*COMMANDS["eval"])
    document = json_of(*COMMANDS["eval"])
    section = text[text.index('<section class="measure" id="measure-0">') :]
    summary = section[: section.index("</div>")]
    ap = document["measures"]["AP"]
    least = min(ap["systems"], key=lambda r: ap["systems"][r]["mse"])
    assert f"least MSE: {least} " in summary
    assert f"Pearson r = {fmt(ap['tradeoff']['pearson'], 4)}" in summary
    assert section.index('class="summary"') < section.index("<table")
    # the registry's directions: mean higher, var lower is better
    glossary = text[text.index('<section class="glossary">') :]
    assert re.search(r"<dt>mean <span[^>]*>↑</span></dt>", glossary)
    assert re.search(r"<dt>var <span[^>]*>↓</span></dt>", glossary)


def test_compare_grid_marks_the_significant_pairs():
    args = ("compare", "--pairs", "all", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    _, text = page_of(*args)
    pairs = [p for p in json_of(*args)["measures"]["AP"]["pairs"] if p["field"] == "mean"]
    cells = re.findall(r'<g class="cell (\w+)">.*?<title>([^<]*)</title>', text)
    assert len(cells) == 2 * len(pairs)  # both orders of every pair
    for p in pairs:
        kind = "same" if p["p_adj"] >= 0.05 else ("better" if p["diff"] > 0 else "worse")
        title = [k for k, t in cells if t.startswith(f"{p['a']} − {p['b']}:")]
        assert title == [kind], (p, title)


def test_budget_page_charts_each_scale_and_repeats_the_keys():
    args = ("budget", "--budget", "10,40", "--draws", "3", "--bootstrap", "60",
            SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    _, text = page_of(*args)
    document = json_of(*args)
    scales = {c["topics_scale"] for c in document["cells"]}
    charts = re.findall(r'<figure class="chart bars">(.*?)</figure>', text, re.S)
    assert len(charts) == len(scales)
    for chart in charts:
        assert 'class="reference"' in chart and "★" in chart
    tables = re.findall(r"<caption>cells[^<]*</caption>\n<thead><tr><th[^>]*>([^<]*)</th>", text)
    assert tables and all(first == "budget topics_scale method" for first in tables)
    # the least-RMSE cell of each scale is the one starred
    for scale, chart in zip(sorted(scales), charts, strict=True):
        cells = [c for c in document["cells"] if c["topics_scale"] == scale]
        best = min(cells, key=lambda c: c["rmse"])
        assert f">{best['method']} ★</text>" in chart


def test_budget_page_bolds_the_least_rmse_of_each_budget_and_scale():
    args = ("budget", "--budget", "10,40", "--draws", "3", "--bootstrap", "60",
            SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    _, text = page_of(*args)
    cells = json_of(*args)["cells"]
    rows = re.findall(r'<tr><th scope="row">([^<]*)</th>(.*?)</tr>', text)
    marked = {name: re.findall(r'<td class="best"[^>]*><strong>([^<]*)</strong></td>', row)
              for name, row in rows}  # fmt: skip
    for key in {(c["budget"], c["topics_scale"]) for c in cells}:
        group = [c for c in cells if (c["budget"], c["topics_scale"]) == key]
        least = min(c["rmse"] for c in group)
        for c in group:
            want = [fmt(least, 4)] if c["rmse"] == least else []
            assert marked[f"{c['budget']} {c['topics_scale']} {c['method']}"] == want, c


def test_design_page_charts_the_allocation_of_each_total(tmp_path):
    budget = run_bvtest("budget", "--budget", "10,40", "--draws", "3", "--bootstrap", "60",
                        "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    assert budget.returncode == 0, budget.stderr
    report = tmp_path / "budget.json"
    report.write_text(budget.stdout)
    args = ("design", "-m", "AP", "--budget-report", report, "--total", "300,1200",
            SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    _, text = page_of(*args)
    block = json_of(*args)["measures"]["AP"]
    charts = re.findall(r'<figure class="chart bars">(.*?)</figure>', text, re.S)
    assert len(charts) == 2, "a chart per total"
    for total, chart in zip((300, 1200), charts, strict=True):
        assert f"total of {total} judgments" in chart
        candidates = [c for c in block["candidates"] if c["total"] == total]
        bars = re.findall(r'<rect class="bar"[^>]*><title>([^<]*)</title>', chart)
        assert len(bars) == len(candidates)
        for c, bar in zip(candidates, bars, strict=True):
            assert bar.startswith(f"{c['method']} ") and bar.endswith(f"{c['rmse_predicted']:.4f}")
        (best,) = [a for a in block["allocation"] if a["total"] == total]
        starred = re.findall(r">([^<>]*) ★</text>", chart)
        assert starred == [best["method"]]
        assert best["rmse_predicted"] == min(c["rmse_predicted"] for c in candidates)


RUNS_60 = 60


@pytest.fixture(scope="module")
def track_60(tmp_path_factory) -> Path:
    import sys

    sys.path.insert(0, str(REPO / "tools"))
    import gen_track

    out = tmp_path_factory.mktemp("track60")
    gen_track.main(["--out", str(out), "--runs", str(RUNS_60), "-q"])
    assert len(list((out / "runs").iterdir())) == RUNS_60
    return out


def test_eval_page_sets_the_per_run_tables_of_a_measure_side_by_side(track_60):
    _, text = page_of("eval", track_60 / "qrels.txt", track_60 / "runs")
    sections = re.findall(r'<section class="measure".*?</section>', text, re.S)
    assert len(sections) == 3  # eval's default measures
    for section in sections:
        groups = re.findall(r'<div class="tables">(.*?)</div>', section, re.S)
        assert len(groups) == 1, "the per-run tables in one group"
        tables = re.findall(r"<table>.*?</table>", groups[0], re.S)
        # the scalar fields' table and one per alpha-indexed field (zrisk,
        # georisk, zrisk_target, trisk_mean), each a row per run
        assert len(tables) == 5
        for table in tables:
            assert table.count('<tr><th scope="row">') == RUNS_60
        assert len(re.findall(r"<table>", section)) == 5  # no per-run table outside it


def test_eval_page_of_60_runs_is_half_as_tall_as_it_was(track_60, tmp_path):
    """29,000 px at 1280 px before the per-run tables were set side by side."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.test_render_html_browser import ARGS, CHROMIUM, WINDOW

    if CHROMIUM is None:
        pytest.skip("no Chromium installed (apt-get install chromium)")
    proc = run_bvtest("eval", "-f", "html", track_60 / "qrels.txt", track_60 / "runs")
    assert proc.returncode == 0, proc.stderr
    path = tmp_path / "eval.html"
    path.write_text(proc.stdout, encoding="utf-8")
    with sync_api.sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as e:  # a browser that cannot start here: not this test's subject
            pytest.skip(f"Chromium does not start under Playwright: {e}")
        try:
            page = browser.new_page(viewport={"width": WINDOW, "height": 900})
            page.goto(path.as_uri())
            height = page.evaluate("document.documentElement.scrollHeight")
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
        finally:
            browser.close()
    assert height <= 29_000 / 2, height
    assert overflow <= 0
