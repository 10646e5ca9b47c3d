"""RunSpec: everything that defines a run; its hash is the run id, so re-running a command resumes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..core.hashing import hash_obj
from ..core.options import BenchOptions
from ..core.values import GenParams
from ..models.identity import ModelIdentity, identify
from .sample import SAMPLER_VERSION


@dataclass
class RunSpec:
    benchmark: str
    subset: str | None
    mode: str
    model: str
    params: GenParams
    samples: int = 1
    seed: int = 0
    limit: int | None = None
    judge: str | None = None
    #: the benchmark's typed options (``-O key=value``, ``--data``); those that differ from the defaults are
    #: part of the run id, all of them are in the stored record (a plain dict is taken as it is)
    options: BenchOptions | dict[str, Any] = field(default_factory=dict)
    #: the benchmark's data version: another dataset under the same command is another run
    data_version: str = ""
    #: the named settings preset applied (``--settings paper``): stored in the record, not part of the run id
    #: (its values already are, in ``params``)
    settings: dict[str, Any] | None = None
    #: how ``limit`` picks its items (``runner/sample.py``): "sample" (seeded, stratified) or "first"
    limit_mode: str = "sample"
    #: the seed of the "sample" draw
    limit_seed: int = 0
    #: where the completions came from when they were made elsewhere (``reasoneval import``): the source
    #: files and their sha256; part of the run id (absent, and so leaving other ids unchanged, for runs made here)
    origin: dict[str, Any] | None = None
    #: the model's identity in the run id and the cache (``models/identity.py``): a content fingerprint of local
    #: weights, a served model's name; None: worked out from ``model`` when first needed (a run made here) or
    #: ``model`` itself (an imported run)
    model_id: str | None = None
    #: how local weights are fingerprinted: "sampled" (default) or "full"
    fingerprint: str = "sampled"
    #: what :func:`~reasoneval.models.identity.identify` found (kept for the record)
    model_identity: ModelIdentity | None = field(default=None, repr=False, compare=False)

    def model_key(self) -> str:
        """What the run id and the cache key carry for the model (worked out once per spec)."""
        if self.model_id is None:
            if self.origin:
                self.model_id = self.model
            else:
                self.model_identity = identify(self.model, self.fingerprint)
                self.model_id = self.model_identity.key
        return self.model_id

    def identity(self) -> dict[str, Any]:
        return self._identity(self.model_key())

    def legacy_run_id(self) -> str:
        """The id this run had before models were identified by content / served name (the model string in
        the id); equal to :meth:`run_id` where the key is the string itself."""
        return hash_obj(self._identity(self.model))[:12]

    def _identity(self, model: str) -> dict[str, Any]:
        d = {"benchmark": self.benchmark, "subset": self.subset, "mode": self.mode, "model": model,
             "params": self.params.to_json(), "samples": self.samples, "seed": self.seed,
             "limit": self.limit, "judge": self.judge, "options": self._option_identity(),
             "data_version": self.data_version}
        if self.limit is not None and self.limit_mode != "first":
            # which items a limit draws is identity; a run without a limit, or with the first N (what --limit
            # meant before the sample existed), keeps the id it always had
            d["limit_sample"] = {"mode": self.limit_mode, "seed": self.limit_seed, "version": SAMPLER_VERSION}
        if self.origin:
            d["origin"] = self.origin
        return d

    def _option_identity(self) -> dict[str, Any]:
        return self.options.identity() if isinstance(self.options, BenchOptions) else dict(self.options)

    def option_values(self) -> dict[str, Any]:
        return self.options.to_json() if isinstance(self.options, BenchOptions) else dict(self.options)

    def run_id(self) -> str:
        return hash_obj(self.identity())[:12]

    def record(self, data_version: str, prompt_version: str) -> dict[str, Any]:
        rec = {**self.identity(), "options": self.option_values(), "package_version": __version__,
               "data_version": data_version or self.data_version, "prompt_version": prompt_version}
        rec["model"] = self.model  # the string as given; the identity is model_id
        key = self.model_key()
        if key != self.model:
            rec["model_id"] = key
        if self.model_identity is not None and self.model_identity.how != "string":
            rec["model_identity"] = {"how": self.model_identity.how, **self.model_identity.details}
        if self.settings is not None:
            rec["settings"] = self.settings
        return rec
