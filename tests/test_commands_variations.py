"""`bvtest variations` end to end, through the installed command (
docs/variations.md; Zuccon, Palotti & Hanbury, CIKM 2016).

Expected values come from the paper (the pilot study; the CLEF 2015 crossover
0.0048/0.0059), hand computations written here, per-variation AP computed here
with ir_measures directly (qrels copied to every variation by this file), the
statistics module, scipy's Kendall τ, a loop implementation of τ_AP's
definition (Yilmaz et al. 2008) and a brute-force crossover scan. The text
formats are checked against a mapping of the JSON to trec lines written here
from the README's rules.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import itertools
import json
import math
import statistics
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from conftest import REPO, SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, unpadded
from scipy.stats import kendalltau

sys.path.insert(0, str(REPO / "tools"))

import gen_track

needs_mpl = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is not installed (pip install 'bvtest[plot]')",
)

GRID = "-20:20:2.5"
GRID_KEYS = [
    "-20", "-17.5", "-15", "-12.5", "-10", "-7.5", "-5", "-2.5", "0",
    "2.5", "5", "7.5", "10", "12.5", "15", "17.5", "20",
]  # fmt: skip


# ---------------------------------------------------------------------------
# Independent helpers


def _yilmaz(reference: list[float], evaluated: list[float]) -> float:
    """τ_AP by its definition (Yilmaz et al. 2008), no ties: C(i) counts the
    systems above rank i of the evaluated ranking that the reference also puts
    above the system at rank i; τ_AP = 2/(m−1) Σ_{i≥2} C(i)/(i−1) − 1."""
    order = sorted(range(len(evaluated)), key=lambda s: -evaluated[s])
    total = 0.0
    for i in range(1, len(order)):
        total += sum(1 for j in range(i) if reference[order[j]] > reference[order[i]]) / i
    return 2.0 * total / (len(order) - 1) - 1.0


def _crossovers(names, mu, var, lo, hi) -> set[tuple[str, str, float]]:
    """Every pair with var_a > var_b whose lines O = μ − α σ² meet in [lo, hi]."""
    out = set()
    for i, j in itertools.permutations(range(len(names)), 2):
        if var[i] > var[j]:
            star = (mu[i] - mu[j]) / (var[i] - var[j])
            if lo <= star <= hi:
                out.add((names[i], names[j], round(star, 9)))
    return out


def _f4(value) -> str:
    """A value as the text formats print it with 4 digits (README: nan for null,
    no sign on a zero, integers as integers)."""
    if value is None:
        return "nan"
    if isinstance(value, int):
        return str(value)
    text = f"{value:.4f}"
    return text[1:] if text == "-0.0000" else text


def _trec_lines(doc: dict) -> list[str]:
    """The trec lines the README documents for a `variations` JSON document:
    per measure its counts, mu and var of every run, o per alpha, tau and
    tau_ap per alpha (`all`), per-topic tau and tau_ap (intra, the topic in the
    system column), then the crossovers `M.crossover<TAB>a:b<TAB>alpha`
    (intra: `M.TOPIC.crossover`)."""
    lines = []
    for m, block in doc["measures"].items():
        for key in ("n_topics", "n_variations", "n_users"):
            if key in block:
                lines.append(f"{m}.{key}\tall\t{block[key]}")
        runs = block["systems"]
        for key in ("mu", "var"):
            lines += [f"{m}.{key}\t{r}\t{_f4(v[key])}" for r, v in runs.items()]
        for a in doc["alphas"]:
            lines += [f"{m}.o@{a}\t{r}\t{_f4(v['o'][a])}" for r, v in runs.items()]
        for key in ("tau", "tau_ap"):
            lines += [f"{m}.{key}@{a}\tall\t{_f4(block[key][a])}" for a in doc["alphas"]]
        for key in ("tau", "tau_ap") if "topics" in block else ():
            for a in doc["alphas"]:
                lines += [
                    f"{m}.{key}@{a}\t{t}\t{_f4(v[key][a])}" for t, v in block["topics"].items()
                ]
        for c in block["crossovers"]:
            where = f"{c['topic']}." if "topic" in c else ""
            lines.append(f"{m}.{where}crossover\t{c['a']}:{c['b']}\t{_f4(c['alpha'])}")
    return lines


# ---------------------------------------------------------------------------
# Scores files: the paper's numbers


def _scores_file(path: Path, rows: dict[str, list[float]], measure: str = "P@10") -> Path:
    with path.open("w") as out:
        out.write("system\ttopic\tmeasure\tvalue\n")
        for system, values in rows.items():
            for j, v in enumerate(values, 1):
                out.write(f"{system}\t{j}\t{measure}\t{v!r}\n")
    return path


def test_pilot_study_as_a_scores_file(bvtest, tmp_path):
    """Zuccon et al. 2016 §6: S1 = {0.4}×10, S2 = {0.8}×5 ∪ {0}×5: equal means,
    σ²(S2) = 0.1778, S1 first for every α > 0, S2 for every α < 0; they cross
    at α = 0. Without a map the mode is inter (one query per topic)."""
    scores = _scores_file(tmp_path / "pilot.tsv", {"S1": [0.4] * 10, "S2": [0.8] * 5 + [0.0] * 5})
    proc = bvtest("variations", "--scores", scores, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["mode"] == "inter"
    assert doc["alphas"] == [str(a) for a in range(-20, 21)]  # the default grid
    block = doc["measures"]["P@10"]
    assert (block["n_topics"], block["n_variations"]) == (10, 10)
    s1, s2 = block["systems"]["S1"], block["systems"]["S2"]
    assert s1["mu"] == pytest.approx(0.4, abs=1e-15) and s2["mu"] == pytest.approx(0.4, abs=1e-15)
    assert s1["var"] == pytest.approx(0.0, abs=1e-15)
    assert s2["var"] == pytest.approx(1.6 / 9, abs=1e-15)  # 10 deviations of ±0.4, over n − 1
    assert round(s2["var"], 4) == 0.1778
    for a in doc["alphas"]:
        diff = s1["o"][a] - s2["o"][a]  # = α σ²(S2): its sign is the sign of α
        assert diff == pytest.approx(float(a) * 1.6 / 9, abs=1e-12)
        if float(a) != 0:
            assert math.copysign(1, diff) == math.copysign(1, float(a))
    assert block["crossovers"] == [{"a": "S2", "b": "S1", "alpha": 0.0}]
    # equal means: the reference ranking has no order, nothing to correlate with
    assert set(block["tau"].values()) == {None} and set(block["tau_ap"].values()) == {None}
    assert "tau and tau_ap are undefined" in proc.stderr

    trec = bvtest("variations", "--scores", scores, "--alpha=-1,0,1", "--quiet")
    assert trec.returncode == 0 and trec.stderr == ""
    assert "P@10.crossover\tS2:S1\t0.0000\n" in unpadded(trec.stdout)
    assert "P@10.o@1\tS1\t0.4000\nP@10.o@1\tS2\t0.2222\n" in unpadded(trec.stdout)  # by hand
    assert "P@10.tau@-1\tall\tnan\n" in unpadded(trec.stdout)


def _with_moments(mean: float, var: float, n: int = 4) -> list[float]:
    """n scores with exactly this mean and sample variance (up to rounding)."""
    z = [k - (n - 1) / 2 for k in range(n)]
    scale = math.sqrt(sum(v * v for v in z) / (n - 1))
    return [mean + math.sqrt(var) * v / scale for v in z]


def test_clef_crossover_by_hand(bvtest, tmp_path):
    """Zuccon et al. 2016 §5.2: means 0.3730 and 0.3682, variances 8.9e-3 and
    3.0e-3 swap at α* = (0.3730 − 0.3682)/(0.0089 − 0.0030) = 0.0048/0.0059."""
    runs = {
        "KISTI_EN_RUN.3": _with_moments(0.3730, 8.9e-3),
        "CUNI_EN_Run.5": _with_moments(0.3682, 3.0e-3),
    }
    scores = _scores_file(tmp_path / "clef.tsv", runs)
    proc = bvtest("variations", "--scores", scores, "--alpha", "0:2:0.01", "-f", "json")
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["measures"]["P@10"]
    kisti, cuni = block["systems"]["KISTI_EN_RUN.3"], block["systems"]["CUNI_EN_Run.5"]
    assert (kisti["mu"], kisti["var"]) == pytest.approx((0.3730, 8.9e-3), abs=1e-15)
    assert (cuni["mu"], cuni["var"]) == pytest.approx((0.3682, 3.0e-3), abs=1e-15)
    (cross,) = block["crossovers"]
    assert (cross["a"], cross["b"]) == ("KISTI_EN_RUN.3", "CUNI_EN_Run.5")  # KISTI leads below
    assert cross["alpha"] == pytest.approx(0.0048 / 0.0059, rel=1e-9)
    # two runs: the same order as by mean (τ = τ_AP = 1) until α*, reversed (−1) after
    assert (block["tau"]["0.81"], block["tau_ap"]["0.81"]) == (1.0, 1.0)
    assert (block["tau"]["0.82"], block["tau_ap"]["0.82"]) == (-1.0, -1.0)
    assert kisti["o"]["0.81"] > cuni["o"]["0.81"] and cuni["o"]["0.82"] > kisti["o"]["0.82"]
    trec = bvtest("variations", "--scores", scores, "--alpha", "0,2", "--digits", "12")
    line = f"P@10.crossover\tKISTI_EN_RUN.3:CUNI_EN_Run.5\t{0.0048 / 0.0059:.12f}\n"
    assert line in unpadded(trec.stdout)
    assert "\t0.8136\n" in bvtest("variations", "--scores", scores, "--alpha", "0,2").stdout


# ---------------------------------------------------------------------------
# A UQV100-like track: 4 topics × 5 variations (users u01..u05) × 3 runs


@pytest.fixture(scope="module")
def uqv(tmp_path_factory) -> gen_track.Track:
    return gen_track.generate(
        tmp_path_factory.mktemp("uqv"),
        runs=3,
        topics=4,
        variations=5,
        depth=30,
        judged=40,
        seed=7,
        norel_topics=1,
        missing_topics=2,
    )


@pytest.fixture(scope="module")
def expected(uqv) -> dict:
    """AP of every (run, variation) by ir_measures, the qrels of each topic
    copied here to its variations; a query a run skipped scores 0."""
    topic_of = {}
    for line in uqv.map_path.read_text().splitlines():
        variation, topic, _ = line.split()
        topic_of[variation] = topic
    by_topic: dict[str, list] = {}
    for q in ir_measures.read_trec_qrels(str(uqv.qrels_path)):
        by_topic.setdefault(q.query_id, []).append(q)
    relevant = sorted(t for t, qs in by_topic.items() if any(q.relevance > 0 for q in qs))
    qrels = [
        ir_measures.Qrel(v, q.doc_id, q.relevance)
        for v, t in topic_of.items()
        if t in relevant
        for q in by_topic[t]
    ]
    ap = {}
    for path in uqv.run_paths:
        run = list(ir_measures.read_trec_run(str(path)))
        for metric in ir_measures.iter_calc([ir_measures.AP], qrels, run):
            ap[(path.name, metric.query_id)] = metric.value
    runs = [p.name for p in uqv.run_paths]

    def r(run: str, topic: str, k: int) -> float:  # user u0k's query for the topic
        return ap.get((run, f"{topic}-{k}"), 0.0)

    return {"ap": ap, "runs": runs, "topics": relevant, "r": r}


def _run(bvtest, uqv, *args):
    return bvtest("variations", "-m", "AP", *args, uqv.qrels_path, uqv.runs_dir)


def test_uqv_relevant_topics_by_hand(uqv, expected):
    assert uqv.norel_topics == ["404"] and expected["topics"] == ["401", "402", "403"]


def test_uqv_general_mode(bvtest, uqv, expected):
    proc = _run(bvtest, uqv, "--map", uqv.map_path, "--alpha", GRID, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    notes = proc.stderr.splitlines()
    assert notes == [
        "bvtest: note: 1 topic(s) have no relevant document (rel >= 1); "
        "their 5 variation(s) dropped",
        f"bvtest: note: {next(iter(uqv.missing))}: no ranking for 2 of 15 variations; they score 0",
    ]
    doc = json.loads(proc.stdout)
    assert doc["mode"] == "general" and doc["alphas"] == GRID_KEYS
    block = doc["measures"]["AP"]
    assert (block["n_topics"], block["n_variations"], block["n_users"]) == (3, 15, 5)
    runs, topics, r = expected["runs"], expected["topics"], expected["r"]
    assert list(block["systems"]) == runs
    mus, variances = [], []
    for run in runs:
        # R_P[k] = Σ_i (1/N) r[k, i] for user k; μ its mean, σ² its sample variance
        port = [statistics.mean(r(run, t, k) for t in topics) for k in range(1, 6)]
        mus.append(statistics.mean(port))
        variances.append(statistics.variance(port))
        got = block["systems"][run]
        assert got["mu"] == pytest.approx(mus[-1], abs=1e-12)
        assert got["var"] == pytest.approx(variances[-1], abs=1e-12)
    for a in GRID_KEYS:
        o = [mu - float(a) * v for mu, v in zip(mus, variances, strict=True)]
        assert [block["systems"][s]["o"][a] for s in runs] == pytest.approx(o, abs=1e-12)
        assert block["tau"][a] == pytest.approx(kendalltau(mus, o).statistic, abs=1e-12)
        assert block["tau_ap"][a] == pytest.approx(_yilmaz(mus, o), abs=1e-12)
    assert block["tau"]["0"] == 1.0 and block["tau_ap"]["0"] == 1.0
    got = {(c["a"], c["b"], round(c["alpha"], 9)) for c in block["crossovers"]}
    assert got == _crossovers(runs, mus, variances, -20, 20)
    assert [c["alpha"] for c in block["crossovers"]] == sorted(
        c["alpha"] for c in block["crossovers"]
    )


def test_uqv_weights_in_general_mode(bvtest, uqv, expected, tmp_path):
    weights = tmp_path / "w.txt"
    weights.write_text("401 1\n402 2\n403 1\n404 5\n")  # 404 has no relevant document
    proc = _run(bvtest, uqv, "--map", uqv.map_path, "--weights", weights, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    assert "1 weighted topic(s) are not analysed; their weights ignored" in proc.stderr
    block = json.loads(proc.stdout)["measures"]["AP"]
    w = {"401": 0.25, "402": 0.5, "403": 0.25}  # 1, 2, 1 normalised over the analysed topics
    r = expected["r"]
    for run in expected["runs"]:
        port = [sum(w[t] * r(run, t, k) for t in w) for k in range(1, 6)]
        assert block["systems"][run]["mu"] == pytest.approx(statistics.mean(port), abs=1e-12)
        assert block["systems"][run]["var"] == pytest.approx(statistics.variance(port), abs=1e-12)


def test_uqv_intra_mode(bvtest, uqv, expected):
    proc = _run(bvtest, uqv, "--map", uqv.map_path, "--mode", "intra", "--alpha", GRID, "-q")
    assert proc.returncode == 0, proc.stderr
    json_proc = _run(
        bvtest, uqv, "--map", uqv.map_path, "--mode", "intra", "--alpha", GRID, "-q", "-f", "json"
    )
    doc = json.loads(json_proc.stdout)
    assert doc["mode"] == "intra"
    block = doc["measures"]["AP"]
    assert (block["n_topics"], block["n_variations"]) == (3, 15) and "n_users" not in block
    runs, topics, r = expected["runs"], expected["topics"], expected["r"]
    assert list(block["topics"]) == topics
    taus, taps, cross = [], [], set()
    per_run_mu = {run: [] for run in runs}
    per_run_var = {run: [] for run in runs}
    for t in topics:
        cells = [[r(run, t, k) for k in range(1, 6)] for run in runs]
        mus = [statistics.mean(c) for c in cells]
        variances = [statistics.variance(c) for c in cells]
        topic = block["topics"][t]
        for i, run in enumerate(runs):  # -q: each topic's own systems
            assert topic["systems"][run]["mu"] == pytest.approx(mus[i], abs=1e-12)
            assert topic["systems"][run]["var"] == pytest.approx(variances[i], abs=1e-12)
            assert topic["systems"][run]["o"]["5"] == pytest.approx(
                mus[i] - 5 * variances[i], abs=1e-12
            )
            per_run_mu[run].append(mus[i])
            per_run_var[run].append(variances[i])
        tau_t, tap_t = [], []
        for a in GRID_KEYS:
            o = [mu - float(a) * v for mu, v in zip(mus, variances, strict=True)]
            tau_t.append(kendalltau(mus, o).statistic)
            tap_t.append(_yilmaz(mus, o))
        assert [topic["tau"][a] for a in GRID_KEYS] == pytest.approx(tau_t, abs=1e-12)
        assert [topic["tau_ap"][a] for a in GRID_KEYS] == pytest.approx(tap_t, abs=1e-12)
        taus.append(tau_t)
        taps.append(tap_t)
        cross |= {(*c, t) for c in _crossovers(runs, mus, variances, -20, 20)}
    # the summary: means over the topics
    assert [block["tau"][a] for a in GRID_KEYS] == pytest.approx(np.mean(taus, axis=0), abs=1e-12)
    assert [block["tau_ap"][a] for a in GRID_KEYS] == pytest.approx(
        np.mean(taps, axis=0), abs=1e-12
    )
    for run in runs:
        mu, var = statistics.mean(per_run_mu[run]), statistics.mean(per_run_var[run])
        got = block["systems"][run]
        assert (got["mu"], got["var"]) == pytest.approx((mu, var), abs=1e-12)
        assert got["o"]["-10"] == pytest.approx(mu + 10 * var, abs=1e-12)
    got = {(c["a"], c["b"], round(c["alpha"], 9), c["topic"]) for c in block["crossovers"]}
    assert got == cross and len(cross) > 0
    assert [list(c) for c in block["crossovers"]] == [["topic", "a", "b", "alpha"]] * len(cross)
    # the trec output: per-topic lines name the topic; the -q detail is under TOPIC.
    assert f"AP.tau@0\t{topics[0]}\t1.0000\n" in unpadded(proc.stdout)
    assert f"AP.{topics[0]}.mu\t{runs[0]}\t" in unpadded(proc.stdout)
    out = unpadded(proc.stdout)
    assert "\nAP.402.crossover\t" in out or "\nAP.403.crossover\t" in out


def test_uqv_split_is_intra_mode_with_the_topics_before_the_dash(bvtest, uqv, tmp_path):
    plain = tmp_path / "plain.map"  # the map without its user column: intra by default
    plain.write_text(
        "".join(" ".join(line.split()[:2]) + "\n" for line in uqv.map_path.read_text().splitlines())
    )
    by_split = _run(bvtest, uqv, "--split", "-", "-f", "json")
    by_map = _run(bvtest, uqv, "--map", plain, "-f", "json")
    assert by_split.returncode == 0 and by_map.returncode == 0, by_split.stderr
    assert json.loads(by_split.stdout)["mode"] == "intra"
    assert by_split.stdout == by_map.stdout
    assert by_split.stderr == by_map.stderr


def test_uqv_inter_mode_one_query_per_topic(bvtest, uqv, expected, tmp_path):
    first = tmp_path / "first.map"
    first.write_text("".join(f"{t}-1 {t}\n" for t in uqv.topic_ids))
    proc = _run(bvtest, uqv, "--map", first, "--mode", "inter", "-f", "json")
    assert proc.returncode == 0, proc.stderr
    # 4 topics × 4 other variations are in the runs but not in the map
    assert "16 query id(s) in the runs are not in the map; ignored" in proc.stderr
    assert "not in the qrels" not in proc.stderr
    block = json.loads(proc.stdout)["measures"]["AP"]
    runs, topics, r = expected["runs"], expected["topics"], expected["r"]
    assert (block["n_topics"], block["n_variations"]) == (3, 3)
    for run in runs:
        cells = [r(run, t, 1) for t in topics]
        assert block["systems"][run]["mu"] == pytest.approx(statistics.mean(cells), abs=1e-12)
        assert block["systems"][run]["var"] == pytest.approx(statistics.variance(cells), abs=1e-12)
    # without --mode the plain map means intra, which a single query per topic cannot feed
    proc = _run(bvtest, uqv, "--map", first)
    assert_one_line_error(proc, "intra mode needs a topic with at least 2 variations", "inter")


@pytest.mark.parametrize("mode", ["general", "intra", "inter"])
@pytest.mark.parametrize("fmt", ["trec", "tsv", "csv", "table", "markdown", "latex"])
def test_every_mode_in_every_format(bvtest, uqv, tmp_path, mode, fmt):
    """The text formats carry the JSON's numbers, in the documented lines."""
    first = tmp_path / "first.map"  # one query per topic, for inter mode
    first.write_text("".join(f"{t}-1 {t}\n" for t in uqv.topic_ids))
    maps = {"general": uqv.map_path, "intra": uqv.map_path, "inter": first}
    args = ["--map", maps[mode], "--mode", mode, "--alpha=-3:3:1.5", "--quiet"]
    doc = json.loads(_run(bvtest, uqv, *args, "-f", "json").stdout)
    assert doc["mode"] == mode
    lines = _trec_lines(doc)
    proc = _run(bvtest, uqv, *args, "-f", fmt)
    assert proc.returncode == 0 and proc.stderr == ""
    if fmt == "trec":  # the name column padded as trec_eval's "%-22s\t%s\t%s"
        padded = [f"{name:<22}\t{rest}" for name, rest in (x.split("\t", 1) for x in lines)]
        assert proc.stdout.splitlines() == padded
    elif fmt in ("tsv", "csv"):
        rows = list(csv.reader(io.StringIO(proc.stdout), delimiter="\t" if fmt == "tsv" else ","))
        assert rows[0] == ["measure", "name", "system", "value"]
        assert [f"{m}.{n}\t{s}\t{v}" for m, n, s, v in rows[1:]] == lines
    else:
        block = doc["measures"]["AP"]
        lines = [_cells(line, fmt) for line in unpadded(proc.stdout).splitlines()]
        title = {"table": "# AP  ", "markdown": "### AP  ", "latex": "% AP  "}[fmt]
        first = next(line for line in unpadded(proc.stdout).splitlines() if line.startswith(title))
        assert f"n_topics=3  n_variations={block['n_variations']}" in first
        assert f"mode={mode}" in first
        for run, v in block["systems"].items():
            assert [run, _f4(v["mu"]), _f4(v["var"])] in lines
        for a in doc["alphas"]:  # a row per alpha: alpha, tau, tau_ap
            assert [a, _f4(block["tau"][a]), _f4(block["tau_ap"][a])] in lines
        for c in block["crossovers"]:
            row = [c.get("topic"), c["a"], c["b"], _f4(c["alpha"])]
            assert [x for x in row if x] in lines


