"""A fake Hub on 127.0.0.1 serving small R-Bench / General365 repos made here; a private HF cache per test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hubdata import G365, RBENCH, forget, g365_files, rbench_files

from reasoneval.testing.fake_hub import FakeHub


@pytest.fixture
def hub_env(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A started fake Hub holding both repos; HF_ENDPOINT / HF_HOME point at it and at a private cache."""
    hub = FakeHub()
    hub.commit(RBENCH, rbench_files())
    hub.commit(G365, g365_files())
    monkeypatch.setenv("HF_ENDPOINT", hub.start())
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    forget()
    yield hub
    hub.stop()
    forget()
