"""`bvtest judges` on real judgments: the LLMJudge challenge's 33 LLM label
sets beside NIST's (TREC 2023 DL), and TREC 2003 Robust with a judge
simulated from one of those LLMs' confusion blocks.

Every expected value is computed here from the raw files (a Counter of grade
pairs, Cohen's κ written out, scipy's Kendall τ), never taken from bvtest.
The data live in ../shared/data; the tests skip when it is absent. No runs
come with LLMJudge: each topic's judged passages are re-ranked with seeded
noisy scores (run k's score of a passage = human grade · quality_k + N(0, 1)).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_line_error, run_bvtest

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
LLMJUDGE = DATA / "llmjudge"
ROBUST = DATA / "robust2003"
HUMAN = LLMJUDGE / "qrels.human.txt"
JUDGES = sorted((LLMJUDGE / "judges").glob("*.qrels")) if LLMJUDGE.is_dir() else []
#: The challenge's real-world slips: grades outside NIST's 0–3, clipped to 3.
GRADE_MAP = {5: 3, 10: 3}
SCALE = {0, 1, 2, 3}
RUNS = 12

needs_llmjudge = pytest.mark.skipif(
    not HUMAN.is_file() or len(JUDGES) != 33, reason="../shared/data/llmjudge is not present"
)
needs_robust = pytest.mark.skipif(
    not (ROBUST / "qrels.txt").is_file(), reason="../shared/data/robust2003 is not present"
)


def read_grades(path: Path) -> dict[tuple[str, str], int]:
    out = {}
    for line in path.read_text().splitlines():
        qid, _, docno, grade = line.split()
        out[qid, docno] = int(grade)
    return out


def first_off_scale(path: Path) -> tuple[int, int] | None:
    """(1-based line, grade) of the first grade outside 0–3, or None."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        grade = int(line.split()[3])
        if grade not in SCALE:
            return number, grade
    return None


def cohen_kappa(pairs: list[tuple[int, int]]) -> float:
    """(p_o − p_e)/(1 − p_e) from the pairs' Counter and its two marginals."""
    n = len(pairs)
    cells = Counter(pairs)
    rows = Counter(h for h, _ in pairs)
    cols = Counter(j for _, j in pairs)
    p_o = sum(c for (h, j), c in cells.items() if h == j) / n
    p_e = sum(rows[k] * cols[k] for k in set(rows) | set(cols)) / (n * n)
    return (p_o - p_e) / (1 - p_e)


@pytest.fixture(scope="module")
def llm_runs(tmp_path_factory) -> Path:
    """12 TREC runs re-ranking every topic's judged passages: run k's score
    = grade · (0.3 + 0.06 k) + N(0, 1), top 100 per topic, seeded."""
    if not HUMAN.is_file():
        pytest.skip("../shared/data/llmjudge is not present")
    by_topic: dict[str, list[tuple[str, int]]] = {}
    for (qid, docno), grade in sorted(read_grades(HUMAN).items()):
        by_topic.setdefault(qid, []).append((docno, grade))
    out = tmp_path_factory.mktemp("llmjudge_runs")
    rng = np.random.default_rng(np.random.SeedSequence(2023, spawn_key=(0xD1,)))
    for k in range(RUNS):
        quality = 0.3 + 0.06 * k
        lines = []
        for qid, docs in by_topic.items():
            grades = np.array([g for _, g in docs], dtype=float)
            score = grades * quality + rng.normal(0.0, 1.0, len(docs))
            order = np.argsort(-score, kind="stable")[:100]
            lines += [
                f"{qid} Q0 {docs[i][0]} {rank} {score[i]:.6f} run{k:02d}\n"
                for rank, i in enumerate(order.tolist(), 1)
            ]
        (out / f"run{k:02d}").write_text("".join(lines))
    return out


def judge_args(paths: list[Path]) -> list[str]:
    return [a for p in paths for a in ("--judge", f"{p.stem}={p}")]


