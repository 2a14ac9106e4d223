"""sample moments (--ddof), run names from the tag column (--name tag),
LaTeX and Markdown output, check --scores, per-condition analysis.

Expected values are hand computations written in the tests, identities, or
other bvtest commands run on the same data (never the code under test).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_line_error, unpadded

from bvtest_cli.analyses.decompose import decompose

# --------------------------------------------------------------------------- --ddof

# Two runs on four topics. Zhang22 Table 8 prints uogTrA44xu's Var(x_i) as
# 0.1065, the sample variance of its 50 ERR@20 scores, whose population
# variance is 0.1044: the two differ by the factor n / (n − 1) = 50/49. This
# fixture shows the same relation on numbers small enough to do by hand.
SCORES_A = (0.1, 0.3, 0.5, 0.7)
SCORES_B = (0.2, 0.2, 0.4, 0.6)
# By hand. Target x_T = max per topic = (0.2, 0.3, 0.5, 0.7), mean 0.425 = c.
# A: mean 0.4, squared deviations 0.09 + 0.01 + 0.01 + 0.09 = 0.2
#    population Var 0.2/4 = 0.05, sample Var 0.2/3 = 0.0666...
# x_T: deviations -0.225 -0.125 0.075 0.275, squares sum 0.1475
#    population 0.036875, sample 0.1475/3
# Cov(x_T, A): products 0.0675 + 0.0125 + 0.0075 + 0.0825 = 0.17
#    population 0.0425, sample 0.17/3
# ρ_A = x_T − A = (0.1, 0, 0, 0): mean 0.025, squared deviations sum 0.0075
#    population 0.001875, sample 0.0025
# B: mean 0.35, squared deviations 0.0225 + 0.0225 + 0.0025 + 0.0625 = 0.11
# Bias²_A = (0.4 − 0.425)² = 0.000625; MSE_A = (0.105625 + 0.015625 +
#    0.005625 + 0.075625) / 4 = 0.050625 (whatever ddof).
HAND = {
    0: {"var": 0.05, "var_b": 0.11 / 4, "var_target": 0.036875, "cov": 0.0425, "var_rho": 0.001875},
    1: {"var": 0.2 / 3, "var_b": 0.11 / 3, "var_target": 0.1475 / 3, "cov": 0.17 / 3,
        "var_rho": 0.0075 / 3},
}  # fmt: skip


def test_table8_relation_is_the_n_over_n_minus_1_factor():
    # The published pair itself: 0.1044 · 50/49 rounds to 0.1065.
    assert round(0.1044 * 50 / 49, 4) == 0.1065


def _scores_file(tmp_path: Path) -> Path:
    lines = ["system\ttopic\tmeasure\tvalue"]
    for name, scores in (("runA", SCORES_A), ("runB", SCORES_B)):
        lines += [f"{name}\t{j + 1}\tAP\t{v!r}" for j, v in enumerate(scores)]
    path = tmp_path / "scores.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("ddof", [0, 1])
def test_decompose_ddof_hand(ddof):
    x = np.array([SCORES_A, SCORES_B])
    target = x.max(axis=0)
    bv = decompose(x, target, target.mean(), ddof=ddof)
    hand = HAND[ddof]
    assert bv.var[0] == pytest.approx(hand["var"], abs=1e-15)
    assert bv.var[1] == pytest.approx(hand["var_b"], abs=1e-15)
    assert bv.var_target[0] == pytest.approx(hand["var_target"], abs=1e-15)
    assert bv.cov_target[0] == pytest.approx(hand["cov"], abs=1e-15)
    assert bv.var_rho[0] == pytest.approx(hand["var_rho"], abs=1e-15)
    assert bv.bias2[0] == pytest.approx(0.000625, abs=1e-15)
    assert bv.mse[0] == pytest.approx(0.050625, abs=1e-15)
    # Var(ρ) = Var(x_T) + Var(x_i) − 2 Cov(x_T, x_i) holds with either divisor
    np.testing.assert_allclose(bv.var_rho, bv.var_target + bv.var - 2 * bv.cov_target, atol=1e-15)
    # MSE = Bias² + (n − ddof)/n · Var: exact for ddof 0, scaled for ddof 1
    np.testing.assert_allclose(bv.mse, bv.bias2 + bv.var * (4 - ddof) / 4, atol=1e-15)
    # numpy's own estimator agrees
    np.testing.assert_allclose(bv.var, np.var(x, axis=1, ddof=ddof), atol=1e-15)


def test_decompose_ddof_vectorised_with_mask():
    rng = np.random.default_rng(3)
    x = rng.random((5, 3, 7))  # 5 stacked samples of 3 runs × 7 topics
    target = x.max(axis=-2)
    keep = rng.random((5, 7)) > 0.3
    keep[:, 0] = keep[:, 1] = True
    bv = decompose(x, target, 0.5, keep, ddof=1)
    for r in range(5):
        k = keep[r]
        np.testing.assert_allclose(bv.var[r], np.var(x[r][:, k], axis=1, ddof=1), atol=1e-14)
        np.testing.assert_allclose(
            bv.cov_target[r],
            [np.cov(x[r][i, k], target[r, k], ddof=1)[0, 1] for i in range(3)],
            atol=1e-14,
        )


def test_decompose_ddof_one_topic_is_nan():
    bv = decompose(np.array([[0.3], [0.5]]), np.array([0.5]), 0.5, ddof=1)
    assert np.isnan(bv.var).all() and np.isnan(bv.var_rho).all()
    assert bv.mse[0] == pytest.approx(0.04)


def test_cli_ddof_gives_the_sample_variance(bvtest, tmp_path):
    scores = _scores_file(tmp_path)
    out = {}
    for ddof in (0, 1):
        proc = bvtest("eval", "--quiet", "--ddof", ddof, "-f", "json", "--scores", scores)
        assert proc.returncode == 0, proc.stderr
        out[ddof] = json.loads(proc.stdout)["measures"]["AP"]["systems"]["runA"]
    assert out[0]["var"] == pytest.approx(HAND[0]["var"], abs=1e-15)
    assert out[1]["var"] == pytest.approx(HAND[1]["var"], abs=1e-15)
    assert out[1]["var_rho"] == pytest.approx(HAND[1]["var_rho"], abs=1e-15)
    assert out[1]["cov_target"] == pytest.approx(HAND[1]["cov"], abs=1e-15)
    assert out[1]["var_target"] == pytest.approx(HAND[1]["var_target"], abs=1e-15)
    assert out[0]["mse"] == out[1]["mse"] == pytest.approx(0.050625, abs=1e-15)


def test_cli_ddof_reaches_instability_and_tradeoff(bvtest, tmp_path):
    scores = _scores_file(tmp_path)
    proc = bvtest("instability", "--quiet", "--ddof", "1", "-f", "json", "--scores", scores)
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["measures"]["AP"]
    assert block["systems"]["runA"]["var"] == pytest.approx(HAND[1]["var"], abs=1e-15)
    assert block["var_target"] == pytest.approx(HAND[1]["var_target"], abs=1e-15)


def test_cli_ddof_rejects_two(bvtest, tmp_path):
    proc = bvtest("eval", "--ddof", "2", "--scores", _scores_file(tmp_path))
    assert_one_line_error(proc, "--ddof")


# --------------------------------------------------------------------------- --name tag


def test_name_tag_on_robust2003(bvtest, shared_data):
    data = shared_data / "robust2003"
    if not (data / "runs").is_dir():
        pytest.skip("robust2003 runs are not present")
    files = sorted(p.name for p in (data / "runs").iterdir() if not p.name.startswith("."))
    # the tag of each file, read here independently (first line's sixth field)
    expected = []
    for name in files:
        with gzip.open(data / "runs" / name, "rt") as fh:
            expected.append(fh.readline().split()[5])
    assert all(n.startswith("input.") for n in files)
    assert expected == [n[len("input.") : -len(".gz")] for n in files]
    proc = bvtest(
        "scores", "--quiet", "--name", "tag", "-m", "P@10", data / "qrels.txt", data / "runs"
    )
    assert proc.returncode == 0, proc.stderr
    systems = list(dict.fromkeys(line.split("\t")[0] for line in proc.stdout.splitlines()[1:]))
    assert systems == expected
    assert not any(s.startswith("input.") for s in systems)


def _run_lines(tags):
    return "".join(
        f"{q} Q0 d{q}{r} {r} {10 - r} {tag}\n" for q in (1, 2) for r, tag in enumerate(tags)
    )


def test_name_tag_two_tags_is_an_error(bvtest, tmp_path):
    (tmp_path / "qrels").write_text("1 0 d10 1\n2 0 d20 1\n")
    run = tmp_path / "two.run"
    run.write_text(_run_lines(["alpha", "alpha", "beta"]))
    proc = bvtest("eval", "--name", "tag", tmp_path / "qrels", run)
    assert_one_line_error(proc, f"{run}:3:", "'beta'", "'alpha'")
    # the slow path (a line with a seventh field) names the same line
    run.write_text(
        _run_lines(["alpha", "alpha", "beta"]).replace("d11 1 9 alpha", "d11 1 9 alpha x")
    )
    proc = bvtest("eval", "--name", "tag", tmp_path / "qrels", run)
    assert_one_line_error(proc, f"{run}:3:", "'beta'")


def test_name_tag_names_and_duplicates(bvtest, tmp_path):
    (tmp_path / "qrels").write_text("1 0 d10 1\n2 0 d20 1\n")
    (tmp_path / "input.a.gz").write_bytes(gzip.compress(_run_lines(["tagA"] * 3).encode()))
    (tmp_path / "b.run").write_text(_run_lines(["tagB"] * 3))
    proc = bvtest(
        "scores",
        "--name",
        "tag",
        "-m",
        "P@1",
        tmp_path / "qrels",
        tmp_path / "input.a.gz",
        tmp_path / "b.run",
    )
    assert proc.returncode == 0, proc.stderr
    assert {line.split("\t")[0] for line in proc.stdout.splitlines()[1:]} == {"tagA", "tagB"}
    (tmp_path / "c.run").write_text(_run_lines(["tagB"] * 3))
    proc = bvtest(
        "eval", "--name", "tag", tmp_path / "qrels", tmp_path / "b.run", tmp_path / "c.run"
    )
    assert_one_line_error(proc, "c.run", "'tagB'", "unique")
    proc = bvtest("eval", "--name", "tag", "--scores", tmp_path / "qrels")
    assert_one_line_error(proc, "--name tag")


# --------------------------------------------------------------------------- check --scores


def test_check_scores_equals_check_runs(bvtest, tmp_path):
    from conftest import SAMPLE_QRELS, SAMPLE_RUNS

    pool = tmp_path / "pool"
    pool.mkdir()
    for p in sorted(SAMPLE_RUNS.iterdir()):
        if p.name != "sys003":
            (pool / p.name).write_bytes(p.read_bytes())
    new = tmp_path / "new" / "sys003"
    new.parent.mkdir()
    new.write_bytes((SAMPLE_RUNS / "sys003").read_bytes())
    gates = ("-g", "AP:mean>=0.9", "-g", "AP:mse<=sys002", "-g", "nDCG@10:georisk@5>=sys001")
    on_runs = bvtest("check", "--quiet", *gates, SAMPLE_QRELS, pool, new)
    scores = bvtest("scores", "--quiet", SAMPLE_QRELS, pool, new)
    assert scores.returncode == 0
    (tmp_path / "s.tsv").write_text(scores.stdout)
    on_scores = bvtest(
        "check", "--quiet", *gates, "--scores", tmp_path / "s.tsv", "--new", "sys003"
    )
    assert on_runs.returncode == on_scores.returncode == 1
    assert on_scores.stdout == on_runs.stdout
    lines = on_scores.stdout.splitlines()
    assert lines[0].startswith("FAIL\tAP:mean>=0.9\tsys003\t") and lines[0].endswith(
        " >= 0.9 is false"
    )
    # a PASS line stays the plain comparison
    assert all(line.endswith(" is false") == line.startswith("FAIL") for line in lines)


def test_check_scores_usage_errors(bvtest, tmp_path):
    scores = _scores_file(tmp_path)
    assert_one_line_error(bvtest("check", "--scores", scores, "-g", "AP:mean>=0"), "--new")
    assert_one_line_error(
        bvtest("check", "--scores", scores, "--new", "nope", "-g", "AP:mean>=0"), "'nope'"
    )
    assert_one_line_error(
        bvtest("check", "--scores", scores, "--new", "runA", "--new", "runB", "-g", "AP:mean>=0"),
        "pool is empty",
    )
    assert_one_line_error(bvtest("check", "--new", "runA", "-g", "AP:mean>=0"), "--new")
    proc = bvtest("check", "--quiet", "--scores", scores, "--new", "runA", "-g", "AP:var<=runB")
    # by hand: Var(runA) = 0.05 > Var(runB) = 0.0275
    assert proc.returncode == 1
    assert proc.stdout == "FAIL\tAP:var<=runB\trunA\t0.0500 <= 0.0275 (runB) is false\n"


# --------------------------------------------------------------------------- conditions

# A Session-like track: 3 systems × 3 conditions (one run each), 4 topics.
SESSION = {
    ("s1", "RL1"): (0.2, 0.4, 0.6, 0.8),
    ("s1", "RL2"): (0.5, 0.5, 0.5, 0.5),
    ("s1", "RL3"): (0.1, 0.1, 0.3, 0.3),
    ("s2", "RL1"): (0.4, 0.4, 0.4, 0.4),
    ("s2", "RL2"): (0.6, 0.2, 0.6, 0.2),
    ("s2", "RL3"): (0.3, 0.1, 0.1, 0.3),
    ("s3", "RL1"): (0.1, 0.2, 0.3, 0.4),
    ("s3", "RL2"): (0.2, 0.2, 0.2, 0.6),
    ("s3", "RL3"): (0.0, 0.5, 0.0, 0.5),
}
# By hand, condition RL2: target (0.6, 0.5, 0.6, 0.6), c = 0.575.
#   s1: mean 0.5, Bias² 0.005625, Var 0   → MSE 0.005625
#   s2: mean 0.4, Bias² 0.030625, Var 0.04 → MSE 0.070625
#   s3: mean 0.3, Bias² 0.075625, Var 0.03 → MSE 0.105625
RL2_HAND = {"s1": (0.005625, 0.0), "s2": (0.030625, 0.04), "s3": (0.075625, 0.03)}


def _session_scores(tmp_path: Path) -> tuple[Path, Path]:
    lines = ["system\ttopic\tmeasure\tvalue"]
    for (system, cond), scores in SESSION.items():
        lines += [f"{system}-{cond}\tq{j}\tAP\t{v!r}" for j, v in enumerate(scores)]
    scores_path = tmp_path / "session.tsv"
    scores_path.write_text("\n".join(lines) + "\n")
    map_path = tmp_path / "map.txt"
    map_path.write_text(
        "# run system condition\n" + "".join(f"{s}-{c} {s} {c}\n" for s, c in SESSION)
    )
    return scores_path, map_path


def _reference(cond):
    """An independent small implementation: the condition's runs alone."""
    names = [s for s, c in SESSION if c == cond]
    x = np.array([SESSION[s, cond] for s in names])
    target = x.max(axis=0)
    c = target.mean()
    bias2 = (x.mean(axis=1) - c) ** 2
    var = x.var(axis=1)
    return dict(zip(names, zip(bias2, var, bias2 + var, strict=True), strict=True))


