"""The parameters of each command, one frozen dataclass per command (its
options as fields, with their types and defaults).

Written by ``python tools/gen_docs.py`` from the option declarations
(:func:`bvtest_cli.options.params.params_module`); do not edit: a test
checks it is current. Each value is checked when the parameters are
built (:class:`~bvtest_cli.options.params.Params`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..options import keyword_options
from ..options.params import Params


class CommandParams(Params):
    """The parameters of a command of :data:`~bvtest_cli.commands.COMMANDS`."""


@dataclass(frozen=True)
class EvalParams(CommandParams):
    """The parameters of ``bvtest eval``."""

    command: ClassVar[str] = "eval"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    complete: bool = False
    max_docs: int | None = None
    judged_only: bool = False
    target: str | float = "max"
    group: tuple[str, int] | None = None
    normalize: str = "none"
    repeats: int = 1000
    seed: int = 20220101
    alphas: tuple[str, ...] = ("0", "1", "5", "10")
    baseline: str | None = None
    ddof: int = 0
    ci: float | None = None
    bootstrap: int = 1000
    ci_method: str = "auto"
    ci_memory: int = 256
    caption: str | None = None
    width: int | None = None
    sort: str | None = None
    per_topic: bool = False
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .eval import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class ScoresParams(CommandParams):
    """The parameters of ``bvtest scores``."""

    command: ClassVar[str] = "scores"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .scores import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class InstabilityParams(CommandParams):
    """The parameters of ``bvtest instability``."""

    command: ClassVar[str] = "instability"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    target: str | float = "max"
    normalize: str = "none"
    ddof: int = 0
    seed: int = 20220101
    ci: float | None = None
    bootstrap: int = 1000
    ci_method: str = "auto"
    ci_memory: int = 256
    caption: str | None = None
    width: int | None = None
    sort: str | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .instability import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class TradeoffParams(CommandParams):
    """The parameters of ``bvtest tradeoff``."""

    command: ClassVar[str] = "tradeoff"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    target: str | float = "max"
    random_size: int = 10
    difficulty_size: int = 5
    normalize: str = "minmax"
    repeats: int = 1000
    seed: int = 20220101
    ddof: int = 0
    caption: str | None = None
    width: int | None = None
    sort: str | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .tradeoff import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class CheckParams(CommandParams):
    """The parameters of ``bvtest check``."""

    command: ClassVar[str] = "check"
    input_names: ClassVar[tuple[str, ...]] = ("qrels", "pool", "new_runs", "scores")
    new_names: tuple[str, ...] = ()
    name: str = "file"
    gates: tuple[str, ...] = ()
    test: str = "randomization"
    significance: float = 0.05
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    target: str | float = "max"
    group: tuple[str, int] | None = None
    normalize: str = "none"
    repeats: int = 1000
    seed: int = 20220101
    alphas: tuple[str, ...] = ("0", "1", "5", "10")
    baseline: str | None = None
    ddof: int = 0
    ci: float | None = None
    bootstrap: int = 1000
    ci_method: str = "auto"
    ci_memory: int = 256
    caption: str | None = None
    width: int | None = None
    sort: str | None = None
    fmt: str = "text"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .check import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class PlotParams(CommandParams):
    """The parameters of ``bvtest plot``."""

    command: ClassVar[str] = "plot"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    target: str | float = "max"
    group: tuple[str, int] | None = None
    normalize: str = "none"
    repeats: int = 1000
    seed: int = 20220101
    alphas: tuple[str, ...] = ("0", "1", "5", "10")
    baseline: str | None = None
    ddof: int = 0
    ci: float | None = None
    bootstrap: int = 1000
    ci_method: str = "auto"
    ci_memory: int = 256
    output: str | None = None
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .plot import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class PertopicParams(CommandParams):
    """The parameters of ``bvtest pertopic``."""

    command: ClassVar[str] = "pertopic"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
    samples: int = 100
    seed: int = 20220101
    rel_level: int = 1
    per_topic: bool = False
    jobs: int | None = None
    caption: str | None = None
    width: int | None = None
    sort: str | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .pertopic import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class ConditionsParams(CommandParams):
    """The parameters of ``bvtest conditions``."""

    command: ClassVar[str] = "conditions"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    map: str | None = None
    condition_pattern: str | None = None
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    target: str | float = "max"
    group: tuple[str, int] | None = None
    normalize: str = "none"
    repeats: int = 1000
    seed: int = 20220101
    ddof: int = 0
    plot: str | None = None
    caption: str | None = None
    width: int | None = None
    sort: str | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .conditions import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class RankingsParams(CommandParams):
    """The parameters of ``bvtest rankings``."""

    command: ClassVar[str] = "rankings"
    input_names: ClassVar[tuple[str, ...]] = ("runs",)
    reference: tuple[str, tuple[str, ...]] | None = None
    collections: tuple[tuple[str, tuple[str, ...]], ...] = ()
    measures: tuple[str, ...] = ("AP",)
    bootstrap: int = 1000
    samples: int | None = None
    topics: int | None = None
    seed: int = 20220101
    rel_level: int = 1
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .rankings import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class PoolParams(CommandParams):
    """The parameters of ``bvtest pool``."""

    command: ClassVar[str] = "pool"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
    depth: int = 0
    jobs: int | None = None
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .pool import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class PermuteParams(CommandParams):
    """The parameters of ``bvtest permute``."""

    command: ClassVar[str] = "permute"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
    output: str | None = None
    seed: int = 20220101
    jobs: int | None = None
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .permute import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class SampleParams(CommandParams):
    """The parameters of ``bvtest sample``."""

    command: ClassVar[str] = "sample"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
    output: str | None = None
    method: str = "pps"
    budgets: tuple[int, ...] = ()
    depth: int | None = None
    strata: int = 20
    draws: int = 1
    seed: int = 20220101
    rel_level: int = 1
    jobs: int | None = None
    repeats: int | None = None
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .sample import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class BudgetParams(CommandParams):
    """The parameters of ``bvtest budget``."""

    command: ClassVar[str] = "budget"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
    budgets: tuple[int, ...] = (100, 400)
    topics_scale: tuple[int, ...] = (1, 4)
    methods: tuple[str, ...] = ("xinfAP", "statAP", "depth", "hedge", "mtf")
    engineered: bool = False
    draws: int = 100
    strata: int = 20
    bootstrap: int = 1000
    seed: int = 20220101
    rel_level: int = 1
    jobs: int | None = None
    repeats: int | None = None
    samples: int | None = None
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .budget import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class VariationsParams(CommandParams):
    """The parameters of ``bvtest variations``."""

    command: ClassVar[str] = "variations"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    map: str | None = None
    split: str | None = None
    mode: str | None = None
    weights: str | None = None
    alphas: tuple[str, ...] = (
        "-20",
        "-19",
        "-18",
        "-17",
        "-16",
        "-15",
        "-14",
        "-13",
        "-12",
        "-11",
        "-10",
        "-9",
        "-8",
        "-7",
        "-6",
        "-5",
        "-4",
        "-3",
        "-2",
        "-1",
        "0",
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "10",
        "11",
        "12",
        "13",
        "14",
        "15",
        "16",
        "17",
        "18",
        "19",
        "20",
    )
    per_topic: bool = False
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    plot: str | None = None
    caption: str | None = None
    width: int | None = None
    sort: str | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .variations import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class CompareParams(CommandParams):
    """The parameters of ``bvtest compare``."""

    command: ClassVar[str] = "compare"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    pair: tuple[tuple[str, str], ...] = ()
    pairs: str | None = None
    test: str = "randomization"
    correction: str = "holm"
    compare_fields: tuple[str, ...] | None = None
    significance: float = 0.05
    baseline: str | None = None
    target: str | float = "max"
    normalize: str = "none"
    ddof: int = 0
    alphas: tuple[str, ...] = ("0", "1", "5", "10")
    seed: int = 20220101
    ci: float | None = 0.95
    bootstrap: int = 1000
    ci_method: str = "auto"
    ci_memory: int = 256
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .compare import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class DesignParams(CommandParams):
    """The parameters of ``bvtest design``."""

    command: ClassVar[str] = "design"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    drop: float = 0.0
    topic_counts: tuple[int, ...] = ()
    reliability: float = 0.95
    ci: float | None = 0.95
    significance: float = 0.05
    beta: float = 0.2
    min_diffs: tuple[float, ...] = (0.05, 0.1)
    ci_widths: tuple[float, ...] = (0.05, 0.1)
    systems: int | None = None
    variance: str = "residual"
    budget_report: str | None = None
    totals: tuple[int, ...] = ()
    bootstrap: int = 1000
    seed: int = 20220101
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .design import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class SensitivityParams(CommandParams):
    """The parameters of ``bvtest sensitivity``."""

    command: ClassVar[str] = "sensitivity"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    test: str = "randomization"
    correction: str = "holm"
    significance: float = 0.05
    bootstrap: int = 1000
    subset_sizes: tuple[int, ...] = ()
    bin_width: float = 0.01
    draws: int = 50
    seed: int = 20220101
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .sensitivity import COMMAND

        return keyword_options(COMMAND)


@dataclass(frozen=True)
class JudgesParams(CommandParams):
    """The parameters of ``bvtest judges``."""

    command: ClassVar[str] = "judges"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
    name: str = "file"
    judges: tuple[tuple[str, str], ...] = ()
    grade_map: tuple[tuple[int, int], ...] = ()
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    ddof: int = 0
    ci: float | None = 0.95
    ppi_interval: str = "normal"
    ppi_lambda: float | None = None
    correction: str = "holm"
    significance: float = 0.05
    human_topics: tuple[int, ...] = ()
    draws: int = 100
    bootstrap: int = 1000
    seed: int = 20220101
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from .judges import COMMAND

        return keyword_options(COMMAND)


#: Each command's parameters by its name.
PARAMS: dict[str, type[CommandParams]] = {
    "eval": EvalParams,
    "scores": ScoresParams,
    "instability": InstabilityParams,
    "tradeoff": TradeoffParams,
    "check": CheckParams,
    "plot": PlotParams,
    "pertopic": PertopicParams,
    "conditions": ConditionsParams,
    "rankings": RankingsParams,
    "pool": PoolParams,
    "permute": PermuteParams,
    "sample": SampleParams,
    "budget": BudgetParams,
    "variations": VariationsParams,
    "compare": CompareParams,
    "design": DesignParams,
    "sensitivity": SensitivityParams,
    "judges": JudgesParams,
}
