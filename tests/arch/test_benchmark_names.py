"""No module outside ``src/reasoneval/benchmarks/`` names a shipped benchmark in code.

Imports, identifiers and string literals count, by registry name, package, class or display name ("KOR-Bench",
"R-Bench", "FineReason", "General365" in any case, with or without a hyphen or space). Docstrings count in
``cli/`` (they are ``--help`` texts); elsewhere docstrings and comments may cite a paper ("R-Bench Table 4's
layout"), but no text outside ``benchmarks/``, comments included, holds a registry name of the four main
benchmarks (``korbench``, ``finereason``, ``rbench``, ``general365``: the project's before-stop check). The
shipped names are read from the distribution's entry points.
"""

from __future__ import annotations

import re

from archscan import DISPLAY_NAMES, Shipped, benchmark_mentions, outside_benchmarks, shipped

from reasoneval.core import registry


def test_entry_points_declare_the_shipped_benchmarks() -> None:
    ship = shipped()
    assert {"korbench", "finereason", "rbench", "general365", "gsm8k", "math", "mmlu"} <= ship.names
    assert "hendrycks_math" in ship.packages and "KorBench" in ship.classes


def test_no_module_outside_benchmarks_names_one() -> None:
    ship = shipped()
    found = {}
    for name, path in outside_benchmarks():
        hits = benchmark_mentions(path.read_text(encoding="utf-8"), ship, help_docstrings=name.startswith(CLI))
        if hits:
            found[name] = [f"{path.name}:{line}: {what}" for line, what in hits]
    assert found == {}


CLI = "reasoneval.cli"


def test_display_names_are_the_descriptions_of_the_shipped_benchmarks() -> None:
    shown = {registry.get(n).description.split(":")[0] for n in ("korbench", "rbench", "finereason", "general365")}
    assert shown == set(DISPLAY_NAMES)


def test_no_text_outside_benchmarks_holds_a_main_benchmark_name() -> None:
    words = [re.sub(r"[^a-z0-9]", "", n.lower()) for n in DISPLAY_NAMES]  # korbench, rbench, finereason, general365
    found = {}
    for name, path in outside_benchmarks():
        text = path.read_text(encoding="utf-8").lower()
        hits = [w for w in words if w in text]
        if hits:
            found[name] = hits
    assert found == {}


def test_the_scan_sees_display_names_in_strings_and_help_texts() -> None:
    ship = Shipped(frozenset({"korbench"}), frozenset({"korbench"}), frozenset({"KorBench"}))
    src = '''"""A table in KOR-Bench's layout."""
# R-Bench Table 4
def f(kor_bench):
    """Thinking time, as in R-Bench."""
    return ("KOR-Bench", "kor bench", "r-bench-m", "Fine Reason", "general-365", "General365",
            "four benchmarks", "error benchmark", "per bench")
'''
    hits = benchmark_mentions(src, ship)
    assert sorted(what for _, what in hits) == ["name 'kor_bench'", *(f"string {s!r}" for s in sorted(
        ("KOR-Bench", "kor bench", "r-bench-m", "Fine Reason", "general-365", "General365")))]
    assert [line for line, _ in hits] == [3, 5, 5, 5, 5, 5, 5]  # the comment (2) and docstrings (1, 4) do not count
    assert [line for line, _ in benchmark_mentions(src, ship, help_docstrings=True)] == [1, 3, 4, 5, 5, 5, 5, 5, 5]


def test_the_scan_sees_names_in_code_not_in_docstrings() -> None:
    ship = Shipped(frozenset({"korbench", "math"}), frozenset({"korbench", "hendrycks_math"}),
                   frozenset({"KorBench", "HendrycksMath"}))
    src = '''"""Reports for korbench and math."""
import math  # korbench
from reasoneval.benchmarks.hendrycks_math import data
def f(x):
    """korbench"""
    return math.sqrt(x), "math", "math:algebra", "mathematics"
KorBench = 1
korbench_rows = 2
'''
    hits = benchmark_mentions(src, ship)
    assert sorted(line for line, _ in hits) == [3, 6, 6, 7, 8]
