"""Rows of a real ``reasoneval finereason export`` (small math file, freshly generated puzzle states)."""

from __future__ import annotations

from typing import Any

import pytest
from rewardrows import export_rows


@pytest.fixture(scope="session")
def mix_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return export_rows(tmp_path_factory.mktemp("mix"), "--total", "40", "--math-ratio", "0.4", "--seed", "7")
