"""KOR-Bench accuracy per rule and per rule tag (the release's ``tag`` field of ``rule.jsonl``).

The paper reports only category totals; these breakdowns show which of the 125 rules carry a category's
score. Tags are comma-separated paths ("Formal Logic,Deductive Logic,Modal Logic"): a rule counts under each
of its tag's parts, so "Formal Logic" pools its 20 rules and "Modal Logic" its 5. Counterfactual rules have
no tag. An item's rule comes from its verdict (``detail["rule_id"]``), else from the release question.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from reasoneval.core.benchmark import Table, TableKind
from reasoneval.core.table import DeferredTable

from .data import CATEGORIES

NO_TAG = "(no tag)"


@dataclass(frozen=True)
class RuleResult:
    """One scored item: its category, rule id, and whether it is correct."""

    category: str
    rule_id: str
    correct: bool


@dataclass(frozen=True)
class RuleInfo:
    title: str = ""
    tag: str = ""


def _rule_order(rid: str) -> tuple[int, str]:
    return (int(rid), "") if rid.isdigit() else (10**9, rid)


def _cat_order(cat: str) -> tuple[int, str]:
    return (CATEGORIES.index(cat), "") if cat in CATEGORIES else (len(CATEGORIES), cat)


def tag_parts(tag: str) -> list[str]:
    """``"Formal Logic,Deductive Logic"`` -> ``["Formal Logic", "Deductive Logic"]``; ``""`` -> ``[NO_TAG]``."""
    parts = [p.strip() for p in tag.split(",") if p.strip()]
    return list(dict.fromkeys(parts)) or [NO_TAG]


def _pct(c: int, n: int) -> float:
    return round(100 * c / n, 2) if n else 0.0


RULE_COLUMNS = ["category", "rule", "title", "tag", "n", "correct", "accuracy"]
RULE_NOTES = ["Failed calls (API errors) are excluded; accuracy = correct / n of the rule's scored items."]
TAG_COLUMNS = ["category", "tag", "rules", "n", "correct", "accuracy", "worst rule", "best rule"]
TAG_NOTES = ["Tags are the release's rule.jsonl `tag` field, split at commas: a rule counts under every part of its "
             "tag (e.g. Logic's 'Formal Logic' pools propositional, predicate, modal and inductive rules). "
             "Counterfactual rules carry no tag. worst/best rule: accuracy of the weakest and strongest rule in the "
             "group."]


def per_rule_rows(results: Iterable[RuleResult], info: Callable[[str, str], RuleInfo]) -> list[list[Any]]:
    """The rows of :func:`per_rule_table`."""
    tally: dict[tuple[str, str], list[int]] = {}
    for r in results:
        t = tally.setdefault((r.category, r.rule_id), [0, 0])
        t[0] += int(r.correct)
        t[1] += 1
    rows: list[list[Any]] = []
    for (cat, rid), (c, n) in sorted(tally.items(), key=lambda kv: (_cat_order(kv[0][0]), _rule_order(kv[0][1]))):
        ri = info(cat, rid)
        rows.append([cat, rid, ri.title, ri.tag, n, c, _pct(c, n)])
    return rows


def per_rule_table(results: Iterable[RuleResult], info: Callable[[str, str], RuleInfo],
                   title: str = "KOR-Bench accuracy per rule") -> Table:
    """One row per (category, rule): title, tag, items, correct, accuracy."""
    return Table(title, list(RULE_COLUMNS), per_rule_rows(results, info), list(RULE_NOTES), TableKind.BREAKDOWN)


def per_tag_rows(results: Iterable[RuleResult], info: Callable[[str, str], RuleInfo]) -> list[list[Any]]:
    """The rows of :func:`per_tag_table`."""
    by_rule: dict[tuple[str, str], list[int]] = {}
    for r in results:
        t = by_rule.setdefault((r.category, r.rule_id), [0, 0])
        t[0] += int(r.correct)
        t[1] += 1
    groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
    order: dict[tuple[str, str], int] = {}
    for (cat, rid), cn in sorted(by_rule.items(), key=lambda kv: (_cat_order(kv[0][0]), _rule_order(kv[0][1]))):
        for part in tag_parts(info(cat, rid).tag):
            key = (cat, part)
            order.setdefault(key, len(order))
            groups.setdefault(key, []).append((cn[0], cn[1]))
    rows: list[list[Any]] = []
    for key in sorted(groups, key=lambda k: (_cat_order(k[0]), order[k])):
        cns = groups[key]
        c, n = sum(x for x, _ in cns), sum(y for _, y in cns)
        accs = [_pct(x, y) for x, y in cns]
        rows.append([key[0], key[1], len(cns), n, c, _pct(c, n), min(accs), max(accs)])
    return rows


def per_tag_table(results: Iterable[RuleResult], info: Callable[[str, str], RuleInfo],
                  title: str = "KOR-Bench accuracy per rule tag") -> Table:
    """One row per (category, tag part): number of rules, items, accuracy, and the spread over its rules."""
    return Table(title, list(TAG_COLUMNS), per_tag_rows(results, info), list(TAG_NOTES), TableKind.BREAKDOWN)


def breakdown_tables(results: Sequence[RuleResult], info: Callable[[str, str], RuleInfo],
                     mode: str = "") -> list[Table]:
    """Per-tag and per-rule tables, or none when no item has a known rule."""
    if not results:
        return []
    sfx = f" ({mode})" if mode else ""
    return [per_tag_table(results, info, f"KOR-Bench accuracy per rule tag{sfx}"),
            per_rule_table(results, info, f"KOR-Bench accuracy per rule{sfx}")]


def deferred_breakdown_tables(results: Callable[[], Sequence[RuleResult]], info: Callable[[str, str], RuleInfo],
                              mode: str = "") -> list[Table]:
    """:func:`breakdown_tables` whose rows are computed when first read (``results`` called once, for both): a
    report that leaves the per-rule tables out (``--tables main``, the default at many runs) never computes
    them. The caller knows some item has a rule (else there are no tables)."""
    got: list[Sequence[RuleResult]] = []

    def once() -> Sequence[RuleResult]:
        if not got:
            got.append(results())
        return got[0]

    sfx = f" ({mode})" if mode else ""
    return [DeferredTable(f"KOR-Bench accuracy per rule tag{sfx}", list(TAG_COLUMNS),
                          lambda: per_tag_rows(once(), info), list(TAG_NOTES), TableKind.BREAKDOWN),
            DeferredTable(f"KOR-Bench accuracy per rule{sfx}", list(RULE_COLUMNS),
                          lambda: per_rule_rows(once(), info), list(RULE_NOTES), TableKind.BREAKDOWN)]
