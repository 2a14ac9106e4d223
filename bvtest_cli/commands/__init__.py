"""The commands: one module per command, each a short declaration.

A command module holds the command's help (its function's docstring), the
options it takes by name (declared once in :mod:`bvtest_cli.options`, with
the keywords it changes in some of them) and its function Settings → Report,
which calls the report layer. Heavy imports stay inside the functions, so
``bvtest --help`` loads no numpy. May import every lower layer: report,
render, analyses, measures, io, and the foundation (errors, defaults,
settings, options); :mod:`bvtest_cli.cli` and :mod:`bvtest_cli.api` build on
:data:`COMMANDS`.
"""

from __future__ import annotations

from ..options import Command
from . import (
    budget,
    check,
    compare,
    conditions,
    design,
    eval,
    instability,
    permute,
    pertopic,
    plot,
    pool,
    rankings,
    sample,
    scores,
    tradeoff,
    variations,
)

#: Every command by name.
COMMANDS: dict[str, Command] = {
    m.COMMAND.name: m.COMMAND
    for m in (
        eval, scores, instability, tradeoff, check, plot, pertopic, conditions, rankings, pool,
        permute, sample, budget, variations, compare, design,
    )
}  # fmt: skip
