"""A generic command does not import every plugin to parse its command line; a benchmark's own command still
works, and the app the package exports carries every command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reasoneval.cli import commands
from reasoneval.store.sqlite import RunStore

_PROBE = """
import sys
sys.argv = ["reasoneval", *sys.argv[1:]]
from reasoneval.cli import main
try:
    main()
except SystemExit as e:
    code = e.code
else:
    code = 0
plugins = sorted({m.split(".")[2] for m in sys.modules if m.startswith("reasoneval.benchmarks.")})
print("CODE", code, "PLUGINS", ",".join(plugins))
"""


def _probe(*argv: str) -> tuple[str, list[str]]:
    res = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=120)
    line = [x for x in res.stdout.splitlines() if x.startswith("CODE ")][-1].split()
    return line[1], [p for p in (line[3].split(",") if len(line) > 3 else []) if p]


def test_generic_commands_are_told_apart_from_plugin_ones() -> None:
    assert not commands.needs_benchmark_commands(["runs", "--store", "x.db"])
    assert not commands.needs_benchmark_commands(["report", "r1", "--json"])
    assert commands.needs_benchmark_commands([])  # the command list: every command
    assert commands.needs_benchmark_commands(["--help"])
    assert commands.needs_benchmark_commands(["generate", "x"])  # benchmarks extend generate and build
    assert commands.needs_benchmark_commands(["build", "x"])
    assert commands.needs_benchmark_commands(["no-such-command"])  # a plugin's own, or a mistake typer names


def test_a_generic_command_imports_no_plugin(tmp_path: Path) -> None:
    RunStore(tmp_path / "s.db").close()
    code, plugins = _probe("runs", "--store", str(tmp_path / "s.db"))
    assert code == "0" and plugins == []


def test_plugin_commands_still_run_and_are_listed() -> None:
    own = [c for c in commands.with_benchmark_commands().registered_groups
           if c.name not in {"data", "build", "generate"}]
    assert own, "no benchmark adds a root command: pick another probe"
    code, plugins = _probe(str(own[0].name), "--help")
    assert code == "0" and plugins
    code, plugins = _probe("--help")
    assert code == "0" and len(plugins) > 1  # the command list loads every plugin


def test_the_exported_app_has_every_command() -> None:
    from reasoneval.cli import app

    names = {g.name for g in app.registered_groups}
    assert names - {"data", "build", "generate"}  # a benchmark's own group is on it
