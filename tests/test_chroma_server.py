"""The shared-deployment path: a real `chroma run` server on loopback, written by one process (the
CLI ingest) and read by another (the CLI search), through HttpClient."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PAPERS

pytestmark = pytest.mark.slow
CHROMA = Path(sys.executable).parent / "chroma"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory):
    if not CHROMA.exists():
        pytest.fail(f"{CHROMA} missing: chromadb is a pinned dependency and ships the `chroma` server command")
    port = _free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    proc = subprocess.Popen([str(CHROMA), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("chroma run did not start within 60 s")
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(10)


def _cli(args: list[str], data_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant.cli", "--data-dir", str(data_dir), "--preset", "debug",
                           *args], capture_output=True, text=True, timeout=300)


def test_ingest_in_one_process_query_in_another(chroma_url, tmp_path):
    corpus = tmp_path / "papers.jsonl"
    corpus.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.title or r.label, "abstract": r.text,
                                            "year": r.year}) for r in PAPERS) + "\n")
    writer = _cli(["--chroma-url", chroma_url, "ingest", str(corpus), "--quiet"], tmp_path / "writer-cache")
    assert writer.returncode == 0, writer.stderr
    assert "4 added" in writer.stdout
    # a second process with its own local cache sees the server's data (dense and BM25)
    reader = _cli(["--chroma-url", chroma_url, "search", "Prune&Comp perplexity", "--json"], tmp_path / "reader-cache")
    assert reader.returncode == 0, reader.stderr
    hits = json.loads(reader.stdout)["hits"]
    assert hits[0]["paper_id"] == "p-prune"
    assert "bm25" in hits[0]["scores"] and "dense" in hits[0]["scores"]
    # a write through the server is seen by the reader's next query (generation check rebuilds BM25)
    writer2 = _cli(["--chroma-url", chroma_url, "delete", "p-prune"], tmp_path / "writer-cache")
    assert writer2.returncode == 0, writer2.stderr
    reader2 = _cli(["--chroma-url", chroma_url, "search", "Prune&Comp perplexity", "--json"], tmp_path / "reader-cache")
    assert all(h["paper_id"] != "p-prune" for h in json.loads(reader2.stdout)["hits"])


def test_unreachable_server_is_a_clear_error(tmp_path):
    res = _cli(["--chroma-url", f"http://127.0.0.1:{_free_port()}", "stats"], tmp_path)
    assert res.returncode != 0
    assert "error:" in res.stderr and "hint:" in res.stderr and "Traceback" not in res.stderr
