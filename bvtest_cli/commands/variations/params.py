"""The parameters of ``bvtest variations``, written from its option declarations
(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...options.params import Params


@dataclass(frozen=True)
class VariationsParams(Params):
    """The parameters of ``bvtest variations``, each checked when they are built."""

    command: ClassVar[str] = "variations"
    name: str = "file"
    map: str | None = None
    split: str | None = None
    mode: str | None = None
    weights: str | None = None
    alphas: tuple[str, ...] = (
        "-20",
        "-19",
        "-18",
        "-17",
        "-16",
        "-15",
        "-14",
        "-13",
        "-12",
        "-11",
        "-10",
        "-9",
        "-8",
        "-7",
        "-6",
        "-5",
        "-4",
        "-3",
        "-2",
        "-1",
        "0",
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "10",
        "11",
        "12",
        "13",
        "14",
        "15",
        "16",
        "17",
        "18",
        "19",
        "20",
    )
    per_topic: bool = False
    measures: tuple[str, ...] = ()
    rel_level: int = 1
    topic_set: str = "judged"
    sampled_topics: str | None = None
    jobs: int | None = None
    err_impl: str = "fast"
    impl: str = "fast"
    plot: str | None = None
    caption: str | None = None
    width: int | None = None
    sort: str | None = None
    fmt: str = "trec"
    digits: int = 4
    quiet: bool = False
