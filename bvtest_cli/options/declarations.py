"""An option's declaration: a click parameter and the Settings attribute it
fills (:class:`Option`), and the constructors the option table of
:mod:`bvtest_cli.options` is written with. Imports click and the foundation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import click

from ..settings import Settings
from .parsers import Real

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
        kwargs = _completion(self.attr, dict(self.kwargs))
        if kwargs.get("show_default") and "default" not in kwargs:
            kwargs["default"] = settings_default(self.attr)
        if not self.decls:
            return click.argument(self.attr, **kwargs)
        return click.option(*self.decls, self.attr, **kwargs)


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


def complete_path(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """Let the shell complete file and directory names (bash, zsh, fish)."""
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="file")]


def _completion(attr: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {"shell_complete": complete_path, **kwargs} if attr in PATH_ATTRS else kwargs


def opt(attr: str, *decls: str, **kwargs: Any) -> Option:
    return Option(attr, decls, kwargs)


def count(
    attr: str, *decls: str, minimum: int, help: str, maximum: int | None = None, **kwargs: Any
) -> Option:
    """An integer option with a lower bound and its Settings default, shown."""
    return opt(
        attr, *decls, type=click.IntRange(min=minimum, max=maximum), show_default=True,
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


