"""The parameters of ``bvtest eval``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class EvalParams(Params):
    """The parameters of ``bvtest eval``, each checked when they are built."""

    command: ClassVar[str] = "eval"
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
