"""User-facing errors and diagnostics: one line on stderr, naming the file
and line; a stopped command exits with status 2.

Diagnostics are best-effort: a closed or full stderr (``2>&-``,
``2>/dev/full``) loses the diagnostic, never a result or the exit status."""

from __future__ import annotations

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
        pass
