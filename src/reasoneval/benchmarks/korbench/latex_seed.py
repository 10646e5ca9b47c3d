"""The canonical forms of every KOR-Bench gold that the scorer sends to SymPy (``latex-seed.json`` beside this
module, built by ``scripts/build_latex_seed.py`` in the pinned SymPy/antlr environment; another environment's
file is ignored), and the process-wide canonicaliser that reads them."""

from __future__ import annotations

from pathlib import Path

from reasoneval.scoring.latexcmp import LatexCanonicalizer, default_canonicalizer

SEED_PATH = Path(__file__).with_name("latex-seed.json")


def canonicalizer() -> LatexCanonicalizer:
    """The process-wide :class:`LatexCanonicalizer`, seeded with KOR-Bench's golds."""
    return default_canonicalizer(SEED_PATH)
