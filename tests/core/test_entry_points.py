"""The shipped benchmarks are declared once in pyproject.toml; SHIPPED mirrors it for stale editable installs."""

from __future__ import annotations

import tomllib
from pathlib import Path

from reasoneval.benchmarks import SHIPPED
from reasoneval.core import registry


def test_shipped_matches_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["reasoneval.benchmarks"] == SHIPPED
    assert set(SHIPPED) <= set(registry.names())


def test_core_names_no_benchmark() -> None:
    core = Path(registry.__file__).parent
    for f in core.glob("*.py"):
        text = f.read_text()
        for name in SHIPPED:
            assert f"benchmarks.{name}" not in text, f
