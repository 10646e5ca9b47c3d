"""``llamacpp/<file.gguf>`` through the CLI: new bytes at the same path are a new run with fresh answers; the same
bytes at another path are the same run, nothing generated."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")

from reasoneval.models.base import ModelError  # noqa: E402
from reasoneval.models.llamacpp import default_gguf  # noqa: E402

pytestmark = pytest.mark.llamacpp


def _run(tmp: Path, gguf: Path, *extra: str) -> tuple[str, int]:
    env = {**os.environ, "REASONEVAL_CACHE_DIR": str(tmp / "cache"), "HOME": str(tmp / "home")}
    p = subprocess.run([sys.executable, "-m", "reasoneval", "run", "korbench:operation", "--limit", "2",
                        "--max-tokens", "8", "--model", f"llamacpp/{gguf}", "--store", str(tmp / "s.db"),
                        "--no-progress", *extra], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    m = re.search(r"run (\w{12})(?: \(resumed\))?: \d+ items, (\d+) generated", p.stderr)
    assert m, p.stderr
    return m.group(1), int(m.group(2))


def test_gguf_identity_by_content(tmp_path: Path) -> None:
    try:
        src = default_gguf()
    except ModelError as e:
        pytest.skip(str(e))
    a = tmp_path / "ckpt.gguf"
    shutil.copyfile(src, a)
    id1, gen1 = _run(tmp_path, a)
    assert gen1 == 2
    b = tmp_path / "other" / "renamed.gguf"
    b.parent.mkdir()
    shutil.copyfile(a, b)
    id2, gen2 = _run(tmp_path, b)  # the same bytes at another path and name
    assert (id2, gen2) == (id1, 0)
    data = bytearray(a.read_bytes())
    at = data.find(b"Smollm2 135M")
    assert 0 < at < 65536
    data[at + 6] = ord("9")  # "Smollm9"  # new bytes at the same path (a metadata string: the model still loads)
    a.write_bytes(bytes(data))
    id3, gen3 = _run(tmp_path, a)
    assert id3 != id1 and gen3 == 2


def _serve(gguf: Path, port: int, alias: str) -> subprocess.Popen[bytes]:
    import socket
    import time

    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias",
                             alias, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    pytest.fail("llama.cpp server did not start")


def test_llamacpp_server_same_model_two_ports(tmp_path: Path) -> None:
    """llama.cpp's own OpenAI-compatible server, twice on one GGUF: one run whatever the port and address; a
    server that serves another model (its alias, from /v1/models) under the same name is refused."""
    from reasoneval.testing.procs import free_port

    try:
        gguf = default_gguf()
    except ModelError as e:
        pytest.skip(str(e))
    env = {**os.environ, "REASONEVAL_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path / "home")}

    def run(url: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "reasoneval", "run", "korbench:operation", "--limit", "2",
                               "--max-tokens", "8", "--model", f"openai-compat/smol@{url}", "--store",
                               str(tmp_path / "s.db"), "--no-progress", "--concurrency", "1"],
                              capture_output=True, text=True, env=env, timeout=600)

    p1, p2 = free_port(), free_port()
    servers = [_serve(gguf, p1, "smollm2-135m"), _serve(gguf, p2, "smollm2-135m")]
    try:
        first = run(f"http://127.0.0.1:{p1}/v1")
        second = run(f"http://localhost:{p2}/v1/")
    finally:
        for s in servers:
            s.kill()
            s.wait()
    assert first.returncode == 0 and second.returncode == 0, (first.stderr[-1500:], second.stderr[-1500:])
    m1 = re.search(r"run (\w{12}): \d+ items, (\d+) generated", first.stderr)
    m2 = re.search(r"run (\w{12}) \(resumed\): \d+ items, (\d+) generated", second.stderr)
    assert m1 and m2 and m1.group(1) == m2.group(1) and (m1.group(2), m2.group(2)) == ("2", "0")
    other = _serve(gguf, p1, "another-model")
    try:
        refused = run(f"http://127.0.0.1:{p1}/v1")
    finally:
        other.kill()
        other.wait()
    assert refused.returncode == 2 and "now serves 'another-model'" in refused.stderr, refused.stderr[-1500:]
