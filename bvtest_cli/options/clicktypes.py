"""The option kinds as click types, and an Option as a click parameter: the
CLI's side of :mod:`~bvtest_cli.options.kinds` (the only module of
``options/`` that imports click, and only the CLI imports it)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import click

from ..errors import BadValue, UsageError
from .kinds import Choice, DocCount, Integer, IntRange, Parsed, Real


class _Kind:
    """A click type whose value is the kind's (its messages click's ``fail``)."""

    kind: Any

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return self.kind.convert(value)
        except BadValue as exc:
            click.ParamType.fail(self, exc.message, param, ctx)  # type: ignore[arg-type]


class ClickReal(_Kind, click.FloatRange):
    """:class:`~bvtest_cli.options.kinds.Real` as a FloatRange, so --help
    shows the range."""

    name = "float"

    def __init__(self, kind: Real):
        super().__init__(kind.min, kind.max, min_open=kind.min_open, max_open=kind.max_open)
        self.kind = kind


class ClickDocCount(_Kind, click.ParamType):
    name = "N"

    def __init__(self, kind: DocCount):
        self.kind = kind


def click_type(kind: Any) -> Any:
    """The click type of an option kind (click's own where it has one, so
    its messages and --help stay click's)."""
    if isinstance(kind, IntRange):
        return click.IntRange(min=kind.min, max=kind.max)
    if isinstance(kind, Integer):
        return click.INT
    if isinstance(kind, Choice):
        return click.Choice(list(kind.choices))
    if isinstance(kind, Real):
        return ClickReal(kind)
    if isinstance(kind, DocCount):
        return ClickDocCount(kind)
    return kind


def click_callback(parsed: Parsed) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        try:
            return parsed(value)
        except BadValue as exc:
            raise click.BadParameter(exc.message, ctx, param) from None

    callback.parse = parsed.parse  # type: ignore[attr-defined]  # which parser: tests find the float ones
    return callback


def complete_path(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """Let the shell complete file and directory names (bash, zsh, fish)."""
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="file")]


def click_parameter(attr: str, decls: tuple[str, ...], kwargs: dict[str, Any]) -> Callable:
    """The click decorator of one option (an argument when ``decls`` is empty)."""
    kwargs = dict(kwargs)
    if "type" in kwargs:
        kwargs["type"] = click_type(kwargs["type"])
    if isinstance(kwargs.get("callback"), Parsed):
        kwargs["callback"] = click_callback(kwargs["callback"])
    if not decls:
        return click.argument(attr, **kwargs)
    return click.option(*decls, attr, **kwargs)


def current_context() -> click.Context:
    return click.get_current_context()


@contextlib.contextmanager
def usage_errors_as_clicks(ctx: click.Context) -> Iterator[None]:
    """bvtest's usage errors raised while a command runs, printed as click
    prints its own (``Invalid value …``, the ``--help`` hint)."""
    try:
        yield
    except BadValue as exc:  # a parser called by the command itself
        raise click.BadParameter(exc.message, ctx) from None
    except UsageError as exc:
        if exc.file is not None:
            raise
        raise click.UsageError(exc.message, ctx) from None


def set_by_user(ctx: click.Context) -> frozenset[str]:
    """The options the user set on the command line."""
    from click.core import ParameterSource

    return frozenset(
        name
        for name in ctx.params
        if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)
    )
