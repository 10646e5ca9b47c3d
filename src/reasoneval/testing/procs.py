"""Start and stop a local fake OpenAI-compatible server process (tests and bench scripts)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FakeServerProc:
    def __init__(self, *args: str, module: str = "reasoneval.testing.fake_openai") -> None:
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", module, "--port", str(self.port), *args])
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

    def seen(self) -> dict[str, int]:
        """Requests received per prompt (sha256 hex of the prompt text -> count)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/seen", timeout=5) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


