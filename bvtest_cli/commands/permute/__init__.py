"""``bvtest permute``: engineered runs (Cormack & Grossman 2019 §4.2) written to --out DIR."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import RUNS, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import PermuteParams


PERMUTE_OUT = dict(
    required=True,
    metavar="DIR",
    help="New directory for the engineered runs, NAME.perm: written whole or not at "
    "all; an existing directory must be empty.",
)


def run(inputs: Inputs, p: PermuteParams) -> Report:
    """Engineered runs (Cormack & Grossman 2019 §4.2) written to --out DIR.

    For every run and topic, the relevant documents (under QRELS) are
    shuffled among the positions they occupy, within each grade (seeded by
    --seed, the run's name and the topic). Each engineered run DIR/NAME.perm
    (run tag NAME.perm) has exactly its source's per-topic AP, nDCG, P@k...
    under QRELS, but other documents at the top: ranked with the real runs,
    they expose the bias of a shallow pool. Nothing is printed on stdout.

    \b
    Examples:
      bvtest permute --out eng/ qrels/qrels.txt sample_runs/
      bvtest pool --depth 5 qrels/qrels.txt sample_runs/ > depth5.qrels   # the real runs' pool
      bvtest rankings --reference qrels/qrels.txt --collection depth5.qrels sample_runs/ eng/
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "permute",
    ("output", "inputs", "seed", "jobs", "quiet"),
    run,
    overrides={"inputs": RUNS, "output": PERMUTE_OUT},
)
