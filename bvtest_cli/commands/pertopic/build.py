"""``bvtest pertopic``: per-topic bias and variance from simulated collections (Zhang22 §3.4)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...analyses.simulate import (
    DEFAULT_SAMPLES,
    PerTopicResult,
    analyse_samples,
    system_sampler,
)
from ...io.sources import STDIN, Inputs, Qrels, Run, Source, expand_sources
from ...io.trec import RunColumns, read_qrels, read_run_columns, sort_topics
from ...measures.parallel import default_jobs, parallel_map, progress
from ...measures.topics import check_shared_topics, topic_set
from ...report import registry
from ...report.limits import refuse_simulations
from ...report.model import Report, Table, section
from ...sections.matrix import tradeoff_section

if TYPE_CHECKING:
    from .params import PertopicParams


def simulate_ap(
    qrels: Qrels,
    runs: Mapping[str, Run | Source],
    topics: Sequence[str],
    k: int = DEFAULT_SAMPLES,
    seed: int = 0,
    rel_level: int = 1,
    jobs: int = 1,
    tick: Callable[[], None] = lambda: None,
) -> tuple[np.ndarray, list[int]]:
    """Simulated AP of every system on every topic, shape (m, n_topics, k) (docs/pertopic.md),
    and per system the number of topics it has no ranking for.

    ``runs`` maps run names to runs in memory or to files (read in the worker
    that simulates them, so the parent never holds the runs). Systems are in
    ``runs``' order, topics in ``topics``' order. A run without a topic scores
    0 in every sample. Run ``name`` on topic ``t`` draws from
    ``pair_rng(seed, name, t)`` only, so the same seed gives the same samples
    of a run for any ``jobs`` and whatever other runs are in ``runs``.
    """
    names, items = list(runs), list(runs.values())
    if not items or not topics:
        return np.zeros((len(items), len(topics), k)), [len(topics)] * len(items)
    if any(isinstance(item, Source) and item.path == STDIN for item in items):
        jobs = 1  # standard input cannot be shared with worker processes
    make_work = functools.partial(_sampler, qrels, names, items, topics, k, seed, rel_level)
    results = parallel_map(range(len(items)), make_work, jobs=jobs, tick=tick)
    return np.stack([ap for ap, _ in results]), [missing for _, missing in results]


def _sampler(
    qrels: Qrels,
    names: Sequence[str],
    items: Sequence[Run | Source],
    topics: Sequence[str],
    k: int,
    seed: int,
    rel_level: int,
) -> Callable[[int], tuple[np.ndarray, int]]:
    """index → (AP (n, k), topics missing) of run ``items[index]``, read here if a file."""
    sample = system_sampler(qrels, topics, k, seed, rel_level, names=names)

    def work(i: int) -> tuple[np.ndarray, int]:
        item = items[i]
        run: Run | RunColumns = read_run_columns(item) if isinstance(item, Source) else item
        return sample(i, run)

    return work


def pertopic(
    qrels: Qrels,
    runs: Mapping[str, Run | Source],
    topics: Sequence[str] | None = None,
    k: int = DEFAULT_SAMPLES,
    seed: int = 0,
    rel_level: int = 1,
    jobs: int = 1,
    tick: Callable[[], None] = lambda: None,
) -> PerTopicResult:
    """docs/pertopic.md end to end: simulate k collections per pair, then analyse them.

    ``topics`` defaults to the qrels topics with at least one relevant
    document (docs/inputs.md), in the project's topic order (``sort_topics``).
    """
    if topics is None:
        topics = sort_topics(
            t for t, docs in qrels.items() if any(g >= rel_level for g in docs.values())
        )
    ap, missing = simulate_ap(
        qrels, runs, topics, k=k, seed=seed, rel_level=rel_level, jobs=jobs, tick=tick
    )
    return analyse_samples(ap, list(runs), topics, missing)


def pertopic_report(result, measure: str, p: PertopicParams) -> Report:
    """The report of ``bvtest pertopic`` (docs/pertopic.md; Zhang22 Tables 10–11).

    Per run the topic-averaged Bias² and Var (eqs. 13–14) and their tradeoff
    correlation; per topic the Pearson correlation of Bias² and Var across
    runs, and with ``-q`` every topic × run Bias² and Var.
    """
    fields = (registry.BIAS2, registry.VAR)
    systems = Table(result.systems, fields, {"bias2": result.mean_bias2, "var": result.mean_var})
    children = None
    if p.per_topic:
        children = tuple(
            section(
                (
                    "systems",
                    Table(result.systems, fields, {"bias2": result.bias2[j], "var": result.var[j]}),
                )
            )
            for j in range(len(result.topics))
        )
    topics = Table(
        result.topics,
        (registry.TOPIC_PEARSON,),
        {"pearson": result.topic_pearson},
        children=children,
    )
    block = section(
        (registry.K, result.k),
        (registry.N_TOPICS, len(result.topics)),
        (registry.N_SYSTEMS, len(result.systems)),
        (registry.SYSTEMS, systems),
        (registry.TRADEOFF, tradeoff_section(result.tradeoff)),
        ("topics", topics),
    )
    notes = [
        f"{name}: no ranking for {count} of {len(result.topics)} topics; AP 0 in every sample"
        for name, count in zip(result.systems, result.missing, strict=True)
        if count
    ]
    if result.tradeoff.reason:
        notes.append(f"{measure}: tradeoff correlation undefined: {result.tradeoff.reason}")
    body = section(("seed", p.seed), (registry.MEASURES, section((measure, block))))
    return Report(body, table_fields=fields, notes=tuple(notes))


def simulate_files(inputs: Inputs, p: PertopicParams) -> tuple[PerTopicResult, list[str]]:
    """``bvtest pertopic``: QRELS and RUNS from the command line, every run read
    and simulated in its own worker; AP at relevance level ``-l``. Returns the
    result and the notes about the inputs."""
    notes: list[str] = []
    assert inputs.qrels is not None  # pertopic takes QRELS RUNS...
    qrels_file = read_qrels(inputs.qrels)
    sources = expand_sources(inputs.runs, notes.append)
    topics = topic_set(qrels_file, p.rel_level, notes.append)
    refuse_simulations(p.samples, len(sources), len(topics))
    result = pertopic(
        qrels_file.qrels,
        {src.name: src for src in sources},
        topics,
        k=p.samples,
        seed=p.seed,
        rel_level=p.rel_level,
        jobs=p.jobs or default_jobs(),
        tick=progress(len(sources), p.quiet),
    )
    if all(missing == len(topics) for missing in result.missing):
        check_shared_topics(qrels_file.label, topics, result.systems, [()] * len(sources))
    return result, notes


def build(inputs: Inputs, p: PertopicParams) -> Report:
    """``bvtest pertopic``: simulate, then the report."""
    measure = "AP" if p.rel_level == 1 else f"AP(rel={p.rel_level})"
    result, notes = simulate_files(inputs, p)
    return pertopic_report(result, measure, p).prefixed(notes)
