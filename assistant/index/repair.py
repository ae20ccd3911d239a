"""Repairs: rebuild the vectors or the lexical index from the records store; delete papers and purge their
text from disk. (The records store itself is rebuilt by recover.py.)

`rebuild_dense` moves the embedded Chroma directory aside (DATA_DIR/chroma.moved-<time>, never
deleted: it may be damaged, or hold vectors of other settings) and re-embeds every record from the
records store, with progress; it works when Chroma's files cannot be opened at all. `rebuild_lexical`
rebuilds BM25 from the chunks in Chroma, or -- when Chroma fails -- by chunking the records again.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import StoreError
from .lexical import LexicalIndex
from .records import FILE

CHROMA_DIR = "chroma"


def move_aside(data_dir: Path) -> Path | None:
    """Rename DATA_DIR/chroma to chroma.moved-<timestamp>; the new path, or None when there was none."""
    src = Path(data_dir) / CHROMA_DIR
    if not src.exists():
        return None
    dst = src.with_name(f"{CHROMA_DIR}.moved-{time.strftime('%Y%m%d-%H%M%S')}")
    n = 1
    while dst.exists():
        dst = src.with_name(f"{CHROMA_DIR}.moved-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
        n += 1
    src.rename(dst)
    return dst


def forget_clients(index) -> None:
    """Drop this process's Chroma clients, so the next open reads the files on disk afresh."""
    from .store import clear_client_cache

    index._store = None
    clear_client_cache()


def rebuild_dense(index, progress: Callable[[int], None] | None = None) -> dict:
    """Re-embed every stored record into fresh collections with the configured settings."""
    from .guards import vector_settings

    db = index.writable_records()
    total = db.count()
    if total == 0:
        raise StoreError(f"The records store in {index.data_dir} holds no records to rebuild from.",
                         hint="Re-ingest the source files: `paperchat ingest FILE ...`.")
    lock = index.write_lock()
    if lock:
        lock.acquire()
    try:
        moved = None
        if index.settings.store.chroma_url:
            for name in (f"{index.name}-chunks", f"{index.name}-papers"):
                with contextlib.suppress(Exception):  # not there
                    index.store.client.delete_collection(name)
        else:
            forget_clients(index)
            moved = move_aside(index.data_dir)
        index._store = None
        db.mark_all_pending()
        db.set_meta("vectors", json.dumps(vector_settings(index.settings)))
        db.clear_chunks()  # chunking settings may have changed: chunk again
        index.backfill_chunks(db)
        index.refresh_lexical(force=True)
    finally:
        if lock:
            lock.release()
    summary = index.embed_pending(progress=progress)  # the pending records: all of them
    return {"records": total, "embedded": summary.embedded, "moved_aside": str(moved) if moved else ""}


def rebuild_lexical(index) -> int:
    """Rebuild BM25; from Chroma's chunks when it answers, else by chunking the records again."""
    try:
        lex = index.refresh_lexical(force=True)
        return len(lex.ids)
    except StoreError:
        if index.records_db is None:
            raise
    ids, texts, metas = [], [], []
    for r in index.records_db.iter_records():
        for c in index.chunk(r):
            ids.append(c.chunk_id)
            texts.append(c.text)
            metas.append({"paper_id": r.paper_id, "group": r.duplicate_of or r.paper_id,
                          "sent_start": c.sent_start, "sent_end": c.sent_end})
    lex = LexicalIndex.build(ids, texts, index.lexical_generation(), metas)
    lex.save(index.lexical_dir)
    with index._lex_lock:
        index._lexical = lex
    return len(ids)


def delete_papers(index, paper_ids: list[str], purge: bool = False) -> list[str]:
    """Delete papers (all their chunks) under the write and embed locks; the ids that were not found.
    `purge` then compacts the stores so the deleted text no longer sits anywhere on disk (see README)."""
    from .embedjob import embed_lock

    lock = index.write_lock()
    dense = embed_lock(index) if lock else None  # the embed job writes Chroma too: not while it runs
    if lock:
        lock.acquire()
    try:
        if dense:
            dense.acquire()
        db = index.writable_records()
        found = set(db.get(paper_ids)) | {r.paper_id for r, _ in index.store.get_papers(paper_ids)}
        if found:
            if index.store.exists:  # (a pending record may have no vectors anywhere yet)
                index.store.delete_papers(sorted(found))
                index.store.bump_generation()
            db.delete(sorted(found))
            db.bump_generation()
            index.refresh_lexical(force=True)
        if purge:
            purge_deleted(index)
        return [p for p in paper_ids if p not in found]
    finally:
        if dense:
            dense.release()
        if lock:
            lock.release()


