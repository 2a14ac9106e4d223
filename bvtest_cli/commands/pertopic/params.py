"""The parameters of ``bvtest pertopic``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class PertopicParams(Params):
    """The parameters of ``bvtest pertopic``, each checked when they are built."""

    command: ClassVar[str] = "pertopic"
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
