"""The embedded model and llama.cpp's own OpenAI-compatible server run the same slice; both store and score."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

llama_cpp = pytest.importorskip("llama_cpp")

from reasoneval.models.base import ModelError  # noqa: E402
from reasoneval.models.llamacpp import default_gguf  # noqa: E402

SLICE = ["run", "korbench:operation", "--limit", "2", "--limit-mode", "first", "--max-tokens", "24", "--temperature", "0",
         "--no-progress"]


def _gguf() -> Path:
    try:
        return default_gguf()
    except ModelError as e:
        pytest.skip(str(e))


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rows(db: Path) -> list[tuple]:
    return sqlite3.connect(db).execute(
        "SELECT c.item_key, c.text, c.error, v.outcome FROM completions c JOIN verdicts v USING "
        "(run_id, item_key, sample, turn) ORDER BY c.item_key").fetchall()


def test_embedded_and_llamacpp_server_paths(tmp_path: Path) -> None:
    gguf = _gguf()
    emb = subprocess.run([sys.executable, "-m", "reasoneval.cli", *SLICE, "--model", "llamacpp/default",
                          "--store", str(tmp_path / "emb.db")], capture_output=True, text=True, timeout=600)
    assert emb.returncode == 0, emb.stderr
    assert "Operation" in emb.stdout and "Overall" in emb.stdout  # the scored table

    port = _port()
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host",
                               "127.0.0.1", "--port", str(port), "--n_ctx", "4096"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.2)
        http = subprocess.run([sys.executable, "-m", "reasoneval.cli", *SLICE, "--concurrency", "1",
                               "--model", f"openai-compat/smollm2@http://127.0.0.1:{port}/v1",
                               "--store", str(tmp_path / "http.db")],
                              capture_output=True, text=True, timeout=600)
    finally:
        server.kill()
        server.wait()
    assert http.returncode == 0, http.stderr
    a, b = _rows(tmp_path / "emb.db"), _rows(tmp_path / "http.db")
    assert [r[0] for r in a] == [r[0] for r in b] == ["operation/1", "operation/2"]
    for rows in (a, b):
        for _, text, error, outcome in rows:
            assert error is None and text.strip() and outcome in ("correct", "incorrect", "unanswerable")
    # (texts may differ: llama.cpp's server applies repeat_penalty 1.1 by default, the library 1.0)
