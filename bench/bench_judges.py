"""Cost of ``bvtest judges`` with the human-topics experiment on real runs.

Run: ``python bench/bench_judges.py [--repeat 1] [--profile]`` (``make bench``
runs it with ``--extras``, through :func:`judges_bench`).

TREC 2003 Robust (../shared/data/robust2003: 17 runs, 100 topics, grades
0–2) with three judges simulated from confusion blocks (a good, a middling
and a lenient one, written here), ``--human-topics 5,10,20,30,40 --draws
200`` and the default measures (AP, nDCG@10, ERR@20), -f json to /dev/null:
the installed console script in a subprocess (start-up and reading count),
wall and CPU time (user + system of it and its children, ``os.wait4``).
Goal: ≤ 30 s wall on 2 cores. ``--profile`` runs the command once under
``python -m cProfile`` and prints the 25 functions of largest cumulative
time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROBUST = REPO.parent / "shared" / "data" / "robust2003"
GOAL_WALL_S = 30.0
SIZES = "5,10,20,30,40"
DRAWS = 200
#: P(judge grade | human grade) on Robust's 0–2 scale, rows human 0, 1, 2.
JUDGES = {
    "good": ((0.90, 0.08, 0.02), (0.25, 0.55, 0.20), (0.05, 0.25, 0.70)),
    "middling": ((0.76, 0.18, 0.06), (0.47, 0.37, 0.16), (0.20, 0.34, 0.46)),
    "lenient": ((0.55, 0.30, 0.15), (0.15, 0.45, 0.40), (0.02, 0.18, 0.80)),
}


def confusion_files(folder: Path) -> list[str]:
    """One ``--judge NAME=sim:FILE`` per judge, its block written into ``folder``
    as ``judges -f json`` writes one (counts of 1000 documents per row)."""
    args = []
    for name, p in JUDGES.items():
        block = {
            "human_grades": [0, 1, 2],
            "judge_grades": [0, 1, 2],
            "counts": [[round(1000 * v) for v in row] for row in p],
            "p": [list(row) for row in p],
        }
        path = folder / f"{name}.json"
        path.write_text(json.dumps(block))
        args += ["--judge", f"{name}=sim:{path}"]
    return args


def command(bvtest: str, folder: Path) -> list[str]:
    return [
        bvtest, "judges", "--quiet", *confusion_files(folder), "--human-topics", SIZES,
        "--draws", str(DRAWS), "-f", "json", str(ROBUST / "qrels.txt"), str(ROBUST / "runs"),
    ]  # fmt: skip


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``cmd``, stdout to /dev/null."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd[:2])} failed: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def bvtest_executable() -> str:
    local = Path(sys.executable).with_name("bvtest")
    return str(local) if local.exists() else shutil.which("bvtest") or "bvtest"


def judges_bench(bvtest: str, repeat: int = 1) -> bool:
    """Time the command (median of ``repeat``) and print one line with PASS/MISS;
    True when the goal is met (and when the data is absent: nothing to time)."""
    if not (ROBUST / "qrels.txt").is_file():
        print("bvtest judges (Robust 2003)  : ../shared/data/robust2003 absent, skipped")
        return True
    with tempfile.TemporaryDirectory(prefix="judges.") as tmp:
        cmd = command(bvtest, Path(tmp))
        runs = [timed(cmd) for _ in range(max(repeat, 1))]
    wall = statistics.median(w for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    ok = wall <= GOAL_WALL_S
    print(
        f"bvtest judges (Robust 2003)  : {wall:7.2f} s wall, {cpu:.2f} s CPU, median of "
        f"{len(runs)}; 3 sim judges x 3 measures x 17 runs x 100 topics, --human-topics "
        f"{SIZES} --draws {DRAWS}, load average {os.getloadavg()[0]:.2f}; "
        f"goal <= {GOAL_WALL_S:.0f} s: {'PASS' if ok else 'MISS'}"
    )
    return ok


def profile(bvtest: str, top: int = 25) -> None:
    """The command once under cProfile (in this interpreter's environment)."""
    import pstats

    with tempfile.TemporaryDirectory(prefix="judges.") as tmp:
        cmd = command(bvtest, Path(tmp))
        stats, script = Path(tmp) / "judges.prof", Path(tmp) / "run_judges.py"
        script.write_text(
            "import sys\nfrom bvtest_cli.cli import main\n"
            f"sys.argv = {['bvtest', *cmd[1:]]!r}\nmain()\n"
        )
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        subprocess.run(
            [sys.executable, "-m", "cProfile", "-o", str(stats), str(script)],
            stdout=subprocess.DEVNULL, env=env, check=False,
        )  # fmt: skip
        pstats.Stats(str(stats)).sort_stats("cumulative").print_stats(top)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=1, help="runs of the command (median)")
    p.add_argument("--profile", action="store_true", help="also profile one run (cProfile)")
    p.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = p.parse_args()
    bvtest = bvtest_executable()
    ok = judges_bench(bvtest, args.repeat)
    if args.profile and (ROBUST / "qrels.txt").is_file():
        profile(bvtest)
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
