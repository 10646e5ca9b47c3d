"""Reading a JSON value out of a model's reply (never executed: ``json.loads`` only)."""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.response import Response

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def json_value(text: str, opener: str = "{") -> Any:
    """The last fenced JSON block, else the span from the first ``opener`` to its last closer; None when
    nothing parses. ``<think>`` sections are removed first."""
    final = Response.of(text, None).final
    closer = "}" if opener == "{" else "]"
    candidates = [m.strip() for m in _FENCE.findall(final)][::-1]
    first, last = final.find(opener), final.rfind(closer)
    if first >= 0 and last > first:
        candidates.append(final[first:last + 1])
    for c in candidates:
        try:
            v = json.loads(c)
        except (json.JSONDecodeError, RecursionError):
            continue
        if (opener == "{" and isinstance(v, dict)) or (opener == "[" and isinstance(v, list)):
            return v
    return None
