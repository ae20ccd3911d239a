"""Index: chunking, idempotent re-ingest, edited records, deletes, near-duplicates, the model guard, the lock."""

from __future__ import annotations

import dataclasses
import multiprocessing as mp

import pytest

from assistant.errors import EmbeddingMismatchError, StoreLockedError
from assistant.index.chunking import chunk_record
from assistant.index.indexer import Index
from assistant.index.lock import WriteLock
from assistant.index.sentences import split_sentences
from assistant.index.store import ChromaStore, normalise_metadata
from assistant.types import Record


def test_sentences_keep_offsets_and_abbreviations():
    text = "We use e.g. CNNs et al. in 2024. Gains are 24.72%! Does it work? Yes (see Fig. 2)."
    sents = split_sentences(text)
    assert [s.text for s in sents] == [
        "We use e.g. CNNs et al. in 2024.", "Gains are 24.72%!", "Does it work?", "Yes (see Fig. 2).",
    ]
    assert all(text[s.start : s.end] == s.text for s in sents)


def test_chunks_are_whole_sentences_with_overlap():
    text = " ".join(f"Sentence number {i} talks about topic {i} in some detail." for i in range(12))
    rec = Record("x", text)
    chunks = chunk_record(rec, lambda t: len(t.split()), chunk_tokens=30, overlap_sentences=1)
    assert len(chunks) > 1
    for a, b in zip(chunks, chunks[1:]):
        assert b.sent_start == a.sent_end - 1  # one shared sentence
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text
        assert len(c.text.split()) <= 30
    assert chunks[0].sent_start == 0 and chunks[-1].sent_end == len(split_sentences(text))


def test_overlong_sentence_is_cut_not_lost():
    text = "Short one. " + " ".join(["word"] * 100) + "."
    chunks = chunk_record(Record("y", text), lambda t: len(t.split()), chunk_tokens=20, overlap_sentences=0)
    covered = "".join(c.text.replace(" ", "") for c in chunks)
    assert covered.count("word") >= 100
    assert all(len(c.text.split()) <= 20 for c in chunks)


def test_reingest_is_idempotent_and_edit_replaces_chunks(settings, papers):
    index = Index(settings)
    first = index.add(papers)
    assert (first.added, first.updated, first.unchanged) == (4, 0, 0)
    counts = index.store.count()
    again = index.add(papers)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 4)
    assert index.store.count() == counts
    edited = dataclasses.replace(papers[2], text="A completely rewritten abstract about hypergraph transformers. "
                                 "It has two sentences only.")
    res = index.add([edited])
    assert (res.added, res.updated) == (0, 1)
    got = index.store.chunks.get(where={"paper_id": "p-gnn"}, include=["documents"])
    assert all("hypergraph" in d for d in got["documents"]) and got["documents"]
    assert index.records(["p-gnn"])["p-gnn"].text.startswith("A completely rewritten")
    lex = index.refresh_lexical()
    assert lex.search("hypergraph transformers", 5)[0][0].startswith("p-gnn")
    assert not lex.search("expressivity sparsify", 5) or not lex.search("expressivity sparsify", 5)[0][0].startswith("p-gnn")


def test_delete_removes_from_every_index(settings, papers):
    index = Index(settings)
    index.add(papers)
    assert index.delete(["p-prune", "nope"]) == ["nope"]
    assert index.records(["p-prune"]) == {}
    assert not index.store.chunks.get(where={"paper_id": "p-prune"})["ids"]
    assert all(not c.startswith("p-prune") for c, _ in index.refresh_lexical().search("Prune&Comp perplexity", 10))


def test_near_duplicate_version_is_marked(settings, papers):
    index = Index(settings)
    index.add(papers)
    v2 = Record("p-prune-v2", papers[1].text.replace("24.72%", "24.7%") + " Code is released.", title=papers[1].title)
    res = index.add([v2])
    assert res.near_duplicates == [("p-prune-v2", "p-prune")]
    assert index.records(["p-prune-v2"])["p-prune-v2"].duplicate_of == "p-prune"


def test_embedding_model_guard(settings, tmp_path):
    ChromaStore(settings.store.data_dir, "", "guard", "model-a", 8)
    with pytest.raises(EmbeddingMismatchError) as e:
        ChromaStore(settings.store.data_dir, "", "guard", "model-b", 8)
    assert "model-a" in e.value.message and "model-b" in e.value.message and e.value.hint
    with pytest.raises(EmbeddingMismatchError):
        ChromaStore(settings.store.data_dir, "", "guard", "model-a", 16)


def test_metadata_normalised_for_chroma():
    meta = normalise_metadata({"a": None, "b": ["x", "y"], "c": {"k": 1}, "d": "z" * 5000, "e": 3, "f": True})
    assert meta == {"b": "x; y", "c": "{'k': 1}", "d": "z" * 2000, "e": 3, "f": True}


def _try_lock(path, q):
    try:
        WriteLock(path).acquire()
        q.put("acquired")
    except StoreLockedError as e:
        q.put(e.message)


def test_second_writer_fails_fast_naming_the_holder(tmp_path):
    with WriteLock(tmp_path):
        q = mp.get_context("spawn").Queue()
        p = mp.get_context("spawn").Process(target=_try_lock, args=(tmp_path, q))
        p.start()
        p.join(60)
        msg = q.get(timeout=5)
    assert "in use by PID" in msg
    WriteLock(tmp_path).acquire().release()  # free again once the holder let go
