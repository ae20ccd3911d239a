"""The `openai` embedding backend against a fault-injecting OpenAI-compatible stub on loopback: vectors in
input order, bounded requests in flight, retries where sensible, clear errors, nothing half-written."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import PAPERS, make_settings
from openai_stub import Behavior, OpenAIStub, stub_vector

from assistant.errors import ConfigError, EmbeddingMismatchError, ModelError, ModelTimeoutError, VectorSettingsError
from assistant.index.embedder import OpenAIEmbedder, get_embedder, local_token_counter
from assistant.types import Record


@pytest.fixture
def stub():
    with OpenAIStub(dim=8) as s:
        yield s


def _settings(tmp_path, url: str, **extra):
    over = {"embedding.backend": "openai", "embedding.server_url": url, "embedding.server_model": "stub-embed",
            "embedding.model": "hash", "embedding.retries": 2, "embedding.timeout_s": 5, **extra}
    return make_settings(tmp_path, **over)


def _embedder(tmp_path, stub, **extra) -> OpenAIEmbedder:
    s = _settings(tmp_path, stub.base_url, **extra)
    return OpenAIEmbedder(s.embedding, local_token_counter("hash"), backoff_s=0.01)


def test_vectors_in_input_order_normalised_and_batched(tmp_path, stub):
    emb = _embedder(tmp_path, stub, **{"embedding.batch_size": 3})
    assert (emb.dim, emb.name) == (8, "openai:stub-embed")
    texts = [f"text number {i} " + "word " * (10 - i) for i in range(10)]  # lengths differ: batches are length-sorted
    got = emb.embed_documents(texts)
    want = np.array([stub_vector(t, 8) for t in texts], dtype=np.float32)
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert stub.requests == 1 + 4  # the dimension probe, then ceil(10 / 3) batches
    assert all(len(b["input"]) <= 3 and b["model"] == "stub-embed" for b in stub.bodies[1:])
    np.testing.assert_allclose(emb.embed_query("q"), np.array(stub_vector("q", 8)), atol=1e-6)


def test_requests_in_flight_are_bounded(tmp_path, stub):
    emb = _embedder(tmp_path, stub, **{"embedding.batch_size": 1, "embedding.concurrency": 2})
    stub.default = Behavior.slow(0.2)
    emb.embed_documents([f"t{i}" for i in range(6)])
    assert stub.max_in_flight == 2


@pytest.mark.parametrize("fault", [Behavior.http_error(503), Behavior.http_error(500), Behavior.malformed(),
                                   Behavior.short(), Behavior.cut(), Behavior.http_error(429, retry_after=0.05)])
def test_transient_faults_are_retried(tmp_path, stub, fault):
    emb = _embedder(tmp_path, stub)
    stub.script(fault, fault)
    got = emb.embed_documents(["alpha", "beta"])
    np.testing.assert_allclose(got[1], np.array(stub_vector("beta", 8)), atol=1e-6)
    assert stub.requests == 1 + 3


def test_a_server_that_keeps_failing_is_a_clear_error(tmp_path, stub):
    emb = _embedder(tmp_path, stub)
    stub.default = Behavior.http_error(500, "model crashed")
    with pytest.raises(ModelError) as e:
        emb.embed_documents(["alpha"])
    assert "HTTP 500" in e.value.message and "model crashed" in e.value.message and "3 attempts" in e.value.message
    assert "run the same command again" in e.value.hint
    assert stub.requests == 1 + 3


def test_timeout_is_retried_then_a_timeout_error(tmp_path, stub):
    emb = _embedder(tmp_path, stub, **{"embedding.timeout_s": 0.3, "embedding.retries": 1})
    stub.default = Behavior.slow(2.0)
    with pytest.raises(ModelTimeoutError) as e:
        emb.embed_documents(["alpha"])
    assert "did not answer within 0.3 s" in e.value.message and "embedding.timeout_s" in e.value.hint
    assert stub.requests == 1 + 2


@pytest.mark.parametrize("status,hint", [(401, "api_key_env"), (404, "server_url"), (400, "server_model")])
def test_client_errors_fail_at_once_with_a_hint(tmp_path, stub, status, hint):
    emb = _embedder(tmp_path, stub)
    stub.default = Behavior.http_error(status, "nope")
    with pytest.raises(ModelError) as e:
        emb.embed_documents(["alpha"])
    assert f"HTTP {status}" in e.value.message and hint in e.value.hint
    assert stub.requests == 1 + 1  # not retried


@pytest.mark.parametrize("fault,words", [(Behavior.wrong_dim(), "dimension 9; 8 expected"), (Behavior.nan(), "NaN")])
def test_bad_vectors_fail_at_once(tmp_path, stub, fault, words):
    emb = _embedder(tmp_path, stub)
    stub.default = fault
    with pytest.raises(ModelError) as e:
        emb.embed_documents(["alpha", "beta"])
    assert words in e.value.message and e.value.hint
    assert stub.requests == 1 + 1


def test_api_key_from_the_named_environment_variable(tmp_path, stub, monkeypatch):
    monkeypatch.setenv("MY_EMBED_KEY", "sekrit")
    _embedder(tmp_path, stub, **{"embedding.api_key_env": "MY_EMBED_KEY"})
    assert stub.headers[-1].get("Authorization") == "Bearer sekrit"


def test_configuration_errors(tmp_path, stub):
    with pytest.raises(ConfigError, match=r"needs embedding\.server_url"):
        get_embedder(_settings(tmp_path, "").embedding)
    with pytest.raises(ConfigError, match=r"needs embedding\.server_model"):
        get_embedder(_settings(tmp_path, stub.base_url, **{"embedding.server_model": ""}).embedding)
    stub.stop()  # nothing listens there any more
    with pytest.raises(ModelError) as e:
        OpenAIEmbedder(_settings(tmp_path, stub.base_url, **{"embedding.retries": 0}).embedding, len, backoff_s=0.01)
    assert "ConnectError" in e.value.message and "running" in e.value.hint


def _records(n: int) -> list[Record]:
    base = PAPERS[1]
    return [Record(f"r{i}", f"Study {i} of topic {i * 7}. " + base.text, title=f"Paper {i}", year=2020 + i % 5)
            for i in range(n)]


def test_a_failing_batch_writes_nothing_and_a_rerun_completes(tmp_path, stub):
    from assistant.index.indexer import Index

    s = _settings(tmp_path, stub.base_url, **{"store.add_batch": 2})
    emb = OpenAIEmbedder(s.embedding, local_token_counter("hash"), backoff_s=0.01)
    records = _records(8)
    stub.script(Behavior.ok(), Behavior.ok(), *[Behavior.http_error(500)] * 10)  # batches 1-2 embed, 3 never does
    index = Index(s, embedder=emb)
    with pytest.raises(ModelError):
        index.add(records)
    papers, chunks = index.store.count()
    in_chroma = {r.paper_id for r, _ in index.store.get_papers()}
    indexed = {r.paper_id for r in index.records_db.iter_records("indexed")}
    assert in_chroma == indexed and 0 < papers < 8  # committed batches kept, no partial one
    assert {m["paper_id"] for _, _, m in index.store.all_chunks()} == in_chroma and chunks == papers
    stub.default = Behavior.ok()
    stub._queue.clear()
    again = Index(s, embedder=emb)
    again.add(records)
    assert again.store.count() == (8, 8)
    assert again.records_db.count("pending") == 0 and again.records_db.count("indexed") == 8
    hits = again.store.query_chunks(np.array(stub_vector(_embed_text(again, records[5]), 8), np.float32), 1)
    assert hits[0][0].startswith("r5")  # the stored vector is the server's vector for that chunk


def _embed_text(index, r: Record) -> str:
    return index._embed_text(r, index.chunk(r)[0])


def test_the_index_guard_keeps_two_server_models_and_dimensions_apart(tmp_path, stub):
    from assistant.index.indexer import Index

    s = _settings(tmp_path, stub.base_url)
    Index(s).add(_records(2))
    other = _settings(tmp_path, stub.base_url, **{"embedding.server_model": "another-model"})
    with pytest.raises(VectorSettingsError) as e:
        Index(other)
    assert "embedding.server_model=stub-embed" in e.value.message
    with OpenAIStub(dim=16) as wider:  # same model name, other vectors: the collection's contract refuses
        s16 = _settings(tmp_path, wider.base_url)
        with pytest.raises(EmbeddingMismatchError):
            Index(s16).store.count()
