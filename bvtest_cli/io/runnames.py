"""Run names the user types (``compare --pair``, a ``check`` gate's pool run),
resolved to the runs' own names.

A run is named by its file name without ``.gz``, so TREC's distributed runs
(``input.pircRBa1.gz``) are called ``input.pircRBa1`` while papers and
overview tables call them ``pircRBa1``, their run tag. A name that is not a
run's name is therefore matched, in turn, against the names without the
``input.`` prefix and against the runs' tags: one match is taken (with a note
saying so), two or more are an error naming them, none an error listing the
closest names by :mod:`difflib`'s similarity.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence

from ..errors import InputError

#: The prefix TREC's submission system puts before a run tag in the run's file name.
TREC_PREFIX = "input."

#: How many of the closest names a "did you mean" lists.
CLOSEST = 5


def _bare(name: str) -> str:
    return name[len(TREC_PREFIX) :] if name.startswith(TREC_PREFIX) else name


def closest(name: str, systems: Sequence[str], most: int = CLOSEST) -> list[str]:
    """The ``most`` names of ``systems`` most like ``name`` (difflib's ratio,
    with and without the ``input.`` prefix on either side), most alike first."""
    typed = name.casefold()

    def score(system: str) -> float:
        matcher = difflib.SequenceMatcher(None, typed, system.casefold())
        best = matcher.ratio()
        matcher.set_seqs(_bare(typed), _bare(system.casefold()))
        return max(best, matcher.ratio())

    ranked = sorted(systems, key=lambda s: (-score(s), s))
    return ranked[:most]


def resolve_run(
    name: str,
    systems: Sequence[str],
    where: str | None,
    tags: Callable[[], Mapping[str, str]] | None = None,
    unknown: str | None = None,
    context: str | None = None,
) -> tuple[str, str | None]:
    """The run among ``systems`` that ``name`` means, and a note when it is
    not the name itself (``"pircRBa1: taken as input.pircRBa1"``).

    ``name`` is taken as is when it is a run's name; else the runs it names
    are those whose name without ``input.`` is ``name``, those whose name is
    ``name`` without ``input.``, and those whose run tag (``tags()``: name →
    tag, asked for only here, since it reads the files) is ``name``.
    Exactly one such run is taken; more than one is an InputError naming
    them; none an InputError (``unknown``, default "run NAME is not among
    the runs") ending with the closest names. ``where`` is the InputError's
    file (the option, e.g. ``--pair``) or None; ``context`` (e.g. the gate)
    starts the message of two matches.
    """
    if name in systems:
        return name, None
    matches: dict[str, str] = {}
    for system in systems:
        if system != name and (_bare(system) == name or _bare(name) == system):
            matches.setdefault(system, "its name without the 'input.' prefix")
    if tags is not None:
        for system, tag in tags().items():
            if tag == name and system in systems:
                matches.setdefault(system, "its run tag")
    if len(matches) == 1:
        ((system, how),) = matches.items()
        return system, f"{name}: taken as {system} ({how})"
    if matches:
        shown = " and ".join(", ".join(repr(m) for m in matches).rsplit(", ", 1))
        head = f"{context}: " if context else ""
        raise InputError(
            f"{head}run {name!r} names {len(matches)} runs: {shown} (by name or run tag); "
            "give the full name",
            where,
        )
    head = unknown or f"run {name!r} is not among the runs"
    near = closest(name, systems)
    tail = f"; did you mean {', '.join(near)}?" if near else " (there are none)"
    raise InputError(head + tail, where)


def file_tags(paths: Sequence[str]) -> Callable[[], Mapping[str, str]]:
    """``tags`` for :func:`resolve_run` of the runs read from ``paths``
    (files or directories): name → run tag, read when first asked for. A run
    with no single tag (standard input, a line without a tag, two tags) has
    none here; reading it for its scores reports what is wrong with it."""
    cache: dict[str, str] = {}
    done = False

    def read() -> Mapping[str, str]:
        nonlocal done
        if not done:
            from .sources import STDIN, expand_sources
            from .trec import run_tag

            done = True
            try:
                sources = expand_sources(paths)
            except InputError:
                return cache
            for source in sources:
                if source.path == STDIN:
                    continue
                try:
                    cache[source.name] = run_tag(source)
                except (InputError, OSError):
                    continue
        return cache

    return read