@needs_llmjudge
def test_off_scale_grades_need_the_map(llm_runs: Path) -> None:
    """Without --grade-map the grades 5 and 10 are one-line errors naming the
    file and line; every judge together stops at the first such file."""
    slips = {p: first_off_scale(p) for p in JUDGES}
    off = [p for p in JUDGES if slips[p] is not None]
    assert {p.stem for p in off} == {"RMITIR-llama70B", "h2oloo-zeroshot2"}
    for path in off:
        line, grade = slips[path]
        proc = run_bvtest("judges", *judge_args([path]), "-m", "AP", HUMAN, llm_runs)
        assert_one_line_error(proc, f"{path}:{line}", f"grade {grade}")
    line, grade = slips[off[0]]
    proc = run_bvtest("judges", *judge_args(JUDGES), "-m", "AP", HUMAN, llm_runs)
    assert_one_line_error(proc, f"{off[0]}:{line}", f"grade {grade}")


@pytest.fixture(scope="module")
def llm_report(llm_runs: Path) -> dict:
    if len(JUDGES) != 33:
        pytest.skip("../shared/data/llmjudge is not present")
    mapping = ",".join(f"{a}={b}" for a, b in GRADE_MAP.items())
    proc = run_bvtest(
        "judges", *judge_args(JUDGES), "--grade-map", mapping, "--bootstrap", "200",
        "-f", "json", "--quiet", HUMAN, llm_runs,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@needs_llmjudge
def test_agreement_of_every_llm_judge(llm_report: dict) -> None:
    """κ at -l 1, accuracy, the mean grade difference and the confusion
    counts of all 33 judges, from the raw files."""
    human = read_grades(HUMAN)
    assert set(llm_report["judges"]) == {p.stem for p in JUDGES}
    for path in JUDGES:
        raw = read_grades(path)
        assert set(raw) == set(human), path.name  # exactly the human pairs
        judge = {k: GRADE_MAP.get(g, g) for k, g in raw.items()}
        pairs = [(human[k], judge[k]) for k in sorted(human)]
        got = llm_report["judges"][path.stem]["agreement"]
        n = len(pairs)
        assert got["pairs"] == n == 4423
        binary = [(int(h >= 1), int(j >= 1)) for h, j in pairs]
        assert got["kappa"] == pytest.approx(cohen_kappa(binary), abs=1e-12), path.stem
        accuracy = sum(h == j for h, j in pairs) / n
        assert got["accuracy"] == pytest.approx(accuracy, abs=1e-12), path.stem
        diff = sum(j - h for h, j in pairs) / n
        assert got["mean_grade_diff"] == pytest.approx(diff, abs=1e-12), path.stem
        cells = Counter(pairs)
        block = got["confusion"]
        assert block["human_grades"] == sorted({h for h, _ in pairs})
        assert block["judge_grades"] == sorted({j for _, j in pairs})
        table = {
            (h, j): block["counts"][r][c]
            for r, h in enumerate(block["human_grades"])
            for c, j in enumerate(block["judge_grades"])
        }
        assert {k: v for k, v in table.items() if v} == dict(cells), path.stem
        for r, h in enumerate(block["human_grades"]):
            row = sum(cells[h, j] for j in block["judge_grades"])
            expected = [cells[h, j] / row for j in block["judge_grades"]]
            assert block["p"][r] == pytest.approx(expected, abs=1e-12)


@needs_llmjudge
def test_leaderboards_under_every_llm_judge(llm_report: dict) -> None:
    """Per judge and measure: τ_b equals scipy's on the runs' human and judge
    means of the same report, the ranking's Δ is there and finite."""
    from scipy.stats import kendalltau

    taus = []
    for name, block in llm_report["judges"].items():
        for measure, m in block["measures"].items():
            systems = m["systems"]
            assert len(systems) == RUNS
            assert m["topics"] == 25
            human = [systems[s]["human"] for s in sorted(systems)]
            judge = [systems[s]["judge"] for s in sorted(systems)]
            expected = kendalltau(human, judge).statistic
            tau = m["kendall_tau"]
            assert tau is not None and math.isfinite(tau), (name, measure)
            assert tau == pytest.approx(expected, abs=1e-12), (name, measure)
            delta = m["ranking"]["delta"]
            assert delta is not None and math.isfinite(delta), (name, measure)
            for s in systems.values():  # bias = judge − human, mse = bias² + var
                assert s["bias"] == pytest.approx(s["judge"] - s["human"], abs=1e-12)
                assert s["mse"] == pytest.approx(s["bias"] ** 2 + s["var"], abs=1e-12)
            taus.append(tau)
    # the runs are close enough that the judges do not all agree with the humans
    assert min(taus) < 0.9 and max(taus) > 0.5


def llm_confusion(llm_runs: Path, name: str, out: Path) -> dict:
    """One LLM judge's confusion block on a 0–2 scale (3 → 2 on both sides),
    written to ``out`` as `judges -f json` gives it."""
    path = LLMJUDGE / "judges" / f"{name}.qrels"
    proc = run_bvtest(
        "judges", "--judge", f"{name}={path}", "--grade-map", "3=2", "-m", "AP",
        "--bootstrap", "2", "-f", "json", "--quiet", HUMAN, llm_runs,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["judges"][name]["agreement"]["confusion"]
    out.write_text(json.dumps(block))
    return block


SIZES = (5, 10, 20, 40)
DRAWS = 100


@needs_llmjudge
@needs_robust
def test_robust_with_a_simulated_llm_judge(llm_runs: Path, tmp_path: Path) -> None:
    """TREC 2003 Robust (17 runs, 100 topics, grades 0–2) with willia-umbrela1's
    confusion block as a simulated judge: the experiment has every (n,
    method), its coverages are shares, PPI++ is no worse than the humans
    alone beyond Monte-Carlo error, and the simulated grades follow the rows."""
    conf = tmp_path / "confusion.json"
    block = llm_confusion(llm_runs, "willia-umbrela1", conf)
    assert block["human_grades"] == [0, 1, 2] == block["judge_grades"]
    proc = run_bvtest(
        "judges", "--judge", f"sim=sim:{conf}", "--human-topics", ",".join(map(str, SIZES)),
        "--draws", DRAWS, "-m", "AP", "-f", "json", "--quiet", ROBUST / "qrels.txt",
        ROBUST / "runs",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)

    # The simulated judge on Robust's 128,796 pairs: each row's shares within
    # 5 binomial standard errors of the block's P(judge | human).
    got = report["judges"]["sim"]["agreement"]["confusion"]
    assert got["human_grades"] == [0, 1, 2]
    robust = Counter(read_grades(ROBUST / "qrels.txt").values())
    for r, h in enumerate(got["human_grades"]):
        assert sum(got["counts"][r]) == robust[h]
        for c in range(len(got["judge_grades"])):
            p = block["p"][r][c]
            share = got["counts"][r][c] / robust[h]
            assert abs(share - p) <= 5 * math.sqrt(p * (1 - p) / robust[h]) + 1e-12, (h, c)

    rows = {(x["topics"], x["method"]): x for x in report["experiment"]}
    assert len(report["experiment"]) == len(rows) == len(SIZES) * 4
    assert set(rows) == {(n, m) for n in SIZES for m in ("human", "judge", "ppi", "ppi++")}
    for x in rows.values():
        assert x["judge"] == "sim" and x["measure"] == "AP"
        assert 0.0 <= x["coverage"] <= 1.0
        assert x["rmse"] > 0 and x["width"] > 0
    # Monte-Carlo se of an RMSE over R draws: RMSE² is the mean over draws of
    # M_d = the mean over runs of e²; se(mean M_d) = sd(M_d)/√R, and sd(M_d)
    # ≤ max_i sd(e_i²) (runs at most perfectly correlated) = σ²·√(κ − 1),
    # √2·σ² for Normal errors (κ = 3); allowing kurtosis up to 5 for the
    # skewed AP of 5 topics, sd(e²) ≤ 2·RMSE², so se(RMSE²) ≤ 2·RMSE²/√R and
    # se(RMSE) ≈ se(RMSE²)/(2·RMSE) ≤ RMSE/√R. The two methods share their
    # draws (positively correlated errors), so √(se_h² + se_p²) bounds the
    # difference's se.
    for n in SIZES:
        human, tuned = rows[n, "human"]["rmse"], rows[n, "ppi++"]["rmse"]
        se = math.hypot(human, tuned) / math.sqrt(DRAWS)
        assert tuned <= human + 3 * se, (n, human, tuned, se)
    # The check can fail: the judge alone is far off at many human topics.
    assert rows[40, "judge"]["rmse"] > rows[40, "human"]["rmse"] + 3 * math.hypot(
        rows[40, "judge"]["rmse"], rows[40, "human"]["rmse"]
    ) / math.sqrt(DRAWS)
    # The human-only RMSE falls as topics are added.
    assert [rows[n, "human"]["rmse"] for n in SIZES] == sorted(
        (rows[n, "human"]["rmse"] for n in SIZES), reverse=True
    )
