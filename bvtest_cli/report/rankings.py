"""`bvtest rankings`, `bvtest pool`, `bvtest permute` (SPEC §10).

The orchestration of the three commands of Cormack & Grossman 2019: read the
inputs, evaluate (:func:`~bvtest_cli.analyses.rankings.evaluate_collections`), run the
pure estimators (:func:`~bvtest_cli.analyses.rankings.ranking_accuracy`, the pools and
engineered runs of :mod:`~bvtest_cli.analyses.pooling`) and build the reports.

* ``rankings``: |b|, σ and RMSE of every test collection's system ranking
  against the reference, σ of the reference, and with two or more test
  collections the pairwise matrix of Cormack & Grossman 2019, Table 3.
* ``pool``: depth-k pooled qrels, as TREC qrels on stdout.
* ``permute``: engineered ("dissimilar") runs, Cormack & Grossman 2019 §4.2,
  written to a directory.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial

import numpy as np

from ..analyses.pooling import engineer_run, engineered_name, format_run, pool, truncate_run
from ..analyses.rankings import RankingAccuracy, evaluate_collections, ranking_accuracy
from ..errors import InputError
from ..io.files import checked_target, new_directory
from ..io.sources import Qrels, Run, docno_text, expand_sources, output_bytes
from ..io.trec import QrelsFile, read_qrels, sort_topics
from ..measures.evaluate import (
    MeasureSpec,
    check_shared_topics,
    how,
    is_sampled,
    map_runs,
    parse_measures,
)
from ..measures.parallel import default_jobs, progress
from ..report import registry as r
from ..report.model import Records, Report, Section, Table, section
from ..settings import Settings
from .limits import check_request

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


def rankings_report(s: Settings) -> Report:
    """Evaluate the runs under the reference and every test collection, and
    report the accuracy of each collection's ranking (Cormack & Grossman 2019
    §2–3, SPEC §10)."""
    assert s.reference is not None
    ref_name, (ref_path,) = s.reference
    if any(name == ref_name for name, _ in s.collections):
        raise InputError(
            f"collection name {ref_name!r} is also the reference's; name one of them "
            "with NAME=FILE",
            "--collection",
        )
    specs = parse_measures(s.measures, s.rel_level)
    if len(specs) != 1:
        shown = ", ".join(spec.name for spec in specs)
        raise InputError(f"rankings ranks by one measure, got {len(specs)} ({shown})", "-m")
    sources = expand_sources(s.runs)
    if len(sources) < 2:
        raise InputError(f"a ranking needs at least two runs, got {len(sources)}")
    read = _qrels_reader()
    notes: list[str] = []
    reference = read(ref_path)
    check_request(s, len(sources), len(reference.relevant_topics(s.rel_level)), "rankings")
    collections = {
        name: [read(p) for p in _sample_files(files, notes.append)] for name, files in s.collections
    }
    notes += _sampled_notes(specs[0], collections)
    (scores,) = evaluate_collections(
        reference,
        collections,
        sources,
        specs,
        **how(s, notes, len(sources)),
    )
    try:
        res = ranking_accuracy(
            scores.reference,
            scores.collections,
            reference_name=ref_name,
            samples=s.samples,
            n_prime=s.topics,
            seed=s.seed,
        )
    except ValueError as exc:
        raise InputError(str(exc)) from None
    report = accuracy_report(
        res,
        measure=scores.measure,
        seed=s.seed,
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
            strata = max(len(np.unique(f.table.stratum)) for f in sampled)
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
    items: list[tuple[r.Field | str, object]] = [
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
        items.append(("matrix", _matrix(res)))
        b2 = res.table.b2
        negative = int((b2 < 0).sum())
        if negative:
            notes.append(
                f"matrix: {negative} of {b2.size} pairwise b2 estimates are negative (chance "
                "error; the diagonal's expectation is 0), reported as bias = -sqrt(-b2); "
                "only bias is signed: rmse counts such a b2 as 0 (rmse = sigma there)"
            )
    if res.batches < 2:
        notes.append("standard errors need at least 2 bootstrap samples (batches); null")
    notes += res.notes
    return Report(
        section(*items), table_fields=r.RANKING_TABLE_FIELDS, notes=tuple(notes), measure=measure
    )


def negative_b2_note(name: str, b2: float) -> str:
    """What a negative bootstrap estimate of b² does to the fields: only bias
    takes the signed root; RMSE, a root of a sum of squares, is never negative."""
    return (
        f"{name}: the bootstrap estimate b2 = {b2:.3g} is negative (chance error: |b| is "
        "indistinguishable from 0); only bias is signed, reported as -sqrt(-b2) (Cormack & "
        "Grossman's convention); rmse counts b2 as 0 and equals sigma"
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


# --------------------------------------------------------------------------------------
# pool


def _top_k(depth: int) -> Callable[[int, Run], Run]:
    return lambda _, run: truncate_run(run, depth)


def pool_report(s: Settings) -> Report:
    """Depth-k pooled qrels (Cormack & Grossman 2019 §4) as TREC qrels lines
    ``qid 0 docno rel``, topics in bvtest's order, docnos sorted."""
    qrels_file = read_qrels(s.inputs[0])
    sources = expand_sources(s.inputs[1:])
    tops = map_runs(
        sources,
        partial(_top_k, s.depth),
        jobs=s.jobs or default_jobs(),
        tick=progress(len(sources), s.quiet),
    )
    qrels = qrels_file.qrels
    check_shared_topics(
        qrels_file.label, sort_topics(qrels), [src.name for src in sources], [set(r) for r in tops]
    )
    p = pool(qrels, tops, s.depth)
    notes = [
        f"depth-{s.depth} pool of {len(sources)} run(s): {p.pooled} documents over "
        f"{len(qrels)} qrels topics; {p.unjudged} of them are not judged in "
        f"{qrels_file.label} and are left out (trec_eval counts them non-relevant)"
    ]
    empty = len(qrels) - len(p.qrels)
    if empty:
        notes.append(
            f"{empty} qrels topic(s) have no judged document in the pool; "
            "they are not in the pooled qrels"
        )
    unknown = {t for run in tops for t in run} - qrels.keys()
    if unknown:
        notes.append(f"{len(unknown)} topic(s) in the runs are not in the qrels; not pooled")
    items = tuple((t, d, g) for t, docs in p.qrels.items() for d, g in docs.items())
    records = Records(
        items,
        as_json=lambda item: {
            "topic": item[0],
            "iteration": "0",
            "docno": docno_text(item[1]),
            "rel": item[2],
        },
        as_text=lambda item, digits: (f"{item[0]} 0 {docno_text(item[1])} {item[2]}",),
    )
    return Report(section(("qrels", records)), notes=tuple(notes))


