#!/usr/bin/env python3
"""Seeded generator of a synthetic TREC ad hoc track (runs + graded qrels).

The bundled sample track (``sample_runs/`` and ``qrels/qrels.txt``) is made,
from the repository root, by exactly::

    python tools/gen_track.py --qrels-out qrels/qrels.txt --runs-out sample_runs

(all other options at their defaults: 12 runs, 30 topics, depth 100..1000,
about 400 judgments per topic, seed 42). The TREC-8-size benchmark track is::

    python tools/gen_track.py --out CACHE_DIR --runs 129 --topics 50 --depth 1000 --judged 1700

and the many-topics sparse-qrels benchmark track is::

    python tools/gen_track.py --out CACHE_DIR --runs 20 --topics 7000 --depth 100 \
        --judged 1700 --fill-judged

which write ``CACHE_DIR/qrels.txt`` and ``CACHE_DIR/runs/<name>``. From Python,
call :func:`generate` with the same parameters.

Output format
-------------
* Runs: ``qid Q0 docno rank score tag`` with tag = run name = file name
  (``sys001`` ...; ``sys001.gz`` with ``--gz``). Scores are printed with
  ``%.6f``; ranks are 1..n in trec_eval order: score descending, ties broken by
  docno *descending* (trec_eval's ``comp_sim_docno``), so the rank column agrees
  with the order trec_eval uses.
* Qrels: ``qid 0 docno grade`` with graded relevance 0..4, sorted by topic and
  docno. Topic ids are ``401``, ``402``, ... (TREC ad hoc style); docnos are
  ``DOC-SSSS-NNNNNN`` (segment, offset; lexicographic order = numeric order).

Generative model
----------------
For every topic *t* a candidate set of ``ceil(1.6 * d_t)`` documents is drawn
from a 5M-document collection, where ``d_t`` is the topic's ranking depth
(log-uniform in [min_depth, max_depth]; the smallest and largest draws are set
to exactly min_depth and max_depth). ``R_t`` candidates are relevant
(``R_t ≈ 6%`` of the candidates, log-normal spread, at least 2) with grades
1..4 drawn with probabilities .50/.27/.15/.08; the rest have grade 0.

Each system *i* has a quality ``q_i``, a per-topic volatility ``v_i`` and a
failure probability ``p_i``, all increasing with one latent percentile ``u_i``:
good systems are good on average but volatile (occasional topics near zero),
weak systems are mediocre but steady. Each topic has a difficulty ``δ_t``. On
topic *t* system *i* has the signal strength::

    a_it = max(0.02, q_i − δ_t + v_i · z_it),  z_it ~ N(0, 1)
    a_it ← 0.05 · a_it with probability p_i          (topic failure)

and scores candidate *k* by ``a_it · h(g_k) + f_k + ε_ik`` (``h`` increasing in
the grade, ``f_k`` a document effect shared by all systems so that systems
agree, ``ε`` independent noise), mapped through a system-specific positive
affine transform (different score scales). About one system in six prints
coarse scores rounded to 2 decimals, which produces many score ties. A system
returns the top ``d_t`` candidates of each topic. One run (chosen by the seed)
misses ``missing_topics`` (default 2) topics entirely.

Pooling: each topic is judged to about ``judged`` documents (±15%): the
candidates with the best (smallest) rank over all runs, i.e. depth-k pooling
with a partially judged last level, plus a few relevant documents that no run
retrieved (drawn outside the candidate set; mimics manual runs / interactive
judging). Relevant candidates outside the pool stay unjudged.

Every topic has at least one judged relevant document, **except** the last
``norel_topics`` topic ids (default 1, i.e. topic 430 in the sample track):
all of their judgments are grade 0, which exercises the rule that topics with
no relevant documents are dropped. With the defaults, AP on the sample track
shows the effectiveness–stability tradeoff: the Pearson correlation across
systems of Bias² and Var is clearly negative.

Query variations
----------------
With ``variations=V`` (``--variations V``) the track is UQV100-like: every
topic is expressed by V queries, one by each of the users ``u01`` .. ``uV``,
with query ids ``401-1`` .. ``401-V``. The runs rank documents for these
query ids; ``map.txt`` (next to the qrels file, or ``--map-out``) holds the
lines ``401-1 401 u01``; the qrels stay keyed by topic (``401``), pooled over
every query of the topic. User u writes queries of quality
``q_ut = s_u + N(0, 0.45²)`` with a skill ``s_u ~ N(0, 0.35²)`` shared by all
topics (so good users are good on every topic: covariance across topics);
system i has a sensitivity ``ψ_i ~ U(0.3, 1.7)`` to query quality, so
systems differ in how stable they are across variations. On query (t, u)::

    a_itu = max(0.02, q_i − δ_t + ψ_i q_ut + 0.5 v_i z_itu)

(topic failure as above), and each query sees the topic's document effect
plus its own ``N(0, 0.5²)`` per document (different queries find different
documents). One run skips ``missing_topics`` queries (variations it did not
answer), and the last ``norel_topics`` topics have no relevant document, as
in the plain track. Without ``variations`` nothing of this is drawn: the
plain track's bytes do not depend on this feature.

Determinism: one ``numpy.random.default_rng(seed)`` consumed in a fixed order,
fixed float formatting and sorted output; no time, hash order or platform
dependence. ``--gz`` writes gzip files with mtime 0 and no embedded name.
"""

