"""Whether the antlr runtime SymPy's generated LaTeX parser needs is installed (checked without importing SymPy)."""

from __future__ import annotations

from importlib import metadata

ANTLR_REQUIRED = "4.11"  # the runtime sympy's generated LaTeX parser was built with


def antlr_problem() -> str | None:
    """A warning when ``parse_latex`` cannot work as the reference evaluator expects, else None."""
    try:
        v = metadata.version("antlr4-python3-runtime")
    except metadata.PackageNotFoundError:
        return "antlr4-python3-runtime is not installed: every LaTeX comparison falls back to string equality"
    if not v.startswith(ANTLR_REQUIRED + "."):
        return (f"antlr4-python3-runtime {v} is installed but sympy's LaTeX parser needs {ANTLR_REQUIRED}.x: "
                "LaTeX comparisons fail and fall back to string equality (Operation scores drop)")
    return None
