"""The index: Records in, chunks + vectors in Chroma and a BM25 index beside them; reads for retrieval.

Writes are idempotent and resumable: each record's content hash is stored, so re-ingesting skips
unchanged records, an edited record replaces all its old chunks, and a killed ingest re-run redoes
only the batches that never committed. Each committed batch bumps the store generation; readers
(another process, a UI worker) compare generations and reload the lexical index when it is stale.
Lexical first (issue 12): `add` stores records with their chunks in the records store and builds BM25
from there, so they are searchable within seconds; the vectors follow (`embed_pending`, index/embedjob.py,
in the same call or a later/background `paperchat embed`). Near-duplicates (a second version of a paper)
are detected by the embed job against the store and the batch: cosine of the paper vectors >= 0.9 and
word-trigram Jaccard >= 0.3 (ingest.dedupe: the seed's two GCNet versions share only 0.375 of their
trigrams, unrelated abstracts < 0.04).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..errors import EmptyIndexError, StoreError
from ..settings import Settings
from ..types import Chunk, Record
from .chunking import ChunkStats, chunk_record
from .coverage import GENERATION_CHECK_S, DenseView, release_memory
from .embedder import Embedder, get_embedder
from .guards import check_free_space, explain_write_failure, settings_mismatch, vector_settings
from .lexical import LexicalIndex
from .lock import WriteLock
from .recordguard import open_records, records_lost, refuse_lost_records
from .records import INDEXED, PENDING, RecordStore
from .store import ChromaStore, normalise_metadata

LEXICAL_REFRESH_S = 20.0  # a long lexical phase rebuilds BM25 this often, so early records are searchable early


def _batches(records: Iterable[Record], size: int) -> Iterable[list[Record]]:
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
    repaired: int = 0  # records left pending by an earlier, interrupted write (embedded by this call)
    chunks: ChunkStats = field(default_factory=ChunkStats)
    embedded: int = 0  # records whose vectors this call wrote (0 with embed=False: `paperchat embed` follows)


class Index:
    """Records (records store) -> chunks + vectors (Chroma, opened lazily) and BM25, and the reads retrieval needs."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None, *, new_vectors: bool = False) -> None:
        """`new_vectors=True` (rebuild-index --dense) accepts vector settings other than the stored ones."""
        self.settings = settings
        self.embedder = embedder or get_embedder(settings.embedding)
        self.name = settings.index_name()
        self.data_dir = settings.store.data_dir
        self.records_problem = ""  # why the records store cannot be trusted (issue 23): writes refused
        self.records_db = self._open_records()
        if not new_vectors:
            self.check_vector_settings()
        self._store: ChromaStore | None = None
        # Server mode keeps the derived lexical index in a local cache keyed by the server URL.
        self.lexical_dir = settings.store.data_dir / "lexical" / self.name
        self._lexical: LexicalIndex | None = None
        self._lex_lock = threading.Lock()
        self._gen_checked = 0.0  # time.monotonic() of the last generation check
        self._dense_gen = ""  # the vector store generation this process has seen (opened at, or wrote)
        self.embedding_here = False  # this process's embed job is writing (its writes are visible to it)
        self.dense_view = DenseView(self)

    @property
    def store(self) -> ChromaStore:
        """The vector store, opened on first use without creating anything (writes call `ensure()`)."""
        if self._store is None:
            s = self.settings.store
            self._store = ChromaStore(s.data_dir, s.chroma_url, self.name, self.embedder.name, self.embedder.dim,
                                      create=False)
            if not self._store.exists:
                self._check_other_collections(self._store)
            self._dense_gen = self._store.generation()
        return self._store

    def _open_records(self) -> RecordStore | None:
        return open_records(self)

    def records_lost(self, vectors: bool = True) -> str:
        """Why the records store is not the whole source of truth any more ('' when it is): recordguard.py."""
        return records_lost(self, vectors)

    def check_vector_settings(self) -> None:
        stored = self.records_db.vectors() if self.records_db else None
        if stored and stored.get("index") != self.name:
            raise settings_mismatch(self.data_dir, stored, vector_settings(self.settings))

    def _check_other_collections(self, store: ChromaStore) -> None:
        """A store made before the records store kept its settings: another index's collections mean a mismatch."""
        prefix = self.settings.store.collection_prefix + "-"
        others = [c[: -len("-papers")] for c in store.collection_names()
                  if c.startswith(prefix) and c.endswith("-papers")
                  and c != f"{self.name}-papers"]  # ours, created by another worker since we looked: no mismatch
        if others and not (self.records_db and self.records_db.vectors()):
            raise settings_mismatch(self.data_dir, {"index": others[0]}, vector_settings(self.settings))

    def writable_records(self) -> RecordStore:
        refuse_lost_records(self)
        if self.records_db is None or self.records_db.readonly:
            raise StoreError(f"The data directory {self.data_dir} is read-only: nothing can be written to it.",
                             hint="Search, stats and ask still work; write from an account that may write there.")
        return self.records_db

    def _open_for_writing(self) -> RecordStore:
        """Records store writable, vector settings recorded, older stores migrated (no Chroma write here)."""
        from .upgrade import before_write

        db = self.writable_records()
        self.check_free_space()
        before_write(self, db)  # another chromadb wrote this store last: a backup first (or a refused downgrade)
        if not db.vectors():
            db.set_meta("vectors", json.dumps(vector_settings(self.settings)))
        if not db.has_chunks():
            self.backfill_chunks(db)
        return db

    def backfill_chunks(self, db: RecordStore) -> None:
        """Fill the chunks table from the records (a store made before lexical-first ingest), states untouched."""
        rows: list = []
        for r in db.iter_records():
            rows.extend((cid, r.paper_id, i, text, embed, meta) for cid, i, text, embed, meta in self.chunk_rows(r))
            if len(rows) >= 5000:
                db.put_chunks(rows)
                rows = []
        db.put_chunks(rows, complete=True)

    def check_free_space(self) -> None:
        check_free_space(self.data_dir, self.settings.ingest.min_free_mb)

    def explain_write_failure(self, e: BaseException) -> BaseException:
        return explain_write_failure(self.data_dir, e)

    # -- writes -------------------------------------------------------------------------------
    def write_lock(self) -> WriteLock:
        """One writer per data directory. With a Chroma server the directory is this worker's local part
        (records store, BM25 cache): N workers share the server, each with its own --data-dir."""
        return WriteLock(self.settings.store.data_dir, server=self.settings.store.chroma_url)

    def add(self, records: Iterable[Record], progress: Callable[[int], None] | None = None, *, embed: bool = True,
            embed_progress: Callable[[int], None] | None = None) -> IndexSummary:
        """Lexical-first upsert. Phase 1 (under the write lock): each batch of new or changed records is
        chunked and stored with its chunks in the records store (pending, one transaction per batch;
        `progress(n)` after each), and BM25 is rebuilt from the records store -- the records are searchable
        and answerable from then on. Phase 2 (`embed=True`): their vectors follow (index/embedjob.py;
        `embed_progress(n)` per batch). A failure in either keeps everything committed before it; a
        killed run leaves pending records that the next run (or `paperchat embed`) embeds."""
        summary = IndexSummary()
        lock = self.write_lock()
        if lock:
            lock.acquire()
        try:
            db = self._open_for_writing()
            summary.repaired = db.count(PENDING)
            changed, built, cost = 0, time.monotonic(), 0.0
            for batch in _batches(records, self.settings.store.add_batch):
                changed += self._put_lexical(db, batch, summary)
                if progress:
                    progress(len(batch))
                # a long lexical phase makes what is stored so far searchable every LEXICAL_REFRESH_S, but
                # spends at most a quarter of its time on these rebuilds (each is O(all chunks))
                if (changed and time.monotonic() - built > max(LEXICAL_REFRESH_S, 3 * cost)
                        and self._lexical_from_records()):
                    t = time.monotonic()
                    self.refresh_lexical(force=True)
                    built, changed, cost = time.monotonic(), 0, time.monotonic() - t
            if changed and self._lexical_from_records():  # (server mode: BM25 follows the server's chunks)
                self.refresh_lexical(force=True)
        except StoreError:
            raise
        except Exception as e:
            raise self.explain_write_failure(e) from e
        finally:
            if lock:
                lock.release()
        if embed:
            with self._lex_lock:
                self._lexical = None  # saved on disk; the embed phase does not need it in memory (reloaded on use)
            release_memory()  # the BM25 builds' garbage: the embed phase's RSS starts lower
            self.embed_pending(summary, embed_progress)
        else:
            summary.repaired = 0
        return summary

    def embed_pending(self, summary: IndexSummary | None = None, progress: Callable[[int], None] | None = None,
                      stop: Callable[[], bool] | None = None, limit: int | None = None) -> IndexSummary:
        """Phase 2 alone: vectors for every pending record (`paperchat embed`); `limit`: at most that many."""
        from .embedjob import embed_pending

        summary = summary or IndexSummary(repaired=self.records_db.count(PENDING) if self.records_db else 0)
        try:
            done = embed_pending(self, progress, stop, limit)
        except StoreError:
            raise
        except Exception as e:
            raise self.explain_write_failure(e) from e
        summary.embedded += done.embedded
        summary.near_duplicates.extend(done.near_duplicates)
        if done.embedded and not self._lexical_from_records():
            self.refresh_lexical(force=True)  # server mode: new chunks on the server
        if done.near_duplicates:  # their chunk groups changed and the lexical generation moved: BM25 is rebuilt
            self._gen_checked = 0.0  # by the next search (not here, beside the encoder and HNSW: 2.2 GB at 75k)
        return summary

    def _put_lexical(self, db: RecordStore, batch: list[Record], summary: IndexSummary) -> int:
        """Store the batch's new and changed records (pending) with their chunks; how many were stored."""
        stored = db.hashes([r.paper_id for r in batch])
        if self.settings.store.chroma_url:  # other workers write to the server too: its hashes count
            stored = self._server_hashes([r.paper_id for r in batch if r.paper_id not in stored]) | stored
        todo: list[Record] = []
        seen: set[str] = set()
        for r in batch:
            if (r.paper_id in stored and stored[r.paper_id][0] == r.hash) or r.paper_id in seen:
                summary.unchanged += 1  # pending with the same content counts too: its vectors are coming
                continue
            seen.add(r.paper_id)
            todo.append(r)
            if r.paper_id in stored:
                summary.updated += 1
            else:
                summary.added += 1
        if todo:
            db.put_lexical(todo, [self.chunk_rows(r, summary.chunks) for r in todo])
        return len(todo)

    def chunk_rows(self, r: Record, stats: ChunkStats | None = None) -> list[tuple[str, int, str, str, dict]]:
        """(chunk_id, index, text, text to embed, metadata) of each chunk of `r`, as the records store keeps them."""
        return [(c.chunk_id, c.index, c.text, self._embed_text(r, c), self._chunk_meta(r, c))
                for c in self.chunk(r, stats)]

    def open_vectors(self) -> None:
        """The vector collections, created if missing (the embed job's first step)."""
        from .upgrade import before_write

        self.check_free_space()
        if self.records_db is not None and not self.records_db.readonly:
            before_write(self, self.records_db)
        self.store.ensure()

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
            # "group": a near-duplicate's group, set by the embed job
            "paper_id": r.paper_id, "group": r.paper_id, "chunk": c.index,
            "sent_start": c.sent_start, "sent_end": c.sent_end, "char_start": c.char_start, "char_end": c.char_end,
            "year": r.year, "source": r.source,
        })

    def delete(self, paper_ids: list[str], purge: bool = False) -> list[str]:
        """Delete papers (all their chunks); returns the ids that were not found. `purge` then compacts
        the stores so the deleted text no longer sits anywhere on disk (repair.delete_papers)."""
        from .repair import delete_papers

        return delete_papers(self, paper_ids, purge)

    # -- reads --------------------------------------------------------------------------------
    def refresh_lexical(self, force: bool = False) -> LexicalIndex:
        """The lexical index for the store's current generation (loaded, or rebuilt when stale)."""
        with self._lex_lock:
            now = time.monotonic()
            if not force and self._lexical is not None and now - self._gen_checked < GENERATION_CHECK_S:
                return self._lexical  # this process's writes force a refresh; others' show within 1 s
            gen = self.lexical_generation()
            self._gen_checked = now
            if not force and self._lexical is not None and self._lexical.generation == gen:
                return self._lexical
            lex = None
            if not force:
                saved = LexicalIndex.saved_generation(self.lexical_dir)
                busy = saved is not None and self._writer_busy()  # it saves a fresh build every few seconds
                if busy and self._lexical is not None and self._lexical.generation == saved:
                    return self._lexical  # the writer's latest build is the one loaded
                lex = LexicalIndex.load(self.lexical_dir) if saved is not None else None
                if lex is not None and busy and lex.generation != gen:
                    self._lexical = lex  # stale by at most the writer's rebuild interval; not rebuilt here
                    return lex
            if lex is None or lex.generation != gen or (lex.spans is None and lex.ids):  # stale, or saved before spans
                ids, texts, metas = [], [], []
                source = self.records_db.iter_chunks() if self._lexical_from_records() else self.store.all_chunks()
                for cid, text, meta in source:
                    ids.append(cid)
                    texts.append(text)
                    metas.append(meta or {})
                lex = LexicalIndex.build(ids, texts, gen, metas)
                if self.records_db is not None or self.settings.store.chroma_url:  # records lost: the saved
                    lex.save(self.lexical_dir)  # index still names the papers a repair cannot recover
            self._lexical = lex
            return lex

    def _writer_busy(self) -> bool:
        """Another process is storing records or vectors here (lexical-first mode): it rebuilds BM25 itself."""
        if not self._lexical_from_records():
            return False
        from .embedjob import EMBED_LOCK

        return any(WriteLock(self.data_dir, name).holder() not in (None, os.getpid())
                   for name in ("write.lock", EMBED_LOCK))

    def _lexical_from_records(self) -> bool:
        """Embedded mode with a complete chunks table: BM25 comes from the records store (lexical-first),
        so records are searchable before their vectors. Server mode: from the server's chunks (readers
        there read papers from Chroma, and another worker's records store is not on this machine)."""
        return self._local_records() and self.records_db.has_chunks()

    def lexical_generation(self) -> str:
        """What the BM25 index and the filter catalog are built for: moves only when records/chunks change."""
        return self.records_db.lexical_generation() if self._lexical_from_records() else self.store.generation()

    def searchable_generation(self) -> str:
        """The generation of the records searchable now (the loaded BM25 index's): what derived per-corpus
        caches (filter catalog, lexicon) follow, so that during a long ingest they are rebuilt only when
        the writer publishes a BM25 build, not on every batch it stores."""
        try:
            return self.refresh_lexical().generation
        except StoreError:
            return self.lexical_generation()

    def unembedded(self) -> frozenset[str]:
        """Paper ids searchable by BM25 whose vectors this process cannot see yet (index/coverage.py)."""
        return self.dense_view.unembedded()

    def coverage(self) -> dict:
        """Dense coverage: papers with vectors of all searchable papers."""
        return self.dense_view.coverage()

    def require_content(self) -> None:
        if self._lexical_from_records() and self.records_db.count():
            return
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
            "embedding_dim": self.embedder.dim,
            "store": self.settings.store.chroma_url or str(self.settings.store.data_dir),
            "generation": self.store.generation(), "dense_coverage": self.coverage(),
        }
