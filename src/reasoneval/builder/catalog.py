"""Every build step: the generic ones of this package and those each benchmark adds (``Benchmark.build_steps``)."""

from __future__ import annotations

import sys

from ..core import registry
from .steps import STEPS, Step


def all_steps() -> dict[str, Step]:
    """Every step (importing the modules that define them)."""
    from . import dedup, difficulty, reasoning  # noqa: F401 - each registers its steps

    for name in registry.names():
        try:
            registry.get(name).build_steps()
        except Exception as e:  # noqa: BLE001 - a broken plugin must not hide the other steps
            print(f"warning: benchmark {name!r}: its build steps could not be loaded: {e}", file=sys.stderr)
    return STEPS
