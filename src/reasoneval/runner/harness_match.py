"""What a harness log's sample says about itself: the prompt the harness sent, whether that prompt is the one the
benchmark builds (then the run is of our protocol; else it is labelled with its origin), and whether the sample is
the item it was mapped to (a wrong ``--as`` or task name is refused, naming the first sample that disagrees).

The mapping check reads the fields a harness copies from its dataset: answer-like ones (``answer``, ``target``,
``gold``, ``label``) are compared with the item's gold, question-like ones (``question``, ``problem``, ``query``,
``input``, ``prompt``) with the question-like fields of the item's record. Both are compared with whitespace
and case folded and surrounding brackets or quotes dropped; a gold found inside a longer answer (``... #### 18``)
agrees, and so does an answer index with a letter gold (``0`` and ``A``). A sample agrees when any comparison
agrees; it disagrees only when one was possible and none agrees. A log whose samples carry neither kind of field
cannot be checked: nothing is said. Nothing here names a benchmark.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, cast

from ..core.benchmark import Benchmark
from ..core.errors import DataError
from ..core.safetext import strip_controls
from ..core.values import Item, Message, Prompt, Role

ANSWER_FIELDS = ("answer", "target", "gold", "label")
QUESTION_FIELDS = ("question", "problem", "query", "input", "prompt")
_ROLES = ("system", "user", "assistant")
_EDGES = " \t\n[](){}<>\"'`.,:;"


def _content(c: Any) -> str | None:
    if isinstance(c, str):
        return c
    if isinstance(c, list):  # content parts: the text ones
        return "".join(str(p.get("text", "")) for p in c if isinstance(p, dict) and p.get("type") == "text")
    return None


def _messages(x: Any) -> Prompt | None:
    """A chat prompt from a list of ``{role, content}`` objects, or None when ``x`` is not one."""
    if not isinstance(x, list) or not x:
        return None
    out = []
    for m in x:
        if not isinstance(m, dict) or m.get("role") not in _ROLES:
            return None
        text = _content(m.get("content"))
        if text is None:
            return None
        out.append(Message(cast(Role, m["role"]), text))
    return Prompt(messages=tuple(out))


def _first_text(x: Any) -> str | None:
    while isinstance(x, list) and x:
        x = x[0]
    return x if isinstance(x, str) else None


def lmeval_prompt(arguments: Any) -> Prompt | None:
    """The prompt an lm-eval sample's ``arguments`` record: ``{"gen_args_0": {"arg_0": ...}}`` (0.4.x) or
    ``[[context, gen_kwargs]]`` (older); a chat request (``--apply_chat_template`` with an API model) is a JSON
    list of messages, anything else the raw text sent."""
    if isinstance(arguments, dict):
        first = arguments.get("gen_args_0")
        if not isinstance(first, dict):
            first = next((v for v in arguments.values() if isinstance(v, dict)), None)
        text = _first_text(first.get("arg_0")) if isinstance(first, dict) else None
    else:
        text = _first_text(arguments)
    if text is None:
        return None
    if text.lstrip().startswith("[{"):
        try:
            chat = _messages(json.loads(text))
        except ValueError:
            chat = None
        if chat is not None:
            return chat
    return Prompt.raw(text)


def inspect_prompt(sample_input: Any) -> Prompt | None:
    """The prompt of an inspect-ai sample's ``input``: a string (one user message) or a list of chat messages."""
    if isinstance(sample_input, str):
        return Prompt.chat(sample_input)
    return _messages(sample_input)


def protocol_of(bench: Benchmark, item: Item, mode: str, prompt: Prompt | None, origin: str) -> str:
    """``""`` when ``prompt`` is the one the benchmark builds for ``item`` (our protocol), else ``origin``."""
    if prompt is None:
        return origin
    try:
        ours = bench.prompt(item, mode)
    except Exception:  # noqa: BLE001  # a prompt we cannot build is not ours
        return origin
    return "" if ours.to_json() == prompt.to_json() else origin


# ---- the mapping check
def _norm(s: str) -> str:
    return " ".join(s.split()).casefold()


def _core(s: str) -> str:
    return _norm(s).strip(_EDGES)


def _values(x: Any) -> list[Any]:
    """The comparable values of a field: strings and numbers (a list's elements, and the list joined)."""
    if isinstance(x, bool) or x is None:
        return []
    if isinstance(x, (str, int, float)):
        return [x]
    if isinstance(x, (list, tuple)):
        flat = [v for v in x if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
        return [*flat, " ".join(map(str, flat))] if flat else []
    return []


def _letter(x: Any) -> str | None:
    return chr(ord("a") + x) if isinstance(x, int) and 0 <= x < 26 else None


def _gold_agrees(answers: list[Any], golds: list[Any]) -> bool:
    for a in answers:
        for g in golds:
            ca, cg = _core(str(a)), _core(str(g))
            if not ca or not cg:
                continue
            if ca == cg or _letter(a) == cg or _letter(g) == ca:
                return True
            if re.search(rf"(?<!\w){re.escape(cg)}(?!\w)", ca):  # the gold inside a worked answer
                return True
    return False


def _question_agrees(theirs: list[str], item_questions: list[str], ours: str) -> bool:
    for t in map(_norm, theirs):
        if not t:
            continue
        if any(q and q in t for q in item_questions):
            return True
        if len(t) >= 20 and t in ours:  # the log's question inside the prompt we build
            return True
    return False


def _short(x: Any) -> str:
    s = " ".join(strip_controls(str(x)).split())
    return repr(s if len(s) <= 80 else s[:77] + "...")


def check_mapping(bench: Benchmark, item: Item, mode: str, fields: Mapping[str, Any], prompt: Prompt | None,
                  where: str, target: str) -> None:
    """Raise a ``DataError`` naming the sample when its answer-like / question-like ``fields`` (the doc an lm-eval
    sample carries; an inspect-ai sample's ``target`` and ``input``) disagree with ``item``; ``target`` names how
    the sample was mapped (``--as ...`` or the task name)."""
    answers = {k: fields[k] for k in ANSWER_FIELDS if _values(fields.get(k))}
    questions = {k: fields[k] for k in QUESTION_FIELDS if _values(fields.get(k))}
    golds = _values(item.gold)
    item_raw = [v for k in QUESTION_FIELDS for v in _values(item.data.get(k)) if isinstance(v, str) and v.strip()]
    item_qs = [_norm(v) for v in item_raw]
    gold_check = bool(answers and golds)
    question_check = bool(questions and item_qs)
    if not gold_check and not question_check:
        return
    if gold_check and _gold_agrees([v for x in answers.values() for v in _values(x)], golds):
        return
    theirs = [str(v) for x in questions.values() for v in _values(x)]
    if prompt is not None:
        theirs += [m.content if isinstance(m.content, str) else "" for m in prompt.messages] + [prompt.text or ""]
    try:
        ours = _norm(bench.prompt(item, mode).last_user_text())
    except Exception:  # noqa: BLE001  # no prompt of ours: the question fields alone decide
        ours = ""
    if _question_agrees(theirs, item_qs, ours):
        return
    says = ", ".join(f"{k} {_short(v)}" for k, v in [*answers.items(), *questions.items()])
    item_says = ", ".join([*([f"gold {_short(item.gold)}"] if golds else []),
                           *([f"question {_short(item_raw[0])}"] if item_raw else [])])
    raise DataError(f"{where}: the sample does not match {bench.name} {item.subset} item {item.id!r}, where {target} "
                    f"maps it: the log says {says}; the item says {item_says}. Name the right target with --as "
                    f"{bench.name}:SUBSET[:MODE], or pass --force to import it as mapped")
