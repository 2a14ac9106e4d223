"""Runs + qrels → one ScoreMatrix per measure (SPEC §2–§3).

Per-topic scores come from ir_measures, except ERR@k, which ir_measures only
serves through gdeval.pl (a perl process per run, integer topic ids only).
ERR@k is computed by :mod:`bvtest_cli.gdeval`, a re-implementation proven
equal to gdeval's printed values; ``err_impl="perl"`` keeps the original path,
with topic ids mapped to integers and back so that any id works.

Each run file is read and evaluated in one step, in parallel over runs when
``jobs > 1`` (forked workers, runs sent in small batches, only the per-topic
scores sent back); results are collected in input order, so the output does
not depend on the number of jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import ir_measures
import numpy as np

from .errors import InputError
from .matrix import ScoreMatrix
from .options import DEFAULT_MEASURES, Settings
from .parallel import default_jobs, parallel_map, progress
from .trecio import (
    STDIN,
    Note,
    Qrels,
    QrelsFile,
    Run,
    Source,
    expand_sources,
    read_qrels,
    read_run,
    read_scores,
    sort_topics,
)

GDEVAL_MAX_GRADE = 4


@dataclass(frozen=True)
class MeasureSpec:
    """A measure as the user named it and as it is computed."""

    name: str  # printed name, e.g. "AP" or "nDCG@10"
    measure: ir_measures.Measure  # with the rel level applied
    err_cutoff: int | None  # k for ERR@k (served by the gdeval-exact path), else None


def parse_measures(texts: Iterable[str], rel_level: int = 1) -> list[MeasureSpec]:
    """Parse ``-m`` values (repeatable, comma-separated) in ir_measures syntax.

    ``-l L`` (SPEC §2) sets ``rel=L`` on every measure that takes ir_measures'
    ``rel`` parameter and was not given one explicitly.
    """
    names: list[str] = []
    for text in texts:
        names.extend(_split_measures(text))
    specs: list[MeasureSpec] = []
    for name in dict.fromkeys(names):
        try:
            measure = ir_measures.parse_measure(name)
        except (NameError, ValueError, SyntaxError, TypeError) as exc:
            raise InputError(f"unknown measure {name!r}: {exc}", "-m") from None
        shown = str(measure)
        if rel_level != 1 and "rel" in measure.SUPPORTED_PARAMS and "rel" not in measure.params:
            measure = measure(rel=rel_level)
        cutoff = None
        if measure.NAME == "ERR":
            cutoff = measure.params.get("cutoff")
            if cutoff is None:
                raise InputError("ERR needs a cutoff, e.g. ERR@20", "-m")
        specs.append(MeasureSpec(shown, measure, cutoff))
    if not specs:
        raise InputError("no measure given", "-m")
    return specs


def _split_measures(text: str) -> list[str]:
    """Split on commas that are not inside parentheses: ``AP(rel=2),P@10``."""
    parts, depth, current = [], 0, []
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def check_grades(qrels_file: QrelsFile, specs: Sequence[MeasureSpec]) -> None:
    """ERR (gdeval) defines gains for grades 0..4 only: a higher grade is an error."""
    if not any(s.err_cutoff for s in specs):
        return
    too_high = sorted(g for g in qrels_file.first_line_of_grade if g > GDEVAL_MAX_GRADE)
    if too_high:
        grade = too_high[0]
        raise InputError(
            f"grade {grade} is above {GDEVAL_MAX_GRADE}, the highest grade ERR (gdeval) accepts",
            qrels_file.label,
            qrels_file.first_line_of_grade[grade],
        )


class RunEvaluator:
    """Evaluates one run under every measure: topic → value per measure name."""

    def __init__(self, qrels: Qrels, specs: Sequence[MeasureSpec], err_impl: str = "fast"):
        self.specs = list(specs)
        plain = [s.measure for s in self.specs if s.err_cutoff is None]
        self._ir = ir_measures.evaluator(plain, qrels) if plain else None
        self._plain_names = {s.measure: s.name for s in self.specs if s.err_cutoff is None}
        err_specs = [s for s in self.specs if s.err_cutoff is not None]
        self._err: list[tuple[str, Callable[[Run], dict[str, float]]]] = []
        for s in err_specs:
            assert s.err_cutoff is not None
            calc = (
                _gdeval_perl(qrels, s.err_cutoff)
                if err_impl == "perl"
                else _gdeval_fast(qrels, s.err_cutoff)
            )
            self._err.append((s.name, calc))

    def calc(self, run: Run) -> dict[str, dict[str, float]]:
        scores: dict[str, dict[str, float]] = {s.name: {} for s in self.specs}
        if self._ir is not None:
            for metric in self._ir.iter_calc(run):
                scores[self._plain_names[metric.measure]][metric.query_id] = float(metric.value)
        for name, calc in self._err:
            scores[name] = calc(run)
        return scores


def _gdeval_fast(qrels: Qrels, cutoff: int) -> Callable[[Run], dict[str, float]]:
    from .gdeval import GdevalERR

    return GdevalERR(qrels, cutoff).calc


def _gdeval_perl(qrels: Qrels, cutoff: int) -> Callable[[Run], dict[str, float]]:
    """ERR@k through ir_measures' gdeval provider with topic ids mapped to
    integers: gdeval accepts only integer ids and strips everything up to a
    '-', so ``2024-1`` and ``2023-1`` would otherwise collide."""
    to_int = {topic: str(i + 1) for i, topic in enumerate(qrels)}
    from_int = {v: k for k, v in to_int.items()}
    mapped = {to_int[t]: docs for t, docs in qrels.items()}
    evaluator = ir_measures.gdeval.evaluator([ir_measures.ERR @ cutoff], mapped)

    def calc(run: Run) -> dict[str, float]:
        run_mapped = {to_int[t]: docs for t, docs in run.items() if t in to_int}
        if not run_mapped:
            return {}
        return {from_int[m.query_id]: float(m.value) for m in evaluator.iter_calc(run_mapped)}

    return calc


# ---------------------------------------------------------------------------
# Evaluating many runs

# ---------------------------------------------------------------------------
# Reading and processing many runs, in parallel

RunWork = Callable[[int, Run], Any]  # (index of the run among the inputs, run) → result


def _read_then(make_work: Callable[[], RunWork]) -> Callable[[tuple[int, Source]], Any]:
    work = make_work()

    def task(item: tuple[int, Source]) -> Any:
        index, source = item
        try:
            run = read_run(source)
        except InputError as exc:  # returned, not raised: keeps file:line across processes
            return exc
        return work(index, run)

    return task


def map_runs(
    sources: Sequence[Source],
    make_work: Callable[[], RunWork],
    *,
    jobs: int = 1,
    tick: Callable[[], None] = lambda: None,
) -> list[Any]:
    """Read every run once and apply ``make_work()`` to it, in input order.

    With ``jobs > 1`` each worker process reads its own files and sends back
    only the (small) results, so the parent never holds the runs. The first
    bad file raises its InputError. Standard input cannot be shared with
    worker processes, so a ``-`` among the sources means one process.
    """
    if any(s.path == STDIN for s in sources):
        jobs = 1
    items = list(enumerate(sources))
    return parallel_map(items, partial(_read_then, make_work), jobs=jobs, tick=tick)


@dataclass(frozen=True)
class RunScores:
    """What one worker sends back: per-topic scores and the run's topic ids."""

    scores: dict[str, dict[str, float]]
    topics: frozenset[str]


