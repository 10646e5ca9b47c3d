"""R-Bench (Guo et al., 2025): graduate-level single-choice reasoning, text (T) and multimodal (M), en/zh.

Data: the pinned Hub release (``-O revision=REV`` for another) or ``reasoneval run rbench --data PATH``, see
``data.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from reasoneval.hub.releases import ReleaseSpec

from ...core.benchmark import Benchmark, OutsideRow, ScoredRow, Table, hook
from ...core.records import DataError, Record, configured, data_files, data_path, folder_version, read_records
from ...core.registry import register
from ...core.values import Completion, GenParams, Item, Outcome, Prompt, Verdict
from ...core.verdicts import Method
from . import analysis
from .data import SUBSETS, load_subset, normalize_subset, record_to_item, subset_from_name
from .extraction import extract_letter
from .options import RBenchOptions
from .prompts import MODES, PROMPT_VERSION, build_prompt
from .settings import SETTINGS


def _meta(item: Item) -> dict[str, Any]:
    m = item.data["_rbench"]
    return {"department": m.get("department"), "subject": m.get("subject")}


@register("rbench")
class RBench(Benchmark):
    name = "rbench"
    settings = SETTINGS
    description = "R-Bench: graduate-level multi-disciplinary single-choice reasoning (T/M, en/zh)"
    default_mode = "cot"
    default_params = GenParams(max_tokens=8192, temperature=0.0)

    Options = RBenchOptions

    @property
    def data_path(self) -> str | None:
        """The ``data`` option (``--data``): dataset root."""
        return self.options.data

    @property
    def revision(self) -> str | None:
        """The ``revision`` option: the Hub release's revision (None: the pinned one)."""
        o = self.options
        return o.revision if isinstance(o, RBenchOptions) else None

    def subsets(self) -> list[str]:
        return list(SUBSETS)

    def modes(self) -> list[str]:
        return list(MODES)

    def load(self, subset: str, mode: str) -> list[Item]:
        return load_subset(subset, self.data_path, self.revision)

    def stratum(self, item: Item, mode: str) -> str:
        """``--limit``: keep the shares of departments and of answer letters."""
        return f"{item.data['_rbench'].get('department') or ''}|{item.gold}"

    def prompt(self, item: Item, mode: str) -> Prompt:
        m = item.data["_rbench"]
        return build_prompt(m["question"], m["options"], m["lang"], mode, m.get("images") or None)

    def score(self, item: Item, text: str, mode: str) -> Verdict:
        letters = "".join(item.data["_rbench"]["options"])
        letter, how = extract_letter(text, letters)
        detail = {**_meta(item), "found_by": how}
        if letter is None:
            return Verdict(Outcome.UNANSWERABLE, None, Method.UNEXTRACTABLE, detail)
        outcome = Outcome.CORRECT if letter == item.gold else Outcome.INCORRECT
        return Verdict(outcome, letter, Method.RULE, detail)

    def data_version(self) -> str:
        if not configured(self.data_path):  # the Hub release: repo@commit (+ file sha256s once loaded)
            from ... import hub

            return hub.data_version("rbench", revision=self.revision)
        try:
            root = data_path(self.data_path, "R-Bench", "")
        except DataError:
            return "unconfigured"
        return folder_version(str(root.resolve()))

    def prompt_version(self, mode: str) -> str:
        return f"{PROMPT_VERSION}:{mode}"

    def _meta_index(self, subsets: set[str]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for sub in [s for s in SUBSETS if s in subsets]:
            try:
                items = load_subset(sub, self.data_path, self.revision)
            except ValueError:  # DataError, HubError: the table just lacks the breakdown
                continue
            out.update({it.key: _meta(it) for it in items})
        return out

    cli = hook(".commands:add_commands")
    paper_tables = hook(".paper_tables:rbench_tables")  # Tables 5-7 beside the paper

    def build_steps(self) -> None:
        from . import build_options, build_translate  # noqa: F401 - each registers its steps

    def releases(self) -> dict[str, ReleaseSpec]:
        from .release import RELEASE

        return {RELEASE.benchmark: RELEASE}

    def dataset_tables(self, data: str | None, outputs: Path | None) -> list[Table] | None:
        from ...report.dataset_stats import generic_tables
        from .dataset_stats import rbench_subject_tables

        return generic_tables(self.name, data, subject_tables=rbench_subject_tables)

    def summarize(self, rows: list[ScoredRow], mode: str) -> list[Table]:
        index: dict[str, dict[str, Any]] | None = None
        scored = []
        for r in rows:
            v = r.final.verdict
            meta = {k: (v.detail.get(k) if v else None) for k in ("department", "subject")}
            if v is None or "department" not in v.detail:
                if index is None:
                    index = self._meta_index({x.subset for x in rows})
                meta = index.get(r.item_key, meta)
            scored.append(analysis.Scored(r.subset, r.item_key.partition("/")[2], v, meta))
        return analysis.all_tables(scored, mode)

    def outside_rows(self, paths: list[str], options: Mapping[str, Any]) -> Iterator[OutsideRow | DataError]:
        """Rows: the release schema plus ``response`` (and optionally ``subset``, ``finish_reason``)."""
        mode = str(options.get("mode") or self.default_mode)
        if mode not in MODES:
            raise DataError(f"unknown mode {mode!r} for rbench; known: {', '.join(MODES)}")
        for rec in _rescore_records(paths):
            try:
                item = record_to_item(rec, _rescore_subset(rec), need_images=False)
                response = rec.data.get("response")
                if not isinstance(response, str):
                    raise DataError(f"{rec.where('response')} must be a string (the model's answer)")
            except DataError as e:
                yield e
                continue
            comp = Completion(text=response, finish_reason=rec.data.get("finish_reason"),
                              error=rec.data.get("error"))
            yield OutsideRow(item, mode, comp, rec.where())



def _rescore_records(paths: list[str]) -> list[Record]:
    out: list[Record] = []
    for p in paths:
        for f in data_files(Path(p)):
            out.extend(read_records(f))
    if not out:
        raise DataError(f"no rows found in {', '.join(paths)}")
    return out


def _rescore_subset(rec: Record) -> str:
    declared = rec.data.get("subset") or rec.data.get("config")
    if declared:
        return normalize_subset(str(declared))
    named = subset_from_name(rec.source)
    if named:
        return named
    lang = rec.data.get("language") or rec.data.get("lang")
    if lang in ("en", "zh"):
        has_image = any(k in rec.data for k in ("image", "images"))
        return f"{'m' if has_image else 't'}_{lang}"
    return "unknown"
