"""Dense coverage as one process sees it (lexical-first ingest): which searchable papers have no vectors
it can use yet, and how many have vectors.

An embedded Chroma client does not see vectors another process (the embed job) wrote after it opened
its segments. So a reader keeps, beside the records pending now, those that were pending when it
(re)opened Chroma, and reopens it -- at most every DENSE_RELOAD_S -- when the vector store's generation
says another process wrote more. Hybrid fusion renormalises exactly these papers (retrieve/fusion.py).
"""

from __future__ import annotations

import contextlib
import time

from .records import PENDING

GENERATION_CHECK_S = 1.0  # readers (this view, the index's BM25) look for other processes' writes at most this often
DENSE_RELOAD_S = 30.0  # a reader reopens Chroma at most this often to see another process's new vectors


def release_memory() -> None:
    """Collect garbage and hand freed heap pages back to the OS (glibc keeps them otherwise: a BM25 build
    over 75k abstracts leaves several hundred MB of free but resident heap behind)."""
    import ctypes
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)


class DenseView:
    def __init__(self, index) -> None:
        self.index = index
        self._unembedded: tuple[str, frozenset[str]] | None = None  # (records generation, unembedded paper ids)
        self._unemb_checked = 0.0
        self._dense_opened: tuple[float, frozenset[str]] | None = None  # when Chroma was (re)opened, what was pending

    def unembedded(self) -> frozenset[str]:
        """Paper ids searchable by BM25 whose vectors this process cannot see (empty at full coverage and in
        server mode): the records pending now, plus those that were pending when this process opened
        Chroma -- an embedded Chroma client does not see vectors another process wrote after it opened its
        segments, so a reader reopens it (DENSE_RELOAD_S at most once) when the embed job has written more."""
        ix = self.index
        if not ix._lexical_from_records():
            return frozenset()
        with ix._lex_lock:
            now = time.monotonic()
            if self._unembedded is not None and now - self._unemb_checked < GENERATION_CHECK_S:
                return self._unembedded[1]
            self._unemb_checked = now
            gen = ix.records_db.generation()
            if self._unembedded is not None and self._unembedded[0] == gen:
                return self._unembedded[1]
            pending = ix.records_db.pending_ids()
            if ix._store is None or self._dense_opened is None:
                self._dense_opened = (now, pending)  # the client opens now (or on first use): it sees the rest
            elif not ix.embedding_here and now - self._dense_opened[0] >= DENSE_RELOAD_S \
                    and ix._store.generation() != ix._dense_gen:
                from .repair import forget_clients

                forget_clients(ix)  # another process wrote vectors: see them
                self._dense_opened = (now, pending)
            self._unembedded = (gen, pending | self._dense_opened[1])
            return self._unembedded[1]

    def coverage(self) -> dict:
        """Dense coverage: papers with vectors of all searchable papers."""
        ix = self.index
        if ix._lexical_from_records():
            embedded, total = ix.records_db.coverage()
        else:  # server mode: the server's papers, plus this worker's records still waiting for vectors
            embedded = ix.store.count()[0]
            total = embedded + (ix.records_db.count(PENDING) if ix.records_db is not None else 0)
        return {"embedded": embedded, "papers": total, "complete": embedded >= total,
                "percent": round(100.0 * embedded / total, 1) if total else 100.0}
