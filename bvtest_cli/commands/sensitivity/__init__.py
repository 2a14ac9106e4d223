"""``bvtest sensitivity``: how discriminating each measure is over the systems
at hand — discriminative power and the difference required [Sakai06], swap
rates [Voorhees02]."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import DESIGN_SCORES, EVALUATION, INPUTS, REPORT_OUTPUT, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import SensitivityParams


def run(inputs: Inputs, p: SensitivityParams) -> Report:
    """How discriminating is each measure? (discriminative power, swap rates)

    For every measure, over all m(m − 1)/2 pairs of systems: discriminative
    power (Sakai 2006), the share of pairs significant at α = .01, .05, .10
    and --significance, three ways — with the p-values of --test as they are
    (raw ASLs, as Sakai counts them: no correction), with those p-values
    adjusted by --correction, and with Sakai's paired bootstrap ASL (B =
    --bootstrap); the ASL curve (every pair's p-value, ascending); Sakai's
    estimated difference required for significance at --significance with
    these topics. Then swap rates (Voorhees & Buckley 2002): two disjoint
    random topic subsets of size c (--subset-sizes; --draws draws per
    size), the pairs binned by their difference on the first (--bin-width),
    the share the second orders the other way, and its exponential fit
    extrapolated to all n topics per bin. Seeded by --seed.

    \b
    JSON: {"significance", "levels", "bootstrap", "seed", "draws",
           "bin_width", "measures": {MEASURE: {"n_systems", "n_topics",
             "pairs", "test", "correction",
             "discriminative_power": {ALPHA: share},
             "discriminative_power_corrected": {ALPHA: share},
             "bootstrap_discriminative_power": {ALPHA: share},
             "delta_needed", "delta_needed_observed_sd",
             "asl": [p, ...], "bootstrap_asl": [p, ...],
             "swap_rates": [{"c", "bin_lo", "bin_hi", "pairs", "swaps",
               "swap_rate"}],
             "extrapolation": [{"bin_lo", "bin_hi", "sizes", "a",
               "intercept", "topics", "predicted"}]}}}
    with ALPHA each of "levels" and a pair significant when its p-value is
    below ALPHA; null where undefined (a fit of fewer than two sizes).

    \b
    Examples:
      bvtest sensitivity -m AP qrels/qrels.txt sample_runs/
      bvtest sensitivity -m AP,nDCG@10 --test t -f table qrels/qrels.txt sample_runs/
      bvtest sensitivity -m AP --subset-sizes 5,10,14 -f json qrels/qrels.txt sample_runs/
    """
    from .build import build

    return build(inputs, p)


#: --significance: the α of delta_needed, and a level of discriminative power.
SIGNIFICANCE = dict(
    help="Significance level α of delta_needed, and a level of the discriminative "
    "power beside .01, .05 and .10."
)
#: --bootstrap: Sakai's bootstrap test (and the permutations of randomised-tukey).
BOOTSTRAP = dict(
    help="Resamples of Sakai's paired bootstrap test (bootstrap_discriminative_power, "
    "delta_needed; and --test bootstrap), and permutations of --test randomised-tukey."
)
#: --draws: draws of two disjoint topic subsets per size.
REPEATS = dict(
    default=50,
    help="Draws of two disjoint topic subsets per subset size c (the swap rates).",
)
#: --correction: applies to the discriminative power after correction only.
CORRECTION = dict(
    help="The correction of discriminative_power_corrected over all pairs: holm, "
    "bonferroni, bh (Benjamini–Hochberg) or none. discriminative_power itself counts "
    "raw p-values, as Sakai does; Tukey's tests hold the family-wise error themselves."
)

COMMAND = Command(
    "sensitivity",
    (
        *INPUTS,
        *EVALUATION,
        "test",
        "correction",
        "significance",
        "bootstrap",
        "subset_sizes",
        "bin_width",
        "draws",
        "seed",
        *REPORT_OUTPUT,
    ),
    run,
    overrides={
        "scores": DESIGN_SCORES,
        "significance": SIGNIFICANCE,
        "bootstrap": BOOTSTRAP,
        "draws": REPEATS,
        "correction": CORRECTION,
    },
)
