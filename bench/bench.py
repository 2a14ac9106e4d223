"""Benchmark of the whole default analysis on a TREC-8-size track.

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

   * the trec_eval loop: the trec_eval C binary once per run file,
     ``-m map -m ndcg_cut.10`` only, stdout to /dev/null. trec_eval is taken
     from PATH, else built from ../shared/tools/trec_eval-src.tar.gz into
     ``.bench-cache/trec_eval`` (tests/trec_ref.py's builder); its lines are
     skipped when it cannot be found or built.

   Wall times are medians over ``--repeat`` runs of bvtest (the slow baselines
   run once); ratios are bvtest / baseline from this same run. CPU time is
   user + system of the command and all its descendants (``os.wait4``): the
   machine may be shared, and wall time then counts other processes' load.
   Memory is sampled every 50 ms over the command and its descendants: the
   largest resident set of one process (``ru_maxrss``) and the peak of the
   *sum* of PSS (``/proc/PID/smaps_rollup``; pages shared by forked workers
   are counted once, split between them), Linux only. The sampler is not
   attached to the timed runs (it takes CPU on the same cores and the
   processes' memory-map lock: about 0.1 s, 6 %, of the default eval, and
   the trec_eval loop is timed without it): memory comes from separate runs.
3. The baseline's per-topic values are compared with ``bvtest scores`` on the
   same files (AP and nDCG@10 identical, ERR@20 to gdeval's 5 decimals).
4. A many-topics sparse-qrels track: 20 runs x 7000 topics x 100
   documents, ~1700 judgments per topic of which at most 200 retrieved by any
   run (``gen_track.py --fill-judged``; ~12 M qrels lines, 290 MB, ~50 s to
   generate once): ``bvtest eval -j 2`` (once) against the trec_eval loop. The
   trec_eval loop reads the 12 M-line qrels once per run (~4 s CPU each), so by
   default it is timed on the first ``--many-sample`` runs (4) and scaled
   linearly to all 20 runs (each run is an independent trec_eval process);
   ``--many-sample 0`` times all of them. ``--no-many`` skips this track.
5. Start-up: ``bvtest --version`` and ``bvtest --help`` against ``python -c
   pass`` (same interpreter), median wall and CPU of ``--startup-repeat`` (9).

Goals are printed PASS/MISS beside each figure; ``--check`` exits 1 on a MISS.

``--extras`` also times ``bvtest rankings`` on the same track,
``bvtest compare --pairs all`` (goal ≤ 5 s) and ``bvtest sensitivity`` (goal
≤ 30 s) on one measure of 129 runs x 50 topics, ``bvtest judges`` on TREC
2003 Robust with three simulated judges and ``--human-topics`` over five n at
200 draws (bench/bench_judges.py; goal ≤ 30 s; skipped without ../shared),
and ``bvtest eval --ci 0.95 --bootstrap 1000`` against ``bvtest eval`` on the
track's scores, and
runs bench/bench_grouping.py, bench/bench_pertopic.py, bench/bench_rankings.py
and bench/bench_ci.py (the bootstrap of every field and of all 8256 pairs for
B = 1000 and 10000, percentile and BCa).

depth-10 and depth-20 pools of the track (``bvtest pool``, cached
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
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench_judges import judges_bench

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".bench-cache"
TARGET_SPEEDUP, TARGET_WALL, TARGET_RSS_MIB = 10.0, 5.0, 1024.0
# The goals: ratios to the trec_eval loop, summed memory, start-up.
TARGET_TREC_EVAL, TARGET_MANY, TARGET_MANY_PSS_MIB, TARGET_STARTUP = 0.15, 0.1, 1024.0, 0.15
MANY = {"runs": 20, "topics": 7000, "depth": 100, "judged": 1700, "fill_judged": True}
SAMPLE_EVERY = 0.05  # seconds between memory samples (at first; see measure)
SAMPLE_MAX_EVERY = 0.5


@dataclass(frozen=True)
class Measured:
    wall: float  # seconds
    cpu: float  # user + system seconds of the command and its descendants
    rss: float  # MiB, largest resident set of one process
    pss: float | None  # MiB, peak of the summed PSS of all processes (Linux)
    stderr: str = ""  # its last 2000 characters


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids.extend(int(k) for k in f.read().split())
    except OSError:
        pass
    return kids


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass  # the process ended between listing and reading
    return 0


def _tree_pss_kib(root: int) -> int:
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss_kib(pid)
        todo.extend(_children(pid))
    return total


def measure(cmd: list[str], *, memory: bool = True) -> Measured:
    """Wall, CPU and memory of one run of ``cmd``, stdout to /dev/null."""
    can_sample = memory and os.path.exists(f"/proc/{os.getpid()}/smaps_rollup")
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    err = b""
    if can_sample:
        # stderr is drained by a thread so that a chatty command never blocks
        chunks: list[bytes] = []
        reader = threading.Thread(target=lambda: chunks.append(proc.stderr.read()))
        reader.start()
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _tree_pss_kib(proc.pid))
            # reading smaps_rollup walks the page tables of every process (and
            # holds their memory locks): a long command is sampled less often,
            # so that the sampling does not slow it (at 50 ms, budget took a
            # fifth longer)
            time.sleep(min(SAMPLE_MAX_EVERY, max(SAMPLE_EVERY, (time.perf_counter() - t) / 100)))
        reader.join()
        err = b"".join(chunks)
    else:
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    if proc.returncode != 0:
        tail = err.decode(errors="replace")[-2000:]
        sys.exit(f"bench: {' '.join(cmd)} failed (exit {proc.returncode}):\n{tail}")
    scale = 1024 * 1024 if platform.system() == "Darwin" else 1024  # bytes vs KiB
    return Measured(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        rss=usage.ru_maxrss / scale,
        pss=peak / 1024 if can_sample else None,
        stderr=err.decode(errors="replace")[-2000:],
    )


def track(params: dict) -> Path:
    """The cached synthetic track, generated on first use."""
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


def trec_eval_binary() -> str | None:
    """trec_eval from PATH, else built from the shared source (tests/trec_ref.py)."""
    found = shutil.which("trec_eval")
    if found is not None:
        return found
    sys.path.insert(0, str(REPO / "tests"))
    try:
        import trec_ref  # its builder; importing it needs pytest (conftest)

        built = trec_ref.trec_eval_binary()
    except Exception as e:  # any failure only skips the trec_eval baseline
        print(f"bench: trec_eval cannot be built ({type(e).__name__}: {e}); skipped")
        return None
    finally:
        sys.path.remove(str(REPO / "tests"))
    return None if built is None else str(built)


def trec_eval_loop_child(binary: str, qrels: str, runs_dir: str, limit: str) -> None:
    """The trec_eval baseline: one trec_eval process per run file, in turn."""
    names = sorted(n for n in os.listdir(runs_dir) if not n.startswith("."))
    if int(limit) > 0:
        names = names[: int(limit)]
    failed = 0
    for name in names:
        cmd = [binary, "-m", "map", "-m", "ndcg_cut.10", qrels, os.path.join(runs_dir, name)]
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        failed += proc.returncode != 0
    # This trec_eval build refuses a run that lacks one of the qrels' topics
    # ("result qid not found in qrels", after reading both files): counted, not fatal.
    sys.stderr.write(f"{failed} of {len(names)}\n")


def trec_eval_loop(binary: str, qrels: Path, runs: Path, limit: int = 0) -> Measured:
    m = measure(
        [sys.executable, __file__, "--trec-eval-child", binary, str(qrels), str(runs), str(limit)],
        memory=False,
    )
    failed = m.stderr.split()
    if failed and failed[0] != "0":
        print(f"  ({' '.join(failed)} trec_eval runs exited non-zero: a run lacks a qrels topic)")
    return m


def measure_cpu(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak memory in MiB, CPU seconds of all its processes).

    Memory is the sampled peak PSS of the process tree where /proc allows:
    wait4's ru_maxrss of a child can report the high-water mark its forking
    parent had (Linux keeps it across fork and exec), so it is not the command's."""
    m = measure(cmd)
    return m.wall, m.rss if m.pss is None else m.pss, m.cpu


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


