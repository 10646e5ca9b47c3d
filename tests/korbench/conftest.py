"""Session fixtures for the KOR-Bench tests: one sandboxed LaTeX canonicaliser (fresh on-disk cache) and the
official re-scoring of the shared raw outputs, computed once and shared by the tests that check it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reasoneval.benchmarks.korbench.rescore import Rescorer, RescoreResult
from reasoneval.scoring.latexcmp import LatexCanonicalizer


@pytest.fixture(scope="session", autouse=True)
def _private_latex_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep the process-wide canonicaliser (used by the CLI path) off the user's ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("REASONEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("default-latex-cache")))
        yield


@pytest.fixture(scope="session")
def latex(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LatexCanonicalizer]:
    lc = LatexCanonicalizer(cache_dir=tmp_path_factory.mktemp("latex-cache"), timeout=20.0)
    yield lc
    lc.close()


@pytest.fixture(scope="session")
def main_official(korbench_outputs: Path, latex: LatexCanonicalizer) -> RescoreResult:
    return Rescorer(lc=latex).run([str(korbench_outputs / "main")])


@pytest.fixture(scope="session")
def sc_official(korbench_outputs: Path, latex: LatexCanonicalizer) -> RescoreResult:
    return Rescorer(lc=latex).run([str(korbench_outputs / "self-correction")])
