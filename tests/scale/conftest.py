"""Fixtures for the scale-out tests: fake OpenAI-compatible replicas and the toy benchmark."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parent.parent / "core"
sys.path.insert(0, str(CORE))  # toybench.py lives there
os.environ["REASONEVAL_PLUGINS"] = "toybench"
os.environ["PYTHONPATH"] = os.pathsep.join([str(CORE), os.environ.get("PYTHONPATH", "")])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Replica:
    """One fake OpenAI-compatible server in its own process (so it can be killed mid-run)."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", "reasoneval.testing.fake_openai",
                                      "--port", str(self.port), *args])
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("fake server did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, int]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=5) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


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
