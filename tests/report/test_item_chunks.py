"""The item data's compression: ISA-L's deflate (when installed) and zlib's make the same gzip format, so the page
decodes them alike; the values come back unchanged either way."""

from __future__ import annotations

import base64
import gzip
import json

import pytest

from reasoneval.report import item_chunks as ic

DATA = {"turns": [[[3, "### Step 1:\n" + "é ∨ ▮ \udc80 " * 400 + '"</script>', "[[S]]", None, 1.5]] * 50],
        "strs": ["x" * 40, "\u2028"]}


@pytest.mark.parametrize("use_isal", [True, False])
def test_pack_round_trips_with_either_compressor(use_isal: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if use_isal:
        pytest.importorskip("isal")
    else:
        monkeypatch.setattr(ic, "_isal", None)
    for level in (1, 6):
        b64 = ic.pack(DATA, level)
        raw = gzip.decompress(base64.b64decode(b64))  # a gzip member, as DecompressionStream("gzip") reads it
        assert raw == ic.encode(DATA) and raw.isascii()
        assert ic.unpack(b64) == json.loads(json.dumps(DATA))
        assert len(b64) < len(raw) / 4  # really compressed


def test_isal_is_used_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    isal_zlib = pytest.importorskip("isal.isal_zlib")
    assert ic._isal is isal_zlib
    calls = []
    monkeypatch.setattr(ic, "_isal", type("Spy", (), {"compress": staticmethod(
        lambda raw, level, wbits: calls.append((level, wbits)) or isal_zlib.compress(raw, level, wbits=wbits))}))
    assert ic.unpack(ic.pack(DATA, 1)) == json.loads(json.dumps(DATA))
    ic.pack(DATA, 9)
    assert calls == [(1, 31), (3, 31)]  # gzip framing; zlib's higher levels become ISA-L's best
