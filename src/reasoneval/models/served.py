"""Which model an OpenAI-compatible server serves: ``GET <base>/models`` on every replica.

The id a run records (``served_model``) and checks when it resumes (``runner/identity.py``): the name asked for
when the server lists it (vLLM's ``--served-model-name``, an OpenAI model), else the server's one model (a
llama.cpp server lists its model file or ``--alias`` whatever name a request gives). Replicas that serve
different models are one ``ModelError`` line. A server without ``/models`` (or one that lists several models,
none of them the name) leaves the id unknown: the run is then identified by the name alone.

Asked once per run, with an aiohttp session of its own (closed at once); the model requests themselves go through
the lean client of :mod:`.wire`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from .base import ModelError

#: the most bytes of a ``/models`` answer read
MAX_BYTES = 1 << 20


def pick(name: str, listing: Any) -> str | None:
    """The served id from a ``/models`` answer (see the module's docstring)."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        return None
    ids = [str(m["id"]) for m in data if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"]]
    if name in ids:
        return name
    return ids[0] if len(ids) == 1 else None


async def _listing(session: aiohttp.ClientSession, url: str, headers: dict[str, str], timeout: float) -> Any:
    try:
        async with session.get(url + "/models", headers=headers, allow_redirects=False,
                               timeout=aiohttp.ClientTimeout(total=timeout)) as resp:
            if resp.status != 200:
                return None
            raw = await resp.content.read(MAX_BYTES + 1)
            return None if len(raw) > MAX_BYTES else json.loads(raw)
    except (aiohttp.ClientError, TimeoutError, ValueError, UnicodeDecodeError):
        return None


async def served_ids(name: str, urls: list[str], headers: dict[str, str], timeout: float = 10.0) -> str | None:
    """The one model id the replicas at ``urls`` serve for ``name`` (None: unknown); ``ModelError`` when two
    replicas name different models."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        got = await asyncio.gather(*(_listing(session, u, headers, timeout) for u in urls))
    ids = {u: pick(name, g) for u, g in zip(urls, got, strict=True)}
    known = {i for i in ids.values() if i is not None}
    if len(known) > 1:
        shown = ", ".join(f"{u} serves {i!r}" for u, i in ids.items() if i is not None)
        raise ModelError(f"the replicas of {name!r} serve different models ({shown}): one run asks one model")
    return next(iter(known), None)
