"""A model's lifecycle around the work that uses it, written once: start, preflight, close.

``run`` (local or on Ray: the answering model and the judge) and ``rescore`` (the judge) all serve their models
through :func:`serving`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..models.base import ModelBackend
from ..models.preflight import check_reachable


@asynccontextmanager
async def serving(backend: ModelBackend, close: bool = True) -> AsyncIterator[ModelBackend]:
    """Start ``backend`` (engines that run in a process of their own load here), check that it answers (an HTTP
    backend: one of its replicas is reachable, else one ``ModelError`` line), yield it, and close it again
    (``close=False``: its owner closes it), however the work ends."""
    try:
        start = getattr(backend, "start", None)
        if start is not None:
            await start()
        await check_reachable(backend)
        yield backend
    finally:
        if close:
            await backend.aclose()
