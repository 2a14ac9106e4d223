"""An option's declaration: what it takes (a kind of
:mod:`~bvtest_cli.options.kinds`, a parser), how it is spelled on the command
line, and the Settings attribute it fills (:class:`Option`); the constructors
the option table of :mod:`bvtest_cli.options` is written with. Imports the
foundation and the kinds; click only when the CLI asks for the parameter."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ..errors import BadValue
from ..settings import Settings
from .kinds import Choice, IntRange, Parsed, Real  # noqa: F401 (Choice: the table's words)

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
    def required(self) -> bool:
        return bool(self.kwargs.get("required"))

    def default(self) -> Any:
        """The value a command gets when the option is not given: its own
        default where it declares one (read as a typed value would be), else
        the Settings attribute's."""
        if "default" not in self.kwargs:
            return _SETTINGS_DEFAULTS[self.attr]
        value = self.kwargs["default"]
        if value is None:
            return () if self._many else _parsed(self, None)
        return self.from_python(value)

    @property
    def _many(self) -> bool:
        return bool(self.kwargs.get("multiple")) or self.kwargs.get("nargs") == -1

    def from_python(self, value: Any) -> Any:
        """A value given from Python (the API's keyword) as the Settings value:
        checked by the same kind and parser as the typed text. A list where
        the command line takes a comma-separated list, a tuple (a, b) for
        ``--pair A B`` (or a list of them), True/False for a flag."""
        kind = self.kwargs.get("type")
        if self.kwargs.get("is_flag"):
            if not isinstance(value, bool) and type(value).__name__ != "bool_":
                raise BadValue(f"expected True or False, got {value!r}")
            return bool(value)
        nargs = self.kwargs.get("nargs", 1)
        if self.kwargs.get("multiple") and nargs > 1:
            groups = [value] if value and isinstance(value[0], (str, os.PathLike)) else value
            items: Any = []
            for group in groups:
                if isinstance(group, (str, os.PathLike)) or len(group) != nargs:
                    raise BadValue(f"expected {nargs} values in each item, got {group!r}")
                items.append(tuple(_text(v) for v in group))
            return _parsed(self, tuple(items))
        if self._many:
            values = [value] if isinstance(value, (str, os.PathLike)) else list(value)
            return _parsed(self, tuple(_one(kind, v) for v in values))
        if self.attr in COMMA_LISTS and isinstance(value, (list, tuple)):
            value = ",".join(map(_text, value))
        elif self.attr == "group" and isinstance(value, tuple):
            value = ":".join(map(_text, value))
        return _parsed(self, _one(kind, value))

    @property
    def flag(self) -> str:
        """The long spelling (``--bootstrap``; an argument's attribute)."""
        return max(self.decls, key=len) if self.decls else self.attr


#: Options whose text is a comma-separated list: a Python list is joined and
#: read by the same parser (every check of the text applies).
COMMA_LISTS = frozenset({
    "alphas", "budgets", "topics_scale", "methods", "topic_counts", "min_diffs", "ci_widths",
    "totals", "subset_sizes", "human_topics", "grade_map", "compare_fields",
})  # fmt: skip


def _text(value: Any) -> str:
    """A value as typed on the command line. Numbers keep their repr: 3.5
    given to an integer option is an error there, never truncated."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _one(kind: Any, value: Any) -> Any:
    if kind is not None:
        return kind.convert(value if isinstance(value, (int, float, str)) else _text(value))
    return _text(value)


def _parsed(option: Option, value: Any) -> Any:
    parse = option.kwargs.get("callback")
    return parse(value) if isinstance(parse, Parsed) else value


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
