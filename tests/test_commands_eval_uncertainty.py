"""through the command line: ``--ci``, ``bvtest compare``, the Pareto
flag, the per-repeat tradeoff distribution of ``--group random:K``, gates on
interval ends and the Pareto staircase of ``bvtest plot``.

Oracles: numpy loops over the documented resample stream written here (the
bootstrap indices are ``default_rng(seed).integers(0, n, (B, n))``, the
random groupings the stable argsort of ``default_rng(seed).random((R, n))``),
scipy.stats (pearsonr, spearmanr: also the Pitman–Morgan test, which is the
correlation test of a + b and a − b), Holm's step-down written out, and seed
000 Table 2 by hand.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error
from scipy import stats

B = 200
SEED = 11


def scores_file(path, table: dict[str, list[float]], measure: str = "AP") -> str:
    lines = ["system\ttopic\tmeasure\tvalue"]
    for system, values in table.items():
        # numeric topic ids sort numerically: columns stay in the order given
        lines += [f"{system}\t{j + 1}\t{measure}\t{v!r}" for j, v in enumerate(values)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def run_json(bvtest, *args) -> dict:
    proc = bvtest(*args, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def resample_indices(n: int, b: int = B, seed: int = SEED) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(b, n))


def georisk(x: np.ndarray, alpha: float) -> np.ndarray:
    """Seed 004 eqs. 5–7 written out: z = (x − e)/√e with e = S_i T_j / N
    (z = 0 where e = 0), ZRisk = Σ z⁺ + (1+α) Σ z⁻, GeoRisk = √(mean · Φ(ZRisk/n))."""
    s = x.sum(axis=1, keepdims=True)
    t = x.sum(axis=0, keepdims=True)
    e = s * t / x.sum()
    with np.errstate(all="ignore"):
        z = np.where(e > 0, (x - e) / np.sqrt(e), 0.0)
    zr = z.clip(min=0).sum(axis=1) + (1 + alpha) * z.clip(max=0).sum(axis=1)
    return np.sqrt(x.mean(axis=1) * stats.norm.cdf(zr / x.shape[1]))


def fields(x: np.ndarray) -> dict[str, np.ndarray]:
    """docs/numbers.md of every run, c = mean of the per-topic maximum (--target max)."""
    c = x.max(axis=0).mean()
    mean = x.mean(axis=1)
    return {
        "mean": mean,
        "bias2": (mean - c) ** 2,
        "var": x.var(axis=1),
        "mse": ((x - c) ** 2).mean(axis=1),
    }


# A small pool: 5 runs × 12 topics of AP-like scores, with zeros.
RNG = np.random.default_rng(2024)
POOL = np.clip(RNG.beta(2, 3, (5, 12)) + RNG.normal(0, 0.1, (5, 1)), 0, 1)
POOL[RNG.random((5, 12)) < 0.1] = 0.0
NAMES = ["r1", "r2", "r3", "r4", "r5"]


@pytest.fixture
def pool_file(tmp_path):
    return scores_file(tmp_path / "pool.tsv", dict(zip(NAMES, POOL.tolist(), strict=True)))


# --------------------------------------------------------------------------- --ci


@pytest.mark.parametrize("level", [0.95, 0.8])
def test_eval_ci_equals_a_direct_bootstrap_loop(bvtest, pool_file, level):
    """Every interval of the small pool against np.quantile of a loop over the
    resamples of the documented index stream (c recomputed on each)."""
    doc = run_json(
        bvtest, "eval", "--scores", pool_file, "--ci", str(level), "--bootstrap", str(B),
        "--seed", str(SEED), "--alpha", "5", "--ci-method", "percentile",
    )  # fmt: skip
    block = doc["measures"]["AP"]
    idx = resample_indices(12)
    reps = [fields(POOL[:, row]) for row in idx]
    q = [(1 - level) / 2, (1 + level) / 2]
    for name in ("mean", "bias2", "var", "mse"):
        lo, hi = np.quantile(np.array([r[name] for r in reps]), q, axis=0)
        for i, run in enumerate(NAMES):
            got = block["systems"][run][f"{name}_ci"]
            assert got["lo"] == pytest.approx(lo[i], abs=1e-12), (name, run)
            assert got["hi"] == pytest.approx(hi[i], abs=1e-12), (name, run)
    geo = np.array([georisk(POOL[:, row], 5.0) for row in idx])
    lo, hi = np.quantile(geo, q, axis=0)
    for i, run in enumerate(NAMES):
        got = block["systems"][run]["georisk_ci"]["5"]
        assert (got["lo"], got["hi"]) == (
            pytest.approx(lo[i], abs=1e-12),
            pytest.approx(hi[i], abs=1e-12),
        )
    pearson = [stats.pearsonr(r["bias2"], r["var"]).statistic for r in reps]
    spearman = [stats.spearmanr(r["bias2"], r["var"]).statistic for r in reps]
    for name, values in (("pearson", pearson), ("spearman", spearman)):
        lo, hi = np.quantile(values, q)
        got = block["tradeoff"][f"{name}_ci"]
        assert got["lo"] == pytest.approx(lo, abs=1e-12) and got["hi"] == pytest.approx(
            hi, abs=1e-12
        )
    # The flag has no interval; every other field has one.
    fields_of = block["systems"]["r1"]
    assert "pareto_ci" not in fields_of
    assert {k for k in fields_of if not k.endswith("_ci")} - {"pareto"} == {
        k.removesuffix("_ci") for k in fields_of if k.endswith("_ci")
    }


def test_default_intervals_are_studentized_by_a_direct_loop(bvtest, pool_file):
    """--ci-method auto (the default): mean, var and mse get the studentized
    interval, here computed by loops over the jackknife and the resamples
    (Efron & Tibshirani 1993 §12.5; se from empirical influence values, each
    resample's se from the same values weighted by its counts)."""
    level = 0.9
    doc = run_json(
        bvtest, "eval", "--scores", pool_file, "--ci", str(level), "--bootstrap", str(B),
        "--seed", str(SEED),
    )  # fmt: skip
    block = doc["measures"]["AP"]
    n = POOL.shape[1]
    idx = resample_indices(n)
    est = fields(POOL)
    jack = [fields(np.delete(POOL, j, axis=1)) for j in range(n)]
    for name in ("mean", "var", "mse"):
        theta_j = np.array([row[name] for row in jack])  # (n, runs)
        infl = (n - 1) * (theta_j.mean(axis=0) - theta_j)
        se = np.sqrt((infl**2).sum(axis=0) / (n * (n - 1)))
        t = []
        for row in idx:
            w = np.bincount(row, minlength=n) / n
            mean_l = w @ infl
            se_b = np.sqrt((w @ infl**2 - mean_l**2) / (n - 1))
            t.append((fields(POOL[:, row])[name] - est[name]) / se_b)
        q_lo, q_hi = np.quantile(np.array(t), [(1 - level) / 2, (1 + level) / 2], axis=0)
        for i, run in enumerate(NAMES):
            got = block["systems"][run][f"{name}_ci"]
            assert got["lo"] == pytest.approx(est[name][i] - q_hi[i] * se[i], abs=1e-10)
            assert got["hi"] == pytest.approx(est[name][i] - q_lo[i] * se[i], abs=1e-10)


def test_eval_ci_with_minmax_normalizes_before_resampling(bvtest, pool_file):
    """minmax is per topic: the loop normalizes the whole matrix, then draws its
    columns; the target is 1 and c = 1 on every resample."""
    doc = run_json(
        bvtest, "eval", "--scores", pool_file, "--ci", "0.9", "--bootstrap", str(B),
        "--seed", str(SEED), "--normalize", "minmax", "--ci-method", "percentile",
    )  # fmt: skip
    lo_t, hi_t = POOL.min(axis=0), POOL.max(axis=0)
    keep = hi_t > lo_t
    norm = (POOL[:, keep] - lo_t[keep]) / (hi_t[keep] - lo_t[keep])
    idx = resample_indices(norm.shape[1])
    bias2 = np.array([(norm[:, row].mean(axis=1) - 1.0) ** 2 for row in idx])
    lo, hi = np.quantile(bias2, [0.05, 0.95], axis=0)
    for i, run in enumerate(NAMES):
        got = doc["measures"]["AP"]["systems"][run]["bias2_ci"]
        assert got["lo"] == pytest.approx(lo[i], abs=1e-12)
        assert got["hi"] == pytest.approx(hi[i], abs=1e-12)


@pytest.fixture(scope="module")
def sample_ci():
    from conftest import run_bvtest

    runs = {}
    for jobs in ("1", "2"):
        for fmt in ("trec", "json"):
            proc = run_bvtest(
                "eval", "--ci", "0.95", "--bootstrap", "300", "-j", jobs, "-f", fmt,
                SAMPLE_QRELS, SAMPLE_RUNS,
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr
            assert (proc.forks > 0) == (jobs == "2")  # in this process: -j 2 forks its workers
            runs[jobs, fmt] = proc.stdout
    return runs


def test_same_seed_same_intervals_whatever_the_jobs(sample_ci, bvtest):
    for fmt in ("trec", "json"):
        assert sample_ci["1", fmt] == sample_ci["2", fmt]
    assert f"{'AP.var.lo':<22}\tsys001\t" in sample_ci["1", "trec"]  # trec_eval's %-22s
    # A different seed draws other resamples: the intervals move.
    other = bvtest("eval", "--ci", "0.95", "--bootstrap", "300", "--seed", "7", "-j", "2",
                   SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    assert other.returncode == 0

    def ends(text):
        return {line for line in text.splitlines() if ".lo\t" in line or ".hi\t" in line}

    assert ends(other.stdout) != ends(sample_ci["1", "trec"])


def test_intervals_contain_the_estimate_of_mean_and_var(sample_ci):
    doc = json.loads(sample_ci["2", "json"])
    for block in doc["measures"].values():
        for run, f in block["systems"].items():
            for name in ("mean", "var"):
                ci = f[f"{name}_ci"]
                assert ci["lo"] < f[name] < ci["hi"], (run, name)
        t = block["tradeoff"]
        for name in ("pearson", "spearman"):
            assert -1 <= t[f"{name}_ci"]["lo"] <= t[f"{name}_ci"]["hi"] <= 1


def test_ci_in_every_text_format(bvtest, pool_file):
    args = ("eval", "--scores", pool_file, "--ci", "0.9", "--bootstrap", "50", "--alpha", "1")
    doc = run_json(bvtest, *args)
    ci = doc["measures"]["AP"]["systems"]["r2"]["mse_ci"]
    trec = bvtest(*args).stdout
    trec = "".join(
        f"{n.rstrip()}\t{rest}\n" for n, rest in (x.split("\t", 1) for x in trec.splitlines())
    )
    assert f"AP.mse.lo\tr2\t{ci['lo']:.4f}" in trec and f"AP.mse.hi\tr2\t{ci['hi']:.4f}" in trec
    assert "AP.georisk.lo@1\tr2\t" in trec and "AP.tradeoff.pearson.lo\tall\t" in trec
    rows = list(csv.reader(io.StringIO(bvtest(*args, "-f", "csv").stdout)))
    assert ["AP", "mse.hi", "r2", f"{ci['hi']:.4f}"] in rows
    table = bvtest(*args, "-f", "table").stdout
    assert f"[{ci['lo']:.4f}, {ci['hi']:.4f}]" in table
    assert "tradeoff: pearson=" in table and "] " in table.split("tradeoff: ")[1]


def test_instability_ci(bvtest, pool_file):
    """|ZRisk|'s interval is the image of ZRisk's under |·|; Var(x_T) has one too."""
    args = ("--scores", pool_file, "--ci", "0.9", "--bootstrap", "100")
    full = run_json(bvtest, "eval", *args)["measures"]["AP"]
    view = run_json(bvtest, "instability", *args)["measures"]["AP"]
    for run, f in view["systems"].items():
        lo, hi = (full["systems"][run]["zrisk_target_ci"]["0"][k] for k in ("lo", "hi"))
        want = (lo, hi) if lo >= 0 else (-hi, -lo) if hi <= 0 else (0.0, max(-lo, hi))
        assert (f["abs_zrisk_target_ci"]["lo"], f["abs_zrisk_target_ci"]["hi"]) == want
        assert f["var_ci"] == full["systems"][run]["var_ci"]
    assert view["var_target_ci"] == full["systems"]["r1"]["var_target_ci"]


def test_ci_bad_usage(bvtest, pool_file):
    proc = bvtest("eval", "--scores", pool_file, "--ci", "0.95", "--group", "random:3")
    assert_one_line_error(proc, "--ci cannot be combined with --group")
    for level in ("1", "0", "1.5", "x"):
        assert_one_line_error(bvtest("eval", "--scores", pool_file, "--ci", level), "--ci")
    assert_one_line_error(bvtest("eval", "--scores", pool_file, "--ci", "0.9", "--bootstrap", "1"))
    assert_one_line_error(
        bvtest("eval", "--scores", pool_file, "--ci", "0.9", "--ci-method", "bootstrap-t")
    )


def test_bca_needs_two_topics(bvtest, tmp_path):
    path = scores_file(tmp_path / "one.tsv", {"a": [0.2], "b": [0.4], "c": [0.5]})
    proc = bvtest("eval", "--scores", path, "--ci", "0.9", "--ci-method", "bca")
    assert_one_line_error(proc, "bca needs at least 2 topics")


# --------------------------------------------------------------------------- compare


def test_compare_two_runs_equals_a_direct_computation(bvtest, tmp_path):
    """A pool of exactly two runs, compared without --pair: every row against
    the paired bootstrap written out on the same resamples, and the
    Pitman–Morgan p-value as scipy's correlation test of a + b and a − b."""
    x = POOL[[1, 3]]
    path = scores_file(tmp_path / "two.tsv", {"r2": x[0].tolist(), "r4": x[1].tolist()})
    doc = run_json(
        bvtest, "compare", "--scores", path, "--bootstrap", str(B), "--seed", str(SEED),
        "--alpha", "0,5", "--ci", "0.9", "--ci-method", "percentile",
    )  # fmt: skip
    rows = doc["measures"]["AP"]["pairs"]
    assert [(r["a"], r["b"], r["field"]) for r in rows] == [
        ("r2", "r4", f) for f in ("mean", "var", "mse", "georisk@0", "georisk@5")
    ]

    def values(y):
        f = fields(y)
        return [f["mean"], f["var"], f["mse"], georisk(y, 0.0), georisk(y, 5.0)]

    idx = resample_indices(12)
    reps = np.array([[v[0] - v[1] for v in values(x[:, row])] for row in idx])  # (B, 5)
    flips = np.random.default_rng(np.random.SeedSequence(SEED, spawn_key=(1,))).random((B, 12))
    flips = flips < 0.5
    every_flip = np.array(list(itertools.product([False, True], repeat=12)))
    est = [v[0] - v[1] for v in values(x)]
    for k, row in enumerate(rows):
        d = reps[:, k]
        assert row["diff"] == pytest.approx(est[k], abs=1e-14)
        assert row["lo"] == pytest.approx(np.quantile(d, 0.05), abs=1e-12)
        assert row["hi"] == pytest.approx(np.quantile(d, 0.95), abs=1e-12)
        assert row["test"] == "randomization"
        if k < 3:
            # mean, Var, MSE: the exact randomization test, every one of the
            # 2^12 relabellings (each topic's two scores swapped or not)
            # evaluated through the whole decomposition
            hits = sum(
                abs(v[k][0] - v[k][1]) >= abs(est[k]) * (1 - 1e-9)
                for v in (values(np.where(f, x[::-1], x)) for f in every_flip)
            )
            assert row["p"] == pytest.approx(hits / len(every_flip), abs=1e-6)
        else:
            # GeoRisk: B relabellings, each topic's two scores swapped with
            # probability ½ (the documented stream)
            flipped = [values(np.where(f, x[::-1], x)) for f in flips]
            hits = sum(abs(v[k][0] - v[k][1]) >= abs(est[k]) * (1 - 1e-9) for v in flipped)
            assert row["p"] == pytest.approx((1 + hits) / (1 + B), abs=1e-15)
        assert row["p_adj"] == row["p"]  # one pair: nothing to adjust
    var_row = rows[1]
    pm = stats.pearsonr(x[0] + x[1], x[0] - x[1]).pvalue
    assert var_row["p_pm"] == pytest.approx(pm, rel=1e-9)
    assert var_row["p_pm_adj"] == var_row["p_pm"]
    assert all("p_pm" not in r for r in rows if r["field"] != "var")


def test_compare_pair_in_a_pool_uses_the_whole_pool(bvtest, pool_file):
    """--pair r1 r5 among five runs: c (MSE) and GeoRisk are those of the pool."""
    doc = run_json(
        bvtest, "compare", "--scores", pool_file, "--pair", "r5", "r1", "--bootstrap", str(B),
        "--seed", str(SEED), "--alpha", "1", "--ci-method", "percentile",
    )  # fmt: skip
    rows = {r["field"]: r for r in doc["measures"]["AP"]["pairs"]}
    assert {(r["a"], r["b"]) for r in rows.values()} == {("r5", "r1")}
    idx = resample_indices(12)
    mse = np.array([fields(POOL[:, row])["mse"] for row in idx])
    d = mse[:, 4] - mse[:, 0]
    assert rows["mse"]["lo"] == pytest.approx(np.quantile(d, 0.025), abs=1e-12)
    geo = np.array([georisk(POOL[:, row], 1.0) for row in idx])
    d = geo[:, 4] - geo[:, 0]
    assert rows["georisk@1"]["hi"] == pytest.approx(np.quantile(d, 0.975), abs=1e-12)


def holm_by_hand(p: list[float]) -> list[float]:
    """Holm (1979): sort ascending, multiply the i-th smallest (0-based) by
    k − i, take the running maximum, cap at 1, put back in place."""
    k = len(p)
    order = sorted(range(k), key=lambda i: p[i])
    out = [0.0] * k
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * p[i]))
        out[i] = running
    return out


def test_pairs_all_holm_by_hand(bvtest, pool_file):
    doc = run_json(
        bvtest, "compare", "--scores", pool_file, "--pairs", "all", "--bootstrap", "100",
        "--alpha", "0", "--fields", "mean,var,mse,georisk",
    )  # fmt: skip
    rows = doc["measures"]["AP"]["pairs"]
    pairs = list(itertools.combinations(NAMES, 2))
    assert [(r["a"], r["b"]) for r in rows[::4]] == pairs  # 4 fields per pair, input order
    for field in ("mean", "var", "mse", "georisk@0"):
        family = [r for r in rows if r["field"] == field]
        assert len(family) == 10
        want = holm_by_hand([r["p"] for r in family])
        assert [r["p_adj"] for r in family] == pytest.approx(want, abs=1e-15)
    var_rows = [r for r in rows if r["field"] == "var"]
    pm = [
        stats.pearsonr(POOL[NAMES.index(a)] + POOL[NAMES.index(b)],
                       POOL[NAMES.index(a)] - POOL[NAMES.index(b)]).pvalue
        for a, b in pairs
    ]  # fmt: skip
    assert [r["p_pm"] for r in var_rows] == pytest.approx(pm, rel=1e-9)
    assert [r["p_pm_adj"] for r in var_rows] == pytest.approx(holm_by_hand(pm), rel=1e-9)


def test_holm_by_hand_itself():
    # The oracle above on the textbook example: 0.01, 0.04, 0.03, 0.005 → ×4, ×3, ×2, ×1
    # in sorted order (0.005, 0.01, 0.03, 0.04): 0.02, 0.03, 0.06, 0.06 (running max).
    assert holm_by_hand([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_compare_formats_and_names_by_path(bvtest):
    args = ("compare", "-m", "AP", "--bootstrap", "50", "--alpha", "5",
            SAMPLE_QRELS, SAMPLE_RUNS / "sys001", SAMPLE_RUNS / "sys002")  # fmt: skip
    doc = run_json(bvtest, *args)
    trec = bvtest(*args).stdout.splitlines()
    header = ["measure", "a", "b", "field", "diff", "lo", "hi", "p", "p_adj", "p_lo", "p_hi"]
    header += ["test", "significant", "effect_size", "p_pm", "p_pm_adj"]
    assert trec[0].split("\t") == header
    assert len(trec) == 1 + 4
    var = next(r for r in doc["measures"]["AP"]["pairs"] if r["field"] == "var")
    cells = trec[2].split("\t")
    at = {name: k for k, name in enumerate(header)}
    assert cells[:4] == ["AP", "sys001", "sys002", "var"] and cells[at["test"]] == "randomization"
    assert cells[4] == f"{var['diff']:.4f}" and cells[at["p_pm"]] == f"{var['p_pm']:.4f}"
    mean = trec[1].split("\t")  # the mean row: its test's verdict and effect size, no p_pm
    assert mean[at["test"]] == "randomization" and mean[at["significant"]] in ("yes", "no")
    assert mean[at["p_pm"] :] == ["", ""]
    rows = list(csv.reader(io.StringIO(bvtest(*args, "-f", "csv").stdout)))
    assert rows[0] == header and len(rows) == 5
    table = bvtest(*args, "-f", "table").stdout
    assert table.startswith("# AP") and "p_pm" in table and "significance matrix" not in table
    by_path = run_json(
        bvtest, "compare", "-m", "AP", "--bootstrap", "50", "--alpha", "5",
        "--pair", str(SAMPLE_RUNS / "sys001"), "sys002", SAMPLE_QRELS, SAMPLE_RUNS,
    )  # fmt: skip
    # The same two runs, but in a pool of 12: the virtual target (hence MSE) differs.
    same = [r["field"] for r in by_path["measures"]["AP"]["pairs"]]
    assert same == ["mean", "var", "mse", "georisk@5"]
    assert (
        by_path["measures"]["AP"]["pairs"][0]["diff"] == doc["measures"]["AP"]["pairs"][0]["diff"]
    )
    assert (
        by_path["measures"]["AP"]["pairs"][2]["diff"] != doc["measures"]["AP"]["pairs"][2]["diff"]
    )


def test_compare_bad_usage(bvtest, pool_file):
    proc = bvtest("compare", "--scores", pool_file)
    assert_one_line_error(proc, "5 runs", "--pair", "--pairs all")
    assert_one_line_error(bvtest("compare", "--scores", pool_file, "--pair", "r1", "r9"), "'r9'")
    assert_one_line_error(bvtest("compare", "--scores", pool_file, "--pair", "r1", "r1"), "itself")
    proc = bvtest("compare", "--scores", pool_file, "--pair", "r1", "r2", "--pairs", "all")
    assert_one_line_error(proc, "not both")
    assert_one_line_error(bvtest("compare", "--scores", pool_file, "--pairs", "some"))
    # With run files, a bad name is reported before anything is evaluated.
    proc = bvtest("compare", "--pair", "sys001", "nope", SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, "'nope'")


# --------------------------------------------------------------------------- Pareto


def test_pareto_flags_on_seed_000_table_2(bvtest, tmp_path):
    """Seed 000 Table 2: f1 = (0.8, 0.9, 0.4), f2 = (0.5, 0.6, 0.7), f3 = (0.3, 0.6, 0.3).
    x_T = (0.8, 0.9, 0.7), c = 0.8; means 0.7, 0.6, 0.4 → Bias² 0.01, 0.04, 0.16;
    Var (1/n) 0.14/3, 0.02/3, 0.06/3. f2 has lower Bias² and lower Var than f3:
    f3 is dominated; f1 (lowest Bias²) and f2 (lowest Var) are on the front."""
    table = {"f1": [0.8, 0.9, 0.4], "f2": [0.5, 0.6, 0.7], "f3": [0.3, 0.6, 0.3]}
    path = scores_file(tmp_path / "table2.tsv", table)
    doc = run_json(bvtest, "eval", "--scores", path)
    systems = doc["measures"]["AP"]["systems"]
    assert [systems[f]["bias2"] for f in table] == pytest.approx([0.01, 0.04, 0.16])
    assert [systems[f]["var"] for f in table] == pytest.approx([0.14 / 3, 0.02 / 3, 0.06 / 3])
    assert [systems[f]["pareto"] for f in table] == [True, True, False]
    trec = bvtest("eval", "--scores", path).stdout
    name = f"{'AP.pareto':<22}"  # trec_eval's %-22s name column
    assert f"{name}\tf1\t1\n{name}\tf2\t1\n{name}\tf3\t0\n" in trec
    rows = [
        line.split() for line in bvtest("eval", "--scores", path, "-f", "table").stdout.splitlines()
    ]
    flags = {r[0]: r[-1] == "*" for r in rows if r and r[0] in table}
    assert flags == {"f1": True, "f2": True, "f3": False}


def test_pareto_gate(bvtest, tmp_path):
    pool = tmp_path / "pool"
    pool.mkdir()
    new = tmp_path / "new"
    new.mkdir()
    for name in ("sys001", "sys002", "sys007"):
        (pool / name).write_text((SAMPLE_RUNS / name).read_text())
    (new / "n.run").write_text((SAMPLE_RUNS / "sys008").read_text())
    proc = bvtest("check", SAMPLE_QRELS, pool, new / "n.run", "-m", "AP", "-g", "AP:pareto>=1")
    doc = run_json(bvtest, "eval", "-m", "AP", SAMPLE_QRELS, pool, new / "n.run")
    on_front = doc["measures"]["AP"]["systems"]["n.run"]["pareto"]
    assert proc.returncode == (0 if on_front else 1), proc.stderr


# --------------------------------------------------------------------------- random:K


def test_tradeoff_repeats_against_a_loop(bvtest, pool_file):
    """random:4 over 12 topics, 40 repeats: per repeat the group means, the
    target's group means, c = their mean, Bias² and Var (1/G) of every run,
    and scipy's correlations across runs; then mean and 2.5 / 97.5 % quantiles."""
    R, seed = 40, 3
    doc = run_json(
        bvtest, "eval", "--scores", pool_file, "--group", "random:4", "--repeats", str(R),
        "--seed", str(seed),
    )  # fmt: skip
    got = doc["measures"]["AP"]["tradeoff_repeats"]
    orders = np.argsort(np.random.default_rng(seed).random((R, 12)), axis=1, kind="stable")
    target = POOL.max(axis=0)
    pearson, spearman = [], []
    for order in orders:
        groups = order.reshape(3, 4)
        x = POOL[:, groups].mean(axis=2)  # (5, 3)
        c = target[groups].mean(axis=1).mean()
        bias2, var = (x.mean(axis=1) - c) ** 2, x.var(axis=1)
        pearson.append(stats.pearsonr(bias2, var).statistic)
        spearman.append(stats.spearmanr(bias2, var).statistic)
    for name, values in (("pearson", pearson), ("spearman", spearman)):
        g = got[name]
        assert g["defined"] == R
        assert g["mean"] == pytest.approx(np.mean(values), abs=1e-12)
        assert g["lo"] == pytest.approx(np.quantile(values, 0.025), abs=1e-12)
        assert g["hi"] == pytest.approx(np.quantile(values, 0.975), abs=1e-12)
    trec = bvtest("eval", "--scores", pool_file, "--group", "random:4", "--repeats", str(R),
                  "--seed", str(seed)).stdout  # fmt: skip
    assert f"AP.tradeoff_repeats.pearson.defined\tall\t{R}\n" in trec
    # Only random grouping has repeats.
    plain = run_json(bvtest, "eval", "--scores", pool_file, "--group", "difficulty:4")
    assert "tradeoff_repeats" not in plain["measures"]["AP"]


def test_tradeoff_repeats_count_only_defined_repeats(bvtest, tmp_path):
    """Three runs that are shifts of one another have the same Var in every
    repeat (docs/numbers.md: a constant vector), so the correlation is defined in no
    repeat: defined 0, the summaries null."""
    base = [0.1, 0.5, 0.3, 0.7, 0.2, 0.6]
    table = {"a": base, "b": [v + 0.1 for v in base], "c": [v + 0.2 for v in base]}
    path = scores_file(tmp_path / "shift.tsv", table)
    doc = run_json(bvtest, "eval", "--scores", path, "--group", "random:2", "--repeats", "10")
    for g in doc["measures"]["AP"]["tradeoff_repeats"].values():
        assert g["defined"] == 0 and g["mean"] is None and g["lo"] is None


# --------------------------------------------------------------------------- gates, plot


def test_gate_on_interval_ends(bvtest, tmp_path):
    from bvtest_cli.commands.check.build import parse_gate

    g = parse_gate("nDCG@10:georisk.lo@5 >= bm25.run")
    assert (g.field, g.end, g.alpha, g.lhs) == ("georisk", "lo", "5", "nDCG@10:georisk.lo@5")
    assert parse_gate("AP:mse.hi<=0.06").end == "hi"
    assert parse_gate("AP:mse<=0.06").end is None
    new = tmp_path / "new.run"
    new.write_text((SAMPLE_RUNS / "sys005").read_text())
    args = ("check", SAMPLE_QRELS, SAMPLE_RUNS, new, "-m", "AP", "--bootstrap", "100")
    proc = bvtest(*args, "--ci", "0.9", "-g", "AP:mean.lo>=0", "-g", "AP:mean.hi<=0", "-f", "json")
    verdicts = json.loads(proc.stdout)["verdicts"]
    assert [v["passed"] for v in verdicts] == [True, False] and proc.returncode == 1
    assert 0 < verdicts[0]["value"] < verdicts[1]["value"]
    assert_one_line_error(bvtest(*args[:-2], "-g", "AP:mean.lo>=0"), "needs --ci")
    assert_one_line_error(bvtest(*args, "--ci", "0.9", "-g", "AP:mean.mid>=0"), "lo or hi")
    assert_one_line_error(bvtest(*args, "--ci", "0.9", "-g", "AP:pareto.lo>=0"), "no interval")


def test_plot_draws_the_front_and_the_intervals(bvtest, pool_file, tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from bvtest_cli.render.plot import _panel_tradeoff
    from bvtest_cli.report.model import table_of

    out = tmp_path / "bv.png"
    proc = bvtest("plot", "--scores", pool_file, "--ci", "0.9", "--bootstrap", "50", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # The panel on the report of the same analysis: the staircase goes through
    # the front's runs in order of Bias².
    from bvtest_cli.io.sources import Inputs
    from bvtest_cli.measures.evaluate import Evaluation
    from bvtest_cli.sections.inputs import load
    from bvtest_cli.sections.matrix import Analysis, eval_report

    e = Evaluation()
    matrices = load(Inputs(scores=str(pool_file)), e)[0]
    report = eval_report(matrices, Analysis(ci=0.9, bootstrap=50), e, "file")
    block = dict(report.measure_blocks())["AP"]
    ax = Figure().subplots()
    _panel_tradeoff(ax, "AP", block)
    t = table_of(block)
    front = np.asarray(t.values["pareto"], dtype=bool)
    order = np.argsort(t.values["bias2"][front])
    steps = [line for line in ax.get_lines() if line.get_drawstyle() == "steps-post"]
    assert len(steps) == 1
    np.testing.assert_array_equal(steps[0].get_xdata(), t.values["bias2"][front][order])
    np.testing.assert_array_equal(steps[0].get_ydata(), t.values["var"][front][order])
    assert 1 <= front.sum() < len(front)
    assert any("Pareto front" in text.get_text() for text in ax.get_legend().get_texts())
    assert ax.collections  # the error bars and the points
    assert math.isfinite(float(t.values["bias2"][0]))


def test_a_new_registry_field_gets_an_interval_for_free(monkeypatch):
    """The bootstrap statistic is the registry: a field registered only here
    (twice the MSE) gets its interval, exactly twice MSE's (doubling is exact
    in floating point, and quantiles commute with it)."""
    from click.testing import CliRunner

    from bvtest_cli.cli import cli
    from bvtest_cli.report import registry
    from bvtest_cli.report.registry import Field

    toy = Field("toy", "twice the MSE", "test", compute=lambda inputs: 2.0 * inputs.bv.mse)
    monkeypatch.setattr(registry, "SYSTEM_FIELDS", (*registry.SYSTEM_FIELDS, toy))
    args = ["eval", "-m", "AP", "--ci", "0.9", "--bootstrap", "100", "-f", "json", "--quiet"]
    result = CliRunner().invoke(cli, [*args, str(SAMPLE_QRELS), str(SAMPLE_RUNS)])
    assert result.exit_code == 0, result.output
    for f in json.loads(result.stdout)["measures"]["AP"]["systems"].values():
        assert f["toy_ci"] == {"lo": 2 * f["mse_ci"]["lo"], "hi": 2 * f["mse_ci"]["hi"]}
