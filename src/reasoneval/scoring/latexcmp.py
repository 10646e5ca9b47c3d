r"""LaTeX expression comparison with SymPy, isolated and cached.

``sympy.parsing.latex.parse_latex`` (which needs ``antlr4-python3-runtime==4.11``) and ``sympy.simplify`` run
only inside :class:`~reasoneval.scoring.sandbox.SandboxPool` workers with a time limit, so an answer such as
``10^{10^{10}}`` costs at most ``timeout`` seconds and never the scoring process. Model output is parsed as
LaTeX, never evaluated as Python.

The unit of work is one *distinct string*: :meth:`LatexCanonicalizer.submit` returns the canonical form
``srepr(simplify(parse_latex(s)))`` (a :class:`Canon`), computed once per string and remembered in memory
and, optionally, in an on-disk SQLite cache (``$REASONEVAL_CACHE_DIR`` or ``~/.cache/reasoneval``; keyed by
the SymPy and antlr versions). Two strings compare equal under the "structural ``==`` of simplified
expressions" rule exactly when their canonical forms are equal. Failures (parse errors, timeouts, crashed
workers) are returned as non-ok :class:`Canon` values and counted in :attr:`LatexCanonicalizer.stats`, so a
caller can both fall back (as reference evaluators do) and report them.

:meth:`LatexCanonicalizer.submit_equiv` answers the stronger question ``simplify(a - b) == 0``.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from .sandbox import BudgetExhausted, RemoteError, SandboxPool, SandboxTimeout, WorkerCrashed

# latexparse imports SymPy's LaTeX converter itself, without its bra-ket import (latexparse.import_converter);
# the last three are what SymPy imports lazily on the first ``Add`` / ``log`` / relational of a worker (measured
# on the KOR-Bench answers): imported by a worker before it is ready, not during its first task. The fourth,
# ``simplify``'s ``sympy.physics.units``, is deferred by this warm-up (run after the imports, before ready)
PRELOAD = ("sympy", "sympy.parsing.latex", "reasoneval.scoring.latexparse",
           "sympy.tensor.tensor", "sympy.sets.setexpr", "sympy.assumptions.wrapper")
DEFER_UNITS = "reasoneval.scoring.latexparse:defer_units"
MAX_CANON_CHARS = 4000  # longer canonical forms are stored as a digest
_SCHEMA = 1


@dataclass(frozen=True)
class Canon:
    status: str  # "ok" | "error" (parse/simplify raised) | "timeout" | "crash" | "budget" (verdict out of time)
    value: str  # canonical form when ok, else the error message

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _digest(text: str) -> str:
    if len(text) <= MAX_CANON_CHARS:
        return text
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


#: worker-side, per tuple of seed files: srepr(parse_latex(s)) -> canonical form
_PARSED: dict[tuple[str, ...], dict[str, tuple[str, str]]] = {}


def _known_parses(seeds: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """The seeds' parsed expressions (``"parsed"`` rows), then whatever this worker simplified."""
    known = _PARSED.get(seeds)
    if known is None:
        known = _PARSED[seeds] = {e: (c.status, c.value) for (k, e), c in seed_rows(seeds).items()
                                  if k == "parsed" and c.ok}
    return known


def canonicalize(expr: str, seeds: tuple[str, ...] = ()) -> tuple[str, str]:
    """Worker-side: ``srepr(simplify(parse_latex(expr)))`` or the error. Runs in the sandbox only.

    The canonical form is a function of the parsed expression, so a string that parses to an expression seen
    before (a gold with other spacing, a repeated answer) takes that expression's form without ``simplify``;
    ``seeds``: also the expressions of those seed files (:func:`seed_rows`)."""
    import sympy

    from .latexparse import parse_latex

    try:
        parsed = parse_latex(expr)
        key = sympy.srepr(parsed)
        known = _known_parses(tuple(seeds))
        hit = known.get(key)
        if hit is not None:
            return hit
        out = "ok", _digest(sympy.srepr(sympy.simplify(parsed)))
        if len(key) <= MAX_CANON_CHARS:
            known[key] = out
        return out
    except Exception as ex:  # noqa: BLE001 - every failure is a verdict input
        return "error", f"{type(ex).__name__}: {ex}"[:500]


