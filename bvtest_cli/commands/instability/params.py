"""The parameters of ``bvtest instability``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class InstabilityParams(Params):
    """The parameters of ``bvtest instability``, each checked when they are built."""

    command: ClassVar[str] = "instability"
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
