"""The chromadb version a store was written with (RELIABILITY #21: migrations are one-way, downgrades unsupported).

The records store keeps `meta.chromadb`: the version of the last process that wrote vectors. Before the
first write under another version:
- an older one (an upgrade): a backup is taken first into DATA_DIR/backup-chromadb-<old>-<time>
  (index/backup.py), then the version is recorded -- Chroma may migrate its files on that write;
- a newer one (a downgrade): refused, naming both versions and the two ways forward.
A store from before this was recorded gets the installed version, with no backup (it was never written
by another version: the project has pinned one chromadb since its start).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import StoreError

KEY = "chromadb"


def installed() -> str:
    import chromadb

    return str(chromadb.__version__)


def _parse(v: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in v.split(".")[:3])


def downgrade_error(data_dir: Path, stored: str, have: str) -> StoreError:
    return StoreError(f"The store in {data_dir} was written by chromadb {stored}, newer than the installed {have}: "
                      "a downgrade is not supported (Chroma's migrations are one-way).",
                      hint=f"Install chromadb=={stored} again, or restore a backup made with {have} "
                      "(`paperchat restore DIR` into a new --data-dir).")


def before_write(index, db) -> Path | None:
    """Called under the write lock before vectors or records are written; the backup taken, if any."""
    if index.settings.store.chroma_url:
        return None
    stored, have = db.get_meta(KEY), installed()
    if stored == have:
        return None
    if stored and _parse(stored) > _parse(have):
        raise downgrade_error(index.data_dir, stored, have)
    taken = None
    if stored and index.store.exists:
        from .backup import write_backup

        taken = Path(index.data_dir) / f"backup-chromadb-{stored}-{time.strftime('%Y%m%d-%H%M%S')}"
        write_backup(index, taken)
    db.set_meta(KEY, have)
    return taken
