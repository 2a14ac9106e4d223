"""The parameters of ``bvtest sample``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class SampleParams(Params):
    """The parameters of ``bvtest sample``, each checked when they are built."""

    command: ClassVar[str] = "sample"
    output: str | None = None
    method: str = "pps"
    budgets: tuple[int, ...] = ()
    depth: int | None = None
    strata: int = 20
    draws: int = 1
    seed: int = 20220101
    rel_level: int = 1
    jobs: int | None = None
    repeats: int | None = None
    quiet: bool = False
