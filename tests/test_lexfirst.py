"""Lexical-first ingest (issue 12): records are searchable by BM25 before any vector, fusion does not
penalise a paper for lacking one, the embed job resumes after a kill, coverage is reported in stats,
answers and doctor. Debug preset (hash embeddings): no model weights."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

from assistant.answer.assistant import Assistant
from assistant.index.doctor import diagnose
from assistant.index.indexer import Index
from assistant.index.records import PENDING
from assistant.retrieve.fusion import normalised_score_fusion, reciprocal_rank_fusion
from assistant.retrieve.hybrid import HybridRetriever
from assistant.settings import load_settings
from assistant.types import Record


def _lexical(settings, records) -> Index:
    index = Index(settings)
    res = index.add(records, embed=False)
    assert res.embedded == 0
    return index


def test_records_are_searchable_and_answerable_before_any_vector(settings, papers):
    index = _lexical(settings, papers)
    assert index.store.count() == (0, 0)  # not one vector written
    assert index.records_db.count(PENDING) == len(papers)
    assert index.coverage() == {"embedded": 0, "papers": 4, "complete": False, "percent": 0.0}
    hits = HybridRetriever(index, settings.retrieval).search("Prune&Comp layer pruning perplexity", k=2)
    assert hits and hits[0].paper_id == "p-prune"
    assert "dense" not in hits[0].scores and hits[0].scores["bm25"] > 0
    answer = Assistant(settings, index=index).ask("How much does Prune&Comp reduce perplexity?")
    assert answer.dense_coverage["embedded"] == 0 and answer.dense_coverage["papers"] == 4
    assert any("Dense retrieval covers 0 of 4 papers" in n for n in answer.notes)
    assert answer.to_json()["dense_coverage"]["complete"] is False


def test_a_reader_in_another_process_sees_lexical_records(settings, papers):
    _lexical(settings, papers)
    out = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "--data-dir", str(settings.store.data_dir), "--preset", "debug",
         "search", "underwater detector low-power", "--json", "--k", "1"],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hits"][0]["paper_id"] == "p-underwater"


def test_embedding_later_completes_coverage_and_the_answer_note_goes(settings, papers):
    index = _lexical(settings, papers)
    done = index.embed_pending()
    assert done.embedded == 4 and index.store.count()[0] == 4 and index.coverage()["complete"]
    answer = Assistant(settings, index=index).ask("How much does Prune&Comp reduce perplexity?")
    assert answer.dense_coverage["complete"] and not any("Dense retrieval covers" in n for n in answer.notes)


def test_fusion_renormalises_only_items_a_retriever_could_not_score():
    dense = [("a::0", 0.9), ("b::0", 0.5)]
    bm25 = [("c::0", 12.0), ("a::0", 3.0), ("b::0", 1.0)]
    naive = normalised_score_fusion({"dense": dense, "bm25": bm25})
    fair = normalised_score_fusion({"dense": dense, "bm25": bm25}, unscorable={"dense": lambda i: i.startswith("c")})
    assert naive[0][0] == "a::0" and dict(naive)["c::0"] == 1.0  # c is top lexically but loses the dense share
    assert fair[0] == ("c::0", 2.0)  # scored over BM25 alone, scaled to the full weight
    assert {k: v for k, v in fair if k != "c::0"} == {k: v for k, v in naive if k != "c::0"}
    rrf = reciprocal_rank_fusion({"dense": ["a::0"], "bm25": ["c::0", "a::0"]}, 60,
                                 unscorable={"dense": lambda i: i.startswith("c")})
    assert rrf[0][0] == "c::0" and rrf[0][1] == pytest.approx(2 / 61)
    # nothing unscorable: exactly today's fusion
    assert normalised_score_fusion({"dense": dense, "bm25": bm25}, unscorable={"dense": lambda i: False}) == naive


def test_an_unembedded_paper_is_not_ranked_below_an_embedded_one_for_lacking_a_vector(settings, papers):
    index = Index(settings)
    index.add(papers[:3])  # embedded
    late = Record("p-late", "Prune&Comp style layer pruning of large language models, revisited: we reduce "
                  "perplexity of layer-pruned LLaMA models further.", title="Layer pruning revisited")
    index.add([late], embed=False)
    assert index.unembedded() == {"p-late"}
    query = "layer pruning perplexity LLaMA revisited"
    r = HybridRetriever(index, settings.retrieval)
    bm25 = [h.paper_id for h in r.search(query, k=4, mode="bm25")]
    fair = r.search(query, k=4)
    r.renormalise = False
    naive = r.search(query, k=4)
    late_fair = next(h.score for h in fair if h.paper_id == "p-late")
    late_naive = next(h.score for h in naive if h.paper_id == "p-late")
    assert bm25[0] == "p-late"
    assert late_fair == pytest.approx(2 * late_naive)  # BM25's normalised score over the full weight
    assert fair[0].paper_id == "p-late"


def test_doctor_reports_pending_records_as_coverage_not_damage(settings, papers):
    index = _lexical(settings, papers)
    index.add([], embed=False)
    findings = diagnose(Index(settings, new_vectors=True), probe=True)
    assert all(f.ok for f in findings), findings
    cov = next(f for f in findings if f.check == "coverage")
    assert "covers 0 of 4 papers" in cov.message and cov.fix == "paperchat embed"
    Index(settings).embed_pending()
    findings = diagnose(Index(settings, new_vectors=True), probe=True)
    assert all(f.ok for f in findings) and not any(f.check == "coverage" for f in findings)


def test_stats_json_shows_coverage(settings, papers, capsys):
    from assistant.cli import main

    _lexical(settings, papers)
    assert main(["--data-dir", str(settings.store.data_dir), "--preset", "debug", "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["dense_coverage"] == {"embedded": 0, "papers": 4, "complete": False, "percent": 0.0}
    assert stats["records"] == 4 and stats["pending"] == 4


def test_an_updated_record_replaces_its_chunks_everywhere(settings, papers):
    index = Index(settings)
    index.add(papers)
    longer = Record("p-gnn",
                    papers[2].text + " " + " ".join(f"Sentence {i} adds detail about sparsity." for i in range(40)),
                    label="Sparsified 2-FWL GNNs", label_derived=True)
    res = index.add([longer])
    assert res.updated == 1 and res.embedded == 1
    shorter = Record("p-gnn", "Graph neural networks, briefly.", label="Sparsified 2-FWL GNNs", label_derived=True)
    index.add([shorter])
    chunks = [cid for cid, _t, m in index.store.all_chunks() if m["paper_id"] == "p-gnn"]
    assert chunks == ["p-gnn::0"]  # the longer version's extra chunks are gone from Chroma
    assert [c for c in index.refresh_lexical().ids if c.startswith("p-gnn::")] == ["p-gnn::0"]


N = 1200


def _synthetic(path: Path) -> None:
    words = "graph neural transformer attention diffusion federated pruning retrieval sparse dense robust".split()
    with open(path, "w", encoding="utf-8") as f:
        for i in range(N):
            body = " ".join(words[(i * 7 + j) % len(words)] for j in range(12))
            f.write(json.dumps({"id": f"2601.{i:05d}", "title": f"Paper {i}",
                                "abstract": f"Record {i} studies item {i * 7919 % 100003}. {body.capitalize()}. "
                                            f"We report result {i}."}) + "\n")


def _cli(data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "assistant.cli", "--data-dir", str(data), "--preset", "debug",
            "--set", "store.add_batch=32", *args]


@pytest.mark.slow
def test_killed_embed_job_resumes_and_indexes_every_paper_exactly_once(tmp_path):
    src, data = tmp_path / "in.jsonl", tmp_path / "store"
    _synthetic(src)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    lexical = subprocess.run(_cli(data, "ingest", "--no-embed", str(src)), capture_output=True, text=True, cwd=ROOT,
                             env=env, timeout=600)
    assert lexical.returncode == 0, lexical.stderr
    from assistant.index.records import RecordStore

    def embedded() -> int:
        db = RecordStore(data, readonly=True)
        try:
            return db.coverage()[0]
        finally:
            db.close()

    assert embedded() == 0
    proc = subprocess.Popen(_cli(data, "embed"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                            env=env)
    deadline = time.monotonic() + 300
    while embedded() < 3 * 32 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    part = embedded()
    assert 0 < part < N, "the job finished (or never started) before the kill; use more records"
    again = subprocess.run(_cli(data, "embed"), capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"dense retrieval covers {N} of {N} papers" in again.stdout
    index = Index(load_settings("debug", {"store.data_dir": str(data), "store.add_batch": 32}, env={}))
    ids = [cid for cid, _t, _m in index.store.all_chunks()]
    assert len(ids) == len(set(ids)) == index.records_db.count_chunks()  # no duplicate chunk, none missing
    papers = {r.paper_id for r, _ in index.store.get_papers()}
    assert len(papers) == index.store.count()[0] == N and index.records_db.count(PENDING) == 0
    doctor = subprocess.run(_cli(data, "doctor"), capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert doctor.returncode == 0, doctor.stdout



@pytest.mark.slow
def test_ingest_background_returns_searchable_and_the_embed_job_finishes(tmp_path, papers):
    src, data = tmp_path / "in.jsonl", tmp_path / "store"
    src.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.title or r.label, "abstract": r.text})
                             for r in papers) + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run(_cli(data, "ingest", "--background", str(src)), capture_output=True, text=True, cwd=ROOT,
                       env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "searchable now (BM25): 4 papers" in p.stderr and "in the background" in p.stderr
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        stats = json.loads(subprocess.run(_cli(data, "stats", "--json"), capture_output=True, text=True, cwd=ROOT,
                                          env=env, timeout=300).stdout)
        if stats["dense_coverage"]["complete"]:
            break
        time.sleep(0.5)
    assert stats["dense_coverage"] == {"embedded": 4, "papers": 4, "complete": True, "percent": 100.0}
    assert stats["papers"] == 4 and "dense retrieval covers 4 of 4" in (data / "embed.log").read_text()


def test_a_reader_sees_the_vectors_another_process_embedded(settings, papers, monkeypatch):
    import assistant.index.coverage as coverage
    import assistant.index.indexer as indexer

    monkeypatch.setattr(coverage, "DENSE_RELOAD_S", 0.0)
    monkeypatch.setattr(coverage, "GENERATION_CHECK_S", 0.0)
    monkeypatch.setattr(indexer, "GENERATION_CHECK_S", 0.0)
    index = Index(settings)
    index.add(papers[:2])
    index.add(papers[2:], embed=False)
    r = HybridRetriever(index, settings.retrieval)
    query = "underwater object detection colour casts blur lightweight detector"
    assert "p-underwater" not in [h.paper_id for h in r.search(query, k=4, mode="dense")]  # no vector yet
    p = subprocess.run(_cli(settings.store.data_dir, "embed"), capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert p.returncode == 0, p.stderr
    assert r.search(query, k=1, mode="dense")[0].paper_id == "p-underwater"  # this process's Chroma was reopened
    assert index.unembedded() == frozenset()


def test_embed_limit_stops_at_exactly_that_many(settings, papers):
    index = _lexical(settings.with_overrides({"store.add_batch": 1}), papers)
    assert index.embed_pending(limit=3).embedded == 3
    assert index.coverage()["embedded"] == 3 and index.store.count()[0] == 3
    assert index.embed_pending().embedded == 1 and index.coverage()["complete"]


def test_deleting_a_pending_record_removes_it_from_bm25_and_from_the_embed_queue(settings, papers):
    index = _lexical(settings, papers)
    assert index.delete(["p-gnn"]) == []
    assert not [c for c in index.refresh_lexical().ids if c.startswith("p-gnn::")]
    assert index.embed_pending().embedded == 3 and index.coverage() == {
        "embedded": 3, "papers": 3, "complete": True, "percent": 100.0}


def test_a_near_duplicate_found_while_embedding_is_grouped_in_bm25_too(settings, papers):
    v2 = Record("p-prune-v2", papers[1].text.replace("24.72%", "24.7%") + " Code is released.", title=papers[1].title)
    index = _lexical(settings, [papers[1], v2])
    assert index.refresh_lexical().chunk_meta("p-prune-v2::0")["group"] == "p-prune-v2"  # not known before vectors
    res = index.embed_pending()
    assert res.near_duplicates == [("p-prune-v2", "p-prune")]
    assert index.refresh_lexical().chunk_meta("p-prune-v2::0")["group"] == "p-prune"
    assert index.records(["p-prune-v2"])["p-prune-v2"].duplicate_of == "p-prune"
    hits = HybridRetriever(index, settings.retrieval).search("Prune&Comp layer pruning perplexity", k=5)
    assert [h.paper_id for h in hits].count("p-prune") + [h.paper_id for h in hits].count("p-prune-v2") == 1
