"""`bvtest rankings` (docs/rankings.md): read the inputs, evaluate
(:func:`~bvtest_cli.measures.collections.evaluate_collections`), run the pure
estimators (:func:`~bvtest_cli.analyses.rankings.ranking_accuracy`) and build
the report: |b|, σ and RMSE of every test collection's system ranking against
the reference, σ of the reference, and with two or more test collections the
pairwise matrix of Cormack & Grossman 2019, Table 3.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ...analyses.rankings import RankingAccuracy, ranking_accuracy
from ...errors import InputError
from ...io.sources import Inputs, expand_sources
from ...io.trec import QrelsFile, read_qrels
from ...measures.collections import evaluate_collections
from ...measures.evaluate import Evaluation, how
from ...measures.names import MeasureSpec, is_sampled, parse_measures
from ...options import current_flags, typed_flag
from ...report import registry as r
from ...report.limits import refuse_rankings
from ...report.model import Node, Report, Section, Table, section

if TYPE_CHECKING:
    from .params import RankingsParams

# --------------------------------------------------------------------------------------
# rankings


def _qrels_reader() -> Callable[[str], QrelsFile]:
    """read_qrels, reading a file named twice (e.g. the same qrels as G and X) once."""
    cache: dict[str, QrelsFile] = {}

    def read(path: str) -> QrelsFile:
        if path not in cache:
            cache[path] = read_qrels(path)
        return cache[path]

    return read


def _sample_files(paths: tuple[str, ...], note: Callable[[str], None]) -> list[str]:
    """A collection's qrels files: a directory stands for every file in it
    (the samples of a statistical method, as ``bvtest sample`` writes them)."""
    out: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            out += [src.path for src in expand_sources([path], note, kind="qrels")]
        else:
            out.append(path)
    return out


def rankings_report(inputs: Inputs, p: RankingsParams) -> Report:
    """Evaluate the runs under the reference and every test collection, and
    report the accuracy of each collection's ranking (Cormack & Grossman 2019
    §2–3, docs/rankings.md)."""
    assert p.reference is not None
    ref_name, (ref_path,) = p.reference
    if any(name == ref_name for name, _ in p.collections):
        raise InputError(
            f"collection name {ref_name!r} is also the reference's; name one of them "
            "with NAME=FILE",
            "--collection",
        )
    specs = parse_measures(p.measures, p.rel_level)
    if len(specs) != 1:
        shown = ", ".join(spec.name for spec in specs)
        raise InputError(f"rankings ranks by one measure, got {len(specs)} ({shown})", "-m")
    sources = expand_sources(inputs.runs)
    if len(sources) < 2:
        raise InputError(f"a ranking needs at least two runs, got {len(sources)}")
    read = _qrels_reader()
    notes: list[str] = []
    reference = read(ref_path)
    n = len(reference.relevant_topics(p.rel_level))
    bootstrap = (typed_flag(p, "bootstrap"), p.bootstrap)
    refuse_rankings(bootstrap, p.topics, len(p.collections), len(sources), n)
    collections = {
        name: [read(f) for f in _sample_files(files, notes.append)] for name, files in p.collections
    }
    notes += _sampled_notes(specs[0], collections)
    (scores,) = evaluate_collections(
        reference,
        collections,
        sources,
        specs,
        **how(Evaluation.of(p), notes, len(sources)),
    )
    try:
        res = ranking_accuracy(
            scores.reference,
            scores.collections,
            reference_name=ref_name,
            samples=p.bootstrap,
            n_prime=p.topics,
            seed=p.seed,
        )
    except ValueError as exc:
        raise InputError(str(exc)) from None
    report = accuracy_report(
        res,
        measure=scores.measure,
        seed=p.seed,
        n_topics=len(scores.topics),
        n_systems=len(sources),
    )
    return report.prefixed(notes)


def _sampled_notes(spec: MeasureSpec, collections: dict[str, list[QrelsFile]]) -> list[str]:
    """What a measure cannot know of a sampled collection (sample_eval.pl's
    5-column layout, rel −1: pooled, not judged): a measure for full
    judgments counts the unjudged documents as non-relevant, and infAP's
    one-stratum estimate ignores the strata of a stratified sample."""
    name = spec.measure.NAME
    notes = []
    for cname, files in collections.items():
        sampled = [f for f in files if f.stratified]
        if not sampled:
            continue
        if name == "infAP":
            strata = max(
                len(np.unique(f.table.stratum)) for f in sampled if f.table.stratum is not None
            )
            if strata > 1:
                notes.append(
                    f"{cname}: a sample of {strata} strata; infAP estimates as if every listed "
                    "document had one inclusion probability and is biased there: rank by "
                    "-m xinfAP or -m statAP"
                )
        elif not is_sampled(spec) and any((f.table.grade < 0).any() for f in sampled):
            notes.append(
                f"{cname}: a sampled collection (pooled documents left unjudged, rel -1); "
                f"{spec.name} is for full judgments and counts them non-relevant: rank by "
                "-m statAP or -m xinfAP"
            )
    return notes


def accuracy_report(
    res: RankingAccuracy, *, measure: str, seed: int, n_topics: int, n_systems: int
) -> Report:
    """The report of ``bvtest rankings``: settings, σ of the reference, a
    table of the test collections (|b|, σ, RMSE, b², Δ and the batch-means
    standard errors) and, with two or more of them, ``matrix`` (Cormack &
    Grossman 2019, Table 3): ``matrix.FIELD[G][X]`` is collection X measured
    with collection G as the reference, the reference collection included."""
    names = tuple(c.name for c in res.collections)
    values = {
        f.name: np.array([getattr(c.accuracy, f.name) for c in res.collections], dtype=float)
        for f in r.RANKING_FIELDS
    }
    table = Table(names, r.RANKING_FIELDS, values)
    items: list[tuple[r.Field | str, Node]] = [
        ("reference", res.reference),
        (r.RANK_SAMPLES, res.samples),
        (r.RANK_TOPICS, res.topics),
        ("seed", seed),
        ("measure", measure),
        (r.N_TOPICS, n_topics),
        (r.N_SYSTEMS, n_systems),
        (r.RANK_BATCHES, res.batches),
        (r.SIGMA_REFERENCE, res.sigma_reference),
        (r.SE_SIGMA_REFERENCE, res.se_sigma_reference),
        ("collections", table),
    ]
    notes = [negative_b2_note(c.name, c.accuracy.b2) for c in res.collections if c.accuracy.b2 < 0]
    if res.table is not None:
        items.append((r.RANK_MATRIX, _matrix(res)))
        b2 = res.table.b2
        negative = int((b2 < 0).sum())
        if negative:
            notes.append(
                f"matrix: {negative} of {b2.size} pairwise b2 estimates are negative (chance "
                "error; the diagonal's expectation is 0), reported as bias = -sqrt(-b2); "
                "rmse = sqrt(b2 + sigma^2) with b2 signed, below sigma there ([Cormack19] "
                "Table 1)"
            )
    if res.batches < 2:
        notes.append("standard errors need at least 2 bootstrap samples (batches); null")
    notes += res.notes
    return Report(
        section(*items), table_fields=r.RANKING_TABLE_FIELDS, notes=tuple(notes), measure=measure
    )


def negative_b2_note(name: str, b2: float) -> str:
    """What a negative bootstrap estimate of b² does to the fields: bias is
    its signed root, and RMSE = √(b² + σ²) falls below σ ([Cormack19] Table 1)."""
    return (
        f"{name}: the bootstrap estimate b2 = {b2:.3g} is negative (chance error: |b| is "
        "indistinguishable from 0); only bias is signed, reported as -sqrt(-b2) (Cormack & "
        "Grossman's convention); rmse = sqrt(b2 + sigma^2) is below sigma (their Table 1)"
    )


def _matrix(res: RankingAccuracy) -> Section:
    """Table 3 as matrix.FIELD[G][X]; the core's arrays are [X, G]."""
    t = res.table
    assert t is not None
    return section(
        *(
            (
                f,
                section(
                    *(
                        (
                            g,
                            section(
                                *(
                                    (x, float(getattr(t, f.name)[i, j]))
                                    for i, x in enumerate(t.names)
                                )
                            ),
                        )
                        for j, g in enumerate(t.names)
                    )
                ),
            )
            for f in r.PAIR_FIELDS
        )
    )


def build(inputs: Inputs, p: RankingsParams) -> Report:
    """``bvtest rankings``."""
    p, notes = current_flags(p)
    return rankings_report(inputs, p).prefixed(notes)
