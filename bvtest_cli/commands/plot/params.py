"""The parameters of ``bvtest plot``: one frozen dataclass, the
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
class PlotParams(Params):
    """The parameters of ``bvtest plot``."""

    command: ClassVar[str] = "plot"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    target: str | float = "max"
    group: tuple[str, int] | None = None
    normalize: str = "none"
    repeats: int = 1000
    seed: int = 20220101
    alphas: tuple[str, ...] = ("0", "1", "5", "10")
    baseline: str | None = None
    ddof: int = 0
    ci: float | None = None
    bootstrap: int = 1000
    ci_method: str = "auto"
    ci_memory: int = 256
    output: str | None = None
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from . import COMMAND

        return keyword_options(COMMAND)
