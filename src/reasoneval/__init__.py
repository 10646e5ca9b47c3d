"""reasoneval: knowledge-orthogonal reasoning evaluation.

The Python API (``docs/python.md``) is imported on first use, so ``import reasoneval`` stays cheap:
:func:`evaluate`, :func:`evaluate_async`, :func:`load_run`, :class:`EvalResult` (from :mod:`reasoneval.api`).
"""

from typing import Any

__version__ = "0.1.0"

_API = ("evaluate", "evaluate_async", "load_run", "EvalResult", "SubsetFigures", "Answer")
__all__ = ["Answer", "EvalResult", "SubsetFigures", "__version__", "evaluate", "evaluate_async", "load_run"]


def __getattr__(name: str) -> Any:
    if name in _API:
        # imported by name on first use: the package itself stays the bottom layer that every module may read
        # ``__version__`` from (an ``import`` statement here would be an edge from it to the API, the top)
        import importlib

        return getattr(importlib.import_module(f"{__name__}.api"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
