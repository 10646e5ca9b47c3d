"""The two-stage LaTeX parse (SLL first, SymPy's own ``parse_latex`` when that fails) gives SymPy's results, and the
canonical form keyed by the parsed expression equals a fresh ``srepr(simplify(parse_latex(s)))``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from reasoneval.benchmarks.korbench.latex_seed import SEED_PATH
from reasoneval.benchmarks.korbench.score_official import judge
from reasoneval.scoring import latexcmp
from reasoneval.scoring.latexcmp import PRELOAD
from reasoneval.scoring.sandbox import SandboxPool


def _both(text: str) -> tuple[str | None, str]:
    """Worker-side: (the SLL stage's srepr or None when it raised, SymPy's parse_latex srepr or its error)."""
    import sympy
    from sympy.parsing.latex import parse_latex as sympy_parse

    from reasoneval.scoring import latexparse

    try:
        sll: str | None = sympy.srepr(latexparse.parse_sll(text))
    except Exception:  # noqa: BLE001
        sll = None
    try:
        ll = sympy.srepr(sympy_parse(text))
    except Exception as e:  # noqa: BLE001
        ll = f"error {type(e).__name__}: {e}"
    try:
        two = sympy.srepr(latexparse.parse_latex(text))
    except Exception as e:  # noqa: BLE001
        two = f"error {type(e).__name__}: {e}"
    assert two == ll, (text, two, ll)  # the public function: always SymPy's result, errors included
    return sll, ll


def _answers(outputs: Path) -> list[str]:
    """Every string the official Operation scorer would send to SymPy, over all shared raw-output files."""
    seen: set[str] = set()
    for f in sorted(outputs.rglob("*operation*.jsonl")):
        for line in f.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            r = json.loads(line)
            resp = r.get("response")
            if not isinstance(resp, str):
                continue
            j = judge(resp, r["answer"], "operation", r["rule_id"], r["idx"])
            if j.pending is not None:
                seen.update(j.pending.resp_parts + j.pending.gold_parts)
    return sorted(seen)


_ATOMS = ["x", "y", "e", "i", "2", "3.5", "10", "\\pi", "\\infty", "a_1", "x'", "n!"]
_UNARY = ["\\sin", "\\cos", "\\ln", "\\log_{2}", "\\sqrt", "\\exp", "\\tan", "-", "\\arcsin"]
_BINARY = ["+", "-", "*", "/", "^", "\\cdot", "\\times", " ", "="]


def _expr(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice(_ATOMS)
    kind = rng.random()
    if kind < 0.35:
        return _expr(rng, depth - 1) + rng.choice(_BINARY) + _expr(rng, depth - 1)
    if kind < 0.55:
        op = rng.choice(_UNARY)
        arg = _expr(rng, depth - 1)
        return f"{op}{{{arg}}}" if op == "\\sqrt" else f"{op}({arg})" if rng.random() < 0.6 else f"{op} {arg}"
    if kind < 0.7:
        return f"\\frac{{{_expr(rng, depth - 1)}}}{{{_expr(rng, depth - 1)}}}"
    if kind < 0.8:
        return f"({_expr(rng, depth - 1)})"
    if kind < 0.87:
        return f"|{_expr(rng, depth - 1)}|"
    if kind < 0.94:
        return f"{_expr(rng, depth - 1)}^{{{_expr(rng, depth - 1)}}}"
    return "".join(rng.choice(["\\", "{", "}", "(", ")", "^", "_", "|", ",", " x", "2"]) for _ in range(3))


_TAILS = [" or 3", ", so x", "\\", "}", " dx", "\\quad y", "\\text{ m}", "\\;", ".", " answer: 2", "]", "\\cdote",
          "x(", "=2=", "!!", "''"]


def _random_latex(n: int, seed: int = 1) -> list[str]:
    """Random LaTeX, a fifth of it with trailing text (answers often carry some: the parse may stop early)."""
    rng = random.Random(seed)
    out = set()
    for _ in range(n):
        text = _expr(rng, rng.randint(1, 4))
        out.add(text + rng.choice(_TAILS) if rng.random() < 0.2 else text)
    return sorted(out)


def test_two_stage_parse_equals_sympy_on_every_shared_answer_and_random_latex(korbench_outputs: Path) -> None:
    answers = _answers(korbench_outputs)
    assert len(answers) > 150
    texts = answers + _random_latex(400)
    with SandboxPool(preload=PRELOAD) as pool:
        got = [f.result() for f in [pool.submit(_both, t, timeout=60) for t in texts]]
    sll_ok = 0
    for text, (sll, ll) in zip(texts, got, strict=True):
        if sll is not None:  # whenever the SLL stage succeeds, it built SymPy's own expression
            assert sll == ll, text
            sll_ok += 1
    # the fast stage decides most inputs (the rest are syntax errors or need full-context prediction)
    assert sll_ok > 0.6 * sum(not ll.startswith("error") for _, ll in got)


def _canon_both(text: str) -> tuple[tuple[str, str], str]:
    import sympy
    from sympy.parsing.latex import parse_latex as sympy_parse

    try:
        ref = "ok", latexcmp._digest(sympy.srepr(sympy.simplify(sympy_parse(text))))
    except Exception as e:  # noqa: BLE001
        ref = "error", f"{type(e).__name__}: {e}"[:500]
    return latexcmp.canonicalize(text, (str(SEED_PATH),)), str(ref)


def test_canonical_forms_equal_sympy_on_shared_answers(korbench_outputs: Path) -> None:
    """Each worker remembers simplified forms by parsed expression; seeded golds count too. Every form equals a
    from-scratch ``srepr(simplify(parse_latex(s)))``."""
    texts = _answers(korbench_outputs)
    with SandboxPool(2, preload=PRELOAD) as pool:
        got = [f.result() for f in [pool.submit(_canon_both, t, timeout=60) for t in texts]]
    for text, (canon, ref) in zip(texts, got, strict=True):
        if canon[0] == "ok" or ref.startswith("('ok'"):
            assert str(canon) == ref, text
        else:  # both failed: the same failure
            assert canon[0] == "error"


def test_an_answer_that_parses_to_a_gold_needs_no_simplify(monkeypatch: pytest.MonkeyPatch) -> None:
    import sympy

    seed = latexcmp.seed_rows([SEED_PATH])
    gold = "6\\sqrt{2}"
    assert ("canon", gold) in seed
    monkeypatch.setattr(latexcmp, "_PARSED", {})
    monkeypatch.setattr(sympy, "simplify", lambda *_a, **_k: pytest.fail("simplify called"))
    # other spacing, same parsed expression: the seed's form, no simplify
    assert latexcmp.canonicalize("  6 \\sqrt{ 2}", (str(SEED_PATH),)) == ("ok", seed[("canon", gold)].value)
    with pytest.raises(pytest.fail.Exception):
        latexcmp.canonicalize("  6 \\sqrt{ 2}")


def test_seed_parsed_rows_match_its_string_rows() -> None:
    import sympy
    from sympy.parsing.latex import parse_latex

    seed = latexcmp.seed_rows([SEED_PATH])
    parsed = {e: c for (k, e), c in seed.items() if k == "parsed"}
    strings = {e: c for (k, e), c in seed.items() if k == "canon" and c.ok}
    assert len(parsed) >= 40
    for expr, canon in strings.items():
        assert parsed[sympy.srepr(parse_latex(expr))] == canon, expr


_BRAKET = (r"\langle x |", r"| y \rangle", r"\langle a | + 2| b \rangle", r"x\langle \psi |", r"3+|\phi\rangle")


def _srepr_in_fresh_interpreter(code: str) -> list[str]:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout)


def test_converter_imported_without_quantum_parses_bra_ket_like_sympy() -> None:
    """latexparse imports SymPy's converter without ``sympy.physics.quantum`` (half of SymPy's start-up), leaves
    ``sys.modules`` clean, and a bra-ket answer still parses to the expression SymPy's own import gives."""
    ours = _srepr_in_fresh_interpreter(
        "import json, sys, sympy\n"
        "from reasoneval.scoring import latexparse\n"
        "before = ['sympy.physics.quantum' in sys.modules, 'sympy.physics.quantum.state' in sys.modules]\n"
        f"out = [sympy.srepr(latexparse.parse_latex(s)) for s in {_BRAKET!r}]\n"
        "print(json.dumps(before + out + ['sympy.physics.quantum' in sys.modules]))\n")
    plain = _srepr_in_fresh_interpreter(
        "import json, sympy\n"
        "from sympy.parsing.latex import parse_latex\n"
        f"print(json.dumps([sympy.srepr(parse_latex(s)) for s in {_BRAKET!r}]))\n")
    assert ours[:2] == [False, False]  # not imported, and no stand-in left behind
    assert ours[2:-1] == plain
    assert "Bra(" in plain[0] and "Ket(" in plain[1]
    assert ours[-1] is True  # imported on the first bra-ket answer


