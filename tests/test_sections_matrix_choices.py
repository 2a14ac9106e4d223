"""What the shared layers read of a command's parameters: Evaluation (how
runs are evaluated, measures/evaluate.py) and Analysis (how a matrix is
analysed, sections/matrix.py). A command without one of their options gets
its default, which must be the option's own (a command with the option and
one without it agree when it is not given)."""

from __future__ import annotations

import dataclasses

import pytest

from bvtest_cli.commands.eval.params import EvalParams
from bvtest_cli.commands.scores.params import ScoresParams
from bvtest_cli.commands.tradeoff.params import TradeoffParams
from bvtest_cli.measures.evaluate import Evaluation
from bvtest_cli.options import OPTIONS
from bvtest_cli.sections.matrix import Analysis


@pytest.mark.parametrize("choices", [Evaluation, Analysis])
def test_every_default_is_the_options_own(choices):
    for f in dataclasses.fields(choices):
        assert f.default == OPTIONS[f.name].default(), f.name


def test_a_command_s_parameters_are_projected_with_its_own_defaults():
    # tradeoff normalizes with minmax by default; eval does not normalize
    assert Analysis.of(TradeoffParams()).normalize == "minmax"
    assert Analysis.of(EvalParams()).normalize == "none"
    a = Analysis.of(EvalParams(alphas=[0, 5], ci=0.9, ci_memory=1), baseline="sys1")
    assert (a.alpha_values, a.ci, a.baseline) == ((0.0, 5.0), 0.9, "sys1")
    assert a.ci_budget == (1 << 20) // 8  # float64 elements in 1 MiB
    assert Analysis.of(EvalParams(group="random:5")).group_text == "random:5"
    # scores takes no -M or -J: eval's defaults
    e = Evaluation.of(ScoresParams(measures=["AP"], jobs=2))
    assert (e.measures, e.jobs, e.max_docs, e.judged_only) == (("AP",), 2, None, False)
    assert Evaluation.of(EvalParams(max_docs=10, judged_only=True)).max_docs == 10
