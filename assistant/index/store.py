"""Chroma adapter: the only module that touches chromadb.

Two collections per index name: `<name>-chunks` (one vector per chunk, cosine HNSW) and `<name>-papers`
(one row per abstract: full text, metadata, the mean of its chunk vectors). Both record the embedding
model, dimension and distance when created; opening with another model or dimension raises
`EmbeddingMismatchError` rather than returning nonsense rankings. Chroma's default embedding function
(which downloads a model) is never used: every call passes vectors, and collections are opened with
`embedding_function=None`. Telemetry is off. Writes go in batches no larger than the client's
`get_max_batch_size()`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbeddingMismatchError, StoreError
from ..types import Record

SCHEMA = 1
_MAX_META_CHARS = 2000


def _client(data_dir: Path, chroma_url: str):
    from ..runtime import go_offline

    go_offline()
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    cs = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if chroma_url:
        from urllib.parse import urlparse

        u = urlparse(chroma_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            from ..errors import ConfigError

            raise ConfigError(f"Bad Chroma URL '{chroma_url}'.", hint="Use http://HOST:PORT, e.g. http://127.0.0.1:8000.")
        try:
            return chromadb.HttpClient(
                host=u.hostname, port=u.port or (443 if u.scheme == "https" else 8000), ssl=u.scheme == "https",
                settings=cs,
            )
        except Exception as e:  # noqa: BLE001 - connection failures come in many types
            raise StoreError(f"Cannot reach the Chroma server at {chroma_url}: {e}",
                             hint="Start it with `chroma run --path DIR --host 127.0.0.1 --port 8000`.") from e
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(data_dir / "chroma"), settings=cs)
    except Exception as e:  # noqa: BLE001
        raise StoreError(f"Cannot open the vector store in {data_dir}: {e}",
                         hint="Check the path and its permissions; `paperchat rebuild-index` rebuilds a damaged store.") from e


def normalise_metadata(meta: dict[str, Any]) -> dict[str, str | int | float | bool]:
    """Make metadata Chroma accepts: drop None, join lists, stringify the rest, cap long strings."""
    out: dict[str, str | int | float | bool] = {}
    for k, v in meta.items():
        if v is None:
            continue
        if isinstance(v, (list, tuple)):
            v = "; ".join(str(x) for x in v)
        elif isinstance(v, dict):
            v = str(v)
        if isinstance(v, str):
            v = v[:_MAX_META_CHARS]
        elif not isinstance(v, (bool, int, float)):
            v = str(v)[:_MAX_META_CHARS]
        out[k] = v
    return out


def record_metadata(r: Record) -> dict[str, str | int | float | bool]:
    d = r.to_dict()
    d.pop("text")
    d["hash"] = r.hash
    d["ingested_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return normalise_metadata(d)


def record_from_row(text: str, meta: dict[str, Any]) -> Record:
    d = dict(meta)
    d["text"] = text
    d["authors"] = tuple(a for a in str(d.get("authors", "")).split("; ") if a)
    return Record.from_dict(d)


class ChromaStore:
    def __init__(self, data_dir: Path, chroma_url: str, name: str, model: str, dim: int) -> None:
        self.data_dir, self.chroma_url, self.name = data_dir, chroma_url, name
        self.model, self.dim = model, dim
        self.client = _client(data_dir, chroma_url)
        contract = {"embedding_model": model, "embedding_dim": dim, "distance": "cosine", "schema": SCHEMA}
        self.chunks = self._collection(f"{name}-chunks", contract)
        self.papers = self._collection(f"{name}-papers", contract)

    def _collection(self, cname: str, contract: dict[str, Any]):
        try:
            col = self.client.get_or_create_collection(
                cname, metadata={**contract, "generation": "0"}, configuration={"hnsw": {"space": "cosine"}},
                embedding_function=None,
            )
        except Exception as e:  # noqa: BLE001
            raise StoreError(f"Cannot open collection {cname}: {e}",
                             hint="If the store is damaged, run `paperchat rebuild-index`.") from e
        meta = col.metadata or {}
        if meta.get("embedding_model") != self.model or int(meta.get("embedding_dim", -1)) != self.dim:
            raise EmbeddingMismatchError(
                f"Collection {cname} was built with {meta.get('embedding_model')} "
                f"(dim {meta.get('embedding_dim')}), but {self.model} (dim {self.dim}) is configured.",
                hint="Use the model the index was built with, or reindex into a new collection: "
                "`paperchat rebuild-index` with the new model setting.",
            )
        return col

    # -- writes -------------------------------------------------------------------------------
    def max_batch(self) -> int:
        try:
            return int(self.client.get_max_batch_size())
        except Exception:  # noqa: BLE001 - older servers lack the call; Chroma's documented floor
            return 5461

    def upsert_chunks(self, ids: list[str], vectors: np.ndarray, docs: list[str], metas: list[dict]) -> None:
        step = self.max_batch()
        for lo in range(0, len(ids), step):
            sl = slice(lo, lo + step)
            self.chunks.upsert(ids=ids[sl], embeddings=vectors[sl], documents=docs[sl], metadatas=metas[sl])

    def upsert_papers(self, records: list[Record], vectors: np.ndarray) -> None:
        step = self.max_batch()
        for lo in range(0, len(records), step):
            batch = records[lo : lo + step]
            self.papers.upsert(
                ids=[r.paper_id for r in batch], embeddings=vectors[lo : lo + step],
                documents=[r.text for r in batch], metadatas=[record_metadata(r) for r in batch],
            )

    def delete_papers(self, paper_ids: list[str]) -> None:
        for lo in range(0, len(paper_ids), 500):
            part = paper_ids[lo : lo + 500]
            self.chunks.delete(where={"paper_id": {"$in": part}})
            self.papers.delete(ids=part)

    def bump_generation(self) -> str:
        gen = f"{time.time_ns()}"
        for col in (self.chunks, self.papers):
            meta = dict(col.metadata or {})
            meta["generation"] = gen
            meta.pop("hnsw:space", None)
            col.modify(metadata=meta)
        return gen

    # -- reads --------------------------------------------------------------------------------
    def generation(self) -> str:
        try:
            return str((self.client.get_collection(self.papers.name, embedding_function=None).metadata or {})
                       .get("generation", "0"))
        except Exception as e:  # noqa: BLE001
            raise StoreError(f"The vector store is unavailable: {e}", hint="Check the data directory or the server.") from e

    def count(self) -> tuple[int, int]:
        return self.papers.count(), self.chunks.count()

    def get_papers(self, ids: list[str] | None = None) -> Iterator[tuple[Record, str]]:
        """(record, hash) for the given ids, or for every paper in pages."""
        if ids is not None:
            for lo in range(0, len(ids), 1000):
                got = self.papers.get(ids=ids[lo : lo + 1000], include=["documents", "metadatas"])
                for doc, meta in zip(got["documents"], got["metadatas"]):
                    yield record_from_row(doc, meta), str(meta.get("hash", ""))
            return
        yield from self._paged(self.papers, lambda doc, meta, _id: (record_from_row(doc, meta), str(meta.get("hash", ""))))

    def paper_vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        got = self.papers.get(ids=ids, include=["embeddings"])
        return {i: np.asarray(e, dtype=np.float32) for i, e in zip(got["ids"], got["embeddings"])}

    def all_chunks(self) -> Iterator[tuple[str, str, dict]]:
        """(chunk_id, text, metadata) of every chunk, in pages (for rebuilding the lexical index)."""
        yield from self._paged(self.chunks, lambda doc, meta, _id: (_id, doc, meta))

    def _paged(self, col, make, page: int = 5000):
        offset = 0
        while True:
            got = col.get(include=["documents", "metadatas"], limit=page, offset=offset)
            if not got["ids"]:
                return
            for _id, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
                yield make(doc, meta, _id)
            offset += len(got["ids"])

    def query_chunks(
        self, vector: np.ndarray, n: int, where: dict | None = None, metadata: bool = True
    ) -> list[tuple[str, float, dict]]:
        """(chunk_id, cosine similarity, metadata) best first; `metadata=False` leaves it `{}` (cheaper).

        No `count()` first: Chroma returns fewer than `n` (or none) from a small or empty collection."""
        got = self.chunks.query(
            query_embeddings=[vector], n_results=max(1, n), where=where,
            include=["distances", "metadatas"] if metadata else ["distances"],
        )
        metas = got["metadatas"][0] if metadata else [{}] * len(got["ids"][0])
        return [(i, 1.0 - float(d), m) for i, d, m in zip(got["ids"][0], got["distances"][0], metas)]

    def nearest_papers(self, vectors: np.ndarray, n: int = 1) -> list[list[tuple[str, float]]]:
        if self.papers.count() == 0 or len(vectors) == 0:
            return [[] for _ in range(len(vectors))]
        got = self.papers.query(query_embeddings=vectors, n_results=min(n, self.papers.count()), include=["distances"])
        return [[(i, 1.0 - float(d)) for i, d in zip(ids, ds)] for ids, ds in zip(got["ids"], got["distances"])]
