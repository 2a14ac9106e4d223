"""The inputs a command names, as score matrices: QRELS RUNS… evaluated, or
``--scores FILE`` read (docs/inputs.md), and the notes about them.

Shared by the commands whose analyses start from the systems × topics matrix
(eval, scores, instability, plot, check, compare, conditions, tradeoff,
variations' scores path; design and sensitivity through
:func:`load_one_measure`, where a wide CSV matrix is one measure).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..defaults import DEFAULT_MEASURES
from ..errors import InputError
from ..io.sources import STDIN, Inputs, expand_sources
from ..io.trec import named_sources, read_qrels
from ..measures.evaluate import Evaluation, evaluate_runs, how
from ..measures.matrix import ScoreMatrix
from ..measures.names import parse_measures
from ..measures.scores_file import read_scores
from ..process import keep_freed_memory
from ..report.model import Report

P = TypeVar("P")


def load(
    inputs: Inputs, e: Evaluation, sampling_variances: bool = False
) -> tuple[list[ScoreMatrix], list[str]]:
    """QRELS + RUNS (evaluated) or ``--scores FILE`` → one matrix per measure
    (docs/inputs.md, docs/measures.md), and the notes about the inputs.
    ``sampling_variances``: statAP's and xinfAP's matrices from QRELS + RUNS
    carry their estimates' sampling variances (a scores file has none)."""
    # The analyses allocate and free arrays of a few MB per resample (the
    # bootstrap of --ci): kept for reuse, not mapped and zeroed afresh each
    # time (a fifth of eval --ci's CPU on 129 runs × 50 topics)
    keep_freed_memory()
    notes: list[str] = []
    if inputs.scores is None:
        assert inputs.qrels is not None  # QRELS RUNS... or --scores (validate)
        specs = parse_measures(e.measures or DEFAULT_MEASURES, e.rel_level, note=notes.append)
        sources = expand_sources(inputs.runs, notes.append)
        sources = named_sources(sources, e.name, notes.append)
        qrels_file = read_qrels(inputs.qrels)
        matrices = evaluate_runs(
            qrels_file, sources, specs, **how(e, notes, len(sources)),
            sampling_variances=sampling_variances,
        )  # fmt: skip
        return matrices, notes
    matrices = read_scores(inputs.scores, notes.append)
    if not e.measures:
        return matrices, notes
    wanted = [spec.name for spec in parse_measures(e.measures, e.rel_level)]
    by_name = {m.measure: m for m in matrices}
    missing = [w for w in wanted if w not in by_name]
    if missing:
        raise InputError(
            f"measure {missing[0]!r} is not in the scores file (it has {', '.join(by_name)})",
            "<stdin>" if inputs.scores == STDIN else inputs.scores,
        )
    return [by_name[w] for w in wanted], notes


def topic_rule(inputs: Inputs, e: Evaluation) -> str:
    """The rule the matrices of ``inputs`` were evaluated by, as each
    measure's block states it beside its topic count: ``e.topic_set``
    (judged or all), or "file" for a scores file, whose topics are the ones
    it holds."""
    return "file" if inputs.scores is not None else e.topic_set


def analysed(inputs: Inputs, p: P, analyse: Callable[[list[ScoreMatrix], P], Report]) -> Report:
    """``analyse`` of the score matrices of the inputs under a command's
    parameters ``p``, with the notes about the inputs before the report's own."""
    matrices, notes = load(inputs, Evaluation.of(p))
    return analyse(matrices, p).prefixed(notes)


def load_one_measure(inputs: Inputs, e: Evaluation) -> tuple[list[ScoreMatrix], list[str]]:
    """The score matrices of the inputs. A wide CSV matrix (``--scores``)
    holds one measure: the one -m names, or its file's name."""
    from ..io.sources import STDIN
    from ..measures.names import parse_measures
    from ..measures.scores_file import read_scores

    if inputs.scores is None:
        return load(inputs, e)
    notes: list[str] = []
    wanted = [spec.name for spec in parse_measures(e.measures, e.rel_level)] if e.measures else []
    matrices = read_scores(inputs.scores, notes.append, wanted[0] if len(wanted) == 1 else None)
    if not wanted:
        return matrices, notes
    by_name = {m.measure: m for m in matrices}
    missing = [w for w in wanted if w not in by_name]
    if missing:
        hint = "; a wide CSV matrix is one measure: give one -m" if len(by_name) == 1 else ""
        raise InputError(
            f"measure {missing[0]!r} is not in the scores file (it has {', '.join(by_name)})"
            + hint,
            "<stdin>" if inputs.scores == STDIN else inputs.scores,
        )
    return [by_name[w] for w in wanted], notes
