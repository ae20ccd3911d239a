"""The dense phase of lexical-first ingest: vectors for the records still `pending` in the records store.

    embed_pending(index, progress=bar.update)   # `paperchat embed`, or the tail of `paperchat ingest`

Records and their chunks are already stored (and searchable by BM25) by the lexical phase
(`Index.add(..., embed=False)`); this job reads pending records a page at a time in paper_id order,
takes their chunks from the records store (no re-chunking), embeds them, checks near-duplicates,
writes chunks + papers to Chroma (upserts keyed by chunk id and paper id: a batch written twice is
still written once) and flips the records to `indexed` in one records-store transaction. Two stages
overlap: batch i+1 is embedded while batch i is written (one writer thread, in order).

Killing it at any point loses nothing: a record is `indexed` only after its vectors landed, so a rerun
re-embeds exactly the records still pending. One embed job per data directory (`embed.lock`; a second
one says which process holds it); the lexical phase and readers do not wait for it. New pending
records that arrive while it runs (another `ingest`) are picked up by its next pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..types import Record
from .lock import WriteLock
from .records import PENDING

NEAR_DUP_COSINE = 0.9

EMBED_LOCK = "embed.lock"


@dataclass
class EmbedSummary:
    embedded: int = 0  # records whose vectors were written
    chunks: int = 0
    near_duplicates: list[tuple[str, str]] = field(default_factory=list)  # (paper_id, duplicate_of)


@dataclass
class _Batch:
    records: list[Record]
    chunk_ids: list[str]
    docs: list[str]  # chunk texts (stored as Chroma documents)
    texts: list[str]  # what was embedded (title prefix + chunk)
    metas: list[dict]
    per_record: list[int]  # chunks per record, in record order
    vecs: np.ndarray
    paper_vecs: np.ndarray


def embed_lock(index) -> WriteLock:
    return WriteLock(index.data_dir, EMBED_LOCK)


def embed_pending(index, progress: Callable[[int], None] | None = None, stop: Callable[[], bool] | None = None,
                  limit: int | None = None) -> EmbedSummary:
    """Embed every pending record (and those that become pending while it runs); `progress(n)` after each
    batch commits; `stop()` true ends the job after the batch in flight (the rest stays pending);
    `limit`: embed at most that many records (a partial-coverage benchmark)."""
    summary = EmbedSummary()
    lock = embed_lock(index)
    lock.acquire()
    index.embedding_here = True
    try:
        db = index.writable_records()
        index.open_vectors()
        size = index.settings.store.add_batch
        with ThreadPoolExecutor(1, thread_name_prefix="embed-writer") as writer:
            inflight: tuple[Future, int] | None = None

            def settle() -> None:
                nonlocal inflight
                if inflight is not None:
                    fut, n = inflight
                    inflight = None
                    fut.result()  # a write error surfaces here, in the caller's thread
                    if progress:
                        progress(n)

            try:
                taken = 0
                while True:  # passes: records that became pending behind the cursor are taken next pass
                    before, after = summary.embedded, ""
                    while not (stop and stop()):
                        room = size if limit is None else min(size, limit - taken)
                        page = db.pending_page(after, room) if room > 0 else []
                        if not page:
                            break
                        taken += len(page)
                        after = page[-1].paper_id
                        prepared = _prepare(index, page)  # overlaps the previous batch's write
                        settle()
                        inflight = (writer.submit(_commit, index, prepared, summary), len(page))
                    settle()
                    if (stop and stop()) or db.count(PENDING) == 0 or summary.embedded == before \
                            or (limit is not None and taken >= limit):
                        break
            finally:
                if inflight is not None:  # an error while preparing: the write in flight still lands
                    fut, n = inflight
                    if fut.exception() is None and progress:
                        progress(n)
    finally:
        index.embedding_here = False
        lock.release()
    return summary


def _prepare(index, records: list[Record]) -> _Batch:
    """The batch's chunks (from the records store; chunked now only if missing) and their vectors."""
    stored = index.records_db.chunks_of([r.paper_id for r in records])
    ids, docs, texts, metas, per = [], [], [], [], []
    for r in records:
        rows = (stored.get(r.paper_id)
                or [(cid, text, embed, meta) for cid, _i, text, embed, meta in index.chunk_rows(r)])
        per.append(len(rows))
        for cid, text, embed, meta in rows:
            ids.append(cid)
            docs.append(text)
            texts.append(embed)
            metas.append(meta)
    vecs = index.embedder.embed_documents(texts)
    paper_vecs, pos = np.zeros((len(records), index.embedder.dim), np.float32), 0
    for i, n in enumerate(per):
        v = vecs[pos : pos + n].mean(axis=0) if n else np.zeros(index.embedder.dim, np.float32)
        paper_vecs[i] = v / (np.linalg.norm(v) or 1.0)
        pos += n
    return _Batch(records, ids, docs, texts, metas, per, vecs, paper_vecs)


