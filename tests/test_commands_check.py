"""``bvtest check``: CI gates through the installed command (docs/formats.md).

The gate logic, not the numbers, is under test, so every bound comes from a
fact known independently of the implementation under test:

- ``cand.run`` is a byte-for-byte copy of the pool run sys002 under another
  name, so every field of cand.run equals sys002's (``<=``/``>=`` sys002 pass,
  ``<``/``>`` sys002 fail);
- a mean AP lies in [0, 1]; a perfect run (all relevant documents first) has
  AP 1 on every topic, so with it in the pool the virtual target is 1 and its
  own MSE is 0 — which holds only if new runs are part of the target;
- a boundary taken from ``bvtest eval -f json`` on the same inputs passes with
  ``<=`` and fails with ``<``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error

LINE = re.compile(
    r"^(PASS|FAIL)\t([^\t]+)\t([^\t]+)\t(\S+) (<=|<|>=|>) (\S+)( \(([^)]+)\))?( is false)?$"
)


@pytest.fixture
def cand(tmp_path: Path) -> Path:
    """A new run identical to sys002, under a name not in the pool."""
    path = tmp_path / "new" / "cand.run"
    path.parent.mkdir()
    shutil.copy(SAMPLE_RUNS / "sys002", path)
    return path


@pytest.fixture
def perfect(tmp_path: Path) -> Path:
    """A run ranking every relevant document (grade >= 1) first on every topic."""
    by_topic: dict[str, list[str]] = {}
    for line in SAMPLE_QRELS.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and int(parts[3]) >= 1:
            by_topic.setdefault(parts[0], []).append(parts[2])
    lines = [
        f"{topic} Q0 {doc} {rank} {1000 - rank} perfect"
        for topic, docs in by_topic.items()
        for rank, doc in enumerate(docs, 1)
    ]
    path = tmp_path / "perfect.run"
    path.write_text("\n".join(lines) + "\n")
    return path


def check(bvtest, *args):
    return bvtest("check", "--quiet", SAMPLE_QRELS, SAMPLE_RUNS, *args)


def verdicts(proc) -> list[re.Match]:
    lines = proc.stdout.splitlines()
    matches = [LINE.match(line) for line in lines]
    assert all(matches), proc.stdout
    # a FAIL reads as false, a PASS as the true comparison it is
    assert all((m.group(1) == "FAIL") == (m.group(9) is not None) for m in matches), proc.stdout
    return matches


# ---------------------------------------------------------------------------
# Passing and failing, each gate form


@pytest.mark.parametrize(
    ("gate", "passed"),
    [
        ("AP:mean>=0", True),
        ("AP:mean<=1", True),
        ("AP:mean>1", False),
        ("AP:mean<0", False),
        ("AP:mse>=0", True),
        ("AP:mse<0", False),
    ],
)
def test_number_bound(bvtest, cand, gate, passed):
    proc = check(bvtest, cand, "--gate", gate)
    assert proc.returncode == (0 if passed else 1), proc.stderr
    (m,) = verdicts(proc)
    assert m[1] == ("PASS" if passed else "FAIL")
    assert m[2] == gate and m[3] == "cand.run"
    assert m[6] == gate.split(m[5])[1]  # a numeric bound is printed as written
    assert m[7] is None


@pytest.mark.parametrize(
    ("gate", "passed"),
    [
        ("AP:mse<=sys002", True),
        ("AP:mse>=sys002", True),
        ("AP:mse<sys002", False),
        ("AP:mse>sys002", False),
        ("nDCG@10:bias2<=sys002", True),
        ("nDCG@10:var<sys002", False),
        ("AP:var_rho>=sys002", True),
        ("AP:mean>sys002", False),
    ],
)
def test_pool_run_bound(bvtest, cand, gate, passed):
    proc = check(bvtest, cand, "--gate", gate)
    assert proc.returncode == (0 if passed else 1), proc.stderr
    (m,) = verdicts(proc)
    assert m[1] == ("PASS" if passed else "FAIL")
    assert m[4] == m[6], "cand.run is a copy of sys002: same value"
    assert m[8] == "sys002"


@pytest.mark.parametrize(
    ("gate", "passed"),
    [
        ("AP:georisk@5>=sys002", True),
        ("AP:georisk@5>sys002", False),
        ("AP:zrisk@0<=sys002", True),
        ("AP:zrisk@10<sys002", False),
        ("nDCG@10:zrisk_target@1>=sys002", True),
        ("nDCG@10:trisk_mean@5>sys002", False),
        ("AP:georisk@0>=0", True),  # GeoRisk is a square root
        ("AP:georisk@10<0", False),
    ],
)
def test_alpha_indexed_field(bvtest, cand, gate, passed):
    proc = check(bvtest, cand, "--gate", gate)
    assert proc.returncode == (0 if passed else 1), proc.stderr
    (m,) = verdicts(proc)
    assert m[1] == ("PASS" if passed else "FAIL")
    if m[8]:
        assert m[4] == m[6]


def test_alpha_not_in_alpha_list_is_computed(bvtest, cand):
    """A gate's alpha is computed even when --alpha does not list it."""
    proc = check(bvtest, cand, "--alpha", "0,1", "-g", "AP:georisk@2.5>=sys002")
    assert proc.returncode == 0, proc.stderr
    (m,) = verdicts(proc)
    assert m[1] == "PASS"


