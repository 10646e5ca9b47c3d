"""reasoneval: knowledge-orthogonal reasoning evaluation.

The Python API (``docs/python.md``) is imported on first use, so ``import reasoneval`` stays cheap:
:func:`evaluate`, :func:`evaluate_async`, :func:`load_run`, :class:`EvalResult`.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import Answer, EvalResult, SubsetFigures, evaluate, evaluate_async, load_run

__version__ = "0.1.0"

_API = ("evaluate", "evaluate_async", "load_run", "EvalResult", "SubsetFigures", "Answer")
__all__ = ["Answer", "EvalResult", "SubsetFigures", "__version__", "evaluate", "evaluate_async", "load_run"]


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
