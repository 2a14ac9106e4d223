"""Golden outputs: every command × format × a set of option combinations.

Recorded before the core redesign and kept as a regression test:
the stdout, stderr and exit status of each case. Printed formats must match
byte for byte; JSON must match token by token, floats within the tolerance
of tests/golden_compare.py, which covers the last bits that differ between
machines and dependency versions (docs/reproducibility.md). A deliberate change of
output is made by re-recording (``BVTEST_GOLDEN_UPDATE=1 pytest
tests/test_golden.py``) in the same commit that changes the code, with the
change listed in the README; the diff of ``tests/golden/`` then shows it.

Cases on the bundled sample track always run; cases on the CAsT 2021 data
skip when ``../shared/data`` is absent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from conftest import REPO, SHARED, run_bvtest
from golden_compare import record_mismatch

GOLDEN = REPO / "tests" / "golden"
UPDATE = os.environ.get("BVTEST_GOLDEN_UPDATE") == "1"

S = ("qrels/qrels.txt", "sample_runs/")
CAST = "../shared/data/cast2021"
C = (f"{CAST}/qrels.txt", f"{CAST}/runs/")
SCORES = "tests/golden/sample-scores.out.tsv"  # the sample track's `bvtest scores`
FORMATS = ("trec", "table", "tsv", "csv", "json")


def _cases() -> dict[str, tuple[str, ...]]:
    cases: dict[str, tuple[str, ...]] = {}
    for fmt in FORMATS:
        cases[f"eval-{fmt}"] = ("eval", "-f", fmt, *S)
        cases[f"instability-{fmt}"] = ("instability", "-m", "ERR@20", "-f", fmt, *S)
        cases[f"tradeoff-{fmt}"] = ("tradeoff", "--repeats", "40", "-f", fmt, *S)
        cases[f"pertopic-{fmt}"] = ("pertopic", "-k", "12", "-j", "1", "-f", fmt, *S)
        cases[f"eval-scores-{fmt}"] = ("eval", "--scores", SCORES, "-f", fmt)
        cases[f"cast-eval-{fmt}"] = ("eval", "-f", fmt, *C)
    variants = {
        "difficulty": ("--group", "difficulty:5"),
        "random": ("--group", "random:4", "--repeats", "30", "--seed", "3"),
        "minmax": ("--normalize", "minmax"),
        "ratio": ("--normalize", "ratio"),
        "difficulty-ratio": ("--group", "difficulty:4", "--normalize", "ratio"),
        "random-minmax": ("--group", "random:6", "--repeats", "20", "--normalize", "minmax"),
        "baseline": ("--baseline", "sys003", "--alpha", "0,2.5,7"),
        "ideal": ("--target", "ideal"),
        "constant": ("--target", "0.5", "--digits", "6"),
        "measures": ("-m", "AP,P@10", "-m", "AP(rel=2)", "-l", "2"),
    }
    for name, opts in variants.items():
        for fmt in ("trec", "json"):
            cases[f"eval-{name}-{fmt}"] = ("eval", *opts, "-f", fmt, *S)
    cases["eval-baseline-table"] = ("eval", "--baseline", "sys003", "-f", "table", *S)
    cases["eval-scores-measure"] = ("eval", "--scores", SCORES, "-m", "nDCG@10", "--alpha", "1")
    cases["scores"] = ("scores", *S)
    cases["scores-ap"] = ("scores", "-m", "AP", "-l", "2", *S)
    cases["tradeoff-ratio"] = ("tradeoff", "--normalize", "ratio", "--repeats", "25", *S)
    cases["tradeoff-sizes"] = (
        "tradeoff",
        "--random-size",
        "5",
        "--difficulty-size",
        "3",
        "--repeats",
        "25",
        "--seed",
        "9",
        "-f",
        "json",
        *S,
    )
    cases["instability-minmax"] = ("instability", "--normalize", "minmax", "-f", "json", *S)
    cases["pertopic-per-topic"] = ("pertopic", "-k", "8", "-q", "-j", "1", "-f", "json", *S)
    cases["pertopic-rel2"] = ("pertopic", "-k", "8", "-l", "2", "-j", "1", *S)
    gates = ("--gate", "AP:mse<=sys001", "--gate", "nDCG@10:georisk@5>=sys002")
    for fmt in ("text", "json"):
        cases[f"check-{fmt}"] = ("check", *S[:1], "sample_runs/", "NEW/new.run", *gates, "-f", fmt)
    cases["check-fail"] = (
        "check",
        "qrels/qrels.txt",
        "sample_runs/",
        "NEW/new.run",
        "-g",
        "AP:mean>=0.9",
    )
    cases["check-baseline"] = (
        "check",
        "qrels/qrels.txt",
        "sample_runs/",
        "NEW/new.run",
        "--baseline",
        "sys002",
        "-g",
        "AP:trisk@1>=0",
        "-g",
        "ERR@20:zrisk_baseline@0>-100",
    )
    # --ci, compare, gates on interval ends
    for fmt in FORMATS:
        cases[f"eval-ci-{fmt}"] = (
            "eval",
            "--ci",
            "0.9",
            "--bootstrap",
            "200",
            "-m",
            "AP",
            "-f",
            fmt,
            *S,
        )
        cases[f"compare-{fmt}"] = (
            "compare", "--pair", "sys001", "sys002", "--pair", "sample_runs/sys005", "sys003",
            "--bootstrap", "200", "-m", "AP,nDCG@10", "--alpha", "0,5", "-f", fmt, *S,
        )  # fmt: skip
    cases["eval-ci-bca"] = (
        "eval", "--ci", "0.95", "--bootstrap", "200", "--ci-method", "bca", "--baseline", "sys003",
        "--normalize", "minmax", "-m", "nDCG@10", "-f", "json", *S,
    )  # fmt: skip
    cases["instability-ci-table"] = (
        "instability", "--ci", "0.95", "--bootstrap", "100", "--seed", "5", "-f", "table", *S,
    )  # fmt: skip
    cases["compare-all"] = (
        "compare", "--pairs", "all", "--scores", SCORES, "-m", "ERR@20", "--bootstrap", "100",
        "--alpha", "1", "--ci-method", "bca", "-f", "json",
    )  # fmt: skip
    cases["check-ci"] = (
        "check", "qrels/qrels.txt", "sample_runs/", "NEW/new.run", "--ci", "0.9",
        "--bootstrap", "100", "-g", "AP:mse.hi<=sys001", "-g", "nDCG@10:georisk.lo@5>=0.3",
    )  # fmt: skip
    cases["cast-instability-table"] = ("instability", "-m", "ERR@20", "-f", "table", *C)
    cases["cast-tradeoff"] = ("tradeoff", "--repeats", "30", *C)
    cases["cast-scores"] = ("scores", *C)
    cases["cast-eval-baseline"] = ("eval", "--baseline", "org_manual_bm25.run", "-f", "json", *C)
    # rankings, pool, permute (POOLS/: depth-5 and depth-20 pools of the sample track).
    rankings = (
        "rankings", "--reference", "qrels/qrels.txt", "--collection", "depth5=POOLS/d5.qrels",
        "--collection", "POOLS/d20.qrels", "--bootstrap", "200",
    )  # fmt: skip
    for fmt in (*FORMATS, "latex", "markdown"):
        cases[f"rankings-{fmt}"] = (*rankings, "-f", fmt, "sample_runs/")
    cases["rankings-one"] = (
        "rankings", "--reference", "G=qrels/qrels.txt", "--collection", "qrels/qrels.txt",
        "-m", "nDCG@10", "--topics", "58", "--bootstrap", "300", "--seed", "7", "sample_runs/",
    )  # fmt: skip
    cases["rankings-qrels-samples"] = (
        "rankings", "--reference", "qrels/qrels.txt", "--collection",
        "S=POOLS/d5.qrels,POOLS/d20.qrels", "-m", "P@10", "-l", "2", "--bootstrap", "100",
        "-f", "json", "sample_runs/",
    )  # fmt: skip
    cases["pool"] = ("pool", "--depth", "5", "qrels/qrels.txt", "sample_runs/")
    cases["permute"] = ("permute", "--seed", "3", "--out", "OUT", "qrels/qrels.txt", "sample_runs/")
    cases.update(_variation_cases())
    return cases


# --- variations: a UQV100-like track generated at test time (UQV/)
U = ("UQV/qrels.txt", "UQV/runs/")
UMAP = ("--map", "UQV/map.txt")


def _variation_cases() -> dict[str, tuple[str, ...]]:
    cases: dict[str, tuple[str, ...]] = {}
    for fmt in FORMATS:
        cases[f"variations-{fmt}"] = (
            "variations", "-m", "AP,P@10", "--alpha=-2:2:0.5", *UMAP, "-f", fmt, *U,
        )  # fmt: skip
    for fmt in ("trec", "table", "json", "latex", "markdown"):
        cases[f"variations-intra-{fmt}"] = (
            "variations", "-m", "AP", "--mode", "intra", "-q", "--alpha=-4,0,4", *UMAP,
            "-f", fmt, *U,
        )  # fmt: skip
    cases["variations-split"] = ("variations", "-m", "nDCG@10", "--split", "-", "--alpha=0,1", *U)
    cases["variations-weights"] = (
        "variations", "-m", "AP", "--weights", "UQV/weights.txt", "--alpha=-1,0,1", *UMAP,
        "-f", "json", *U,
    )  # fmt: skip
    cases["variations-inter"] = ("variations", "-m", "AP", "-f", "table", *S)
    cases["variations-scores"] = ("variations", "--scores", SCORES, "--alpha=0,5", "-f", "json")
    cases["variations-general-error"] = ("variations", "-m", "AP", "--mode", "general", *U)
    return cases


@pytest.fixture(scope="module")
def uqv_dir(tmp_path_factory) -> Path:
    """The 4 topics × 5 variations × 3 runs track of tests/test_commands_variations.py."""
    import sys

    sys.path.insert(0, str(REPO / "tools"))
    import gen_track

    out = tmp_path_factory.mktemp("golden-uqv")
    gen_track.generate(
        out, runs=3, topics=4, variations=5, depth=30, judged=40, seed=7, norel_topics=1
    )
    (out / "weights.txt").write_text("401 1\n402 2\n403 1\n")
    return out


CASES = _cases()
# The first case of each command: the ones started as the installed script.
IN_A_PROCESS_OF_ITS_OWN = set({args[0]: name for name, args in reversed(CASES.items())}.values())


@pytest.fixture(scope="module")
def new_run(tmp_path_factory) -> Path:
    """A copy of sys005 named new.run, for `check` (a new run must not share a pool name)."""
    directory = tmp_path_factory.mktemp("golden") / "NEW"
    directory.mkdir()
    shutil.copy(REPO / "sample_runs" / "sys005", directory / "new.run")
    return directory


@pytest.fixture(scope="module")
def pools(tmp_path_factory) -> Path:
    """POOLS/: depth-5 and depth-20 pools of the sample track, for `rankings`."""
    from bvtest_cli.analyses.budgets.pooling import pool
    from bvtest_cli.io.sources import expand_sources
    from bvtest_cli.io.trec import format_qrels, read_qrels, read_run

    directory = tmp_path_factory.mktemp("golden") / "POOLS"
    directory.mkdir()
    qrels = read_qrels(str(REPO / "qrels" / "qrels.txt")).qrels
    runs = [read_run(s) for s in expand_sources([str(REPO / "sample_runs")])]
    for depth in (5, 20):
        (directory / f"d{depth}.qrels").write_text(format_qrels(pool(qrels, runs, depth).qrels))
    return directory


def _record(proc) -> str:
    return f"exit: {proc.returncode}\n--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}"


def _files(directory: Path) -> str:
    """What a command wrote into OUT (`permute`): name and SHA-256 of each file."""
    lines = [
        f"{p.name} {hashlib.sha256(p.read_bytes()).hexdigest()}\n"
        for p in sorted(directory.iterdir())
    ]
    return "--- files\n" + "".join(lines)


@pytest.mark.parametrize("name", list(CASES))
def test_golden(name: str, new_run: Path, pools: Path, uqv_dir: Path, tmp_path: Path) -> None:
    args = CASES[name]
    if any(a.startswith(CAST) for a in args) and not (SHARED / "data").is_dir():
        pytest.skip("../shared/data is not present")
    out = tmp_path / "OUT"
    args = tuple(str(new_run / "new.run") if a == "NEW/new.run" else a for a in args)
    args = tuple(str(out) if a == "OUT" else a.replace("POOLS/", f"{pools}/") for a in args)
    args = tuple(str(uqv_dir) + a[3:] if a.startswith("UQV/") else a for a in args)
    # The byte-for-byte promise is the command line's: each command's first
    # case runs the installed script in a fresh process, as a user's run is;
    # the others go through the same cli.main() in this process, ~0.4 s of
    # start-up cheaper each (tests/test_entry_point.py checks that the two
    # agree on every command).
    proc = run_bvtest(*args, cwd=REPO, subprocess=name in IN_A_PROCESS_OF_ITS_OWN)
    got = _record(proc).replace(str(new_run), "NEW").replace(str(pools), "POOLS")
    got = got.replace(str(out), "OUT").replace(str(uqv_dir), "UQV")
    if "OUT" in CASES[name]:
        got += _files(out)
    path = GOLDEN / f"{name}.out"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(got)
        if name == "scores":
            (REPO / SCORES).write_text(proc.stdout)
        return
    assert path.exists(), f"no golden output for {name}; record with BVTEST_GOLDEN_UPDATE=1"
    mismatch = record_mismatch(path.read_text(), got)
    assert mismatch is None, f"output of {' '.join(args)} changed: {mismatch}"
