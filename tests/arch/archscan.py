"""Static views of ``src/reasoneval`` built with ``ast``: the module import graph and benchmark names in code."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import reasoneval

ROOT = Path(reasoneval.__file__).parent
PACKAGE = "reasoneval"


def modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``)."""
    out: dict[str, tuple[Path, bool]] = {}
    for f in sorted(ROOT.rglob("*.py")):
        parts = [PACKAGE, *f.relative_to(ROOT).with_suffix("").parts]
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (f, is_pkg)
    return out


def _imports(name: str, path: Path, is_pkg: bool, known: dict[str, tuple[Path, bool]]) -> set[str]:
    """The project modules ``name`` imports, at module level or inside functions (relative ones resolved)."""
    pkg = name.split(".") if is_pkg else name.split(".")[:-1]
    raw: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            raw.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = pkg[: len(pkg) - node.level + 1] if node.level else []
            mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
            for a in node.names:
                raw.add(f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod)
    out: set[str] = set()
    for mod in raw:
        if mod != PACKAGE and not mod.startswith(PACKAGE + "."):
            continue
        while mod not in known and "." in mod:
            mod = mod.rsplit(".", 1)[0]
        if mod in known and mod != name:
            out.add(mod)
    return out


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: _imports(name, f, is_pkg, known) for name, (f, is_pkg) in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp: set[str] = set()
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.add(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(comp)
    return found


@dataclass(frozen=True)
class Shipped:
    names: frozenset[str]       # registry names: korbench, math, ...
    packages: frozenset[str]    # their folders under benchmarks/: korbench, hendrycks_math, ...
    classes: frozenset[str]     # their classes: KorBench, HendrycksMath, ...


def shipped() -> Shipped:
    """The benchmarks this distribution declares, read from its entry points."""
    eps = [ep for ep in entry_points(group="reasoneval.benchmarks") if ep.value.startswith(PACKAGE + ".benchmarks.")]
    return Shipped(frozenset(ep.name for ep in eps),
                   frozenset(ep.value.split(":")[0].split(".")[2] for ep in eps),
                   frozenset(ep.value.split(":")[1] for ep in eps))


#: the shipped benchmarks' display names (as their descriptions begin) that are no ordinary word; matched
#: case-insensitively with or without a hyphen, space or underscore between their parts (``KOR-Bench``, ``kor bench``,
#: ``KORBench``, ``kor_bench``); the transfer benchmarks' display names (GSM8K, MATH, MMLU) are their registry names
DISPLAY_NAMES = ("KOR-Bench", "R-Bench", "FineReason", "General365")


def display_name_pattern(names: tuple[str, ...] = DISPLAY_NAMES) -> re.Pattern[str]:
    """One regex for ``names``: each split into its parts (at hyphens, spaces, lower-to-upper and letter-to-digit
    changes), the parts joined by an optional separator, not preceded by a letter or digit."""
    alts = []
    for n in names:
        parts = re.findall(r"[A-Z]+[a-z]*|[a-z]+|[0-9]+", n)
        alts.append(r"[-\s_]?".join(re.escape(x.lower()) for x in parts))
    return re.compile(rf"(?<![a-z0-9])(?:{'|'.join(alts)})", re.IGNORECASE)


DISPLAY = display_name_pattern()


# names that are also ordinary words or standard modules (``import math``) count only as a whole string literal
# ("math", "math:algebra") or as an import of the benchmark's package
_COMMON_WORDS = frozenset({"math"})


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _identifiers(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.alias):
        return [node.name, node.asname or ""]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    if isinstance(node, ast.keyword):
        return [node.arg or ""]
    return []


def benchmark_mentions(source: str, ship: Shipped, help_docstrings: bool = False) -> list[tuple[int, str]]:
    """(line, what) for each place the code names a shipped benchmark: its registry name, package or class, or
    its display name (:data:`DISPLAY_NAMES`), in an identifier or a string. Comments never count (a comment may
    cite a paper's layout); docstrings count only when ``help_docstrings`` (the CLI's, which are help texts)."""
    words = {n for n in ship.names | ship.packages if n not in _COMMON_WORDS}
    common = ship.names & _COMMON_WORDS
    tree = ast.parse(source)
    docs = set() if help_docstrings else _docstrings(tree)
    hits: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            low = node.value.lower()
            if any(w in low for w in words) or any(low == c or low.startswith(c + ":") for c in common) \
                    or DISPLAY.search(node.value):
                hits.append((line, f"string {node.value[:50]!r}"))
        for ident in _identifiers(node):
            low = ident.lower()
            if any(w in low for w in words) or ident in ship.classes \
                    or any(f"benchmarks.{p}" in low for p in ship.packages) or DISPLAY.search(ident):
                hits.append((line, f"name {ident!r}"))
    return hits


def outside_benchmarks() -> Iterator[tuple[str, Path]]:
    for name, (path, _) in modules().items():
        if not name.startswith(f"{PACKAGE}.benchmarks.") and name != f"{PACKAGE}.benchmarks":
            yield name, path
