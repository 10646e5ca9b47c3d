"""A run's model identity at run time: the served model checked against the run, runs stored before the
identity adopted, the endpoints recorded (``models/identity.py`` defines the identity itself).

* A server that says it serves another model than the run recorded (``GET /v1/models``) stops the run with one
  line: answers of two models never mix in one run.
* A run of a served model stored before models were identified by name (its id hashed the URL) is taken over
  by the same command: its rows get the new id, its old id is kept in the record (``previous_ids``). Runs of
  local weights stored before are not taken over: what weights they were made with was never recorded, so
  their answers cannot be vouched for; they stay listed and reported under their old id.
"""

from __future__ import annotations

from typing import Any

from ..models.base import ModelBackend, ModelError
from ..models.identity import endpoints
from ..store.sqlite import RunStore
from .spec import RunSpec


def served_id(backend: ModelBackend | None) -> str | None:
    """The model id the backend's server says it serves (None: not known, or not a served model)."""
    got = getattr(backend, "served_id", None)
    return got if isinstance(got, str) and got else None


def served_key(key: str, backend: ModelBackend | None) -> str:
    """The model's key in the response cache: ``key``, with the served model id where the server serves
    something else than the name asked for (a llama.cpp server serves its one model whatever the name)."""
    got = served_id(backend)
    if got is None or got == getattr(backend, "model", None):
        return key
    return f"{key}#{got}"


def check_served(store: RunStore, run_id: str, backend: ModelBackend | None) -> None:
    """One ``ModelError`` line when the stored run was made with another served model than the server now
    serves."""
    got = served_id(backend)
    run = store.get_run(run_id)
    if got is None or run is None:
        return
    had = run["spec"].get("served_model")
    if isinstance(had, str) and had != got:
        raise ModelError(f"the server now serves {got!r}, but run {run_id} was made with {had!r}: answers of two "
                         "models would mix; serve the same model, or give it another name in --model")


def adopt_legacy(store: RunStore, spec: RunSpec, run_id: str, record: dict[str, Any]) -> str | None:
    """Take over the run of a served model stored under its old id (see the module's docstring); the old id
    when one was taken over."""
    ident = spec.model_identity
    if ident is None or ident.how != "served":
        return None
    old = spec.legacy_run_id()
    if old == run_id or store.get_run(run_id) is not None:
        return None
    keep: dict[str, Any] = {k: record[k] for k in ("model_id", "model_identity") if k in record}
    return old if store.adopt_run(old, run_id, keep) else None


def run_metadata(store: RunStore, spec: RunSpec, run_id: str, backend: ModelBackend | None) -> dict[str, Any]:
    """What the run records of where its model was served (not part of its id): every endpoint it was asked
    at, and the model id the server said it serves."""
    urls = endpoints(spec.model)
    if not urls:
        return {}
    run = store.get_run(run_id)
    seen = list(run["spec"].get("endpoints") or []) if run is not None else []
    out: dict[str, Any] = {"endpoints": [*seen, *(u for u in urls if u not in seen)]}
    got = served_id(backend)
    if got is not None:
        out["served_model"] = got
    return out
