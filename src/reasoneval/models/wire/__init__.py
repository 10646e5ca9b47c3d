"""A lean HTTP/1.1 client for model requests (POST of bytes, keep-alive pool, TLS, gzip / deflate, streamed
bodies): what :class:`~reasoneval.models.http_backend.HTTPBackend` sends its requests with. It raises aiohttp's
exception classes with aiohttp's meaning, and its responses have the subset of ``aiohttp.ClientResponse`` the
backends read, so the backends' error handling is the same for both (the model listing, :mod:`..served`, still
uses aiohttp). Why: per request it spends a fraction of aiohttp's CPU (``bench/cpu_per_request.py``).

* :mod:`.client`: the client, the pools, the request context and its timeouts;
* :mod:`.connection`: one connection: sending, the response head, the body's framing;
* :mod:`.response`: the head's parser, the response object;
* :mod:`.body`: the body's queue and its decoding.
"""

from .body import Body
from .client import Client, RequestContext
from .response import Headers, ProtocolError, Response

__all__ = ["Body", "Client", "Headers", "ProtocolError", "RequestContext", "Response"]
