"""What a ``--model`` string identifies: the key a run id and the response cache carry for the model.

* **Local weights** (``hf/<path>``, ``llamacpp/<file.gguf>``, ``vllm/<path>``): the content fingerprint of the
  files that define the model (:mod:`.fingerprint`), never the path: ``hf/@s:<24 hex>``. Options after ``?``
  (``?batch=4``, ``?tp=2``) stay in the key, as they always were part of the run id.
* **Served models** (``openai-compat/<name>@<url>[,<url>...]``): the model name, never the URL: another port,
  a host alias, a trailing slash, another replica set or order is the same run. The server's own model id
  (``GET /v1/models``) is recorded in the run and checked when it resumes (:mod:`.served`).
* Everything else (``llamacpp/default``, the embedded model; ``openai/<m>``; ``anthropic/<m>``; an ``hf/`` name
  that is not a local folder): the string itself, as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fingerprint import fingerprint

LOCAL_WEIGHTS = ("hf", "llamacpp", "vllm")
#: ``llamacpp/<name>`` names of the embedded default model: its key stays its string
EMBEDDED = ("", "default", "smollm2-135m-instruct")


@dataclass(frozen=True)
class ModelIdentity:
    #: what the run id and the cache key carry for the model
    key: str
    #: "weights" (a content fingerprint), "served" (a served model's name) or "string" (the string as given)
    how: str
    #: the fingerprint (digest, method, files, bytes) or the served name, for the run's record
    details: dict[str, Any] = field(default_factory=dict)


def identify(spec: str, method: str = "sampled") -> ModelIdentity:
    """The identity of the model ``spec`` names (see the module's docstring). A local path that does not exist
    keeps its string (loading the model then says what is missing)."""
    kind, _, rest = spec.partition("/")
    if kind in LOCAL_WEIGHTS:
        path, q, query = rest.partition("?")
        if kind == "hf":  # transformers paths take no options
            path, q, query = rest, "", ""
        if kind == "llamacpp" and path in EMBEDDED:
            return ModelIdentity(spec, "string")
        p = Path(path).expanduser()
        if not path or not p.exists():
            return ModelIdentity(spec, "string")
        fp = fingerprint(p, method)
        return ModelIdentity(f"{kind}/@{fp.short}{q}{query}", "weights", {"fingerprint": fp.to_json()})
    if kind == "openai-compat":
        name, at, urls = rest.partition("@")
        if name and at and urls:
            return ModelIdentity(f"{kind}/{name}", "served", {"name": name})
    return ModelIdentity(spec, "string")


def endpoints(spec: str) -> list[str]:
    """The URLs of a served model's string (recorded in the run, not part of its id)."""
    kind, _, rest = spec.partition("/")
    if kind != "openai-compat":
        return []
    return [u.strip() for u in rest.partition("@")[2].split(",") if u.strip()]
