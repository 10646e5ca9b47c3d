"""How the HTML report carries its item data: compact, and the texts only on demand.

* The **index** (one row per run, item and sample: key, category, verdict, extracted and gold answers, token
  counts) is JSON, gzip-compressed and base64-encoded in ``<script type="application/octet-stream"
  id="report-index">``; the page decodes it with ``DecompressionStream`` when it opens.
* The **texts** (completions, verdict details, each turn's prompt as a number) are one such chunk per run,
  decoded only when an item of that run is opened or its texts are searched; the **prompts** are one chunk
  shared by every run (:data:`SHARED`: the runs of one protocol send the same prompts, each stored once),
  decoded with the first run's texts. Up to :data:`EMBED_LIMIT` bytes of chunks are embedded in
  the page (``<script type="application/octet-stream" id="chunk-N">``); a larger report writes them as side
  files ``<page>_items/run-N.js`` and ``shared.js`` beside the page (each one call
``reasonevalChunk(N, "<base64>")``, N the run's number or ``"shared"``), loaded
  by a script element the page's own script creates (CSP ``'strict-dynamic'``: no other script can run).

base64 is HTML-safe (``A-Za-z0-9+/=``) and JSON-safe, so nothing a model wrote can close a tag or escape a
string in either form.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from typing import Any

try:  # ISA-L's deflate: the same gzip, 4x faster (optional: the report extra)
    from isal import isal_zlib as _isal
except ImportError:  # pragma: no cover - depends on the environment
    _isal = None  # type: ignore[assignment]

#: bytes of (compressed, base64) text chunks embedded in the page; more go to side files
EMBED_LIMIT = 10_000_000
#: the name of the chunk of prompts shared by the runs (block ``chunk-shared``, side file ``shared.js``)
SHARED = "shared"

_BLOCK = re.compile(r'<script type="application/octet-stream" id="([a-z0-9-]+)">([A-Za-z0-9+/=]*)</script>')
_SIDE = re.compile(r'^reasonevalChunk\((\d+|"shared"),"([A-Za-z0-9+/=]*)"\);\n?$')


def pack(obj: Any, level: int = 6) -> str:
    """``obj`` as base64 of gzip (``level``) of JSON, ASCII (``\\u`` escapes for the rest, lone surrogates
    too: the JSON half the time of writing UTF-8, ~1% larger, the same values decoded)."""
    return compress(encode(obj), level)


def encode(obj: Any) -> bytes:
    """The JSON of ``obj`` in ASCII (the first half of :func:`pack`)."""
    return json.dumps(obj, separators=(",", ":"), default=str).encode("ascii")


def compress(raw: bytes, level: int = 6) -> str:
    """Base64 of gzip of ``raw`` (the second half of :func:`pack`: no Python object is touched, and the
    compressor lets other threads run meanwhile). With ISA-L installed (``isal``, the ``report`` extra) its
    deflate makes the same gzip format 4x faster than zlib at level 1 and as small (zlib's level 4-9 become its
    best, 3); without it, zlib's."""
    if _isal is not None:
        return base64.b64encode(_isal.compress(raw, min(level, 3), wbits=31)).decode("ascii")
    return base64.b64encode(gzip.compress(raw, level, mtime=0)).decode("ascii")


class Packer:
    """:func:`pack` of one chunk after another, each compressed in a second thread while the caller makes the
    next one (zlib releases the GIL; the JSON is made in the caller's thread, as it holds it): at most one
    chunk is being compressed, so at most two chunks' texts are held. Use as a context manager; ``results``
    after the ``with``."""

    def __init__(self, level: int = 1) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.level = level
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="report-pack")
        self._pending: list[Any] = []

    def __call__(self, obj: Any) -> Any:
        raw = encode(obj)
        if self._pending:
            self._pending[-1].result()  # one chunk compressing at a time
        self._pending.append(self._pool.submit(compress, raw, self.level))
        return self._pending[-1]

    def __enter__(self) -> Packer:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True)

    def results(self, futures: list[Any]) -> list[str]:
        return [f.result() for f in futures]


def unpack(text: str) -> Any:
    return json.loads(gzip.decompress(base64.b64decode(text)).decode("utf-8"))


def block(block_id: str, b64: str) -> str:
    return f'<script type="application/octet-stream" id="{block_id}">{b64}</script>'


def side_file(i: int | str, b64: str) -> str:
    """A side file's text: chunk ``i`` (a run's number, or :data:`SHARED`)."""
    return f'reasonevalChunk({json.dumps(i)},"{b64}");\n'


def page_data(doc: str, side: dict[str, str] | None = None) -> dict[str, Any]:
    """The item data of a written page, decoded as the browser decodes it (for tests and tools): the index
    with ``chunks`` added (embedded ones, or those in ``side``: relative name -> file text), each turn's prompt
    resolved from the shared chunk (a list [[role, text], ...]) and each chunk's ``strs`` the shared
    segments, as the page's script sees them."""
    blocks = dict(_BLOCK.findall(doc))
    data: dict[str, Any] = unpack(blocks["report-index"])

    def chunk(i: int | str, src: str | None) -> Any:
        if src is None:
            return unpack(blocks[f"chunk-{i}"])
        m = _SIDE.match((side or {})[src])
        if m is None or json.loads(m.group(1)) != i:
            raise ValueError(f"side file {src} is not chunk {i}")
        return unpack(m.group(2))

    shared = chunk(SHARED, data.get("sharedSrc"))
    chunks: list[Any] = []
    for i, src in enumerate(data.get("chunkSrc") or [None] * len(data["runs"])):
        c = chunk(i, src)
        for turns in c["turns"]:
            for t in turns:
                t[0] = shared["prompts"][t[0]]
        c["strs"] = shared["strs"]
        chunks.append(c)
    data["chunks"] = chunks
    return data
