"""``bvtest variations``: inputs → mean–variance analysis → one Report (docs/variations.md).

The report of one measure (the JSON keys; Zuccon16 = Zuccon, Palotti &
Hanbury, CIKM 2016):

- ``n_topics``, ``n_variations`` (and ``n_users`` in general mode);
- ``systems``: per run ``mu``, ``var`` and ``o`` at every alpha. In intra mode
  these are the means over the analysed topics of the per-topic values (O is
  linear in μ and σ², so o = mu − α var still holds);
- ``tau``, ``tau_ap``: alpha → the rank correlation between the ranking by O
  and the ranking by μ (intra: the mean over the topics where it is defined);
- intra only, ``topics``: per topic its ``tau`` and ``tau_ap`` (with ``-q``
  also its ``systems``: per run mu, var, o over that topic's variations);
- ``crossovers``: every pair of runs whose order by O flips within the alpha
  grid's range, at the exact α* = (μ_a − μ_b)/(σ²_a − σ²_b), sorted (a leads
  below α*, b above; intra: per topic).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...analyses.variations import Crossover, Design, VariationsResult, analyse
from ...errors import InputError
from ...io.sources import Inputs
from ...options import input_paths
from ...report import registry as R
from ...report.model import Records, Report, Section, Table, section
from .inputs import build_design, load

if TYPE_CHECKING:
    from .params import VariationsParams


def variations_report(inputs: Inputs, p: VariationsParams) -> Report:
    """Read, analyse every measure, report."""
    loaded = load(inputs, p)
    notes = list(loaded.notes)
    blocks = []
    for m in loaded.matrices:
        design = build_design(m.topics, loaded.vmap, loaded.mode)
        if loaded.mode == "intra" and design.counts().max() < 2:
            raise InputError(
                f"{m.measure}: intra mode needs a topic with at least 2 variations, but every "
                "topic analysed has one; use --mode inter"
            )
        weights = None
        if loaded.weights is not None:
            weights = loaded.weights.vector(design.topics, notes.append)
        try:
            result = analyse(m, design, loaded.mode, p.alphas, weights)
        except ValueError as exc:
            raise InputError(f"{m.measure}: {exc}") from None
        notes += [f"{m.measure}: {n}" for n in result.notes]
        if result.mode != "intra" and np.isnan(result.tau_ap).all():
            # (intra says it per topic in result.notes)
            notes.append(
                f"{m.measure}: every run has the same mean, so the ranking by mu has no "
                "order: tau and tau_ap are undefined (null)"
            )
        blocks.append((m.measure, measure_block(result, design, p.per_topic)))
    if p.per_topic and loaded.mode != "intra":
        notes.append(f"-q adds per-topic values in intra mode only; not in {loaded.mode} mode")
    body = section(
        (R.VARIATIONS_MODE, loaded.mode),
        ("alphas", tuple(p.alphas)),
        (R.MEASURES, Section(tuple(blocks))),
    )
    report = Report(
        body,
        table_fields=(R.VARIATIONS_MU, R.VARIATIONS_VAR),
        notes=tuple(dict.fromkeys(notes)),  # the same note for every measure: once
    )
    return report


def by_alpha(alphas: tuple[str, ...], values: np.ndarray) -> Section:
    """alpha → value, in grid order."""
    return section(*zip(alphas, np.asarray(values, dtype=float).tolist(), strict=True))


def systems_table(systems: tuple[str, ...], alphas: tuple[str, ...], mu, var, o) -> Table:
    fields = (R.VARIATIONS_MU, R.VARIATIONS_VAR, R.VARIATIONS_O)
    return Table(systems, fields, {"mu": mu, "var": var, "o": o}, alphas)


def measure_block(result: VariationsResult, design: Design, per_topic: bool) -> Section:
    """One measure's Section (see the module docstring)."""
    intra = result.mode == "intra"
    alphas = result.alphas
    if intra:
        kept = [design.topics.index(t) for t in result.topics]
        n_variations = int(design.counts()[kept].sum())
        # (m, N) and (m, N, A): the summary over topics
        mu, var, o = result.mu.mean(axis=1), result.var.mean(axis=1), result.o.mean(axis=1)
    else:
        n_variations = len(design.variations)
        mu, var, o = result.mu, result.var, result.o
    items: list = [(R.N_TOPICS, len(result.topics)), (R.N_VARIATIONS, n_variations)]
    if result.mode == "general":
        items.append((R.N_USERS, design.n_slots))
    items += [
        (R.SYSTEMS, systems_table(result.systems, alphas, mu, var, o)),
        (R.VARIATIONS_TAU, by_alpha(alphas, result.tau)),
        (R.VARIATIONS_TAU_AP, by_alpha(alphas, result.tau_ap)),
    ]
    if intra:
        assert result.topic_tau is not None and result.topic_tau_ap is not None
        children = None
        if per_topic:
            children = tuple(
                section(
                    (
                        "systems",
                        systems_table(
                            result.systems,
                            alphas,
                            result.mu[:, j],
                            result.var[:, j],
                            result.o[:, j, :],
                        ),
                    )
                )
                for j in range(len(result.topics))
            )
        topics = Table(
            result.topics,
            (R.VARIATIONS_TOPIC_TAU, R.VARIATIONS_TOPIC_TAU_AP),
            {"tau": result.topic_tau, "tau_ap": result.topic_tau_ap},
            alphas,
            children=children,
        )
        items.append((R.VARIATIONS_TOPICS, topics))
    items.append((R.VARIATIONS_CROSSOVERS, crossover_records(result.crossovers, intra)))
    return section(*items)


def crossover_records(crossovers: tuple[Crossover, ...], intra: bool) -> Records:
    """JSON ``{"a", "b", "alpha"}`` (intra: ``topic`` first); the trec line
    ``MEASURE.crossover<TAB>a:b<TAB>alpha`` (intra: ``MEASURE.TOPIC.crossover``)."""

    def as_json(c: Crossover) -> dict:
        pair = {"a": c.a, "b": c.b, "alpha": c.alpha}
        return {"topic": c.topic, **pair} if intra else pair

    def as_text(c: Crossover, digits: int) -> tuple[str, str, str]:
        from ...report.values import fmt

        name = f"{c.topic}.crossover" if intra else "crossover"
        return name, f"{c.a}:{c.b}", fmt(c.alpha, digits)

    return Records(crossovers, as_json=as_json, as_text=as_text)


def build(inputs: Inputs, p: VariationsParams) -> Report:
    """``bvtest variations``: read the inputs, analyse, and the figure with --plot."""
    from ...render.plot import plot_variations, plotted

    return plotted(
        plot_variations, p.plot, lambda: variations_report(inputs, p), input_paths(inputs, p)
    )
