"""The records store: every ingested record, durable, in DATA_DIR/records.sqlite3 (SQLite, WAL mode).

Records are the source of truth; the vector store (Chroma) and the lexical index (BM25) are derived
from them and can be rebuilt from this file alone (`paperchat rebuild-index`). A batch is written in
two steps around the vector writes:

1. `begin_batch` -- one transaction: the batch row and its records, each in state `pending`;
2. the vectors are written (Chroma), then `finish_batch` -- one transaction: the records become
   `indexed`, the batch `committed`, the generation moves on.

A record is therefore stored before any of its chunks is searchable (retrieval reads papers from here),
and a crash between the steps leaves `pending` records that the next writer re-embeds (`pending()`).
Another stage can write records first and let vectors follow later: `pending` is exactly "records
whose vectors are not there yet". `meta` keeps the settings the vectors were made with (`vectors`).

Lexical-first ingest (issue 12) keeps each record's chunks here too: see `chunktable.py` (ChunkTable).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

from ..errors import RecordsLostError
from ..types import Record
from .chunktable import INDEXED, LEXICAL, PENDING, ChunkTable, _dump, _load
from .recordfile import FileGuard, FileWatch, file_problem, repair_hint

FILE = "records.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY AUTOINCREMENT, started REAL NOT NULL, finished REAL, size INTEGER NOT NULL,
    status TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    paper_id TEXT PRIMARY KEY, hash TEXT NOT NULL, data TEXT NOT NULL, state TEXT NOT NULL,
    batch INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS records_state ON records(state);
CREATE INDEX IF NOT EXISTS records_state_id ON records(state, paper_id);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, paper_id TEXT NOT NULL, idx INTEGER NOT NULL, text TEXT NOT NULL, embed TEXT NOT NULL,
    meta TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_paper ON chunks(paper_id);
"""



