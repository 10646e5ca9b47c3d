r"""SymPy's ``parse_latex``, parsed in two stages: ANTLR's SLL prediction first, SymPy's own call when that fails.

``sympy.parsing.latex.parse_latex`` runs ANTLR in its default LL prediction mode. In pure Python that costs
~10 ms for a ten-character answer, mostly full-context predictions that are never cached (measured on the
KOR-Bench answers: 86% of the parse time is ``execATNWithFullContext``). ANTLR's documented two-stage strategy
parses with SLL prediction first (context-free predictions, all cached): when the SLL parse succeeds without a
syntax error, its tree is the LL tree; when it reports an error (a real one, or an input that needs full
context) the input is parsed again by ``parse_latex`` itself, so every error and every message is SymPy's.
SymPy's start rule does not end in EOF, so a parse may stop before the end of its input, and SLL and LL can stop
at different places: an SLL parse that leaves input unconsumed is handed to ``parse_latex`` as well.
The converted expression comes from SymPy's own ``convert_relation``, so a successful parse is built by the
same code as ``parse_latex``'s.

The SLL parser keeps its own DFA cache, apart from the generated parser's shared one, so predictions made in one
mode are never read in the other. ``tests/scoring/test_latexparse.py`` checks that both calls give the same
``srepr`` (or both fail) on every answer of the shared KOR-Bench outputs and on random LaTeX.

Runs only inside the sandbox workers (it imports SymPy); never on the scoring process.
"""

from __future__ import annotations

from typing import Any

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


_USABLE: bool | None = None  # the antlr runtime SymPy's generated parser needs (latexcmp.antlr_problem)


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
        from .latexcmp import antlr_problem

        _USABLE = antlr_problem() is None
    if _USABLE:
        try:
            return parse_sll(text)
        except Exception:  # noqa: BLE001 - SymPy's own parse decides (and raises its own error)
            pass
    return sympy_parse_latex(text)