def test_baseline_fields(bvtest, cand):
    # cand.run == sys002: URisk against sys002 is 0 for every alpha, TRisk 0 too.
    proc = check(
        bvtest,
        cand,
        "--baseline", "sys002",
        "-g", "AP:urisk@5>=0",
        "-g", "AP:urisk@5<=0",
        "-g", "AP:trisk@1>=0",
        "-g", "AP:urisk@1>0",
    )  # fmt: skip
    assert proc.returncode == 1
    assert [m[1] for m in verdicts(proc)] == ["PASS", "PASS", "PASS", "FAIL"]


def test_boundary_from_eval(bvtest, cand):
    """The value eval reports is the boundary: <= passes, < fails, >= passes."""
    proc = bvtest("eval", "--quiet", "-m", "AP", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS, cand)
    assert proc.returncode == 0, proc.stderr
    mse = json.loads(proc.stdout)["measures"]["AP"]["systems"]["cand.run"]["mse"]
    x = repr(mse)
    proc = check(bvtest, cand, "-g", f"AP:mse<={x}", "-g", f"AP:mse<{x}", "-g", f"AP:mse>={x}")
    assert proc.returncode == 1
    assert [m[1] for m in verdicts(proc)] == ["PASS", "FAIL", "PASS"]
    assert all(m[4] == f"{mse:.4f}" for m in verdicts(proc))


