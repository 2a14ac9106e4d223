"""Every option's type and default, one frozen dataclass (:class:`Settings`).

The option table of :mod:`bvtest_cli.options` takes each option's default
from here; the command line parses its flags into one value of it, with
which the doors check what no single option can
(:meth:`bvtest_cli.options.Command.checked`) and the CLI renders; each
command's parameters (``commands/NAME/params.py``) are written with
these types. No command sees it: a command gets its inputs and its own
parameters. Imports only :mod:`bvtest_cli.defaults`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .defaults import (
    BUDGET_METHODS,
    DEFAULT_ALPHAS,
    DEFAULT_BOOTSTRAP,
    DEFAULT_CI_MEMORY_MIB,
    DEFAULT_REPEATS,
    DEFAULT_SEED,
)


@dataclass(frozen=True)
class Settings:
    """Every option's value; defaults are the documented ones."""

    inputs: tuple[str, ...] = ()
    scores: str | None = None
    qrels: str | None = None
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    # The topics every mean averages over: "judged", those with a document
    # relevant at rel_level; "all", every qrels topic (trec_eval -c)
    topic_set: str = "judged"
    sampled_topics: str | None = None  # the old spelling of topic_set, kept one release
    complete: bool = False  # `eval -c`: topic_set "all", as trec_eval spells it
    max_docs: int | None = None  # `eval -M N`: the first N documents of each ranking
    judged_only: bool = False  # `eval -J`: unjudged documents removed before scoring
    jobs: int | None = None
    err_impl: str = "fast"
    quiet: bool = False
    per_topic: bool = False
    target: str | float = "max"
    group: tuple[str, int] | None = None
    normalize: str = "none"
    repeats: int = DEFAULT_REPEATS
    seed: int = DEFAULT_SEED
    alphas: tuple[str, ...] = DEFAULT_ALPHAS
    baseline: str | None = None
    fmt: str = "trec"
    digits: int = 4
    samples: int = 100
    draws: int = 1  # `sample`, `budget`: samples of the judgments drawn
    random_size: int = 10
    difficulty_size: int = 5
    gates: tuple[str, ...] = ()
    output: str | None = None
    pool: str | None = None
    new_runs: tuple[str, ...] = ()
    impl: str = "fast"  # AP, nDCG, P, R, RR from the run's columns, or all through ir_measures
    reference: tuple[str, tuple[str, ...]] | None = None  # (name, (qrels file,))
    collections: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (name, qrels files)
    runs: tuple[str, ...] = ()
    topics: int | None = None  # n′ of `rankings` (None: the reference's n)
    depth: int = 0  # `pool --depth`
    ddof: int = 0
    name: str = "file"
    caption: str | None = None
    sort: str | None = None  # rows of the tables of runs: mean, mse, name (None: per format)
    width: int | None = None  # columns of -f table (None: $COLUMNS, the terminal, else 80)
    new_names: tuple[str, ...] = ()
    map: str | None = None  # --map: conditions' or variations' map file
    condition_pattern: str | None = None
    split: str | None = None
    mode: str | None = None  # None: from the map (docs/variations.md)
    weights: str | None = None
    plot: str | None = None
    ci: float | None = None
    bootstrap: int = DEFAULT_BOOTSTRAP
    ci_method: str = "auto"  # each field its own (registry: Field.interval)
    ci_memory: int = DEFAULT_CI_MEMORY_MIB  # MiB of stored bootstrap replicates (beyond: streamed)
    pair: tuple[tuple[str, str], ...] = ()
    pairs: str | None = None
    test: str = "randomization"  # `compare --test`: the test of a difference in mean
    correction: str = "holm"  # over the pairs compared
    compare_fields: tuple[str, ...] | None = None  # None: all, or mean with --pairs all
    method: str = "pps"  # `sample --method`
    budgets: tuple[int, ...] = (100, 400)  # judgments per topic (`sample`: one)
    strata: int = 20
    topics_scale: tuple[int, ...] = (1, 4)  # `budget`: n′ = scale × n
    methods: tuple[str, ...] = BUDGET_METHODS
    engineered: bool = False
    # `design`: reliability and topic-set sizes
    drop: float = 0.0  # fraction of the worst systems left out first
    topic_counts: tuple[int, ...] = ()  # D-study n′ (): n, 2n, 4n
    reliability: float = 0.95
    significance: float = 0.05  # the α of a test (--alpha is risk aversion)
    beta: float = 0.20
    min_diffs: tuple[float, ...] = (0.05, 0.10)
    ci_widths: tuple[float, ...] = (0.05, 0.10)
    systems: int | None = None  # m of the ANOVA design (None: the systems analysed)
    variance: str = "residual"
    budget_report: str | None = None
    totals: tuple[int, ...] = ()  # (): n·N for each budget N of the report
    # `sensitivity`: swap rates [Voorhees02]
    subset_sizes: tuple[int, ...] = ()  # topic-subset sizes c (): 5, 10, … up to n // 2
    bin_width: float = 0.01  # width of the bins of the difference on the first subset
    # `judges`: automatic assessors beside the human one
    judges: tuple[tuple[str, str], ...] = ()  # (name, file, or "sim:" + confusion file)
    grade_map: tuple[tuple[int, int], ...] = ()  # grade → grade, both sides, before all else
    human_topics: tuple[int, ...] = ()  # n of the experiment (): none
    ppi_lambda: float | None = None  # None: PPI++'s tuned λ
    ppi_interval: str = "normal"


#: Per command: the deprecated alias's attribute → (the attribute it fills now,
#: the old flag, the new one).
ALIASES: dict[str, dict[str, tuple[str, str, str]]] = {
    "rankings": {"samples": ("bootstrap", "--samples", "--bootstrap")},
    "budget": {
        "samples": ("bootstrap", "--samples", "--bootstrap"),
        "repeats": ("draws", "--repeats", "--draws"),
    },
    "sample": {"repeats": ("draws", "--repeats", "--draws")},
}


def typed(s: object, command: str, attr: str, flag: str) -> str:
    """The flag that set ``attr`` in ``command`` as the user typed it: a
    deprecated alias when that was given (a message about --draws the user
    never typed would not say which of their flags is wrong), else ``flag``."""
    for old, (new, old_flag, _) in ALIASES.get(command, {}).items():
        if new == attr and getattr(s, old) is not None:
            return old_flag
    return flag
