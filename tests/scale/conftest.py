"""Fixtures for the scale-out tests: fake OpenAI-compatible replicas and the toy benchmark."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reasoneval.testing.procs import FakeServerProc, free_port  # noqa: F401

CORE = Path(__file__).resolve().parent.parent / "core"
sys.path.insert(0, str(CORE))  # toybench.py lives there
os.environ["REASONEVAL_PLUGINS"] = "toybench"
os.environ["PYTHONPATH"] = os.pathsep.join([str(CORE), os.environ.get("PYTHONPATH", "")])


class Replica(FakeServerProc):
    """One fake OpenAI-compatible server in its own process (so it can be killed mid-run)."""


@pytest.fixture
def replicas() -> Iterator[type[Replica]]:
    made: list[Replica] = []

    class Maker(Replica):
        def __init__(self, *a: str) -> None:
            super().__init__(*a)
            made.append(self)

    yield Maker
    for r in made:
        r.stop()
