from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reasoneval.testing.procs import FakeServerProc


@pytest.fixture
def scripted_server(tmp_path: Path) -> Iterator[Callable[..., FakeServerProc]]:
    """Start a fake OpenAI-compatible server whose replies are scripted: [(contains, response), ...]."""
    made: list[FakeServerProc] = []

    def start(answers: list[tuple[str, str]], *flags: str) -> FakeServerProc:
        path = tmp_path / f"answers{len(made)}.jsonl"
        path.write_text("".join(json.dumps({"contains": c, "response": r}) + "\n" for c, r in answers),
                        encoding="utf-8")
        s = FakeServerProc("--delay", "0", "--answers", str(path), *flags)
        made.append(s)
        return s

    yield start
    for s in made:
        s.stop()
