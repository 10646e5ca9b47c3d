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
