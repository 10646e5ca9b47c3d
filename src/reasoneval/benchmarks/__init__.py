"""The benchmarks this distribution ships, each a plugin like any third-party one.

They are declared in ``pyproject.toml`` under ``[project.entry-points."reasoneval.benchmarks"]``;
``SHIPPED`` repeats those declarations (a test keeps the two equal) so that an editable install whose
metadata predates a new entry still finds the benchmark. Nothing in the core names a benchmark.
"""

SHIPPED: dict[str, str] = {
    "korbench": "reasoneval.benchmarks.korbench.benchmark:KorBench",
    "finereason": "reasoneval.benchmarks.finereason.benchmark:FineReason",
    "rbench": "reasoneval.benchmarks.rbench.benchmark:RBench",
    "general365": "reasoneval.benchmarks.general365.benchmark:General365",
    "gsm8k": "reasoneval.benchmarks.gsm8k.benchmark:GSM8K",
    "math": "reasoneval.benchmarks.hendrycks_math.benchmark:HendrycksMath",
    "mmlu": "reasoneval.benchmarks.mmlu.benchmark:MMLU",
}
