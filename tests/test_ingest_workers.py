"""Several ingest workers writing to one `chroma run` server at once: `--shard i/N` over one input, or one
input each; no record lost or duplicated (ids and counts checked in Chroma)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, make_settings
from servers import chroma, free_port

from assistant.errors import ConfigError
from assistant.ingest.shard import Shard

CORPUS = ROOT / "data" / "corpus.jsonl"


def test_shards_partition_any_ids_stably():
    ids = [f"arxiv:{i:05d}" for i in range(3000)] + ["x", "", "ünïcode-id"]
    shards = [Shard.parse(f"{i}/3") for i in (1, 2, 3)]
    owners = [[s for s in shards if s.owns(pid)] for pid in ids]
    assert all(len(o) == 1 for o in owners)  # each id in exactly one shard
    sizes = [sum(o[0] is s for o in owners) for s in shards]
    assert min(sizes) > 900  # about a third each
    assert Shard.parse(" 2 / 3 ").owns("arxiv:00007") == shards[1].owns("arxiv:00007")
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", ""):
        with pytest.raises(ConfigError) as e:
            Shard.parse(bad)
        assert "1/3" in e.value.hint


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with chroma(tmp_path_factory.mktemp("chroma-workers")) as url:
        yield url


def _worker(url: str, data_dir: Path, *args: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "assistant.cli", "--data-dir", str(data_dir), "--chroma-url", url, "--preset", "debug",
           "ingest", *args, "--quiet"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _run_all(procs: list[subprocess.Popen]) -> list[str]:
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        outs.append(out)
    return outs


def _added(out: str) -> int:
    return int(re.search(r"(\d+) added", out).group(1))


def _expected(tmp_path: Path, url: str, paths: list[Path]):
    """(paper ids, chunk ids) the input should produce, computed in-process with the same settings."""
    from assistant.index.indexer import Index
    from assistant.ingest import read_source
    from assistant.types import Record

    index = Index(make_settings(tmp_path / "expect", **{"store.chroma_url": url}))
    records = {r.paper_id: r for p in paths for r in read_source(p) if isinstance(r, Record)}
    chunk_ids = {c.chunk_id for r in records.values() for c in index.chunk(r)}
    return index, set(records), chunk_ids


def _in_chroma(index) -> tuple[list[str], list[str]]:
    papers = index.store.papers.get(include=[])["ids"]
    chunks = index.store.chunks.get(include=[])["ids"]
    return papers, chunks


def test_three_shard_workers_write_one_input_concurrently(server, tmp_path):
    procs = [_worker(server, tmp_path / f"w{i}", str(CORPUS), "--shard", f"{i}/3") for i in (1, 2, 3)]
    outs = _run_all(procs)
    index, paper_ids, chunk_ids = _expected(tmp_path, server, [CORPUS])
    papers, chunks = _in_chroma(index)
    assert sorted(papers) == sorted(paper_ids) and len(papers) == len(set(papers))  # none lost, none twice
    assert sorted(chunks) == sorted(chunk_ids)
    assert sum(_added(o) for o in outs) == len(paper_ids)  # each record written by exactly one worker
    assert all(_added(o) > 0 for o in outs)
    # the chunks and papers agree: every chunk belongs to a stored paper
    metas = index.store.chunks.get(include=["metadatas"])["metadatas"]
    assert {m["paper_id"] for m in metas} == paper_ids
    # a worker run again (or a fresh worker) finds everything stored on the server: nothing rewritten
    again = _run_all([_worker(server, tmp_path / "fresh", str(CORPUS), "--shard", "2/3")])[0]
    assert _added(again) == 0 and "already stored" in again
    assert len(_in_chroma(index)[0]) == len(paper_ids)
    stats = subprocess.run([sys.executable, "-m", "assistant.cli", "--data-dir", str(tmp_path / "reader"),
                            "--chroma-url", server, "--preset", "debug", "stats", "--json"],
                           capture_output=True, text=True, timeout=300)
    got = json.loads(stats.stdout)
    assert got["papers"] == got["records"] == len(paper_ids) and got["chunks"] == len(chunk_ids)  # all workers' records


def test_workers_with_overlapping_inputs(tmp_path):
    """Three workers, one file each, the files sharing some records: each paper stored once."""
    lines = [ln for ln in CORPUS.read_text(encoding="utf-8").splitlines() if ln.strip()][:90]
    files = []
    for i in range(3):
        f = tmp_path / f"part{i}.jsonl"
        f.write_text("\n".join(lines[i * 30 : i * 30 + 40]) + "\n", encoding="utf-8")  # 10 lines overlap the next
        files.append(f)
    with chroma(tmp_path / "chroma", free_port()) as url:
        _run_all([_worker(url, tmp_path / f"w{i}", str(f)) for i, f in enumerate(files)])
        index, paper_ids, chunk_ids = _expected(tmp_path, url, files)
        papers, chunks = _in_chroma(index)
        assert sorted(papers) == sorted(paper_ids) and sorted(chunks) == sorted(chunk_ids)


def test_two_writers_sharing_a_data_dir_are_refused_with_a_hint(server, tmp_path):
    from assistant.index.lock import WriteLock

    with WriteLock(tmp_path / "shared", server=server):
        p = _worker(server, tmp_path / "shared", str(CORPUS), "--shard", "1/3")
        out, err = p.communicate(timeout=300)
    assert p.returncode != 0 and "own --data-dir" in err and "Traceback" not in err and not out


def test_a_worker_opening_while_another_creates_the_collections(server, tmp_path, monkeypatch, papers):
    """The collections appear between a fresh worker's look for them and its list of the server's
    collections (a race seen running the deployment recipe): its own index is no mismatch."""
    from assistant.index.indexer import Index
    from assistant.index.store import ChromaStore

    over = {"store.chroma_url": server, "store.collection_prefix": "race"}
    Index(make_settings(tmp_path / "w1", **over)).add(papers)
    monkeypatch.setattr(ChromaStore, "_existing", lambda self, name: None)  # "not there yet" when it looked
    fresh = Index(make_settings(tmp_path / "w2", **over))
    assert not fresh.store.exists  # and no VectorSettingsError: the collections listed are its own
    monkeypatch.undo()
    assert Index(make_settings(tmp_path / "w3", **over)).add(papers).unchanged == len(papers)
