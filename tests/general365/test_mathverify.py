from __future__ import annotations

import time
from pathlib import Path

import pytest

from reasoneval.scoring import mathverify
from reasoneval.scoring.mathverify import compare, effective_round, equivalent


@pytest.mark.parametrize("gold, pred, k, want", [
    ("\\pi", "3.1416", 3, True),  # 3.1416 passes at 3 places
    ("\\pi", "3.14", 4, False),  # 3.14 fails at 4
    ("\\pi", "3.1416", 4, True),
    ("\\pi", "3.142", 4, False),
    ("3.14159", "3.1416", 3, True),
    ("\\frac{1}{3}", "0.3333", 4, True),
    ("\\frac{1}{3}", "0.333", 4, False),
    ("2", "2.00001", 3, True),  # SymPy >= 1.13 Integer/Float equality pitfall
    ("420", "420", 0, True),
    ("420", "420.3", 0, False),  # float_round 0 = not annotated: no rounding to whole numbers
    ("420", "419.99996", 0, True),
    ("2\\sqrt{3}", "\\sqrt{12}", 0, True),
    ("\\frac{5}{36}", "\\frac{10}{72}", 4, True),
])
def test_numbers_honour_float_round(gold: str, pred: str, k: int, want: bool) -> None:
    assert equivalent(gold, pred, float_round=k).equal is want


@pytest.mark.parametrize("gold, pred, want", [
    ("(1, 2]", "(1,2]", True),
    ("(1, 2]", "(1, 2)", False),
    ("(1, 2]", "[1, 2]", False),
    ("(1, 2)", "1, 2", False),  # a pair is not an interval (math-verify alone would accept it)
    ("(1, 2]", "x \\in (1, 2]", True),
    ("(1, 2]", "1 < x \\le 2", True),
    ("[1, +\\infty)", "[1, \\infty)", True),
    ("(-\\infty, 2] \\cup [3, +\\infty)", "(-\\infty,2]\\cup[3,\\infty)", True),
    ("(-\\infty, 2] \\cup [3, +\\infty)", "(-\\infty,2)\\cup[3,\\infty)", False),
    ("[0, \\frac{1}{3}]", "[0, 0.3333]", True),
])
def test_intervals_compare_as_intervals(gold: str, pred: str, want: bool) -> None:
    assert equivalent(gold, pred, kind="interval", float_round=4).equal is want


def test_effective_round() -> None:
    assert [effective_round(x) for x in (None, 0, "0", "", "3", 5, "x")] == [4, 4, 4, 4, 3, 5, 4]


def test_model_text_is_never_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "pwned"
    payloads = [
        f"__import__('os').system('touch {marker}')",
        f"\\text{{__import__('os').system('touch {marker}')}}",
        f"eval(\"open('{marker}', 'w')\")",
        "x = __import__('subprocess')",
    ]
    for p in payloads:  # in the worker process
        assert equivalent("3", p).equal is not True
    assert not marker.exists()

    import sympy.parsing.sympy_parser as sp

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("parse_expr must never see model text")

    monkeypatch.setattr(sp, "parse_expr", boom)
    monkeypatch.setattr("math_verify.parser.parse_expr", boom, raising=False)
    monkeypatch.setattr("builtins.eval", boom)
    for p in [*payloads, "3", "\\frac{6}{2}", "(1, 2]"]:  # in-process, with every evaluator booby-trapped
        compare("3", p)
    assert not marker.exists()


def test_hostile_input_times_out_and_the_pool_recovers() -> None:
    t0 = time.monotonic()
    r = equivalent("3", "9^{9^{9^{9}}}", timeout=1.5)
    assert r.equal is None and r.reason == "timeout"
    assert time.monotonic() - t0 < 10
    assert equivalent("3", "3").equal is True  # a fresh worker replaces the killed one
    assert equivalent("3", "1" * 5000).reason == "too-long"


def test_works_from_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda p: equivalent("\\pi", p, float_round=3).equal, ["3.1416", "3.14", "3.142", "3"]))
    assert got == [True, False, True, False]
    mathverify.shutdown()


def test_runs_on_the_shared_sandbox_pool() -> None:
    """One pool implementation: math-verify workers are SandboxPool workers, warmed up before they are ready
    (import time is not part of a timeout; tests/korbench/test_kor_safety.py checks that on the pool itself)."""
    from reasoneval.scoring.sandbox import SandboxPool

    mathverify.shutdown()
    assert equivalent("\\frac{1}{2}", "0.5", timeout=1.0).equal is True
    pool = mathverify._POOL
    assert isinstance(pool, SandboxPool) and pool.stats["startup_failures"] == 0
    assert equivalent("3", "9^{9^{9^{9}}}", timeout=0.5).reason == "timeout"
    assert equivalent("2", "2.0", timeout=1.0).equal is True  # right after the respawn
    assert pool.stats["timeouts"] == 1
