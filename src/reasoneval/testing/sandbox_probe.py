"""A task for tests of the sandbox pool: what a worker process has loaded (``scoring/sandbox.py``)."""

from __future__ import annotations

import sys
from typing import Any


def loaded_modules() -> dict[str, Any]:
    """The modules imported in this process, and the name of the module it runs as ``__main__``."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return {"modules": sorted(sys.modules), "main": getattr(spec, "name", None)}
