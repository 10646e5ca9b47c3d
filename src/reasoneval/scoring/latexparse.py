r"""SymPy's ``parse_latex``, parsed in two stages: ANTLR's SLL prediction first, SymPy's own call when that fails.

``sympy.parsing.latex.parse_latex`` runs ANTLR in its default LL prediction mode. In pure Python that costs
~10 ms for a ten-character answer, mostly full-context predictions that are never cached (measured on a
benchmark's shared raw answers: 86% of the parse time is ``execATNWithFullContext``). ANTLR's documented two-stage strategy
parses with SLL prediction first (context-free predictions, all cached): when the SLL parse succeeds without a
syntax error, its tree is the LL tree; when it reports an error (a real one, or an input that needs full
context) the input is parsed again by ``parse_latex`` itself, so every error and every message is SymPy's.
SymPy's start rule does not end in EOF, so a parse may stop before the end of its input, and SLL and LL can stop
at different places: an SLL parse that leaves input unconsumed is handed to ``parse_latex`` as well.
The converted expression comes from SymPy's own ``convert_relation``, so a successful parse is built by the
same code as ``parse_latex``'s.

The SLL parser keeps its own DFA cache, apart from the generated parser's shared one, so predictions made in one
mode are never read in the other. ``tests/scoring/test_latexparse.py`` checks that both calls give the same
``srepr`` (or both fail) on every answer of the shared raw outputs and on random LaTeX.

SymPy's converter module imports ``sympy.physics.quantum`` at its top for two names, ``Bra`` and ``Ket``, which
it only calls when an answer is written in bra-ket notation. That import is half of the whole SymPy start-up
(~0.7 s of ~1.45 s on 2 cores), paid by every sandbox worker before it is ready: this module imports
the converter with those two names bound to :class:`_Deferred` stand-ins that import the real classes on their
first call, and leaves ``sys.modules`` as it was (``sympy.physics.quantum`` itself is never replaced).

Runs only inside the sandbox workers (it imports SymPy); never on the scoring process.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

_QUANTUM_STATE = "sympy.physics.quantum.state"
_CONVERTER = "sympy.parsing.latex._parse_latex_antlr"


class _Deferred:
    """``Bra`` / ``Ket`` for the converter: calling it imports ``sympy.physics.quantum.state`` and calls the real
    class, so a bra-ket answer parses to the very expression ``parse_latex`` builds."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(_QUANTUM_STATE), self.name)(*args, **kwargs)


def import_converter() -> types.ModuleType:
    """SymPy's LaTeX converter module, imported without importing ``sympy.physics.quantum`` (see above)."""
    done = sys.modules.get(_CONVERTER)
    if done is not None:
        return done
    if _QUANTUM_STATE in sys.modules:  # already paid for: nothing to save
        return importlib.import_module(_CONVERTER)
    stub = types.ModuleType(_QUANTUM_STATE)
    stub.Bra = _Deferred("Bra")  # type: ignore[attr-defined]
    stub.Ket = _Deferred("Ket")  # type: ignore[attr-defined]
    sys.modules[_QUANTUM_STATE] = stub  # the converter's ``from ... import Bra, Ket`` finds it and stops there
    try:
        return importlib.import_module(_CONVERTER)
    finally:
        if sys.modules.get(_QUANTUM_STATE) is stub:
            del sys.modules[_QUANTUM_STATE]


import_converter()  # at import: this module is preloaded by the sandbox workers in SymPy's stead

_UNITS = "sympy.physics.units"


class _NoQuantity:
    """``simplify``'s ``Quantity`` before ``sympy.physics.units`` is imported: ``simplify`` asks
    ``expr.has(Quantity)`` of every expression, and no expression parsed from LaTeX holds a physical quantity
    (the parser never builds one), so the answer is False with either class."""


class _UnitsOnDemand(types.ModuleType):
    """``sympy.physics.units`` until something other than ``simplify``'s ``Quantity`` check asks for it: any other
    name imports the real module, which takes this one's place in ``sys.modules`` (and on ``sympy.physics``)."""

    Quantity = _NoQuantity

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system's questions (``__path__``: ``from ... import`` asks it)
            raise AttributeError(name)
        return getattr(_real_units(self), name)


def _real_units(stand_in: types.ModuleType) -> types.ModuleType:
    if sys.modules.get(_UNITS) is stand_in:
        del sys.modules[_UNITS]
    real = importlib.import_module(_UNITS)
    physics = sys.modules.get("sympy.physics")
    if physics is not None and getattr(physics, "units", None) is stand_in:
        physics.units = real  # type: ignore[attr-defined]
    return real


def defer_units() -> None:
    """``sympy.physics.units`` (a fifth of SymPy's start-up, ~0.2 s) is imported by ``simplify``'s first call only
    to ask whether the expression holds a ``Quantity``; in a sandbox worker it is a :class:`_UnitsOnDemand` until
    anything else is asked of it. Nothing to do where it is imported already."""
    if _UNITS not in sys.modules:
        sys.modules[_UNITS] = _UnitsOnDemand(_UNITS)

_SLL: tuple[Any, ...] | None = None


def _sll_parts() -> tuple[Any, ...]:
    global _SLL
    if _SLL is None:
        import antlr4
        from antlr4.atn.PredictionMode import PredictionMode
        from antlr4.dfa.DFA import DFA
        from antlr4.PredictionContext import PredictionContextCache
        from sympy.parsing.latex import _parse_latex_antlr as conv
        from sympy.parsing.latex._antlr.latexlexer import LaTeXLexer
        from sympy.parsing.latex._antlr.latexparser import LaTeXParser

        dfa = [DFA(state, i) for i, state in enumerate(LaTeXParser.atn.decisionToState)]
        _SLL = (antlr4, PredictionMode.SLL, LaTeXLexer, LaTeXParser, conv, dfa, PredictionContextCache())
    return _SLL


_USABLE: bool | None = None  # the antlr runtime SymPy's generated parser needs (antlr.antlr_problem)


def parse_sll(text: str) -> Any:
    """The SLL stage alone: the expression, or an exception (a syntax error or an input SLL cannot decide)."""
    from antlr4.atn.ParserATNSimulator import ParserATNSimulator

    antlr4, sll, lexer_cls, parser_cls, conv, dfa, ctx_cache = _sll_parts()
    src = text.strip()
    listener = conv.MathErrorListener(src)
    lexer = lexer_cls(antlr4.InputStream(src))
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    parser = parser_cls(antlr4.CommonTokenStream(lexer))
    parser._interp = ParserATNSimulator(parser, parser.atn, dfa, ctx_cache)
    parser._interp.predictionMode = sll
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    relation = parser.math().relation()
    if parser.getTokenStream().LA(1) != antlr4.Token.EOF:
        # ``math`` does not end in EOF, so a parse may stop before the end of the input; SLL can stop at another
        # place than LL (found by the random-LaTeX test), so only a parse of the whole input is taken
        raise ValueError("the SLL parse did not consume the whole input")
    return conv.convert_relation(relation)


def parse_latex(text: str) -> Any:
    """Same result as ``sympy.parsing.latex.parse_latex(text)`` (same expression, same exceptions)."""
    global _USABLE
    from sympy.parsing.latex import parse_latex as sympy_parse_latex

    if _USABLE is None:
        from .antlr import antlr_problem

        _USABLE = antlr_problem() is None
    if _USABLE:
        try:
            return parse_sll(text)
        except Exception:  # noqa: BLE001 - SymPy's own parse decides (and raises its own error)
            pass
    return sympy_parse_latex(text)
