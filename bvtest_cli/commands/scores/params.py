"""The parameters of ``bvtest scores``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class ScoresParams(Params):
    """The parameters of ``bvtest scores``, each checked when they are built."""

    command: ClassVar[str] = "scores"
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    quiet: bool = False
