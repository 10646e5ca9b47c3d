"""A store of the KOR-Bench release's shape for the report's scale tests (LaTeX compile, browser): 62 runs, one
per model of the paper's Table 2 (38 chat models zero-shot, 24 base models three-shot), written straight through
:class:`~reasoneval.store.sqlite.RunStore` (no model is called). One chat run is the dated snapshot
``gpt-4o-2024-08-06`` (not in the paper), ``Meta-Llama-3-70B`` has no Counterfactual items (an incomplete run), and
one run carries a display name with LaTeX specials and a rule symbol. Items are ``<category>/<1 + 10 k>``: one of
each of a category's 25 rules, so the per-rule tables read the real rule titles (symbols included).
"""

from __future__ import annotations

from pathlib import Path

from reasoneval.benchmarks.korbench import paper_numbers as pn
from reasoneval.core.values import Completion, Outcome, Prompt, Usage, Verdict
from reasoneval.store.sqlite import RunStore

CATS = ("operation", "logic", "cipher", "puzzle", "counterfactual")
ODD_NAME = "my_model & 50% {○} #1"


def fill_release_shape(path: Path, per_cat: int = 25) -> list[str]:
    """62 runs (38 chat models zero-shot, 24 base models three-shot, as in the paper's Table 2)."""
    st = RunStore(path)
    chat = [n if n != "GPT-4o-2024-05-13" else "gpt-4o-2024-08-06" for n in pn.KORBENCH_TABLE2_CHAT]
    plan = [(n, "zero-shot") for n in chat] + [(n, "three-shot") for n in pn.KORBENCH_TABLE2_BASE]
    ids = []
    for k, (model, mode) in enumerate(plan):
        rid = f"run{k:02d}"
        spec = {"benchmark": "korbench", "subset": None, "mode": mode, "model": model, "params": {}, "samples": 1,
                "seed": 0, "limit": None, "judge": None, "options": {"scoring": "official"}}
        if k == 5:  # a name a user gave: LaTeX specials and a rule symbol
            spec["display_name"] = ODD_NAME
        st.upsert_run(rid, "korbench", "*", mode, model, spec)
        st.set_status(rid, "done")
        for cat in CATS:
            if model == "Meta-Llama-3-70B" and cat == "counterfactual":
                continue  # an incomplete run
            for i in range(per_cat):
                idx = 1 + 10 * i  # one item of each of the category's 25 rules
                ok = (i * 7 + k * 3) % 10 < 3 + k % 5
                detail = {"real_life": (not ok and i % 3 == 0)} if cat == "counterfactual" else {}
                c = Completion(f"answer [[{i}]]", "stop", Usage(100, 50), 0.1)
                st.put_completion(rid, f"{cat}/{idx}", 0, 0, "answer", cat, Prompt.chat("q"), f"{rid}{cat}{idx}", c)
                st.put_verdict(rid, f"{cat}/{idx}", 0, 0, "default",
                               Verdict(Outcome.CORRECT if ok else Outcome.INCORRECT, str(i), "brackets", detail))
        ids.append(rid)
    st.flush()
    st.close()
    return ids


