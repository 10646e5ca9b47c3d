"""Download one config of a release at a pinned revision into the HF cache, or find it there offline.

Online: one API call resolves the revision to a commit and lists the repo's files; the config's files are
downloaded with ``hf_hub_download`` *at that commit* (a cached file costs no request at all), checked
against the Hub's LFS sha256, and recorded in a manifest. Offline (``HF_HUB_OFFLINE=1``, ``--offline``),
or when the Hub cannot be reached and the config was pulled before, the manifest and cache are used with
no network access.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .cache import (
    COMMIT_RE,
    Manifest,
    check_file,
    endpoint,
    hf_cache_dir,
    offline_mode,
    read_ref,
    sha256_file,
    write_ref,
)
from .config_files import config_files
from .release_files import HubError, Release
from .releases import ReleaseSpec, release


def _hf() -> Any:
    try:
        import huggingface_hub
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise HubError("downloading releases needs huggingface_hub (pip install huggingface_hub)") from e
    return huggingface_hub


def _what_to_do(spec: ReleaseSpec) -> str:
    local = spec.local_hint or f"point `reasoneval run {spec.benchmark} --data PATH` at a local copy"
    return (f"pull it where the Hub is reachable (`reasoneval data pull {spec.benchmark}`) and copy the HF cache, "
            f"or {local}")


def _explain(spec: ReleaseSpec, revision: str, e: Exception) -> HubError:
    """One line for a failed Hub call."""
    from huggingface_hub import errors as E

    ep = endpoint()
    name = type(e).__name__
    if isinstance(e, E.GatedRepoError):
        msg = (f"{spec.repo_id} is gated on the Hub: accept its conditions at {ep}/datasets/{spec.repo_id}, "
               f"then set HF_TOKEN (or run `hf auth login`) and retry")
    elif isinstance(e, E.RevisionNotFoundError):
        msg = (f"revision {revision!r} of {spec.repo_id} does not exist on {ep}; fix the pin "
               f"(-O revision=REV on run, --revision on data pull)")
    elif isinstance(e, E.RepositoryNotFoundError):
        msg = (f"{spec.repo_id} was not found on {ep} (or it is private: set HF_TOKEN); "
               f"HF_ENDPOINT={ep}")
    elif isinstance(e, E.EntryNotFoundError):
        msg = f"{spec.repo_id}@{revision}: a listed file is missing on {ep} ({e}); retry later or pin another revision"
    elif isinstance(e, E.OfflineModeIsEnabled):
        msg = f"offline mode is on and {spec.repo_id}@{revision} is not in the cache; {_what_to_do(spec)}"
    else:
        first = str(e).strip().splitlines()[0] if str(e).strip() else name
        msg = f"cannot download {spec.repo_id}@{revision} from {ep} ({name}: {first[:200]}); {_what_to_do(spec)}"
    return HubError(msg)


def _is_network_error(e: Exception) -> bool:
    from huggingface_hub import errors as E

    if isinstance(e, E.GatedRepoError | E.RepositoryNotFoundError | E.RevisionNotFoundError | E.EntryNotFoundError):
        return False
    if isinstance(e, E.HfHubHTTPError):
        resp = getattr(e, "response", None)
        return resp is None or getattr(resp, "status_code", 500) >= 500
    return isinstance(e, OSError | ConnectionError | TimeoutError) or "connect" in type(e).__name__.lower() \
        or "timeout" in type(e).__name__.lower()


def _from_cache(spec: ReleaseSpec, config: str, revision: str, cache: Path) -> Release | None:
    commit = read_ref(spec.repo_id, revision, cache)
    if commit is None:
        return None
    m = Manifest.load(spec.repo_id, commit, config, cache)
    if m is None:
        return None
    rels = sorted(m.files)
    paths = tuple(m.local(r, cache) for r in rels)
    missing = [r for r, p in zip(rels, paths, strict=True) if not p.is_file()]
    if missing:
        raise HubError(f"{spec.repo_id}@{commit} config {config}: cached file(s) {', '.join(missing)} are gone; "
                       f"run `reasoneval data pull {spec.benchmark}` again")
    return Release(spec.benchmark, spec.repo_id, revision, commit, config, paths,
                   tuple((r, str(m.files[r]["sha256"])) for r in rels))


def _verify_loaded(rel: Release, cache: Path) -> None:
    m = Manifest.load(rel.repo_id, rel.commit, rel.config, cache)
    assert m is not None
    for r in sorted(m.files):
        problem = check_file(m, r, cache)
        if problem:
            raise HubError(f"{rel.repo_id}@{rel.commit} {r} is corrupted in the cache ({problem}); "
                           f"run `reasoneval data pull {rel.benchmark} --force`")


def _api_commit(spec: ReleaseSpec, revision: str) -> str:
    ep = endpoint()
    info = _hf().HfApi(endpoint=ep).dataset_info(spec.repo_id, revision=revision)
    commit = str(info.sha)
    if not COMMIT_RE.match(commit):
        raise HubError(f"{ep} answered a revision of {spec.repo_id} that is not a commit sha: {commit!r}")
    return commit


def _download(spec: ReleaseSpec, config: str, revision: str, commit: str, cache: Path, force: bool) -> Release:
    hf = _hf()
    ep = endpoint()
    info = hf.HfApi(endpoint=ep).dataset_info(spec.repo_id, revision=commit, files_metadata=True)
    siblings = {s.rfilename: s for s in info.siblings or []}

    def get(rel: str) -> Path:
        return Path(hf.hf_hub_download(spec.repo_id, rel, repo_type="dataset", revision=commit,
                                       cache_dir=str(cache), endpoint=ep, force_download=force))

    readme = get("README.md").read_text(encoding="utf-8", errors="replace") if "README.md" in siblings else None
    rels = config_files(siblings, config, readme, spec.split)
    if not rels:
        raise HubError(f"{spec.repo_id}@{commit}: no data files for config {config!r} among "
                       f"{len(siblings)} file(s); the release layout changed - pass a local copy with "
                       f"--data PATH")
    m = Manifest(spec.repo_id, revision, commit, config)
    for rel in rels:
        local = get(rel)
        digest = sha256_file(local)
        lfs = getattr(siblings[rel], "lfs", None)
        want = (lfs.get("sha256") if isinstance(lfs, dict) else getattr(lfs, "sha256", None)) if lfs else None
        if want and want != digest:
            raise HubError(f"{spec.repo_id}@{commit} {rel}: downloaded bytes do not match the Hub's sha256; "
                           f"run `reasoneval data pull {spec.benchmark} --force`")
        m.files[rel] = {"sha256": digest, "size": local.stat().st_size}
    m.save(cache)
    write_ref(spec.repo_id, revision, commit, cache)
    return Release(spec.benchmark, spec.repo_id, revision, commit, config,
                   tuple(m.local(r, cache) for r in rels), tuple((r, m.files[r]["sha256"]) for r in rels))


_COMMITS: dict[tuple[str, str, str, bool], str] = {}


def resolve_commit(benchmark: str, revision: str | None = None, offline: bool | None = None) -> str:
    """The commit the pinned revision stands for: asked of the Hub once per process (offline, or when the Hub
    cannot be reached: the commit it pointed to when last pulled)."""
    spec = release(benchmark)
    rev = spec.revision_for(revision)
    off = offline_mode(offline)
    key = (endpoint(), spec.repo_id, rev, off)
    if key in _COMMITS:
        return _COMMITS[key]
    cache = hf_cache_dir()
    if COMMIT_RE.match(rev):
        commit = rev
    elif off:
        got = read_ref(spec.repo_id, rev, cache)
        if got is None:
            raise HubError(f"offline: {spec.repo_id}@{rev} has never been pulled into {cache}; {_what_to_do(spec)}")
        commit = got
    else:
        try:
            commit = _api_commit(spec, rev)
        except HubError:
            raise
        except Exception as e:  # noqa: BLE001 - every Hub failure becomes one actionable line
            got = read_ref(spec.repo_id, rev, cache) if _is_network_error(e) else None
            if got is None:
                raise _explain(spec, rev, e) from e
            print(f"warning: {endpoint()} unreachable ({type(e).__name__}); using the cached {spec.repo_id}@{got} "
                  f"({rev} when last pulled)", file=sys.stderr)
            commit = got
    _COMMITS[key] = commit
    return commit


def pull(benchmark: str, config: str | None = None, *, revision: str | None = None, offline: bool | None = None,
         force: bool = False) -> Release:
    """Fetch (or find in the cache) one config of ``benchmark``'s release at its pinned revision."""
    spec = release(benchmark)
    config = spec.config_for(config)
    rev = spec.revision_for(revision)
    cache = hf_cache_dir()
    if force:
        _COMMITS.clear()
    commit = resolve_commit(benchmark, rev, offline)
    rel = None if force else _from_cache(spec, config, commit, cache)
    if rel is not None:  # this commit's config is cached: no request at all
        _verify_loaded(rel, cache)
        return Release(rel.benchmark, rel.repo_id, rev, rel.commit, rel.config, rel.paths, rel.files)
    if offline_mode(offline):
        raise HubError(f"offline: {spec.repo_id}@{rev} ({commit[:12]}) config {config} is not in the cache "
                       f"({cache}); {_what_to_do(spec)}")
    try:
        return _download(spec, config, rev, commit, cache, force)
    except HubError:
        raise
    except Exception as e:  # noqa: BLE001 - every Hub failure becomes one actionable line
        raise _explain(spec, rev, e) from e


