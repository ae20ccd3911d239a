"""`paperchat backup DIR` and `paperchat restore DIR`: a logical copy of a store, never its live files
(RELIABILITY #18: copying a data directory that a process has open "may appear to have succeeded having
silently lost some of its data").

A backup holds
- `records.sqlite3` -- SQLite's online backup of the records store (a consistent snapshot, one file);
- `vectors.jsonl`  -- both Chroma collections' rows (id, document, metadata, embedding), the index name,
  embedding model and dimension first (repair.export_vectors);
- `manifest.json`  -- the vector settings, the chromadb version, the counts, the time.
It is refused while a server serves the store (its Chroma client must not share the directory with
another) and taken under the write and embed locks (no CLI writer changes it meanwhile).

`restore` writes a backup into an empty data directory: the records file copied, the vector store built
from the rows, BM25 rebuilt; the counts must match the manifest. A backup made with other vector settings
(another embedding model or chunking: another index name) is refused, naming both.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

from ..errors import ConfigError, StoreError, StoreLockedError
from ..settings import Settings
from .guards import settings_mismatch, vector_settings
from .lock import server_name, serving_pid
from .records import FILE

VECTORS, MANIFEST = "vectors.jsonl", "manifest.json"


def _refuse_while_served(data_dir: Path, what: str) -> None:
    pid = serving_pid(data_dir)
    if pid:
        raise StoreLockedError(f"{server_name(pid)} is serving {data_dir}: {what} would read files it has open.",
                               hint="Stop it first (Ctrl+C in its terminal" + (f", or `kill {pid}`" if pid > 0 else "")
                               + "), then run the same command again.")


def backup(index, out: Path) -> dict:
    """Write a backup of `index`'s store into the new or empty directory `out`; its manifest."""
    from .embedjob import embed_lock

    if index.settings.store.chroma_url:
        raise ConfigError("A Chroma server's data is backed up on the server.",
                          hint="Back up the server's --path directory with the server stopped.")
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"{out} is not an empty directory.", hint="Give a new directory: paperchat backup DIR.")
    _refuse_while_served(index.data_dir, "a backup")
    db = index.writable_records()  # refuses a lost records store: repair it first
    lock, dense = index.write_lock(), embed_lock(index)
    lock.acquire()
    try:
        dense.acquire()
        try:
            return write_backup(index, out, db)
        finally:
            dense.release()
    finally:
        lock.release()


def write_backup(index, out: Path, db=None) -> dict:
    """The backup itself, for a caller that holds the write lock (`backup`, or upgrade.before_write)."""
    import chromadb

    from .repair import export_vectors

    db = db or index.writable_records()
    out.mkdir(parents=True, exist_ok=True)
    db.backup_to(out / FILE)
    papers = export_vectors(index.store, index.name, out / VECTORS) if index.store.exists else 0
    manifest = {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "chromadb": chromadb.__version__,
                "vectors": db.vectors() or vector_settings(index.settings), "records": db.count(),
                "papers": papers, "chunks": index.store.count()[1]}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return manifest


def restore(settings: Settings, src: Path) -> dict:
    """Write the backup in `src` into the (empty) data directory of `settings`; the manifest restored.
    Call before anything opens that directory; open the Index afterwards."""
    from .repair import build_from_export

    src, data_dir = Path(src), Path(settings.store.data_dir)
    try:
        manifest = json.loads((src / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConfigError(f"{src} is not a paperchat backup ({MANIFEST} unreadable: {e}).",
                          hint="Give a directory written by `paperchat backup DIR`.") from None
    stored = manifest.get("vectors") or {}
    if stored.get("index") != settings.index_name():
        e = settings_mismatch(src, stored, vector_settings(settings))
        e.message = e.message.replace("The store in", "The backup in", 1)
        keep = re.search(r"\((--set [^)]*)\)", e.hint)
        e.hint = (f"Restore it with the settings it was made with ({keep.group(1) if keep else 'no overrides'}); to "
                  "move to the new settings afterwards, run `paperchat rebuild-index --dense` with them.")
        raise e
    if settings.store.chroma_url:
        raise ConfigError("Restore writes an embedded store.", hint="Run it without --chroma-url.")
    if (data_dir / FILE).exists() or (data_dir / "chroma").exists():
        raise StoreError(f"{data_dir} already holds a store: restore writes only into an empty data directory.",
                         hint="Restore into a new directory (--data-dir DIR), then point paperchat at it.")
    _refuse_while_served(data_dir, "a restore")
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = data_dir / (FILE + ".restoring")
    shutil.copyfile(src / FILE, tmp)
    if (src / VECTORS).is_file() and manifest.get("papers"):
        build_from_export(str(src / VECTORS), str(data_dir))
    tmp.rename(data_dir / FILE)  # last: until here the directory holds no records store
    return manifest


def check_restored(index, manifest: dict) -> None:
    """The restored store holds what the manifest says, and BM25 is rebuilt over it."""
    index.refresh_lexical(force=True)
    papers, chunks = index.store.count()
    got = {"records": index.records_db.count() if index.records_db else 0, "papers": papers, "chunks": chunks}
    want = {k: manifest.get(k) for k in got}
    if got != want:
        raise StoreError(f"The restored store holds {got}, but the backup's manifest says {want}.",
                         hint="The backup is incomplete or damaged: restore an older one, or re-ingest the sources.")
