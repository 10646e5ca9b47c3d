"""Typed option groups (``cli/groups.py``): the command line keeps its flat options, the command gets its groups;
and the options every command shares are declared once (``cli/common.py``)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from reasoneval.cli.groups import OptionGroup, grouped
from reasoneval.cli.run_options import Generation, HTTPLimits, Output, RayOptions, Redo, Selection

SRC = Path(__file__).resolve().parents[2] / "src" / "reasoneval"


@dataclasses.dataclass(frozen=True)
class Knobs(OptionGroup):
    PANEL = "Knobs"
    size: Annotated[int, typer.Option(min=1, help="how big")] = 3
    loud: Annotated[bool, typer.Option("--loud", help="shout")] = False


@dataclasses.dataclass(frozen=True)
class Where(OptionGroup):
    PANEL = "Where"
    place: Annotated[str | None, typer.Option(help="where")] = None


def _app(seen: list[object]) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    @grouped
    def go(name: Annotated[str, typer.Argument()], knobs: Knobs = Knobs(), where: Where = Where()) -> None:
        seen.append((name, knobs, where))

    @app.command()
    def other() -> None:
        pass

    return app


def test_the_flat_options_come_back_as_typed_groups() -> None:
    seen: list[object] = []
    r = CliRunner().invoke(_app(seen), ["go", "x", "--size", "5", "--loud", "--place", "here"])
    assert r.exit_code == 0, r.output
    assert seen == [("x", Knobs(size=5, loud=True), Where(place="here"))]
    r = CliRunner().invoke(_app(seen), ["go", "y"])
    assert seen[-1] == ("y", Knobs(), Where())
    r = CliRunner().invoke(_app(seen), ["go", "y", "--size", "0"])  # the options' own checks still apply
    assert r.exit_code == 2 and len(seen) == 2


def test_a_group_is_a_panel_of_the_help() -> None:
    out = CliRunner().invoke(_app([]), ["go", "--help"], env={"COLUMNS": "120"}).output
    assert re.search(r"─ Knobs ─.*--size.*--loud.*─ Where ─.*--place", out, re.S), out


@dataclasses.dataclass(frozen=True)
class Clash(OptionGroup):
    size: Annotated[int, typer.Option()] = 1


def test_an_option_named_twice_is_refused_when_the_command_is_defined() -> None:
    def cmd(knobs: Knobs = Knobs(), clash: Clash = Clash()) -> None:
        pass

    with pytest.raises(TypeError, match="named twice.*size"):
        grouped(cmd)


#: ``reasoneval run``'s parameters before its options were grouped: the command line is the same
RUN_PARAMS = """target model mode limit limit_mode limit_seed concurrency samples seed max_tokens temperature top_p
reasoning_effort system extra_body settings stream judge retry_errors retry_unanswered refresh fingerprint executor
ray_address workers ray_actor_options ray_runtime_env ray_worker_concurrency ray_start_timeout data option offline
timeout_connect timeout_read timeout_total hedge_after abandon_after max_extra_requests max_response_mb
max_decoded_mb max_response_chars event_loop store json_out progress name""".split()


def test_runs_groups_cover_the_runs_options_once() -> None:
    from reasoneval.cli import app

    run = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    assert sorted(p.name for p in run.params) == sorted(RUN_PARAMS)
    groups = (Selection, Generation, HTTPLimits, RayOptions, Redo, Output)
    names = [f.name for g in groups for f in dataclasses.fields(g)]
    assert len(names) == len(set(names)) == len(RUN_PARAMS) - 4  # target, model, judge, fingerprint stay plain
    assert Generation(max_tokens=5).plan_args()["max_tokens"] == 5
    assert HTTPLimits(timeout_total=7.0).options().timeout_s == 7.0


def test_shared_options_are_declared_once() -> None:
    """``--json`` and the ``--store`` of a run store are declared in ``cli/common.py`` alone: every command (a
    benchmark's too) uses ``JsonOpt`` / ``StoreOpt``."""
    declared: dict[str, list[str]] = {'typer.Option("--json"': [], 'help="SQLite run store"': []}
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for needle, where in declared.items():
            where.extend([str(path.relative_to(SRC))] * text.count(needle))
    assert declared == {'typer.Option("--json"': ["cli/common.py"], 'help="SQLite run store"': ["cli/common.py"]}
