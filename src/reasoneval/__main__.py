"""``python -m reasoneval``: the same as the ``reasoneval`` console script."""

from reasoneval.entry import main

main()
