"""Step parameters: one frozen dataclass per step, filled from a recipe mapping or the CLI."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from .rows import BuildError

P = TypeVar("P")


def from_mapping(cls: type[P], step: str, values: Mapping[str, Any]) -> P:
    """``cls(**values)`` with one clear error for an unknown or missing key or a value of the wrong kind."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - names)
    if unknown:
        raise BuildError(f"step {step}: unknown parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for k, v in values.items():
        out[k] = _coerce(hints[k], v, f"step {step}: {k}")
    try:
        return cls(**out)
    except TypeError as e:
        raise BuildError(f"step {step}: {e}") from e


def _coerce(tp: Any, v: Any, what: str) -> Any:
    origin = typing.get_origin(tp)
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if v is None:
        return None
    if origin in (typing.Union, __import__("types").UnionType) and len(args) == 1:
        return _coerce(args[0], v, what)
    if origin in (list, tuple):
        items = v if isinstance(v, list | tuple) else [v]
        conv = [_coerce(args[0], x, what) if args else x for x in items]
        return tuple(conv) if origin is tuple else conv
    if tp is bool:
        if not isinstance(v, bool):
            raise BuildError(f"{what}: expected true or false, got {v!r}")
        return v
    if tp in (int, float):
        if isinstance(v, bool) or not isinstance(v, int | float) or (tp is int and isinstance(v, float)):
            raise BuildError(f"{what}: expected {'an integer' if tp is int else 'a number'}, got {v!r}")
        return tp(v)
    if tp is str:
        if not isinstance(v, str | int | float) or isinstance(v, bool):
            raise BuildError(f"{what}: expected a string, got {v!r}")
        return str(v)
    return v


def to_json(p: Any) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(p).items()}
