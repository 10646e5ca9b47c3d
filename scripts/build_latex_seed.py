"""Build ``src/reasoneval/benchmarks/korbench/latex-seed.json``: the canonical form of every string KOR-Bench's scorer
sends to SymPy for the release's golds, computed in this environment (pinned SymPy and antlr), keyed by the
string (``canon`` rows) and by the parsed expression (``parsed`` rows).

Each item is scored once with an answer that differs from its gold, so every gold part is canonicalised (the
scorer parses the gold first); the result is exactly what a cold run would compute for those strings.

    python scripts/build_latex_seed.py
"""

from __future__ import annotations

import json
import sys
import tempfile

from reasoneval.benchmarks.korbench.latex_seed import SEED_PATH
from reasoneval.core import registry
from reasoneval.core.values import Completion
from reasoneval.runner.verdict_of import score_completion
from reasoneval.scoring import latexcmp


def main() -> None:
    with tempfile.TemporaryDirectory() as td:
        lc = latexcmp.LatexCanonicalizer(cache_dir=td, timeout=20.0)  # no seed: every form computed here
        bench = registry.create("korbench")
        bench.lc = lc  # type: ignore[attr-defined]  # the scorer's canonicaliser (default: the seeded one)
        n = 0
        for subset in bench.subsets():
            for item in bench.load(subset, "zero-shot"):
                score_completion(bench, item, Completion(text="[[0]]", finish_reason="stop"), "zero-shot")
                n += 1
        lc.flush()
        rows = [(k, e, c.status, c.value) for (k, e), fut in sorted(lc._memo.items())
                if (c := fut.result()).status in ("ok", "error")]
        lc.close()
    # the same forms keyed by the parsed expression (``srepr(parse_latex(gold))``), so that an answer which parses
    # to a gold's expression (other spacing, say) is canonical without simplify (latexcmp.canonicalize)
    from sympy import srepr
    from sympy.parsing.latex import parse_latex

    parsed = {srepr(parse_latex(e)): (s, v) for k, e, s, v in rows if k == "canon" and s == "ok"}
    rows += [("parsed", key, s, v) for key, (s, v) in sorted(parsed.items())]
    out = SEED_PATH
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"env": latexcmp.environment_key(), "source": "KOR-Bench release golds",
                               "rows": rows}, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"scored {n} items; wrote {len(rows)} canonical forms to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
