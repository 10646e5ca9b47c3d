"""The ``reasoneval`` command line: one app, its commands in modules named for what they hold.

``common`` (what every command shares, defined once: the app, ``--store``, ``--json``, ``--offline``, ``-O``,
the exit statuses, failing with one line), ``groups`` (typed option groups), ``run`` (run | score | rescore |
import | rename; ``run``'s option groups in ``run_options``), ``rescore`` (the output of ``rescore``), ``tables``
(report | runs | export), ``catalogue`` (list | generate | judge-audit), ``stats`` (compare | correlate |
ablation | stats), ``runs`` (rm | show), ``data`` (data pull | list | verify), ``build`` (build ...); ``commands``
puts them all on the app, with each benchmark's own subcommands (``Benchmark.cli``).

``app`` and ``main`` are loaded on first use, so a benchmark's command module may import the shared options of
``cli.common`` at its top without registering every command (and itself) halfway through its own import.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name == "app":
        from . import commands

        return commands.with_benchmark_commands()
    if name == "main":
        from . import commands

        return commands.main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
