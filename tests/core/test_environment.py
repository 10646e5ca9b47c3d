"""Configuration is flags and options: the package reads no REASONEVAL_* variable outside the documented list
(docs/architecture.md, "Environment variables"), and the replaced ones have no effect."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reasoneval.core import registry
from reasoneval.core.records import configured
from reasoneval.hub.cache import offline_mode
from reasoneval.hub.releases import release

SRC = Path(__file__).resolve().parents[2] / "src" / "reasoneval"
DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
ALLOWED = {"REASONEVAL_API_KEY", "REASONEVAL_STORE", "REASONEVAL_CACHE_DIR", "REASONEVAL_LATEX_CACHE",
           "REASONEVAL_PLUGINS"}  # (REASONEVAL_SANDBOX_WARMUP went with the fork server)
NAME = re.compile(r"\bREASONEVAL_[A-Z0-9_]*[A-Z0-9]\b")


def test_only_documented_variables_are_named_in_code() -> None:
    found: dict[str, str] = {}
    for p in SRC.rglob("*.py"):
        for m in NAME.finditer(p.read_text(encoding="utf-8")):
            found.setdefault(m.group(0), str(p.relative_to(SRC)))
    extra = {k: v for k, v in found.items() if k not in ALLOWED}
    assert not extra, f"configuration through the environment (make it a flag or -O option): {extra}"
    doc = DOC.read_text(encoding="utf-8")
    assert all(f"`{name}`" in doc for name in ALLOWED)


def test_replaced_variables_have_no_effect(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REASONEVAL_RBENCH_PATH", str(tmp_path))
    monkeypatch.setenv("REASONEVAL_GENERAL365_PATH", str(tmp_path))
    monkeypatch.setenv("REASONEVAL_RBENCH_REVISION", "0" * 40)
    monkeypatch.setenv("REASONEVAL_OFFLINE", "1")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert not configured(None)
    assert release("rbench").revision_for() == release("rbench").revision
    assert offline_mode() is False
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # HF's own standard variable is honoured
    assert offline_mode() is True
    for name in ("rbench", "general365"):
        opts = registry.create(name, {"revision": "abc"}).options
        assert opts.identity() == {"revision": "abc"}
