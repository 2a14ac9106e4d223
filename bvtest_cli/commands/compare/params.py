"""The parameters of ``bvtest compare``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class CompareParams(Params):
    """The parameters of ``bvtest compare``, each checked when they are built."""

    command: ClassVar[str] = "compare"
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
