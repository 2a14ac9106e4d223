"""Benchmark of the whole default analysis on a TREC-8-size track (issue 7).

Run: ``make bench`` or ``python bench/bench.py [--repeat 3] [--extras]``.

1. A synthetic TREC-8 ad hoc-size track (129 runs x 50 topics x 1000 documents,
   about 1700 judgments per topic) is generated once by ``tools/gen_track.py``
   into ``.bench-cache/`` and reused while the parameters are the same.
2. In one run of this script, on the same files:

   * ``bvtest eval QRELS RUNS/``, the default analysis (AP, nDCG@10, ERR@20 and
     every analysis), run as the installed console script in a subprocess so
     that interpreter start-up and imports count, stdout to /dev/null; with
     the default number of jobs and with ``-j 1``;
   * the baseline: a plain ir_measures loop, also in a subprocess: for each run
     file ``ir_measures.read_trec_run`` and ``ir_measures.iter_calc([AP,
     nDCG@10, ERR@20], qrels, run)`` (ERR@20 through ir_measures' gdeval
     provider, one perl process per run). The qrels are read once.

   Wall times are medians over ``--repeat`` runs of bvtest (the slow baseline
   runs once); the speed-up is baseline / bvtest from this same run.
   Peak RSS is ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` of a wrapper process
   whose only child is bvtest: the largest resident set over bvtest and its
   worker processes.
3. The baseline's per-topic values are compared with ``bvtest scores`` on the
   same files (AP and nDCG@10 identical, ERR@20 to gdeval's 5 decimals).

``--extras`` also times ``bvtest rankings`` on the same track (issue 12, below)
and ``bvtest eval --ci 0.95 --bootstrap 1000`` against ``bvtest eval`` on the
track's scores (issue 14: the bootstrap adds < 2 s and stays < 1 GiB), and
runs bench/bench_grouping.py, bench/bench_pertopic.py, bench/bench_rankings.py
and bench/bench_ci.py (the bootstrap of every field and of all 8256 pairs for
B = 1000 and 10000, percentile and BCa).

Issue 12: depth-10 and depth-20 pools of the track (``bvtest pool``, cached
with it) as two test collections against the full qrels, B = 1000, the
pairwise Table 3 included. The time "beyond evaluation" is the median wall
time with ``--samples 1000`` minus the median with ``--samples 1``: the same
reading and evaluation (every run under three qrels), without the bootstrap.
Goal: under 5 s, and under 1 GiB peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".bench-cache"
TARGET_SPEEDUP, TARGET_WALL, TARGET_RSS_MIB = 10.0, 5.0, 1024.0

# Runs a command with stdout to /dev/null and reports its wall time, exit status,
# the largest RSS over it and its descendants and their CPU time (RUSAGE_CHILDREN
# of this wrapper, whose only child is the command).
WRAPPER = """
import resource, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - t
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime
sys.stdout.write(f"{wall!r} {usage.ru_maxrss} {proc.returncode} {cpu!r}\\n")
sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
"""


def track(args: argparse.Namespace) -> Path:
    """The cached synthetic track, generated on first use."""
    params = {
        "runs": args.runs,
        "topics": args.topics,
        "depth": args.depth,
        "judged": args.judged,
        "seed": args.seed,
    }
    name = "track-" + "-".join(f"{k}{v}" for k, v in params.items())
    out = CACHE / name
    stamp = out / "params.json"
    if stamp.is_file() and json.loads(stamp.read_text()) == params:
        return out
    sys.path.insert(0, str(REPO / "tools"))
    from gen_track import generate

    print(f"generating {name} into {CACHE} ...", flush=True)
    CACHE.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=name + ".", dir=CACHE))
    generate(tmp, **params)
    (tmp / "params.json").write_text(json.dumps(params))
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)  # only a complete track carries the stamp under its name
    return out


def bvtest_executable() -> str:
    candidate = Path(sys.executable).parent / "bvtest"
    found = str(candidate) if candidate.exists() else shutil.which("bvtest")
    if found is None:
        sys.exit("bench: the bvtest command is not installed (pip install -e .)")
    return found


def measure(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MiB) of one run of ``cmd``."""
    wall, rss, _ = measure_cpu(cmd)
    return wall, rss


