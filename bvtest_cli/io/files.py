"""Output files: written whole or not at all, never over an input.

Every file bvtest writes (a figure, the engineered runs of ``permute``) goes
through this module:

- the output is written to a temporary sibling of its target and renamed onto
  it at the end, so an error, SIGINT or a full disk leaves the target as it
  was (or absent), never half-written, and no temporary file behind;
- a symbolic link is written through: the file it points to is replaced and
  the link stays;
- a target that is an input (or lies inside an input directory), and an
  empty path, are refused before anything is computed.

A directory of outputs is built in a temporary sibling directory and renamed
into place; an existing, non-empty directory is refused rather than mixed
with earlier output.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import InputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def checked_target(path: str, inputs: Iterable[str], what: str) -> str:
    """The file that writing ``path`` replaces (a link's destination), after
    checking it is a name and no input; InputError naming ``what`` otherwise."""
    if not path or not path.strip():
        raise InputError(f"{what}: an empty path names no file")
    target = os.path.realpath(path)
    for source in inputs:
        if not source or source == "-":
            continue
        real = os.path.realpath(source)
        if target == real or (os.path.isdir(real) and target.startswith(real + os.sep)):
            raise InputError(f"{what} would overwrite the input {source}; choose another", path)
    return target


@contextlib.contextmanager
def replacing(path: str, suffix: str = "") -> Iterator[str]:
    """A temporary file next to ``path``'s target; renamed onto the target
    when the block ends normally, removed when it raises (or is interrupted)."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(prefix=".bvtest-", suffix=suffix, dir=directory)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; an output is not private
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def new_directory(path: str) -> Iterator[Path]:
    """A temporary directory next to ``path``, renamed to ``path`` when the
    block ends normally, removed with its content when it raises. ``path``
    must not exist, or be an empty directory."""
    target = Path(os.path.realpath(path))
    if target.exists():
        if not target.is_dir():
            raise InputError("not a directory", path)
        if any(target.iterdir()):
            raise InputError(
                "directory already holds files; choose a new one (earlier output is kept)", path
            )
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.bvtest-", dir=parent))
    except OSError as exc:
        raise InputError(f"cannot create directory: {exc.strerror or exc}", path) from None
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())
        if target.exists():
            target.rmdir()  # empty, checked above
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