_MEMO: dict[tuple[str, str, str, bool], Release] = {}


def resolve_release(benchmark: str, config: str | None = None, offline: bool | None = None,
                    revision: str | None = None) -> Release:
    """The loaders' entry point: local files, revision, commit and file hashes of one config (memoised per
    process, so a run resolves each config once). Inside ``pinned.pinned_to(run)`` (re-scoring a stored run):
    the release that run recorded, from the cache only."""
    from .pinned import pin_of, recorded_release

    pin = pin_of(benchmark)
    if pin is not None:
        return recorded_release(pin, config)
    spec = release(benchmark)
    key = (benchmark, spec.config_for(config), spec.revision_for(revision), offline_mode(offline))
    if key not in _MEMO:
        _MEMO[key] = pull(benchmark, config, revision=revision, offline=offline)
    return _MEMO[key]


def loaded_releases(benchmark: str, revision: str | None = None) -> list[Release]:
    """The configs of ``benchmark`` this process has resolved at ``revision`` (default: the pinned one),
    in config order."""
    rev = release(benchmark).revision_for(revision)
    return [r for k, r in sorted(_MEMO.items(), key=lambda kv: kv[0]) if k[0] == benchmark and k[2] == rev]


def data_version(benchmark: str, loaded: list[Release] | None = None, revision: str | None = None) -> str:
    """The run's data version: ``hf:<repo>@<commit>`` plus, once configs are loaded, every file's sha256."""
    loaded = loaded_releases(benchmark, revision) if loaded is None else loaded
    if not loaded:
        return f"hf:{release(benchmark).repo_id}@{resolve_commit(benchmark, revision)}"
    head = loaded[0].describe()
    if any(r.describe() != head for r in loaded):
        raise HubError(f"{benchmark}: configs resolved to different commits; pin a commit sha")
    files = sorted({f"{p} sha256:{h}" for r in loaded for p, h in r.files})
    return f"{head} (revision {loaded[0].revision}); " + ", ".join(files)