def _commit(index, b: _Batch, summary: EmbedSummary) -> None:
    """Chroma first (stale chunks of an earlier version out, then upserts), then the records become indexed."""
    from .store import normalise_metadata

    todo = mark_near_duplicates(index, b.records, b.paper_vecs, summary)
    store = index.store
    ids = [r.paper_id for r in todo]
    present = set(store.papers.get(ids=ids, include=[])["ids"]) if ids else set()
    if present:  # an updated record: its old chunks may outnumber the new ones
        store.delete_chunks_of(sorted(present))
    metas, pos = [], 0
    for r, n in zip(todo, b.per_record):
        for m in b.metas[pos : pos + n]:
            metas.append(normalise_metadata({**m, "group": r.duplicate_of or r.paper_id}))
        pos += n
    store.upsert_chunks(b.chunk_ids, b.vecs, b.docs, metas)
    store.upsert_papers(todo, b.paper_vecs)
    index._dense_gen = store.bump_generation()
    regroup = any(r.duplicate_of != orig.duplicate_of or r.duplicate_of for r, orig in zip(todo, b.records))
    index.records_db.mark_indexed(todo, regroup=regroup)
    summary.embedded += len(todo)
    summary.chunks += len(b.chunk_ids)


def mark_near_duplicates(index, todo: list[Record], vecs: np.ndarray, summary: EmbedSummary) -> list[Record]:
    """The batch's records, `duplicate_of` set where another version is found: cosine of the paper vectors
    >= 0.9 and word-trigram Jaccard >= 0.3 against the stored papers and the earlier records of the batch;
    a claim from the input is kept only if the Jaccard test agrees."""
    from ..ingest.dedupe import NEAR_DUP_THRESHOLD, jaccard

    out: list[Record] = []
    neighbours = index.store.nearest_papers(vecs, n=2)
    within = vecs @ vecs.T  # cosines between the records of this batch (unit vectors)
    for i, r in enumerate(todo):
        if r.duplicate_of:  # a claim from the input: kept only if the project's own test agrees
            claim, r = r.duplicate_of, dataclasses.replace(r, duplicate_of="")
            target = next((p.text for p in out if p.paper_id == claim), None)
            if target is None and claim != r.paper_id:  # stored lexically (any state), or only in Chroma
                known = index.records_db.get([claim]) if index.records_db is not None else {}
                target = known[claim].text if claim in known else next(
                    (rec.text for rec, _ in index.store.get_papers([claim])), None)
            if target is not None and jaccard(r.text, target) >= NEAR_DUP_THRESHOLD:
                summary.near_duplicates.append((r.paper_id, claim))
                out.append(dataclasses.replace(r, duplicate_of=claim))
                continue
        cands = [(pid, cos) for pid, cos in neighbours[i] if pid != r.paper_id and cos >= NEAR_DUP_COSINE]
        # earlier records of this batch
        for j in np.flatnonzero(within[i, :i] >= NEAR_DUP_COSINE):
            if out[j].paper_id != r.paper_id:
                cands.append((out[j].paper_id, float(within[i, j])))
        dup = ""
        if cands:
            texts = {p.paper_id: p.text for p in out}
            missing = [pid for pid, _ in cands if pid not in texts]
            texts.update({rec.paper_id: rec.text for rec, _ in index.store.get_papers(missing)} if missing else {})
            for pid, _ in sorted(cands, key=lambda x: -x[1]):
                if pid in texts and jaccard(r.text, texts[pid]) >= NEAR_DUP_THRESHOLD:
                    dup = pid
                    break
        if dup:
            summary.near_duplicates.append((r.paper_id, dup))
            r = dataclasses.replace(r, duplicate_of=dup)
        out.append(r)
    return out
