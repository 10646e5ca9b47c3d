"""No module outside ``src/reasoneval/benchmarks/`` names a shipped benchmark in code.

Imports, identifiers and string literals count; docstrings and comments do not. The shipped names are read
from the distribution's entry points.
"""

from __future__ import annotations

from archscan import Shipped, benchmark_mentions, outside_benchmarks, shipped


def test_entry_points_declare_the_shipped_benchmarks() -> None:
    ship = shipped()
    assert {"korbench", "finereason", "rbench", "general365", "gsm8k", "math", "mmlu"} <= ship.names
    assert "hendrycks_math" in ship.packages and "KorBench" in ship.classes


def test_no_module_outside_benchmarks_names_one() -> None:
    ship = shipped()
    found = {}
    for name, path in outside_benchmarks():
        hits = benchmark_mentions(path.read_text(encoding="utf-8"), ship)
        if hits:
            found[name] = [f"{path.name}:{line}: {what}" for line, what in hits]
    assert found == {}


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
