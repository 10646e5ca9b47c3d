"""Which files of a dataset repository make up one config.

First the dataset card's YAML ``configs:`` section (``config_name`` + ``data_files``, the way the Hub and
``datasets`` define configs); without one, data files whose folder or name is the config's name (the layout
``push_to_hub`` writes: ``<config>/<split>-00000-of-00001.parquet``); for a single ``default`` config, every
data file.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from typing import Any

import yaml

DATA_SUFFIXES = (".parquet", ".jsonl", ".json")
_SKIP = {"dataset_info.json", "dataset_infos.json", "state.json", "dataset_dict.json"}


def is_data_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    hidden = any(part.startswith(".") for part in path.split("/"))
    return not hidden and name not in _SKIP and name.lower().endswith(DATA_SUFFIXES)


def card_configs(readme: str | None, split: str | None = None) -> dict[str, list[str]]:
    """``config_name -> data_files patterns`` from a dataset card's YAML header (empty when absent); with
    ``split``, only that split's patterns."""
    if not readme or not readme.startswith("---"):
        return {}
    end = readme.find("\n---", 3)
    if end < 0:
        return {}
    try:
        meta = yaml.safe_load(readme[3:end])
    except yaml.YAMLError:
        return {}
    out: dict[str, list[str]] = {}
    configs = meta.get("configs") if isinstance(meta, dict) else None
    for c in configs if isinstance(configs, list) else []:
        if not isinstance(c, dict) or "config_name" not in c:
            continue
        out[str(c["config_name"])] = _patterns(c.get("data_files"), split)
    return out


def _patterns(data_files: Any, split: str | None = None) -> list[str]:
    if isinstance(data_files, str):
        return [data_files]
    pats: list[str] = []
    for entry in data_files if isinstance(data_files, list) else []:
        if isinstance(entry, str):
            pats.append(entry)
        elif isinstance(entry, dict) and (split is None or entry.get("split") == split):
            p = entry.get("path")
            pats.extend([p] if isinstance(p, str) else [x for x in p or [] if isinstance(x, str)])
    return pats


def _matches(path: str, pattern: str) -> bool:
    # HF patterns are fsspec globs: "**" crosses folders, "*" does not; fnmatch's "*" crosses "/" anyway,
    # which only matters for oddly nested repos.
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, pattern.replace("**/", ""))


def _named(path: str, config: str) -> bool:
    parts = path.split("/")
    stem = re.sub(r"(-\d{5}-of-\d{5})?\.(parquet|jsonl|json)$", "", parts[-1])
    names = [*parts[:-1], stem]
    return any(n == config or n.startswith(config + "-") or n.endswith("-" + config) or n.endswith("_" + config)
               for n in names) or stem.split("-")[0] == config


def _of_split(path: str, split: str | None) -> bool:
    """Whether a file belongs to ``split`` by its name (``test-00000-of-00001.parquet``, ``test.jsonl``)."""
    if split is None:
        return True
    stem = re.sub(r"(-\d{5}-of-\d{5})?\.(parquet|jsonl|json)$", "", path.split("/")[-1])
    return stem == split or stem.startswith(split + "-") or stem.endswith(("-" + split, "_" + split))


def config_files(paths: Iterable[str], config: str, readme: str | None = None,
                 split: str | None = None) -> list[str]:
    """The data files of ``config`` (of its ``split`` only, when given) among the repo's ``paths`` (sorted);
    empty when none match."""
    data = sorted(p for p in paths if is_data_file(p))
    pats = card_configs(readme, split).get(config)
    if pats:
        return [p for p in data if any(_matches(p, pat) for pat in pats)]
    data = [p for p in data if _of_split(p, split)]
    named = [p for p in data if _named(p, config)]
    if named or config != "default":
        return named
    return data
