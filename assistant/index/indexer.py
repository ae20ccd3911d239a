"""The index: Records in, chunks + vectors in Chroma and a BM25 index beside them; reads for retrieval.

Writes are idempotent and resumable: each record's content hash is stored, so re-ingesting skips
unchanged records, an edited record replaces all its old chunks, and a killed ingest re-run redoes
only the batches that never committed. Each committed batch bumps the store generation; readers
(another process, a UI worker) compare generations and reload the lexical index when it is stale.
Near-duplicates (a second version of a paper) are detected against the store and the batch: cosine
of the paper vectors >= 0.9 and word-trigram Jaccard >= 0.3 (ingest.dedupe: the seed's two GCNet
versions share only 0.375 of their trigrams, unrelated abstracts < 0.04); the later one gets `duplicate_of`.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from ..errors import EmptyIndexError, StoreError
from ..settings import Settings
from ..types import Chunk, Record
from .chunking import ChunkStats, chunk_record
from .embedder import Embedder, get_embedder
from .guards import check_free_space, explain_write_failure, settings_mismatch, vector_settings
from .lexical import LexicalIndex
from .lock import WriteLock
from .records import INDEXED, RecordStore
from .store import ChromaStore, normalise_metadata

NEAR_DUP_COSINE = 0.9
GENERATION_CHECK_S = 1.0  # readers look for other processes' writes at most this often


@dataclass
class _Prepared:
    records: list[Record]
    chunks: list[list[Chunk]]
    vecs: np.ndarray  # one per chunk, in record order
    paper_vecs: np.ndarray  # one per record: the normalised mean of its chunks
    stored: set[str]  # ids of these records already in the store (their old chunks are replaced)


def _batches(records: Iterable[Record], size: int) -> Iterable[list[Record] | None]:
    batch: list[Record] = []
    for r in records:
        batch.append(r)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


@dataclass
class IndexSummary:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    near_duplicates: list[tuple[str, str]] = field(default_factory=list)  # (paper_id, duplicate_of)
    repaired: int = 0  # records left pending by an earlier, interrupted write, redone first
    chunks: ChunkStats = field(default_factory=ChunkStats)


class Index:
    """Records (records store) -> chunks + vectors (Chroma, opened lazily) and BM25, and the reads retrieval needs."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None, *, new_vectors: bool = False) -> None:
        """`new_vectors=True` (rebuild-index --dense) accepts vector settings other than the stored ones."""
        self.settings = settings
        self.embedder = embedder or get_embedder(settings.embedding)
        self.name = settings.index_name()
        self.data_dir = settings.store.data_dir
        self.records_db = RecordStore.open(self.data_dir)
        if not new_vectors:
            self.check_vector_settings()
        self._store: ChromaStore | None = None
        # Server mode keeps the derived lexical index in a local cache keyed by the server URL.
        self.lexical_dir = settings.store.data_dir / "lexical" / self.name
        self._lexical: LexicalIndex | None = None
        self._lex_lock = threading.Lock()
        self._gen_checked = 0.0  # time.monotonic() of the last generation check

    @property
    def store(self) -> ChromaStore:
        """The vector store, opened on first use without creating anything (writes call `ensure()`)."""
        if self._store is None:
            s = self.settings.store
            self._store = ChromaStore(s.data_dir, s.chroma_url, self.name, self.embedder.name, self.embedder.dim, create=False)
            if not self._store.exists:
                self._check_other_collections(self._store)
        return self._store

    def check_vector_settings(self) -> None:
        stored = self.records_db.vectors() if self.records_db else None
        if stored and stored.get("index") != self.name:
            raise settings_mismatch(self.data_dir, stored, vector_settings(self.settings))

    def _check_other_collections(self, store: ChromaStore) -> None:
        """A store made before the records store kept its settings: another index's collections mean a mismatch."""
        prefix = self.settings.store.collection_prefix + "-"
        others = [c[: -len("-papers")] for c in store.collection_names() if c.startswith(prefix) and c.endswith("-papers")
                  and c != f"{self.name}-papers"]  # ours, created by another worker since we looked: no mismatch
        if others and not (self.records_db and self.records_db.vectors()):
            raise settings_mismatch(self.data_dir, {"index": others[0]}, vector_settings(self.settings))

    def writable_records(self) -> RecordStore:
        if self.records_db is None or self.records_db.readonly:
            raise StoreError(f"The data directory {self.data_dir} is read-only: nothing can be written to it.",
                             hint="Search, stats and ask still work; write from an account that may write there.")
        return self.records_db

    def _open_for_writing(self) -> RecordStore:
        """Records store writable, vector settings recorded, collections created, older stores migrated."""
        db = self.writable_records()
        self.check_free_space()
        self.store.ensure()
        if not db.vectors():
            if db.count() == 0 and not self.settings.store.chroma_url:  # a store from before the records store
                batch = [r for r, _ in self.store.get_papers()]
                if batch:
                    db.finish_batch(db.begin_batch(batch), [r.paper_id for r in batch])
            db.set_meta("vectors", json.dumps(vector_settings(self.settings)))
        return db

    def check_free_space(self) -> None:
        check_free_space(self.data_dir, self.settings.ingest.min_free_mb)

    def explain_write_failure(self, e: BaseException) -> BaseException:
        return explain_write_failure(self.data_dir, e)

    # -- writes -------------------------------------------------------------------------------
    def write_lock(self) -> WriteLock:
        """One writer per data directory. With a Chroma server the directory is this worker's local part
        (records store, BM25 cache): N workers share the server, each with its own --data-dir."""
        return WriteLock(self.settings.store.data_dir, server=self.settings.store.chroma_url)

    def add(self, records: Iterable[Record], progress: Callable[[int], None] | None = None) -> IndexSummary:
        """Upsert records in batches; `progress(n)` after each batch commits, with the records it handled.

        Records whose vectors never landed (`pending` in the records store: a killed ingest, a rebuild)
        go first. Two stages overlap: while batch i is written (near-duplicate check, records store,
        Chroma upserts: one writer thread, batches committed in order), batch i+1 is chunked and
        embedded. A failure in either stops the ingest; every batch committed before it stays.
        """
        from concurrent.futures import Future, ThreadPoolExecutor

        summary = IndexSummary()
        lock = self.write_lock()
        if lock:
            lock.acquire()
        pending: tuple[Future, int] | None = None

        def settle() -> None:
            nonlocal pending
            if pending is not None:
                fut, n = pending
                pending = None
                fut.result()  # re-raises a write error here, in the caller's thread
                if progress:
                    progress(n)

        try:
            db = self._open_for_writing()
            redo = db.pending()
            summary.repaired = len(redo)
            with ThreadPoolExecutor(1, thread_name_prefix="index-writer") as writer:
                try:
                    size = self.settings.store.add_batch
                    for batch in itertools.chain(_batches(redo, size), [None], _batches(records, size)):
                        if batch is None:  # the repairs land before any input batch is looked up
                            settle()
                            continue
                        prepared = self._prepare(batch, summary)  # overlaps the previous batch's write
                        settle()
                        pending = (writer.submit(self._commit, prepared, summary), len(batch))
                    settle()
                finally:
                    if pending is not None:  # an error while preparing: the write in flight still lands
                        fut, n = pending
                        if fut.exception() is None and progress:
                            progress(n)
            self.refresh_lexical(force=summary.added + summary.updated > 0)
        except StoreError:
            raise
        except Exception as e:
            raise self.explain_write_failure(e) from e
        finally:
            if lock:
                lock.release()
        return summary

    def _prepare(self, batch: list[Record], summary: IndexSummary) -> "_Prepared | None":
        """Skip unchanged records; chunk and embed the rest (reads only: safe beside a write)."""
        stored = self.writable_records().hashes([r.paper_id for r in batch])
        if self.settings.store.chroma_url:  # other workers write to the server too: its hashes count
            stored = self._server_hashes([r.paper_id for r in batch if r.paper_id not in stored]) | stored
        todo: list[Record] = []
        seen: set[str] = set()
        for r in batch:
            if stored.get(r.paper_id) == (r.hash, INDEXED) or r.paper_id in seen:
                summary.unchanged += 1
                continue
            seen.add(r.paper_id)
            todo.append(r)
            if r.paper_id in stored:
                summary.updated += 1
            else:
                summary.added += 1
        if not todo:
            return None
        chunks_per = [self.chunk(r, summary.chunks) for r in todo]
        texts = [self._embed_text(r, c) for r, cs in zip(todo, chunks_per) for c in cs]
        vecs = self.embedder.embed_documents(texts)
        paper_vecs, pos = np.zeros((len(todo), self.embedder.dim), np.float32), 0
        for i, cs in enumerate(chunks_per):
            v = vecs[pos : pos + len(cs)].mean(axis=0)
            paper_vecs[i] = v / (np.linalg.norm(v) or 1.0)
            pos += len(cs)
        return _Prepared(todo, chunks_per, vecs, paper_vecs, set(stored))

    def _commit(self, p: "_Prepared | None", summary: IndexSummary) -> None:
        """Write one prepared batch: records (pending) first, then old chunks out, new chunks and papers in,
        then the records become indexed. A crash in between leaves pending records, redone next time."""
        if p is None:
            return
        todo = self._mark_near_duplicates(p.records, p.paper_vecs, p.stored, summary)
        db = self.writable_records()
        batch = db.begin_batch(todo)
        updated = [r.paper_id for r in todo if r.paper_id in p.stored]
        if updated:
            self.store.delete_chunks_of(updated)
        flat = [(r, c) for r, cs in zip(todo, p.chunks) for c in cs]
        self.store.upsert_chunks(
            [c.chunk_id for _, c in flat], p.vecs, [c.text for _, c in flat], [self._chunk_meta(r, c) for r, c in flat]
        )
        self.store.upsert_papers(todo, p.paper_vecs)
        self.store.bump_generation()
        db.finish_batch(batch, [r.paper_id for r in todo])

    def _server_hashes(self, paper_ids: list[str]) -> dict[str, tuple[str, str]]:
        """paper_id -> (hash, indexed) of the papers another worker already wrote to the Chroma server."""
        if not paper_ids or self.store.papers is None:
            return {}
        return {r.paper_id: (h, INDEXED) for r, h in self.store.get_papers(paper_ids)}

    def chunk(self, r: Record, stats: ChunkStats | None = None) -> list[Chunk]:
        """The record's chunks, each sized so that it and its title prefix fit the embedder's window."""
        c = self.settings.chunking
        room = self.settings.embedding.max_seq_tokens - 2  # [CLS] and [SEP]
        prefix = self._embed_text(r, None)
        budget = min(c.chunk_tokens, room - (self.embedder.count_tokens(prefix) if prefix else 0))
        return chunk_record(r, self.embedder.count_tokens, max(32, budget), c.overlap_sentences, stats)

    def _embed_text(self, r: Record, c: Chunk | None) -> str:
        """What is embedded for chunk `c` (the title prefix alone when `c` is None)."""
        text = c.text if c is not None else ""
        if self.settings.chunking.include_title and r.title and not r.label_derived:
            return f"{r.title}. {text}"
        return text

    @staticmethod
    def _chunk_meta(r: Record, c: Chunk) -> dict:
        return normalise_metadata({
            "paper_id": r.paper_id, "group": r.duplicate_of or r.paper_id, "chunk": c.index,
            "sent_start": c.sent_start, "sent_end": c.sent_end, "char_start": c.char_start, "char_end": c.char_end,
            "year": r.year, "source": r.source,
        })

    def _mark_near_duplicates(
        self, todo: list[Record], vecs: np.ndarray, stored: set[str], summary: IndexSummary
    ) -> list[Record]:
        from ..ingest.dedupe import NEAR_DUP_THRESHOLD, jaccard

        out: list[Record] = []
        neighbours = self.store.nearest_papers(vecs, n=2)
        within = vecs @ vecs.T  # cosines between the records of this batch (unit vectors)
        for i, r in enumerate(todo):
            if r.duplicate_of:  # a claim from the input: kept only if the project's own test agrees
                claim, r = r.duplicate_of, dataclasses.replace(r, duplicate_of="")
                target = next((p.text for p in out if p.paper_id == claim), None)
                if target is None and claim != r.paper_id:
                    target = next((rec.text for rec, _ in self.store.get_papers([claim])), None)
                if target is not None and jaccard(r.text, target) >= NEAR_DUP_THRESHOLD:
                    summary.near_duplicates.append((r.paper_id, claim))
                    out.append(dataclasses.replace(r, duplicate_of=claim))
                    continue
            cands = [(pid, cos) for pid, cos in neighbours[i] if pid != r.paper_id and cos >= NEAR_DUP_COSINE]
            # earlier records of this batch
            for j in np.flatnonzero(within[i, :i] >= NEAR_DUP_COSINE):
                if out[j].paper_id != r.paper_id:
                    cands.append((out[j].paper_id, float(within[i, j])))
            dup = ""
            if cands:
                texts = {p.paper_id: p.text for p in out}
                missing = [pid for pid, _ in cands if pid not in texts]
                texts.update({rec.paper_id: rec.text for rec, _ in self.store.get_papers(missing)} if missing else {})
                for pid, _ in sorted(cands, key=lambda x: -x[1]):
                    if pid in texts and jaccard(r.text, texts[pid]) >= NEAR_DUP_THRESHOLD:
                        dup = pid
                        break
            if dup:
                summary.near_duplicates.append((r.paper_id, dup))
                r = dataclasses.replace(r, duplicate_of=dup)
            out.append(r)
        return out

    def delete(self, paper_ids: list[str], purge: bool = False) -> list[str]:
        """Delete papers (all their chunks); returns the ids that were not found.

        `purge` then compacts the stores so the deleted text no longer sits anywhere on disk (see README)."""
        lock = self.write_lock()
        if lock:
            lock.acquire()
        try:
            db = self.writable_records()
            found = set(db.get(paper_ids)) | {r.paper_id for r, _ in self.store.get_papers(paper_ids)}
            if found:
                self.store.delete_papers(sorted(found))
                db.delete(sorted(found))
                self.store.bump_generation()
                db.bump_generation()
                self.refresh_lexical(force=True)
            if purge:
                from .repair import purge_deleted

                purge_deleted(self)
            return [p for p in paper_ids if p not in found]
        finally:
            if lock:
                lock.release()

    # -- reads --------------------------------------------------------------------------------
    def refresh_lexical(self, force: bool = False) -> LexicalIndex:
        """The lexical index for the store's current generation (loaded, or rebuilt when stale)."""
        with self._lex_lock:
            now = time.monotonic()
            if not force and self._lexical is not None and now - self._gen_checked < GENERATION_CHECK_S:
                return self._lexical  # this process's writes force a refresh; others' show within 1 s
            gen = self.store.generation()
            self._gen_checked = now
            if not force and self._lexical is not None and self._lexical.generation == gen:
                return self._lexical
            lex = None if force else LexicalIndex.load(self.lexical_dir)
            if lex is None or lex.generation != gen or (lex.spans is None and lex.ids):  # stale, or saved before spans
                ids, texts, metas = [], [], []
                for cid, text, meta in self.store.all_chunks():
                    ids.append(cid)
                    texts.append(text)
                    metas.append(meta or {})
                lex = LexicalIndex.build(ids, texts, gen, metas)
                lex.save(self.lexical_dir)
            self._lexical = lex
            return lex

    def require_content(self) -> None:
        papers, _ = self.store.count()
        if papers == 0:
            raise EmptyIndexError(f"The index in {self.settings.store.data_dir} is empty.")

    def records(self, paper_ids: list[str]) -> dict[str, Record]:
        """Stored records by id, from the records store (so a chunk never shows without its paper).

        With a Chroma server other processes write too, each with its own local records store: reads
        then come from the server's papers collection."""
        if self._local_records():
            return self.records_db.get(paper_ids)
        return {r.paper_id: r for r, _ in self.store.get_papers(paper_ids)}

    def _local_records(self) -> bool:
        return self.records_db is not None and not self.settings.store.chroma_url and bool(self.records_db.vectors())

    def all_records(self) -> Iterable[Record]:
        if self._local_records():
            yield from self.records_db.iter_records()
            return
        for r, _ in self.store.get_papers():
            yield r

    def stats(self) -> dict:
        papers, chunks = self.store.count()
        db = self.records_db
        return {
            "papers": papers, "chunks": chunks,
            "records": db.count() if db and not self.settings.store.chroma_url else papers,  # server: all workers
            "pending": db.count("pending") if db else 0, "index": self.name, "embedding_model": self.embedder.name,
            "embedding_dim": self.embedder.dim, "store": self.settings.store.chroma_url or str(self.settings.store.data_dir),
            "generation": self.store.generation(),
        }