def purge_deleted(index, page: int = 2000) -> None:
    """Make deleted text unrecoverable from the data directory.

    Chroma keeps every write in its log (`embeddings_queue`) and deleted rows in free pages, and its
    log cannot be trimmed safely from outside (the vector segment may still need it). So the live rows
    (ids, vectors, documents, metadata) are written out and a fresh process builds a new Chroma directory
    from them, which replaces the old one; the old one is then removed. The records store is vacuumed; the lexical
    index was rebuilt by the delete. Server mode: run `chroma utils vacuum` on the server."""
    if index.records_db is not None and not index.records_db.readonly:
        index.records_db.vacuum()
    if index.settings.store.chroma_url:
        return
    old = index.store
    if not old.exists:
        return
    new_dir = Path(index.data_dir) / "purge-tmp"
    shutil.rmtree(new_dir, ignore_errors=True)
    new_dir.mkdir(parents=True)
    # The live rows go to a plain file, and a fresh process (whose memory never held the deleted text) builds
    # the new directory from it: hnswlib writes buffer bytes it never set into its files, and in this process
    # those bytes can be the deleted text (found in length.bin in about one run in four).
    export = new_dir / "live.jsonl"
    export_vectors(old, index.name, export, page)
    done = subprocess.run([sys.executable, "-c", "import sys; from assistant.index.repair import build_from_export; "
                           "build_from_export(sys.argv[1], sys.argv[2])", str(export), str(new_dir)],
                          capture_output=True, text=True, env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
                          cwd=str(Path(__file__).resolve().parents[2]))
    export.unlink(missing_ok=True)
    if done.returncode != 0:
        shutil.rmtree(new_dir, ignore_errors=True)
        raise StoreError(f"Purging could not rebuild the vector store: {done.stderr.strip()[-500:]}",
                         hint="The papers are deleted, but their text may still sit in Chroma's files: run "
                         "`paperchat delete <the same ids> --purge` again (they are reported not found; the stores "
                         "are compacted).")
    del old
    forget_clients(index)
    live = Path(index.data_dir) / CHROMA_DIR
    gone = live.with_name(f"{CHROMA_DIR}.purged")
    shutil.rmtree(gone, ignore_errors=True)
    live.rename(gone)
    (new_dir / CHROMA_DIR).rename(live)
    shutil.rmtree(gone)
    shutil.rmtree(new_dir, ignore_errors=True)


def export_vectors(store, name: str, path: Path, page: int = 2000) -> int:
    """Write both collections' live rows (ids, documents, metadata, embeddings) to `path` (JSON lines: the
    index name, model and dimension first); read back by `build_from_export`. Returns the papers written."""
    papers = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"name": name, "model": store.model, "dim": store.dim}) + "\n")
        for which, src in (("chunks", store.chunks), ("papers", store.papers)):
            meta = dict(src.metadata or {})
            meta.pop("hnsw:space", None)
            f.write(json.dumps({"collection": which, "metadata": meta}) + "\n")
            offset = 0
            while True:
                got = src.get(include=["embeddings", "documents", "metadatas"], limit=page, offset=offset)
                if not got["ids"]:
                    break
                f.write(json.dumps({"collection": which, "ids": got["ids"], "documents": got["documents"],
                                    "metadatas": got["metadatas"],
                                    "embeddings": [[float(x) for x in v] for v in got["embeddings"]]}) + "\n")
                offset += len(got["ids"])
                papers += len(got["ids"]) if which == "papers" else 0
    return papers


def build_from_export(export: str, new_dir: str) -> None:
    """Build a Chroma directory from `purge_deleted`'s export of live rows (run in a fresh process)."""
    from .store import ChromaStore

    lines = Path(export).read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    fresh = ChromaStore(Path(new_dir), "", head["name"], head["model"], head["dim"], create=True)
    cols = {"chunks": fresh.chunks, "papers": fresh.papers}
    for line in lines[1:]:
        row = json.loads(line)
        col = cols[row["collection"]]
        if "metadata" in row:
            col.modify(metadata=row["metadata"])
        else:
            col.upsert(ids=row["ids"], embeddings=row["embeddings"], documents=row["documents"],
                       metadatas=row["metadatas"])


def records_file(data_dir: Path) -> Path:
    return Path(data_dir) / FILE
