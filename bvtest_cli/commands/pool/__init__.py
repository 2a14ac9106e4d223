"""``bvtest pool``: depth-K pooled qrels: the judgments of QRELS on the top K of any run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import RUNS, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import PoolParams


def run(inputs: Inputs, p: PoolParams) -> Report:
    """Depth-K pooled qrels: the judgments of QRELS on the top K of any run.

    A document is pooled for a topic when some run ranks it in its top K
    (score descending, ties by docno descending, as trec_eval). The output is
    TREC qrels (qid 0 docno rel) on stdout, topics in bvtest's order, docnos
    sorted; pooled documents that QRELS does not judge are left out (they
    are counted in a note), and so is a topic whose pool holds no judged
    document. Compare the pool with the full qrels by `bvtest rankings`.

    \b
    Examples:
      bvtest pool --depth 10 qrels/qrels.txt sample_runs/ > depth10.qrels
      bvtest rankings --reference qrels/qrels.txt --collection depth10.qrels sample_runs/
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "pool",
    ("depth", "inputs", "jobs", "quiet"),
    run,
    overrides={"inputs": RUNS},
)
