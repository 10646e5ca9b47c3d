"""Repository-wide test fixtures: where the shared (read-only) reference data lives."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO / "src") not in sys.path:  # tests also work from a checkout that is not pip-installed
    sys.path.insert(0, str(REPO / "src"))


def shared_root() -> Path | None:
    """``$REASONEVAL_SHARED`` if set, else ``<repo>/../shared``; None when neither exists."""
    env = os.environ.get("REASONEVAL_SHARED")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared"]:
        if cand.is_dir():
            return cand
    return None


@pytest.fixture(scope="session")
def shared_or_none() -> Path | None:
    """The shared data folder (:func:`shared_root`), or None: for tests that check more when it is there."""
    return shared_root()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    root = shared_root()
    if root is None:
        pytest.skip("shared data not available (set REASONEVAL_SHARED)")
    return root


@pytest.fixture(scope="session")
def korbench_outputs(shared_dir: Path) -> Path:
    """Official KOR-Bench raw outputs: ``{main,self-correction,puzzle-trick,cipher-subquestions}/*.jsonl``."""
    p = shared_dir / "data" / "korbench-outputs"
    if not (p / "main").is_dir():
        pytest.skip(f"{p} not available")
    return p
