"""``bvtest pertopic``: per-topic bias and variance from simulated collections (Zhang22 §3.4)."""

from __future__ import annotations

from ...analyses.simulate import PerTopicResult, pertopic
from ...io.sources import expand_sources
from ...io.trec import read_qrels
from ...measures.evaluate import check_shared_topics, topic_set
from ...measures.parallel import default_jobs, progress
from ...report import registry
from ...report.limits import check_request
from ...report.model import Report, Table, section
from ...settings import Settings
from ..eval.build import tradeoff_section


def pertopic_report(result, measure: str, s: Settings) -> Report:
    """The report of ``bvtest pertopic`` (docs/pertopic.md; Zhang22 Tables 10–11).

    Per run the topic-averaged Bias² and Var (eqs. 13–14) and their tradeoff
    correlation; per topic the Pearson correlation of Bias² and Var across
    runs, and with ``-q`` every topic × run Bias² and Var.
    """
    fields = (registry.BIAS2, registry.VAR)
    systems = Table(result.systems, fields, {"bias2": result.mean_bias2, "var": result.mean_var})
    children = None
    if s.per_topic:
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
        ("systems", systems),
        ("tradeoff", tradeoff_section(result.tradeoff)),
        ("topics", topics),
    )
    notes = [
        f"{name}: no ranking for {count} of {len(result.topics)} topics; AP 0 in every sample"
        for name, count in zip(result.systems, result.missing, strict=True)
        if count
    ]
    if result.tradeoff.reason:
        notes.append(f"{measure}: tradeoff correlation undefined: {result.tradeoff.reason}")
    body = section(("seed", s.seed), ("measures", section((measure, block))))
    return Report(body, table_fields=fields, notes=tuple(notes))


def simulate_files(s: Settings) -> tuple[PerTopicResult, list[str]]:
    """``bvtest pertopic``: QRELS and RUNS from the command line, every run read
    and simulated in its own worker; AP at relevance level ``-l``. Returns the
    result and the notes about the inputs."""
    notes: list[str] = []
    qrels_file = read_qrels(s.inputs[0])
    sources = expand_sources(s.inputs[1:], notes.append)
    topics = topic_set(qrels_file, s.rel_level, notes.append)
    check_request(s, len(sources), len(topics), "pertopic")
    result = pertopic(
        qrels_file.qrels,
        {src.name: src for src in sources},
        topics,
        k=s.samples,
        seed=s.seed,
        rel_level=s.rel_level,
        jobs=s.jobs or default_jobs(),
        tick=progress(len(sources), s.quiet),
    )
    if all(missing == len(topics) for missing in result.missing):
        check_shared_topics(qrels_file.label, topics, result.systems, [()] * len(sources))
    return result, notes


def build(s: Settings) -> Report:
    """``bvtest pertopic``: simulate, then the report."""
    measure = "AP" if s.rel_level == 1 else f"AP(rel={s.rel_level})"
    result, notes = simulate_files(s)
    return pertopic_report(result, measure, s).prefixed(notes)
