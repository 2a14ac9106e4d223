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
from ...options import as_settings, current_flags
from ...report.limits import check_request
from ...report.model import Report, section
from ...settings import Settings

if TYPE_CHECKING:
    from ..params import SampleParams


def sample_files(s: Settings) -> Report:
    """Draw the samples and write them to ``--out DIR``, one file each."""
    assert s.output is not None
    notes: list[str] = []
    budget = _sample_budget(s, notes)
    qrels_file = read_qrels(s.inputs[0])
    sources = expand_sources(s.inputs[1:], notes.append)
    topics = sort_topics(qrels_file.topics())
    checked_target(s.output, s.input_paths(), "--out")
    repeats = s.draws if s.method in RANDOM_METHODS else 1
    if s.draws > 1 and s.method not in RANDOM_METHODS:
        notes.append(f"--draws: {s.method} is not random; one sample is written")
    check_request(s, len(sources), len(topics), "sample")
    track = read_track(qrels_file, sources, topics, s)
    check_request(s, len(sources), len(topics), "sample", documents=int(track.offsets[-1]),
                  out=s.output)  # fmt: skip
    rankings, grades = track.for_sampling()
    strata = s.strata
    if s.method == "pps":
        strata = strata_for_budget(s.strata, budget)
        if strata < s.strata:
            notes.append(strata_note(s.strata, strata, budget))
    design = pps_design(rankings, strata) if s.method == "pps" else None
    stratified = s.method in RANDOM_METHODS
    judged_total = 0
    with new_directory(s.output) as out:
        for rep in range(repeats):
            drawn = sample(
                s.method, rankings, grades, budget=budget, seed=s.seed, repeat=rep,
                options=MethodOptions(s.depth or 1, strata, s.rel_level, design),
            )  # fmt: skip
            judged_total += drawn.judged()
            text = _sample_text(track, drawn.topics, stratified)
            (out / f"{s.method}.{rep + 1:03d}.qrels").write_bytes(output_bytes(text))
    empty = [t for t in topics if t not in drawn.topics]
    if empty:
        notes.append(f"{len(empty)} qrels topic(s) have no pool (no run retrieved anything): "
                     f"{list_topics(empty)}")  # fmt: skip
    per_topic = judged_total / repeats / max(1, len(drawn.topics))
    notes.append(
        f"wrote {repeats} {s.method} sample(s) to {s.output}: {per_topic:.1f} judgments per "
        f"topic on average over {len(drawn.topics)} topics"
    )
    return Report(section(), notes=tuple(notes))


def strata_note(asked: int, strata: int, budget: int) -> str:
    return (
        f"--strata {asked}: a budget of {budget} judgments per topic samples at most {budget} "
        f"strata (the others would have inclusion probability 0 and bias every estimate); "
        f"{strata} strata used"
    )


def _sample_budget(s: Settings, notes: list[str]) -> int:
    if len(s.budgets) > 1:
        raise InputError("sample takes one budget (judgments per topic)", "--budget")
    if s.method == "depth":
        if not s.depth:
            raise InputError("--method depth needs --depth K", "--depth")
        if s.budgets:
            notes.append(f"--budget: depth-{s.depth} pooling judges what K sets, not a budget")
        return 1
    if not s.budgets:
        raise InputError(f"--method {s.method} needs --budget N (judgments per topic)", "--budget")
    if s.depth:
        raise InputError(f"--depth is for --method depth, not {s.method}", "--depth")
    return s.budgets[0]


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
    s = as_settings(inputs, p)
    s, notes = current_flags(s, "sample")
    return (sample_files(s)).prefixed(notes)
