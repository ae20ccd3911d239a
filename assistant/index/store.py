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

import contextlib
import functools
import os
import time
from collections.abc import Callable
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

        from ..errors import ConfigError

        bad = ConfigError(f"Bad Chroma URL '{chroma_url}'.", hint="Use http://HOST:PORT, e.g. http://127.0.0.1:8000.")
        try:
            u = urlparse(chroma_url.strip())
            host, port = u.hostname, u.port
        except ValueError:  # "Invalid IPv6 URL", "Port out of range", a port that is not a number
            raise bad from None
        if u.scheme not in ("http", "https") or not host or u.path.strip("/") or u.query:
            raise bad
        try:
            return chromadb.HttpClient(
                host=host, port=port or (443 if u.scheme == "https" else 8000), ssl=u.scheme == "https", settings=cs,
            )
        except BaseException as e:  # connection failures come in many types (and Rust panics)
            _reraise_control(e)
            raise StoreError(f"Cannot reach the Chroma server at {chroma_url}: {e}",
                             hint="Start it with `chroma run --path DIR --host 127.0.0.1 --port 8000`.") from e
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / "chroma"
        if path.is_dir() and not os.access(path, os.W_OK):
            path = _readonly_snapshot(path)
        return chromadb.PersistentClient(path=str(path), settings=cs)
    except BaseException as e:  # chromadb raises Rust panics (BaseException) on damaged files
        _reraise_control(e)
        raise damaged(data_dir, e) from e


def _readonly_snapshot(path: Path) -> Path:
    """Chroma writes to its files when it opens them, so a read-only store is served from a private copy
    (removed at exit). Costs the store's size in the temp directory and a copy at start."""
    import atexit
    import shutil
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="paperchat-readonly-"))
    atexit.register(shutil.rmtree, tmp, True)
    dst = tmp / "chroma"
    shutil.copytree(path, dst)
    for p in [dst, *dst.rglob("*")]:
        p.chmod(0o700 if p.is_dir() else 0o600)
    return dst


def clear_client_cache() -> None:
    """Forget chromadb's per-path client systems (after the files under a path were moved or replaced)."""
    with contextlib.suppress(Exception):  # an older chromadb without the cache
        from chromadb.api.client import SharedSystemClient

        SharedSystemClient.clear_system_cache()


def client_open(data_dir: Path) -> bool:
    """Whether this process holds a Chroma client on DATA_DIR/chroma (then nothing may open its SQLite file
    with sqlite3 here: closing that handle would drop the client's POSIX locks -- RELIABILITY #18)."""
    import sys

    if "chromadb" not in sys.modules:
        return False
    try:
        from chromadb.api.client import SharedSystemClient

        cached = dict(SharedSystemClient._identifier_to_system)
    except Exception:  # noqa: BLE001 - a chromadb without this cache: assume a client may be open
        return True
    target = str((Path(data_dir) / "chroma").resolve())
    return any(str(k) == target or str(k) == str(Path(data_dir) / "chroma") for k in cached)


