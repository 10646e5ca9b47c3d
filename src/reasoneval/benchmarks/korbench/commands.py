"""KOR-Bench's own commands, added by ``KorBench.cli``: ``reasoneval attention korbench:<subset>``,
``reasoneval generate korbench-cipher`` and ``reasoneval build kor-mixed``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ...cli.build import ReportOpt, run_step
from ...cli.common import DEFAULT_STORE
from .attention_cli import attention


def generate_cipher(
    rule: Annotated[int | None, typer.Option(help="cipher rule 1-25")] = None,
    n: Annotated[int, typer.Option("--n", help="how many")] = 10,
    seed: int = 0,
) -> None:
    """Fresh cipher items for rule N (1-25), JSON lines on stdout."""
    from ...cli.common import fail
    from .cipher_generate import generate_items

    if rule is None or not 1 <= rule <= 25:
        fail("--rule N (1-25) is required for korbench-cipher")
    for it in generate_items(rule, n, seed):
        sys.stdout.write(json.dumps(it, ensure_ascii=False) + "\n")


def kor_mixed(
    out: Annotated[Path, typer.Argument(help="e.g. mixed/Multi-Q.jsonl")],
    set_name: Annotated[str, typer.Option("--set", help="Multi-Q | Multi-R | Multi-RQ")] = "Multi-Q",
    n: Annotated[int, typer.Option("--n", min=1)] = 100,
    seed: int = 0,
    data: Annotated[str | None, typer.Option(help="KOR-Bench data root (default: packaged)")] = None,
    report: ReportOpt = None,
) -> None:
    """A new KOR-Bench mixed set (Multi-Q/R/RQ) drawn with a seed."""
    run_step("kor-mixed", None, out, {"set": set_name, "n": n, "seed": seed, "data": data}, DEFAULT_STORE, 1, report)


def add_commands(groups: Any) -> None:
    groups.root.command("attention")(attention)
    groups.generate.command("korbench-cipher")(generate_cipher)
    groups.build.command("kor-mixed")(kor_mixed)
