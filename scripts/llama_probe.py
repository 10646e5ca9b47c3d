"""One llama-cpp-python release against a GGUF (default: the shipped SmolLM2): a 1-token prompt, a multi-token
prompt and a chat completion, each printed; a crash shows as the exit status.

    python scripts/llama_probe.py [GLOB-OF-GGUF]
"""

import glob
import sys

from llama_cpp import Llama, __version__

if len(sys.argv) > 1:
    gguf = glob.glob(sys.argv[1])[0]
else:
    from reasoneval.models.llamacpp import default_gguf

    gguf = str(default_gguf())
llm = Llama(model_path=gguf, n_ctx=512, seed=0, verbose=False)
out = llm.create_completion("Hello", max_tokens=4, temperature=0.0)
print("1-token prompt ok:", repr(out["choices"][0]["text"]), flush=True)
out = llm.create_completion("The capital of France is", max_tokens=8, temperature=0.0)
print("multi-token prompt ok:", repr(out["choices"][0]["text"]), flush=True)
out = llm.create_chat_completion([{"role": "user", "content": "What is 2+3? Answer in [[ ]]."}], max_tokens=16, temperature=0.0)
print("chat ok:", repr(out["choices"][0]["message"]["content"]), flush=True)
print("version", __version__)
