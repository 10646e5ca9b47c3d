"""Under another ANTLR runtime (hydra-core 1.3 / verl pin 4.9.x) SymPy's LaTeX parser refuses to load: the LaTeX
canonicalizer then refuses too, instead of letting every verdict silently fall back to string comparison."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from reasoneval.scoring import latexcmp
from reasoneval.scoring.latexcmp import LatexCanonicalizer, LatexRuntimeError, runtime_problem


def test_this_environment_has_the_runtime() -> None:
    assert runtime_problem() is None


def test_another_runtime_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = metadata.version
    monkeypatch.setattr(latexcmp.metadata, "version",
                        lambda pkg: "4.9.3" if pkg == "antlr4-python3-runtime" else real(pkg))
    problem = runtime_problem()
    assert problem is not None and "4.9.3" in problem and "4.11" in problem
    with LatexCanonicalizer(cache_dir=tmp_path) as lc, pytest.raises(LatexRuntimeError, match="4.9.3"):
        lc.get(r"\frac{1}{2}x^2")
