"""KOR-Bench's own commands, added by ``KorBench.cli``: ``reasoneval attention korbench:<subset>`` and
``reasoneval generate korbench-cipher``."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

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


def add_commands(app: Any, generate: Any) -> None:
    app.command("attention")(attention)
    generate.command("korbench-cipher")(generate_cipher)