def test_conditions_against_hand_computation(bvtest, tmp_path):
    scores, mapping = _session_scores(tmp_path)
    proc = bvtest("conditions", "--quiet", "-f", "json", "--scores", scores, "--map", mapping)
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["measures"]["AP"]
    for system, (bias2, var) in RL2_HAND.items():
        cell = block["systems"][system]["conditions"]["RL2"]
        assert cell["bias2"] == pytest.approx(bias2, abs=1e-15)
        assert cell["var"] == pytest.approx(var, abs=1e-15)
        assert cell["mse"] == pytest.approx(bias2 + var, abs=1e-15)
    ref = {cond: _reference(cond) for cond in ("RL1", "RL2", "RL3")}
    for system in ("s1", "s2", "s3"):
        got = block["systems"][system]
        for cond in ("RL1", "RL2", "RL3"):
            np.testing.assert_allclose(
                [got["conditions"][cond][k] for k in ("bias2", "var", "mse")],
                ref[cond][system],
                atol=1e-15,
            )
        best = min(("RL1", "RL2", "RL3"), key=lambda c: ref[c][system][2])
        assert got["best"] == best
    expected_counts = {c: 0 for c in ("RL1", "RL2", "RL3")}
    for system in ("s1", "s2", "s3"):
        expected_counts[block["systems"][system]["best"]] += 1
    assert block["best_counts"] == expected_counts
    assert sum(block["best_counts"].values()) == 3
    assert {c: v["n_systems"] for c, v in block["conditions"].items()} == {
        "RL1": 3, "RL2": 3, "RL3": 3
    }  # fmt: skip


