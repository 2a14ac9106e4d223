"""Runs + qrels → one ScoreMatrix per measure (docs/measures.md, docs/inputs.md).

``evaluate_runs`` checks the measures and the grades, fixes the topic set,
reads and evaluates each run in one step, in parallel over runs when
``jobs > 1`` (forked workers, runs sent in small batches, only the per-topic
scores sent back), and collects the results in input order, so the output
does not depend on the number of jobs. :class:`Evaluation` is how a command
asks for it, and ``how`` turns that into the keywords.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import partial
from typing import Any

import numpy as np

from ..io.sources import Note, Qrels, Run, Source
from ..io.trec import QrelsFile, QrelsTable, RunColumns, read_run_columns, sort_topics
from .bridge import RunEvaluator, check_grades
from .matrix import ScoreMatrix
from .names import MeasureSpec, check_computable
from .parallel import RunWork, default_jobs, map_runs, progress
from .topics import check_shared_topics, list_topics, topic_set


@dataclass(frozen=True)
class RunScores:
    """What one worker sends back: per-topic scores, the run's topic ids and
    the sampling variances asked for (per measure name, topic → variance)."""

    scores: dict[str, dict[str, float]]
    topics: frozenset[str]
    variances: dict[str, dict[str, float]]


def _scorer(
    qrels: Qrels | QrelsTable,
    specs: Sequence[MeasureSpec],
    err_impl: str,
    impl: str = "fast",
    variances: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> RunWork:
    evaluator = RunEvaluator(
        qrels, specs, err_impl, impl, variances, max_docs=max_docs, judged_only=judged_only
    )

    def work(_: int, run: Run | RunColumns) -> RunScores:
        topics = run.topics if isinstance(run, RunColumns) else run
        scores, v = evaluator.calc_with_variances(run)
        return RunScores(scores, frozenset(topics), v)

    return work


def _warm_up() -> None:
    """What the analyses after an evaluation import, imported while the
    workers evaluate the runs (0.2-0.3 s that would otherwise run alone
    after them): scipy.special, for the normal and t distributions."""
    import scipy.special  # noqa: F401


def evaluate_runs(
    qrels_file: QrelsFile,
    sources: Sequence[Source],
    specs: Sequence[MeasureSpec],
    *,
    rel_level: int = 1,
    jobs: int = 1,
    err_impl: str = "fast",
    impl: str = "fast",
    note: Note = lambda _: None,
    tick: Callable[[], None] = lambda: None,
    unit: str = "topics",
    on_unknown: Callable[[set[str]], None] | None = None,
    topic_set_rule: str = "judged",
    sampling_variances: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> list[ScoreMatrix]:
    """Evaluate every run and build one ScoreMatrix per measure (docs/inputs.md).

    Topic set (``topic_set_rule``): "judged", the qrels topics with at least
    one document of grade >= rel_level, or "all", every qrels topic; a run
    without a ranking for such a topic scores 0 there (trec_eval -c); run
    topics absent from the qrels are ignored. ``max_docs`` (trec_eval -M)
    keeps the first N documents of each ranking, ``judged_only`` (-J) then
    removes the unjudged ones, before any measure. Each rule is reported once.
    ``unit`` names the qrels' keys in the notes ("variations" when they are
    query variations); ``on_unknown``, if given, receives the run topics absent
    from the qrels instead of the generic note (a caller that knows why they
    are absent says so). ``sampling_variances``: the matrices of statAP and
    xinfAP also hold each estimate's sampling variance (0 where a run has no
    ranking: it scores 0 whatever the sample), computed as each run is read.
    """
    for spec in specs:
        check_computable(spec)
    check_grades(qrels_file, specs)
    strata = qrels_file.table.strata if qrels_file.stratified else ()
    if len(strata) > 1 and any(spec.name.split("(")[0] == "infAP" for spec in specs):
        note(
            f"infAP: a sample of {len(strata)} strata; trec_eval's infAP estimates as if every "
            "listed document had one inclusion probability (it ignores the strata) and is "
            "biased there: -m xinfAP (NIST's sample_eval.pl) or -m statAP use them"
        )
    topics = topic_set(qrels_file, rel_level, note, rule=topic_set_rule)

    # The qrels table is built here, before the workers fork: they share its
    # arrays instead of each building its own evaluator over a dict.
    make_work = partial(
        _scorer, qrels_file.table, list(specs), err_impl, impl, sampling_variances,
        max_docs, judged_only,
    )  # fmt: skip
    results: list[RunScores] = map_runs(
        sources, make_work, jobs=jobs, tick=tick, reader=read_run_columns, meanwhile=_warm_up
    )

    wanted = set(topics)
    check_shared_topics(
        qrels_file.label, topics, [s.name for s in sources], [r.topics for r in results]
    )
    unknown: set[str] = set()
    for source, r in zip(sources, results, strict=True):
        unknown |= r.topics - qrels_file.table.topic_index.keys()
        missing = len(wanted - r.topics)
        if missing == len(topics):
            note(
                f"{source.name}: no ranking for any of the {len(topics)} {unit} (its {unit}: "
                f"{list_topics(sort_topics(r.topics))}); it scores 0 on every one"
            )
        elif missing:
            note(f"{source.name}: no ranking for {missing} of {len(topics)} {unit}; they score 0")
    if on_unknown is not None:
        on_unknown(unknown)
    elif unknown:
        note(
            f"{len(unknown)} topic(s) in the runs are not in the qrels; "
            f"ignored: {list_topics(sort_topics(unknown))}"
        )

    systems = tuple(source.name for source in sources)
    matrices = []

    def matrix(per_run: list[dict[str, float]]) -> np.ndarray:
        return np.array(
            [[by_topic.get(t, 0.0) for t in topics] for by_topic in per_run], dtype=float
        ).reshape(len(results), len(topics))

    for spec in specs:
        values = matrix([r.scores[spec.name] for r in results])
        variance = None
        if results and spec.name in results[0].variances:
            variance = matrix([r.variances[spec.name] for r in results])
        matrices.append(ScoreMatrix(spec.name, systems, tuple(topics), values, variance))
    return matrices


# ---------------------------------------------------------------------------
# The evaluation options of a command


@dataclass(frozen=True)
class Evaluation:
    """How a command evaluates its runs: its evaluation options (``-m``,
    ``-l``, ``--topic-set``, ``-j``, ``--impl``, ``--err-impl``, ``-q``,
    ``--name``; eval's ``-M``, ``-J``). A command that does not take one has
    its default (the option's, which a test checks)."""

    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None  # the old spelling, said in a note
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    quiet: bool = False
    name: str = "file"
    max_docs: int | None = None
    judged_only: bool = False

    @classmethod
    def of(cls, params: object) -> Evaluation:
        """The evaluation options among a command's parameters."""
        return cls(
            **{f.name: getattr(params, f.name) for f in fields(cls) if hasattr(params, f.name)}
        )


def how(e: Evaluation, notes: list[str], n_runs: int) -> dict[str, Any]:
    """The evaluation options ``e`` as keywords of :func:`evaluate_runs`
    (and of the evaluators built on it): level, jobs, implementations, notes,
    progress."""
    chosen = {
        "rel_level": e.rel_level,
        "jobs": e.jobs or default_jobs(),
        "err_impl": e.err_impl,
        "impl": e.impl,
        "note": notes.append,
        "tick": progress(n_runs, e.quiet),
    }
    # Only when asked: `rankings` (whose topics are its reference's) never
    # is, and only eval takes -M and -J.
    if e.topic_set != "judged":
        chosen["topic_set_rule"] = e.topic_set
    if e.max_docs is not None:
        chosen["max_docs"] = e.max_docs
    if e.judged_only:
        chosen["judged_only"] = True
    if e.sampled_topics is not None:  # copied to topic_set by the option table
        notes.append(
            "--sampled-topics is the old spelling of --topic-set: use --topic-set; "
            "--sampled-topics goes in the next release"
        )
    return chosen
