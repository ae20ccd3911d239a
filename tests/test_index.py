"""Index: chunking, idempotent re-ingest, edited records, deletes, near-duplicates, the model guard, the lock."""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing as mp

import pytest

from assistant.errors import EmbeddingMismatchError, StoreLockedError
from assistant.index.chunking import chunk_record
from assistant.index.indexer import Index
from assistant.index.lock import WriteLock
from assistant.index.records import PENDING
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
    for a, b in itertools.pairwise(chunks):
        assert b.sent_start == a.sent_end - 1  # one shared sentence
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text
        assert len(c.text.split()) <= 30
    assert chunks[0].sent_start == 0 and chunks[-1].sent_end == len(split_sentences(text))


def test_two_chunks_are_even_halves_not_a_full_chunk_and_a_scrap():
    text = " ".join(f"Sentence {i} has exactly six words." for i in range(12))  # 72 words
    chunks = chunk_record(Record("e", text), lambda t: len(t.split()), chunk_tokens=60, overlap_sentences=0)
    sizes = [len(c.text.split()) for c in chunks]
    assert sizes == [36, 36]  # greedy alone gives [60, 12]
    assert " ".join(c.text for c in chunks) == text


def test_chunk_with_its_title_prefix_fits_the_embedder_window(settings):
    s = settings.with_overrides({"embedding.max_seq_tokens": 60, "chunking.chunk_tokens": 200})
    index = Index(s)
    rec = Record("t", " ".join(f"Claim {i} about graphs and proofs." for i in range(30)),
                 title="A rather long title with many words in it")
    chunks = index.chunk(rec)
    assert len(chunks) > 1
    assert all(index.embedder.count_tokens(index._embed_text(rec, c)) <= 58 for c in chunks)


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
    hits = lex.search("expressivity sparsify", 5)
    assert not hits or not hits[0][0].startswith("p-gnn")


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


class _FailingEmbedder:
    """Wraps an embedder; the `fail_on`-th embed_documents call raises (as a crash mid-ingest would)."""

    def __init__(self, inner, fail_on: int) -> None:
        self.inner, self.fail_on, self.calls = inner, fail_on, 0
        self.name, self.dim = inner.name, inner.dim

    def count_tokens(self, text):
        return self.inner.count_tokens(text)

    def embed_query(self, text):
        return self.inner.embed_query(text)

    def embed_documents(self, texts, progress=None):
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError("embedder died")
        return self.inner.embed_documents(texts, progress)


def _many(n: int) -> list[Record]:
    return [Record(f"m{i}", f"Paper {i} studies topic {i * 7 % 13} with method {i} and reports result {i}.",
                   title=f"Title {i}") for i in range(n)]


def test_failure_mid_embed_keeps_committed_batches_and_progress_counts_only_them(settings):
    s = settings.with_overrides({"store.add_batch": 2})
    base = Index(s)
    index = Index(s, embedder=_FailingEmbedder(base.embedder, fail_on=3))  # batches 1-2 embed, 3 fails
    seen: list[int] = []
    embedded: list[int] = []
    with pytest.raises(RuntimeError, match="embedder died"):
        index.add(_many(8), progress=seen.append, embed_progress=embedded.append)
    assert sum(seen) == 8  # lexical first: every record stored (and searchable) before any vector
    assert sum(embedded) == 4  # the two committed embed batches, each reported after its write
    assert index.store.count()[0] == 4 and index.records_db.count(PENDING) == 4
    again = Index(s).add(_many(8))  # resume: nothing to store again, the pending half is embedded
    assert (again.added, again.unchanged, again.repaired, again.embedded) == (0, 8, 4, 4)
    assert Index(s).store.count() == (8, 8)


def test_near_duplicate_in_the_next_batch_is_found_while_writes_overlap(settings, papers):
    s = settings.with_overrides({"store.add_batch": 1})
    v2 = Record("p-prune-v2", papers[1].text.replace("24.72%", "24.7%") + " Code is released.", title=papers[1].title)
    res = Index(s).add([papers[1], v2, papers[0]])
    assert res.near_duplicates == [("p-prune-v2", "p-prune")]


def test_embedding_backend_gets_its_own_collection(settings):
    onnx = settings.with_overrides({"embedding.backend": "onnx"})
    torch = settings.with_overrides({"embedding.backend": "torch"})
    assert onnx.index_name() != torch.index_name()
    assert torch.index_name() == torch.with_overrides({"embedding.backend": "torch"}).index_name()


def test_an_onnx_vector_does_not_depend_on_the_texts_embedded_with_it(tmp_path):
    from conftest import make_settings

    from assistant.index.embedder import get_embedder
    from assistant.index.embedder.onnx_int8 import OnnxEmbedder

    emb = get_embedder(make_settings(tmp_path, preset="extractive", **{"embedding.backend": "onnx"}).embedding)
    assert isinstance(emb, OnnxEmbedder)  # the int8 model (the debug preset's hash embedder has no such issue)
    text = "vaping among teenagers"
    alone = emb.embed_documents([text])[0]
    others = ["A much longer sentence about electronic cigarettes and adolescent smoking in schools. " * 3, "short"]
    assert (emb.embed_documents([text, *others])[0] == alone).all()  # int8 activations: one scale per run
    assert (emb.embed_documents([*others, text])[2] == emb.embed_query(text)).all()
