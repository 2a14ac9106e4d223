"""Independent references for evaluation tests.

* A small pure-Python implementation of trec_eval's rules, written from
  trec_eval 10.0's source (form_res_rels.c, m_map.c, m_ndcg_cut.c), sharing
  no code with bvtest: rank by score descending as a double, ties by docno
  descending compared as bytes (``strcmp``); AP = sum of precision at each
  relevant retrieved document / number of relevant documents; nDCG@k with
  gain = grade (grades > 0 only), discount log2(rank + 1) and the ideal
  ranking built from the qrels' grades.
* The trec_eval C binary, built once from ../shared/tools/trec_eval-src.tar.gz
  into .bench-cache/trec_eval (git-ignored) under a file lock beside it, so
  that parallel test workers build it once; None when the tarball, ``make``
  or a C compiler is absent, so that tests skip cleanly.
"""

from __future__ import annotations

import fcntl
import math
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path

from conftest import REPO, SHARED

Run = Mapping[str, Mapping[bytes, float]]  # topic → docno bytes → score
Qrels = Mapping[str, Mapping[bytes, int]]  # topic → docno bytes → grade


def ranking(docs: Mapping[bytes, float]) -> list[bytes]:
    """trec_eval's order: score descending, then docno descending (byte order)."""
    return sorted(docs, key=lambda d: (docs[d], d), reverse=True)


def average_precision(judged: Mapping[bytes, int], docs: Mapping[bytes, float], level: int = 1):
    """AP with relevant ⇔ judged and grade >= level; 0 without relevant documents."""
    relevant = {d for d, g in judged.items() if g >= level}
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    for i, d in enumerate(ranking(docs)):
        if d in relevant:
            hits += 1
            total += hits / (i + 1)
    return total / len(relevant)


def ndcg_cut(judged: Mapping[bytes, int], docs: Mapping[bytes, float], k: int = 10) -> float:
    """trec_eval's ndcg_cut.k: gain = grade for grade > 0, log2 discount, ideal
    from the qrels' positive grades; 0 when the ideal is 0."""
    dcg = sum(
        judged.get(d, 0) / math.log2(i + 2)
        for i, d in enumerate(ranking(docs)[:k])
        if judged.get(d, 0) > 0
    )
    ideal_grades = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_grades))
    return dcg / ideal if ideal > 0 else 0.0


def write_run(path: Path, run: Run) -> None:
    """Scores written with repr: atof reads back the same double."""
    lines = [
        t.encode() + b" Q0 " + d + b" %d " % (i + 1) + repr(s).encode() + b" ref\n"
        for t, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    ]
    path.write_bytes(b"".join(lines))


def write_qrels(path: Path, qrels: Qrels) -> None:
    lines = [
        t.encode() + b" 0 " + d + b" %d\n" % g for t, docs in qrels.items() for d, g in docs.items()
    ]
    path.write_bytes(b"".join(lines))


_BUILT: list[Path | None] = []


def trec_eval_binary() -> Path | None:
    """The trec_eval binary, built on first use; None if it cannot be built."""
    if _BUILT:
        return _BUILT[0]
    _BUILT.append(_build())
    return _BUILT[0]


def _build() -> Path | None:
    tarball = SHARED / "tools" / "trec_eval-src.tar.gz"
    target = REPO / ".bench-cache" / "trec_eval" / "trec_eval"
    if _usable(target):
        return target
    if not tarball.is_file() or shutil.which("make") is None:
        return None
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        return None
    target.parent.parent.mkdir(parents=True, exist_ok=True)
    # One builder at a time: pytest-xdist's workers (and `make bench`) may all
    # want the binary at once; the others wait here and then find it built.
    with open(target.parent.parent / "trec_eval.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _usable(target):
            return target
        with tempfile.TemporaryDirectory(dir=target.parent.parent) as tmp:
            with tarfile.open(tarball) as tar:
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                tar.extractall(tmp, **safe)
            proc = subprocess.run(
                ["make", "-C", str(Path(tmp) / "trec_eval")], capture_output=True, timeout=300
            )
            built = Path(tmp) / "trec_eval" / "trec_eval"
            if proc.returncode != 0 or not built.is_file():
                return None
            # A directory without its binary (emptied by hand, say) would
            # make the rename fail.
            shutil.rmtree(target.parent, ignore_errors=True)
            os.replace(Path(tmp) / "trec_eval", target.parent)
    return target


def _usable(binary: Path) -> bool:
    """Present and executable: the built directory appears whole (one rename)."""
    return binary.is_file() and os.access(binary, os.X_OK)


def trec_eval_per_topic(
    binary: Path, qrels: Path, run: Path, measures: list[str], level: int = 1
) -> dict[tuple[str, str], float] | None:
    """(trec_eval measure, topic) → value from ``trec_eval -q -l level``; None
    when trec_eval fails (with ``-l 0`` it stops at a qrels topic the run lacks
    or whose judgments are all negative)."""
    args = [a for m in measures for a in ("-m", m)]
    proc = subprocess.run(
        [str(binary), "-q", "-l", str(level), *args, str(qrels), str(run)],
        capture_output=True,
        timeout=120,
    )
    if proc.returncode != 0:
        return None
    out: dict[tuple[str, str], float] = {}
    for line in proc.stdout.decode().splitlines():
        name, topic, value = line.split()
        if topic != "all":
            out[(name, topic)] = float(value)
    return out
