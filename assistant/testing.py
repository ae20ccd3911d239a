"""Deterministic stand-ins shipped with the package, for tests and the `debug` preset.

`HashEmbedder` maps text to a fixed-size vector by hashing word unigrams and bigrams (feature
hashing), so texts that share words are close: good enough to test retrieval plumbing without weights.
The scripted chat model lives in `assistant.answer.models.fake` (FakeChatModel).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable, Sequence

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    name = "hash-256"
    dim = 256

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def embed_documents(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        out = np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)
        if progress:
            progress(len(texts))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)

    def _vec(self, text: str) -> np.ndarray:
        words = _WORD.findall(text.lower())
        v = np.zeros(self.dim, dtype=np.float32)
        for feat in words + [f"{a} {b}" for a, b in itertools.pairwise(words)]:
            h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
            v[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        n = np.linalg.norm(v)
        return v / n if n else v
