"""``bvtest variations``: mean–variance evaluation over query variations (Zuccon16)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...defaults import VARIATION_ALPHAS
from ...options import EVALUATION, INPUTS, OUTPUT, Command, parse_variation_alphas, parsed_by

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import VariationsParams


VARIATIONS_ALPHAS = dict(
    default=VARIATION_ALPHAS,
    show_default=True,
    metavar="LIST|START:STOP:STEP",
    callback=parsed_by(parse_variation_alphas),
    help="The alpha grid of O = mu - alpha var: a list (-1,0,0.5) or START:STOP:STEP "
    "(STOP included when reached); negative alphas favour unstable systems.",
)


VARIATIONS_MAP = dict(
    help="Query variations: 'variation_id topic_id [user]' lines. The qrels are "
    "keyed by topic and apply to every variation of it."
)


def run(inputs: Inputs, p: VariationsParams) -> Report:
    """Mean–variance evaluation over query variations (Zuccon16).

    Runs answer query variations (query ids such as 201-4); the map says the
    topic (and user) of each, the qrels are keyed by topic. Per measure and
    run: the mean mu, the variance var and O = mu − alpha var for every alpha
    (alpha > 0 rewards stable runs, alpha < 0 unstable ones); per alpha,
    Kendall's tau and tau_AP between the ranking by O and the ranking by mu;
    and the crossovers: every pair of runs that swaps places within the
    alpha range, at the exact alpha where it does.

    \b
    Modes: general  mu, var over user slots of the topic-weighted score
                    (the map names a user on every line; every user, every topic)
           intra    each topic over its variations, runs ranked per topic;
                    tau, tau_ap per topic and their mean (-q: per-topic mu, var, o)
           inter    one query per topic, over topics (plain TREC data)

    \b
    JSON: {"mode", "alphas": [...], "measures": {MEASURE: {"n_topics",
           "n_variations", "n_users" (general), "systems": {RUN: {"mu", "var",
           "o": {ALPHA: ..}}}, "tau": {ALPHA: ..}, "tau_ap": {ALPHA: ..},
           "topics" (intra): {TOPIC: {"tau", "tau_ap"}},
           "crossovers": [{"a", "b", "alpha"} (+ "topic" in intra)]}}}
    trec: AP.o@-2<TAB>run<TAB>v, AP.tau@5<TAB>all<TAB>v,
          AP.crossover<TAB>runA:runB<TAB>0.8136 (runA leads below that alpha)

    \b
    Examples:
      bvtest variations --map docs/examples/uqv/map.txt \\
          docs/examples/uqv/qrels.txt docs/examples/uqv/runs/
      bvtest variations --split - --mode intra -m P@10 -f table \\
          docs/examples/uqv/qrels.txt docs/examples/uqv/runs/
      bvtest variations --mode inter --alpha=-10:10:0.5 --plot tau.png \\
          qrels/qrels.txt sample_runs/
      bvtest variations --map docs/examples/uqv/map.txt \\
          --weights docs/examples/uqv/weights.txt -f json \\
          docs/examples/uqv/qrels.txt docs/examples/uqv/runs/
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "variations",
    (
        *INPUTS,
        "map",
        "split",
        "mode",
        "weights",
        "alphas",
        "per_topic",
        *EVALUATION,
        "plot",
        *OUTPUT,
    ),
    run,
    overrides={"alphas": VARIATIONS_ALPHAS, "map": VARIATIONS_MAP},
)