def test_conditions_tradeoff_equals_tradeoff_on_each_condition(bvtest, tmp_path):
    scores, mapping = _session_scores(tmp_path)
    proc = bvtest("conditions", "--quiet", "-f", "json", "--scores", scores, "--map", mapping)
    block = json.loads(proc.stdout)["measures"]["AP"]
    header, *rows = scores.read_text().splitlines()
    for cond in ("RL1", "RL2", "RL3"):
        alone = tmp_path / f"{cond}.tsv"
        alone.write_text("\n".join([header, *(r for r in rows if f"-{cond}\t" in r)]) + "\n")
        ref = bvtest("tradeoff", "--quiet", "-f", "json", "--scores", alone)
        assert ref.returncode == 0, ref.stderr
        expected = json.loads(ref.stdout)["measures"]["AP"]["all"]["raw"]
        got = block["conditions"][cond]["tradeoff"]
        for key in ("pearson", "pearson_p", "spearman", "spearman_p"):
            assert got[key] == expected[key], (cond, key)


def test_conditions_pattern_equals_map_and_formats(bvtest, tmp_path):
    scores, mapping = _session_scores(tmp_path)
    by_map = bvtest("conditions", "--quiet", "--scores", scores, "--map", mapping)
    by_pattern = bvtest(
        "conditions", "--quiet", "--scores", scores, "--pattern",
        r"(?P<system>s\d)-(?P<condition>RL\d)",
    )  # fmt: skip
    assert by_map.returncode == 0 and by_map.stdout == by_pattern.stdout
    assert "AP.best\ts1\t" in unpadded(by_map.stdout)
    for fmt_name in ("table", "tsv", "csv", "latex", "markdown"):
        proc = bvtest("conditions", "--quiet", "-f", fmt_name, "--scores", scores, "--map", mapping)
        assert proc.returncode == 0, (fmt_name, proc.stderr)
        assert "RL2" in proc.stdout