from __future__ import annotations

import argparse
import gzip
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["SystemParams", "Track", "generate", "main"]

COLLECTION_SIZE = 5_000_000
CANDIDATE_FACTOR = 2.0
GRADE_PROBS = np.array([0.50, 0.27, 0.15, 0.08])  # grades 1..4 among relevant docs
GRADE_GAIN = np.array([0.0, 1.0, 1.3, 1.6, 1.9])  # h(g): how findable a grade-g doc is
MAX_UNRETRIEVED = 8  # spare ids per topic for relevant docs that no run retrieved
SCORE_UNIT = 1_000_000  # scores are handled as integers in units of 1e-6 (%.6f)


@dataclass(frozen=True)
class SystemParams:
    """Ground-truth parameters of one generated system."""

    name: str
    quality: float
    volatility: float
    fail_prob: float
    coarse: bool  # scores rounded to 2 decimals (many ties)


@dataclass
class Track:
    """What :func:`generate` wrote, with the generating parameters."""

    qrels_path: Path
    runs_dir: Path
    run_paths: list[Path]
    topic_ids: list[str]
    depths: dict[str, int]
    systems: list[SystemParams]
    missing: dict[str, list[str]] = field(default_factory=dict)  # run -> topics it skips
    norel_topics: list[str] = field(default_factory=list)
    n_judged: dict[str, int] = field(default_factory=dict)
    n_relevant: dict[str, int] = field(default_factory=dict)
    map_path: Path | None = None  # with variations: the ``variation topic user`` file
    variation_ids: dict[str, list[str]] = field(default_factory=dict)  # topic -> its query ids