def _scorer(qrels: Qrels, specs: Sequence[MeasureSpec], err_impl: str) -> RunWork:
    evaluator = RunEvaluator(qrels, specs, err_impl)
    return lambda _, run: RunScores(evaluator.calc(run), frozenset(run))


def evaluate_runs(
    qrels_file: QrelsFile,
    sources: Sequence[Source],
    specs: Sequence[MeasureSpec],
    *,
    rel_level: int = 1,
    jobs: int = 1,
    err_impl: str = "fast",
    note: Note = lambda _: None,
    tick: Callable[[], None] = lambda: None,
) -> list[ScoreMatrix]:
    """Evaluate every run and build one ScoreMatrix per measure (SPEC §3).

    Topic set: qrels topics with at least one document of grade >= rel_level;
    a run without a ranking for such a topic scores 0 there (trec_eval -c);
    run topics absent from the qrels are ignored. Each rule is reported once.
    """
    check_grades(qrels_file, specs)
    topics = sort_topics(qrels_file.relevant_topics(rel_level))
    if not topics:
        raise InputError(f"no topic has a relevant document (rel >= {rel_level})", qrels_file.label)
    dropped = len(qrels_file.qrels) - len(topics)
    if dropped:
        note(f"{dropped} qrels topic(s) have no relevant document (rel >= {rel_level}); dropped")

    make_work = partial(_scorer, qrels_file.qrels, list(specs), err_impl)
    results: list[RunScores] = map_runs(sources, make_work, jobs=jobs, tick=tick)

    topic_set = set(topics)
    unknown: set[str] = set()
    for source, r in zip(sources, results, strict=True):
        unknown |= r.topics - qrels_file.qrels.keys()
        missing = len(topic_set - r.topics)
        if missing:
            note(f"{source.name}: no ranking for {missing} of {len(topics)} topics; they score 0")
    if unknown:
        note(f"{len(unknown)} topic(s) in the runs are not in the qrels; ignored")

    systems = tuple(source.name for source in sources)
    matrices = []
    for spec in specs:
        values = np.array(
            [[r.scores[spec.name].get(t, 0.0) for t in topics] for r in results], dtype=float
        ).reshape(len(results), len(topics))
        matrices.append(ScoreMatrix(spec.name, systems, tuple(topics), values))
    return matrices


# ---------------------------------------------------------------------------
# The input of every analysis


def load(s: Settings) -> tuple[list[ScoreMatrix], list[str]]:
    """QRELS + RUNS (evaluated) or ``--scores FILE`` → one matrix per measure
    (SPEC §1–§3), and the notes about the inputs."""
    notes: list[str] = []
    if s.scores is None:
        specs = parse_measures(s.measures or DEFAULT_MEASURES, s.rel_level)
        sources = expand_sources(s.inputs[1:])
        qrels_file = read_qrels(s.inputs[0])
        matrices = evaluate_runs(
            qrels_file,
            sources,
            specs,
            rel_level=s.rel_level,
            jobs=s.jobs or default_jobs(),
            err_impl=s.err_impl,
            note=notes.append,
            tick=progress(len(sources), s.quiet),
        )
        return matrices, notes
    matrices = read_scores(s.scores, notes.append)
    if not s.measures:
        return matrices, notes
    wanted = [spec.name for spec in parse_measures(s.measures, s.rel_level)]
    by_name = {m.measure: m for m in matrices}
    missing = [w for w in wanted if w not in by_name]
    if missing:
        raise InputError(
            f"measure {missing[0]!r} is not in the scores file (it has {', '.join(by_name)})",
            "<stdin>" if s.scores == STDIN else s.scores,
        )
    return [by_name[w] for w in wanted], notes
