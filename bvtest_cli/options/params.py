"""A command's parameters as a frozen dataclass of its own, made from its
option declarations: one field per option it takes (the keyword, its type
and default), each value checked once, when the parameters are built, by
the option's kind and parser; an error names the parameter. The API builds
these from keywords; ``Command.build`` runs the command on them.

    >>> from bvtest_cli.commands import COMMANDS
    >>> EvalParams = COMMANDS["eval"].params
    >>> EvalParams(alphas=[0, 5], bootstrap=200).alphas
    ('0', '5')
    >>> EvalParams(bootstrap=1)
    Traceback (most recent call last):
    ...
    bvtest_cli.errors.InputError: invalid bootstrap=1: 1 is not in the range 2<=x.

Imports the foundation and the declarations (no click).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field, fields, make_dataclass
from typing import Any

from ..errors import InputError


def make_params_type(command: str, options: Mapping[str, Any]) -> type:
    """The dataclass of ``command`` whose fields are ``options`` (attribute →
    Option, the command's own changes made)."""

    def __post_init__(self: Any) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if (value is None or value is f.default) and options[f.name].required:
                raise InputError(f"missing {f.name}")
            if value is f.default or value is None:
                continue  # the declared default, already a Settings value
            try:
                checked = options[f.name].from_python(value)
            except InputError as exc:
                raise InputError(f"invalid {f.name}={value!r}: {exc.message}") from None
            object.__setattr__(self, f.name, checked)

    def given(self: Any) -> frozenset[str]:
        """The parameters that differ from their defaults."""
        return frozenset(
            f.name for f in fields(self) if getattr(self, f.name) != options[f.name].default()
        )

    spec = [
        (attr, Any, field(default=option.default(), metadata={"option": option}))
        for attr, option in options.items()
    ]
    title = "".join(part.title() for part in command.split("-")) + "Params"
    made = make_dataclass(
        title, spec, frozen=True, namespace={"__post_init__": __post_init__, "given": given}
    )
    made.__module__ = __name__
    made.__doc__ = f"The parameters of ``bvtest {command}`` (its options as keywords)."
    return made
