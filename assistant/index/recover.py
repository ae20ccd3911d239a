"""`paperchat rebuild-index --records`: rebuild the records store from what survives (issue 23).

The records store is the source of truth, but when its file is removed, emptied or truncated the other
stores still hold most of it. Sources, newest first, each adding only the papers the earlier ones lack:

1. the damaged file itself, when SQLite can still read records from it (a file re-created empty holds
   none; one re-created and then written to holds the new ones);
2. the newest copy a server rescued when the file was removed under it (recordfile.rescue): complete
   up to that moment, pending records included;
3. Chroma's papers collection: every paper with vectors -- full text and metadata (its hash included).

A recovered paper Chroma holds with the same content hash is `indexed` (its vectors are there); any
other is `pending` (`paperchat embed`, run by the command, makes its vectors). What cannot be recovered
is counted and named: papers the saved BM25 index or Chroma's chunks know of, but no source holds whole
(records stored lexical-first whose vectors were never made). The damaged file (and its -wal/-shm) is
moved aside to records.sqlite3.damaged-<time>, never deleted; rescued copies that were read become
records.sqlite3.rescue-used-<time> so a later repair cannot resurrect papers deleted since.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError, StoreLockedError
from ..types import Record
from .chunktable import _load
from .guards import vector_settings
from .lock import server_name, serving_pid
from .recordfile import rescued_copies, sidecars
from .records import FILE, RecordStore


@dataclass
class RecoveryReport:
    from_file: int = 0  # records the damaged file still gave
    from_rescued: int = 0  # records from a rescued copy
    from_vectors: int = 0  # records rebuilt from Chroma's papers collection
    pending: int = 0  # recovered records without vectors (embedded next)
    lost: list[str] = field(default_factory=list)  # paper ids known to the derived stores that no source holds
    moved_aside: str = ""
    rescued_copy: str = ""

    @property
    def recovered(self) -> int:
        return self.from_file + self.from_rescued + self.from_vectors

    def summary(self) -> str:
        parts = [f"{self.from_vectors} from the vector store"]
        if self.from_rescued:
            parts.append(f"{self.from_rescued} from the copy rescued at {self.rescued_copy}")
        if self.from_file:
            parts.append(f"{self.from_file} still readable in the old file")
        out = f"records store rebuilt: {self.recovered} records ({', '.join(parts)})"
        if self.moved_aside:
            out += f"; the old file was moved to {self.moved_aside} (not deleted)"
        if self.lost:
            shown = ", ".join(self.lost[:10]) + (f" and {len(self.lost) - 10} more" if len(self.lost) > 10 else "")
            out += (f"\n{len(self.lost)} papers cannot be recovered (searchable by keywords before, but no copy of "
                    f"their record survives): {shown}. Re-ingest their source files to restore them.")
        else:
            out += "\nnothing known to the indexes was lost"
        return out


def _read_records(path: Path) -> dict[str, tuple[Record, str]]:
    """paper_id -> (record, state) of the records SQLite can still read from the file at `path`."""
    out: dict[str, tuple[Record, str]] = {}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            for pid, data, state in db.execute("SELECT paper_id, data, state FROM records"):
                try:
                    out[pid] = (_load(data), state)
                except (ValueError, TypeError, KeyError):
                    continue
        finally:
            db.close()
    except sqlite3.Error:
        pass
    return out


def _known_ids(index) -> set[str]:
    """Paper ids the derived stores know of: the saved BM25 index and Chroma's chunks."""
    ids: set[str] = set()
    try:
        saved = json.loads((index.lexical_dir / "ids.json").read_text(encoding="utf-8"))
        ids |= {str(c).rsplit("::", 1)[0] for c in saved}
    except (OSError, ValueError):
        pass
    if index.store.exists:
        ids |= {str(m.get("paper_id")) for _, _, m in index.store.all_chunks() if m and m.get("paper_id")}
    return ids


def _move_aside(path: Path) -> Path | None:
    if not path.exists() and not sidecars(path):
        return None
    dst = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    for p in [path, *sidecars(path)]:
        if p.exists():
            p.rename(dst.with_name(dst.name + p.name[len(path.name):]))
    return dst


def rebuild_records(index) -> RecoveryReport:
    """Rebuild DATA_DIR/records.sqlite3 from the damaged file, a rescued copy and Chroma (see the module)."""
    if index.settings.store.chroma_url:
        raise ConfigError("With a Chroma server each worker's records store is its own local file.",
                          hint="Re-ingest this worker's source files (`paperchat ingest FILE ...`): the server's "
                          "papers are unchanged, and unchanged records are skipped.")
    pid = serving_pid(index.data_dir)
    if pid:
        raise StoreLockedError(f"{server_name(pid)} is serving {index.data_dir}: the records store cannot be rebuilt "
                               "under it.", hint="Stop it first (Ctrl+C in its terminal"
                               + (f", or `kill {pid}`" if pid > 0 else "") + "), then run the same command again.")
    lock = index.write_lock()
    lock.acquire()
    try:
        return _rebuild(index)
    finally:
        lock.release()


def _rebuild(index) -> RecoveryReport:
    rep = RecoveryReport()
    path = Path(index.data_dir) / FILE
    found: dict[str, tuple[Record, str]] = {}
    if index.records_db is not None:
        index.records_db.close()
        index.records_db = None
    for pid, (r, _) in _read_records(path).items():  # the damaged file: what it still holds is newest
        found[pid] = (r, "file")
    used: list[Path] = []
    for copy in rescued_copies(index.data_dir, FILE):
        got = _read_records(copy)
        if got:
            used.append(copy)
            rep.rescued_copy = str(copy)
            for pid, (r, _) in got.items():
                found.setdefault(pid, (r, "rescued"))
            break
    vectors = {r.paper_id: (r, h) for r, h in index.store.get_papers()} if index.store.exists else {}
    for pid, (r, _) in vectors.items():
        found.setdefault(pid, (r, "vectors"))
    rep.from_file = sum(1 for _, src in found.values() if src == "file")
    rep.from_rescued = sum(1 for _, src in found.values() if src == "rescued")
    rep.from_vectors = sum(1 for _, src in found.values() if src == "vectors")
    rep.lost = sorted(_known_ids(index) - set(found))
    moved = _move_aside(path)
    rep.moved_aside = str(moved) if moved else ""
    db = RecordStore(index.data_dir)
    index.records_db, index.records_problem = db, ""
    records = [r for r, _ in found.values()]
    indexed = [r for r in records if r.paper_id in vectors and vectors[r.paper_id][1] == r.hash]
    rep.pending = len(records) - len(indexed)
    for lo in range(0, len(records), 5000):
        db.begin_batch(records[lo : lo + 5000])  # all pending; the ones with vectors become indexed below
    db.set_meta("vectors", json.dumps(vector_settings(index.settings)))
    index.backfill_chunks(db)
    for lo in range(0, len(indexed), 5000):
        db.mark_indexed(indexed[lo : lo + 5000], regroup=True)  # near-duplicate groups as the vectors have them
    db.bump_generation()
    index.refresh_lexical(force=True)
    for copy in used:
        for p in [copy, *sidecars(copy)]:
            p.rename(p.with_name(p.name.replace(".rescued-", ".rescue-used-")))
    return rep