def _cells(line: str, fmt: str) -> list[str]:
    """The cells of a table line: white-space separated (table), between | (markdown),
    between & with the \\textbf{} of a best value removed (latex)."""
    if fmt == "table":
        return line.split()
    if fmt == "markdown":
        return [c.strip() for c in line.strip().strip("|").split("|")]
    line = line.replace("\\textbf{", "").replace("}", "").removesuffix("\\\\").strip()
    return [c.strip() for c in line.split("&")]


def test_scores_file_with_a_map_equals_the_runs(bvtest, uqv, expected, tmp_path):
    """The same per-variation AP (computed here) as a scores file gives the
    numbers of the runs; the topic without relevant documents has no scores."""
    scores = tmp_path / "uqv.tsv"
    with scores.open("w") as out:
        for (run, variation), value in sorted(expected["ap"].items()):
            out.write(f"{run}\t{variation}\tAP\t{value!r}\n")
    from_runs = _run(bvtest, uqv, "--map", uqv.map_path, "-f", "json")
    from_scores = bvtest("variations", "--scores", scores, "--map", uqv.map_path, "-f", "json")
    assert from_scores.returncode == 0, from_scores.stderr
    assert "5 variation(s) of the map have no score in the scores file; left out" in (
        from_scores.stderr
    )
    a, b = json.loads(from_runs.stdout), json.loads(from_scores.stdout)
    assert a["mode"] == b["mode"] == "general"
    sa, sb = a["measures"]["AP"]["systems"], b["measures"]["AP"]["systems"]
    for run in expected["runs"]:
        assert sb[run]["mu"] == pytest.approx(sa[run]["mu"], abs=1e-12)
        assert sb[run]["var"] == pytest.approx(sa[run]["var"], abs=1e-12)