CI_TARGET_ADDED = 2.0  # --ci with B = 1000 adds under 2 s to eval


def bench_ci_cli(bvtest: str, qrels: Path, runs: Path, repeat: int) -> bool:
    """what ``--ci 0.95 --bootstrap 1000`` adds to ``bvtest eval``.

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
        line = f"{name:<28} : {wall:6.2f} s wall, {cpu:6.2f} s cpu, peak {rss:6.1f} MiB"
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


HTML_TARGET = 1.2  # the page costs under 20 % more than the JSON


def html_bench(bvtest: str, qrels: Path, runs: Path, repeat: int, goal) -> None:
    """``bvtest eval -f html`` against ``-f json`` on the track, whole
    commands (reading and evaluating included), interleaved runs, medians;
    and the same two from a scores file, where rendering is a larger share."""
    with tempfile.TemporaryDirectory() as tmp:
        scores = Path(tmp) / "scores.tsv"
        with scores.open("w") as out:
            subprocess.run(
                [bvtest, "scores", "--quiet", str(qrels), str(runs)], stdout=out, check=True
            )
        for label, source in (
            ("runs", [str(qrels), str(runs)]),
            ("scores file", ["--scores", str(scores)]),
        ):
            times: dict[str, list[tuple[float, float, float]]] = {"json": [], "html": []}
            for _ in range(repeat):
                for fmt in times:
                    times[fmt].append(measure_cpu([bvtest, "eval", "--quiet", "-f", fmt, *source]))
            wall = {f: statistics.median(t[0] for t in v) for f, v in times.items()}
            cpu = {f: statistics.median(t[2] for t in v) for f, v in times.items()}
            peak = {f: max(t[1] for t in v) for f, v in times.items()}
            ratio = wall["html"] / wall["json"]
            line = (
                f"eval -f html / -f json ({label}): {wall['html']:.2f} / {wall['json']:.2f} s "
                f"wall = {ratio:.3f} (CPU {cpu['html'] / cpu['json']:.3f}), peak "
                f"{peak['html']:.0f} / {peak['json']:.0f} MiB"
            )
            if label == "runs":
                line += "; " + goal(f"goal <= {HTML_TARGET}", ratio <= HTML_TARGET)
            print(line)


def memory_bench(track_dir: Path, repeat: int, goal) -> None:
    """``bvtest.evaluate`` on a PyTerrier-shaped DataFrame of the track's runs
    against the same runs' files, in one process (bench/bench_memory.py):
    at least 7 interleaved pairs, each under a second (over 3, the ratio of
    the medians moved by ±0.1 between runs of the case on one idle machine)."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        print("evaluate(frame) / evaluate(files): skipped (no pandas)")
        return
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    script = REPO / "bench" / "bench_memory.py"
    proc = subprocess.run(
        [sys.executable, str(script), str(track_dir), "--repeat", str(max(repeat, 7))],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    line = (proc.stdout.strip().splitlines() or [proc.stderr.strip()])[-1]
    ok = proc.returncode == 0
    print(goal(line.rsplit(";", 1)[0] + "; goal <= 1.0", ok))


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def median(values: list[Measured]) -> Measured:
    """Field-wise medians (wall, CPU) and maxima (memory) of repeated runs."""
    pss = [v.pss for v in values if v.pss is not None]
    return Measured(
        wall=statistics.median(v.wall for v in values),
        cpu=statistics.median(v.cpu for v in values),
        rss=max(v.rss for v in values),
        pss=max(pss) if pss else None,
    )


def mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f} MiB"


