"""Token totals turned into money from a price table the user supplies (``reasoneval report --prices FILE``).

The file (YAML, or JSON for a ``.json`` name) maps a model to its prices in currency units per 1M tokens::

    gpt-4o: {input: 2.50, output: 10.00}
    "openai/o3-mini": {input: 1.10, output: 4.40, reasoning: 4.40}

A run finds its price by its display label, then its model string, then the model string without the
``@endpoint``, then without the provider prefix (``openai/``). ``reasoning`` prices the reasoning tokens a
server reports (they are part of the output tokens; without a ``reasoning`` price they cost the output price).
A call whose usage the server did not report makes the run's cost unknown (shown empty, with a note), never 0.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.benchmark import Table
from .collect import RunView
from .labels import mode_label

PRICE_KEYS = ("input", "output", "reasoning")


class PriceError(ValueError):
    """A price file that cannot be used: one line naming the file and the entry."""


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    reasoning: float | None = None


def load_prices(path: Path) -> dict[str, Price]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PriceError(f"cannot read the price file {path}: {getattr(e, 'strerror', None) or e}") from None
    try:
        if path.suffix.lower() == ".json":
            doc = json.loads(text)
        else:
            import yaml

            doc = yaml.safe_load(text)
    except Exception as e:  # noqa: BLE001 - JSON and YAML parse errors: one line naming the line
        mark = getattr(e, "problem_mark", None)
        line = getattr(e, "lineno", None) or (mark.line + 1 if mark is not None else None)
        kind = "JSON" if path.suffix.lower() == ".json" else "YAML"
        raise PriceError(f"{path}: not valid {kind}" + (f" (line {line})" if line else "")) from None
    if not isinstance(doc, dict) or not doc:
        raise PriceError(f"{path}: expected a mapping of model -> {{input, output[, reasoning]}} per 1M tokens")
    out: dict[str, Price] = {}
    for model, entry in doc.items():
        if not isinstance(entry, dict):
            raise PriceError(f"{path}: entry {str(model)!r}: expected {{input: ..., output: ...}}, got {entry!r}")
        unknown = sorted(set(map(str, entry)) - set(PRICE_KEYS))
        if unknown:
            raise PriceError(f"{path}: entry {str(model)!r}: unknown key(s) {', '.join(unknown)} "
                             f"(known: {', '.join(PRICE_KEYS)})")
        vals: dict[str, float | None] = {}
        for k in PRICE_KEYS:
            v = entry.get(k)
            if v is None and k != "reasoning":
                raise PriceError(f"{path}: entry {str(model)!r}: missing {k!r} (price per 1M tokens)")
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v)
                                  or v < 0):
                raise PriceError(f"{path}: entry {str(model)!r}: {k!r} must be a number >= 0, got {v!r}")
            vals[k] = None if v is None else float(v)
        out[str(model)] = Price(vals["input"] or 0.0, vals["output"] or 0.0, vals["reasoning"])
    return out


def price_for(prices: dict[str, Price], label: str, model: str) -> Price | None:
    bare = model.split("@", 1)[0]
    for name in (label, model, bare, bare.split("/", 1)[-1]):
        if name in prices:
            return prices[name]
    return None


@dataclass
class RunCost:
    items: int
    calls: int
    unreported: int  # calls without usage
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cost: float | None  # None: unknown (no price, or usage missing)

    @property
    def per_1000_items(self) -> float | None:
        return None if self.cost is None or not self.items else self.cost * 1000 / self.items


def run_cost(v: RunView, price: Price | None) -> RunCost:
    calls = unreported = pt = ct = rt = 0
    for r in v.rows:
        for t in r.turns:
            calls += 1
            c = t.completion
            usage = getattr(c, "usage", None)
            if usage is None:
                unreported += 1
                continue
            pt += int(usage.prompt_tokens or 0)
            ct += int(usage.completion_tokens or 0)
            rt += int(c.reasoning_tokens or 0)
    cost = None
    if price is not None and not unreported:
        reasoning = price.reasoning if price.reasoning is not None else price.output
        cost = (pt * price.input + (ct - rt) * price.output + rt * reasoning) / 1e6
    items = len({r.item_key for r in v.rows})
    return RunCost(items, calls, unreported, pt, ct, rt, cost)


def cost_table(views: list[RunView], labels: list[str], prices: dict[str, Price]) -> Table:
    rows: list[list[Any]] = []
    notes = ["Cost from the price file, per 1M tokens: input tokens x input price + (output - reasoning tokens) x "
             "output price + reasoning tokens x reasoning price (output price when none is given). Answer calls "
             "only (judge calls not included); n counts items."]
    for v, lab in zip(views, labels, strict=True):
        model = str(v.run.get("model", ""))
        price = price_for(prices, lab, model)
        rc = run_cost(v, price)
        rows.append([lab, mode_label(v.run), rc.items, rc.input_tokens, rc.output_tokens, rc.reasoning_tokens,
                     None if rc.cost is None else round(rc.cost, 4),
                     None if rc.per_1000_items is None else round(rc.per_1000_items, 4)])
        if price is None:
            notes.append(f"{lab}: no price for {lab!r} or {model!r} in the price file: cost unknown.")
        elif rc.unreported:
            notes.append(f"{lab}: {rc.unreported} of {rc.calls} calls have no usage reported by the server: "
                         "tokens and cost unknown (the token columns count the reported calls only).")
    return Table("Cost", ["model", "mode", "n", "input tokens", "output tokens", "reasoning tokens", "cost",
                          "cost per 1,000 items"], rows, notes)
