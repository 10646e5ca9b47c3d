"""Typed benchmark options: one frozen dataclass per benchmark, set from the CLI as ``-O key=value``.

Options are part of what defines a run: the values that differ from the defaults go into the run id, and
every value goes into the stored run record (and so into the report). Nothing is configured through
environment variables except secrets and the store location.

A field's allowed values come from its type: ``Literal[...]`` lists them, ``bool`` takes
``true/false/1/0/yes/no``, ``int``/``float`` parse as numbers, ``str`` takes anything. ``X | None`` fields
accept ``none`` / empty for None.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar, Union, get_args, get_origin

from .errors import OptionError

O = TypeVar("O", bound="BenchOptions")  # noqa: E741

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


@dataclass(frozen=True)
class BenchOptions:
    """Options every benchmark has. ``data``: a dataset path replacing the packaged/default data."""

    data: str | None = None

    # -- reading ------------------------------------------------------------------------------------
    @classmethod
    def known(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def parse(cls: type[O], pairs: Iterable[str] = (), data: str | None = None, *, benchmark: str = "") -> O:
        """Options from ``key=value`` strings (the CLI's ``-O``) plus ``--data``; one clear error otherwise."""
        values: dict[str, str] = {}
        for pair in pairs:
            key, eq, value = pair.partition("=")
            key = key.strip()
            if not eq or not key:
                raise OptionError(f"-O {pair!r}: expected key=value")
            values[key] = value.strip()
        if data is not None:
            if "data" in values and values["data"] != data:
                raise OptionError("--data and -O data=... disagree; give one")
            values["data"] = data
        return cls.from_mapping(values, benchmark=benchmark)

    @classmethod
    def from_mapping(cls: type[O], values: Mapping[str, Any], *, benchmark: str = "") -> O:
        """Options from a mapping of raw (string) or already-typed values; validates every key and value."""
        hints = typing.get_type_hints(cls)
        who = f"{benchmark} " if benchmark else ""
        kwargs: dict[str, Any] = {}
        for key, raw in values.items():
            if key not in hints or key not in cls.known():
                raise OptionError(f"unknown {who}option {key!r}; known: {', '.join(cls.known())}")
            kwargs[key] = _convert(hints[key], raw, f"{who}option {key!r}")
        return cls(**kwargs)

    # -- writing ------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Every option (the stored run record)."""
        return dataclasses.asdict(self)

    def identity(self) -> dict[str, Any]:
        """The options that define a run: those that differ from the defaults, except ``data`` (a path;
        the run's data version already stands for the data's content)."""
        default = type(self)()
        return {k: v for k, v in self.to_json().items() if k != "data" and v != getattr(default, k)}

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.to_json().items() if v is not None)


def _convert(tp: Any, raw: Any, what: str) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "none", "null")):
            return None
        if len(args) == 1:
            return _convert(args[0], raw, what)
        raise OptionError(f"{what}: unsupported option type {tp!r}")  # pragma: no cover - declaration bug
    if origin is typing.Literal:
        allowed = get_args(tp)
        for a in allowed:
            if raw == a or (isinstance(raw, str) and raw == str(a)):
                return a
        raise OptionError(f"{what}: bad value {raw!r}; allowed: {', '.join(str(a) for a in allowed)}")
    if tp is bool:
        if isinstance(raw, bool):
            return raw
        s = str(raw).strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
        raise OptionError(f"{what}: bad value {raw!r}; allowed: true, false")
    if tp in (int, float):
        if isinstance(raw, bool):
            raise OptionError(f"{what}: bad value {raw!r}; expected a number")
        try:
            return tp(raw)
        except (TypeError, ValueError):
            raise OptionError(f"{what}: bad value {raw!r}; expected {'an integer' if tp is int else 'a number'}"
                              ) from None
    if tp is str:
        return str(raw)
    raise OptionError(f"{what}: unsupported option type {tp!r}")  # pragma: no cover - declaration bug
