"""A local fake Hugging Face Hub for tests: the endpoints ``huggingface_hub`` calls to list and download a
dataset, serving small repositories made in the test.

    hub = FakeHub()
    sha = hub.commit("org/dataset", {"en/test-00000-of-00001.parquet": data, "README.md": b"..."})
    hub.start()                      # 127.0.0.1, a free port; then HF_ENDPOINT=hub.url
    ...
    hub.stop()

Served (datasets only):

* ``GET /api/datasets/{repo}`` and ``/api/datasets/{repo}/revision/{rev}``: repo info with ``sha`` and
  ``siblings`` (``?blobs=true`` adds ``size``, ``blobId`` and ``lfs``);
* ``GET /api/datasets/{repo}/tree/{rev}[/{path}]``: the file list (``list_repo_tree`` / ``list_repo_files``);
* ``HEAD``/``GET /datasets/{repo}/resolve/{rev}/{path}``: the file, with ``X-Repo-Commit``, ``ETag`` (git blob
  sha1) or, for LFS files (``*.parquet`` by default), ``X-Linked-Etag``/``X-Linked-Size`` (sha256), and
  ``Range`` support;
* errors as the Hub sends them: ``X-Error-Code`` ``RepoNotFound`` / ``RevisionNotFound`` / ``EntryNotFound`` /
  ``GatedRepo`` (a gated repo answers 401 to every request without ``Authorization``).

``requests`` counts the requests by kind (``info``, ``tree``, ``head``, ``get``) for cache-hit assertions.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

_INFO = re.compile(r"^/api/datasets/(?P<repo>[^/]+/[^/]+)(?:/revision/(?P<rev>[^/]+))?/?$")
_TREE = re.compile(r"^/api/datasets/(?P<repo>[^/]+/[^/]+)/tree/(?P<rev>[^/]+)(?:/(?P<path>.*))?$")
_RESOLVE = re.compile(r"^/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    lfs: Callable[[str], bool] = lambda path: path.endswith((".parquet", ".png", ".jpg"))


class FakeHub:
    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.gated: set[str] = set()
        self.requests: Counter[str] = Counter()
        self.paths: list[str] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- content ---------------------------------------------------------------------------------------
    def commit(self, repo_id: str, files: dict[str, bytes], branch: str = "main") -> str:
        """A new commit holding exactly ``files`` (plus ``.gitattributes``); ``branch`` moves to it."""
        repo = self.repos.setdefault(repo_id, Repo())
        snapshot = {".gitattributes": b"*.parquet filter=lfs diff=lfs merge=lfs -text\n", **files}
        h = hashlib.sha1(f"{repo_id}\0{len(repo.commits)}".encode())
        for path in sorted(snapshot):
            h.update(path.encode() + b"\0" + hashlib.sha256(snapshot[path]).digest())
        sha = h.hexdigest()
        repo.commits[sha] = snapshot
        repo.refs[branch] = sha
        return sha

    def _resolve(self, repo_id: str, rev: str) -> tuple[str, dict[str, bytes]] | str:
        repo = self.repos.get(repo_id)
        if repo is None:
            return "RepoNotFound"
        sha = repo.refs.get(rev, rev)
        if sha not in repo.commits:
            return "RevisionNotFound"
        return sha, repo.commits[sha]

    def _sibling(self, repo_id: str, path: str, data: bytes, blobs: bool) -> dict[str, Any]:
        s: dict[str, Any] = {"rfilename": path}
        if blobs:
            s.update(size=len(data), blobId=git_blob_sha1(data))
            if self.repos[repo_id].lfs(path):
                s["lfs"] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
        return s

    # -- server ----------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "start() the fake hub first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self, port: int = 0) -> str:
        hub = self

        class Handler(_Handler):
            pass

        Handler.hub = hub
        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeHub:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    hub: FakeHub
    protocol_version = "HTTP/1.0"  # one request per connection: stop() really cuts the Hub off

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None,
              content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, code: str, message: str) -> None:
        self._send(status, json.dumps({"error": message}).encode(),
                   {"X-Error-Code": code, "X-Error-Message": message})

    def _gate(self, repo_id: str) -> bool:
        if repo_id in self.hub.gated and not self.headers.get("Authorization"):
            self._error(401, "GatedRepo", f"Access to dataset {repo_id} is restricted. You must have access to it "
                                          "and be authenticated to access it. Please log in.")
            return True
        return False

    def do_HEAD(self) -> None:  # noqa: N802 - http.server naming
        self._route()

    def do_GET(self) -> None:  # noqa: N802
        self._route()

    def _route(self) -> None:
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        self.hub.paths.append(f"{self.command} {self.path}")
        if m := _RESOLVE.match(path):
            self.hub.requests["head" if self.command == "HEAD" else "get"] += 1
            return self._file(unquote(m["repo"]), unquote(m["rev"]), unquote(m["path"]))
        if m := _TREE.match(path):
            self.hub.requests["tree"] += 1
            return self._tree(unquote(m["repo"]), unquote(m["rev"]), unquote(m["path"] or ""))
        if m := _INFO.match(path):
            self.hub.requests["info"] += 1
            blobs = query.get("blobs", ["false"])[0].lower() == "true"
            return self._info(unquote(m["repo"]), unquote(m["rev"] or "main"), blobs)
        self._error(404, "NotFound", f"no route for {path}")

    def _lookup(self, repo_id: str, rev: str) -> tuple[str, dict[str, bytes]] | None:
        if self._gate(repo_id):
            return None
        got = self.hub._resolve(repo_id, rev)
        if got == "RepoNotFound":
            self._error(404, "RepoNotFound", "Repository not found")
            return None
        if got == "RevisionNotFound":
            self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            return None
        assert isinstance(got, tuple)
        return got

    def _info(self, repo_id: str, rev: str, blobs: bool) -> None:
        got = self._lookup(repo_id, rev)
        if got is None:
            return
        sha, files = got
        body = {"_id": "0" * 24, "id": repo_id, "author": repo_id.split("/")[0], "sha": sha, "private": False,
                "gated": "manual" if repo_id in self.hub.gated else False, "disabled": False, "downloads": 0,
                "likes": 0, "tags": [], "lastModified": "2025-05-01T00:00:00.000Z",
                "siblings": [self.hub._sibling(repo_id, p, files[p], blobs) for p in sorted(files)]}
        self._send(200, json.dumps(body).encode())

    def _tree(self, repo_id: str, rev: str, prefix: str) -> None:
        got = self._lookup(repo_id, rev)
        if got is None:
            return
        _, files = got
        out = []
        for p in sorted(files):
            if prefix and not p.startswith(prefix.rstrip("/") + "/"):
                continue
            entry: dict[str, Any] = {"type": "file", "oid": git_blob_sha1(files[p]), "size": len(files[p]), "path": p}
            if self.hub.repos[repo_id].lfs(p):
                entry["lfs"] = {"oid": hashlib.sha256(files[p]).hexdigest(), "size": len(files[p]),
                                "pointerSize": 134}
            out.append(entry)
        self._send(200, json.dumps(out).encode())

    def _file(self, repo_id: str, rev: str, rel: str) -> None:
        got = self._lookup(repo_id, rev)
        if got is None:
            return
        sha, files = got
        if rel not in files:
            return self._error(404, "EntryNotFound", f"{rel} does not exist on {rev}")
        data = files[rel]
        headers = {"X-Repo-Commit": sha, "Accept-Ranges": "bytes"}
        if self.hub.repos[repo_id].lfs(rel):
            digest = hashlib.sha256(data).hexdigest()
            headers.update({"ETag": f'"{digest}"', "X-Linked-Etag": f'"{digest}"', "X-Linked-Size": str(len(data))})
        else:
            headers["ETag"] = f'"{git_blob_sha1(data)}"'
        rng = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range", ""))
        if rng and self.command == "GET":
            start = int(rng[1])
            end = int(rng[2]) if rng[2] else len(data) - 1
            headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
            return self._send(206, data[start:end + 1], headers, "application/octet-stream")
        self._send(200, data, headers, "application/octet-stream")


def main() -> None:  # pragma: no cover - manual use
    import argparse
    import time
    from pathlib import Path

    ap = argparse.ArgumentParser(description="Serve a folder as one fake Hub dataset repo (one commit)")
    ap.add_argument("repo_id")
    ap.add_argument("folder")
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    root = Path(a.folder)
    hub = FakeHub()
    sha = hub.commit(a.repo_id, {p.relative_to(root).as_posix(): p.read_bytes()
                                 for p in sorted(root.rglob("*")) if p.is_file()})
    print(f"{hub.start(a.port)} {a.repo_id}@{sha}", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":  # pragma: no cover
    main()
