"""Every float option of every command refuses NaN and ±infinity in one line
(one rule, options.parsers.real); the API refuses them as InputError; no
command's help prints a doubled %; an option that cannot act (--sort where no
table of runs is printed) is refused; an old spelling beside the new one is
an error naming both, and refusals name the flag as typed."""

from __future__ import annotations

import math

import click
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest

import bvtest
from bvtest_cli.cli import cli
from bvtest_cli.commands import COMMANDS
from bvtest_cli.options import ALIASES, OPTIONS
from bvtest_cli.options.clicktypes import ClickReal
from bvtest_cli.options.parsers import (
    parse_alphas,
    parse_positive_floats,
    parse_target,
    parse_variation_alphas,
)

Q, R = str(SAMPLE_QRELS), str(SAMPLE_RUNS)

#: The parsers of float-valued options given as text (lists, or a word or a number).
FLOAT_PARSERS = {parse_alphas, parse_positive_floats, parse_target, parse_variation_alphas}


def takes_floats(param: click.Parameter) -> bool:
    parser = getattr(param.callback, "parse", None)
    return isinstance(param.type, ClickReal) or parser in FLOAT_PARSERS


def float_options() -> list[tuple[str, str]]:
    """(command, flag) of every float option of every command, from the
    commands' own click declarations (a new float option is in it)."""
    found = []
    for name in sorted(COMMANDS):
        for param in cli.commands[name].params:
            if isinstance(param, click.Option) and takes_floats(param):
                found.append((name, max(param.opts, key=len)))
    return found


def test_every_float_declaration_goes_through_the_one_rule():
    """No float option is declared with click's FLOAT or FloatRange, which
    let NaN through: a new one would escape the tests below."""
    for name in COMMANDS:
        for param in cli.commands[name].params:
            if isinstance(param.type, click.types.FloatParamType):
                assert isinstance(param.type, ClickReal), (name, param.name)
    for option in OPTIONS.values():
        # the table declares kinds, never click types (the API has no click)
        kind = option.kwargs.get("type")
        assert not isinstance(kind, click.ParamType), option.attr
        assert kind is not float, option.attr
    # the table holds every float option the issue names
    flags = {flag for _, flag in float_options()}
    assert {"--significance", "--ci", "--beta", "--reliability", "--bin-width", "--drop",
            "--target", "--alpha", "--min-diff", "--ci-width"} <= flags  # fmt: skip


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "-nan"])
@pytest.mark.parametrize(("command", "flag"), float_options())
def test_a_float_option_refuses_what_is_not_a_finite_number(command, flag, value):
    proc = run_bvtest(command, f"{flag}={value}", Q, R)
    assert_one_line_error(proc, flag, "is not a finite number")
    assert proc.stderr.startswith("bvtest: ")


def test_from_a_process_of_its_own_too():
    proc = run_bvtest("sensitivity", "--significance", "nan", "-m", "AP", Q, R, subprocess=True)
    assert_one_line_error(proc, "--significance", "'nan' is not a finite number")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("design", "--drop=-0.5"), "must be in [0, 1)"),
        (("design", "--reliability=1"), "must be in (0, 1)"),
        (("sensitivity", "--bin-width=0"), "must be in (0, 1]"),
        (("design", "--min-diff=0.1,-0"), "must be > 0"),
        (("eval", "--alpha=0,1e7"), "alpha '1e7' must be in [0, 1e6]"),
        (("eval", "--target=1.5"), "must be in [0, 1]"),
        (("variations", "--alpha=0:inf:1"), "alpha 'inf' is not a finite number"),
    ],
)
def test_out_of_range_says_the_range(args, fragment):
    assert_one_line_error(run_bvtest(*args, Q, R), fragment)


def test_minus_zero_is_zero_where_zero_is_allowed():
    assert parse_target("-0") == 0.0 and math.copysign(1.0, parse_target("-0")) == 1.0