def _reraise_control(e: BaseException) -> None:
    if isinstance(e, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        raise e


def damaged(data_dir: Path, e: BaseException) -> StoreError:
    """The error for a vector store that fails to open or answer: what failed and the command that fixes it."""
    from ..errors import DiskFullError, StoreDamagedError

    text = str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__
    low = text.lower()
    if getattr(e, "errno", None) == 28 or "disk is full" in low or "no space left" in low:  # ENOSPC / SQLITE_FULL
        return DiskFullError(f"The disk holding {data_dir} is full: the vector store cannot write ({text}).",
                             hint="Free disk space there, then run the same command again: committed batches are "
                             "kept, and the unfinished one is redone (`paperchat doctor` checks the store).")
    if "database is locked" in low or "database is busy" in low:  # another process's Chroma client writes
        from ..errors import StoreLockedError
        from .lock import server_name, serving_pid

        pid = serving_pid(data_dir)
        who = server_name(pid) if pid else "another process"
        return StoreLockedError(f"The vector store in {data_dir} is busy: {who} is using it.",
                                hint=f"Stop {server_name(pid) if pid else 'the other process using it'} first, "
                                "or wait for it and run the same command again.")
    if getattr(e, "errno", None) in (30, 13) or "readonly database" in low or "read-only" in low:  # EROFS, EACCES
        return StoreError(f"Cannot write the vector store in {data_dir} ({text}).",
                          hint="The directory is read-only or not yours: fix its permissions, "
                               "or use another --data-dir.")
    return StoreDamagedError(
        f"The vector store in {data_dir / 'chroma'} cannot be used ({type(e).__name__}: {text}).",
        hint="Run `paperchat doctor` to see what is damaged; `paperchat rebuild-index --dense` rebuilds the vectors "
        "from the records store (the damaged files are moved aside, not deleted).",
    )


def translated(method: Callable) -> Callable:
    """Chroma failures (exceptions and Rust panics) leave a store method as a StoreError naming the fix."""

    @functools.wraps(method)
    def wrapper(self: ChromaStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except StoreError:
            raise
        except BaseException as e:
            _reraise_control(e)
            raise damaged(self.data_dir, e) from e

    return wrapper


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
    """Both collections of one index. `create=False` opens only what exists (reads never create
    collections); a write path calls `ensure()` first."""

    def __init__(self, data_dir: Path, chroma_url: str, name: str, model: str, dim: int, create: bool = True) -> None:
        self.data_dir, self.chroma_url, self.name = data_dir, chroma_url, name
        self.model, self.dim = model, dim
        self.client = _client(data_dir, chroma_url)
        self.contract = {"embedding_model": model, "embedding_dim": dim, "distance": "cosine", "schema": SCHEMA}
        self.chunks: Any = None
        self.papers: Any = None
        if create:
            self.ensure()
        else:
            self.chunks, self.papers = self._existing(f"{name}-chunks"), self._existing(f"{name}-papers")

    @property
    def exists(self) -> bool:
        return self.chunks is not None and self.papers is not None

    def ensure(self) -> None:
        if not self.exists:
            self.chunks = self._collection(f"{self.name}-chunks", self.contract)
            self.papers = self._collection(f"{self.name}-papers", self.contract)

    @translated
    def collection_names(self) -> list[str]:
        return sorted(c if isinstance(c, str) else c.name for c in self.client.list_collections())

    @translated
    def _existing(self, cname: str):
        try:
            col = self.client.get_collection(cname, embedding_function=None)
        except Exception as e:  # NotFoundError (1.x) or ValueError (0.x): no such collection
            if "does not exist" in str(e) or type(e).__name__ == "NotFoundError":
                return None
            raise
        self._check_contract(cname, col)
        return col

    @translated
    def _collection(self, cname: str, contract: dict[str, Any]):
        col = self.client.get_or_create_collection(
            cname, metadata={**contract, "generation": "0"}, configuration={"hnsw": {"space": "cosine"}},
            embedding_function=None,
        )
        self._check_contract(cname, col)
        return col

    def _check_contract(self, cname: str, col: Any) -> None:
        meta = col.metadata or {}
        if meta.get("embedding_model") != self.model or int(meta.get("embedding_dim", -1)) != self.dim:
            raise EmbeddingMismatchError(
                f"Collection {cname} was built with {meta.get('embedding_model')} "
                f"(dim {meta.get('embedding_dim')}), but {self.model} (dim {self.dim}) is configured.",
                hint="Use the model the index was built with, or rebuild the vectors with the new model: "
                "`paperchat rebuild-index --dense` with the new model setting.",
            )

    # -- writes -------------------------------------------------------------------------------
    def max_batch(self) -> int:
        try:
            return int(self.client.get_max_batch_size())
        except Exception:  # noqa: BLE001 - older servers lack the call; Chroma's documented floor
            return 5461

    @translated
    def upsert_chunks(self, ids: list[str], vectors: np.ndarray, docs: list[str], metas: list[dict]) -> None:
        step = self.max_batch()
        for lo in range(0, len(ids), step):
            sl = slice(lo, lo + step)
            self.chunks.upsert(ids=ids[sl], embeddings=vectors[sl], documents=docs[sl], metadatas=metas[sl])

    @translated
    def upsert_papers(self, records: list[Record], vectors: np.ndarray) -> None:
        step = self.max_batch()
        for lo in range(0, len(records), step):
            batch = records[lo : lo + step]
            self.papers.upsert(
                ids=[r.paper_id for r in batch], embeddings=vectors[lo : lo + step],
                documents=[r.text for r in batch], metadatas=[record_metadata(r) for r in batch],
            )

    @translated
    def delete_chunks_of(self, paper_ids: list[str]) -> None:
        for lo in range(0, len(paper_ids), 500):
            self.chunks.delete(where={"paper_id": {"$in": paper_ids[lo : lo + 500]}})

    @translated
    def delete_papers(self, paper_ids: list[str]) -> None:
        for lo in range(0, len(paper_ids), 500):
            part = paper_ids[lo : lo + 500]
            self.chunks.delete(where={"paper_id": {"$in": part}})
            self.papers.delete(ids=part)

    @translated
    def bump_generation(self) -> str:
        gen = f"{time.time_ns()}"
        for col in (self.chunks, self.papers):
            meta = dict(col.metadata or {})
            meta["generation"] = gen
            meta.pop("hnsw:space", None)
            col.modify(metadata=meta)
        return gen

    # -- reads --------------------------------------------------------------------------------
    @translated
    def generation(self) -> str:
        if self.papers is None:
            return "0"
        try:
            return str((self.client.get_collection(self.papers.name, embedding_function=None).metadata or {})
                       .get("generation", "0"))
        except Exception as e:
            raise StoreError(f"The vector store is unavailable: {e}",
                             hint="Check the data directory or the server.") from e

    @translated
    def count(self) -> tuple[int, int]:
        if not self.exists:
            return 0, 0
        return self.papers.count(), self.chunks.count()

    @translated
    def get_papers(self, ids: list[str] | None = None) -> list[tuple[Record, str]]:
        """(record, hash) for the given ids, or for every paper."""
        if self.papers is None:
            return []
        if ids is not None:
            out = []
            for lo in range(0, len(ids), 1000):
                got = self.papers.get(ids=ids[lo : lo + 1000], include=["documents", "metadatas"])
                for doc, meta in zip(got["documents"], got["metadatas"]):
                    out.append((record_from_row(doc, meta), str(meta.get("hash", ""))))
            return out
        return list(self._paged(self.papers,
                                lambda doc, meta, _id: (record_from_row(doc, meta), str(meta.get("hash", "")))))

    @translated
    def paper_vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        got = self.papers.get(ids=ids, include=["embeddings"])
        return {i: np.asarray(e, dtype=np.float32) for i, e in zip(got["ids"], got["embeddings"])}

    @translated
    def chunk_vectors(self, limit: int) -> tuple[list[str], np.ndarray]:
        """Up to `limit` chunk ids and their stored vectors (for the self-retrieval probe)."""
        got = self.chunks.get(include=["embeddings"], limit=limit)
        return list(got["ids"]), np.asarray(got["embeddings"], dtype=np.float32)

    @translated
    def all_chunks(self) -> list[tuple[str, str, dict]]:
        """(chunk_id, text, metadata) of every chunk (for rebuilding the lexical index)."""
        if self.chunks is None:
            return []
        return list(self._paged(self.chunks, lambda doc, meta, _id: (_id, doc, meta)))

    def _paged(self, col, make, page: int = 5000):
        offset = 0
        while True:
            got = col.get(include=["documents", "metadatas"], limit=page, offset=offset)
            if not got["ids"]:
                return
            for _id, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
                yield make(doc, meta, _id)
            offset += len(got["ids"])

    @translated
    def query_chunks(
        self, vector: np.ndarray, n: int, where: dict | None = None, metadata: bool = True
    ) -> list[tuple[str, float, dict]]:
        """(chunk_id, cosine similarity, metadata) best first; `metadata=False` leaves it `{}` (cheaper).

        No `count()` first: Chroma returns fewer than `n` (or none) from a small or empty collection."""
        if self.chunks is None:
            return []
        got = self.chunks.query(
            query_embeddings=[vector], n_results=max(1, n), where=where,
            include=["distances", "metadatas"] if metadata else ["distances"],
        )
        metas = got["metadatas"][0] if metadata else [{}] * len(got["ids"][0])
        return [(i, 1.0 - float(d), m) for i, d, m in zip(got["ids"][0], got["distances"][0], metas)]

    @translated
    def nearest_papers(self, vectors: np.ndarray, n: int = 1) -> list[list[tuple[str, float]]]:
        if self.papers is None or self.papers.count() == 0 or len(vectors) == 0:
            return [[] for _ in range(len(vectors))]
        got = self.papers.query(query_embeddings=vectors, n_results=min(n, self.papers.count()), include=["distances"])
        return [[(i, 1.0 - float(d)) for i, d in zip(ids, ds)] for ids, ds in zip(got["ids"], got["distances"])]