# --------------------------------------------------------------------------------------
# permute


def _engineer(
    qrels: Qrels, names: list[str], targets: list[str], seed: int
) -> Callable[[int, Run], InputError | frozenset[str]]:
    def work(index: int, run: Run) -> InputError | frozenset[str]:
        name = names[index]
        text = format_run(engineer_run(run, qrels, name=name, seed=seed), engineered_name(name))
        try:
            with open(targets[index], "wb") as fh:
                fh.write(output_bytes(text))
        except OSError as exc:  # returned, not raised: keeps the message across processes
            return InputError(f"cannot write: {exc.strerror or exc}", targets[index])
        return frozenset(run)

    return work


def permute_files(s: Settings) -> Report:
    """Write the engineered run of every input run to ``--out DIR`` as
    ``NAME.perm`` (Cormack & Grossman 2019 §4.2): per topic, the relevant
    documents of the run (under QRELS) permuted among the positions they
    occupy, within each grade, seeded by (``--seed``, run name, topic)."""
    assert s.output is not None
    qrels_file = read_qrels(s.inputs[0])
    sources = expand_sources(s.inputs[1:])
    names = [src.name for src in sources]
    for src in sources:
        if any(c.isspace() for c in src.name):
            raise InputError(
                f"run name {src.name!r} has white space; it cannot be a run tag", src.label
            )
    checked_target(s.output, s.input_paths(), "--out")
    with new_directory(s.output) as out:  # all the runs, or nothing
        targets = [str(out / engineered_name(n)) for n in names]
        topics = map_runs(  # a write error comes back as an InputError and is raised here
            sources,
            partial(_engineer, qrels_file.qrels, names, targets, s.seed),
            jobs=s.jobs or default_jobs(),
            tick=progress(len(sources), s.quiet),
        )
        check_shared_topics(qrels_file.label, sort_topics(qrels_file.qrels), names, topics)
    shown = engineered_name(names[0]) + (", ..." if len(names) > 1 else "")
    notes = (f"wrote {len(names)} engineered run(s) ({shown}) to {s.output}",)
    return Report(section(), notes=notes)
