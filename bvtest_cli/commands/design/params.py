"""The parameters of ``bvtest design``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class DesignParams(Params):
    """The parameters of ``bvtest design``, each checked when they are built."""

    command: ClassVar[str] = "design"
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
