"""Items of a single-split Hub release (the transfer benchmarks: GSM8K, MATH, MMLU): the test files of a local
``--data`` copy or of the pinned release, read into items whose keys must be unique."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from ..core.benchmark import Benchmark, OutsideRow
from ..core.errors import DataError
from ..core.records import Record, configured, data_files, data_path, folder_version, read_records
from ..core.response import cut_off
from ..core.values import GenParams, Item, Verdict
from .releases import ReleaseSpec


def split_files(option: str | None, name: str, config: str, revision: str | None, label: str,
                layout_help: str) -> list[Path]:
    """A local copy's ``test*`` files (all its files when it has none, or when it is a single file), else the
    pinned release's files."""
    if configured(option):
        root = data_path(str(option), label, layout_help, name)
        files = data_files(root)
        tests = [p for p in files if p.name.lower().startswith("test")]
        files = tests if root.is_dir() and tests else files
    else:
        from .fetch import resolve_release

        files = list(resolve_release(name, config, revision=revision).paths)
    if not files:
        raise DataError(f"{option}: no data files.\n{layout_help}")
    return files


def unique_items(files: list[Path], to_item: Callable[[Record], Item], id_field: str) -> list[Item]:
    """Every record of ``files`` as an item, in file order; a repeated item key names both records."""
    items: list[Item] = []
    seen: dict[str, Record] = {}
    for f in files:
        for rec in read_records(f):
            it = to_item(rec)
            if it.key in seen:
                raise DataError(f"{rec.where(id_field)}: duplicate id {it.key!r} (first at {seen[it.key].where()})")
            seen[it.key] = rec
            items.append(it)
    return items


class SplitBenchmark(Benchmark):
    """A benchmark whose items are one Hub release's test split (or a local ``--data`` copy), read once per
    configuration: what GSM8K, MATH and MMLU share. A subclass names its release, its data label and layout help,
    its modes and prompt version, and reads its items (``read_items``)."""

    default_mode = "zero-shot-cot"
    default_params = GenParams(max_tokens=1024, temperature=0.0)
    release: ClassVar[ReleaseSpec]
    data_label: ClassVar[str]  # as errors name the data ("GSM8K")
    layout_help: ClassVar[str]
    mode_names: ClassVar[tuple[str, ...]]
    prompt_tag: ClassVar[str]  # the prompt version, before ":mode"

    def __init__(self) -> None:
        self._items: list[Item] | None = None

    def options_changed(self) -> None:
        self._items = None

    @property
    def revision(self) -> str | None:
        rev = getattr(self.options, "revision", None)
        return str(rev) if rev else None

    @abstractmethod
    def read_items(self, data: str | None, revision: str | None) -> list[Item]:
        """Every item of the release (or the local copy), in file order."""

    @abstractmethod
    def record_item(self, rec: Record, index: int) -> Item:
        """One release row as an item (``index``: its row in its file, from 0), as ``read_items`` reads it."""

    @property
    def scoring(self) -> str:
        """The ``scoring`` option: ``official`` (the reference code's reading) or ``corrected``."""
        return str(getattr(self.options, "scoring", "official"))

    # -- completions made elsewhere (``reasoneval rescore NAME FILE``) --------------------------------
    def outside_rows(self, paths: list[str], options: Mapping[str, Any]) -> Iterator[OutsideRow | DataError]:
        """Rows in the release's own format plus ``response`` (and optionally ``finish_reason``)."""
        from .split_outside import outside_rows

        return outside_rows(paths, self.default_mode, self.record_item)

    def outside_json(self, row: OutsideRow, verdict: Verdict) -> dict[str, Any]:
        """One object per row, in input order: ``correct`` as the scoring reads it (a cut-off output flagged
        with ``cut_off``, never turned into a verdict by official scoring)."""
        return {"where": row.where, "id": row.item.id, "correct": verdict.correct, "extracted": verdict.extracted,
                "method": str(verdict.method), "cut_off": cut_off(row.completion.text, row.completion.finish_reason)}

    def _all(self) -> list[Item]:
        if self._items is None:
            self._items = self.read_items(self.options.data, self.revision)
        return self._items

    def modes(self) -> list[str]:
        return list(self.mode_names)

    def data_version(self) -> str:
        if not configured(self.options.data):
            from .fetch import data_version

            return data_version(self.release.benchmark, revision=self.revision)
        try:
            root = data_path(self.options.data, self.data_label, self.layout_help, self.name)
        except DataError:
            return "unconfigured"
        return folder_version(str(root.resolve()))

    def prompt_version(self, mode: str) -> str:
        return f"{self.prompt_tag}:{mode}"

    def releases(self) -> dict[str, ReleaseSpec]:
        return {self.release.benchmark: self.release}
