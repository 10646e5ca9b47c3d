"""A model's lifecycle around the work that uses it, written once: start, preflight, close.

``run`` (local or on Ray: the answering model and the judge) and ``rescore`` (the judge) all serve their models
through :func:`serving`; each Ray worker makes its model ready with :func:`make_ready`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..models.base import ModelBackend
from ..models.preflight import check_reachable


async def make_ready(backend: ModelBackend) -> None:
    """Start ``backend`` (engines that run in a process of their own load here) and check that it answers (an
    HTTP backend: one of its replicas is reachable, else one ``ModelError`` line; which model it serves)."""
    start = getattr(backend, "start", None)
    if start is not None:
        await start()
    await check_reachable(backend)
    identify = getattr(backend, "identify", None)  # a served model: which model the server serves
    if identify is not None:
        await identify()


@asynccontextmanager
async def serving(backend: ModelBackend, close: bool = True) -> AsyncIterator[ModelBackend]:
    """``backend`` made ready (:func:`make_ready`) for the work in the block, and closed again (``close=False``:
    its owner closes it), however the work ends."""
    try:
        await make_ready(backend)
        yield backend
    finally:
        if close:
            await backend.aclose()
