"""The parameters of ``bvtest budget``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class BudgetParams(Params):
    """The parameters of ``bvtest budget``, each checked when they are built."""

    command: ClassVar[str] = "budget"
    budgets: tuple[int, ...] = (100, 400)
    topics_scale: tuple[int, ...] = (1, 4)
    methods: tuple[str, ...] = ("xinfAP", "statAP", "depth", "hedge", "mtf")
    engineered: bool = False
    draws: int = 100
    strata: int = 20
    bootstrap: int = 1000
    seed: int = 20220101
    rel_level: int = 1
    jobs: int | None = None
    repeats: int | None = None
    samples: int | None = None
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False
