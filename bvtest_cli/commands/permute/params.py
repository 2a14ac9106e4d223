"""The parameters of ``bvtest permute``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class PermuteParams(Params):
    """The parameters of ``bvtest permute``, each checked when they are built."""

    command: ClassVar[str] = "permute"
    output: str | None = None
    seed: int = 20220101
    jobs: int | None = None
    quiet: bool = False