def test_units_deferred_simplify_gives_what_it_gives_with_sympy_units_imported() -> None:
    """A LaTeX worker defers ``sympy.physics.units`` (``defer_units``, run by the pool's set-up): ``simplify`` of
    every seeded gold and warm-up expression gives the canonical form it gives with the real module imported, the
    module is not imported by it, and asking the stand-in for anything else imports and installs the real one."""
    golds = sorted({e for (k, e), c in latexcmp.seed_rows([SEED_PATH]).items() if k == "canon" and c.ok})
    exprs = [*golds, *latexcmp._WARMUP_EXPRS]
    assert len(golds) >= 40
    canon = ("[sympy.srepr(sympy.simplify(latexparse.parse_latex(s))) for s in " + repr(exprs) + "]")
    ours = _srepr_in_fresh_interpreter(
        "import json, sys, sympy\n"
        "from reasoneval.scoring import latexcmp, latexparse\n"
        "assert latexcmp.DEFER_UNITS == 'reasoneval.scoring.latexparse:defer_units'\n"
        "latexparse.defer_units()\n"
        f"out = {canon}\n"
        "deferred = type(sys.modules['sympy.physics.units']).__name__\n"
        "from sympy.physics.units import meter\n"
        "import sympy.physics.units.systems\n"
        "real = sys.modules['sympy.physics.units']\n"
        "print(json.dumps([out, deferred, type(meter).__name__, real.meter is meter,\n"
        "                  sys.modules['sympy.physics'].units is real, hasattr(real, '__path__')]))\n")
    plain = _srepr_in_fresh_interpreter(
        "import json, sympy, sympy.physics.units\n"
        "from reasoneval.scoring import latexparse\n"
        f"print(json.dumps({canon}))\n")
    assert ours[0] == plain
    assert ours[1] == "_UnitsOnDemand"  # simplify ran on every expression without importing the module
    assert ours[2:] == ["Quantity", True, True, True]
