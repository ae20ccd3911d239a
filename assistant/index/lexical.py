"""Lexical (BM25) index over the same chunks as the vector store, using `bm25s` + PyStemmer.

bm25s precomputes BM25 scores into a sparse matrix, so a query is a few sparse row lookups (sub-ms at
100k chunks). It has no incremental add: the index is rebuilt from all chunk texts after a write
(seconds at 75k abstracts) and saved atomically (written to a temp dir, then renamed) beside the
Chroma data, with the chunk ids in order and the store generation it was built from.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import StoreError

_TOKEN = r"(?u)\b\w\w+\b"


def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


class LexicalIndex:
    """BM25 over chunk texts; `search` returns (chunk_id, score) best first."""

    def __init__(self, ids: list[str], retriever, generation: str = "") -> None:
        self.ids = ids
        self._pos = {cid: i for i, cid in enumerate(ids)}
        self._bm25 = retriever
        self._vocab = set(retriever.vocab_dict) if retriever is not None else set()
        self.generation = generation
        self._stem = _stemmer()
        self._lock = threading.Lock()

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str], generation: str = "") -> "LexicalIndex":
        import bm25s

        if not ids:
            return cls([], None, generation)
        tokens = bm25s.tokenize(
            list(texts), stopwords="en", stemmer=_stemmer(), token_pattern=_TOKEN, show_progress=False
        )
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        return cls(list(ids), retriever, generation)

    def search(self, query: str, k: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """Top-k chunks for `query`; `allowed` restricts to those chunk ids (metadata filters)."""
        if self._bm25 is None or not self.ids:
            return []
        import bm25s

        with self._lock:
            q = bm25s.tokenize(
                [query], stopwords="en", stemmer=self._stem, token_pattern=_TOKEN, return_ids=False,
                show_progress=False,
            )[0]
        q = [t for t in q if t in self._vocab]
        if not q:
            return []
        mask = None
        if allowed is not None:
            mask = np.zeros(len(self.ids), dtype=np.float32)
            for cid in allowed:
                if cid in self._pos:
                    mask[self._pos[cid]] = 1.0
            if not mask.any():
                return []
        k = min(k, len(self.ids))
        docs, scores = self._bm25.retrieve(
            [q], k=k, show_progress=False, n_threads=0, weight_mask=mask, backend_selection="numpy"
        )
        return [(self.ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]

    def save(self, directory: Path) -> None:
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".lexical-", dir=directory.parent))
        try:
            if self._bm25 is not None:
                self._bm25.save(str(tmp / "bm25"), show_progress=False)
            (tmp / "ids.json").write_text(json.dumps(self.ids), encoding="utf-8")
            (tmp / "meta.json").write_text(json.dumps({"generation": self.generation}), encoding="utf-8")
            old = directory.with_name(directory.name + ".old")
            if directory.exists():
                os.replace(directory, old)
            os.replace(tmp, directory)
            shutil.rmtree(old, ignore_errors=True)
        except OSError as e:
            shutil.rmtree(tmp, ignore_errors=True)
            raise StoreError(f"Cannot write the lexical index at {directory}: {e.strerror or e}",
                             hint="Check free disk space and permissions of the data directory.") from e

    @classmethod
    def load(cls, directory: Path) -> "LexicalIndex | None":
        """The saved index, or None if there is none (the caller rebuilds it)."""
        if not (directory / "ids.json").is_file():
            return None
        import bm25s

        try:
            ids = json.loads((directory / "ids.json").read_text(encoding="utf-8"))
            meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
            retriever = bm25s.BM25.load(str(directory / "bm25"), show_progress=False) if ids else None
        except (OSError, ValueError):
            return None  # derived data: a damaged copy is rebuilt from the vector store's chunks
        return cls(ids, retriever, meta.get("generation", ""))