def measure_cpu(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MiB, CPU seconds of all its processes) of one
    run of ``cmd``."""
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, *cmd], capture_output=True, text=True, check=True
    )
    wall, rss, rc, cpu = proc.stdout.split()
    if rc != "0":
        sys.exit(f"bench: {' '.join(cmd)} failed (exit {rc}):\n{proc.stderr}")
    scale = 1024 * 1024 if platform.system() == "Darwin" else 1024  # bytes vs KiB
    return float(wall), int(rss) / scale, float(cpu)


def loop_child(qrels_path: str, runs_dir: str, out_path: str) -> None:
    """The baseline: a plain ir_measures loop over the run files."""
    import ir_measures
    from ir_measures import AP, ERR, nDCG

    measures = [AP, nDCG @ 10, ERR @ 20]
    qrels: dict[str, dict[str, int]] = {}
    for q in ir_measures.read_trec_qrels(qrels_path):
        qrels.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    rows = []
    for name in sorted(os.listdir(runs_dir)):
        if name.startswith("."):
            continue
        run = list(ir_measures.read_trec_run(os.path.join(runs_dir, name)))
        for m in ir_measures.iter_calc(measures, qrels, run):
            rows.append(f"{name}\t{m.query_id}\t{m.measure}\t{m.value!r}\n")
    Path(out_path).write_text("".join(rows))


def read_long(text: str) -> dict[tuple[str, str, str], float]:
    cells = {}
    for line in text.splitlines():
        system, topic, measure, value = line.split("\t")
        if system != "system":
            cells[(system, topic, measure)] = float(value)
    return cells


def compare(bvtest: str, qrels: Path, runs: Path, loop_tsv: Path) -> str:
    """Largest per-topic difference between ``bvtest scores`` and the loop."""
    ours = read_long(
        subprocess.run(
            [bvtest, "scores", "--quiet", str(qrels), str(runs)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    theirs = read_long(loop_tsv.read_text())
    common = ours.keys() & theirs.keys()
    worst: dict[str, float] = {}
    for key in common:
        worst[key[2]] = max(worst.get(key[2], 0.0), abs(ours[key] - theirs[key]))
    shown = ", ".join(f"{m} {d:.1g}" for m, d in sorted(worst.items()))
    return f"{len(common)} cells in common; max |bvtest - ir_measures|: {shown}"


CI_TARGET_ADDED = 2.0  # issue 14: --ci with B = 1000 adds under 2 s to eval


def bench_ci_cli(bvtest: str, qrels: Path, runs: Path, repeat: int) -> bool:
    """Issue 14: what ``--ci 0.95 --bootstrap 1000`` adds to ``bvtest eval``.

    The track's scores are computed once (``bvtest scores``), then ``bvtest
    eval --scores`` is timed with and without ``--ci`` (percentile and BCa),
    so the difference is the bootstrap alone, not the noise of evaluating the
    runs again; medians of ``repeat`` runs, peak RSS as for eval. The verdict
    is on CPU seconds (user + system of the child): the bootstrap is
    single-threaded, so they are its wall time on an idle core, and they stay
    steady on a shared machine where wall time grows with the load.
    """
    with tempfile.TemporaryDirectory() as tmp:
        scores = Path(tmp) / "scores.tsv"
        with scores.open("w") as out:
            subprocess.run(
                [bvtest, "scores", "--quiet", str(qrels), str(runs)], stdout=out, check=True
            )
        base = [bvtest, "eval", "--quiet", "--scores", str(scores)]
        settings = {
            "eval --scores (no --ci)": base,
            "--ci 0.95 --bootstrap 1000": [*base, "--ci", "0.95", "--bootstrap", "1000"],
            "  --ci-method bca": [
                *base,
                "--ci",
                "0.95",
                "--bootstrap",
                "1000",
                "--ci-method",
                "bca",
            ],
        }
        results = {
            name: [measure_cpu(cmd) for _ in range(repeat)] for name, cmd in settings.items()
        }
    print(f"\n== bvtest eval --ci on the same track (scores read from a file), median of {repeat}")
    plain_wall = statistics.median(r[0] for r in results["eval --scores (no --ci)"])
    plain_cpu = statistics.median(r[2] for r in results["eval --scores (no --ci)"])
    ok = True
    for name, rows in results.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[2] for r in rows)
        rss = max(r[1] for r in rows)
        line = f"{name:<28} : {wall:6.2f} s wall, {cpu:6.2f} s cpu, peak RSS {rss:6.1f} MiB"
        if name != "eval --scores (no --ci)":
            added, added_cpu = wall - plain_wall, cpu - plain_cpu
            good = added_cpu <= CI_TARGET_ADDED and rss <= TARGET_RSS_MIB
            ok = ok and good
            line += f"; adds {added_cpu:5.2f} s cpu ({added:5.2f} s wall): {verdict(good)}"
        print(line)
    print(
        f"target: --ci adds <= {CI_TARGET_ADDED:g} s, peak RSS <= 1 GiB (the bootstrap runs on "
        "one core: cpu = wall on an idle machine; wall grows with the load average)"
    )
    print(f"load average {os.getloadavg()[0]:.2f}")
    return ok


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def rankings_bench(bvtest: str, track_dir: Path, repeat: int) -> bool:
    """Issue 12: `bvtest rankings` with two pooled collections, B = 1000, on
    the track; the time beyond evaluation is B = 1000 minus B = 1."""
    qrels, runs = track_dir / "qrels.txt", track_dir / "runs"
    pools = track_dir / "pools"
    if not pools.is_dir():  # cached with the track (its directory is per parameters)
        tmp = Path(tempfile.mkdtemp(prefix="pools.", dir=track_dir))
        for depth in (10, 20):
            with open(tmp / f"depth{depth}.qrels", "w") as fh:
                subprocess.run(
                    [bvtest, "pool", "--quiet", "--depth", str(depth), str(qrels), str(runs)],
                    stdout=fh,
                    check=True,
                )
        tmp.rename(pools)

    def cmd(samples: int) -> list[str]:
        return [
            bvtest, "rankings", "--quiet", "--reference", str(qrels),
            "--collection", f"depth10={pools / 'depth10.qrels'}",
            "--collection", f"depth20={pools / 'depth20.qrels'}",
            "--samples", str(samples), str(runs),
        ]  # fmt: skip

    full, base = [], []
    for _ in range(repeat):  # interleaved, to share the noise of the machine
        full.append(measure_cpu(cmd(1000)))
        base.append(measure_cpu(cmd(1)))
    wall, cpu = (statistics.median(x[k] for x in full) for k in (0, 2))
    wall1, cpu1 = (statistics.median(x[k] for x in base) for k in (0, 2))
    beyond = wall - wall1
    rss = max(x[1] for x in full)
    ok = beyond < TARGET_WALL and rss <= TARGET_RSS_MIB
    print(
        f"bvtest rankings (B=1000)     : {wall:7.2f} s median of {repeat} ({cpu:.2f} s CPU), "
        f"2 pooled collections + Table 3; evaluation alone (B=1) {wall1:.2f} s "
        f"({cpu1:.2f} s CPU)"
    )
    print(
        f"  beyond evaluation          : {beyond:7.2f} s ({cpu - cpu1:.2f} s CPU), peak RSS "
        f"{rss:.1f} MiB, load average {os.getloadavg()[0]:.2f}; target < {TARGET_WALL:.0f} s, "
        f"< 1 GiB: {verdict(ok)}"
    )
    return ok


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=129)
    p.add_argument("--topics", type=int, default=50)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--judged", type=int, default=1700)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--repeat", type=int, default=3, help="bvtest runs per setting (median)")
    p.add_argument("--skip-baseline", action="store_true", help="time bvtest only")
    p.add_argument(
        "--extras", action="store_true", help="also rankings and the grouping/pertopic benches"
    )
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    p.add_argument(
        "--loop-child", nargs=3, metavar=("QRELS", "RUNS", "OUT"), help=argparse.SUPPRESS
    )
    args = p.parse_args()
    if args.loop_child:
        loop_child(*args.loop_child)
        return 0

    out = track(args)
    qrels, runs = out / "qrels.txt", out / "runs"
    bvtest = bvtest_executable()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    n_lines = sum(f.read_bytes().count(b"\n") for f in runs.iterdir())
    print(
        f"track   : {args.runs} runs x {args.topics} topics x {args.depth} docs "
        f"({n_lines:,} run lines) in {out.relative_to(REPO)}"
    )
    print(f"machine : {cpus} CPUs, load average {os.getloadavg()[0]:.2f} at start")

    default_cmd = [bvtest, "eval", str(qrels), str(runs)]
    serial_cmd = [bvtest, "eval", "-j", "1", str(qrels), str(runs)]
    measure(default_cmd)  # warm-up: page cache, .pyc files
    fast: list[tuple[float, float]] = []
    serial: list[tuple[float, float]] = []
    baseline = None
    with tempfile.TemporaryDirectory() as tmp:
        loop_tsv = Path(tmp) / "loop.tsv"
        for i in range(args.repeat):
            fast.append(measure(default_cmd))
            serial.append(measure(serial_cmd))
            if i == 0 and not args.skip_baseline:  # between bvtest runs, to share the noise
                baseline, _ = measure(
                    [sys.executable, __file__, "--loop-child", str(qrels), str(runs), str(loop_tsv)]
                )
        agreement = None if baseline is None else compare(bvtest, qrels, runs, loop_tsv)
    print(f"load average {os.getloadavg()[0]:.2f} at end")

    wall = statistics.median(w for w, _ in fast)
    rss = max(r for _, r in fast + serial)
    wall1 = statistics.median(w for w, _ in serial)
    procs = 1 + min(cpus or 1, args.runs)
    print()
    print(
        f"bvtest eval (default, -j {cpus}) : {wall:7.2f} s median of {args.repeat} "
        f"(min {min(w for w, _ in fast):.2f})"
    )
    print(
        f"bvtest eval -j 1             : {wall1:7.2f} s median of {args.repeat} "
        f"(min {min(w for w, _ in serial):.2f}); -j 1 / default = {wall1 / wall:.2f}"
    )
    print(
        f"bvtest peak RSS              : {rss:7.1f} MiB, largest process "
        f"(at most {procs * rss:.0f} MiB over its {procs} processes)"
    )
    ok = wall <= TARGET_WALL and rss <= TARGET_RSS_MIB
    if baseline is not None:
        ratio = baseline / wall
        ok = ok and ratio >= TARGET_SPEEDUP
        print(
            f"ir_measures loop (baseline)  : {baseline:7.2f} s "
            "(AP, nDCG@10 by pytrec_eval, ERR@20 by gdeval.pl)"
        )
        print(f"speed-up                     : {ratio:7.1f}x  (baseline / bvtest default)")
        print(f"agreement                    : {agreement}")
        print(f"target >= {TARGET_SPEEDUP:.0f}x faster        : {verdict(ratio >= TARGET_SPEEDUP)}")
    print(f"target <= {TARGET_WALL:.0f} s wall          : {verdict(wall <= TARGET_WALL)}")
    print(f"target <= 1 GiB RSS          : {verdict(rss <= TARGET_RSS_MIB)}")

    # Issue 5: the whole `bvtest pertopic` (k = 100), reading included, on the same track.
    pertopic = [
        measure([bvtest, "pertopic", "--quiet", str(qrels), str(runs)]) for _ in range(args.repeat)
    ]
    pt_wall = statistics.median(w for w, _ in pertopic)
    print(
        f"bvtest pertopic (k=100)      : {pt_wall:7.2f} s median of {args.repeat}, "
        f"peak RSS {max(r for _, r in pertopic):.1f} MiB; "
        f"target <= {TARGET_WALL:.0f} s: {verdict(pt_wall <= TARGET_WALL)}"
    )
    ok = ok and pt_wall <= TARGET_WALL

    if args.extras:
        ok = rankings_bench(bvtest, out, args.repeat) and ok

    extras = [
        (REPO / "bench" / "bench_grouping.py", []),
        (REPO / "bench" / "bench_pertopic.py", []),
        (REPO / "bench" / "bench_rankings.py", []),
        (REPO / "bench" / "bench_ci.py", ["--B", "1000", "10000", "--repeat", "1", "--compare"]),
    ]
    present = [e for e, _ in extras if e.is_file()]
    if args.extras:
        ci_ok = bench_ci_cli(bvtest, qrels, runs, args.repeat)
        ok = ok and ci_ok
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        for script, script_args in extras:
            if script.is_file():
                print(f"\n== {script.relative_to(REPO)}", flush=True)
                subprocess.run([sys.executable, str(script), *script_args], env=env, check=False)
    elif present:
        names = ", ".join(str(e.relative_to(REPO)) for e in present)
        print(f"\n(not run: {names}; add --extras, or run them with PYTHONPATH=.)")
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