def rankings_bench(bvtest: str, track_dir: Path, repeat: int) -> bool:
    """`bvtest rankings` with two pooled collections, B = 1000, on
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
            "--bootstrap", str(samples), str(runs),
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
        f"  beyond evaluation          : {beyond:7.2f} s ({cpu - cpu1:.2f} s CPU), "
        f"peak memory (PSS) {rss:.1f} MiB, load average {os.getloadavg()[0]:.2f}; "
        f"target < {TARGET_WALL:.0f} s, < 1 GiB: {verdict(ok)}"
    )
    return ok


BUDGET_WALL_S, BUDGET_PSS_MIB = 60.0, 1024.0  # bvtest budget on the TREC-8-size track, 2 cores


def budget_bench(bvtest: str, track_dir: Path) -> bool:
    """`bvtest budget --engineered` on the track (129 runs plus 129
    engineered, 50 topics, R = 100 pps samples per budget, B = 1000,
    budgets 100 and 400, topic scales 1 and 4): Cormack & Grossman 2019's
    Experiment 1, whole: timed once, and its peak memory measured in a second run."""
    cmd = [
        bvtest, "budget", "--quiet", "--engineered", "--budget", "100,400", "--draws", "100",
        "--bootstrap", "1000", "-f", "json", str(track_dir / "qrels.txt"), str(track_dir / "runs"),
    ]  # fmt: skip
    # Timed in a run of its own: sampling the PSS of three processes of
    # ~650 MB walks their page tables under their memory locks, which slowed
    # this command by 10-15% even at one sample every half second.
    m = measure(cmd, memory=False)
    sampled = measure(cmd)
    pss = sampled.pss if sampled.pss is not None else sampled.rss
    ok = m.wall <= BUDGET_WALL_S and pss <= BUDGET_PSS_MIB
    print(
        f"bvtest budget --engineered   : {m.wall:7.1f} s wall, {m.cpu:.1f} s CPU; peak memory "
        f"(PSS, a second run) {pss:.0f} MiB (largest process {sampled.rss:.0f} MiB), load average "
        f"{os.getloadavg()[0]:.2f}; target <= {BUDGET_WALL_S:.0f} s, <= 1 GiB: {verdict(ok)}"
    )
    return ok


#: Goals of the many-systems commands on one measure of 129 runs x 50 topics.
MANY_SYSTEMS_WALL_S = {"compare": 5.0, "sensitivity": 30.0}


def many_systems_bench(bvtest: str, command: str, repeat: int) -> bool:
    """`bvtest compare --pairs all` (the randomization test without a floor,
    Holm, the mean's paired intervals) or `bvtest sensitivity` (randomization
    with Holm, B = 1000, swap rates at c = 5 … 25), defaults otherwise, on one
    measure of 129 runs x 50 topics: a long scores file of AP-like scores (run
    effects, topic difficulty, some zeros) from a seeded numpy generator."""
    import numpy as np

    rng = np.random.default_rng(np.random.SeedSequence(8, spawn_key=(0x5E,)))
    m, n = 129, 50
    x = rng.beta(1.5, 3.0, (m, n)) + rng.normal(0, 0.08, (m, 1)) + rng.normal(0, 0.15, (1, n))
    x = np.clip(x, 0.0, 1.0)
    x[rng.random((m, n)) < 0.08] = 0.0
    goal = MANY_SYSTEMS_WALL_S[command]
    with tempfile.TemporaryDirectory(prefix=f"{command}.") as tmp:
        scores = Path(tmp) / "scores.tsv"
        lines = (f"run{i:03d}\t{400 + t}\tAP\t{v!r}\n" for i, row in enumerate(x.tolist())
                 for t, v in enumerate(row))  # fmt: skip
        scores.write_text("".join(lines))
        cmd = [bvtest, command, "--quiet", "-f", "json", "--scores", str(scores)]
        cmd += ["--pairs", "all"] if command == "compare" else []
        timed = median([measure(cmd) for _ in range(repeat)])
    ok = timed.wall <= goal
    print(
        f"bvtest {command} (1 measure): {timed.wall:6.2f} s wall, {timed.cpu:.2f} s CPU, "
        f"median of {repeat}, 129 runs x 50 topics, largest process {timed.rss:.0f} MiB, "
        f"load average {os.getloadavg()[0]:.2f}; goal <= {goal:.0f} s: {verdict(ok)}"
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
    p.add_argument("--skip-baseline", action="store_true", help="no ir_measures loop")
    p.add_argument("--no-many", action="store_true", help="skip the many-topics track")
    p.add_argument(
        "--many-sample",
        type=int,
        default=4,
        help="runs of the many-topics track timed with trec_eval, scaled to all (0: all)",
    )
    p.add_argument("--startup-repeat", type=int, default=9, help="start-up runs (median)")
    p.add_argument(
        "--extras",
        action="store_true",
        help="also rankings, --ci and the grouping/pertopic/rankings/ci benches",
    )
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    p.add_argument(
        "--loop-child", nargs=3, metavar=("QRELS", "RUNS", "OUT"), help=argparse.SUPPRESS
    )
    p.add_argument("--trec-eval-child", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.loop_child:
        loop_child(*args.loop_child)
        return 0
    if args.trec_eval_child:
        trec_eval_loop_child(*args.trec_eval_child)
        return 0

    params = {
        "runs": args.runs,
        "topics": args.topics,
        "depth": args.depth,
        "judged": args.judged,
        "seed": args.seed,
    }
    out = track(params)
    qrels, runs = out / "qrels.txt", out / "runs"
    bvtest = bvtest_executable()
    trec_eval = trec_eval_binary()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    n_lines = sum(f.read_bytes().count(b"\n") for f in runs.iterdir())
    print(
        f"track   : {args.runs} runs x {args.topics} topics x {args.depth} docs "
        f"({n_lines:,} run lines) in {out.relative_to(REPO)}"
    )
    print(f"machine : {cpus} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    print(f"trec_eval: {trec_eval or 'not found and not buildable: its lines are skipped'}")
    checks: list[bool] = []

    def goal(label: str, ok: bool, cpu_ok: bool | None = None) -> str:
        """PASS/MISS on wall time (what --check gates), and on CPU time when
        given: on a loaded machine wall time also counts other processes."""
        checks.append(ok)
        return f"{label}: {verdict(ok)}" + ("" if cpu_ok is None else f" (CPU: {verdict(cpu_ok)})")

    default_cmd = [bvtest, "eval", str(qrels), str(runs)]
    serial_cmd = [bvtest, "eval", "-j", "1", str(qrels), str(runs)]
    # Warm-up (page cache) and the memory figures: sampled runs, not timed.
    fast_memory, serial_memory = measure(default_cmd), measure(serial_cmd)
    fast: list[Measured] = []
    serial: list[Measured] = []
    baseline = te = None
    with tempfile.TemporaryDirectory() as tmp:
        loop_tsv = Path(tmp) / "loop.tsv"
        for i in range(args.repeat):
            fast.append(measure(default_cmd, memory=False))
            serial.append(measure(serial_cmd, memory=False))
            if i == 0 and trec_eval is not None:  # between bvtest runs, to share the noise
                te = trec_eval_loop(trec_eval, qrels, runs)
            if i == 0 and not args.skip_baseline:
                baseline = measure(
                    [
                        sys.executable,
                        __file__,
                        "--loop-child",
                        str(qrels),
                        str(runs),
                        str(loop_tsv),
                    ],
                    memory=False,
                )
        agreement = None if baseline is None else compare(bvtest, qrels, runs, loop_tsv)
    print(f"load average {os.getloadavg()[0]:.2f} at end")

    f, s1 = median(fast), median(serial)
    procs = 1 + min(cpus or 1, args.runs)
    print()
    print(
        f"bvtest eval (default, -j {cpus}) : {f.wall:7.2f} s wall, {f.cpu:6.2f} s CPU, "
        f"median of {args.repeat} (min wall {min(m.wall for m in fast):.2f})"
    )
    print(
        f"bvtest eval -j 1             : {s1.wall:7.2f} s wall, {s1.cpu:6.2f} s CPU; "
        f"-j 1 / default wall = {s1.wall / f.wall:.2f}"
    )
    print(
        f"bvtest memory                : largest process {fast_memory.rss:.0f} MiB, summed PSS "
        f"peak {mib(fast_memory.pss)} over its {procs} processes ({mib(serial_memory.pss)} at -j 1)"
    )
    if te is not None:
        print(
            f"trec_eval loop (map, ndcg_cut.10): {te.wall:7.2f} s wall, {te.cpu:6.2f} s CPU "
            f"({args.runs} trec_eval processes)"
        )
        rw, rc = f.wall / te.wall, f.cpu / te.cpu
        print(
            f"bvtest / trec_eval loop      : {rw:7.3f} wall, {rc:.3f} CPU; "
            + goal(f"goal <= {TARGET_TREC_EVAL}x", rw <= TARGET_TREC_EVAL, rc <= TARGET_TREC_EVAL)
        )
    if baseline is not None:
        ratio = baseline.wall / f.wall
        print(
            f"ir_measures loop (baseline)  : {baseline.wall:7.2f} s wall, {baseline.cpu:6.2f} s "
            "CPU (AP, nDCG@10 by pytrec_eval, ERR@20 by gdeval.pl)"
        )
        print(
            f"speed-up                     : {ratio:7.1f}x wall, {baseline.cpu / f.cpu:.1f}x CPU "
            "(baseline / bvtest default); "
            + goal(
                f"goal >= {TARGET_SPEEDUP:.0f}x",
                ratio >= TARGET_SPEEDUP,
                baseline.cpu / f.cpu >= TARGET_SPEEDUP,
            )
        )
        print(f"agreement                    : {agreement}")
    print(goal(f"goal <= {TARGET_WALL:.0f} s wall          ", f.wall <= TARGET_WALL))
    largest = max(fast_memory.rss, serial_memory.rss)
    print(goal("goal <= 1 GiB largest process", largest <= TARGET_RSS_MIB))

    # the whole `bvtest pertopic` (k = 100), reading included, on the same track.
    pt = median(
        [
            measure([bvtest, "pertopic", "--quiet", str(qrels), str(runs)], memory=False)
            for _ in range(args.repeat)
        ]
    )
    print(
        f"bvtest pertopic (k=100)      : {pt.wall:7.2f} s wall, {pt.cpu:6.2f} s CPU, median of "
        f"{args.repeat}, largest process {pt.rss:.0f} MiB; "
        + goal(f"goal <= {TARGET_WALL:.0f} s", pt.wall <= TARGET_WALL)
    )

    html_bench(bvtest, qrels, runs, args.repeat, goal)
    memory_bench(out, args.repeat, goal)

    if not args.no_many:
        many_section(args, bvtest, trec_eval, goal)
    startup_section(args, bvtest, goal)

    if args.extras:
        checks.append(rankings_bench(bvtest, out, args.repeat))
        checks.append(budget_bench(bvtest, out))
        checks.append(many_systems_bench(bvtest, "compare", args.repeat))
        checks.append(many_systems_bench(bvtest, "sensitivity", args.repeat))
        checks.append(judges_bench(bvtest, args.repeat))

    extras = [
        (REPO / "bench" / "bench_grouping.py", []),
        (REPO / "bench" / "bench_pertopic.py", []),
        (REPO / "bench" / "bench_rankings.py", []),
        (
            REPO / "bench" / "bench_ci.py",
            ["--B", "1000", "10000", "--repeat", "1", "--compare", "--bounded", "2000", "8000"],
        ),
    ]
    present = [e for e, _ in extras if e.is_file()]
    if args.extras:
        checks.append(bench_ci_cli(bvtest, qrels, runs, args.repeat))
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        for script, script_args in extras:
            if script.is_file():
                print(f"\n== {script.relative_to(REPO)}", flush=True)
                subprocess.run([sys.executable, str(script), *script_args], env=env, check=False)
    elif present:
        names = ", ".join(str(e.relative_to(REPO)) for e in present)
        print(f"\n(not run: {names}; add --extras, or run them with PYTHONPATH=.)")
    return 1 if args.check and not all(checks) else 0


def many_section(args: argparse.Namespace, bvtest: str, trec_eval: str | None, goal) -> None:
    """20 runs x 7000 topics x 100 docs with sparse qrels, at -j 2."""
    params = {**MANY, "seed": args.seed}
    out = track(params)
    qrels, runs = out / "qrels.txt", out / "runs"
    n_qrels = qrels.read_bytes().count(b"\n")
    print(
        f"\n== many topics: {MANY['runs']} runs x {MANY['topics']} topics x {MANY['depth']} docs,"
        f" {n_qrels:,} qrels lines, in {out.relative_to(REPO)}"
    )
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    cmd = [bvtest, "eval", "-j", "2", str(qrels), str(runs)]
    memory = measure(cmd)  # sampled (and warms the page cache); then timed alone
    many = measure(cmd, memory=False)
    print(
        f"bvtest eval -j 2             : {many.wall:7.2f} s wall, {many.cpu:6.2f} s CPU; "
        f"largest process {memory.rss:.0f} MiB"
    )
    if memory.pss is not None:
        print(
            f"summed PSS peak (all procs)  : {memory.pss:7.0f} MiB; "
            + goal("goal <= 1 GiB", memory.pss <= TARGET_MANY_PSS_MIB)
        )
    if trec_eval is None:
        return
    k = args.many_sample if 0 < args.many_sample < MANY["runs"] else MANY["runs"]
    te = trec_eval_loop(trec_eval, qrels, runs, k)
    scale = MANY["runs"] / k
    sampled = f" (timed on {k} runs, x{scale:g})" if k < MANY["runs"] else ""
    wall, cpu = te.wall * scale, te.cpu * scale
    print(f"trec_eval loop (map, ndcg_cut.10): {wall:7.2f} s wall, {cpu:6.2f} s CPU{sampled}")
    rw, rc = many.wall / wall, many.cpu / cpu
    print(
        f"bvtest / trec_eval loop      : {rw:7.3f} wall, {rc:.3f} CPU; "
        + goal(f"goal <= {TARGET_MANY}x", rw <= TARGET_MANY, rc <= TARGET_MANY)
    )
    print(f"load average {os.getloadavg()[0]:.2f} at end")


def startup_section(args: argparse.Namespace, bvtest: str, goal) -> None:
    """interpreter start-up plus bvtest's imports, before any work."""
    print("\n== start-up")
    cases = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("bvtest --version", [bvtest, "--version"]),
        ("bvtest --help", [bvtest, "--help"]),
    ]
    base = None
    for label, cmd in cases:
        measure(cmd, memory=False)  # warm: .pyc files, page cache
        m = median([measure(cmd, memory=False) for _ in range(args.startup_repeat)])
        line = f"{label:<17}: {m.wall:6.3f} s wall, {m.cpu:6.3f} s CPU"
        if base is None:
            base = m
        else:
            line += f" (+{m.wall - base.wall:.3f} s over python); " + goal(
                f"goal <= {TARGET_STARTUP} s", m.wall <= TARGET_STARTUP, m.cpu <= TARGET_STARTUP
            )
        print(line + f"  [median of {args.startup_repeat}]")


if __name__ == "__main__":
    sys.exit(main())
