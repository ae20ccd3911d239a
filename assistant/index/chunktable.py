"""The records store's chunks table (lexical-first ingest, issue 12): a mixin of `RecordStore`.

Lexical-first ingest (issue 12) uses that: `put_lexical` stores a batch of records (pending) and their
chunks (text, the text to embed, metadata) in ONE transaction, so BM25 can be built from this file
alone and the records are searchable before any vector exists; the embed job (index/embedjob.py) then
reads pending records' chunks from here, writes their vectors, and `mark_indexed` flips them to indexed
in one transaction (only if the record was not replaced meanwhile: its hash still matches). A kill at
any point leaves every record either pending (re-embedded by the next run; Chroma upserts by chunk id,
so nothing is duplicated) or indexed. Two generations: `generation` moves on every write (readers
notice new vectors), `lexical_generation` only when chunks change (BM25 is rebuilt only then).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence

from ..types import Record

PENDING, INDEXED = "pending", "indexed"
LEXICAL = "lexical_generation"  # meta key: moves when chunks change (the BM25 index and the catalog follow it)
CHUNKS = "chunks"  # meta key: "1" once the chunks table holds every record's chunks (lexical-first stores)


def _dump(r: Record) -> str:
    return json.dumps(r.to_dict(), ensure_ascii=False)


def _load(data: str) -> Record:
    return Record.from_dict(json.loads(data))


class ChunkTable:
    """Chunks of the stored records and the pending/indexed bookkeeping of the embed job. Needs `_db`,
    `_reading`, `_writing` and `_transaction` from `RecordStore`."""

    def put_lexical(self, records: Sequence[Record],
                    chunks: Sequence[Sequence[tuple[str, int, str, str, dict]]]) -> str:
        """Records as pending and their chunks (id, index, text, text to embed, metadata), one transaction;
        an updated record's old chunks go. Returns the new lexical generation."""
        gen = f"{time.time_ns()}"
        with self._transaction():
            cur = self._db.execute("INSERT INTO batches (started, size, status) VALUES (?, ?, 'lexical')",
                                   (time.time(), len(records)))
            batch = int(cur.lastrowid or 0)
            self._db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?)",
                                 [(r.paper_id, r.hash, _dump(r), PENDING, batch) for r in records])
            self._db.executemany("DELETE FROM chunks WHERE paper_id=?", [(r.paper_id,) for r in records])
            self._db.executemany("INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?)", [
                (cid, r.paper_id, i, text, embed, json.dumps(meta, ensure_ascii=False))
                for r, cs in zip(records, chunks) for cid, i, text, embed, meta in cs])
            for key in (LEXICAL, "generation"):
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, gen))
        return gen

    def mark_indexed(self, records: Sequence[Record], regroup: bool = False) -> str:
        """The records' vectors are written: indexed (if still the same version), in one transaction.
        `regroup`: some were found to be near-duplicates; their stored record and chunk groups follow."""
        gen = f"{time.time_ns()}"
        with self._transaction():
            self._db.executemany("UPDATE records SET state=?, data=? WHERE paper_id=? AND hash=?",
                                 [(INDEXED, _dump(r), r.paper_id, r.hash) for r in records])
            if regroup:
                for r in records:
                    rows = self._db.execute("SELECT chunk_id, meta FROM chunks WHERE paper_id=?",
                                            (r.paper_id,)).fetchall()
                    for cid, meta in rows:
                        m = json.loads(meta)
                        m["group"] = r.duplicate_of or r.paper_id
                        self._db.execute("UPDATE chunks SET meta=? WHERE chunk_id=?", (json.dumps(m), cid))
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (LEXICAL, gen))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (gen,))
        return gen

    def put_chunks(self, chunks: Sequence[tuple[str, str, int, str, str, dict]], complete: bool = False) -> None:
        """Chunks (id, paper_id, index, text, text to embed, metadata) of stored records, states untouched
        (filling the table for a store made before it existed); `complete` marks the table whole."""
        gen = f"{time.time_ns()}"
        with self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
                                 [(c, p, i, t, e, json.dumps(m, ensure_ascii=False)) for c, p, i, t, e, m in chunks])
            if complete:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (CHUNKS,))
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (LEXICAL, gen))

    def lexical_generation(self) -> str:
        return self.get_meta(LEXICAL) or "0"

    def has_chunks(self) -> bool:
        """True when the chunks table is complete (BM25 is built from it, not from the vector store)."""
        return self.get_meta(CHUNKS) == "1"

    def chunks_of(self, paper_ids: Sequence[str]) -> dict[str, list[tuple[str, str, str, dict]]]:
        """paper_id -> its chunks in order: (chunk_id, text, text to embed, metadata)."""
        out: dict[str, list[tuple[str, str, str, dict]]] = {}
        with self._reading():
            for lo in range(0, len(paper_ids), 500):
                part = list(paper_ids[lo : lo + 500])
                q = (f"SELECT paper_id, chunk_id, text, embed, meta FROM chunks WHERE paper_id IN "
                     f"({','.join('?' * len(part))}) ORDER BY paper_id, idx")
                for p, cid, text, embed, meta in self._db.execute(q, part):
                    out.setdefault(p, []).append((cid, text, embed, json.loads(meta)))
        return out

    def iter_chunks(self, page: int = 5000) -> Iterator[tuple[str, str, dict]]:
        """(chunk_id, text, metadata) of every chunk, paged (for building BM25)."""
        last = ""
        while True:
            with self._reading():
                rows = self._db.execute("SELECT chunk_id, text, meta FROM chunks WHERE chunk_id > ? "
                                        "ORDER BY chunk_id LIMIT ?", (last, page)).fetchall()
            if not rows:
                return
            for cid, text, meta in rows:
                yield cid, text, json.loads(meta)
            last = rows[-1][0]

    def count_chunks(self) -> int:
        with self._reading():
            return int(self._db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def pending_ids(self) -> frozenset[str]:
        with self._reading():
            return frozenset(r[0] for r in self._db.execute("SELECT paper_id FROM records WHERE state=?", (PENDING,)))

    def pending_page(self, after: str, limit: int) -> list[Record]:
        """Up to `limit` pending records with paper_id > `after`, in paper_id order."""
        with self._reading():
            rows = self._db.execute("SELECT data FROM records WHERE state=? AND paper_id > ? ORDER BY paper_id LIMIT ?",
                                    (PENDING, after, limit)).fetchall()
        return [_load(d) for (d,) in rows]

    def coverage(self) -> tuple[int, int]:
        """(records with vectors, all records)."""
        with self._reading():
            total = int(self._db.execute("SELECT count(*) FROM records").fetchone()[0])
            pend = int(self._db.execute("SELECT count(*) FROM records WHERE state=?", (PENDING,)).fetchone()[0])
        return total - pend, total

    def clear_chunks(self) -> None:
        """Forget every chunk (a re-chunk follows: `Index.backfill_chunks`)."""
        with self._writing():
            self._db.execute("DELETE FROM chunks")
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, '0')", (CHUNKS,))

