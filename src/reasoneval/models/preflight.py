"""Fail fast, in one line, when no replica of an HTTP backend can be reached."""

from __future__ import annotations

import asyncio
from urllib.parse import urlparse

from .base import ModelBackend, ModelError


async def _reachable(url: str, timeout: float = 5.0) -> str | None:
    u = urlparse(url)
    port = u.port or (443 if u.scheme == "https" else 80)
    try:
        _, w = await asyncio.wait_for(asyncio.open_connection(u.hostname, port), timeout)
        w.close()
        return None
    except (OSError, TimeoutError) as e:
        return f"{e.__class__.__name__}: {e}"


async def check_reachable(backend: ModelBackend) -> None:
    replicas = getattr(backend, "replicas", None)
    if not replicas:
        return
    errs = await asyncio.gather(*(_reachable(r.url) for r in replicas))
    if all(errs):
        raise ModelError(f"cannot reach {backend.spec}: " + "; ".join(
            f"{r.url} ({e})" for r, e in zip(replicas, errs, strict=True)))