def test_plain_trec_data_is_inter_mode(bvtest):
    """Without a map each topic is its own single query (the paper's modified
    inter-topic evaluation): μ and σ² are the mean and sample variance of the
    run's per-topic scores, which `bvtest scores` prints."""
    scores = bvtest("scores", "-m", "AP", "--quiet", SAMPLE_QRELS, SAMPLE_RUNS).stdout
    per_run: dict[str, list[float]] = {}
    for line in scores.splitlines()[1:]:
        run, _, _, value = line.split("\t")
        per_run.setdefault(run, []).append(float(value))
    proc = bvtest("variations", "-m", "AP", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    assert "no ranking for 2 of 29 topics; they score 0" in proc.stderr
    block = json.loads(proc.stdout)["measures"]["AP"]
    assert block["n_topics"] == 29
    for run, values in per_run.items():
        assert block["systems"][run]["mu"] == pytest.approx(statistics.mean(values), abs=1e-12)
        assert block["systems"][run]["var"] == pytest.approx(statistics.variance(values), abs=1e-12)


def test_same_output_whatever_jobs(bvtest, uqv):
    one = _run(bvtest, uqv, "--map", uqv.map_path, "-j", "1", "-f", "json")
    two = _run(bvtest, uqv, "--map", uqv.map_path, "-j", "2", "-f", "json")
    assert one.returncode == 0 and one.stdout == two.stdout and one.stderr == two.stderr
    assert one.forks == 0 and two.forks > 0  # in this process: -j 2 forks its workers


def test_per_topic_flag_outside_intra_mode_is_a_note(bvtest, uqv):
    proc = _run(bvtest, uqv, "--map", uqv.map_path, "-q")
    assert proc.returncode == 0
    assert "-q adds per-topic values in intra mode only; not in general mode" in proc.stderr


def test_weights_are_not_used_in_intra_mode(bvtest, uqv, tmp_path):
    weights = tmp_path / "w.txt"
    weights.write_text("401 1\n")  # would lack topics 402, 403: not read for intra
    proc = _run(bvtest, uqv, "--map", uqv.map_path, "--mode", "intra", "--weights", weights)
    assert proc.returncode == 0, proc.stderr
    assert "topic weights are not used in intra mode" in proc.stderr


# ---------------------------------------------------------------------------
# Errors: one line, exit 2, nothing on stdout


def test_general_mode_names_the_topic_and_suggests_intra(bvtest, uqv, tmp_path):
    holed = tmp_path / "holed.map"
    lines = uqv.map_path.read_text().splitlines()
    holed.write_text("".join(line + "\n" for line in lines if line != "402-3 402 u03"))
    proc = _run(bvtest, uqv, "--map", holed, "--mode", "general")
    assert_one_line_error(proc, "topic '402' has no query from user 'u03'", "--mode intra")


def test_general_mode_without_users(bvtest, uqv):
    proc = _run(bvtest, uqv, "--split", "-", "--mode", "general")
    assert_one_line_error(proc, "general mode needs a user column", "--mode intra")
    proc = _run(bvtest, uqv, "--mode", "intra")
    assert_one_line_error(proc, "intra mode needs query variations", "--map")


def test_bad_map_line(bvtest, uqv, tmp_path):
    bad = tmp_path / "bad.map"
    bad.write_text("401-1 401 u01\n401-2 401 u02 extra\n")
    proc = _run(bvtest, uqv, "--map", bad)
    assert_one_line_error(proc, f"{bad}:2: ", "found 4 fields")
    bad.write_text("401-1 401 u01\n401-2 401\n")
    assert_one_line_error(_run(bvtest, uqv, "--map", bad), f"{bad}:2: ", "line 1 has 3")


def test_bad_weights_line(bvtest, uqv, tmp_path):
    bad = tmp_path / "w.txt"
    bad.write_text("401 1\n402 heavy\n")
    proc = _run(bvtest, uqv, "--map", uqv.map_path, "--weights", bad)
    assert_one_line_error(proc, f"{bad}:2: ", "'heavy' is not a number")


@pytest.mark.parametrize(
    "alpha, fragment",
    [("1:0:1", "START <= STOP"), ("0:1:0", "must be > 0"), ("1,x", "not a number"),
     ("1,1.0", "twice"), ("0:1", "START:STOP:STEP")],
)  # fmt: skip
def test_bad_alpha(bvtest, uqv, alpha, fragment):
    proc = _run(bvtest, uqv, "--map", uqv.map_path, f"--alpha={alpha}")
    assert_one_line_error(proc, "--alpha", fragment)


def test_map_and_split_together(bvtest, uqv):
    proc = _run(bvtest, uqv, "--map", uqv.map_path, "--split", "-")
    assert_one_line_error(proc, "either --map FILE or --split SEP")


def test_standard_input_read_once(bvtest, uqv):
    proc = bvtest("variations", "--map", "-", "-", uqv.runs_dir, stdin=b"")
    assert_one_line_error(proc, "standard input (-) can be read only once")
    run = uqv.run_paths[0].read_bytes()
    proc = bvtest("variations", "--split", "-", uqv.qrels_path, "-", stdin=run)
    assert_one_line_error(proc, "--split", "standard input")


def test_split_without_the_separator(bvtest, uqv):
    proc = _run(bvtest, uqv, "--split", "_")
    assert_one_line_error(proc, "no query id holds the separator '_'")


# ---------------------------------------------------------------------------
# --plot: Zuccon et al. 2016 Figs. 2–4


@needs_mpl
@pytest.mark.parametrize("mode", ["general", "intra"])
def test_plot_next_to_the_results(bvtest, uqv, tmp_path, mode):
    out = tmp_path / f"{mode}.png"
    args = ("--map", uqv.map_path, "--mode", mode, "--plot", out, "--quiet")
    proc = _run(bvtest, uqv, *args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and "AP.tau@0\tall\t1.0000\n" in unpadded(proc.stdout)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_plot_bad_extension_fails_before_evaluation(bvtest, tmp_path):
    out = tmp_path / "tau.gif"
    proc = bvtest("variations", "--plot", out, tmp_path / "missing-qrels", SAMPLE_RUNS)
    assert_one_line_error(proc, "supported format", ".png")
    assert not out.exists()


def test_scores_file_with_split(bvtest, expected, tmp_path):
    """--split on a scores file: ids 401-1 .. 403-5 → topics 401 .. 403, intra by
    default; each topic's mean over its 5 variations (computed here)."""
    scores = tmp_path / "uqv.tsv"
    with scores.open("w") as out:
        for (run, variation), value in sorted(expected["ap"].items()):
            out.write(f"{run}\t{variation}\tAP\t{value!r}\n")
        out.write(f"{expected['runs'][0]}\tnosep\tAP\t0.5\n")  # no '-': no topic
    proc = bvtest("variations", "--scores", scores, "--split", "-", "-q", "-f", "json")
    assert proc.returncode == 0, proc.stderr
    assert "1 query id(s) hold no '-' with a topic before it; ignored" in proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["mode"] == "intra"
    topics = doc["measures"]["AP"]["topics"]
    assert list(topics) == expected["topics"]
    r = expected["r"]
    for t in expected["topics"]:
        for run in expected["runs"]:
            mean = statistics.mean(r(run, t, k) for k in range(1, 6))
            assert topics[t]["systems"][run]["mu"] == pytest.approx(mean, abs=1e-12)


# ---------------------------------------------------------------------------
# The renderer's generic rules that the command relies on


def test_alpha_keyed_sections_and_records_inside_a_measure_block():
    """A Section keyed by an alpha-indexed field prints field@A; records
    inside a measure block are rows (name, system, value); the table format
    shows the alphas as rows and the records as a table; a list setting is in
    JSON but not in the table's title. Expected text written by hand."""
    from bvtest_cli.render.text import render
    from bvtest_cli.report import registry
    from bvtest_cli.report.model import Records, Report, section

    records = Records(
        (("x", "y", 0.5),),
        as_json=lambda c: {"a": c[0], "b": c[1], "alpha": c[2]},
        as_text=lambda c, digits: ("crossover", f"{c[0]}:{c[1]}", f"{c[2]:.{digits}f}"),
    )
    tau = section(("-1", 0.5), ("1", None))
    block = section((registry.N_TOPICS, 2), (registry.VARIATIONS_TAU, tau), ("crossovers", records))
    report = Report(
        section(("mode", "inter"), ("alphas", ("-1", "1")), ("measures", section(("AP", block))))
    )
    assert unpadded(render(report, "trec", 2)) == (
        "AP.n_topics\tall\t2\nAP.tau@-1\tall\t0.50\nAP.tau@1\tall\tnan\nAP.crossover\tx:y\t0.50\n"
    )
    assert render(report, "csv", 2).splitlines()[1:] == [
        "AP,n_topics,all,2",
        "AP,tau@-1,all,0.50",
        "AP,tau@1,all,nan",
        "AP,crossover,x:y,0.50",
    ]
    assert json.loads(render(report, "json")) == {
        "mode": "inter",
        "alphas": ["-1", "1"],
        "measures": {
            "AP": {
                "n_topics": 2,
                "tau": {"-1": 0.5, "1": None},
                "crossovers": [{"a": "x", "b": "y", "alpha": 0.5}],
            }
        },
        "notes": [],
    }
    table = render(report, "table", 2).splitlines()
    assert table[0] == "# AP  n_topics=2  mode=inter"
    assert [line.split() for line in table[1:]] == [
        ["alpha", "tau"], ["-------", "-----"], ["-1", "0.50"], ["1", "nan"],
        ["crossovers:"], ["a", "b", "alpha"], ["---", "---", "-------"], ["x", "y", "0.50"],
    ]  # fmt: skip
