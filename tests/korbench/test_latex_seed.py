"""The shipped canonical forms equal what SymPy computes here, and cover every gold a cold run would parse."""

from __future__ import annotations

import json

from reasoneval.benchmarks.korbench.latex_seed import SEED_PATH
from reasoneval.core import registry
from reasoneval.core.values import Completion
from reasoneval.runner.verdict_of import score_completion
from reasoneval.scoring import latexcmp


def test_seed_matches_a_fresh_computation() -> None:
    seed = latexcmp.seed_rows([SEED_PATH])
    assert len(seed) >= 40, "seed missing or built in another SymPy/antlr environment"
    with latexcmp.LatexCanonicalizer(persistent=False, timeout=20.0) as lc:
        strings = [(e, c) for (k, e), c in seed.items() if k == "canon"]
        assert {k for k, _ in seed} == {"canon", "parsed"}  # "parsed": tests/scoring/test_latexparse.py
        for expr, canon in strings[::5]:
            assert lc.get(expr) == canon, expr


def test_a_cold_run_parses_no_release_gold(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(latexcmp, "_DEFAULT", latexcmp.LatexCanonicalizer(cache_dir=tmp_path))
    lc = latexcmp._DEFAULT
    bench = registry.get("korbench")
    for item in bench.load("operation", "zero-shot"):
        # an answer unlike the gold makes the scorer canonicalise every gold part
        score_completion(bench, item, Completion(text="[[0]]", finish_reason="stop"), "zero-shot")
    assert lc.seeds == (str(SEED_PATH),)  # the benchmark's scorer seeds the process-wide canonicaliser
    computed = {e for (k, e), f in lc._memo.items() if f.done() and (k, e) not in latexcmp.seed_rows([SEED_PATH])}
    lc.close()
    assert computed <= {"0"}, computed


def test_seed_of_another_environment_is_ignored(tmp_path, monkeypatch) -> None:
    doc = json.loads(SEED_PATH.read_text())
    doc["env"] = "v1;sympy=0.0;antlr4=0.0"
    p = tmp_path / "seed.json"
    p.write_text(json.dumps(doc))
    assert latexcmp.seed_rows([p]) == {}
    assert latexcmp.seed_rows([p, SEED_PATH]) == latexcmp.seed_rows([SEED_PATH]) != {}
