"""``reasoneval attention korbench:<subset> --item IDX``: the rule-focused attention view (KOR-Bench App. F.3 / H).

Added to the main app by ``KorBench.cli``. The computation is :mod:`.attention`, the rendering
:mod:`.attention_view`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ...cli.common import DEFAULT_STORE, StoreOpt
from ...core.values import Prompt


def _stored(store: Path, run_ref: str, subset: str, idx: str) -> tuple[str, Prompt, str]:
    """(answer text, prompt sent, label) of item ``subset/idx`` in a stored zero-shot KOR-Bench run."""
    from ...cli import common as cli

    st = cli.existing_store(store, readonly=True)
    try:
        run = st.get_run(run_ref)
        if run is None:
            cli.fail(f"no single run matches {run_ref!r}")
        if run["benchmark"] != "korbench" or run["mode"] != "zero-shot":
            cli.fail(f"run {run['run_id'][:12]} is {run['benchmark']} {run['mode']}: the view needs korbench zero-shot")
        for c in st.completions(run["run_id"], role="answer"):
            if c.item_key == f"{subset}/{idx}" and c.turn == 0 and c.sample == 0:
                if c.completion.error is not None:
                    cli.fail(f"run {run['run_id'][:12]} item {c.item_key}: the call failed ({c.completion.error})")
                return c.completion.text, c.prompt, f"run {run['run_id'][:12]} ({run['model']})"
        cli.fail(f"run {run['run_id'][:12]} has no completion of {subset}/{idx}")
    finally:
        st.close()


def attention(
    target: Annotated[str, typer.Argument(help="korbench:<subset>, e.g. korbench:operation")],
    item: Annotated[str, typer.Option("--item", help="item idx within the subset, e.g. 1")],
    model: Annotated[str | None, typer.Option(help="hf/<folder> | hf/<file.gguf>; default: the shipped "
                                                    "SmolLM2-135M-Instruct GGUF read by transformers")] = None,
    out: Annotated[Path, typer.Option(help="view.html (heat map + shaded rule) or view.png (figure)")] = Path(
        "attention.html"),
    answer: Annotated[str | None, typer.Option(help="the answer the model attends from (default: --run's "
                                                     "completion, else the gold [[...]])")] = None,
    run: Annotated[str | None, typer.Option(help="stored zero-shot run: its completion and prompt")] = None,
    top: Annotated[int, typer.Option(min=1, help="retrieval heads shown (top-k by rule-attention mass)")] = 5,
    store: StoreOpt = DEFAULT_STORE,
    options: Annotated[list[str] | None, typer.Option("--option", "-O", help="benchmark option key=value")] = None,
    data: Annotated[str | None, typer.Option(help="KOR-Bench data folder or items file")] = None,
) -> None:
    """Attention of the top (retrieval) heads over the rule's spans for one KOR-Bench item: layer x head heat map
    and the rule text shaded per head (KOR-Bench App. F.3 / H)."""
    from ...cli import common as cli
    from ...models.base import ModelError
    from . import attention as att
    from .attention_view import write
    from .data import CATEGORIES

    name, _, subset = target.partition(":")
    if name != "korbench" or subset not in CATEGORIES:
        cli.fail(f"attention takes korbench:<subset> with a subset in {', '.join(CATEGORIES)}")
    bench = cli.bench_with_options(name, options, data)
    prompt: Prompt | None = None
    source = "--answer" if answer is not None else "gold"
    if answer is None and run is not None:
        answer, prompt, source = _stored(store, run, subset, item)
    try:
        label, m, tok = att.load_model(model)
        view = att.korbench_view(bench, subset, item, m, tok, answer, prompt=prompt, label=label,
                                 answer_source=source, top_k=top)
    except (ModelError, KeyError, ValueError) as e:
        cli.fail(str(e.args[0]) if e.args else str(e))
    write(view, out)
    _summary(view, out)


def _summary(view: Any, out: Path) -> None:
    n_layers, n_heads = view.shape
    typer.echo(f"{view.item_key}: {len(view.input_ids)} tokens, {n_layers} layers x {n_heads} heads, "
               f"answer: {view.answer_source}")
    for k, (layer, head) in enumerate(view.top, 1):
        typer.echo(f"  #{k} layer {layer:>2} head {head:>2}  rule mass {view.mass[layer, head]:.3f}  "
                   f"retrieval {view.retrieval[layer, head]:.3f}")
    typer.echo(f"wrote {out}")
