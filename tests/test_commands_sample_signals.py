"""SIGTERM during ``sample --out`` leaves nothing behind, as SIGINT does.
Oracle: the file system after a real signal sent to a real process."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, bvtest_executable


def _as_from_a_terminal() -> None:
    """The child's signals as a terminal's command has them, whatever the
    suite inherited: a shell without job control starts a background suite
    with SIGINT ignored, and a CI supervisor may start it with SIGTERM
    blocked (a mask survives fork and exec: the signal would wait, pending,
    until the command had finished)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_writing_samples_leaves_no_temporary_directory(tmp_path, sig):
    out = tmp_path / "s"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    proc = subprocess.Popen(
        [bvtest_executable(), "sample", "--draws", "5000", "--budget", "50", "--out", str(out),
         str(SAMPLE_QRELS), str(SAMPLE_RUNS)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        preexec_fn=_as_from_a_terminal,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not list(tmp_path.iterdir()):  # the temporary directory: writing has begun
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 128 + sig or proc.returncode == 130, (proc.returncode, err)
    assert b"Traceback" not in err
    assert len(err.decode().strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # neither DIR nor its hidden sibling
