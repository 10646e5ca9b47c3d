"""Named generation settings of a benchmark (``--settings paper``): the paper's published decoding settings.

A benchmark declares them on its class (``Benchmark.settings``: name -> :class:`Preset`; the shipped ones keep
them in ``benchmarks/<name>/settings.py``); :func:`presets_for` reads them for any benchmark, so the CLI knows
no benchmark by name. Explicit flags (``--temperature`` ...) override a preset's values; the applied values are
printed and stored in the run record, with notes wherever the paper is silent or the harness differs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .values import GenParams


@dataclass(frozen=True)
class Preset:
    name: str
    #: GenParams fields and their values (None: "not sent", the provider's default)
    params: dict[str, Any]
    #: where the values come from (paper section, table, official repository file)
    source: str
    #: what the paper does not say, and where these settings differ from it
    notes: tuple[str, ...] = ()

    def apply(self, base: GenParams, overrides: dict[str, Any] | None = None) -> GenParams:
        """``base`` with this preset's values, then ``overrides`` (explicit flags, None entries skipped)."""
        values = {**self.params, **{k: v for k, v in (overrides or {}).items() if v is not None}}
        known = {f.name for f in dataclasses.fields(GenParams)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"preset {self.name!r}: unknown generation settings {sorted(unknown)}")
        return dataclasses.replace(base, **values)

    def describe(self, overridden: list[str] | None = None) -> list[str]:
        shown = " ".join(f"{k}={'default' if v is None else v}" for k, v in self.params.items())
        lines = [f"settings {self.name}: {shown}  [{self.source}]"]
        lines += [f"  note: {n}" for n in self.notes]
        if overridden:
            lines.append(f"  overridden by flags: {', '.join(overridden)}")
        return lines

    def record(self, overridden: list[str]) -> dict[str, Any]:
        return {"name": self.name, "params": dict(self.params), "source": self.source, "notes": list(self.notes),
                "overridden": overridden}


def presets_for(bench: Any) -> dict[str, Preset]:
    """The named settings of ``bench`` (``Benchmark.settings``); empty when it has none."""
    return dict(bench.settings)
