"""Runs evaluated under a reference qrels and several test collections at
once (``bvtest rankings``, ``bvtest budget``): every run read once, in the
process pool, and scored under every qrels file (docs/rankings.md). The
per-topic scores feed :func:`bvtest_cli.analyses.rankings.ranking_accuracy`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..errors import InputError
from ..io.sources import Note, Source
from ..io.trec import QrelsFile, QrelsTable, RunColumns, read_run_columns
from .bridge import RunEvaluator, check_grades
from .names import MeasureSpec, check_computable
from .parallel import map_runs
from .topics import check_shared_topics, list_topics, topic_set


@dataclass(frozen=True)
class CollectionScores:
    """Per-topic scores of one measure for :func:`ranking_accuracy`: the runs
    under the reference qrels (1, m, n) and under each test collection's
    qrels samples (s, m, n), all over the reference's topic set."""

    measure: str
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    reference: np.ndarray
    collections: dict[str, np.ndarray]


def _multi_scorer(
    tables: Sequence[QrelsTable], specs: Sequence[MeasureSpec], err_impl: str, impl: str
) -> Callable[[int, RunColumns], tuple[list[dict[str, dict[str, float]]], frozenset]]:
    evaluators = [RunEvaluator(t, specs, err_impl, impl) for t in tables]

    def work(_: int, run: RunColumns):
        # Scores of topics outside the reference's set are never read; the
        # run's own topics are sent back for the notes.
        return [e.calc(run) for e in evaluators], frozenset(run.topics)

    return work


def evaluate_collections(
    reference: QrelsFile,
    collections: Mapping[str, Sequence[QrelsFile]],
    sources: Sequence[Source],
    specs: Sequence[MeasureSpec],
    *,
    rel_level: int = 1,
    jobs: int = 1,
    err_impl: str = "fast",
    impl: str = "fast",
    note: Note = lambda _: None,
    tick: Callable[[], None] = lambda: None,
    topics: Sequence[str] | None = None,
) -> list[CollectionScores]:
    """Evaluate every run once under the reference and every test qrels file.

    Topics (docs/rankings.md): the reference's topics with a document of grade ≥
    ``rel_level``, or ``topics`` when given (``judges``: the judges' topics too,
    which the reference need not judge; there it scores 0). A topic that a
    test qrels file does not judge at all scores 0 for every run there, as
    unjudged (one note per file); a run without a
    ranking for a topic scores 0 (trec_eval -c), as in ``evaluate_runs``.
    """
    files = [reference] + [f for group in collections.values() for f in group]
    for spec in specs:
        check_computable(spec)
    for f in files:
        check_grades(f, specs)
    if topics is None:
        topics = topic_set(reference, rel_level, note, "reference")
    topics = list(topics)
    unjudged: list[InputError] = []
    for name, group in collections.items():
        if not group:
            raise InputError(f"collection {name!r} has no qrels file")
        for f in group:
            # a topic whose rows are all negative (a sample's -1: pooled, not
            # judged) has no judgment either
            table = f.table
            judged = np.zeros(len(table.topics), dtype=bool)
            judged[table.topic[table.grade >= 0]] = True
            absent = sum(
                t not in table.topic_index or not judged[table.topic_index[t]] for t in topics
            )
            if absent == len(topics):
                # Every run would score 0 on every topic: a wrong file, not a
                # collection (said after the runs are checked against the
                # reference, which may be the wrong file instead).
                unjudged.append(
                    InputError(
                        f"collection {name!r} judges none of the {len(topics)} reference "
                        f"topics ({list_topics(topics, 3)}); wrong qrels file?",
                        f.label,
                    )
                )
            elif absent:
                note(
                    f"{name} ({f.label}): {absent} of {len(topics)} topics have no judgments; "
                    "every run scores 0 there"
                )

    # The qrels tables are built here, before the workers fork: they share
    # them (as evaluate_runs does) instead of each building its own.
    make_work = partial(_multi_scorer, [f.table for f in files], list(specs), err_impl, impl)
    results = map_runs(sources, make_work, jobs=jobs, tick=tick, reader=read_run_columns)
    check_shared_topics(reference.label, topics, [s.name for s in sources], [r for _, r in results])
    if unjudged:
        raise unjudged[0]
    unknown: set[str] = set()
    known = set(topics) | reference.table.topic_index.keys()
    for source, (_, run_topics) in zip(sources, results, strict=True):
        unknown |= run_topics - known
        missing = len(set(topics) - run_topics)
        if missing:
            note(f"{source.name}: no ranking for {missing} of {len(topics)} topics; they score 0")
    if unknown:
        note(f"{len(unknown)} topic(s) in the runs are not in the reference qrels; ignored")

    systems = tuple(s.name for s in sources)
    out = []
    for spec in specs:
        cube = np.array(
            [
                [[r[q][spec.name].get(t, 0.0) if r[q] else 0.0 for t in topics] for r, _ in results]
                for q in range(len(files))
            ],
            dtype=float,
        ).reshape(len(files), len(systems), len(topics))
        groups, offset = {}, 1
        for name, group in collections.items():
            groups[name] = cube[offset : offset + len(group)]
            offset += len(group)
        out.append(CollectionScores(spec.name, systems, tuple(topics), cube[:1], groups))
    return out
