"""RELIABILITY.md scenarios 5, 9 and 10: the parts no other test covered (issue 23).

Scenario 3 (malformed CSV) is covered in test_ingest_readers.py (BOM and quoted newline in the rows.csv
fixture, bounded field size, missing/extra columns, formula text kept as text, repeated header); its
export clause does not apply: the app exports Markdown and BibTeX, never CSV. Scenario 38's "input
capped before tokenisation" is in test_user_text.py; uploads in test_ui_limits.py; generation limits
in test_models_*.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from assistant.index.indexer import Index
from assistant.retrieve.hybrid import HybridRetriever
from assistant.types import Record

TOPICS = ["federated learning", "layer pruning", "graph networks", "object detection", "speech recognition",
          "protein folding", "machine translation", "reinforcement learning", "image segmentation", "recommenders"]


def _long_abstract(tail: str) -> str:
    body = " ".join(f"Sentence {i} discusses {TOPICS[i % len(TOPICS)]} with general remarks on benchmarks and "
                    f"baselines number {i}." for i in range(60))
    return f"{body} {tail}"


def test_5_only_the_tail_of_a_long_abstract_matches_and_chunking_finds_it(settings):
    """An abstract far past the embedder's window is chunked, every chunk maps back to its paper, and a
    query matching only its last sentence finds it by vectors alone (no truncation lost the tail)."""
    tail = "Finally we calibrate quokka thermometers with zebrafish telemetry."
    papers = [Record("long", _long_abstract(tail), title="A long survey"),
              Record("short", "We study zebrafish swimming speed in warm water tanks.", title="Zebrafish")]
    index = Index(settings)
    res = index.add(papers)
    assert res.chunks.multi_chunk_papers == 1 and res.chunks.chunks >= 4  # counted in the ingest report
    retriever = HybridRetriever(index, settings.retrieval)
    hits = retriever.search("calibrate quokka thermometers with telemetry", k=2, mode="dense")
    assert hits[0].paper_id == "long"  # the chunk with the tail, grouped to its paper
    assert len({h.paper_id for h in hits}) == len(hits)  # k distinct papers, not k chunks of one


def _bytes(data_dir: Path, pattern: str) -> int:
    return sum(p.stat().st_size for p in data_dir.glob(pattern) if p.is_file())


def test_9_an_edited_abstract_replaces_its_chunks_and_refreshes_stay_small(settings, papers):
    """Edit one record and re-ingest, 40 times: exactly that record changes, no chunk is orphaned,
    retrieval returns the newest text, and each refresh adds little to the store (chroma#1755: an hourly
    refresh grew chroma.sqlite3 to 4.2 GB). Measured: ~4.6 KB per refresh in chroma.sqlite3 until Chroma
    purges its log (sync threshold, 1,000 entries); the records WAL is checkpointed by SQLite at 1,000 pages."""
    index = Index(settings)
    index.add(papers)
    data = Path(settings.store.data_dir)
    target = papers[2]
    before = _bytes(data, "chroma/chroma.sqlite3")
    for cycle in range(40):
        edited = dataclasses.replace(target, text=f"Revision {cycle}: graph networks with sparse 2-FWL message "
                                     f"passing keep expressivity; variant number {cycle} adds pooling.")
        res = index.add([edited])
        assert (res.added, res.updated, res.unchanged) == (0, 1, 0)
    got = index.store.chunks.get(where={"paper_id": target.paper_id}, include=["documents"])
    assert got["ids"] and all("Revision 39" in d for d in got["documents"])  # no chunk of an old version left
    assert index.store.papers.count() == len(papers)
    others = index.records([p.paper_id for p in papers if p is not target])
    assert all(others[p.paper_id].text == p.text for p in papers if p is not target)  # only that record changed
    lex = index.refresh_lexical()
    assert lex.search("variant number 39 adds pooling", 3)[0][0].startswith(target.paper_id)
    grew = _bytes(data, "chroma/chroma.sqlite3") - before
    assert grew < 40 * 16 * 1024, grew  # under 16 KB per one-record refresh
    assert _bytes(data, "records.sqlite3*") < 6 * 1024 * 1024  # SQLite's WAL autocheckpoint bounds it


class _TinyBatches:
    """Chroma with a maximum batch of 7: a larger write raises Chroma's own error, as a server would."""

    LIMIT = 7

    def __init__(self, monkeypatch):
        from chromadb.api import rust
        from chromadb.api.types import validate_batch

        self.sizes: list[int] = []
        orig_upsert = rust.RustBindingsAPI._upsert

        def upsert(api, collection_id, ids, embeddings, metadatas=None, documents=None, uris=None, **kw):
            self.sizes.append(len(ids))
            validate_batch((ids, embeddings, metadatas, documents, uris), {"max_batch_size": self.LIMIT})
            return orig_upsert(api, collection_id, ids, embeddings, metadatas, documents, uris, **kw)

        monkeypatch.setattr(rust.RustBindingsAPI, "get_max_batch_size", lambda api: self.LIMIT)
        monkeypatch.setattr(rust.RustBindingsAPI, "_upsert", upsert)


def test_10_a_write_larger_than_chromas_maximum_batch_is_split(settings, monkeypatch):
    chroma = _TinyBatches(monkeypatch)
    records = [Record(f"p{i}", f"Paper {i} studies {TOPICS[i % 10]} on benchmark {i}. It reports result {i}.",
                      title=f"Paper {i}") for i in range(30)]
    index = Index(settings)
    res = index.add(records)
    assert res.added == 30 and chroma.sizes and max(chroma.sizes) <= _TinyBatches.LIMIT
    assert index.store.papers.count() == 30 and index.store.chunks.count() >= 30
    with pytest.raises(ValueError, match="exceeds maximum batch size 7"):  # the guard is real
        index.store.chunks.upsert(ids=[f"x{i}" for i in range(8)], embeddings=[[0.0] * 256] * 8)
