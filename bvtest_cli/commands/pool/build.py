"""`bvtest pool`: depth-k pooled qrels (Cormack & Grossman 2019 §4), as TREC qrels on stdout."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ...analyses.budgets.pooling import pool, truncate_run
from ...io.sources import Inputs, Run, docno_text, expand_sources
from ...io.trec import qrels_line, read_qrels, sort_topics
from ...measures.parallel import default_jobs, map_runs, progress
from ...measures.topics import check_shared_topics
from ...report.model import Records, Report, section

if TYPE_CHECKING:
    from .params import PoolParams

# --------------------------------------------------------------------------------------
# pool


def _top_k(depth: int) -> Callable[[int, Run], Run]:
    return lambda _, run: truncate_run(run, depth)


def pool_report(inputs: Inputs, p: PoolParams) -> Report:
    """Depth-k pooled qrels (Cormack & Grossman 2019 §4) as TREC qrels lines
    ``qid 0 docno rel``, topics in bvtest's order, docnos sorted."""
    assert inputs.qrels is not None
    qrels_file = read_qrels(inputs.qrels)
    sources = expand_sources(inputs.runs)
    tops = map_runs(
        sources,
        partial(_top_k, p.depth),
        jobs=p.jobs or default_jobs(),
        tick=progress(len(sources), p.quiet),
    )
    qrels = qrels_file.qrels
    check_shared_topics(
        qrels_file.label, sort_topics(qrels), [src.name for src in sources], [set(r) for r in tops]
    )
    pooled = pool(qrels, tops, p.depth)
    notes = [
        f"depth-{p.depth} pool of {len(sources)} run(s): {pooled.pooled} documents over "
        f"{len(qrels)} qrels topics; {pooled.unjudged} of them are not judged in "
        f"{qrels_file.label} and are left out (trec_eval counts them non-relevant)"
    ]
    empty = len(qrels) - len(pooled.qrels)
    if empty:
        notes.append(
            f"{empty} qrels topic(s) have no judged document in the pool; "
            "they are not in the pooled qrels"
        )
    unknown = {t for run in tops for t in run} - qrels.keys()
    if unknown:
        notes.append(f"{len(unknown)} topic(s) in the runs are not in the qrels; not pooled")
    items = tuple((t, d, g) for t, docs in pooled.qrels.items() for d, g in docs.items())
    records = Records(
        items,
        as_json=lambda item: {
            "topic": item[0],
            "iteration": "0",
            "docno": docno_text(item[1]),
            "rel": item[2],
        },
        as_text=lambda item, digits: (qrels_line(item[0], docno_text(item[1]), item[2])[:-1],),
    )
    return Report(section(("qrels", records)), notes=tuple(notes))


def build(inputs: Inputs, p: PoolParams) -> Report:
    """``bvtest pool``."""
    return pool_report(inputs, p)
