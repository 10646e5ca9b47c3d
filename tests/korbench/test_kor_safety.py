"""No model output is ever executed: safe arithmetic instead of eval, SymPy only inside a time-bounded sandbox."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from reasoneval.benchmarks.korbench.puzzle_rules import compare
from reasoneval.benchmarks.korbench.score_official import judge
from reasoneval.scoring import mathverify as mv
from reasoneval.scoring import safe_arith
from reasoneval.scoring.latexcmp import LatexCanonicalizer
from reasoneval.scoring.safe_arith import ArithError, evaluate
from reasoneval.scoring.sandbox import (
    MAX_STARTUP_FAILURES,
    RemoteError,
    SandboxPool,
    SandboxTimeout,
    WorkerCrashed,
)

# hand-written, benign expressions: the evaluator must agree with Python's eval on every one
BENIGN = [
    "3+4", "(9+5-2)*2", "6*8/(9-7)", "3*(7+8/8)", "8/(3-8/3)", "1.5*16", "6/4*16", "0.1+0.2", "3/3+2/1-5-3",
    "6*8*3+9-7*4", "-(-24)", "+24", "--24", "2**3*3", "-2**2", "2**-1", "2**3**2", "10//3*8", "7%3", "(1+2)*(3+5)",
    " 4 * (7 - 1)", "24 ", "\n(3+5)*3\n", "(3+\n5)*3", "3*8 # done", "08.5", "00", "1_000-976", "0x18", "2^3",
    "~3", "1<<3", "24.", "24e0", ".5*48", "(2+2)**2+8", "13-11+(11-1)*(2+0)", "1e308*10", "(-8)**(1/3)",
    "4*(3+3)", "12 * 2",
    # eval raises on all of these
    "08", "1__0", "3x", "2 3", "(3)(4)", "2(3)", "1/0", "0**-1", "3\n4", "\n  3", "3\n  ", "x", "5!", "abs(-24)",
    "3 .5", "", "(", ")", "3 +", "1e", "10**400*1.0", "（3）", "3;",
]  # fmt: skip


@pytest.mark.parametrize("expr", BENIGN)
def test_same_results_as_eval(expr: str) -> None:
    try:
        expected: object = ("ok", eval(expr, {"__builtins__": {}}))  # noqa: S307 - test-authored literals only
    except Exception:  # noqa: BLE001
        expected = ("error",)
    try:
        got: object = ("ok", evaluate(expr))
    except ArithError:
        got = ("error",)
    assert got == expected


def test_exact_mode() -> None:
    assert evaluate("8/(3-8/3)", exact=True) == 24
    assert evaluate("1/3+1/6", exact=True) == Fraction(1, 2)
    with pytest.raises(ArithError):
        evaluate("2**0.5", exact=True)


@pytest.mark.parametrize("expr", ["9**9**9", "2**100000", "1<<10**9", "(" * 400 + "1" + ")" * 400, "1+" * 5000 + "1",
                                  "-" * 3000 + "1"])
def test_bounded(expr: str) -> None:
    t = time.perf_counter()
    with pytest.raises(ArithError):
        evaluate(expr)
    assert time.perf_counter() - t < 0.5


PAYLOADS = [
    "__import__('os').system('touch {marker}')",
    "(__import__('os').system('touch {marker}') or 24)",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "exec(\"open('{marker}','w')\")",
    "eval('24')",
    "open('{marker}','w').write('x')",
    "lambda: 24",
    "24 if __import__('os').system('touch {marker}') else 24",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_are_wrong_and_inert(payload: str, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = payload.format(marker=marker)
    assert compare("10", text, "(9+5-2)×2")[0] is False  # 24-points comparator
    assert compare("10", text, "(9+5-2)×2", True)[0] is False
    assert compare("9", text + "=24", "6+2*3-2=10")[0] is False  # math-path comparator
    # end to end through the dispatcher (puzzle rule 10 item 91)
    assert judge(f"My answer: [[{text}]]", "[[(9+5-2)×2]]", "puzzle", "10", "91").correct is False
    assert not marker.exists()
    assert not safe_arith.__dict__.get("eval")  # the module never binds eval


def test_no_dynamic_code_execution_in_scorers() -> None:
    """No call to eval/exec/compile/__import__/sympify/parse_expr anywhere in the scoring code (AST check)."""
    import ast

    import reasoneval.benchmarks.korbench as kb
    import reasoneval.scoring.latexcmp as lx

    scorer_files = [p for p in Path(kb.__file__).parent.glob("*.py") if p.name != "cipher_generate.py"]
    files = [Path(safe_arith.__file__), Path(lx.__file__), Path(mv.__file__), *scorer_files]  # type: ignore[arg-type]
    builtins = {"eval", "exec", "compile", "__import__"}
    sympy_eval = {"sympify", "parse_expr"}
    for f in files:
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name):
                    assert node.func.id not in builtins | sympy_eval, f"{f.name}:{node.lineno} calls {node.func.id}"
                elif isinstance(node.func, ast.Attribute):
                    assert node.func.attr not in sympy_eval, f"{f.name}:{node.lineno} calls {node.func.attr}"


# -- sandbox ----------------------------------------------------------------------------------------
def _sleep(seconds: float) -> str:
    time.sleep(seconds)
    return "slept"


def _boom() -> None:
    raise ValueError("boom")


def _die() -> None:
    os._exit(3)


def _pid() -> int:
    return os.getpid()


@pytest.mark.parametrize("shared", [False, True])
def test_sandbox_timeout_kill_and_respawn(shared: bool) -> None:
    with SandboxPool(1, default_timeout=5, memory_limit_mb=None, shared_imports=shared) as pool:
        first = pool.call(_pid)
        t = time.perf_counter()
        with pytest.raises(SandboxTimeout):
            pool.call(_sleep, 30, timeout=0.5)
        assert time.perf_counter() - t < 5
        assert pool.call(_pid) != first  # the stuck worker was replaced
        assert pool.call(_sleep, 0) == "slept"
        with pytest.raises(RemoteError, match="boom"):
            pool.call(_boom)
        with pytest.raises(WorkerCrashed):
            pool.call(_die)
        assert pool.call(_sleep, 0) == "slept"
        assert pool.stats["timeouts"] == 1 and pool.stats["crashes"] == 1


def _slow_start() -> None:
    time.sleep(1.5)


def _no_start() -> None:
    os._exit(5)


def _hang() -> None:
    time.sleep(60)


@pytest.mark.parametrize("shared", [False, True])
def test_sandbox_start_up_is_not_part_of_a_timeout(shared: bool) -> None:
    """Imports and initializer (math-verify's warm-up, ...) run before a worker is ready; a task's clock starts
    when it is sent, so a 0.5 s task limit holds against a 1.5 s start-up, for the first worker and a respawn."""
    with SandboxPool(1, initializer=_slow_start, memory_limit_mb=None, preload=("fractions",),
                     shared_imports=shared) as pool:
        assert pool.call(_sleep, 0, timeout=0.5) == "slept"
        with pytest.raises(SandboxTimeout):
            pool.call(_sleep, 30, timeout=0.5)
        assert pool.call(_sleep, 0, timeout=0.5) == "slept"
        assert pool.stats["timeouts"] == 1 and pool.stats["startup_failures"] == 0


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("init, startup_timeout", [(_no_start, 60.0), (_hang, 0.5)])
def test_sandbox_workers_that_never_start_fail_the_tasks(init: Callable[[], None], startup_timeout: float,
                                                         shared: bool) -> None:
    """(With ``shared_imports`` the zygote fails the same way first: the pool falls back to fresh workers.)"""
    with SandboxPool(1, initializer=init, memory_limit_mb=None, startup_timeout=startup_timeout,
                     shared_imports=shared) as pool:
        t = time.perf_counter()
        with pytest.raises(WorkerCrashed, match="do not start"):
            pool.call(_pid, timeout=1)
        assert time.perf_counter() - t < 20
        assert pool.stats["startup_failures"] == MAX_STARTUP_FAILURES and pool.broken


@pytest.mark.parametrize("shared", [False, True])
def test_sandbox_runs_in_parallel(shared: bool) -> None:
    with SandboxPool(2, memory_limit_mb=None, shared_imports=shared) as pool:
        pool.call(_pid)
        t = time.perf_counter()
        futs = [pool.submit(_sleep, 1.0) for _ in range(2)]
        assert [f.result() for f in futs] == ["slept", "slept"]
        assert time.perf_counter() - t < 1.9


def _note_setup() -> None:
    with open(os.environ["REASONEVAL_TEST_SETUP_LOG"], "a") as f:
        f.write(f"{os.getpid()}\n")


def test_shared_imports_set_up_once_and_fork_every_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``shared_imports``: the set-up (imports, initializer) runs once, in the zygote; every worker, the
    replacements of a killed and of a crashed one included, is forked from it ready, and nothing is left
    running after the pool's shutdown."""
    log = tmp_path / "setup.log"
    monkeypatch.setenv("REASONEVAL_TEST_SETUP_LOG", str(log))
    with SandboxPool(2, initializer=_note_setup, memory_limit_mb=None, preload=("fractions",),
                     shared_imports=True) as pool:
        pids = {pool.call(_pid) for _ in range(6)}
        with pytest.raises(SandboxTimeout):
            pool.call(_sleep, 30, timeout=0.5)
        with pytest.raises(WorkerCrashed):
            pool.call(_die)
        pids |= {f.result() for f in [pool.submit(_pid) for _ in range(6)]}
        assert pool.call(_sleep, 0) == "slept"
        assert pool._zygote is not None and all(type(w.proc).__name__ == "_ForkedProc" for w in pool._workers)
        zygote = pool._zygote.proc.pid
        assert pool.stats["timeouts"] == 1 and pool.stats["crashes"] == 1 and pool.stats["respawns"] == 2
    setups = log.read_text().split()
    assert setups == [str(zygote)] and str(zygote) not in {str(p) for p in pids}  # once, and not in a worker
    for pid in pids | {zygote}:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_huge_latex_power_is_bounded(tmp_path: Path) -> None:
    with LatexCanonicalizer(cache_dir=tmp_path, timeout=3.0) as lc:
        lc.get("x")  # start-up is not part of the bound
        t = time.perf_counter()
        c = lc.get("10^{10^{10}}")
        assert time.perf_counter() - t < 3.0 + 3.0
        assert not c.ok and c.status in ("timeout", "crash", "error")
        # the verdict falls back to string comparison, as the reference evaluator's exception path does
        j = judge("[[10^{10^{10}}]]", "[[24]]", "operation", "9", "94")
        assert j.pending is not None
        from reasoneval.benchmarks.korbench.score_official import finish

        assert finish(j, lc).correct is False
        assert lc.get("\\frac{1}{2}").ok  # the pool survived


def test_text_group_removal_matches_official_regex() -> None:
    import random
    import re

    from reasoneval.benchmarks.korbench.brackets import _drop_text_groups

    rng = random.Random(3)
    alphabet = ["\\text{", "}", "a", "\n", "{", "\\", " "]
    for _ in range(5000):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        assert _drop_text_groups(t) == re.sub(r"\\text\{.*?\}", "", t), repr(t)


def test_or_separated_sympy_bomb_has_one_verdict_budget(tmp_path: Path) -> None:
    """Issue 16: ~400 power towers joined by "or" on a SymPy item whose gold has "or" (operation 18) used to be
    ~400 sandbox tasks of 5 s each (~16 min); one verdict now has one budget (mathexpr.VERDICT_BUDGET_S)."""
    from reasoneval.benchmarks.korbench import mathexpr
    from reasoneval.benchmarks.korbench.score_official import finish
    from reasoneval.testing.fake_openai import BOMB_ANSWER

    gold = "[[-6+\\sqrt{22}or-6-\\sqrt{22}]]"
    with LatexCanonicalizer(cache_dir=tmp_path, timeout=5.0, workers=2) as lc:
        lc.get("x")  # start-up is not part of the bound
        t = time.perf_counter()
        j = finish(judge(BOMB_ANSWER, gold, "operation", "2", "18"), lc)
        took = time.perf_counter() - t
        assert took < mathexpr.VERDICT_BUDGET_S + 5.0, took
        assert j.correct is False and j.method == "operation:fallback:budget"
        assert lc.stats["canon_budget"] > 300  # the parts past the budget never ran
        # the budget poisoned nothing: a later right answer (reordered, so SymPy decides) is still right
        ok = finish(judge("[[-6-\\sqrt{22} or -6+\\sqrt{22}]]", gold, "operation", "2", "18"), lc)
        assert ok.correct is True and ok.method == "operation:sympy"
