"""A run is what was evaluated: local weights by their content, served models by their name (never the URL);
bad answers can be asked again (--retry-unanswered, --refresh, rm --drop-cache)."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import toybench  # noqa: F401  (registers "toy")

from reasoneval.core import registry
from reasoneval.core.values import Completion, GenParams, Prompt
from reasoneval.models import fingerprint as fpm
from reasoneval.models.base import ModelError
from reasoneval.models.identity import identify
from reasoneval.runner.engine import Runner
from reasoneval.runner.local import run_local
from reasoneval.runner.spec import RunSpec
from reasoneval.store.sqlite import RunStore


@pytest.fixture(autouse=True)
def _own_memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONEVAL_CACHE_DIR", str(tmp_path / "cache"))
    fpm.forget_memo()
    yield
    fpm.forget_memo()


def _checkpoint(d: Path, seed: int, size: int = 20 << 20) -> Path:
    """A checkpoint folder: config, tokenizer, a weights file larger than FULL_BELOW (sampled), training state."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text('{"model_type": "toy"}')
    (d / "tokenizer.json").write_text('{"vocab": {}}')
    (d / "model.safetensors").write_bytes(seed.to_bytes(4, "little") * (size // 4))
    return d


# ---------------------------------------------------------------- fingerprints


def test_fingerprint_content_not_path(tmp_path: Path) -> None:
    a = _checkpoint(tmp_path / "a", 1)
    fa = fpm.fingerprint(a)
    assert fa.method == "sampled" and fa.files == 3 and fa.read < fa.bytes  # sampled: not every byte read
    b = tmp_path / "elsewhere" / "b"
    shutil.copytree(a, b)
    assert fpm.fingerprint(b).digest == fa.digest  # the same bytes at another path
    (a / "optimizer.pt").write_bytes(os.urandom(1000))  # training state is not the model
    (a / "trainer_state.json").write_text("{}")
    assert fpm.fingerprint(a).digest == fa.digest
    _checkpoint(a, 2)  # new weights at the same path
    assert fpm.fingerprint(a).digest != fa.digest
    assert fpm.fingerprint(b, "full").digest != fa.digest  # full: another digest (another run id)


def test_fingerprint_memoised_and_sees_changes(tmp_path: Path) -> None:
    a = _checkpoint(tmp_path / "a", 1)
    first = fpm.fingerprint(a)
    assert first.read > 0
    again = fpm.fingerprint(a)
    assert again.read == 0 and again.digest == first.digest  # memoised by (path, size, mtime, ...)
    fpm.forget_memo()  # another process: reads the memo file
    assert fpm.fingerprint(a).read == 0
    with open(a / "model.safetensors", "r+b") as f:  # one byte in the first block, same size
        f.seek(10)
        f.write(b"\xff")
    assert fpm.fingerprint(a).digest != first.digest
    (a / "tokenizer.json").write_text('{"vocab": {"x": 1}}')  # a tokenizer change is a model change too
    assert fpm.fingerprint(a).digest not in (first.digest,)


def test_identity_keys() -> None:
    assert identify("llamacpp/default").key == "llamacpp/default"  # the embedded model keeps its id
    assert identify("openai/gpt-4o").key == "openai/gpt-4o"
    forms = ["openai-compat/qwen@http://127.0.0.1:8000/v1", "openai-compat/qwen@http://localhost:9000/v1/",
             "openai-compat/qwen@http://a:1/v1,http://b:2/v1", "openai-compat/qwen@http://b:2/v1,http://a:1/v1"]
    assert {identify(f).key for f in forms} == {"openai-compat/qwen"}
    assert identify("hf/no/such/folder").key == "hf/no/such/folder"


def _spec(model: str, **kw: Any) -> RunSpec:
    return RunSpec("toy", None, "zero-shot", model, GenParams(max_tokens=32), **kw)


def test_served_run_id_ignores_url() -> None:
    ids = {_spec(f"openai-compat/qwen@{u}").run_id() for u in
           ("http://127.0.0.1:8000/v1", "http://localhost:8000/v1", "http://127.0.0.1:8000/v1/",
            "http://127.0.0.1:8001/v1,http://127.0.0.1:8000/v1")}
    assert len(ids) == 1
    assert _spec("openai-compat/other@http://127.0.0.1:8000/v1").run_id() not in ids


# ---------------------------------------------------------------- local weights through the runner


class WeightsBackend:
    """A model whose answers depend on its weights file (as a real one's do): the answer names its first byte."""

    batched = False
    supports_images = False
    max_concurrency = 4

    def __init__(self, path: Path) -> None:
        self.spec = f"hf/{path}"
        self.byte = (path / "model.safetensors").read_bytes()[0]
        self.calls = 0

    async def generate(self, prompt: Prompt, params: GenParams) -> Completion:
        self.calls += 1
        return Completion(f"weights {self.byte} say [[{prompt.last_user_text().split()[-1]}]]", "stop")

    async def aclose(self) -> None:
        return None


def _run_weights(store: RunStore, path: Path, **kw: Any):
    backend = WeightsBackend(path)
    spec = _spec(f"hf/{path}", limit=4)
    res = asyncio.run(Runner(registry.get("toy"), spec, store, backend, concurrency=4, progress=False).run(**kw))
    return res, backend


def test_new_weights_same_path_new_run(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "s.db")
    ckpt = _checkpoint(tmp_path / "ckpt", 1)
    r1, _ = _run_weights(store, ckpt)
    assert r1.generated == 8
    r2, b2 = _run_weights(store, ckpt)
    assert r2.run_id == r1.run_id and r2.resumed and b2.calls == 0
    _checkpoint(ckpt, 2)  # the next checkpoint, written over the same folder
    r3, b3 = _run_weights(store, ckpt)
    assert r3.run_id != r1.run_id and not r3.resumed
    assert r3.generated == 8 and r3.cached == 0 and b3.calls == 8  # fresh answers, none from the cache
    texts = {c.completion.text.split()[1] for c in store.completions(r3.run_id)}
    assert texts == {"2"}  # the new weights answered
    moved = tmp_path / "copies" / "ckpt-2"
    shutil.copytree(ckpt, moved)
    r4, b4 = _run_weights(store, moved)  # the same bytes at another path
    assert r4.run_id == r3.run_id and r4.resumed and b4.calls == 0 and r4.generated == 0
    rec = store.get_run(r3.run_id)["spec"]
    assert rec["model_identity"]["how"] == "weights"
    assert rec["model_identity"]["fingerprint"]["method"] == "sampled"


# ---------------------------------------------------------------- served models


def _asked(srv: Any) -> int:
    return int(srv.stats().get("requests", 0))


def _run_served(store: RunStore, model: str, *, limit: int | None = 4, **kw: Any):
    spec = _spec(model, limit=limit)
    return asyncio.run(run_local(registry.get("toy"), spec, store, 8, False, False, **kw))


def test_one_served_model_many_addresses(tmp_path: Path, make_server) -> None:
    s1, s2 = make_server("--served-id", "qwen-7b"), make_server("--served-id", "qwen-7b")
    store = RunStore(tmp_path / "s.db")
    r1 = _run_served(store, f"openai-compat/qwen@{s1.url}")
    assert r1.generated == 8
    asked = _asked(s1) + _asked(s2)
    for model in (f"openai-compat/qwen@{s2.url}",  # another port
                  f"openai-compat/qwen@{s2.url}/",  # trailing slash
                  f"openai-compat/qwen@{s1.url.replace('127.0.0.1', 'localhost')}",  # host alias
                  f"openai-compat/qwen@{s2.url},{s1.url}",  # replicas
                  f"openai-compat/qwen@{s1.url},{s2.url}"):  # ... reordered
        r = _run_served(store, model)
        assert r.run_id == r1.run_id and r.generated == 0 and r.reused == 8, model
    assert _asked(s1) + _asked(s2) == asked  # nothing asked twice
    rec = store.get_run(r1.run_id)["spec"]
    assert rec["served_model"] == "qwen-7b"
    assert rec["endpoints"] == [s1.url, s2.url, s2.url + "/", s1.url.replace("127.0.0.1", "localhost")]
    bigger = _run_served(store, f"openai-compat/qwen@{s2.url}", limit=6)  # another run: shares the cache
    assert bigger.run_id != r1.run_id and bigger.cached == 8 and bigger.generated == 4


def test_server_serving_another_model_is_refused(tmp_path: Path, make_server) -> None:
    a, b = make_server("--served-id", "model-a"), make_server("--served-id", "model-b")
    store = RunStore(tmp_path / "s.db")
    r1 = _run_served(store, f"openai-compat/m@{a.url}")
    with pytest.raises(ModelError, match="now serves 'model-b'.*made with 'model-a'"):
        _run_served(store, f"openai-compat/m@{b.url}")
    with pytest.raises(ModelError, match="replicas of 'm' serve different models"):
        _run_served(store, f"openai-compat/m@{a.url},{b.url}")
    assert store.count(r1.run_id) == 8


# ---------------------------------------------------------------- asking again


def test_empty_answers_can_be_asked_again(tmp_path: Path, make_server) -> None:
    srv = make_server("--faults", "empty200")  # each prompt's first answer is empty, later ones are fine
    store = RunStore(tmp_path / "s.db")
    model = f"openai-compat/fake@{srv.url}"
    r1 = _run_served(store, model)
    assert r1.generated == 8 and store.unanswered(r1.run_id) and len(store.unanswered(r1.run_id)) == 8
    again = _run_served(store, model, limit=4)
    assert again.generated == 0 and len(store.unanswered(r1.run_id)) == 8  # a plain re-run reuses them
    fixed = _run_served(store, model, retry_unanswered=True)
    assert fixed.run_id == r1.run_id and fixed.generated == 8 and fixed.cached == 0
    assert store.unanswered(r1.run_id) == []
    n = _asked(srv)
    fresh = _run_served(store, model, refresh=True)  # every item again, the cache not read
    assert fresh.generated == 8 and fresh.cached == 0 and _asked(srv) == n + 8
    assert store.count(r1.run_id) == 8  # replaced, not added


def test_rm_drop_cache_then_rerun_asks_again(tmp_path: Path, make_server) -> None:
    from typer.testing import CliRunner

    from reasoneval.cli import app

    srv = make_server()
    db = tmp_path / "s.db"
    model = f"openai-compat/fake@{srv.url}"
    r1 = _run_served(RunStore(db), model)
    cli = CliRunner()
    got = cli.invoke(app, ["rm", r1.run_id, "--store", str(db), "--yes"])
    assert got.exit_code == 0, got.output
    r2 = _run_served(RunStore(db), model)  # the cache stays: nothing asked
    assert r2.cached == 8 and r2.generated == 0
    n = _asked(srv)
    got = cli.invoke(app, ["rm", r2.run_id, "--store", str(db), "--yes", "--drop-cache"])
    assert got.exit_code == 0 and "8 cached responses forgotten" in got.output, got.output
    r3 = _run_served(RunStore(db), model)
    assert r3.cached == 0 and r3.generated == 8 and _asked(srv) == n + 8


# ---------------------------------------------------------------- runs stored before


def test_old_served_run_is_taken_over(tmp_path: Path, make_server, monkeypatch: pytest.MonkeyPatch) -> None:
    srv = make_server()
    store = RunStore(tmp_path / "s.db")
    model = f"openai-compat/fake@{srv.url}"
    import reasoneval.runner.spec as spec_mod
    from reasoneval.models.identity import ModelIdentity

    with monkeypatch.context() as m:  # as runs were identified before: by the model string
        m.setattr(spec_mod, "identify", lambda s, method="sampled": ModelIdentity(s, "string"))
        old = _run_served(store, model, limit=2)
    assert old.run_id == _spec(model, limit=2).legacy_run_id()
    new = _run_served(store, model, limit=2)
    assert new.run_id != old.run_id and new.resumed and new.generated == 0 and new.reused == 4
    assert store.get_run(old.run_id) is None
    assert store.get_run(new.run_id)["spec"]["previous_ids"] == [old.run_id]


def test_old_weights_run_stays_but_is_not_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import reasoneval.runner.spec as spec_mod
    from reasoneval.models.identity import ModelIdentity

    store = RunStore(tmp_path / "s.db")
    ckpt = _checkpoint(tmp_path / "ckpt", 1)
    with monkeypatch.context() as m:
        m.setattr(spec_mod, "identify", lambda s, method="sampled": ModelIdentity(s, "string"))
        old, _ = _run_weights(store, ckpt)
    new, b = _run_weights(store, ckpt)  # which weights made the old run is unknown: asked again
    assert new.run_id != old.run_id and b.calls == 8
    assert store.get_run(old.run_id) is not None  # still listed and reported


def test_ray_workers_weights_identity(tmp_path: Path) -> None:
    from reasoneval.runner.ray_exec import adopt_worker_identity

    ckpt = _checkpoint(tmp_path / "ckpt", 1)
    spec = _spec(f"hf/{ckpt}")
    key = spec.model_key()
    adopt_worker_identity(spec, key)  # the workers loaded the same bytes
    assert spec.model_key() == key
    with pytest.raises(ModelError, match="other weights"):
        adopt_worker_identity(spec, "hf/@s:000000000000000000000000")
    remote = _spec("hf/only/on/the/cluster")  # a laptop driving a cluster: the workers' fingerprint is the id
    before = remote.run_id()
    adopt_worker_identity(remote, "hf/@s:123456789012345678901234")
    assert remote.run_id() != before and remote.record("", "")["model_id"] == "hf/@s:123456789012345678901234"


def test_runs_lists_identity(tmp_path: Path, make_server) -> None:
    import json

    from typer.testing import CliRunner

    from reasoneval.cli import app

    srv = make_server("--served-id", "q-7b")
    db = tmp_path / "s.db"
    store = RunStore(db)
    _run_served(store, f"openai-compat/q@{srv.url}")
    _run_weights(store, _checkpoint(tmp_path / "ckpt", 1))
    store.close()
    got = CliRunner().invoke(app, ["runs", "--store", str(db), "--json"])
    assert got.exit_code == 0, got.output
    idents = sorted((r["model_identity"]["how"], r["identity"]) for r in json.loads(got.stdout))
    assert idents[0][0] == "served" and idents[0][1] == "served q -> q-7b"
    assert idents[1][0] == "weights" and idents[1][1].startswith("weights s:") and "sampled, 3 files" in idents[1][1]
