"""The ``reasoneval`` console script: starts what a command needs first, then hands over to :mod:`.cli`.

``rescore korbench`` sends LaTeX answers to SymPy workers, and SymPy's import (~0.55 s on 2 cores) happens in
their fork server. Starting that server before the CLI's own imports (~0.2 s) and the reading of the files lets
the import overlap them. It is skipped when the on-disk LaTeX cache already holds answers (a warm run may need
no worker at all); the pool then starts at the first string the caches do not know, as in every other command.
"""

from __future__ import annotations

import sys


def _prestart(argv: list[str]) -> None:
    if argv[:2] != ["rescore", "korbench"] or "--help" in argv:
        return
    from .scoring import latexcmp

    cache = latexcmp.disk_cache_path()
    if cache.exists() and cache.stat().st_size > 0:
        return
    latexcmp.default_canonicalizer().start()


def main() -> None:
    try:
        _prestart(sys.argv[1:])
    except Exception:  # noqa: BLE001 - an optimisation only; the command itself reports real problems
        pass
    from .cli import main as cli_main

    cli_main()
