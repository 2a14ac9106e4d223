"""`bvtest permute`: engineered ("dissimilar") runs (Cormack & Grossman 2019
§4.2), written to a directory."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ...analyses.budgets.pooling import engineer_run, engineered_name, ranked
from ...errors import InputError
from ...io.files import checked_target, new_directory
from ...io.sources import Inputs, Qrels, Run, expand_sources, output_bytes
from ...io.trec import format_run, read_qrels, sort_topics
from ...measures.parallel import default_jobs, map_runs, progress
from ...measures.topics import check_shared_topics
from ...options import input_paths
from ...report.model import Report, section

if TYPE_CHECKING:
    from .params import PermuteParams

# --------------------------------------------------------------------------------------
# permute


def _engineer(
    qrels: Qrels, names: list[str], targets: list[str], seed: int
) -> Callable[[int, Run], InputError | frozenset[str]]:
    def work(index: int, run: Run) -> InputError | frozenset[str]:
        name = names[index]
        engineered = engineer_run(run, qrels, name=name, seed=seed)
        ranking = ((t, ranked(engineered[t])) for t in sort_topics(engineered))
        text = format_run(ranking, engineered_name(name))
        try:
            with open(targets[index], "wb") as fh:
                fh.write(output_bytes(text))
        except OSError as exc:  # returned, not raised: keeps the message across processes
            return InputError(f"cannot write: {exc.strerror or exc}", targets[index])
        return frozenset(run)

    return work


def permute_files(inputs: Inputs, p: PermuteParams) -> Report:
    """Write the engineered run of every input run to ``--out DIR`` as
    ``NAME.perm`` (Cormack & Grossman 2019 §4.2): per topic, the relevant
    documents of the run (under QRELS) permuted among the positions they
    occupy, within each grade, seeded by (``--seed``, run name, topic)."""
    assert p.output is not None
    assert inputs.qrels is not None
    qrels_file = read_qrels(inputs.qrels)
    sources = expand_sources(inputs.runs)
    names = [src.name for src in sources]
    for src in sources:
        if any(c.isspace() for c in src.name):
            raise InputError(
                f"run name {src.name!r} has white space; it cannot be a run tag", src.label
            )
    checked_target(p.output, input_paths(inputs, p), "--out")
    with new_directory(p.output) as out:  # all the runs, or nothing
        targets = [str(out / engineered_name(n)) for n in names]
        topics = map_runs(  # a write error comes back as an InputError and is raised here
            sources,
            partial(_engineer, qrels_file.qrels, names, targets, p.seed),
            jobs=p.jobs or default_jobs(),
            tick=progress(len(sources), p.quiet),
        )
        check_shared_topics(qrels_file.label, sort_topics(qrels_file.qrels), names, topics)
    shown = engineered_name(names[0]) + (", ..." if len(names) > 1 else "")
    notes = (f"wrote {len(names)} engineered run(s) ({shown}) to {p.output}",)
    return Report(section(), notes=notes)


def build(inputs: Inputs, p: PermuteParams) -> Report:
    """``bvtest permute``."""
    return permute_files(inputs, p)
