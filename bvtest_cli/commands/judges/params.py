"""The parameters of ``bvtest judges``: one frozen dataclass, the
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
class JudgesParams(Params):
    """The parameters of ``bvtest judges``."""

    command: ClassVar[str] = "judges"
    input_names: ClassVar[tuple[str, ...]] = ("inputs",)
    name: str = "file"
    judges: tuple[tuple[str, str], ...] = ()
    grade_map: tuple[tuple[int, int], ...] = ()
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    ddof: int = 0
    ci: float | None = 0.95
    ppi_interval: str = "normal"
    ppi_lambda: float | None = None
    correction: str = "holm"
    significance: float = 0.05
    human_topics: tuple[int, ...] = ()
    draws: int = 100
    bootstrap: int = 1000
    seed: int = 20220101
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from . import COMMAND

        return keyword_options(COMMAND)
