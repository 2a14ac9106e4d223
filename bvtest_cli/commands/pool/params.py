"""The parameters of ``bvtest pool``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class PoolParams(Params):
    """The parameters of ``bvtest pool``, each checked when they are built."""

    command: ClassVar[str] = "pool"
    depth: int = 0
    jobs: int | None = None
    quiet: bool = False
