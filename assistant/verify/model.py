"""The shipped cross-encoder: int8 ONNX + tokenizer, loaded once per process, run by ONNX Runtime.

Files (in `assistant/verify/model/`, built by `scripts/train_verifier.py`, see its MODEL_CARD.md):
`model-int8.onnx` (logits over `verifier.json`'s labels), `tokenizer.json`, `verifier.json`.
A missing or unreadable file raises `VerifierUnavailableError` (the answer path falls back on it).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ..errors import ModelError

MODEL_DIR = Path(__file__).parent / "model"
FILES = ("model-int8.onnx", "tokenizer.json", "verifier.json")


class VerifierUnavailableError(ModelError):
    """The verifier model is missing or cannot be loaded (callers may fall back to a similarity check)."""

    hint = "Reinstall paperchat (the model ships in assistant/verify/model/) or rebuild it: scripts/train_verifier.py."


def _threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class CrossEncoder:
    """Probabilities over LABELS for (claim, source) pairs. Thread-safe; batches run on `workers` threads."""

    def __init__(self, model_dir: Path, max_tokens: int) -> None:
        from ..runtime import go_offline

        go_offline()
        missing = [f for f in FILES if not (model_dir / f).is_file()]
        if missing:
            raise VerifierUnavailableError(f"The verifier model is incomplete: {', '.join(missing)} missing in {model_dir}.")
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            meta = json.loads((model_dir / "verifier.json").read_text(encoding="utf-8"))
            self.labels = tuple(meta["labels"])
            so = ort.SessionOptions()
            so.intra_op_num_threads = 1  # one single-threaded session run from several threads (see embedder)
            so.inter_op_num_threads = 1
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            so.enable_mem_pattern = False
            so.log_severity_level = 3
            self.session = ort.InferenceSession(str(model_dir / "model-int8.onnx"), so,
                                                providers=["CPUExecutionProvider"])
            self._tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except Exception as e:  # noqa: BLE001 - any load failure means "no verifier"
            raise VerifierUnavailableError(f"Cannot load the verifier model from {model_dir}: {e}") from e
        if self.labels != ("supported", "not_supported", "contradicted"):
            raise VerifierUnavailableError(f"Unexpected verifier labels {self.labels} in {model_dir}.")
        self._tok.no_padding()
        self._tok.enable_truncation(max_tokens)
        self._tok_lock = threading.Lock()  # the Rust tokenizer is not safe to share across threads
        self.workers = _threads()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self.model_dir = model_dir

    def _run(self, enc) -> np.ndarray:
        width = max(len(e.ids) for e in enc)
        ids, types, mask = (np.zeros((len(enc), width), dtype=np.int64) for _ in range(3))
        for i, e in enumerate(enc):
            n = len(e.ids)
            ids[i, :n], types[i, :n], mask[i, :n] = e.ids, e.type_ids, 1
        logits = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        z = np.exp(logits - logits.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def probs(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32, progress=None) -> np.ndarray:
        """(n, 3) probabilities; pairs are length-sorted into batches and returned in input order."""
        out = np.zeros((len(pairs), 3), dtype=np.float32)
        if not pairs:
            return out
        with self._tok_lock:
            enc = self._tok.encode_batch([tuple(p) for p in pairs])
        order = sorted(range(len(enc)), key=lambda i: len(enc[i].ids))
        batches = [order[lo : lo + batch_size] for lo in range(0, len(order), batch_size)]
        run = lambda idx: (idx, self._run([enc[i] for i in idx]))  # noqa: E731
        results = self._executor().map(run, batches) if self.workers > 1 and len(batches) > 1 else map(run, batches)
        for idx, p in results:
            out[idx] = p
            if progress:
                progress(len(idx))
        return out

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="verify")
            return self._pool


_LOADED: dict[tuple[str, int], CrossEncoder] = {}
_LOCK = threading.Lock()


def load(model_dir: Path | None = None, max_tokens: int = 128) -> CrossEncoder:
    """The cross-encoder of `model_dir` (default: the shipped one), loaded once per process."""
    d = Path(model_dir).expanduser() if model_dir else MODEL_DIR
    key = (str(d), max_tokens)
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = CrossEncoder(d, max_tokens)
        return _LOADED[key]
