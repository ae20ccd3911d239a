"""The records store as the source of truth, seen from the index (issue 23): opened only when its file is
whole, never re-created empty beside a vector store that holds papers, and writes refused while it is lost.

- `open_records(index)`: the RecordStore, or None when the file is damaged (`index.records_problem` says
  how) or missing beside an existing vector store (then the first write creates it -- unless that store
  holds papers: those records were lost, not never written);
- `records_lost(index)`: why the records store is not whole ('' when it is): its file damaged, missing,
  removed or shrunk under this process, or fewer records than the vector store holds papers;
- `refuse_lost_records(index)`: raise RecordsLostError naming the repair before anything is written.
"""

from __future__ import annotations

import os

from ..errors import RecordsLostError, StoreError
from .recordfile import file_problem, repair_hint, sidecars
from .records import FILE, RecordStore


def open_records(index) -> RecordStore | None:
    path = index.data_dir / FILE
    problem = file_problem(path)
    if problem and problem != "is missing":
        index.records_problem = f"The records store {path} {problem}."
        return None
    if problem and not index.settings.store.chroma_url and (index.data_dir / "chroma").is_dir():
        if sidecars(path):  # a removed file's WAL: a new file must not adopt it
            index.records_problem = f"The records store {path} is missing (its WAL file is still there)."
        return None  # deferred: `records_lost` decides against the vector store
    return RecordStore.open(index.data_dir)


def records_lost(index, vectors: bool = True) -> str:
    """`vectors=False`: without opening the vector store (only what the records file itself shows)."""
    if index.records_problem:
        return index.records_problem
    db = index.records_db
    if db is not None:
        lost = db.check()
        if lost:
            return lost
    if not vectors or index.settings.store.chroma_url or not (index.data_dir / "chroma").is_dir():
        return ""  # (server mode: several workers' local records stores share the server's papers)
    try:
        have = db.count() if db is not None else 0
    except StoreError as e:  # SQLite cannot read it: damaged
        return e.message
    try:
        papers = index.store.count()[0]
    except Exception:  # noqa: BLE001 - a damaged vector store is reported by its own checks
        return ""
    if db is None and papers and not (index.data_dir / FILE).exists():
        return f"The records store {index.data_dir / FILE} is missing, but the vector store holds {papers} papers."
    if db is not None and papers > have:
        return (f"The records store {db.path} holds {have} records, but the vector store holds {papers} "
                "papers: records were lost.")
    return ""


def refuse_lost_records(index) -> None:
    """Before a write: raise when the records store is lost; create it when it is merely not made yet."""
    if index.records_problem:
        raise RecordsLostError(index.records_problem + " Nothing is written until it is rebuilt.", hint=repair_hint())
    if index.records_db is not None:
        lost = records_lost(index)  # removed or shrunk under us; or re-created empty beside the vectors' papers
        if lost:
            raise RecordsLostError(lost, hint=repair_hint(serving=True))
        return
    if index.settings.store.chroma_url or not os.access(index.data_dir, os.W_OK):
        return
    if index.store.count()[0] == 0:
        index.records_db = RecordStore.open(index.data_dir)  # a vector store without papers: a fresh start
        return
    raise RecordsLostError(records_lost(index) + " Nothing is written until it is rebuilt.", hint=repair_hint())
