"""The shipped benchmarks are declared once, in pyproject.toml, and found through their entry points only."""

from __future__ import annotations

import tomllib
from importlib.metadata import entry_points
from pathlib import Path

from reasoneval.core import registry


def test_installed_entry_points_match_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    declared = pyproject["project"]["entry-points"]["reasoneval.benchmarks"]
    installed = {ep.name: ep.value for ep in entry_points(group=registry.GROUP)}
    assert {k: installed.get(k) for k in declared} == declared, "stale install: run pip install -e ."
    assert set(declared) <= set(registry.names())
