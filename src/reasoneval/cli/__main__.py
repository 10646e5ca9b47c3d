"""``python -m reasoneval.cli``: the command line (as the ``reasoneval`` console script, without its prestart)."""

from reasoneval.cli import main

main()
