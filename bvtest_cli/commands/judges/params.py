"""The parameters of ``bvtest judges``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class JudgesParams(Params):
    """The parameters of ``bvtest judges``, each checked when they are built."""

    command: ClassVar[str] = "judges"
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