def test_conditions_errors(bvtest, tmp_path):
    scores, _ = _session_scores(tmp_path)
    assert_one_line_error(bvtest("conditions", "--scores", scores), "--map")
    bad = tmp_path / "bad.txt"
    bad.write_text("s1-RL1 s1 RL1\ns1-RL2 s1\n")
    assert_one_line_error(bvtest("conditions", "--scores", scores, "--map", bad), f"{bad}:2:")
    bad.write_text("s1-RL1 s1 RL1\n")
    assert_one_line_error(
        bvtest("conditions", "--scores", scores, "--map", bad), "'s1-RL2' is not in the map"
    )
    assert_one_line_error(
        bvtest("conditions", "--scores", scores, "--pattern", r"(?P<system>s\d)-RL\d"),
        "condition",
    )
    assert_one_line_error(
        bvtest(
            "conditions", "--scores", scores, "--pattern", r"(?P<system>s)\d-(?P<condition>RL\d)"
        ),
        "both system",
    )


# --------------------------------------------------------------------------- latex, markdown


def _markdown_tables(text: str) -> list[list[list[str]]]:
    """Every pipe table of a Markdown text as rows of cells (header first,
    the alignment row dropped): a small independent parser."""
    tables, current = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set(":-") and c for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def test_markdown_parses_back_to_the_json_numbers(bvtest):
    from conftest import SAMPLE_QRELS, SAMPLE_RUNS

    args = ("--quiet", "-m", "AP", "--digits", "6", SAMPLE_QRELS, SAMPLE_RUNS)
    md = bvtest("eval", "-f", "markdown", *args)
    js = bvtest("eval", "-f", "json", *args)
    assert md.returncode == js.returncode == 0
    assert md.stdout.startswith("### AP")
    systems = json.loads(js.stdout)["measures"]["AP"]["systems"]
    (table,) = _markdown_tables(md.stdout)
    header, *rows = table
    assert [r[0] for r in rows] == list(systems)
    for row in rows:
        for name, cell in zip(header[1:], row[1:], strict=True):
            field, _, alpha = name.partition("@")
            expected = systems[row[0]][field]
            expected = expected[alpha] if alpha else expected
            if isinstance(expected, bool):  # a flag (pareto) is marked, blank when false
                assert cell == ("*" if expected else ""), (row[0], name)
                continue
            assert float(cell) == pytest.approx(expected, abs=5e-7), (row[0], name)


