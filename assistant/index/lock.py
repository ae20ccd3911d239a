"""One writer per embedded store: an exclusive, non-blocking `flock` on DATA_DIR/write.lock (and one
embed job: DATA_DIR/embed.lock, see index/embedjob.py).

The holder writes its PID and command line into the file so a second writer fails at once with a
message naming it. The kernel drops the lock when the holder dies (even on SIGKILL), so a stale file
never blocks anyone. Readers take no lock; they notice new data through the store generation.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path

from ..errors import StoreError, StoreLockedError


class WriteLock:
    def __init__(self, data_dir: Path, name: str = "write.lock", server: str = "") -> None:
        self.path = Path(data_dir) / name
        self.server = server  # the Chroma server URL when the directory is one worker's local part
        self._fd: int | None = None

    def acquire(self) -> WriteLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(
                f"Cannot write to the store at {self.path.parent}: {e.strerror}.",
                hint="That directory is read-only (or full): search, stats and ask still work there; ingest and "
                "delete need a writable data directory (--data-dir DIR).",
            ) from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            hint = ("Wait for it to finish or stop it; for several writers, share a Chroma server "
                    "(`chroma run`) and set PAPERCHAT_CHROMA_URL.")
            if self.server:
                hint = (f"Several writers can share the Chroma server {self.server}, but each needs its own "
                        "--data-dir (its local records store and BM25 cache).")
            raise StoreLockedError(f"The store at {self.path.parent} is in use by {holder}.", hint=hint) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"PID {os.getpid()} ({' '.join(sys.argv)[:200]})".encode(), 0)
        except OSError:  # a full disk: the lock holds without its note
            pass
        self._fd = fd
        return self

    def holder(self) -> int | None:
        """PID of a live process holding this lock (from its note; a killed holder's stale note is ignored)."""
        try:
            note = self.path.read_text(encoding="utf-8", errors="replace")
            pid = int(note.split()[1]) if note.startswith("PID ") else 0
        except (OSError, ValueError, IndexError):
            return None
        if pid <= 0:
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return pid

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> WriteLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


SERVE_LOCK = "serve.lock"


class ServeLock:
    """Held (shared) by every process serving a store (`paperchat ui`) for as long as it serves, so that
    `doctor` and `rebuild-index` can name it (`serving_pid`) instead of racing it."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / SERVE_LOCK
        self._fd: int | None = None

    def acquire(self) -> ServeLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:  # a read-only directory, or an exclusive holder (a repair running): serve without it
            return self
        with contextlib.suppress(OSError):
            os.pwrite(fd, f"PID {os.getpid():<10} ({' '.join(sys.argv)[:200]})\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def server_name(pid: int | None) -> str:
    return f"a paperchat server (PID {pid})" if pid and pid > 0 else "a paperchat server"


def serving_pid(data_dir: Path) -> int | None:
    """PID of another live process serving `data_dir` (holding its serve lock; -1 when its note is
    unreadable), else None."""
    path = Path(data_dir) / SERVE_LOCK
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None  # nobody holds it
        except BlockingIOError:
            pass
        note = os.pread(fd, 4096, 0).decode("utf-8", "replace")
    finally:
        os.close(fd)
    try:
        pid = int(note.split()[1]) if note.startswith("PID ") else 0
    except (ValueError, IndexError):
        pid = 0
    if pid == os.getpid():
        return None  # this process serves it (a test's in-process server)
    return pid or -1
