"""The installed console script, started as users start it, once per command;
and the in-process runner the rest of the suite uses, checked against it.

Oracle: the process of its own. Every command's help and one small run of it
through the real ``bvtest`` script (exit 0, a non-empty result) must give the
exit status, stdout, stderr and written files that the in-process runner gives
for the same arguments; the runner must leave this process as it found it, and
an in-process ``-j 2`` must still fork its worker processes.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings

import numpy as np
import pytest
from conftest import (
    SAMPLE_QRELS,
    SAMPLE_RUNS,
    run_bvtest,
    run_bvtest_in_process,
    run_bvtest_process,
)

from bvtest_cli.commands import COMMANDS

Q, R = str(SAMPLE_QRELS), str(SAMPLE_RUNS)
PATTERN = r"(?P<system>sys0\d)(?P<condition>\d)"

# command → a small run: its arguments (relative paths are in the run's own
# folder) and the files it writes there instead of printing.
SMALL_RUNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "eval": (("-m", "AP", Q, R), ()),
    "scores": (("-m", "AP,P@5", Q, R), ()),
    "instability": (("-m", "AP", Q, R), ()),
    "tradeoff": (("-m", "AP", "--repeats", "5", Q, R), ()),
    "check": (("-m", "AP", "-g", "AP:mean>=0", Q, R, "new.run"), ()),
    "plot": (("-m", "AP", "-o", "bv.png", Q, R), ("bv.png",)),
    "pertopic": (("-k", "5", "-j", "1", Q, R), ()),
    "conditions": (("--pattern", PATTERN, "-m", "AP", Q, R), ()),
    "rankings": (("--reference", Q, "--collection", f"X={Q}", "--samples", "20", R), ()),
    "pool": (("--depth", "3", Q, R), ()),
    "permute": (("--out", "perm", Q, R), ("perm",)),
    "sample": (("--budget", "5", "--draws", "1", "--out", "samples", Q, R), ("samples",)),
    "design": (("-m", "AP", "--bootstrap", "20", Q, R), ()),
    "sensitivity": (("-m", "AP", "--bootstrap", "20", "--draws", "5", Q, R), ()),
    "budget": (
        ("--budget", "5", "--draws", "2", "--bootstrap", "20", "--methods", "statAP", Q, R),
        (),
    ),
    "variations": (("-m", "AP", Q, R), ()),
    "compare": (("-m", "AP", "--pairs", "all", "--bootstrap", "20", Q, R), ()),
    "judges": (("--judge", f"llm={Q}", "-m", "AP", "--bootstrap", "20", Q, R), ()),
}


def test_every_command_has_a_small_run():
    assert set(SMALL_RUNS) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_of_the_console_script(command):
    real = run_bvtest_process(command, "--help")
    assert real.returncode == 0, real.stderr
    assert real.stderr == ""
    assert real.stdout.startswith(f"Usage: bvtest {command} [OPTIONS]")
    assert real.stdout == run_bvtest_in_process(command, "--help").stdout


def written(folder, names: tuple[str, ...]) -> dict[str, bytes]:
    """The files a run wrote, by path relative to its folder."""
    files = {}
    for name in names:
        path = folder / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file():
                files[str(file.relative_to(folder))] = file.read_bytes()
    return files


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_small_run_of_the_console_script(command, tmp_path):
    """One real run per command; the in-process runner, in a folder of its
    own, gives the same status, output, notes and files."""
    if command == "plot":
        pytest.importorskip("matplotlib")
    args, outputs = SMALL_RUNS[command]
    results = {}
    for how, run in (("process", run_bvtest_process), ("in-process", run_bvtest_in_process)):
        folder = tmp_path / how
        folder.mkdir()
        (folder / "new.run").write_bytes((SAMPLE_RUNS / "sys001").read_bytes())
        proc = run(command, *args, cwd=folder, binary=True)
        results[how] = (proc.returncode, proc.stdout, proc.stderr, written(folder, outputs))
    code, stdout, stderr, files = results["process"]
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert stdout or files
    assert all(files.values()) and len(files) >= len(outputs)
    assert results["in-process"] == results["process"]


def test_in_process_run_leaves_no_trace(tmp_path):
    """What the command may change in a process of its own is restored."""
    state = {
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "argv": list(sys.argv),
        "streams": (sys.stdin, sys.stdout, sys.stderr),
        "filters": list(warnings.filters),
        "showwarning": warnings.showwarning,
        "errstate": np.geterr(),
        "handlers": {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)},
    }
    for args in (("eval", "-m", "AP", "-j", "2", Q, R), ("eval", "--nope"), ("--version",)):
        run_bvtest(*args, cwd=tmp_path)
        assert {
            "environ": dict(os.environ),
            "cwd": os.getcwd(),
            "argv": list(sys.argv),
            "streams": (sys.stdin, sys.stdout, sys.stderr),
            "filters": list(warnings.filters),
            "showwarning": warnings.showwarning,
            "errstate": np.geterr(),
            "handlers": {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)},
        } == state, args


def test_in_process_jobs_fork_worker_processes():
    """`-j 2` in this process still evaluates in forked workers, `-j 1` in none:
    the suite's comparisons of the two compare two ways of computing."""
    one = run_bvtest("scores", "-m", "AP", "-j", "1", Q, R)
    two = run_bvtest("scores", "-m", "AP", "-j", "2", Q, R)
    assert (one.returncode, two.returncode) == (0, 0)
    assert one.forks == 0 and two.forks >= 1
    assert one.stdout == two.stdout


def test_in_process_warning_reaches_stderr():
    """A warning the command does not silence shows in its stderr, as in a
    process of its own (not in pytest's record), so tests that look for
    warnings there can fail."""
    from bvtest_cli.cli import cli

    @cli.command("warn-for-test", hidden=True)
    def warn_for_test() -> None:
        warnings.warn("made by the test", UserWarning, stacklevel=1)

    try:
        proc = run_bvtest("warn-for-test")
    finally:
        del cli.commands["warn-for-test"]
    assert proc.returncode == 0
    assert "UserWarning: made by the test" in proc.stderr


def test_in_process_traceback_is_status_1():
    """An exception that escapes main() is a traceback and status 1, as the
    interpreter reports it."""
    from bvtest_cli.cli import cli

    @cli.command("raise-for-test", hidden=True)
    def raise_for_test() -> None:
        raise LookupError("made by the test")

    try:
        proc = run_bvtest("raise-for-test")
    finally:
        del cli.commands["raise-for-test"]
    assert proc.returncode == 1
    assert proc.stderr.startswith("Traceback") and "LookupError: made by the test" in proc.stderr
