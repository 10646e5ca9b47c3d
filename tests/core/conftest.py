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

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
os.environ["REASONEVAL_PLUGINS"] = "toybench"
os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FakeServerProc:
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
        raise RuntimeError("fake server did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, int]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats") as r:
            return json.loads(r.read())

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


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
