"""No benchmark imports another benchmark's modules (absolute or relative imports, anywhere in the file)."""

from __future__ import annotations

import ast
from pathlib import Path

import reasoneval.benchmarks

ROOT = Path(reasoneval.benchmarks.__file__).parent


def _imported(path: Path) -> set[str]:
    """Dotted module names a file imports, relative imports resolved against its package."""
    pkg = ["reasoneval", "benchmarks", *path.relative_to(ROOT).parent.parts]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = pkg[: len(pkg) - node.level + 1] if node.level else []
            mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def test_no_benchmark_imports_another() -> None:
    names = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert {"korbench", "finereason", "rbench", "general365"} <= set(names)
    bad = []
    for name in names:
        for f in sorted((ROOT / name).rglob("*.py")):
            for mod in _imported(f):
                parts = mod.split(".")
                if parts[:2] == ["reasoneval", "benchmarks"] and len(parts) > 2 and parts[2] in names \
                        and parts[2] != name:
                    bad.append(f"{f.relative_to(ROOT)} imports {mod}")
    assert bad == []