def test_latex_bold_best_and_compiles(bvtest, tmp_path):
    import shutil
    import subprocess

    scores, mapping = _session_scores(tmp_path)
    proc = bvtest(
        "eval", "--quiet", "-f", "latex", "--caption", "Bias & variance", "--scores", scores
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "\\toprule" in text and "\\caption{Bias \\& variance (AP)}" in text
    js = json.loads(bvtest("eval", "--quiet", "-f", "json", "--scores", scores).stdout)
    systems = js["measures"]["AP"]["systems"]
    best_mse = min(systems, key=lambda s: systems[s]["mse"])
    best_mean = max(systems, key=lambda s: systems[s]["mean"])
    row = {line.split(" & ")[0]: line for line in text.splitlines() if " & " in line}
    mse = f"{systems[best_mse]['mse']:.4f}"
    assert f"\\textbf{{{mse}}}" in row[best_mse]
    assert f"\\textbf{{{systems[best_mean]['mean']:.4f}}}" in row[best_mean]
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    doc = tmp_path / "t.tex"
    cond = bvtest("conditions", "--quiet", "-f", "latex", "--scores", scores, "--map", mapping)
    doc.write_text(
        "\\documentclass{article}\\usepackage{booktabs}\\usepackage[T1]{fontenc}"
        "\\usepackage[margin=1cm,landscape]{geometry}\\begin{document}\\tiny\n"
        + text + cond.stdout + "\\end{document}\n"
    )  # fmt: skip
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=tmp_path, capture_output=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout.decode()[-2000:]
    assert (tmp_path / "t.pdf").exists()


def test_latex_and_markdown_for_check(bvtest, tmp_path):
    scores = _scores_file(tmp_path)
    for fmt_name, marker in (("latex", "\\toprule"), ("markdown", "| gate")):
        proc = bvtest(
            "check", "--quiet", "-f", fmt_name, "--scores", scores, "--new", "runA",
            "-g", "AP:var<=runB",
        )  # fmt: skip
        assert proc.returncode == 1 and marker in proc.stdout, proc.stdout