_WARMUP_EXPRS = (
    r"\frac{1}{2}x^2+\sqrt{3}", r"2x\sin(x)+x^2\cos(x)", r"e^{x}\cos(x)-\ln(x)", r"-6+\sqrt{22}", r"3+4i",
    r"\log_{2}(8)+\frac{3}{\ln 2}", r"\int_{0}^{1} 2x dx", r"\pi r^{2}", r"(x+1)(x-1)", r"\tan(x)\cdot\sec(x)",
    r"x^{-\frac{1}{2}}", r"\frac{d}{dx} x^{3}", r"\sqrt[3]{x}+|x|", r"e^{2x}+3", r"\frac{\sqrt{2}}{2}",
)


def warm_up() -> None:
    """Import and exercise the parser and simplifier once (run inside each sandbox worker before it is ready).

    Off by default: measured on 2 cores it delays the first worker more than it saves them."""
    for e in _WARMUP_EXPRS:
        canonicalize(e)


def equivalent(a: str, b: str) -> tuple[str, str]:
    """Worker-side: is ``simplify(parse_latex(a) - parse_latex(b)) == 0``?"""
    import sympy

    from .latexparse import parse_latex

    try:
        d = sympy.simplify(parse_latex(a) - parse_latex(b))
        return "ok", "1" if d == 0 else "0"
    except Exception as ex:  # noqa: BLE001
        return "error", f"{type(ex).__name__}: {ex}"[:500]


def environment_key() -> str:
    def ver(pkg: str) -> str:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "none"

    return f"v{_SCHEMA};sympy={ver('sympy')};antlr4={ver('antlr4-python3-runtime')}"


#: SymPy's LaTeX parser is generated for this ANTLR runtime and refuses any other
ANTLR_RUNTIME = "4.11"


class LatexRuntimeError(RuntimeError):
    """SymPy's LaTeX parser cannot run here (another ANTLR runtime): verdicts would silently fall back."""


def runtime_problem() -> str | None:
    """Why SymPy's LaTeX parser cannot run in this environment, or None. Under another ANTLR runtime (hydra-core
    1.3, and so verl, pins 4.9.x) every string would fail to parse and the verdicts that need it would fall back
    to string comparison without a word; a scorer that needs it refuses instead."""
    try:
        version = metadata.version("antlr4-python3-runtime")
    except metadata.PackageNotFoundError:
        version = None
    if version is not None and (version == ANTLR_RUNTIME or version.startswith(ANTLR_RUNTIME + ".")):
        return None
    return (f"LaTeX equivalence verdicts need SymPy's LaTeX parser, which needs antlr4-python3-runtime "
            f"{ANTLR_RUNTIME}.x; this environment has {version or 'none'} (hydra-core 1.3 / verl pin 4.9.x): score "
            "in an environment installed with reasoneval's constraints (docs/install.md, 'Next to verl')")


_SEEDS: dict[tuple[str, ...], dict[tuple[str, str], Canon]] = {}


def seed_rows(seeds: Sequence[str | Path] = ()) -> dict[tuple[str, str], Canon]:
    """Canonical forms shipped with a package in seed files (a benchmark's golds, computed in this exact
    SymPy/antlr environment: ``{"env": environment_key(), "rows": [[kind, expr, status, value], ...]}``), so a
    first run with empty caches does not pay SymPy for the release's own strings. A file of another environment
    (other SymPy or antlr versions), or one that cannot be read, adds nothing. Read once per set of files."""
    key = tuple(str(p) for p in seeds)
    out = _SEEDS.get(key)
    if out is None:
        out = {}
        for seed in key:
            try:
                doc = json.loads(Path(seed).read_text(encoding="utf-8"))
                if doc.get("env") == environment_key():
                    out.update({(k, e): Canon(st, v) for k, e, st, v in doc["rows"]})
            except (OSError, ValueError, KeyError, TypeError):
                continue
        _SEEDS[key] = out
    return out


