"""Each command's parameters: a frozen dataclass of its own, written from
the option declarations (bvtest_cli/commands/NAME/params.py), every field the
command's option with its default, each value checked once."""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys

import pytest
from conftest import REPO

from bvtest_cli.commands import COMMANDS
from bvtest_cli.commands.compare.params import CompareParams
from bvtest_cli.commands.eval.params import EvalParams
from bvtest_cli.errors import InputError
from bvtest_cli.options import keyword_options
from bvtest_cli.options.params import RENDERING


def test_each_module_is_written_from_the_declarations():
    sys.path.insert(0, str(REPO / "tools"))
    from gen_docs import params_sources

    sources = params_sources()
    assert len(sources) == len(COMMANDS)
    for path, source in sources.items():
        assert path.read_text() == source, f"{path} is stale: python tools/gen_docs.py"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_field_is_an_option_of_the_command_with_its_default(name):
    params = COMMANDS[name].params
    assert params.__module__ == f"bvtest_cli.commands.{name}.params" and params.command == name
    assert dataclasses.is_dataclass(params) and params.__dataclass_params__.frozen
    declared = keyword_options(COMMANDS[name])
    own = {f.name: f.default for f in dataclasses.fields(params) if f.name not in RENDERING}
    assert own == {attr: option.default() for attr, option in declared.items()}
    rendering = {f.name for f in dataclasses.fields(params) if f.name in RENDERING}
    assert rendering == set(RENDERING) & set(COMMANDS[name].options)


def test_values_are_checked_once_when_built_and_errors_name_the_parameter():
    p = CompareParams(compare_fields=["var", "mean"], alphas=[0, 5], pair=("a", "b"))
    assert p.compare_fields == ("mean", "var") and p.alphas == ("0", "5")
    assert p.pair == (("a", "b"),)
    with pytest.raises(InputError, match=r"^invalid bootstrap=1: 1 is not in the range 2<=x"):
        EvalParams(bootstrap=1)
    with pytest.raises(InputError, match=r"invalid ci=1.5"):
        EvalParams(ci=1.5)
    with pytest.raises(TypeError, match="colour"):
        EvalParams(colour="red")  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        EvalParams().seed = 1  # type: ignore[misc]
    # the parsed values of the command line are not checked again
    parsed = EvalParams.parsed({"alphas": ("0", "5"), "bootstrap": 200})
    assert parsed == EvalParams(alphas=[0, 5], bootstrap=200)
    assert parsed.given() == {"alphas", "bootstrap"}


def test_the_signature_lists_every_parameter_with_its_type():
    signature = inspect.signature(EvalParams)
    assert signature.parameters["bootstrap"].annotation == "int"
    assert signature.parameters["alphas"].default == ("0", "1", "5", "10")
    assert signature.parameters["ci"].annotation == "float | None"


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"ci": float("nan")}, "invalid ci=nan: 'nan' is not a finite number"),
        ({"ci": float("inf")}, "invalid ci=inf"),
        ({"alphas": [float("nan")]}, "alpha 'nan' is not a finite number"),
        ({"repeats": 3.5}, "'3.5' is not a valid integer"),
        ({"seed": -1}, "-1 is not in the range 0<=x"),
        ({"group": "random:0"}, "K must be a positive integer"),
        ({"measures": []}, "invalid measures: an empty list names nothing"),
        ({"alphas": ()}, "invalid alphas: an empty tuple names nothing"),
    ],
)
def test_hostile_values_are_refused_by_the_dataclass_as_by_the_keywords(keywords, message):
    import bvtest

    for make in (lambda: EvalParams(**keywords), lambda: bvtest.params("eval", **keywords)):
        with pytest.raises(InputError, match=re.escape(message)):
            make()


def test_a_huge_count_in_a_params_dataclass_is_refused_before_any_work():
    from conftest import SAMPLE_QRELS, SAMPLE_RUNS

    from bvtest_cli.io.sources import Inputs

    inputs = Inputs(qrels=str(SAMPLE_QRELS), runs=(str(SAMPLE_RUNS),))
    with pytest.raises(InputError, match=r"^--bootstrap 10{30}: "):
        COMMANDS["eval"].build(inputs, EvalParams(measures="AP", ci=0.9, bootstrap=10**30))
