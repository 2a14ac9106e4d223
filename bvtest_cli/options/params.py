"""A command's parameters as a frozen dataclass of its own: one field per
option it takes (the keyword, its type and default), each value checked
once, when the parameters are built, by the option's kind and parser; an
error names the parameter. The classes themselves are in
``bvtest_cli/commands/NAME/params.py``, written from the declarations by
:func:`params_module` (``python tools/gen_docs.py``; a test checks it is
current), so mypy and an IDE see every field with its type.

    >>> from bvtest_cli.commands.eval.params import EvalParams
    >>> EvalParams(alphas=[0, 5], bootstrap=200).alphas
    ('0', '5')
    >>> EvalParams(bootstrap=1)
    Traceback (most recent call last):
    ...
    bvtest_cli.errors.InputError: invalid bootstrap=1: 1 is not in the range 2<=x.

Besides its keywords, a command's parameters hold how its report will be
shown where the work depends on it (:data:`RENDERING`: ``fmt``, ``digits``,
``quiet``): the doors set them, they are no keyword of the API.

Imports the foundation and the declarations (no click).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, ClassVar

from ..errors import InputError

#: Fields of a command's parameters that are how its report is shown, not
#: what it computes: set by the doors (the CLI's -f, --digits, -q; the API:
#: quiet), no keyword of the API, never "given" by the user as a parameter.
RENDERING = ("fmt", "digits", "quiet")


class Params:
    """The base of every command's parameters (the generated dataclass of
    each command, ``bvtest_cli/commands/NAME/params.py``)."""

    command: ClassVar[str]

    @classmethod
    def declared(cls) -> Mapping[str, Any]:
        """The command's keyword options (attribute → Option), its own
        changes made: those of the ``COMMAND`` of the package whose
        ``params.py`` defines the class."""
        from importlib import import_module

        from . import keyword_options

        return keyword_options(import_module(cls.__module__.rpartition(".")[0]).COMMAND)

    def __post_init__(self) -> None:
        options = self.declared()
        for f in fields(self):  # type: ignore[arg-type]
            if f.name in RENDERING:
                continue
            value = getattr(self, f.name)
            if (value is None or value is f.default) and options[f.name].required:
                raise InputError(f"missing {f.name}")
            if value is f.default or value is None:
                continue  # the declared default, already a parsed value
            if isinstance(value, (list, tuple, dict, set, frozenset)) and not value:
                # it would mean the default (or nothing): say so instead
                raise InputError(f"invalid {f.name}: an empty {type(value).__name__} names nothing")
            try:
                checked = options[f.name].from_python(value)
            except InputError as exc:
                raise InputError(f"invalid {f.name}={value!r}: {exc.message}") from None
            object.__setattr__(self, f.name, checked)

    @classmethod
    def parsed(cls, values: Mapping[str, Any]) -> Any:
        """Parameters from values the command line's own types already
        parsed (the same kinds and parsers): not checked again. Values not
        given keep their defaults."""
        made = object.__new__(cls)
        for f in fields(cls):  # type: ignore[arg-type]
            object.__setattr__(made, f.name, values.get(f.name, f.default))
        return made

    def changed(self, **values: Any) -> Any:
        """These parameters with ``values`` the command itself chose (already
        parsed values, not checked again: :meth:`parsed`)."""
        return self.parsed({**vars(self), **values})

    def given(self) -> frozenset[str]:
        """The parameters that differ from their defaults."""
        options = self.declared()
        return frozenset(
            f.name
            for f in fields(self)  # type: ignore[arg-type]
            if f.name not in RENDERING and getattr(self, f.name) != options[f.name].default()
        )


def class_name(command: str) -> str:
    """``eval`` → ``EvalParams``."""
    return "".join(part.title() for part in command.split("-")) + "Params"


def params_module(name: str, command: Any) -> str:
    """The source of ``bvtest_cli/commands/NAME/params.py``: the frozen
    dataclass of the command's parameters, its fields the command's keyword
    options (with the command's own changes to them) and the
    :data:`RENDERING` it takes, each annotated with the Settings attribute's
    type. One module a command, so that a command imports only its own."""
    from ..settings import Settings
    from . import OPTIONS, keyword_options

    types = {f.name: str(f.type) for f in fields(Settings)}
    out = [
        f'"""The parameters of ``bvtest {name}``, written from its option declarations',
        '(``python tools/gen_docs.py``; do not edit: a test checks it is current)."""',
        "",
        "from __future__ import annotations",
        "",
        "from dataclasses import dataclass",
        "from typing import ClassVar",
        "",
        "from ...options.params import Params",
        "",
        "",
        "@dataclass(frozen=True)",
        f"class {class_name(name)}(Params):",
        f'    """The parameters of ``bvtest {name}``, each checked when they are built."""',
        "",
        f"    command: ClassVar[str] = {_literal(name)}",
    ]
    rendering = {
        attr: OPTIONS[attr].changed(**command.overrides.get(attr, {}))
        for attr in RENDERING
        if attr in command.options
    }
    for attr, option in {**keyword_options(command), **rendering}.items():
        out += _field(attr, types[attr], option.default())
    return "\n".join(out) + "\n"


def _literal(value: Any) -> str:
    """``value`` as the formatter writes it (double quotes)."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple):
        items = [_literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)


def _field(attr: str, annotation: str, default: Any) -> list[str]:
    """A field's lines, a long tuple one item a line (as the formatter
    writes it)."""
    if default is None and "None" not in annotation:
        annotation += " | None"  # a deprecated alias: None when not given
    line = f"    {attr}: {annotation} = {_literal(default)}"
    if len(line) <= 100 or not isinstance(default, tuple):
        return [line]
    items = [f"        {_literal(v)}," for v in default]
    return [f"    {attr}: {annotation} = (", *items, "    )"]
