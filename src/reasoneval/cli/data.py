"""``reasoneval data pull|list|verify``: manage the Hub releases in the local Hugging Face cache."""

from __future__ import annotations

from typing import Annotated

import typer

from ..hub.cache import Manifest, check_file, hf_cache_dir, manifests, read_ref
from ..hub.fetch import HubError, pull
from ..hub.releases import ReleaseSpec, all_releases, release

app = typer.Typer(help="Benchmark releases from the Hugging Face Hub: pull, list, verify.", no_args_is_help=True)


def _configs(spec: ReleaseSpec, subsets: str) -> list[str]:
    """``t_en,m_zh`` / ``<release>-t_en`` / ``test`` -> config names (all configs when empty)."""
    out = []
    for raw in (s.strip() for s in subsets.split(",") if s.strip()):
        if raw in spec.configs:
            out.append(raw)
        elif f"{spec.benchmark}-{raw}" in spec.configs:
            out.append(f"{spec.benchmark}-{raw}")
        elif len(spec.configs) == 1 and raw in ("test", "default"):
            out.append(spec.configs[0])
        else:
            raise HubError(f"{spec.benchmark} has no config {raw!r}; known: {', '.join(spec.configs)}")
    return out or list(spec.configs)


def _targets(target: str | None) -> list[tuple[ReleaseSpec, list[str]]]:
    if not target:
        return [(s, list(s.configs)) for s in all_releases().values() if s.pull_all]
    name, _, subsets = target.partition(":")
    spec = release(name)
    return [(spec, _configs(spec, subsets))]


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"  # pragma: no cover


@app.command("pull")
def pull_cmd(
    target: Annotated[str | None, typer.Argument(help="release[:config,...] (default: all; `reasoneval data list`)")] = None,
    revision: Annotated[str | None, typer.Option(help="branch, tag or commit sha (default: the pinned one)")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="only check the cache (no network)")] = False,
    force: Annotated[bool, typer.Option("--force", help="download again even if cached")] = False,
) -> None:
    """Download releases at their pinned revision into the Hugging Face cache (a no-op when cached)."""
    try:
        for spec, configs in _targets(target):
            for config in configs:
                rel = pull(spec.benchmark, config, revision=revision, offline=offline or None, force=force)
                size = sum(p.stat().st_size for p in rel.paths)
                typer.echo(f"{rel.repo_id} {config}: {rel.commit} ({rel.revision}), {len(rel.paths)} file(s), "
                           f"{_size(size)}")
    except (HubError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


@app.command("list")
def list_cmd() -> None:
    """Known releases, their pins, and what the cache holds."""
    cache = hf_cache_dir()
    typer.echo(f"cache: {cache}")
    for spec in all_releases().values():
        rev = spec.revision_for()
        at = read_ref(spec.repo_id, rev, cache)
        typer.echo(f"{spec.benchmark}: {spec.repo_id} pinned {rev}"
                   + (f" -> {at}" if at and at != rev else "") + f"  configs: {', '.join(spec.configs)}")
        for m in manifests(spec.repo_id, cache):
            size = sum(int(f.get("size") or 0) for f in m.files.values())
            mark = "*" if m.commit == at else " "
            typer.echo(f"  {mark} {m.commit} {m.config}: {len(m.files)} file(s), {_size(size)} (pulled as {m.revision})")


@app.command("verify")
def verify_cmd(
    target: Annotated[str | None, typer.Argument(help="release (default: all)")] = None,
) -> None:
    """Re-hash every cached release file against its recorded sha256 (exit 1 on any mismatch)."""
    cache = hf_cache_dir()
    bad = checked = 0
    try:
        targets = _targets(target)
    except (HubError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    for spec, configs in targets:
        found: list[Manifest] = [m for m in manifests(spec.repo_id, cache) if m.config in configs]
        for m in found:
            for rel in sorted(m.files):
                checked += 1
                problem = check_file(m, rel, cache)
                if problem:
                    bad += 1
                    typer.echo(f"CORRUPT {spec.repo_id}@{m.commit} {rel}: {problem}")
    typer.echo(f"{checked} file(s) checked, {bad} bad" + (
        "; re-download with `reasoneval data pull <benchmark> --force`" if bad else ""))
    if bad:
        raise typer.Exit(1)
