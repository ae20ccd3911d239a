"""The `openai` embedding backend against a REAL OpenAI-compatible server: Infinity (its own venv,
`make embed-server`) serving the bundled MiniLM from disk on 127.0.0.1, started here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import PAPERS
from servers import SERVED_NAME, infinity

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    log = tmp_path_factory.mktemp("infinity") / "server.log"
    try:
        with infinity(log=log) as url:
            yield url
    except (FileNotFoundError, RuntimeError) as e:
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        pytest.fail(f"{e}\n{tail}")


def _server_settings(url: str, **extra) -> list[str]:
    over = {"embedding.backend": "openai", "embedding.server_url": url, "embedding.server_model": SERVED_NAME, **extra}
    return [a for k, v in over.items() for a in ("--set", f"{k}={v}")]


def test_server_vectors_are_the_reference_vectors(server_url, tmp_path):
    from assistant.index.embedder import OpenAIEmbedder, SentenceTransformerEmbedder, local_token_counter, minilm_path
    from assistant.settings import load_settings

    s = load_settings(None, {"embedding.backend": "openai", "embedding.server_url": server_url,
                             "embedding.server_model": SERVED_NAME, "embedding.batch_size": 2}, env={})
    remote = OpenAIEmbedder(s.embedding, local_token_counter(s.embedding.model))
    assert (remote.name, remote.dim) == (f"openai:{SERVED_NAME}", 384)
    texts = [p.text for p in PAPERS] + ["a short one"]
    got = remote.embed_documents(texts)  # three requests, two in flight
    ref = SentenceTransformerEmbedder(minilm_path(), "ref", s.embedding).embed_documents(texts)
    cos = (got * ref).sum(axis=1)
    assert cos.min() > 0.999, cos
    assert remote.count_tokens("Graph neural networks") == 3  # the local MiniLM tokenizer, no server call
    np.testing.assert_allclose(remote.embed_query(texts[0]), got[0], atol=1e-5)


def _cli(args: list[str], data_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant.cli", "--data-dir", str(data_dir), *args],
                          capture_output=True, text=True, timeout=300)


def test_ingest_and_search_through_the_server_and_the_guard(server_url, tmp_path):
    corpus = tmp_path / "papers.jsonl"
    corpus.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.title or r.label, "abstract": r.text,
                                            "year": r.year}) for r in PAPERS) + "\n")
    data = tmp_path / "data"
    res = _cli([*_server_settings(server_url), "ingest", str(corpus), "--quiet"], data)
    assert res.returncode == 0, res.stderr
    assert "4 added" in res.stdout
    res = _cli([*_server_settings(server_url), "search", "layer pruning of language models", "--json",
                "--mode", "dense"], data)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["hits"][0]["paper_id"] == "p-prune"
    stats = json.loads(_cli([*_server_settings(server_url), "stats", "--json"], data).stdout)
    assert stats["embedding_model"] == f"openai:{SERVED_NAME}" and stats["papers"] == 4
    # the same store with the local ONNX vectors: refused, naming both settings, never mixed
    res = _cli(["search", "layer pruning"], data)
    assert res.returncode == 2 and "embedding.backend=openai" in res.stderr and "hint:" in res.stderr
