"""The console script starts the SymPy sandbox ahead of the CLI's imports for ``rescore korbench`` on a cold cache
only, and otherwise hands straight over to the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reasoneval import entry
from reasoneval.scoring import latexcmp


@pytest.fixture
def fresh_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("REASONEVAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(latexcmp, "_DEFAULT", None)
    return tmp_path


def test_rescore_korbench_on_a_cold_cache_starts_the_pool(fresh_default: Path) -> None:
    entry._prestart(["rescore", "korbench", "outputs/"])
    lc = latexcmp._DEFAULT
    assert lc is not None and lc._pool is not None and lc._pool._thread is not None
    lc.close()


@pytest.mark.parametrize("argv", [["run", "korbench"], ["rescore", "finereason", "x"], ["rescore", "korbench", "--help"],
                                  []])
def test_other_commands_start_nothing(fresh_default: Path, argv: list[str]) -> None:
    entry._prestart(argv)
    assert latexcmp._DEFAULT is None


def test_a_warm_cache_starts_nothing(fresh_default: Path) -> None:
    (fresh_default / "latex-cache.sqlite").write_bytes(b"x" * 10)
    entry._prestart(["rescore", "korbench", "outputs/"])
    assert latexcmp._DEFAULT is None


def test_console_script_runs_the_cli() -> None:
    exe = Path(sys.executable).with_name("reasoneval")
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "rescore" in out.stdout