def default_cache_dir() -> Path:
    env = os.environ.get("REASONEVAL_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "reasoneval"


def disk_cache_path(cache_dir: Path | None = None) -> Path:
    """The on-disk cache of canonical forms in ``cache_dir`` (default: :func:`default_cache_dir`)."""
    return (cache_dir if cache_dir is not None else default_cache_dir()) / "latex-cache.sqlite"


class _DiskCache:
    """SQLite store of finished canonicalisations; read once, written in batches."""

    def __init__(self, path: Path, env: str) -> None:
        self.path = path
        self.env = env
        self._new: list[tuple[str, str, str, str, float]] = []
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=30)
        con.execute(
            "CREATE TABLE IF NOT EXISTS latex (env TEXT, kind TEXT, expr TEXT, status TEXT, value TEXT,"
            " timeout REAL, PRIMARY KEY (env, kind, expr))"
        )
        return con

    def load(self) -> dict[tuple[str, str], tuple[Canon, float]]:
        out: dict[tuple[str, str], tuple[Canon, float]] = {}
        try:
            with contextlib.closing(self._connect()) as con:
                rows = con.execute("SELECT kind, expr, status, value, timeout FROM latex WHERE env=?", (self.env,))
                for kind, expr, status, value, timeout in rows:
                    out[(kind, expr)] = (Canon(status, value), timeout or 0.0)
        except sqlite3.Error:
            return {}
        return out

    def add(self, kind: str, expr: str, canon: Canon, timeout: float) -> None:
        with self._lock:
            self._new.append((kind, expr, canon.status, canon.value, timeout))

    def flush(self) -> None:
        with self._lock:
            rows, self._new = self._new, []
        if not rows:
            return
        try:
            with contextlib.closing(self._connect()) as con, con:
                con.executemany(
                    "INSERT OR REPLACE INTO latex VALUES (?,?,?,?,?,?)",
                    [(self.env, k, e, s, v, t) for k, e, s, v, t in rows],
                )
        except sqlite3.Error:
            pass