class RecordStore(FileGuard, ChunkTable):
    """Records by paper_id, their content hash and state; settings of the vectors; a generation."""

    def __init__(self, data_dir: Path, readonly: bool = False) -> None:
        self.path = Path(data_dir) / FILE
        self.readonly = readonly
        self._lock = threading.RLock()
        self.lost = ""  # why the file can no longer be trusted (set by `check`); writes are then refused
        self.rescued: Path | None = None
        self._inode_whole = False  # the file was removed or replaced: this connection still reads it whole
        problem = file_problem(self.path) if self.path.exists() else ""
        if problem:  # never let SQLite adopt an emptied or truncated file as a fresh store
            raise RecordsLostError(f"The records store {self.path} {problem}.", hint=repair_hint())
        try:
            if readonly:
                self._db = self._connect_readonly()
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise self._translate(e, "opened") from e
        self.watch = FileWatch(self.path)

    def _connect_readonly(self) -> sqlite3.Connection:
        """Read-only. In a read-only directory SQLite cannot make the WAL index (-shm); when no WAL
        content is pending the file is then opened as immutable (nobody can write it there anyway)."""
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False,
                                 isolation_level=None, timeout=30)
            db.execute("SELECT count(*) FROM records").fetchone()
            return db
        except sqlite3.OperationalError:
            wal = self.path.with_name(self.path.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise
        db = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False,
                             isolation_level=None)
        db.execute("SELECT count(*) FROM records").fetchone()
        return db

    @classmethod
    def open(cls, data_dir: Path) -> RecordStore | None:
        """Writable when the directory allows it, else read-only; None when there is none and it can't be made."""
        path = Path(data_dir) / FILE
        if path.exists() and not os.access(path.parent, os.W_OK):
            return cls(data_dir, readonly=True)
        if not path.exists() and path.parent.exists() and not os.access(path.parent, os.W_OK):
            return None
        return cls(data_dir)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- meta -----------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self._reading():
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._writing():
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def vectors(self) -> dict | None:
        """The settings the stored vectors were made with (index name, model, backend, chunking), if any."""
        raw = self.get_meta("vectors")
        return json.loads(raw) if raw else None

    def generation(self) -> str:
        return self.get_meta("generation") or "0"

    # -- batches --------------------------------------------------------------------------------
    def begin_batch(self, records: Sequence[Record]) -> int:
        """Store `records` as pending in one transaction; the batch id for `finish_batch`."""
        with self._transaction():
            cur = self._db.execute("INSERT INTO batches (started, size, status) VALUES (?, ?, ?)",
                                   (time.time(), len(records), PENDING))
            batch = int(cur.lastrowid or 0)
            self._db.executemany(
                "INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?)",
                [(r.paper_id, r.hash, _dump(r), PENDING, batch) for r in records],
            )
            return batch

    def finish_batch(self, batch: int, paper_ids: Sequence[str]) -> str:
        """Mark the batch's records indexed and the batch committed; returns the new generation."""
        gen = f"{time.time_ns()}"
        with self._transaction():
            self._db.executemany("UPDATE records SET state=? WHERE paper_id=?", [(INDEXED, p) for p in paper_ids])
            self._db.execute("UPDATE batches SET status='committed', finished=? WHERE id=?", (time.time(), batch))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (gen,))
        return gen

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT) under the lock, rolled back on any error."""
        with self._writing():
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        with suppress(sqlite3.Error):
            self._db.execute("ROLLBACK")

    def mark_all_pending(self) -> int:
        """Every record needs its vectors again (a dense rebuild); returns how many."""
        with self._writing():
            return self._db.execute("UPDATE records SET state=?", (PENDING,)).rowcount

    def bump_generation(self) -> str:
        gen = f"{time.time_ns()}"
        self.set_meta("generation", gen)
        return gen

    # -- reads ----------------------------------------------------------------------------------
    def hashes(self, paper_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """paper_id -> (hash, state) for the stored ones among `paper_ids`."""
        out: dict[str, tuple[str, str]] = {}
        with self._reading():
            for lo in range(0, len(paper_ids), 500):
                part = list(paper_ids[lo : lo + 500])
                q = f"SELECT paper_id, hash, state FROM records WHERE paper_id IN ({','.join('?' * len(part))})"
                out.update({p: (h, s) for p, h, s in self._db.execute(q, part)})
        return out

    def get(self, paper_ids: Sequence[str]) -> dict[str, Record]:
        out: dict[str, Record] = {}
        with self._reading():
            for lo in range(0, len(paper_ids), 500):
                part = list(paper_ids[lo : lo + 500])
                q = f"SELECT paper_id, data FROM records WHERE paper_id IN ({','.join('?' * len(part))})"
                out.update({p: _load(d) for p, d in self._db.execute(q, part)})
        return out

    def iter_records(self, state: str | None = None, page: int = 2000) -> Iterator[Record]:
        last = ""
        while True:
            with self._reading():
                q = "SELECT paper_id, data FROM records WHERE paper_id > ?" + (" AND state = ?" if state else "")
                rows = self._db.execute(q + " ORDER BY paper_id LIMIT ?",
                                        (last, state, page) if state else (last, page)).fetchall()
            if not rows:
                return
            for _, data in rows:
                yield _load(data)
            last = rows[-1][0]

    def pending(self) -> list[Record]:
        return list(self.iter_records(PENDING))

    def count(self, state: str | None = None) -> int:
        with self._reading():
            if state:
                return int(self._db.execute("SELECT count(*) FROM records WHERE state=?", (state,)).fetchone()[0])
            return int(self._db.execute("SELECT count(*) FROM records").fetchone()[0])

    def ids(self, state: str | None = None) -> set[str]:
        with self._reading():
            if state:
                return {r[0] for r in self._db.execute("SELECT paper_id FROM records WHERE state=?", (state,))}
            return {r[0] for r in self._db.execute("SELECT paper_id FROM records")}

    def delete(self, paper_ids: Sequence[str]) -> None:
        gen = f"{time.time_ns()}"
        with self._writing():
            self._db.executemany("DELETE FROM records WHERE paper_id=?", [(p,) for p in paper_ids])
            self._db.executemany("DELETE FROM chunks WHERE paper_id=?", [(p,) for p in paper_ids])
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (LEXICAL, gen))

    def integrity(self) -> str:
        """'ok', or what SQLite's quick_check found."""
        with self._reading():
            rows = self._db.execute("PRAGMA quick_check").fetchall()
        return "; ".join(str(r[0]) for r in rows[:5])

    def backup_to(self, path: Path) -> None:
        """A consistent one-file copy at `path` (SQLite's online backup: safe while others write)."""
        with self._reading():
            out = sqlite3.connect(path)
            try:
                self._db.backup(out)
                out.execute("PRAGMA journal_mode=DELETE")
            finally:
                out.close()

    def vacuum(self) -> None:
        """Rewrite the file so deleted text no longer sits in free pages or the WAL."""
        with self._writing():
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.execute("VACUUM")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
