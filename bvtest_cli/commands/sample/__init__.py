"""``bvtest sample``: test collections drawn under an assessment budget, written to --out DIR."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import DEPRECATED_ALIAS, RUNS, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import SampleParams


SAMPLE_OUT = dict(
    required=True,
    metavar="DIR",
    help="New directory for the samples, METHOD.NNN.qrels: written whole or not at all; "
    "an existing directory must be empty.",
)


SAMPLE_BUDGET = dict(
    default=None,
    metavar="N",
    help="Judgments per topic (min(N, pool size)); not with depth, whose K sets the size.",
)


SAMPLE_DEPTH = dict(required=False, default=None, help="Pool depth K of --method depth.")


SAMPLE_DRAWS = dict(
    help="Samples drawn by the random methods (uniform, pps), each its own file.", default=1
)


SAMPLE_REL_LEVEL = dict(
    help="mtf and hedge: a document is relevant when its grade >= L (what moves a run to the "
    "front, what Hedge learns from); the other methods do not use relevance."
)


SAMPLE_JOBS = dict(help="Runs read in parallel [default: all cores]. Output does not depend on it.")


SAMPLE_STRATA = dict(
    help="Strata of the pps design (equal AP-prior mass; Cormack & Grossman 2019: 20); at "
    "most --budget: more would leave strata unsampled (a note says so)."
)


def run(inputs: Inputs, p: SampleParams) -> Report:
    """Test collections built under an assessment budget, one file per sample.

    QRELS plays the assessor: a document chosen for judgment that QRELS does
    not judge is non-relevant. Per topic, --method chooses min(N, pool size)
    documents of the pool (every document some run retrieved): mtf
    (move-to-front pooling, Cormack, Palmer & Clarke 1998), hedge (Aslam,
    Pavlu & Savell 2003), uniform (a simple random sample) or pps (AP-prior
    strata of equal mass, a simple random sample of N/S from each of S
    strata; Cormack & Grossman 2019: 5 from each of 20; at most N strata, so
    that every stratum gets a draw); depth takes the top K of every run
    instead (--depth K, as bvtest pool). Every qrels topic with a pool is
    sampled; QRELS and the runs must share a topic.

    \b
    Files: DIR/METHOD.001.qrels, ... (--draws R for uniform and pps).
      uniform, pps: NIST sample_eval.pl's layout, every pooled document:
        qid 0 docno stratum rel      (rel -1: pooled, not judged)
      depth, mtf, hedge: plain qrels of the judged documents.
    Evaluate them with -m xinfAP, statAP or infAP (eval, scores) and compare
    the methods with bvtest rankings --collection NAME=DIR.

    \b
    Examples:
      bvtest sample --method pps --budget 20 --draws 10 --out pps qrels/qrels.txt sample_runs/
      bvtest eval -m statAP pps/pps.001.qrels sample_runs/
      bvtest sample --method hedge --budget 20 --out hedge qrels/qrels.txt sample_runs/
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "sample",
    ("output", "inputs", "method", "budgets", "depth", "strata", "draws", "seed",
     "rel_level", "jobs", "quiet", "repeats"),
    run,
    overrides={
        "inputs": RUNS, "output": SAMPLE_OUT, "budgets": SAMPLE_BUDGET, "depth": SAMPLE_DEPTH,
        "draws": SAMPLE_DRAWS, "rel_level": SAMPLE_REL_LEVEL, "jobs": SAMPLE_JOBS,
        "strata": SAMPLE_STRATA, "repeats": DEPRECATED_ALIAS,
    },
)  # fmt: skip
