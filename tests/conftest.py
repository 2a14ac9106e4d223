"""Shared fixtures: the ``bvtest`` command (in-process or as the installed
console script) and the optional ../shared data."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

import pytest

# Every command the suite starts runs as a user's or CI's would: without the
# PYTHON* variables of a developer's shell. PYTHONUNBUFFERED, for one, hides a
# failed flush of stderr at exit (exit status 120 with `2>/dev/full`) that a
# plain environment shows; removing them here, before any test starts a
# process, covers every subprocess, the pool workers of the CLI included.
for _name in [name for name in os.environ if name.startswith("PYTHON")]:
    del os.environ[_name]

# The BLAS thread count that cli.main() sets in a process of its own, set here
# before this process imports numpy: the in-process runs then compute with one
# BLAS thread too, so their last bits are those of the installed command.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLE_QRELS = REPO / "qrels" / "qrels.txt"
SAMPLE_RUNS = REPO / "sample_runs"


def bvtest_executable() -> str:
    """The console script installed next to this interpreter (the venv's bvtest)."""
    candidate = Path(sys.executable).parent / "bvtest"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("bvtest")
    if found is None:
        pytest.fail("the bvtest command is not installed (pip install -e .)")
    return found


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a started command: this one's without pytest's
    variables and COLUMNS (-f table's width; the PYTHON* ones are gone
    already), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST") and k != "COLUMNS"}
    env.update(extra)
    return env


class CliRun(subprocess.CompletedProcess):
    """What a run of the command gave: ``returncode``, ``stdout`` (str, or bytes
    with ``binary``), ``stderr`` (str), as subprocess.run's result; and
    ``forks``, the processes the command forked (its ``-j`` workers) when it ran
    in this process (None for a started process, which this one cannot count)."""

    def __init__(self, args, returncode, stdout, stderr, forks):
        super().__init__(args, returncode, stdout, stderr)
        self.forks = forks


def run_bvtest(
    *args: object,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    binary: bool = False,
    env: dict[str, str] | None = None,
    subprocess: bool = False,
) -> CliRun:
    """Run ``bvtest ARGS``: in this process by default, through the same
    ``cli.main()`` the console script calls (its exit statuses, one-line
    errors, notes and output paths), about 0.4 s of start-up cheaper than the
    installed command, which ``subprocess=True`` starts instead (see
    :func:`run_bvtest_process` for when that is needed). ``env`` adds
    variables to the command's environment."""
    if subprocess:
        return run_bvtest_process(*args, stdin=stdin, cwd=cwd, binary=binary, env=env)
    return run_bvtest_in_process(*args, stdin=stdin, cwd=cwd, binary=binary, env=env)


def run_bvtest_process(
    *args: object,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    binary: bool = False,
    env: dict[str, str] | None = None,
) -> CliRun:
    """Start the installed console script. What only a process of its own
    shows: real pipes and descriptors (a closed or full stdout or stderr, a
    reader that leaves), signals, the environment a user's shell gives
    (PYTHON* variables, the interpreter's own start-up and exit)."""
    proc = subprocess.run(
        [bvtest_executable(), *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=clean_env(**(env or {})),
        timeout=300,
    )
    stdout = proc.stdout if binary else proc.stdout.decode()
    return CliRun(proc.args, proc.returncode, stdout, proc.stderr.decode(), None)


# Processes forked by this one (os.fork and multiprocessing's fork context; not
# subprocess.run, which execs): the -j workers of an in-process run.
_forks = [0]
os.register_at_fork(after_in_parent=lambda: _forks.__setitem__(0, _forks[0] + 1))

# The signals whose handlers a run could change and that pytest relies on.
_SIGNALS = [
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGPIPE", "SIGHUP", "SIGCHLD")
    if hasattr(signal, name)
]


class _Capture(io.BytesIO):
    """A captured stream's bytes, kept when the command closes the stream (as
    it closes stderr after a broken pipe)."""

    kept = b""

    def close(self) -> None:
        if not self.closed:
            self.kept = self.getvalue()
        super().close()

    def captured(self) -> bytes:
        return self.kept if self.closed else self.getvalue()


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning printed to the run's stderr, as an interpreter of its own prints it."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


@contextlib.contextmanager
def _as_a_process_of_its_own(argv: list[str], stdin: bytes, cwd: Path | None, env: dict[str, str]):
    """The global state a started command would have of its own: argv, the
    standard streams (binary buffers behind text wrappers, as the interpreter
    gives them), the working directory, an environment without pytest's
    variables, the interpreter's default warning filters printing to stderr;
    everything the command may change (os.environ, warning filters, numpy's
    error state, signal handlers) restored after. Yields the stdout and stderr
    captures."""
    import numpy as np

    out, err = _Capture(), _Capture()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_argv = sys.argv
    saved_cwd = os.getcwd()
    saved_env = dict(os.environ)
    saved_errstate = np.geterr()
    saved_handlers = {s: signal.getsignal(s) for s in _SIGNALS}
    try:
        with warnings.catch_warnings():
            # A fresh interpreter's filters (no -W, no PYTHONWARNINGS), and
            # warnings written to stderr rather than recorded by pytest: a
            # warning the command lets through shows in its stderr.
            warnings.resetwarnings()
            for category in (
                DeprecationWarning,
                PendingDeprecationWarning,
                ImportWarning,
                ResourceWarning,
            ):
                warnings.simplefilter("ignore", category)
            warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
            warnings.showwarning = _show_warning
            sys.argv = argv
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
            sys.stdout = io.TextIOWrapper(out, encoding="utf-8")
            sys.stderr = io.TextIOWrapper(
                err, encoding="utf-8", errors="backslashreplace", line_buffering=True
            )
            os.environ.clear()
            os.environ.update(
                {
                    k: v
                    for k, v in saved_env.items()
                    if not k.startswith("PYTEST") and k != "COLUMNS"
                }
            )
            os.environ.update(env)
            if cwd is not None:
                os.chdir(cwd)
            yield out, err
    finally:
        for stream in (sys.stdout, sys.stderr):
            # What the interpreter flushes at exit.
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        if dict(os.environ) != saved_env:
            os.environ.clear()
            os.environ.update(saved_env)
        np.seterr(**saved_errstate)
        for number, handler in saved_handlers.items():
            if signal.getsignal(number) is not handler and handler is not None:
                signal.signal(number, handler)


def run_bvtest_in_process(
    *args: object,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    binary: bool = False,
    env: dict[str, str] | None = None,
) -> CliRun:
    """``bvtest ARGS`` through ``bvtest_cli.cli.main`` in this process: the exit
    status of its SystemExit (an escaping exception is a traceback on stderr
    and status 1, as in the interpreter), stdout and stderr as captured."""
    from bvtest_cli.cli import cli, main

    # click >= 8.2 keeps each command's help option once made; one made in a
    # context without the group's settings (bvtest_cli.api makes such contexts)
    # would leave `--help` without `-h` for the rest of this process, where a
    # process of its own makes it afresh.
    for command in (cli, *cli.commands.values()):
        if getattr(command, "_help_option", None) is not None:
            command._help_option = None
    argv = ["bvtest", *map(str, args)]
    forks_before = _forks[0]
    with _as_a_process_of_its_own(argv, stdin or b"", cwd, env or {}) as (out, err):
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = _exit_status(exc.code)
        except Exception:
            traceback.print_exc()
            code = 1
    stdout = out.captured()
    return CliRun(
        argv,
        code,
        stdout if binary else stdout.decode(),
        err.captured().decode("utf-8", "backslashreplace"),
        _forks[0] - forks_before,
    )


def _exit_status(code: object) -> int:
    """sys.exit(code) as the interpreter turns it into an exit status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


@pytest.fixture
def bvtest():
    return run_bvtest


@pytest.fixture
def shared_data() -> Path:
    """../shared/data, or skip the test when the shared folder is absent."""
    data = SHARED / "data"
    if not data.is_dir():
        pytest.skip("../shared/data is not present")
    return data


def assert_one_line_error(proc, *fragments: str) -> None:
    """Bad input: exit 2, nothing on stdout, one stderr line holding every fragment."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def unpadded(text: str) -> str:
    """trec lines without the padding of their name column (trec_eval's
    ``%-22s``), for tests that look for ``NAME<TAB>SYSTEM<TAB>VALUE``."""
    import re

    return re.sub(r"(?m)^(\S+) +\t", r"\1\t", text)
