"""Table kinds a benchmark declares for itself (``TableKind(name, like=...)``) and lazily imported hooks.

Renderers dispatch on ``kind.like``: a benchmark's kind like a leaderboard is ranked (incomplete runs last) and
judged for completeness, one like a breakdown goes to the ``rules`` group; a kind is one object per name, also
after a pickle round trip (report workers, Ray)."""

from __future__ import annotations

import pickle
import sys

import pytest

from reasoneval.core.benchmark import ScoredRow, Table, TableKind, hook
from reasoneval.core.number_format import Missing
from reasoneval.report.assemble import assemble
from reasoneval.report.collect import RunView
from reasoneval.report.completeness import completeness

RANKED = TableKind("test-ranked", like=TableKind.LEADERBOARD)
PER_TAG = TableKind("test-per-tag", like=TableKind.BREAKDOWN)
OWN = TableKind("test-own")


def test_a_kind_is_one_object_per_name_and_survives_pickling() -> None:
    assert TableKind("test-ranked") is RANKED and RANKED.like is TableKind.LEADERBOARD
    assert TableKind("test-ranked", like=TableKind.LEADERBOARD) is RANKED
    assert OWN.like is OWN and TableKind.GENERIC.like is TableKind.GENERIC
    assert RANKED == "test-ranked" and str(RANKED) == "test-ranked" and repr(RANKED) == "TableKind('test-ranked')"
    for kind in (RANKED, PER_TAG, OWN, TableKind.LEADERBOARD):
        assert pickle.loads(pickle.dumps(kind)) is kind
    t = pickle.loads(pickle.dumps(Table("t", ["a"], [[1]], kind=RANKED)))
    assert t.kind is RANKED and t.to_json()["kind"] == "test-ranked"
    with pytest.raises(ValueError, match="declared like"):
        TableKind("test-ranked", like=TableKind.BREAKDOWN)
    # a kind like another benchmark kind is like that one's generic kind
    assert TableKind("test-ranked-too", like=RANKED).like is TableKind.LEADERBOARD


def _view(run_id: str, table: Table) -> RunView:
    return RunView({"run_id": run_id, "model": run_id, "benchmark": "nobench", "mode": "zero-shot", "spec": {}},
                   list[ScoredRow](), [table], {})


def test_renderers_treat_a_declared_kind_as_the_generic_kind_it_is_like() -> None:
    cols = ["Overall", "a", "b"]
    full = _view("full", Table("t", cols, [[40.0, 40.0, 40.0]], kind=RANKED))
    part = _view("part", Table("t", cols, [[Missing("b was not run"), 90.0, Missing("not run")]], kind=RANKED))
    best = _view("best", Table("t", cols, [[60.0, 60.0, 60.0]], kind=RANKED))
    assert completeness(part) == (False, "b was not run") and completeness(full) == (True, "")
    assert completeness(_view("own", Table("t", cols, part.tables[0].rows, kind=OWN))) == (True, "")
    rep = assemble([full, part, best])
    ranked = next(rt for rt in rep.tables if rt.table.title == "t")
    assert [rep.views[i].run["run_id"] for i in ranked.runs if i is not None] == ["best", "full", "part"]
    assert ranked.group == "main"
    tags = assemble([_view("x", Table("per tag", ["tag", "n"], [["a", 1]], kind=PER_TAG))])
    assert [rt.group for rt in tags.tables if rt.table.title == "per tag"] == ["rules"]


def test_a_hook_imports_its_module_on_first_call_only() -> None:
    class Lazy:
        dumps = hook("json:dumps")
        nothing = hook("reasoneval_no_such_module_here")

    sys.modules.pop("colorsys", None)

    class Later:
        convert = hook("colorsys:rgb_to_hsv")

    assert "colorsys" not in sys.modules  # declaring imports nothing
    assert Later().convert(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0) and "colorsys" in sys.modules
    assert Lazy().dumps([1]) == "[1]"  # called with the hook's arguments, no self
    with pytest.raises(ModuleNotFoundError):
        Lazy().nothing()
    assert repr(Lazy.dumps) == "hook('json:dumps')"
