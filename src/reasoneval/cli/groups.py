"""Typed option groups: a command takes a few small dataclasses of options instead of dozens of parameters.

A command parameter annotated with an *option group* (a dataclass whose fields are ``Annotated[..., typer.Option]``
with defaults) is spread by :func:`grouped` into the command's options, one per field, in the field order and
under the group's ``PANEL`` heading in ``--help``; when the command runs, the parsed values are gathered back into
an instance of the group. The command line is unchanged: ``--max-tokens`` is still ``--max-tokens``; only the
function that reads it sees ``gen.max_tokens``. Field names are the options' names, so they must be unique
across a command's groups (checked when the command is defined).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class OptionGroup:
    """Base of an option group (a frozen dataclass): ``PANEL`` is its heading in ``--help``."""

    PANEL: ClassVar[str] = "Options"


def _is_group(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, OptionGroup) and dataclasses.is_dataclass(annotation)


def _in_panel(annotation: Any, panel: str) -> Any:
    """``annotation`` (``Annotated[T, typer.Option(...)]``) with its option shown under ``panel`` unless it names
    its own."""
    if typing.get_origin(annotation) is not typing.Annotated:
        return annotation
    base, *meta = typing.get_args(annotation)
    shown = []
    for m in meta:
        if getattr(m, "rich_help_panel", "absent") is None:
            m = copy.copy(m)
            m.rich_help_panel = panel
        shown.append(m)
    return typing.Annotated[(base, *shown)]  # type: ignore[valid-type]


def grouped(func: F) -> F:
    """``func`` with each option-group parameter spread into its fields' options (see the module's docstring)."""
    hints = typing.get_type_hints(func, include_extras=True)
    params: list[inspect.Parameter] = []
    groups: dict[str, tuple[type, list[str]]] = {}
    for p in inspect.signature(func).parameters.values():
        ann = hints.get(p.name, p.annotation)
        if not _is_group(ann):
            params.append(p.replace(annotation=ann, kind=inspect.Parameter.KEYWORD_ONLY))  # typer passes keywords
            continue
        field_hints = typing.get_type_hints(ann, include_extras=True)
        names = []
        for f in dataclasses.fields(ann):
            if f.default is dataclasses.MISSING:
                raise TypeError(f"{ann.__name__}.{f.name}: an option group's fields need defaults")
            params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default,
                                            annotation=_in_panel(field_hints[f.name], ann.PANEL)))
            names.append(f.name)
        groups[p.name] = (ann, names)
    seen = [p.name for p in params]
    if len(seen) != len(set(seen)):
        raise TypeError(f"{func.__name__}: an option is named twice: "
                        f"{sorted({n for n in seen if seen.count(n) > 1})}")

    @functools.wraps(func)
    def command(**given: Any) -> Any:
        for name, (cls, fields) in groups.items():
            given[name] = cls(**{f: given.pop(f) for f in fields})
        return func(**given)

    # the command's signature as typer reads it: every option flat (inspect stops at ``__signature__``)
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command  # type: ignore[return-value]
