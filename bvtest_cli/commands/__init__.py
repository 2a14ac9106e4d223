"""The commands: one module per command, each a short declaration.

A command module holds the command's help (its function's docstring), the
options it takes by name (declared once in :mod:`bvtest_cli.options`, with
the keywords it changes in some of them) and its function (inputs,
parameters) → Report, which calls the report layer; ``NAME/params.py`` its
parameters' dataclass, written from its declarations. Heavy imports stay inside the functions, so
``bvtest --help`` loads no numpy. May import every lower layer: report,
render, analyses, measures, io, and the foundation (errors, defaults,
settings, options); :mod:`bvtest_cli.cli` and :mod:`bvtest_cli.api` build on
:data:`COMMANDS`.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from functools import wraps

from ..io.sources import Inputs
from ..options import Command
from ..options.params import Params, class_name
from ..report.model import Report, show_html_with
from . import (
    budget,
    check,
    compare,
    conditions,
    design,
    eval,
    instability,
    judges,
    permute,
    pertopic,
    plot,
    pool,
    rankings,
    sample,
    scores,
    sensitivity,
    tradeoff,
    variations,
)


def _named(command: Command) -> Command:
    """``command`` with its parameters' dataclass, whose report names it (a
    report's repr says which command made it)."""
    run = command.run

    @wraps(run)  # the docstring is the command's help
    def run_named(inputs: Inputs, p: Params) -> Report:
        return replace(run(inputs, p), command=command.name)

    def params() -> type[Params]:
        # each command's parameters in its own module, imported when first
        # asked for: a command run loads one class, ``bvtest --help`` none
        module = importlib.import_module(f".{command.name}.params", __name__)
        return getattr(module, class_name(command.name))

    return replace(command, run=run_named, load_params=params)


def _html_fragment(report: Report) -> str:
    from ..render.html import render_fragment

    return render_fragment(report.sorted_by("mean"))  # as the page: best first


show_html_with(_html_fragment)  # a report in a notebook: the -f html page's body

#: Every command by name.
COMMANDS: dict[str, Command] = {
    m.COMMAND.name: _named(m.COMMAND)
    for m in (
        eval, scores, instability, tradeoff, check, plot, pertopic, conditions, rankings, pool,
        permute, sample, budget, variations, compare, design, sensitivity, judges,
    )
}  # fmt: skip
