from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reasoneval.testing.procs import FakeServerProc

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
os.environ["REASONEVAL_PLUGINS"] = "toybench"
os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])


@pytest.fixture
def fake_server() -> Iterator[FakeServerProc]:
    s = FakeServerProc("--delay", "0.01")
    yield s
    s.stop()


@pytest.fixture
def make_server() -> Iterator[type[FakeServerProc]]:
    made: list[FakeServerProc] = []

    class Maker(FakeServerProc):
        def __init__(self, *a: str) -> None:
            super().__init__(*a)
            made.append(self)

    yield Maker
    for s in made:
        s.stop()