def test_new_run_is_part_of_the_target(bvtest, perfect):
    """With a perfect run added, the target is 1 everywhere and its MSE is 0."""
    proc = check(bvtest, perfect, "-g", "AP:mse<=0", "-g", "AP:mean>=1", "-g", "AP:bias2<=0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [m[1] for m in verdicts(proc)] == ["PASS"] * 3


def test_every_gate_for_every_new_run(bvtest, cand, perfect):
    """One line per gate and new run, gates in order, new runs in order."""
    proc = check(bvtest, cand, perfect, "-g", "AP:mean>=0.5", "-g", "AP:mean>=0")
    assert proc.returncode == 1
    got = [(m[1], m[2], m[3]) for m in verdicts(proc)]
    assert got == [
        ("FAIL", "AP:mean>=0.5", "cand.run"),
        ("PASS", "AP:mean>=0.5", "perfect.run"),
        ("PASS", "AP:mean>=0", "cand.run"),
        ("PASS", "AP:mean>=0", "perfect.run"),
    ]


def test_new_runs_as_directory(bvtest, cand):
    proc = check(bvtest, cand.parent, "-g", "AP:mse<=sys002")
    assert proc.returncode == 0
    assert verdicts(proc)[0][3] == "cand.run"


def test_verdict_line_exact(bvtest, cand):
    proc = check(bvtest, cand, "-g", "AP:mean>=0", "-g", "AP:mse<=sys002", "--digits", "2")
    assert proc.returncode == 0
    first, second = proc.stdout.splitlines()
    assert re.fullmatch(r"PASS\tAP:mean>=0\tcand\.run\t0\.\d\d >= 0", first), first
    assert re.fullmatch(r"PASS\tAP:mse<=sys002\tcand\.run\t(0\.\d\d) <= \1 \(sys002\)", second)


def test_gate_with_spaces_is_printed_as_written(bvtest, cand):
    proc = check(bvtest, cand, "-g", "AP:mean >= 0")
    assert proc.returncode == 0
    assert proc.stdout.split("\t")[1] == "AP:mean >= 0"


def test_measures_default_to_the_gates(bvtest, tmp_path):
    """Only the measures the gates name are evaluated: ERR@20 (a default measure
    of eval) rejects grade 5, so eval fails on these files and check does not."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 5\n1 0 d2 0\n2 0 d3 1\n")
    pool = tmp_path / "pool.run"
    pool.write_text("1 Q0 d2 1 2 p\n1 Q0 d1 2 1 p\n2 Q0 d3 1 1 p\n")
    new = tmp_path / "new.run"
    new.write_text("1 Q0 d1 1 2 n\n1 Q0 d2 2 1 n\n2 Q0 d3 1 1 n\n")
    assert bvtest("eval", "--quiet", qrels, pool, new).returncode == 2
    proc = bvtest("check", "--quiet", qrels, pool, new, "-g", "AP:mean>=pool.run")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "PASS\tAP:mean>=pool.run\tnew.run\t1.0000 >= 0.7500 (pool.run)\n"
    # With -m, the gates' measures must be among them.
    proc = bvtest("check", "--quiet", "-m", "AP,ERR@20", qrels, pool, new, "-g", "AP:mean>=0")
    assert_one_line_error(proc, "grade 5")


def test_null_value_fails(bvtest, tmp_path):
    """TRisk with a zero standard error and non-zero deltas is null: FAIL, not error."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 0\n")
    base = tmp_path / "base.run"  # AP 0.5 on both topics
    base.write_text("1 Q0 b 1 2 x\n1 Q0 a 2 1 x\n2 Q0 d 1 2 x\n2 Q0 c 2 1 x\n")
    new = tmp_path / "new.run"  # AP 1 on both topics: every delta is 0.5
    new.write_text("1 Q0 a 1 2 y\n1 Q0 b 2 1 y\n2 Q0 c 1 2 y\n2 Q0 d 2 1 y\n")
    args = ("check", "--quiet", "--baseline", "base.run", qrels, base, new, "-g", "AP:trisk@1>=0")
    proc = bvtest(*args)
    assert proc.returncode == 1
    assert proc.stdout == "FAIL\tAP:trisk@1>=0\tnew.run\tnull >= 0 is false\n"
    proc = bvtest(*args, "-f", "json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["verdicts"][0]["value"] is None


# ---------------------------------------------------------------------------
# JSON


def test_json_output(bvtest, cand):
    proc = check(bvtest, cand, "-f", "json", "-g", "AP:mse<=sys002", "-g", "AP:mean>1")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["passed"] is False
    first, second = doc["verdicts"]
    assert set(first) == {"gate", "run", "value", "bound", "bound_run", "passed"}
    assert first["gate"] == "AP:mse<=sys002" and first["run"] == "cand.run"
    assert first["bound_run"] == "sys002" and first["passed"] is True
    assert first["value"] == first["bound"]
    assert second == {
        "gate": "AP:mean>1",
        "run": "cand.run",
        "value": second["value"],
        "bound": 1.0,
        "bound_run": None,
        "passed": False,
    }
    assert 0 <= second["value"] <= 1


def test_json_all_pass(bvtest, cand):
    proc = check(bvtest, cand, "-f", "json", "-g", "AP:mean>=0")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["passed"] is True


# ---------------------------------------------------------------------------
# Errors: exit 2, one stderr line, nothing on stdout


@pytest.mark.parametrize(
    ("gate", "fragment"),
    [
        ("AP:mse<>0.06", "bad operator"),
        ("AP:mse=0.06", "no comparison operator"),
        ("AP:mse<=", "missing number or run name"),
        ("mse<=0.06", "expected MEASURE:FIELD"),
        ("AP:bogus<=1", "unknown field"),
        ("AP:georisk<=1", "needs @ALPHA"),
        ("AP:mse@5<=1", "takes no @ALPHA"),
        ("AP:georisk@-1<=1", "not a non-negative number"),
        ("NoSuchMeasure:mse<=1", "unknown measure"),
        ("AP:urisk@1<=1", "needs --baseline"),
    ],
)
def test_malformed_gate_fails_before_evaluation(bvtest, tmp_path, cand, gate, fragment):
    # The qrels does not exist: the gate error proves nothing was read first.
    proc = bvtest("check", tmp_path / "missing-qrels", SAMPLE_RUNS, cand, "-g", "AP:mean>=0",
                  "-g", gate)  # fmt: skip
    assert_one_line_error(proc, fragment)


def test_unknown_run_on_the_right(bvtest, tmp_path, cand):
    proc = bvtest("check", tmp_path / "missing-qrels", SAMPLE_RUNS, cand, "-g", "AP:mse<=bm25")
    assert_one_line_error(proc, "'bm25'", "neither a number nor a pool run")


def test_new_run_on_the_right_is_not_a_pool_run(bvtest, cand):
    assert_one_line_error(check(bvtest, cand, "-g", "AP:mse<=cand.run"), "not a pool run")


def test_new_run_named_like_a_pool_run(bvtest, tmp_path):
    clash = tmp_path / "sys003"
    shutil.copy(SAMPLE_RUNS / "sys001", clash)
    assert_one_line_error(check(bvtest, clash, "-g", "AP:mean>=0"), "sys003", "pool run")


def test_baseline_must_be_a_pool_run(bvtest, cand):
    proc = check(bvtest, cand, "--baseline", "cand.run", "-g", "AP:mean>=0")
    assert_one_line_error(proc, "baseline", "not a pool run")


def test_bad_qrels(bvtest, tmp_path, cand):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("401 0 DOC-1 1\n401 0 DOC-2\n")
    proc = bvtest("check", qrels, SAMPLE_RUNS, cand, "-g", "AP:mean>=0")
    assert_one_line_error(proc, "qrels.txt:2")


def test_measure_not_among_m(bvtest, cand):
    assert_one_line_error(check(bvtest, cand, "-m", "P@10", "-g", "AP:mean>=0"), "not among -m")


@pytest.mark.parametrize(
    "args",
    [
        ("-g", "AP:mean>=0"),  # no new run
        (),  # no gate
    ],
)
def test_usage_errors(bvtest, args):
    proc = bvtest("check", SAMPLE_QRELS, SAMPLE_RUNS, *args)
    assert proc.returncode == 2 and proc.stdout == ""


def test_usage_error_without_gate_with_new_run(bvtest, cand):
    proc = bvtest("check", SAMPLE_QRELS, SAMPLE_RUNS, cand)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--gate" in proc.stderr


# ---------------------------------------------------------------------------
# Quiet


def test_notes_on_stderr_and_quiet(bvtest, cand):
    loud = bvtest("check", SAMPLE_QRELS, SAMPLE_RUNS, cand, "-g", "AP:mean>1")
    assert loud.returncode == 1
    assert "note:" in loud.stderr and "1 of 1 gate verdict(s) failed" in loud.stderr
    quiet = check(bvtest, cand, "-g", "AP:mean>1")
    assert quiet.returncode == 1 and quiet.stderr == ""
    assert quiet.stdout == loud.stdout


# ---------------------------------------------------------------------------
# Test gates: RUN~DELTA (non-inferiority) and >> RUN (superiority)


@pytest.mark.parametrize("test", ["randomization", "t"])
def test_copy_of_the_baseline_is_non_inferior_not_superior(bvtest, cand, test):
    # cand.run is sys002: every difference is 0, so the bound is 0 > −0.01, and 0 > 0 is false
    gates = ("-g", "AP:mean>=sys002~0.01", "-g", "AP:mean>>sys002")
    proc = check(bvtest, cand, "--test", test, *gates)
    assert proc.returncode == 1, proc.stderr
    first, second = verdicts(proc)
    assert first.group(1) == "PASS" and float(first.group(4)) == 0.0 and first.group(6) == "-0.01"
    assert second.group(1) == "FAIL" and second.group(6) == "0"
    assert "diff 0.0000 vs sys002, one-sided p " in first.group(8)
    assert f"{test} test" in first.group(8)


def test_perfect_run_is_superior(bvtest, perfect):
    proc = check(bvtest, perfect, "-f", "json", "-g", "AP:mean>>sys001", "-g", "AP:mean>=sys001~0")
    assert proc.returncode == 0, proc.stderr
    for v in json.loads(proc.stdout)["verdicts"]:
        assert v["passed"] and v["bound"] > 0 and v["diff"] > 0 and v["test"] == "randomization"
        assert v["diff"] == pytest.approx(v["value"] - v["reference"])
        # 29 judged topics: 9999 flips, p = (1 + h)/(1 + 9999) ≥ 1e-4
        assert v["p"] >= 1e-4 and v["topics"] == 29


def test_test_gate_json(bvtest, cand):
    proc = check(bvtest, cand, "-f", "json", "--test", "t", "--significance", "0.1",
                 "-g", "AP:mean>=sys001~0.05")  # fmt: skip
    (v,) = json.loads(proc.stdout)["verdicts"]
    assert {"diff", "bound", "p", "test", "margin", "reference", "topics", "kind"} <= v.keys()
    got = (v["kind"], v["test"], v["margin"], v["significance"])
    assert got == ("non-inferiority", "t", 0.05, 0.1)
    assert v["passed"] == (v["bound"] > -0.05) == (v["p"] <= 0.1)
    assert proc.returncode == (0 if v["passed"] else 1)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["-g", "AP:mean>=sys002~nan"], "not a finite number"),
        (["-g", "AP:mean>=sys002~-0.01"], "negative"),
        (["-g", "AP:mean>=sys002~1e308"], "below 1"),
        (["-g", "AP:mean>=sys002~"], "needs the margin"),
        (["-g", "AP:mean>>0.3"], "not a number"),
        (["-g", "AP:mean>>cand.run"], "is a new run"),
        (["-g", "AP:mean>=sys002~0.01", "--test", "wilcoxon"], "--test"),
        (["-g", "AP:mean>=0.1", "--test", "t"], "decides test gates"),
        (["-g", "AP:mean>=0.1", "--significance", "0.1"], "decides test gates"),
        (["-g", "AP:mean>=sys002~0.01", "--normalize", "minmax"], "not with --normalize"),
        (["-g", "AP:mean>=sys002~0.01", "--significance", "nan"], "significance"),
    ],
)
def test_bad_test_gates(bvtest, cand, args, fragment):
    assert_one_line_error(check(bvtest, cand, *args), fragment)


