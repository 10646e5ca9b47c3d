"""A fake Hub on 127.0.0.1 holding the GSM8K, MATH-500 and MMLU repos; a private HF cache per test.

The releases are pinned to commits of the real Hub, which the fake one does not have: in this process the pins
are replaced by ``main`` (subprocesses pass ``-O revision=main`` / ``--revision main``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from transferdata import GSM8K, MATH500, MMLU, forget, gsm8k_files, math_files, mmlu_files

from reasoneval.hub import RELEASES, release
from reasoneval.testing.fake_hub import FakeHub


@pytest.fixture
def hub_env(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    hub = FakeHub()
    hub.commit(GSM8K, gsm8k_files())
    hub.commit(MATH500, math_files())
    hub.commit(MMLU, mmlu_files())
    monkeypatch.setenv("HF_ENDPOINT", hub.start())
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    for name in ("gsm8k", "math", "mmlu"):
        monkeypatch.setitem(RELEASES, name, dataclasses.replace(release(name), revision="main"))
    forget()
    yield hub
    hub.stop()
    forget()
