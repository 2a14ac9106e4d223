"""The parameters of ``bvtest rankings``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class RankingsParams(Params):
    """The parameters of ``bvtest rankings``, each checked when they are built."""

    command: ClassVar[str] = "rankings"
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
