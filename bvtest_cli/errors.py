"""User-facing errors and diagnostics: one line on stderr, naming the file
and line; a stopped command exits with status 2.

Diagnostics are best-effort: a closed or full stderr (``2>&-``,
``2>/dev/full``) loses the diagnostic, never a result or the exit status."""

from __future__ import annotations

import os
import sys


def printable(text: str) -> str:
    """``text`` with control characters and undecodable bytes escaped, so that
    a message naming it (a file name with a tab or a newline) stays one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


class InputError(Exception):
    """Bad input from the user (file content, option value, run name).

    Rendered by the CLI as ``bvtest: FILE:LINE: message`` on stderr with exit
    status 2; never as a traceback.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = f"{self.file}:{self.line}: " if self.line is not None else f"{self.file}: "
        return printable(f"{where}{self.message}")  # one line, whatever the input held

    def __reduce__(self):  # keep file and line when sent back from a worker process
        return (InputError, (self.message, self.file, self.line))


def say(line: str) -> None:
    """Write one diagnostic line to stderr, if stderr can take it."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):  # closed, full or broken: the line is lost, nothing else
        discard_stderr()


def discard_stderr() -> None:
    """Send stderr nowhere from now on, since writing it failed.

    A line that could not be flushed stays in the stream's buffer; unless the
    descriptor is pointed at the null device, the interpreter's own flush at
    exit fails again and turns the exit status into 120 (Python's status for
    a failed flush at shutdown). With unbuffered stderr (PYTHONUNBUFFERED) the
    write fails at once and nothing is left over, which is why a developer's
    shell may never see the difference: the suite runs the CLI without any
    PYTHON* variable so that it would.
    """
    stream = sys.stderr
    if stream is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)
        stream.flush()
    except (OSError, ValueError):  # closed (no descriptor) or still failing: nothing more to do
        pass


class UsageError(InputError):
    """A request that cannot be carried out as asked (options that disagree,
    an option where it cannot act): no file or line. The CLI prints it as
    click prints its own usage errors (with the command's ``--help`` hint),
    the API raises it as the InputError it is."""

    def __reduce__(self):
        return (UsageError, (self.message, self.file, self.line))


class BadValue(UsageError):
    """One option's value that is not what the option takes: the CLI names the
    flag (click's ``Invalid value for '--flag': …``), the API the keyword."""

    def __reduce__(self):
        return (BadValue, (self.message, self.file, self.line))