class LatexCanonicalizer:
    """Memoised, sandboxed, optionally persistent ``parse_latex`` + ``simplify``."""

    def __init__(
        self,
        *,
        workers: int | None = None,
        timeout: float = 5.0,
        cache_dir: str | Path | None = None,
        persistent: bool = True,
        memory_limit_mb: int | None = 4096,
        warm_up: bool = False,
        seeds: Sequence[str | Path] = (),
    ) -> None:
        self.timeout = timeout
        #: seed files of canonical forms (:func:`seed_rows`), read before the caches
        self.seeds = tuple(str(p) for p in seeds)
        self.warm_up = warm_up
        self._workers = workers
        self._memory_limit_mb = memory_limit_mb
        self._pool: SandboxPool | None = None
        self._memo: dict[tuple[str, str], Future[Canon]] = {}
        self._lock = threading.RLock()
        self._disk: _DiskCache | None = None
        self._disk_rows: dict[tuple[str, str], tuple[Canon, float]] | None = None
        if persistent:
            base = Path(cache_dir) if cache_dir is not None else default_cache_dir()
            self._disk = _DiskCache(disk_cache_path(base), environment_key())
        self.stats: Counter[str] = Counter()
        self.failures: dict[str, Canon] = {}

    # -- public -------------------------------------------------------------------------------------
    def submit(self, expr: str, deadline: float | None = None, group: object = None) -> Future[Canon]:
        """``deadline`` (``time.monotonic()``): the verdict's overall budget; past it the result is
        ``Canon("budget", ...)`` (neither cached nor remembered, so a later verdict may compute it).
        ``group``: the verdict the string belongs to (see :meth:`SandboxPool.submit`: verdicts take turns)."""
        return self._submit("canon", expr, canonicalize, (expr, self.seeds), deadline, group)

    def get(self, expr: str) -> Canon:
        return self.submit(expr).result()

    def prefetch(self, exprs: Iterable[str]) -> None:
        for e in exprs:
            self.submit(e)

    def submit_equiv(self, a: str, b: str, deadline: float | None = None, group: object = None) -> Future[Canon]:
        """``Canon('ok', '1'|'0')``: whether ``simplify(a - b) == 0``."""
        return self._submit("equiv", f"{a}\x00{b}", equivalent, (a, b), deadline, group)

    def start(self) -> None:
        """Start the worker pool ahead of the first uncached string (overlaps its start-up with other work)."""
        self._get_pool().start()

    def flush(self) -> None:
        if self._disk is not None:
            self._disk.flush()

    def close(self) -> None:
        self.flush()
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown()

    def __enter__(self) -> LatexCanonicalizer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------------------
    def _get_pool(self) -> SandboxPool:
        with self._lock:
            if self._pool is None:
                problem = runtime_problem()
                if problem is not None:
                    raise LatexRuntimeError(problem)
                self._pool = SandboxPool(
                    self._workers,
                    preload=PRELOAD,
                    memory_limit_mb=self._memory_limit_mb,
                    default_timeout=self.timeout,
                    warmup=(DEFER_UNITS, *((f"{__name__}:warm_up",) if self.warm_up else ())),
                    shared_imports=True,  # SymPy imported once, by the zygote the workers are forked from
                )
            return self._pool

    def _from_disk(self, key: tuple[str, str]) -> Canon | None:
        seeded = seed_rows(self.seeds).get(key) if self.seeds else None
        if seeded is not None:
            return seeded
        if self._disk is None:
            return None
        if self._disk_rows is None:
            self._disk_rows = self._disk.load()
        hit = self._disk_rows.get(key)
        if hit is None:
            return None
        canon, timeout = hit
        if canon.status in ("timeout", "crash") and timeout < self.timeout:
            return None  # a more generous limit may succeed now
        return canon

    def _submit(self, kind: str, key_expr: str, fn: Any, args: tuple[Any, ...],
                deadline: float | None = None, group: object = None) -> Future[Canon]:
        key = (kind, key_expr)
        with self._lock:
            fut = self._memo.get(key)
            if fut is not None:
                self.stats["memory_hits"] += 1
                return fut
            cached = self._from_disk(key)
            if cached is not None:
                self.stats["disk_hits"] += 1
                fut = Future()
                fut.set_result(cached)
                self._memo[key] = fut
                self._note(kind, key_expr, cached)
                return fut
            self.stats["computed"] += 1
            fut = Future()
            try:
                pool = self._get_pool()
            except LatexRuntimeError:
                self.stats["computed"] -= 1
                raise  # no verdict at all rather than one that silently fell back
            self._memo[key] = fut
            try:
                raw = pool.submit(fn, *args, timeout=self.timeout, deadline=deadline, group=group)
            except Exception as e:  # noqa: BLE001 - a broken pool is a failed comparison, not a crash
                raw = Future()
                raw.set_exception(WorkerCrashed(f"sandbox unavailable: {e}"))
        raw.add_done_callback(lambda r: self._finish(kind, key_expr, r, fut))
        return fut

    def _finish(self, kind: str, key_expr: str, raw: Future[Any], fut: Future[Canon]) -> None:
        try:
            status, value = raw.result()
            canon = Canon(status, value)
        except BudgetExhausted as e:  # says nothing about the string: forget it, cache nothing
            canon = Canon("budget", str(e))
            with self._lock:
                if self._memo.get((kind, key_expr)) is fut:
                    del self._memo[(kind, key_expr)]
                self.stats[f"{kind}_budget"] += 1
            fut.set_result(canon)
            return
        except SandboxTimeout:
            canon = Canon("timeout", f"timed out after {self.timeout}s")
        except WorkerCrashed as e:
            canon = Canon("crash", str(e))
        except RemoteError as e:
            canon = Canon("error", str(e)[:500])
        except Exception as e:  # noqa: BLE001 - pool shut down etc.
            canon = Canon("crash", repr(e))
        if self._disk is not None:
            self._disk.add(kind, key_expr, canon, self.timeout)
        with self._lock:
            self._note(kind, key_expr, canon)
        fut.set_result(canon)

    def _note(self, kind: str, key_expr: str, canon: Canon) -> None:
        if not canon.ok:
            self.stats[f"{kind}_{canon.status}"] += 1
            if kind == "canon":
                self.failures[key_expr] = canon


_DEFAULT: LatexCanonicalizer | None = None
_DEFAULT_LOCK = threading.Lock()


def default_canonicalizer(seed: str | Path | None = None) -> LatexCanonicalizer:
    """Process-wide instance (persistent cache on unless ``REASONEVAL_LATEX_CACHE=0``); ``seed``: a seed file
    (:func:`seed_rows`) it reads too from now on."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            persistent = os.environ.get("REASONEVAL_LATEX_CACHE", "1") != "0"
            _DEFAULT = LatexCanonicalizer(persistent=persistent)
            atexit.register(_DEFAULT.close)
        if seed is not None and str(seed) not in _DEFAULT.seeds:
            _DEFAULT.seeds = (*_DEFAULT.seeds, str(seed))
        return _DEFAULT
