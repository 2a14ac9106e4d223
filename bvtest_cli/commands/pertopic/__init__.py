"""``bvtest pertopic``: per-topic Bias² and Var of AP from simulated collections (Zhang22 §3.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import OUTPUT, RUNS, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import PertopicParams


def run(inputs: Inputs, p: PertopicParams) -> Report:
    """Per-topic Bias² and Var of AP from simulated collections (Zhang22 §3.4).

    For every run and topic, k collections are simulated from the run's own
    retrieved documents (after Robertson & Kanoulas, SIGIR 2012): the number
    of relevant documents r_s ~ Poisson(r), documents drawn with replacement
    from the run's relevant and non-relevant ones, ranked by their scores.
    Bias² and Var of each run are taken across the k samples against the
    per-sample best run, then averaged over topics (Zhang22 eqs. 13–14,
    Table 10); per topic, the Pearson correlation of Bias² and Var across runs
    (Table 11). Needs runs with scores, not a scores file.

    \b
    Examples:
      bvtest pertopic qrels/qrels.txt sample_runs/
      bvtest pertopic -k 50 --seed 7 -f table qrels/qrels.txt sample_runs/
      bvtest pertopic -q -f json qrels/qrels.txt sample_runs/ > pertopic.json
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "pertopic",
    ("inputs", "samples", "seed", "rel_level", "per_topic", "jobs", "quiet", *OUTPUT),
    run,
    overrides={"inputs": RUNS},
)
