"""New KOR-Bench mixed sets: the paper's shapes, seeded, and loadable by the KOR-Bench reader."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from reasoneval import cli
from reasoneval.benchmarks.korbench.build_mixed import draw
from reasoneval.benchmarks.korbench.data import DATA_DIR, KorData, default_data
from reasoneval.builder.rows import read_rows


def test_shapes_and_seed() -> None:
    data = default_data()
    for name, (r_lo, r_hi), (q_lo, q_hi) in (("Multi-Q", (1, 1), (1, 10)), ("Multi-R", (2, 3), (1, 1)),
                                             ("Multi-RQ", (2, 3), (1, 3))):
        rows = draw(name, 40, 5, data)
        assert rows == draw(name, 40, 5, data) and rows != draw(name, 40, 6, data)
        for r in rows:
            assert r_lo <= len(r["rule_list"]) <= r_hi and q_lo <= len(r["question_list"]) <= q_hi
            rules = set(r["rule_list"])
            cats = [x.rpartition("_")[0] for x in r["rule_list"]]
            assert len(set(cats)) == len(cats)
            for q in r["question_list"]:
                cat, _, idx = q.rpartition("_")
                assert f"{cat}_{data.question(cat, idx).rule_id}" in rules  # each question's rule is given
        assert len({(tuple(r["rule_list"]), tuple(r["question_list"])) for r in rows}) == 40


def test_cli_writes_a_set_the_reader_loads(tmp_path: Path) -> None:
    root = tmp_path / "kor"
    (root / "mixed").mkdir(parents=True)
    for entry in DATA_DIR.iterdir():
        if entry.name != "mixed":
            (root / entry.name).symlink_to(entry)
    out = root / "mixed" / "Multi-RQ.jsonl"
    r = CliRunner().invoke(cli.app, ["build", "kor-mixed", str(out), "--set", "Multi-RQ", "--n", "25", "--seed", "2"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    items = KorData(root).mixed("Multi-RQ")
    assert len(items) == 25 == len(read_rows(out))
