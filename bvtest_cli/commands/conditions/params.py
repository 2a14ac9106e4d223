"""The parameters of ``bvtest conditions``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class ConditionsParams(Params):
    """The parameters of ``bvtest conditions``, each checked when they are built."""

    command: ClassVar[str] = "conditions"
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
