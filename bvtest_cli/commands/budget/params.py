"""The parameters of ``bvtest budget``: one frozen dataclass, the
command's options as its fields, with their types and defaults.

Written by ``python tools/gen_docs.py`` from the option declarations
(:func:`bvtest_cli.options.params.params_module`); do not edit: a test
checks it is current. Each value is checked when the parameters are
built (:class:`~bvtest_cli.options.params.Params`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ...options import keyword_options
from ...options.params import Params


@dataclass(frozen=True)
class BudgetParams(Params):
    """The parameters of ``bvtest budget``."""

    command: ClassVar[str] = "budget"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
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

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from . import COMMAND

        return keyword_options(COMMAND)
