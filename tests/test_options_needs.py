"""No option is ignored silently: an option given where it would have no
effect is an error naming it (options.NEEDS), checked for every command that
takes it; messages never show Python internals."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest

import bvtest
from bvtest_cli.commands import COMMANDS
from bvtest_cli.options import NEEDS, OPTIONS

VALUES = {"bootstrap": "50", "ci_method": "bca", "ci_memory": "64", "repeats": "7",
          "caption": "Table", "width": "100", "per_topic": None, "draws": "5"}  # fmt: skip
ENABLE = {"bootstrap": ["--ci", "0.9"], "ci_method": ["--ci", "0.9"],
          "ci_memory": ["--ci", "0.9"], "repeats": ["--group", "random:3"],
          "caption": ["-f", "latex"], "width": ["-f", "table"],
          "per_topic": ["-f", "trec"], "draws": ["--human-topics", "5"]}  # fmt: skip


def _cases():
    for command in sorted(COMMANDS):
        for name in sorted(NEEDS):
            if name in COMMANDS[command].options:
                yield command, name


def _inputs(command: str, tmp_path=None) -> list:
    if command == "pertopic":
        return ["-k", "3", SAMPLE_QRELS, SAMPLE_RUNS]
    if command == "plot":
        return ["-o", "never.png", SAMPLE_QRELS, SAMPLE_RUNS]
    if command == "compare":
        return ["--pairs", "all", SAMPLE_QRELS, SAMPLE_RUNS]
    if command == "rankings":
        return ["--reference", SAMPLE_QRELS, "--collection", f"x={SAMPLE_QRELS}", SAMPLE_RUNS]
    if command == "check":
        return ["-g", "AP:mean>=0", SAMPLE_QRELS, SAMPLE_RUNS / "sys001", SAMPLE_RUNS / "sys002"]
    if command == "judges":
        return ["--judge", f"llm={SAMPLE_QRELS}", SAMPLE_QRELS, SAMPLE_RUNS]
    if command == "conditions":
        return ["--pattern", "sys(?P<system>0[0-9])(?P<condition>[0-9])", SAMPLE_QRELS,
                SAMPLE_RUNS]  # fmt: skip
    return [SAMPLE_QRELS, SAMPLE_RUNS]


def test_the_table_covers_the_options_that_need_another():
    assert set(VALUES) == set(NEEDS)
    assert all(name in OPTIONS for name in NEEDS)


@pytest.mark.parametrize(("command", "name"), list(_cases()))
def test_an_option_without_what_it_needs_is_an_error(command, name):
    flag = max(OPTIONS[name].decls, key=len)
    met = NEEDS[name][1]
    from bvtest_cli.cli import cli
    from bvtest_cli.settings import Settings

    defaults = {p.name: p.default for p in cli.commands[command].params if p.name}
    known = {
        k: v
        for k, v in defaults.items()
        if k in ("ci", "fmt") and isinstance(v, (str, float, int, type(None)))
    }
    if met(Settings(**known), COMMANDS[command].options):  # always meaningful here
        pytest.skip(f"{flag} is always used by {command}")
    measure = [] if command in ("pertopic", "budget") else ["-m", "AP"]
    value = [] if VALUES[name] is None else [VALUES[name]]  # a flag takes no value
    if name == "per_topic":  # -q is meaningless beside a table (eval's only)
        measure = [*measure, "-f", "table"]
    args = [command, *measure, flag, *value, *_inputs(command)]
    assert_one_line_error(run_bvtest(*args), flag, "means something only with")
    if command in ("eval", "instability", "tradeoff"):  # and with it, it runs
        base = [m for m in measure if m not in ("-f", "table")]
        enabled = [command, *base, *ENABLE[name], flag, *value, *_inputs(command)]
        if name == "repeats" and command == "instability":
            return
        proc = run_bvtest(*enabled)
        assert proc.returncode == 0, proc.stderr


def test_the_api_says_it_too():
    with pytest.raises(bvtest.InputError, match="bootstrap"):
        bvtest.evaluate(SAMPLE_QRELS, SAMPLE_RUNS, measures="AP", bootstrap=50)


@pytest.mark.parametrize("alpha", ["0,,", ",", "0,1,", ",5"])
def test_empty_items_in_lists_are_errors(alpha):
    assert_one_line_error(run_bvtest("eval", f"--alpha={alpha}", SAMPLE_QRELS, SAMPLE_RUNS),
                          "--alpha")  # fmt: skip


@pytest.mark.parametrize("measures", ["AP,,P@10", "AP,", ",AP"])
def test_empty_items_in_measure_lists_are_errors(measures):
    assert_one_line_error(run_bvtest("eval", "-m", measures, SAMPLE_QRELS, SAMPLE_RUNS), "-m")


@pytest.mark.parametrize("measure", ["SDCG@10", "INST", "NERR8@10", "RBP", "NERR10@5"])
def test_measure_errors_are_for_people(measure):
    proc = run_bvtest("eval", "-m", measure, SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, measure)
    assert "<object" not in proc.stderr and "0x" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "old", "new"),
    [
        (("rankings", "--reference", SAMPLE_QRELS, "--collection", f"X={SAMPLE_QRELS}",
          "-m", "AP", "--samples", "1", SAMPLE_RUNS), "--samples", "--bootstrap"),
        (("sample", "--budget", "5", "--repeats", "1", "--out", "OUT", SAMPLE_QRELS,
          SAMPLE_RUNS), "--repeats", "--draws"),
    ],
)  # fmt: skip
def test_a_deprecated_spelling_still_works_and_says_so(args, old, new, tmp_path):
    args = tuple(str(tmp_path / "out") if a == "OUT" else a for a in args)
    proc = run_bvtest(*args)
    assert proc.returncode == 0, proc.stderr
    assert f"{old} is deprecated" in proc.stderr and f"it is {new} now" in proc.stderr


def test_every_default_is_the_settings_default():
    """Defaults are written once, in Settings: every option a command does not
    give another default to parses, unset, to the Settings default."""
    import dataclasses

    import click

    from bvtest_cli.cli import cli
    from bvtest_cli.commands import COMMANDS
    from bvtest_cli.options import OPTIONS
    from bvtest_cli.settings import Settings

    defaults = {f.name: f.default for f in dataclasses.fields(Settings)}
    checked = 0
    for name, command in cli.commands.items():
        ctx = command.make_context(name, [], resilient_parsing=True)
        overrides = COMMANDS[name].overrides
        for param in command.params:
            if not isinstance(param, click.Option) or param.name not in OPTIONS:
                continue
            if "default" in overrides.get(param.name, {}):
                continue
            value = ctx.params.get(param.name)
            if value is None and defaults[param.name] in ((), False):
                continue
            assert value == defaults[param.name], (name, param.name, value)
            checked += 1
    assert checked > 100