def _docnos(gids: np.ndarray) -> np.ndarray:
    """Fixed-width docnos ``DOC-SSSS-NNNNNN`` as a bytes array (order = gid order).

    Built digit by digit in numpy (the many-topics track has ~12 M judged docs;
    formatting them one by one in Python took most of its generation time)."""
    g = np.asarray(gids, dtype=np.int64)
    out = np.empty((g.size, 15), dtype=np.uint8)
    out[:, :4] = np.frombuffer(b"DOC-", dtype=np.uint8)
    out[:, 8] = ord("-")
    seg, off = g // 100_000, g % 100_000
    for i, p in enumerate(range(3, -1, -1)):
        out[:, 4 + i] = (seg // 10**p) % 10 + ord("0")
    for i, p in enumerate(range(5, -1, -1)):
        out[:, 9 + i] = (off // 10**p) % 10 + ord("0")
    return out.view("S15").ravel()


def _int_strings(n: int) -> np.ndarray:
    """``b'0' .. b'n-1'`` as a bytes array (lookup table for ranks and integer parts)."""
    return np.array([str(k).encode() for k in range(n)])


_FRAC_TABLE: np.ndarray | None = None


def _frac_strings() -> np.ndarray:
    """Lookup table of the 10^6 six-digit fractional parts ``b'000000'..b'999999'``."""
    global _FRAC_TABLE
    if _FRAC_TABLE is None:
        k = np.arange(SCORE_UNIT, dtype=np.int64)
        digits = np.stack([(k // 10**p) % 10 for p in range(5, -1, -1)], axis=1)
        _FRAC_TABLE = (digits + ord("0")).astype(np.uint8).view("S6").ravel()
    return _FRAC_TABLE


# numpy >= 2 has the string ufuncs as np.strings; numpy 1.x (the declared floor)
# has the same add, element by element, as np.char.
_STRINGS = getattr(np, "strings", np.char)


def _join_columns(*cols: np.ndarray | bytes) -> bytes:
    """Concatenate byte columns element-wise and the rows into one buffer."""
    out = _STRINGS.add(cols[0], cols[1])
    for c in cols[2:]:
        out = _STRINGS.add(out, c)
    # fixed-width 'S' rows are NUL padded; TREC text never contains NUL
    return out.tobytes().replace(b"\x00", b"")


def _write(path: Path, data: bytes, gz: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if gz:
        with (
            open(path, "wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as f,
        ):
            f.write(data)
    else:
        path.write_bytes(data)


def _depths(rng: np.random.Generator, n: int, lo: int, hi: int) -> np.ndarray:
    u = rng.random(n)
    d = np.rint(np.exp(np.log(lo) + u**2 * (np.log(hi) - np.log(lo)))).astype(np.int64)
    if n >= 2 and hi > lo:
        d[np.argmin(u)] = lo
        d[np.argmax(u)] = hi
    return np.clip(d, lo, hi)


def _systems(rng: np.random.Generator, m: int) -> list[SystemParams]:
    u = (np.arange(m) + rng.random(m)) / m  # stratified percentiles: spread of qualities
    u = u[rng.permutation(m)]
    quality = 0.5 + 2.3 * u
    volatility = (0.12 + 1.0 * u**1.5) * rng.uniform(0.7, 1.3, m)
    fail_prob = 0.22 * u**2
    n_coarse = max(1, round(m / 6))
    coarse = np.zeros(m, dtype=bool)
    coarse[rng.choice(m, n_coarse, replace=False)] = True
    return [
        SystemParams(
            name=f"sys{i + 1:03d}",
            quality=round(float(quality[i]), 6),
            volatility=round(float(volatility[i]), 6),
            fail_prob=round(float(fail_prob[i]), 6),
            coarse=bool(coarse[i]),
        )
        for i in range(m)
    ]


def _candidates(
    rng: np.random.Generator, d: int, norel: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """One topic's candidate gids, spare gids (unretrieved relevant docs), the
    candidates' grades and their number of relevant ones."""
    k = math.ceil(CANDIDATE_FACTOR * d)
    gids = rng.choice(COLLECTION_SIZE, k + MAX_UNRETRIEVED, replace=False)
    cand, spare = gids[:k], gids[k:]
    grades = np.zeros(k, dtype=np.int64)
    if norel:
        n_rel = 0
    else:
        frac = float(np.clip(np.exp(rng.normal(np.log(0.06), 0.7)), 0.01, 0.3))
        n_rel = int(np.clip(round(frac * k), 2, k))
        rel_pos = rng.choice(k, n_rel, replace=False)
        grades[rel_pos] = 1 + rng.choice(4, n_rel, p=GRADE_PROBS)
    return cand, spare, grades, n_rel


def _rank(
    score: np.ndarray, coarse: np.ndarray, cand: np.ndarray, d: int
) -> tuple[np.ndarray, np.ndarray]:
    """Top-d candidate positions of every system (m, d), in trec_eval order, and
    the scores as integers in units of 1e-6 (coarse systems: 2 decimals)."""
    score_int = np.rint(score * SCORE_UNIT).astype(np.int64)
    score_int[coarse] = np.rint(score[coarse] * 100).astype(np.int64) * (SCORE_UNIT // 100)
    # trec_eval order: score descending, then docno descending (docno order = gid order)
    key = score_int * COLLECTION_SIZE + cand[None, :]
    order = np.argsort(-key, axis=1)[:, :d]  # keys are unique: any sort is deterministic
    return order, score_int


class _RunColumns:
    """Per run: the (qid, docno, rank, int part, frac part) columns of each ranking."""

    def __init__(self, m: int, max_depth: int):
        self.rank_str = _int_strings(max_depth + 1)
        self.frac_str = _frac_strings()
        self.ipart_str = _int_strings(1)
        self.cols: list[list[tuple[bytes, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = [
            [] for _ in range(m)
        ]

    def add(
        self,
        qid: bytes,
        docnos: np.ndarray,
        order: np.ndarray,
        score_int: np.ndarray,
        best_rank: np.ndarray,
        skip: list[bool],
    ) -> None:
        """One query's ranking for every system not in ``skip``; lowers
        ``best_rank`` (each candidate's best rank over runs) for pooling."""
        d = order.shape[1]
        ranks = np.arange(1, d + 1, dtype=np.int64)
        for i in range(len(self.cols)):
            if skip[i]:
                continue
            sel = order[i]
            np.minimum.at(best_rank, sel, ranks)
            s = score_int[i, sel]
            ip = s // SCORE_UNIT
            if ip.max() >= len(self.ipart_str):
                self.ipart_str = _int_strings(int(ip.max()) + 1)
            self.cols[i].append(
                (
                    qid,
                    docnos[sel],
                    self.rank_str[ranks],
                    self.ipart_str[ip],
                    self.frac_str[s % SCORE_UNIT],
                )
            )

    def write(self, runs_dir: Path, names: list[str], gz: bool) -> list[Path]:
        run_paths: list[Path] = []
        for name, cols in zip(names, self.cols, strict=True):
            if cols:
                qid = np.concatenate([np.full(len(c[1]), c[0]) for c in cols])
                data = _join_columns(
                    qid,
                    b" Q0 ",
                    np.concatenate([c[1] for c in cols]),
                    b" ",
                    np.concatenate([c[2] for c in cols]),
                    b" ",
                    np.concatenate([c[3] for c in cols]),
                    b".",
                    np.concatenate([c[4] for c in cols]),
                    b" " + name.encode() + b"\n",
                )
            else:
                data = b""
            path = runs_dir / (name + (".gz" if gz else ""))
            _write(path, data, gz)
            run_paths.append(path)
        return run_paths


def _pool(
    rng: np.random.Generator,
    best_rank: np.ndarray,
    cand: np.ndarray,
    grades: np.ndarray,
    spare: np.ndarray,
    n_rel: int,
    norel: bool,
    judged: int,
    fill: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Judged docs (gids sorted) and grades of one topic: best rank over all runs
    (depth-k pooling, partial last level) plus unretrieved relevant docs; with
    ``fill``, non-relevant docs no run retrieved make up the rest of the target."""
    target = max(10, round(judged * float(np.exp(rng.normal(0.0, 0.15)))))
    n_unret = 0 if norel else int(min(MAX_UNRETRIEVED, rng.poisson(0.05 * n_rel + 0.3)))
    retrieved = np.flatnonzero(best_rank < np.iinfo(np.int64).max)
    by_rank = retrieved[np.lexsort((cand[retrieved], best_rank[retrieved]))]
    pooled = by_rank[: max(0, target - n_unret)]
    if not norel and not (grades[pooled] > 0).any():
        n_unret = max(n_unret, 1)
    unret_grades = 1 + rng.choice(4, n_unret, p=GRADE_PROBS)
    q_gids = np.concatenate([cand[pooled], spare[:n_unret]])
    q_grades = np.concatenate([grades[pooled], unret_grades])
    n_fill = target - q_gids.size
    if fill and n_fill > 0:
        # Drawn from a second block of the collection (gids >= COLLECTION_SIZE),
        # disjoint from every candidate and spare: judged, never retrieved. Only
        # drawn with ``fill``, so the other tracks keep their random stream.
        extra = COLLECTION_SIZE + rng.choice(COLLECTION_SIZE, n_fill, replace=False)
        q_gids = np.concatenate([q_gids, extra])
        q_grades = np.concatenate([q_grades, np.zeros(n_fill, dtype=q_grades.dtype)])
    srt = np.argsort(q_gids)
    return q_gids[srt], q_grades[srt]


def _qrels_lines(qid: bytes, q_gids: np.ndarray, q_grades: np.ndarray) -> bytes:
    return _join_columns(qid + b" 0 ", _docnos(q_gids), b" ", _int_strings(5)[q_grades], b"\n")


def generate(
    out_dir: str | Path | None = None,
    *,
    runs: int = 12,
    topics: int = 30,
    depth: int | None = None,
    min_depth: int = 100,
    max_depth: int = 1000,
    judged: int = 400,
    seed: int = 42,
    gz: bool = False,
    norel_topics: int = 1,
    missing_topics: int = 2,
    qrels_out: str | Path | None = None,
    runs_out: str | Path | None = None,
    variations: int = 0,
    map_out: str | Path | None = None,
    fill_judged: bool = False,
) -> Track:
    """Generate a synthetic track and write it; see the module docstring.

    Writes ``out_dir/qrels.txt`` and ``out_dir/runs/<name>`` unless
    ``qrels_out`` (a file) / ``runs_out`` (a directory) are given. ``depth``
    fixes every topic's depth, otherwise it is drawn in [min_depth, max_depth].
    ``judged`` is the target number of judgments per topic (±15%, capped by the
    number of distinct retrieved documents). ``variations`` > 0 makes the
    UQV100-like track (see the module docstring) and writes the map to
    ``map_out`` (default: ``map.txt`` next to the qrels file); then
    ``missing_topics`` counts skipped queries. ``fill_judged`` makes sparse
    qrels: when the runs retrieve fewer distinct documents than ``judged``,
    non-relevant documents that no run retrieved make up the difference (the
    many-topics benchmark: 100 retrieved, ~1700 judged per topic). Same
    arguments → same bytes.
    """
    if runs < 1 or topics < 1:
        raise ValueError("runs and topics must be >= 1")
    if depth is not None:
        min_depth = max_depth = depth
    if not 1 <= min_depth <= max_depth:
        raise ValueError("need 1 <= min_depth <= max_depth")
    if judged < 1:
        raise ValueError("judged must be >= 1")
    if not 0 <= norel_topics < topics:
        raise ValueError("norel_topics must be in [0, topics)")
    if qrels_out is None or runs_out is None:
        if out_dir is None:
            raise ValueError("give out_dir, or both qrels_out and runs_out")
        out = Path(out_dir)
        qrels_path = Path(qrels_out) if qrels_out is not None else out / "qrels.txt"
        runs_dir = Path(runs_out) if runs_out is not None else out / "runs"
    else:
        qrels_path, runs_dir = Path(qrels_out), Path(runs_out)
    if variations < 0:
        raise ValueError("variations must be >= 0")
    if variations and fill_judged:
        raise ValueError("fill_judged is not supported with variations")
    if variations:
        map_path = Path(map_out) if map_out is not None else qrels_path.parent / "map.txt"
        return _generate_variations(
            qrels_path,
            runs_dir,
            map_path,
            runs=runs,
            topics=topics,
            variations=variations,
            min_depth=min_depth,
            max_depth=max_depth,
            judged=judged,
            seed=seed,
            gz=gz,
            norel_topics=norel_topics,
            missing_queries=missing_topics,
        )

    rng = np.random.default_rng(seed)
    m, n = runs, topics
    topic_ids = [str(401 + j) for j in range(n)]
    qid_bytes = [t.encode() for t in topic_ids]
    systems = _systems(rng, m)
    quality = np.array([s.quality for s in systems])
    volatility = np.array([s.volatility for s in systems])
    fail_prob = np.array([s.fail_prob for s in systems])
    coarse = np.array([s.coarse for s in systems])
    scale = rng.uniform(0.8, 3.0, m)  # per-system score scale and offset
    shift = rng.uniform(6.0, 9.0, m)
    difficulty = rng.normal(0.0, 0.55, n)
    depths = _depths(rng, n, min_depth, max_depth)
    norel = set(range(n - norel_topics, n))

    # one run skips a couple of topics (never a no-relevant topic)
    missing: dict[int, set[int]] = {}
    eligible = [j for j in range(n) if j not in norel]
    n_miss = min(missing_topics, len(eligible) - 1) if m > 1 else 0
    miss_run = int(rng.integers(m))
    if n_miss > 0:
        missing[miss_run] = {int(j) for j in rng.choice(eligible, n_miss, replace=False)}

    cols = _RunColumns(m, max_depth)
    qrels_chunks: list[bytes] = []
    n_judged: dict[str, int] = {}
    n_relevant: dict[str, int] = {}

    for j in range(n):
        d = int(depths[j])
        cand, spare, grades, n_rel = _candidates(rng, d, j in norel)
        k = len(cand)
        doc_effect = rng.normal(0.0, 0.8, k)

        z = rng.normal(0.0, 1.0, m)
        strength = np.maximum(0.02, quality - difficulty[j] + volatility * z)
        fail = rng.random(m) < fail_prob
        strength = np.where(fail, 0.05 * strength, strength)
        noise = rng.normal(0.0, 1.0, (m, k))
        raw = strength[:, None] * GRADE_GAIN[grades][None, :] + doc_effect[None, :] + noise
        score = np.maximum(0.0, scale[:, None] * (raw + shift[:, None]))  # BM25-like, >= 0
        order, score_int = _rank(score, coarse, cand, d)

        docnos = _docnos(cand)
        best_rank = np.full(k, np.iinfo(np.int64).max, dtype=np.int64)
        skip = [j in missing.get(i, ()) for i in range(m)]
        cols.add(qid_bytes[j], docnos, order, score_int, best_rank, skip)

        q_gids, q_grades = _pool(
            rng, best_rank, cand, grades, spare, n_rel, j in norel, judged, fill_judged
        )
        qrels_chunks.append(_qrels_lines(qid_bytes[j], q_gids, q_grades))
        n_judged[topic_ids[j]] = len(q_gids)
        n_relevant[topic_ids[j]] = int((q_grades > 0).sum())

    _write(qrels_path, b"".join(qrels_chunks), gz=False)
    run_paths = cols.write(runs_dir, [sp.name for sp in systems], gz)

    return Track(
        qrels_path=qrels_path,
        runs_dir=runs_dir,
        run_paths=run_paths,
        topic_ids=topic_ids,
        depths={topic_ids[j]: int(depths[j]) for j in range(n)},
        systems=systems,
        missing={systems[i].name: sorted(topic_ids[j] for j in ts) for i, ts in missing.items()},
        norel_topics=[topic_ids[j] for j in sorted(norel)],
        n_judged=n_judged,
        n_relevant=n_relevant,
    )


def _generate_variations(
    qrels_path: Path,
    runs_dir: Path,
    map_path: Path,
    *,
    runs: int,
    topics: int,
    variations: int,
    min_depth: int,
    max_depth: int,
    judged: int,
    seed: int,
    gz: bool,
    norel_topics: int,
    missing_queries: int,
) -> Track:
    """The UQV100-like track: V queries per topic by V users (module docstring)."""
    rng = np.random.default_rng(seed)
    m, n, nv = runs, topics, variations
    topic_ids = [str(401 + j) for j in range(n)]
    query_ids = [[f"{t}-{v + 1}" for v in range(nv)] for t in topic_ids]
    users = [f"u{v + 1:02d}" for v in range(nv)]
    systems = _systems(rng, m)
    quality = np.array([s.quality for s in systems])
    volatility = np.array([s.volatility for s in systems])
    fail_prob = np.array([s.fail_prob for s in systems])
    coarse = np.array([s.coarse for s in systems])
    scale = rng.uniform(0.8, 3.0, m)
    shift = rng.uniform(6.0, 9.0, m)
    difficulty = rng.normal(0.0, 0.55, n)
    depths = _depths(rng, n, min_depth, max_depth)
    norel = set(range(n - norel_topics, n))
    sensitivity = rng.uniform(0.3, 1.7, m)  # ψ_i: how much query quality matters
    skill = rng.normal(0.0, 0.35, nv)  # s_u, shared by every topic
    query_quality = skill[None, :] + rng.normal(0.0, 0.45, (n, nv))  # q_ut

    # one run skips a few queries (never of a no-relevant topic)
    eligible = [(j, v) for j in range(n) if j not in norel for v in range(nv)]
    n_miss = min(missing_queries, len(eligible) - 1) if m > 1 else 0
    miss_run = int(rng.integers(m))
    skipped: set[tuple[int, int]] = set()
    if n_miss > 0:
        skipped = {eligible[int(e)] for e in rng.choice(len(eligible), n_miss, replace=False)}

    cols = _RunColumns(m, max_depth)
    qrels_chunks: list[bytes] = []
    n_judged: dict[str, int] = {}
    n_relevant: dict[str, int] = {}
    for j in range(n):
        d = int(depths[j])
        cand, spare, grades, n_rel = _candidates(rng, d, j in norel)
        k = len(cand)
        doc_effect = rng.normal(0.0, 0.8, k)
        docnos = _docnos(cand)
        best_rank = np.full(k, np.iinfo(np.int64).max, dtype=np.int64)
        for v in range(nv):
            query_effect = doc_effect + rng.normal(0.0, 0.5, k)
            z = rng.normal(0.0, 1.0, m)
            strength = quality - difficulty[j] + sensitivity * query_quality[j, v]
            strength = np.maximum(0.02, strength + 0.5 * volatility * z)
            fail = rng.random(m) < fail_prob
            strength = np.where(fail, 0.05 * strength, strength)
            noise = rng.normal(0.0, 1.0, (m, k))
            raw = strength[:, None] * GRADE_GAIN[grades][None, :] + query_effect[None, :] + noise
            score = np.maximum(0.0, scale[:, None] * (raw + shift[:, None]))
            order, score_int = _rank(score, coarse, cand, d)
            skip = [i == miss_run and (j, v) in skipped for i in range(m)]
            cols.add(query_ids[j][v].encode(), docnos, order, score_int, best_rank, skip)
        q_gids, q_grades = _pool(rng, best_rank, cand, grades, spare, n_rel, j in norel, judged)
        qrels_chunks.append(_qrels_lines(topic_ids[j].encode(), q_gids, q_grades))
        n_judged[topic_ids[j]] = len(q_gids)
        n_relevant[topic_ids[j]] = int((q_grades > 0).sum())

    _write(qrels_path, b"".join(qrels_chunks), gz=False)
    map_lines = [
        f"{q} {t} {u}\n"
        for t, qs in zip(topic_ids, query_ids, strict=True)
        for q, u in zip(qs, users, strict=True)
    ]
    _write(map_path, "".join(map_lines).encode(), gz=False)
    run_paths = cols.write(runs_dir, [sp.name for sp in systems], gz)
    missing = {}
    if skipped:
        missing[systems[miss_run].name] = sorted(query_ids[j][v] for j, v in skipped)
    return Track(
        qrels_path=qrels_path,
        runs_dir=runs_dir,
        run_paths=run_paths,
        topic_ids=topic_ids,
        depths={topic_ids[j]: int(depths[j]) for j in range(n)},
        systems=systems,
        missing=missing,
        norel_topics=[topic_ids[j] for j in sorted(norel)],
        n_judged=n_judged,
        n_relevant=n_relevant,
        map_path=map_path,
        variation_ids=dict(zip(topic_ids, query_ids, strict=True)),
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description="Generate a seeded synthetic TREC track (runs + graded qrels).",
        epilog="Sample track: python tools/gen_track.py --qrels-out qrels/qrels.txt "
        "--runs-out sample_runs",
    )
    p.add_argument("--out", help="output directory: OUT/qrels.txt and OUT/runs/<name>")
    p.add_argument("--qrels-out", help="qrels file (overrides OUT/qrels.txt)")
    p.add_argument("--runs-out", help="runs directory (overrides OUT/runs)")
    p.add_argument("--runs", type=int, default=12, help="number of runs (default 12)")
    p.add_argument("--topics", type=int, default=30, help="number of topics (default 30)")
    p.add_argument("--depth", type=int, help="fixed ranking depth for every topic")
    p.add_argument("--min-depth", type=int, default=100, help="smallest topic depth (100)")
    p.add_argument("--max-depth", type=int, default=1000, help="largest topic depth (1000)")
    p.add_argument("--judged", type=int, default=400, help="judgments per topic (about; 400)")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    p.add_argument("--gz", action="store_true", help="gzip the run files (NAME.gz)")
    p.add_argument(
        "--norel-topics", type=int, default=1, help="last K topics get no relevant doc (1)"
    )
    p.add_argument(
        "--missing-topics", type=int, default=2, help="topics one run skips entirely (2)"
    )
    p.add_argument(
        "--variations",
        type=int,
        default=0,
        help="V queries per topic (UQV100-like: query ids 401-1.., a map file); default 0",
    )
    p.add_argument("--map-out", help="map file with --variations (default: next to the qrels)")
    p.add_argument(
        "--fill-judged",
        action="store_true",
        help="sparse qrels: judge unretrieved non-relevant docs up to --judged per topic",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    a = p.parse_args(argv)
    if a.out is None and (a.qrels_out is None or a.runs_out is None):
        p.error("give --out, or both --qrels-out and --runs-out")
    t0 = time.perf_counter()
    try:
        track = generate(
            a.out,
            runs=a.runs,
            topics=a.topics,
            depth=a.depth,
            min_depth=a.min_depth,
            max_depth=a.max_depth,
            judged=a.judged,
            seed=a.seed,
            gz=a.gz,
            norel_topics=a.norel_topics,
            missing_topics=a.missing_topics,
            qrels_out=a.qrels_out,
            runs_out=a.runs_out,
            variations=a.variations,
            map_out=a.map_out,
            fill_judged=a.fill_judged,
        )
    except ValueError as e:
        p.error(str(e))
    if not a.quiet:
        print(
            f"gen_track: {len(track.run_paths)} runs x {len(track.topic_ids)} topics -> "
            f"{track.runs_dir}, {sum(track.n_judged.values())} judgments -> "
            f"{track.qrels_path}"
            + (f", {a.variations} queries per topic -> {track.map_path}" if a.variations else "")
            + f" ({time.perf_counter() - t0:.2f}s)",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
