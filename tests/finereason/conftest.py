"""Session fixtures for the FineReason tests: the released data, loaded once."""

from __future__ import annotations

from typing import Any

import pytest

from reasoneval.benchmarks.finereason.data import load_questions, load_states
from reasoneval.benchmarks.finereason.engines import PUZZLES


@pytest.fixture(scope="session")
def states() -> dict[str, list[dict[str, Any]]]:
    return {p: load_states(p) for p in PUZZLES}


@pytest.fixture(scope="session")
def questions() -> dict[str, list[dict[str, Any]]]:
    return {p: load_questions(p) for p in PUZZLES}
