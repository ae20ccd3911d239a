"""The records store's file, watched (issue 23): it must never vanish or shrink unnoticed.

SQLite keeps writing through its open file descriptor when `records.sqlite3` is removed or truncated
under it: a server would report "1 added" into an unlinked inode (lost at exit), and the next process
would create a fresh empty file and call it healthy. So:

- `file_problem(path)` -- why the file is not a whole database ('' when it is): missing, 0 bytes, not a
  SQLite file, or shorter than its own header says (the in-header page count, valid when the change
  counter matches; a VACUUM shrinks the header's count with the file, so it never trips this);
- `FileWatch` -- the (device, inode) a connection opened; `problem()` adds "removed" / "replaced by
  another file" to the above. A connection checks it before every write and, at most every
  `READ_CHECK_S`, before reads;
- `rescue(conn, path)` -- when the file was removed or replaced, the serving connection still reads the
  old inode whole: it is copied (SQLite's backup API) to `records.sqlite3.rescued-<time>` so nothing
  it held is lost; `paperchat rebuild-index --records` reads that copy first.

Cost: one stat and a 100-byte read (~20 us) per check.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

MAGIC = b"SQLite format 3\x00"
READ_CHECK_S = 2.0
RESCUED = ".rescued-"
REPAIR = "paperchat rebuild-index --records"


def repair_hint(serving: bool = False) -> str:
    stop = ("Stop every process using this store (a paperchat ui server: Ctrl+C in its terminal), then run"
            if serving else "Run")
    return (f"{stop} `{REPAIR}` (with the same --data-dir, --preset and --set options): it rebuilds the records from "
            "the vector store (and any rescued copy), counts what cannot be recovered, and moves the damaged "
            "file aside, never deleting it.")


def file_problem(path: Path) -> str:
    """What is wrong with the database file at `path` ('' when it looks whole)."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return "is missing"
    if size == 0:
        return "is empty (0 bytes)"
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if len(head) < 100 or not head.startswith(MAGIC):
        return f"is not a SQLite database any more ({size} bytes)"
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    if pages and head[24:28] == head[92:96] and pages * page > size:
        return f"is truncated ({size:,} bytes; its header says {pages * page:,})"
    return ""


class FileWatch:
    """The identity of the file a connection opened, and whether the path still names it, whole."""

    def __init__(self, path: Path) -> None:
        self.path = path
        st = os.stat(path)
        self.ident = (st.st_dev, st.st_ino)
        self.checked = time.monotonic()

    def problem(self) -> str:
        self.checked = time.monotonic()
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return "was removed while this process had it open"
        if (st.st_dev, st.st_ino) != self.ident:
            return "was replaced by another file while this process had it open"
        what = file_problem(self.path)
        return f"{what} (it shrank while this process had it open)" if what else ""

    def due(self) -> bool:
        return time.monotonic() - self.checked >= READ_CHECK_S


def rescue(conn: sqlite3.Connection, path: Path) -> Path | None:
    """Copy what `conn` still reads (the removed or replaced file's inode) beside `path`; the copy, or None."""
    dst = path.with_name(f"{path.name}{RESCUED}{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        out = sqlite3.connect(dst)
        try:
            conn.backup(out)
        finally:
            out.close()
        return dst
    except (sqlite3.Error, OSError):
        dst.unlink(missing_ok=True)
        return None


def rescued_copies(data_dir: Path, name: str) -> list[Path]:
    """Rescued copies of the records store, newest first."""
    found = Path(data_dir).glob(f"{name}{RESCUED}*")
    return sorted((p for p in found if not p.name.endswith(("-wal", "-shm", "-journal"))), reverse=True)


def sidecars(path: Path) -> list[Path]:
    """The WAL and shared-memory files that belong with the database at `path` (those that exist)."""
    return [p for p in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")) if p.exists()]
