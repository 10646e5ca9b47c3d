"""The benchmarks this distribution ships, each a plugin like any third-party one.

They are declared in ``pyproject.toml`` under ``[project.entry-points."reasoneval.benchmarks"]`` and found only
through those entry points (after adding one, reinstall: ``pip install -e .``). Nothing outside this package
names a benchmark (``tests/arch/test_benchmark_names.py``).
"""
