"""The LaTeX canonicaliser: persistent cache, failure reporting, and canonical-form equality == SymPy's ``==``."""

from __future__ import annotations

import json
from pathlib import Path

from reasoneval.benchmarks.korbench.mathexpr import MathTask
from reasoneval.benchmarks.korbench.score_official import judge
from reasoneval.scoring.latexcmp import PRELOAD, LatexCanonicalizer
from reasoneval.scoring.sandbox import SandboxPool


def test_disk_cache_roundtrip(tmp_path: Path) -> None:
    exprs = ["\\frac{1}{2}x^2", "x^2/2", "\\frac{", "\\sqrt{2}"]
    with LatexCanonicalizer(cache_dir=tmp_path) as a:
        first = [a.get(e) for e in exprs]
        assert a.stats["computed"] == 4
        assert a.failures and "\\frac{" in a.failures
    with LatexCanonicalizer(cache_dir=tmp_path) as b:
        again = [b.get(e) for e in exprs]
        assert b.stats["computed"] == 0 and b.stats["disk_hits"] == 4
        assert b._pool is None  # nothing had to be started
        assert "\\frac{" in b.failures  # failures stay visible on cache hits
    assert first == again
    assert first[0].ok and first[0].value == first[1].value  # same simplified structure
    assert not first[2].ok and first[2].status == "error"


def test_no_persistence_when_disabled(tmp_path: Path) -> None:
    with LatexCanonicalizer(cache_dir=tmp_path, persistent=False) as lc:
        assert lc.get("x+1").ok
    assert not any(tmp_path.iterdir())


def _both_ways(a: str, b: str) -> tuple[bool, bool]:
    import sympy
    from sympy.parsing.latex import parse_latex

    ea, eb = sympy.simplify(parse_latex(a)), sympy.simplify(parse_latex(b))
    return bool(ea == eb), sympy.srepr(ea) == sympy.srepr(eb)


def test_canonical_equality_matches_sympy_eq(korbench_outputs: Path, latex: LatexCanonicalizer) -> None:
    """On real comparisons, srepr equality (what the cache stores) == structural ``==`` of simplified forms."""
    tasks: list[MathTask] = []
    for name in ("Qwen2.5-7B-Instruct_operation_zero-shot.jsonl",):
        for line in (korbench_outputs / "main" / name).read_text(encoding="utf-8").split("\n"):
            if line.strip():
                r = json.loads(line)
                j = judge(r["response"], r["answer"], "operation", r["rule_id"], r["idx"])
                if j.pending is not None and not j.pending.or_mode:
                    tasks.append(j.pending)
    pairs = sorted({(t.resp, t.gold) for t in tasks if latex.get(t.resp).ok and latex.get(t.gold).ok})
    assert len(pairs) > 25
    with SandboxPool(preload=PRELOAD) as pool:
        results = [f.result() for f in [pool.submit(_both_ways, a, b, timeout=60) for a, b in pairs]]
    assert all(eq == same_repr for eq, same_repr in results)
    assert any(eq for eq, _ in results) and not all(eq for eq, _ in results)
