"""Inputs of the query-variations analysis (docs/variations.md): qrels keyed by topic
expanded to variation ids, and the design (which topic and user slot each
evaluated variation belongs to). The map and weights files are read by
:mod:`bvtest_cli.io.maps`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...analyses.variations import Design
from ...errors import InputError, UsageError
from ...io.maps import Note, VariationMap, Weights, query_ids, read_variations, read_weights
from ...io.sources import STDIN, Inputs
from ...io.trec import QrelsFile, sort_topics
from ...measures.matrix import ScoreMatrix

if TYPE_CHECKING:
    from .params import VariationsParams

__all__ = [
    "Loaded",
    "build_design",
    "default_mode",
    "expand_qrels",
    "load",
    "query_ids",
    "split_map",
]


def _ignore(_: str) -> None:
    pass


# ---------------------------------------------------------------------------
# The variation map


def split_map(ids: Iterable[str], sep: str, note: Note = _ignore) -> VariationMap:
    """``--split SEP``: the topic of a variation id is its part before the last
    SEP (``201-4`` → ``201``). Ids without SEP, or with nothing before it,
    have no topic: they are left out, with one note."""
    if not sep:
        raise InputError("the --split separator is empty")
    topic: dict[str, str] = {}
    unmapped = 0
    for variation in ids:
        head, found, _ = variation.rpartition(sep)
        if found and head:
            topic[variation] = head
        else:
            unmapped += 1
    if unmapped:
        note(f"{unmapped} query id(s) hold no {sep!r} with a topic before it; ignored")
    if not topic:
        raise InputError(f"no query id holds the separator {sep!r}", "--split")
    return VariationMap(f"--split {sep}", topic)


def default_mode(vmap: VariationMap | None) -> str:
    """docs/variations.md: general when the map names users, intra with a map (or
    --split), inter without one."""
    if vmap is None:
        return "inter"
    return "general" if vmap.user is not None else "intra"


# ---------------------------------------------------------------------------
# Qrels by topic → qrels by variation


def expand_qrels(
    qrels_file: QrelsFile, vmap: VariationMap, rel_level: int = 1, note: Note = _ignore
) -> QrelsFile:
    """Qrels keyed by variation id: every variation gets its topic's judgments
    (docs/variations.md). Only topics with a relevant document (grade >= rel_level) are
    kept (docs/inputs.md); map topics without one, or absent from the qrels, are
    dropped with their variations (one note each rule)."""
    relevant = set(qrels_file.relevant_topics(rel_level))
    topics = dict.fromkeys(vmap.topic.values())
    absent = [t for t in topics if t not in qrels_file.qrels]
    norel = [t for t in topics if t in qrels_file.qrels and t not in relevant]
    per_topic = {t: 0 for t in topics}
    for t in vmap.topic.values():
        per_topic[t] += 1
    if absent:
        n_var = sum(per_topic[t] for t in absent)
        note(f"{len(absent)} map topic(s) are not in the qrels; their {n_var} variation(s) dropped")
    if norel:
        n_var = sum(per_topic[t] for t in norel)
        note(
            f"{len(norel)} topic(s) have no relevant document (rel >= {rel_level}); "
            f"their {n_var} variation(s) dropped"
        )
    unused = len(qrels_file.qrels.keys() - topics.keys())
    if unused:
        note(f"{unused} qrels topic(s) have no variation in the map; ignored")
    expanded = {v: qrels_file.qrels[t] for v, t in vmap.topic.items() if t in relevant}
    if not expanded:
        raise InputError(
            f"no topic of the map has a relevant document (rel >= {rel_level})", qrels_file.label
        )
    return QrelsFile(qrels_file.label, expanded, qrels_file.first_line_of_grade)


# ---------------------------------------------------------------------------
# The design of the evaluated matrix


def build_design(columns: Sequence[str], vmap: VariationMap | None, mode: str) -> Design:
    """Which topic (and user slot) each column of the per-variation matrix
    belongs to, checked against what ``mode`` needs (docs/variations.md):

    * inter: one query per topic (without a map the columns are the topics);
    * intra: any number of variations per topic (slots are their order);
    * general: a user column, and every user has exactly one query for
      every topic (Zuccon et al. 2016, §4.1: M users, each issuing one query
      per topic); otherwise an error that names a topic and suggests intra.
    """
    columns = tuple(columns)
    if vmap is None:
        if mode != "inter":
            raise InputError(f"{mode} mode needs query variations: give a map (or a split)")
        return Design.one_per_topic(columns)
    missing = [c for c in columns if c not in vmap.topic]
    if missing:
        raise ValueError(f"column {missing[0]!r} is not in the map")
    topic_names = tuple(sort_topics({vmap.topic[c] for c in columns}))
    index = {t: i for i, t in enumerate(topic_names)}
    topic_of = np.array([index[vmap.topic[c]] for c in columns], dtype=int)
    counts = np.bincount(topic_of, minlength=len(topic_names))

    if mode == "inter":
        many = np.flatnonzero(counts > 1)
        if many.size:
            t = topic_names[many[0]]
            raise InputError(
                f"inter mode needs one query per topic, but topic {t!r} has "
                f"{counts[many[0]]} variations; use --mode intra or general",
                vmap.label,
            )
        return Design(columns, topic_names, topic_of, np.zeros(len(columns), dtype=int), 1)

    if mode == "intra":
        slot_of = np.zeros(len(columns), dtype=int)
        seen = np.zeros(len(topic_names), dtype=int)
        for j, i in enumerate(topic_of.tolist()):
            slot_of[j] = seen[i]
            seen[i] += 1
        return Design(columns, topic_names, topic_of, slot_of, int(counts.max()))

    if mode != "general":
        raise ValueError(f"unknown mode {mode!r}")
    if vmap.user is None:
        raise InputError(
            "general mode needs a user column in the map ('variation topic user'); "
            "use --mode intra",
            vmap.label,
        )
    users = tuple(sort_topics({vmap.user[c] for c in columns}))
    if len(users) < 2:
        raise InputError("general mode needs at least 2 users in the map", vmap.label)
    u_index = {u: k for k, u in enumerate(users)}
    slot_of = np.array([u_index[vmap.user[c]] for c in columns], dtype=int)
    owner: dict[tuple[int, int], str] = {}
    for c, i, k in zip(columns, topic_of.tolist(), slot_of.tolist(), strict=True):
        if (i, k) in owner:
            first = owner[(i, k)]
            raise InputError(
                f"user {users[k]!r} has two queries for topic {topic_names[i]!r} "
                f"({first!r} and {c!r}); general mode needs one per user and topic",
                *vmap.where(c),
            )
        owner[(i, k)] = c
    for i, t in enumerate(topic_names):
        if counts[i] < len(users):
            have = {k for (ti, k) in owner if ti == i}
            absent = next(u for k, u in enumerate(users) if k not in have)
            raise InputError(
                f"topic {t!r} has no query from user {absent!r}; general mode needs every "
                "user to query every topic (use --mode intra)",
                vmap.label,
            )
    return Design(columns, topic_names, topic_of, slot_of, len(users), users)


# ---------------------------------------------------------------------------
# Topic weights


# ---------------------------------------------------------------------------
# Everything `bvtest variations` reads, before the analysis


@dataclass(frozen=True)
class Loaded:
    """The inputs of ``bvtest variations``: one matrix per measure whose
    columns are variation ids (topic ids without a map), the map, the mode
    it is analysed in, the weights, and the notes about the inputs."""

    matrices: list[ScoreMatrix]
    vmap: VariationMap | None
    mode: str
    weights: Weights | None
    notes: list[str]


def _check_stdin(inputs: Inputs, p: VariationsParams) -> None:
    """Standard input can be read once: by one input, and not by a run that
    ``--split`` must read twice (query ids first, then the rankings)."""
    named = [inputs.qrels, *inputs.runs, inputs.scores, p.map, p.weights]
    if sum(1 for x in named if x == STDIN) > 1:
        raise UsageError("standard input (-) can be read only once")
    if p.split is not None and STDIN in inputs.runs:
        raise UsageError(
            "--split reads the runs' query ids before evaluating them: give run files, "
            "not standard input (or a --map)"
        )


def _check_mode(vmap: VariationMap | None, mode: str) -> None:
    """What the mode needs of the map, checked before anything is evaluated
    (build_design checks the rest on the evaluated variations)."""
    if vmap is None and mode != "inter":
        raise InputError(f"{mode} mode needs query variations: give --map FILE or --split SEP")
    if mode == "general" and vmap is not None and vmap.user is None:
        raise InputError(
            "general mode needs a user column in the map ('variation topic user'); "
            "use --mode intra",
            vmap.label,
        )


def load(inputs: Inputs, p: VariationsParams) -> Loaded:
    """QRELS + RUNS (qrels by topic, expanded to the variations of the map) or
    ``--scores FILE`` (the topic column holds variation ids) → one matrix per
    measure, with the notes of docs/inputs.md said of variations: variations in the
    runs but not in the map, topics without relevant documents, variations a
    run did not answer (they score 0)."""
    from ...defaults import DEFAULT_MEASURES
    from ...io.sources import expand_sources
    from ...io.trec import named_sources, read_qrels
    from ...measures.evaluate import Evaluation, evaluate_runs, how
    from ...measures.names import parse_measures
    from ...sections.inputs import load as load_scores

    if p.map is not None and p.split is not None:
        raise UsageError("give either --map FILE or --split SEP, not both")
    _check_stdin(inputs, p)
    e = Evaluation.of(p)
    notes: list[str] = []
    vmap = read_variations(p.map) if p.map is not None else None
    weights = read_weights(p.weights) if p.weights is not None else None

    if inputs.scores is not None:
        matrices, notes = load_scores(inputs, e)
        if p.split is not None:
            ids = dict.fromkeys(t for m in matrices for t in m.topics)
            vmap = split_map(ids, p.split, notes.append)
        mode = p.mode or default_mode(vmap)
        _check_mode(vmap, mode)
        if vmap is not None:
            matrices = _mapped_columns(matrices, vmap, p.split is None, notes.append)
    else:
        assert inputs.qrels is not None  # QRELS RUNS... or --scores (validate)
        specs = parse_measures(p.measures or DEFAULT_MEASURES, p.rel_level)
        sources = expand_sources(inputs.runs, notes.append)
        sources = named_sources(sources, p.name, notes.append)
        qrels_file = read_qrels(inputs.qrels)
        if p.split is not None:
            vmap = split_map(query_ids(sources), p.split, notes.append)
        mode = p.mode or default_mode(vmap)
        _check_mode(vmap, mode)
        qrels = qrels_file
        on_unknown = None
        if vmap is not None:
            qrels = expand_qrels(qrels_file, vmap, p.rel_level, notes.append)
            # Run queries absent from the expanded qrels are either not in the
            # map (said here; --split has said it of ids without SEP) or of a
            # topic that expand_qrels dropped, with its own note.
            from_file = p.split is None
            mapped = vmap.topic

            def on_unknown(ids: set[str]) -> None:
                unmapped = sum(1 for q in ids if q not in mapped)
                if unmapped and from_file:
                    notes.append(f"{unmapped} query id(s) in the runs are not in the map; ignored")

        matrices = evaluate_runs(
            qrels,
            sources,
            specs,
            **how(e, notes, len(sources)),
            unit="variations" if vmap is not None else "topics",
            on_unknown=on_unknown,
        )
    if weights is not None and mode == "intra":
        notes.append("topic weights are not used in intra mode (each topic is its own portfolio)")
        weights = None
    return Loaded(matrices, vmap, mode, weights, notes)


def _mapped_columns(
    matrices: Sequence[ScoreMatrix], vmap: VariationMap, say_unmapped: bool, note: Note
) -> list[ScoreMatrix]:
    """A scores file's matrices restricted to the variations of the map."""
    columns = dict.fromkeys(t for m in matrices for t in m.topics)
    unmapped = sum(1 for t in columns if t not in vmap.topic)
    if unmapped and say_unmapped:
        note(f"{unmapped} query id(s) in the scores file are not in the map; ignored")
    absent = sum(1 for v in vmap.topic if v not in columns)
    if absent:
        note(f"{absent} variation(s) of the map have no score in the scores file; left out")
    out = []
    for m in matrices:
        keep = np.array([t in vmap.topic for t in m.topics], dtype=bool)
        if not keep.any():
            raise InputError(f"{m.measure}: no query id of the scores file is in the map")
        topics = tuple(t for t, k in zip(m.topics, keep, strict=True) if k)
        out.append(ScoreMatrix(m.measure, m.systems, topics, m.values[:, keep]))
    return out
