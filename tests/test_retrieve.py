"""Fusion on hand-made rankings, grouping by paper, hybrid hits carrying per-retriever scores, filters."""

from __future__ import annotations

import dataclasses

import pytest

from assistant.index.indexer import Index
from assistant.retrieve.fusion import group_by, normalised_score_fusion, reciprocal_rank_fusion
from assistant.retrieve.hybrid import Filters, HybridRetriever


def test_rrf_by_hand():
    fused = dict(reciprocal_rank_fusion({"dense": ["a", "b", "c"], "bm25": ["c", "a"]}, k=10))
    # a: 1/11 + 1/12 ; b: 1/12 ; c: 1/13 + 1/11
    assert fused["a"] == pytest.approx(1 / 11 + 1 / 12)
    assert fused["b"] == pytest.approx(1 / 12)
    assert fused["c"] == pytest.approx(1 / 13 + 1 / 11)
    ranked = reciprocal_rank_fusion({"dense": ["a", "b", "c"], "bm25": ["c", "a"]}, k=10)
    assert [i for i, _ in ranked] == ["a", "c", "b"]


def test_rrf_weights_and_repeated_items():
    fused = dict(reciprocal_rank_fusion({"dense": ["a", "a", "b"], "bm25": ["b"]}, k=0, weights={"bm25": 2.0}))
    assert fused == {"a": 1.0, "b": pytest.approx(1 / 2 + 2.0)}  # the repeated "a" counts once, at rank 1


def test_score_fusion_by_hand():
    fused = dict(normalised_score_fusion({"dense": [("a", 0.8), ("b", 0.6), ("c", 0.4)],
                                          "bm25": [("c", 9.0), ("a", 3.0)]}))
    # dense: a=1, b=.5, c=0 ; bm25: c=1, a=0
    assert fused == pytest.approx({"a": 1.0, "b": 0.5, "c": 1.0})


def test_group_by_paper_k_means_distinct_papers():
    ranked = [("p1::0", 5.0), ("p1::1", 4.0), ("p2::0", 3.0), ("p1::2", 2.0), ("p3::0", 1.0)]
    key = {"p1::0": "p1", "p1::1": "p1", "p1::2": "p1", "p2::0": "p2", "p3::0": "p3"}
    assert group_by(ranked, key, 2) == [("p1", ["p1::0", "p1::1", "p1::2"], 5.0), ("p2", ["p2::0"], 3.0)]
    assert [g for g, _, _ in group_by(ranked, key, 10)] == ["p1", "p2", "p3"]


@pytest.fixture
def retriever(settings, papers):
    index = Index(settings)
    index.add(papers)
    return HybridRetriever(index, settings.retrieval)


def test_hybrid_hits_are_distinct_papers_with_scores_from_each_retriever(retriever):
    hits = retriever.search("Prune&Comp reduces perplexity of layer-pruned language models", k=3)
    assert hits[0].paper_id == "p-prune"
    assert len({h.paper_id for h in hits}) == len(hits) == 3
    assert {"dense", "bm25", "fused"} <= set(hits[0].scores)
    assert hits[0].ranks["bm25"] == 1
    assert hits[0].sentences and hits[0].record.title.startswith("Prune&Comp")


def test_versions_of_a_paper_appear_once(settings, papers):
    index = Index(settings)
    v2 = dataclasses.replace(papers[1], paper_id="p-prune-v2", duplicate_of="p-prune",
                             text=papers[1].text + " Code is available.")
    index.add([*papers, v2])
    hits = HybridRetriever(index, settings.retrieval).search("Prune&Comp perplexity", k=4)
    ids = [h.paper_id for h in hits]
    assert len([i for i in ids if i.startswith("p-prune")]) == 1


def test_filters_apply_inside_both_retrievers(retriever):
    hits = retriever.search("Prune&Comp perplexity", k=4, filters=Filters(year_min=2025))
    assert [h.paper_id for h in hits] == ["p-fedmerge"]
    hits = retriever.search("federated learning", k=4, filters=Filters(author="cy park"))
    assert [h.paper_id for h in hits] == ["p-prune"]
    assert retriever.search("anything", k=4, filters=Filters(year_min=2030)) == []
    assert retriever.matching_papers(Filters(source="a.jsonl")) == {"p-fedmerge", "p-gnn"}
    for mode in ("dense", "bm25"):
        hits = retriever.search("graph expressivity", k=4, mode=mode, filters=Filters(year_max=2023))
        assert {h.paper_id for h in hits} <= {"p-gnn", "p-underwater"}


def _spy_gets(index, monkeypatch) -> list:
    calls: list = []
    real = index.store.chunks.get

    def spy(*a, **kw):
        calls.append(kw.get("ids"))
        return real(*a, **kw)

    monkeypatch.setattr(index.store.chunks, "get", spy)
    return calls


def test_search_takes_chunk_metadata_from_the_lexical_index_not_a_store_get(settings, papers, monkeypatch):
    index = Index(settings)
    v2 = dataclasses.replace(papers[1], paper_id="p-prune-v2", duplicate_of="p-prune",
                             text=papers[1].text + " Code is available.")
    index.add([*papers, v2])
    r = HybridRetriever(index, settings.retrieval)
    expected = [(h.paper_id, h.sentences) for h in r.search("Prune&Comp perplexity", k=4)]
    calls = _spy_gets(index, monkeypatch)
    for mode in ("hybrid", "dense", "bm25"):
        hits = r.search("Prune&Comp perplexity", k=4, mode=mode)
        assert len([h for h in hits if h.paper_id.startswith("p-prune")]) == 1  # the group still holds
        assert all(h.sentences for h in hits)
    assert [(h.paper_id, h.sentences) for h in r.search("Prune&Comp perplexity", k=4)] == expected
    assert calls == []  # no per-query metadata `get` on the chunks collection


def test_lexical_index_saved_without_spans_is_rebuilt_once(settings, papers, monkeypatch):
    index = Index(settings)
    index.add(papers)
    (index.lexical_dir / "spans.npy").unlink()  # as saved by an older version
    fresh = Index(settings)
    lex = fresh.refresh_lexical()
    assert lex.spans is not None and lex.chunk_meta(lex.ids[0])["paper_id"] in {p.paper_id for p in papers}
    assert (fresh.lexical_dir / "spans.npy").is_file()


def test_dense_search_survives_an_unwritable_lexical_index(settings, papers, monkeypatch):
    from assistant.errors import StoreError

    index = Index(settings)
    index.add(papers)
    r = HybridRetriever(index, settings.retrieval)

    def broken(force=False):
        raise StoreError("disk full", hint="free some space")

    monkeypatch.setattr(index, "refresh_lexical", broken)
    hits = r.search("Prune&Comp perplexity", k=3, mode="dense")
    assert hits[0].paper_id == "p-prune" and hits[0].sentences
    with pytest.raises(StoreError):
        r.search("Prune&Comp perplexity", k=3)  # hybrid needs BM25: the error (with its hint) reaches the edge