@pytest.mark.parametrize(
    ("call", "keyword"),
    [
        (lambda: bvtest.compare(Q, R, measures="AP", pairs="all", significance=math.nan),
         "significance="),
        (lambda: bvtest.compare(Q, R, measures="AP", pairs="all", ci=math.inf), "ci="),
        (lambda: bvtest.evaluate(Q, R, measures="AP", alphas=[0, math.nan]), "alphas="),
        (lambda: bvtest.evaluate(Q, R, measures="AP", target=-math.inf), "target="),
        (lambda: bvtest.run("design", Q, R, measures="AP", min_diffs=[0.05, math.nan]),
         "min_diffs="),
        (lambda: bvtest.run("sensitivity", Q, R, measures="AP", bin_width=math.nan),
         "bin_width="),
    ],
)  # fmt: skip
def test_the_api_refuses_them_as_input_errors(call, keyword):
    with pytest.raises(bvtest.InputError, match="not a finite number") as caught:
        call()
    assert keyword in str(caught.value)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_help_prints_a_doubled_percent(command):
    proc = run_bvtest(command, "--help")
    assert proc.returncode == 0
    assert "%%" not in proc.stdout


@pytest.mark.parametrize("command", ["compare", "sensitivity", "design", "rankings", "budget"])
def test_sort_is_refused_where_it_cannot_act(command):
    proc = run_bvtest(command, "--sort", "mean", "-m", "AP", Q, R)
    assert_one_line_error(proc, "No such option", "--sort")


def test_sort_still_orders_evals_tables():
    assert "--sort" in run_bvtest("eval", "--help").stdout


@pytest.mark.parametrize(
    ("args", "old", "new"),
    [
        (("sample", "--repeats", "2", "--draws", "3", "--budget", "5", "--out", "OUT", Q, R),
         "--repeats", "--draws"),
        (("budget", "--samples", "5", "--bootstrap", "7", Q, R), "--samples", "--bootstrap"),
        (("rankings", "--reference", Q, "--collection", f"x={Q}", "--samples", "5",
          "--bootstrap", "7", R), "--samples", "--bootstrap"),
        (("budget", "--draws", "3", "--repeats", "2", Q, R), "--repeats", "--draws"),
    ],
)  # fmt: skip
def test_an_old_spelling_beside_the_new_one_is_an_error(args, old, new, tmp_path):
    args = tuple(str(tmp_path / "out") if a == "OUT" else a for a in args)
    proc = run_bvtest(*args)
    assert_one_line_error(proc, f"{old} is the old spelling of {new}; give one")
    assert not (tmp_path / "out").exists()


def test_the_api_refuses_both_spellings_too():
    with pytest.raises(bvtest.InputError, match="old spelling"):
        bvtest.run("budget", Q, R, samples=5, bootstrap=7)


def test_the_spelling_rule_knows_every_command_with_both_names():
    """validate finds an alias by the command's option names: every command
    taking both names of an alias pair must be one whose alias it is."""
    pairs = {(old, new) for aliases in ALIASES.values() for old, (new, _, _) in aliases.items()}
    for name, command in COMMANDS.items():
        for old, new in pairs:
            if old in command.options and new in command.options:
                assert ALIASES.get(name, {}).get(old, (None,))[0] == new, (name, old)


@pytest.mark.parametrize(
    ("args", "typed"),
    [
        (("rankings", "--reference", Q, "--collection", f"x={Q}", "--samples", "100000", R),
         "--samples 100000"),
        (("budget", "--samples", "1000000", Q, R), "--samples 1000000"),
        (("budget", "--repeats", "100000000000000", Q, R), "--repeats 100000000000000"),
    ],
)  # fmt: skip
def test_a_refusal_names_the_flag_as_typed(args, typed):
    proc = run_bvtest(*args)
    assert_one_line_error(proc, typed, "more than the limit")
    assert proc.stderr.startswith(f"bvtest: {typed}:")
