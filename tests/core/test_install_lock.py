"""What CI tests is what a user installs: pyproject pins, the lock file and this environment agree."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock() -> dict[str, str]:
    out = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            out[_norm(name)] = version
    return out


def _requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs.extend(extra)
    return reqs


def test_every_pyproject_pin_matches_the_lock() -> None:
    lock = _lock()
    for req in _requirements():
        m = re.match(r"^([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*(.*)$", req)
        assert m, req
        name, spec = _norm(m.group(1)), m.group(3).split(";", 1)[0].strip()  # less its marker (uvloop: not Windows)
        if name in ("vllm", "transformers"):  # extras CI does not install (GPU / model downloads)
            continue
        assert name in lock, f"{name} is required by pyproject.toml but missing from constraints.txt"
        if spec.startswith("=="):
            assert spec[2:] == lock[name], f"{name}: pyproject pins {spec}, constraints.txt {lock[name]}"


def test_native_and_fidelity_dependencies_are_exact_pins() -> None:
    pinned = {_norm(re.split(r"[\[=<>!~ ]", r, maxsplit=1)[0]) for r in _requirements() if "==" in r}
    for name in ("llama-cpp-python", "antlr4-python3-runtime", "sympy", "math-verify", "aiohttp"):
        assert name in pinned, f"{name} must be pinned exactly in pyproject.toml"


def test_this_environment_is_the_lock() -> None:
    lock = _lock()
    drift = []
    for dist in metadata.distributions():
        name = _norm(dist.metadata["Name"])
        if name in lock and dist.version.split("+")[0] != lock[name]:
            drift.append(f"{name} {dist.version} (lock: {lock[name]})")
    assert not drift, "installed versions differ from constraints.txt: " + ", ".join(drift)