def _qrels_of(tmp_path: Path, topics: int) -> Path:
    lines = SAMPLE_QRELS.read_text().splitlines()
    keep = list(dict.fromkeys(line.split()[0] for line in lines))[:topics]
    path = tmp_path / f"qrels{topics}.txt"
    path.write_text("\n".join(line for line in lines if line.split()[0] in keep) + "\n")
    return path


@pytest.mark.parametrize("topics", [1, 2])
def test_test_gates_on_one_and_two_topics(bvtest, tmp_path, perfect, topics):
    qrels = _qrels_of(tmp_path, topics)
    proc = bvtest("check", "-f", "json", qrels, SAMPLE_RUNS, perfect, "-g", "AP:mean>=sys001~0.01")
    assert proc.returncode == 1, proc.stderr
    (v,) = json.loads(proc.stdout)["verdicts"]
    # 2^n ≤ 4 sign vectors: the smallest p, 1/2^n, is above .05: no bound, no pass
    assert v["bound"] is None and not v["passed"] and v["topics"] == topics
    assert f"smallest p, 1/{2**topics}" in proc.stderr
    t = bvtest("check", "-f", "json", qrels, SAMPLE_RUNS, perfect, "--test", "t",
               "-g", "AP:mean>=sys001~0.01")  # fmt: skip
    (v,) = json.loads(t.stdout)["verdicts"]
    assert not v["passed"]
    assert (v["bound"] is None) == (topics == 1)
