"""Lexical (BM25) index over the same chunks as the vector store, using `bm25s` + PyStemmer.

bm25s precomputes BM25 scores into a sparse matrix, so a query is a few sparse row lookups (sub-ms at
100k chunks). It has no incremental add: the index is rebuilt from all chunk texts after a write
(seconds at 75k abstracts) and saved atomically (written to a temp dir, then renamed) beside the
Chroma data, with the chunk ids in order and the store generation it was built from.

Beside BM25 it keeps what retrieval needs of each chunk's metadata (sentence span, and the group of
the few chunks whose paper is a near-duplicate of another): search then groups and describes the
fused head without a Chroma `get` per query (that `get` was 12 ms p50 at 124k chunks).

Filtered search: `papers=` restricts a search to the chunks of those papers through a paper -> chunk
rows map (built once per loaded index), so a query never scans every chunk id; the rows and chunk ids
of a set of papers are memoised (the same filters come back turn after turn).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np

from ..errors import StoreError

_TOKEN = r"(?u)\b\w\w+\b"


def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


class LexicalIndex:
    """BM25 over chunk texts; `search` returns (chunk_id, score) best first."""

    def __init__(self, ids: list[str], retriever, generation: str = "", spans: np.ndarray | None = None,
                 groups: dict[str, str] | None = None) -> None:
        self.ids = ids
        self.spans = spans  # (n, 2) int32 sentence start/end per chunk, or None (an index saved before)
        self.groups = groups or {}  # chunk id -> group, only where the group is not the chunk's paper
        self._pos = {cid: i for i, cid in enumerate(ids)}
        self._bm25 = retriever
        self._vocab = set(retriever.vocab_dict) if retriever is not None else set()
        self.generation = generation
        self._stem = _stemmer()
        self._lock = threading.Lock()
        self._rows: dict[str, list[int]] | None = None  # paper id -> its chunk rows, made on first filtered search
        self._masks: OrderedDict[frozenset[str], tuple[np.ndarray, list[str]]] = OrderedDict()  # papers -> rows, ids
        self._rows_lock = threading.Lock()

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str], generation: str = "",
              metas: Sequence[dict] | None = None) -> LexicalIndex:
        import bm25s

        spans, groups = None, {}
        if metas is not None:
            spans = np.array([[int(m.get("sent_start", 0) or 0), int(m.get("sent_end", 0) or 0)] for m in metas],
                             dtype=np.int32).reshape(-1, 2)
            groups = {cid: str(m["group"]) for cid, m in zip(ids, metas)
                      if m.get("group") and str(m["group"]) != cid.rsplit("::", 1)[0]}
        if not ids:
            return cls([], None, generation, spans, groups)
        tokens = bm25s.tokenize(
            list(texts), stopwords="en", stemmer=_stemmer(), token_pattern=_TOKEN, show_progress=False
        )
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        return cls(list(ids), retriever, generation, spans, groups)

    def chunk_meta(self, cid: str) -> dict | None:
        """paper_id, group and sentence span of a chunk, or None if this index does not know it."""
        pos = self._pos.get(cid)
        if pos is None or self.spans is None:
            return None
        paper = cid.rsplit("::", 1)[0]
        start, end = self.spans[pos]
        return {"paper_id": paper, "group": self.groups.get(cid, paper), "sent_start": int(start), "sent_end": int(end)}

    def paper_rows(self) -> dict[str, list[int]]:
        """Paper id -> rows of its chunks (built once, O(chunks); then each filter costs O(its papers))."""
        with self._rows_lock:
            if self._rows is None:
                rows: dict[str, list[int]] = {}
                for i, cid in enumerate(self.ids):
                    rows.setdefault(cid.rsplit("::", 1)[0], []).append(i)
                self._rows = rows
            return self._rows

    def restrict(self, papers: Collection[str]) -> tuple[np.ndarray, list[str]]:
        """(chunk rows, chunk ids) of `papers`; memoised for the last few frozensets."""
        key = papers if isinstance(papers, frozenset) else frozenset(papers)
        with self._rows_lock:
            got = self._masks.get(key)
            if got is not None:
                self._masks.move_to_end(key)
                return got
        rows_of = self.paper_rows()
        rows = np.array(sorted(r for p in key for r in rows_of.get(p, ())), dtype=np.int64)
        got = (rows, [self.ids[r] for r in rows])
        with self._rows_lock:
            self._masks[key] = got
            while len(self._masks) > 8:
                self._masks.popitem(last=False)
        return got

    def search(self, query: str, k: int, allowed: set[str] | None = None,
               papers: Collection[str] | None = None) -> list[tuple[str, float]]:
        """Top-k chunks for `query`; `papers` restricts to those papers' chunks, `allowed` to those chunk ids."""
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
        if papers is not None:  # score every chunk (sparse, sub-ms), rank only the allowed rows: bm25s's
            rows = self.restrict(papers)[0]  # weight_mask path was 18 ms p50 at 96k chunks (argpartition)
            if not len(rows):
                return []
            scores = np.asarray(self._bm25.get_scores(q))[rows]
            k = min(k, len(rows))
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(self.ids[int(rows[i])], float(scores[i])) for i in top if scores[i] > 0]
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
            if self.spans is not None:
                np.save(tmp / "spans.npy", self.spans)
                (tmp / "groups.json").write_text(json.dumps(self.groups), encoding="utf-8")
            old = directory.with_name(directory.name + ".old")
            if directory.exists():
                os.replace(directory, old)
            os.replace(tmp, directory)
            shutil.rmtree(old, ignore_errors=True)
        except OSError as e:
            shutil.rmtree(tmp, ignore_errors=True)
            raise StoreError(f"Cannot write the lexical index at {directory}: {e.strerror or e}",
                             hint="Check free disk space and permissions of the data directory.") from e

    @staticmethod
    def saved_generation(directory: Path) -> str | None:
        """The generation of the saved index (None when there is none), without loading it."""
        try:
            return str(json.loads((directory / "meta.json").read_text(encoding="utf-8")).get("generation", ""))
        except (OSError, ValueError):
            return None

    @classmethod
    def load(cls, directory: Path) -> LexicalIndex | None:
        """The saved index, or None if there is none (the caller rebuilds it)."""
        if not (directory / "ids.json").is_file():
            return None
        import bm25s

        try:
            ids = json.loads((directory / "ids.json").read_text(encoding="utf-8"))
            meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
            retriever = bm25s.BM25.load(str(directory / "bm25"), show_progress=False) if ids else None
            spans, groups = None, {}
            if (directory / "spans.npy").is_file():
                spans = np.load(directory / "spans.npy")
                groups = json.loads((directory / "groups.json").read_text(encoding="utf-8"))
                if spans.shape != (len(ids), 2):
                    return None
        except (OSError, ValueError):
            return None  # derived data: a damaged copy is rebuilt from the vector store's chunks
        return cls(ids, retriever, meta.get("generation", ""), spans, groups)
