"""The parameters of ``bvtest sensitivity``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class SensitivityParams(Params):
    """The parameters of ``bvtest sensitivity``, each checked when they are built."""

    command: ClassVar[str] = "sensitivity"
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
