"""The parameters of ``bvtest compare``: one frozen dataclass, the
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
class CompareParams(Params):
    """The parameters of ``bvtest compare``."""

    command: ClassVar[str] = "compare"
    input_names: ClassVar[tuple[str, ...]] = ("inputs", "scores")
    name: str = "file"
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    pair: tuple[tuple[str, str], ...] = ()
    pairs: str | None = None
    test: str = "randomization"
    correction: str = "holm"
    compare_fields: tuple[str, ...] | None = None
    significance: float = 0.05
    baseline: str | None = None
    target: str | float = "max"
    normalize: str = "none"
    ddof: int = 0
    alphas: tuple[str, ...] = ("0", "1", "5", "10")
    seed: int = 20220101
    ci: float | None = 0.95
    bootstrap: int = 1000
    ci_method: str = "auto"
    ci_memory: int = 256
    caption: str | None = None
    width: int | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        from . import COMMAND

        return keyword_options(COMMAND)
