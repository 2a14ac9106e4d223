"""The parameters of ``bvtest pertopic``: one frozen dataclass, the
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
class PertopicParams(Params):
    """The parameters of ``bvtest pertopic``."""

    command: ClassVar[str] = "pertopic"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
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

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from . import COMMAND

        return keyword_options(COMMAND)
