"""Runs from memory against runs from files: ``bvtest.evaluate`` on a
PyTerrier-shaped DataFrame (qid, docno, score, rank and a run-name column:
129 runs × 50 topics × 1000 rows on the bench track) against the same
runs' files, in one process, interleaved in pairs; the verdict is the
median of the pairs' ratios (each pair's two runs a second apart, so a
slow spell of a shared machine slows both), and the two reports' JSON
must be identical. The frame is built before the clock starts, as a user's
frame exists before they evaluate it.

    PYTHONPATH=. python bench/bench_memory.py TRACK_DIR [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path


def frame_of(runs: Path):
    import pandas as pd

    parts = []
    for path in sorted(runs.iterdir()):
        frame = pd.read_csv(
            path, sep=" ", header=None, names=["qid", "Q0", "docno", "rank", "score", "tag"],
            dtype={"qid": str, "docno": str},
        )  # fmt: skip
        frame["name"] = path.name
        parts.append(frame[["qid", "docno", "score", "rank", "name"]])
    return pd.concat(parts, ignore_index=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("track", type=Path)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--goal", type=float, default=1.0)
    args = p.parse_args()
    import bvtest

    qrels, runs = str(args.track / "qrels.txt"), args.track / "runs"
    frame = frame_of(runs)
    print(f"frame   : {len(frame):,} rows, {frame['name'].nunique()} runs", flush=True)
    times: dict[str, list[float]] = {"files": [], "frame": []}
    docs = {}
    for _ in range(args.repeat):
        for label, given in (("files", str(runs)), ("frame", frame)):
            start = time.perf_counter()
            report = bvtest.evaluate(qrels, given)
            times[label].append(time.perf_counter() - start)
            docs[label] = json.dumps(report.to_dict(), sort_keys=True)
    same = docs["files"] == docs["frame"]
    wall = {k: statistics.median(v) for k, v in times.items()}
    ratio = statistics.median(a / b for a, b in zip(times["frame"], times["files"], strict=True))
    ok = ratio <= args.goal and same
    print(
        f"evaluate(frame) / evaluate(files): {wall['frame']:.2f} / {wall['files']:.2f} s wall "
        f"(medians), median ratio of {args.repeat} pairs {ratio:.3f}; "
        f"JSON {'identical' if same else 'DIFFERENT'}; goal <= {args.goal}: "
        f"{'PASS' if ok else 'MISS'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
