"""An option's declaration: what it takes (a kind of
:mod:`~bvtest_cli.options.kinds`, a parser), how it is spelled on the command
line, and the Settings attribute it fills (:class:`Option`); the constructors
the option table of :mod:`bvtest_cli.options` is written with. Imports the
foundation and the kinds; click only when the CLI asks for the parameter."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ..settings import Settings
from .kinds import Choice, IntRange, Real  # noqa: F401 (Choice: the table's words)

# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Option:
    """One click parameter (an option, or an argument when ``decls`` is empty)
    and the Settings attribute it fills. A command that needs another default,
    choice set or help names the option and the keywords it changes
    (:meth:`changed`); the declaration itself stays the one in :data:`OPTIONS`."""

    attr: str
    decls: tuple[str, ...]
    kwargs: Mapping[str, Any]

    def changed(self, **kwargs: Any) -> Option:
        return replace(self, kwargs={**self.kwargs, **kwargs})

    def decorator(self) -> Callable[[Callable], Callable]:
        """The click parameter (the CLI's; imports click)."""
        from .clicktypes import click_parameter, complete_path

        kwargs = dict(self.kwargs)
        if self.attr in PATH_ATTRS:
            kwargs.setdefault("shell_complete", complete_path)
        if kwargs.get("show_default") and "default" not in kwargs:
            kwargs["default"] = settings_default(self.attr)
        return click_parameter(self.attr, self.decls, kwargs)

    @property
    def flag(self) -> str:
        """The long spelling (``--bootstrap``; an argument's attribute)."""
        return max(self.decls, key=len) if self.decls else self.attr


def settings_default(attr: str) -> Any:
    """The default of a Settings attribute as its option's text (a tuple as
    the comma-separated list the option parses): defaults are written once,
    in :class:`~bvtest_cli.settings.Settings`; an option shows and parses it."""
    value = _SETTINGS_DEFAULTS[attr]
    return ",".join(str(v) for v in value) if isinstance(value, tuple) else value


_SETTINGS_DEFAULTS = {f.name: f.default for f in fields(Settings)}


#: Settings attributes whose values are paths: the shell completes file names
#: there (click completes commands, options and choices by itself).
PATH_ATTRS = frozenset({"inputs", "scores", "baseline", "output", "qrels", "pool", "new_runs"})


def opt(attr: str, *decls: str, **kwargs: Any) -> Option:
    return Option(attr, decls, kwargs)


def count(
    attr: str, *decls: str, minimum: int, help: str, maximum: int | None = None, **kwargs: Any
) -> Option:
    """An integer option with a lower bound and its Settings default, shown."""
    return opt(
        attr, *decls, type=IntRange(minimum, maximum), show_default=True,
        help=help, **kwargs,
    )  # fmt: skip


def level(attr: str, flag: str, metavar: str, help: str) -> Option:
    """A probability strictly between 0 and 1 with its Settings default, shown."""
    return opt(
        attr, flag, type=Real(0.0, 1.0, min_open=True, max_open=True),
        show_default=True, metavar=metavar, help=help,
    )  # fmt: skip


def arg(attr: str, **kwargs: Any) -> Option:
    return Option(attr, (), kwargs)
