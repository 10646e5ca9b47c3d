"""Write the lm-eval and inspect-ai logs under ``tests/fixtures/harness_logs`` with the real tools.

    python scripts/make_harness_fixtures.py --venv /path/to/venv-with-lm-eval-and-inspect-ai

Ten KOR-Bench Operation items are served by the fake OpenAI-compatible server
(``reasoneval.testing.fake_openai``, which answers ``[[<last word of the prompt>]]``): the prompts of the even
items end with the item's gold answer (so the answer is right), the odd ones with ``nothing`` (wrong). The
lm-evaluation-harness runs them as a ``generate_until`` task named ``korbench_operation`` with
``local-chat-completions`` and ``--log_samples``; inspect-ai runs them as a task of the same name with
``--model openai/fake --model-base-url``. Both logs are copied into the fixture folder with the tools' versions.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from reasoneval.core import registry
from reasoneval.testing.procs import FakeServerProc

HERE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "harness_logs"


def docs() -> list[dict[str, str]]:
    items = registry.get("korbench").load("operation", "zero-shot")[:10]
    out = []
    for n, it in enumerate(items):
        gold = str(it.gold).removeprefix("[[").removesuffix("]]")
        tail = gold if n % 2 == 0 else "nothing"
        out.append({"idx": it.id, "prompt": f"Operation item {it.id}. Reply with: {tail}", "answer": str(it.gold)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--venv", type=Path, required=True)
    a = ap.parse_args()
    py = str(a.venv / "bin" / "python")
    HERE.mkdir(parents=True, exist_ok=True)
    srv = FakeServerProc("--delay", "0")
    try:
        write(py, a.venv, srv)
    finally:
        srv.stop()
    versions = subprocess.run([py, "-c", "import importlib.metadata as m; print('lm_eval', m.version('lm_eval'), "
                               "'inspect_ai', m.version('inspect_ai'))"], capture_output=True, text=True).stdout
    (HERE / "VERSIONS").write_text(versions)
    print(f"wrote {HERE} ({versions.strip()})", file=sys.stderr)


def write(py: str, venv: Path, srv: FakeServerProc) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        data = t / "operation.jsonl"
        data.write_text("".join(json.dumps(d) + "\n" for d in docs()))
        (t / "tasks").mkdir()
        (t / "tasks" / "korbench_operation.yaml").write_text(textwrap.dedent(f"""\
            task: korbench_operation
            dataset_path: json
            dataset_kwargs:
              data_files:
                test: {data}
            test_split: test
            output_type: generate_until
            doc_to_text: "{{{{prompt}}}}"
            doc_to_target: "{{{{answer}}}}"
            generation_kwargs:
              until: []
              max_gen_toks: 64
            metric_list:
              - metric: exact_match
            """))
        env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "x",
               "PYTHONPATH": ""}
        subprocess.run([py, "-m", "lm_eval", "--model", "local-chat-completions", "--model_args",
                        f"model=fake-chat,base_url={srv.url}/chat/completions,tokenized_requests=False,num_concurrent=1",
                        "--apply_chat_template", "--include_path", str(t / "tasks"), "--tasks", "korbench_operation",
                        "--log_samples", "--output_path", str(t / "lmeval")], check=True, env=env)
        samples = sorted((t / "lmeval").rglob("samples_*.jsonl"))
        results = sorted((t / "lmeval").rglob("results_*.json"))
        dest = HERE / "lm-eval" / "fake-chat"
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        for f in [*samples, *results]:
            shutil.copy(f, dest / f.name)
        (t / "task.py").write_text(textwrap.dedent(f"""\
            import json
            from inspect_ai import Task, task
            from inspect_ai.dataset import Sample
            from inspect_ai.scorer import match
            from inspect_ai.solver import generate

            @task
            def korbench_operation():
                rows = [json.loads(x) for x in open({str(data)!r})]
                return Task(dataset=[Sample(id=r["idx"], input=r["prompt"], target=r["answer"]) for r in rows],
                            solver=generate(), scorer=match())
            """))
        subprocess.run([str(venv / "bin" / "inspect"), "eval", "task.py", "--model", "openai/fake-chat",
                        "--model-base-url", srv.url, "-M", "responses_api=false", "--log-dir", str(t / "inspect"), "--log-format", "eval",
                        "--max-tokens", "64"], check=True, env=env, cwd=t)
        dest = HERE / "inspect"
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        for f in sorted((t / "inspect").glob("*.eval")):
            shutil.copy(f, dest / "korbench_operation.eval")


if __name__ == "__main__":
    main()
