"""The shipped verifier model: int8 ONNX token encoder + alignment head, loaded once per process.

Files (in `assistant/verify/model/`, built by `scripts/train_verifier.py`; see MODEL_CARD.md there):
`encoder-int8.onnx` (MiniLM layers -> token states), `head.onnx` (claim tokens aligned to source tokens
-> logits over supported / not_supported / contradicted), `tokenizer.json`, `verifier.json`.
Each text is encoded once and its token states are kept in an LRU cache, so the sentences of an abstract
checked against several claims cost one encoding. A missing or unreadable file raises
`VerifierUnavailableError` (the answer path falls back on it).
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ..errors import ModelError

MODEL_DIR = Path(__file__).parent / "model"
FILES = ("encoder-int8.onnx", "head.onnx", "tokenizer.json", "verifier.json")
LABELS = ("supported", "not_supported", "contradicted")


class VerifierUnavailableError(ModelError):
    """The verifier model is missing or cannot be loaded (callers may fall back to a similarity check)."""

    hint = "Reinstall paperchat (the model ships in assistant/verify/model/) or rebuild it: scripts/train_verifier.py."


def _threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _pad(arrs: Sequence[np.ndarray], dim: int) -> tuple[np.ndarray, np.ndarray]:
    w = max(1, max(len(a) for a in arrs))
    x = np.zeros((len(arrs), w, dim), dtype=np.float32)
    m = np.zeros((len(arrs), w), dtype=np.float32)
    for i, a in enumerate(arrs):
        x[i, : len(a)] = a
        m[i, : len(a)] = 1.0
    return x, m


class AlignmentModel:
    """`states(texts)` -> token states; `probs(claims, windows)` -> (n, 3). Thread-safe."""

    def __init__(self, model_dir: Path, cache_size: int = 8192) -> None:
        from ..runtime import go_offline

        go_offline()
        missing = [f for f in FILES if not (model_dir / f).is_file()]
        if missing:
            raise VerifierUnavailableError(
                f"The verifier model is incomplete: {', '.join(missing)} missing in {model_dir}.")
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            meta = json.loads((model_dir / "verifier.json").read_text(encoding="utf-8"))
            so = ort.SessionOptions()
            so.intra_op_num_threads = 1  # single-threaded sessions run from several threads (see the embedder)
            so.inter_op_num_threads = 1
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            so.enable_mem_pattern = False
            so.log_severity_level = 3
            cpu = ["CPUExecutionProvider"]
            self.encoder = ort.InferenceSession(str(model_dir / "encoder-int8.onnx"), so, providers=cpu)
            self.head = ort.InferenceSession(str(model_dir / "head.onnx"), so, providers=cpu)
            tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except Exception as e:  # any load failure means "no verifier"
            raise VerifierUnavailableError(f"Cannot load the verifier model from {model_dir}: {e}") from e
        if tuple(meta.get("labels", ())) != LABELS:
            raise VerifierUnavailableError(f"Unexpected verifier labels {meta.get('labels')} in {model_dir}.")
        tok.no_padding()
        tok.enable_truncation(int(meta.get("max_sentence_tokens", 96)))
        self._tok, self._tok_lock = tok, threading.Lock()  # the Rust tokenizer is not safe to share across threads
        self.dim = 384
        self.model_dir = model_dir
        self.workers = _threads()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size, self._cache_lock = cache_size, threading.Lock()

    def _map(self, fn, jobs: list):
        if self.workers > 1 and len(jobs) > 1:
            with self._pool_lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="verify")
            return list(self._pool.map(fn, jobs))
        return [fn(j) for j in jobs]

    def states(self, texts: Sequence[str], batch: int = 1) -> dict[str, np.ndarray]:
        """Token states (without [CLS]/[SEP]) of each distinct text, from the cache or the encoder.

        One text per encoder call by default: int8 activations are quantised per call, so in a batch a
        text's states would depend on its neighbours (cosine ~0.99), and so could a verdict."""
        out: dict[str, np.ndarray] = {}
        with self._cache_lock:
            for t in texts:
                if t in self._cache:
                    self._cache.move_to_end(t)
                    out[t] = self._cache[t]
        todo = sorted({t for t in texts if t not in out}, key=len)
        if todo:
            with self._tok_lock:
                enc = self._tok.encode_batch(todo)
            order = sorted(range(len(todo)), key=lambda i: len(enc[i].ids))
            jobs = [order[lo : lo + batch] for lo in range(0, len(order), batch)]

            def run(idx: list[int]):
                w = max(len(enc[i].ids) for i in idx)
                ids = np.zeros((len(idx), w), dtype=np.int64)
                mask = np.zeros_like(ids)
                for r, i in enumerate(idx):
                    ids[r, : len(enc[i].ids)], mask[r, : len(enc[i].ids)] = enc[i].ids, 1
                hid = self.encoder.run(None, {"input_ids": ids, "attention_mask": mask})[0]
                return [(todo[i], hid[r, 1 : len(enc[i].ids) - 1].astype(np.float16)) for r, i in enumerate(idx)]

            with self._cache_lock:
                for part in self._map(run, jobs):
                    for t, h in part:
                        out[t] = self._cache[t] = h
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return out

    def probs(self, claims: Sequence[np.ndarray], windows: Sequence[np.ndarray], batch: int = 64) -> np.ndarray:
        """(n, 3) probabilities of claim i (token states) against window i (token states)."""
        res = np.zeros((len(claims), 3), dtype=np.float32)
        if not claims:
            return res
        order = sorted(range(len(claims)), key=lambda i: len(windows[i]))
        jobs = [order[lo : lo + batch] for lo in range(0, len(order), batch)]

        def run(idx: list[int]):
            A, am = _pad([claims[i] for i in idx], self.dim)
            B, bm = _pad([windows[i] for i in idx], self.dim)
            logits = self.head.run(None, {"A": A, "am": am, "B": B, "bm": bm})[0]
            z = np.exp(logits - logits.max(axis=1, keepdims=True))
            return idx, z / z.sum(axis=1, keepdims=True)

        for idx, p in self._map(run, jobs):
            res[idx] = p
        return res


_LOADED: dict[str, AlignmentModel] = {}
_LOCK = threading.Lock()


def load(model_dir: Path | str | None = None) -> AlignmentModel:
    """The model of `model_dir` (default: the shipped one), loaded once per process."""
    d = Path(model_dir).expanduser() if model_dir else MODEL_DIR
    with _LOCK:
        if str(d) not in _LOADED:
            _LOADED[str(d)] = AlignmentModel(d)
        return _LOADED[str(d)]
