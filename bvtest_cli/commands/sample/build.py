"""`bvtest sample`: collections drawn from a full qrels that plays the assessor
(:mod:`~bvtest_cli.analyses.budgets.sampling`), one file per sample in NIST sample_eval.pl's
layout (pps, uniform) or as plain qrels of the judged documents (depth, mtf, hedge)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...analyses.budgets.sampling import (
    RANDOM_METHODS,
    MethodOptions,
    pps_design,
    sample,
    strata_for_budget,
)
from ...errors import InputError
from ...io.files import checked_target, new_directory
from ...io.sources import Inputs, docno_text, expand_sources, output_bytes
from ...io.trec import qrels_line, read_qrels, sort_topics
from ...measures.topics import list_topics
from ...measures.track import Track, read_track
from ...options import current_flags, input_paths, typed_flag
from ...report.limits import refuse_samples
from ...report.model import Report, section

if TYPE_CHECKING:
    from .params import SampleParams


def sample_files(inputs: Inputs, p: SampleParams) -> Report:
    """Draw the samples and write them to ``--out DIR``, one file each."""
    assert p.output is not None
    notes: list[str] = []
    budget = _sample_budget(p, notes)
    assert inputs.qrels is not None
    qrels_file = read_qrels(inputs.qrels)
    sources = expand_sources(inputs.runs, notes.append)
    topics = sort_topics(qrels_file.topics())
    checked_target(p.output, input_paths(inputs, p), "--out")
    repeats = p.draws if p.method in RANDOM_METHODS else 1
    if p.draws > 1 and p.method not in RANDOM_METHODS:
        notes.append(f"--draws: {p.method} is not random; one sample is written")
    draws = (typed_flag(p, "draws"), p.draws)
    refuse_samples(draws, repeats, None, len(topics))
    track = read_track(qrels_file, sources, topics, p.jobs, p.quiet)
    refuse_samples(draws, repeats, int(track.offsets[-1]), len(topics), out=p.output)
    rankings, grades = track.for_sampling()
    strata = p.strata
    if p.method == "pps":
        strata = strata_for_budget(p.strata, budget)
        if strata < p.strata:
            notes.append(strata_note(p.strata, strata, budget))
    design = pps_design(rankings, strata) if p.method == "pps" else None
    stratified = p.method in RANDOM_METHODS
    judged_total = 0
    with new_directory(p.output) as out:
        for rep in range(repeats):
            drawn = sample(
                p.method, rankings, grades, budget=budget, seed=p.seed, repeat=rep,
                options=MethodOptions(p.depth or 1, strata, p.rel_level, design),
            )  # fmt: skip
            judged_total += drawn.judged()
            text = _sample_text(track, drawn.topics, stratified)
            (out / f"{p.method}.{rep + 1:03d}.qrels").write_bytes(output_bytes(text))
    empty = [t for t in topics if t not in drawn.topics]
    if empty:
        notes.append(f"{len(empty)} qrels topic(s) have no pool (no run retrieved anything): "
                     f"{list_topics(empty)}")  # fmt: skip
    per_topic = judged_total / repeats / max(1, len(drawn.topics))
    notes.append(
        f"wrote {repeats} {p.method} sample(s) to {p.output}: {per_topic:.1f} judgments per "
        f"topic on average over {len(drawn.topics)} topics"
    )
    return Report(section(), notes=tuple(notes))


def strata_note(asked: int, strata: int, budget: int) -> str:
    return (
        f"--strata {asked}: a budget of {budget} judgments per topic samples at most {budget} "
        f"strata (the others would have inclusion probability 0 and bias every estimate); "
        f"{strata} strata used"
    )


def _sample_budget(p: SampleParams, notes: list[str]) -> int:
    if len(p.budgets) > 1:
        raise InputError("sample takes one budget (judgments per topic)", "--budget")
    if p.method == "depth":
        if not p.depth:
            raise InputError("--method depth needs --depth K", "--depth")
        if p.budgets:
            notes.append(f"--budget: depth-{p.depth} pooling judges what K sets, not a budget")
        return 1
    if not p.budgets:
        raise InputError(f"--method {p.method} needs --budget N (judgments per topic)", "--budget")
    if p.depth:
        raise InputError(f"--depth is for --method depth, not {p.method}", "--depth")
    return p.budgets[0]


def _sample_text(track: Track, topics: dict, stratified: bool) -> str:
    lines = []
    for i, t in enumerate(track.topics):
        docs = topics.get(t)
        if not docs:
            continue
        universe = track.docnos[i]
        for d in sorted(docs):
            stratum, grade = docs[d]
            if not stratified and grade < 0:
                continue
            docno = docno_text(universe[d].decode("latin-1"))
            lines.append(qrels_line(t, docno, grade, str(stratum) if stratified else None))
    return "".join(lines)


def build(inputs: Inputs, p: SampleParams) -> Report:
    """``bvtest sample``."""
    p, notes = current_flags(p)
    return sample_files(inputs, p).prefixed(notes)
