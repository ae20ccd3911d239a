"""Issue 13: settings guard, reads that create nothing, input duplicate_of, --k, bad URLs, purge, disk full,
read-only data dirs, records before chunks (no chunk without its paper, repaired on the next write)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PAPERS, ROOT

from assistant.cli import main
from assistant.errors import DiskFullError, VectorSettingsError
from assistant.index.indexer import Index
from assistant.index.records import PENDING
from assistant.retrieve.hybrid import HybridRetriever
from assistant.types import Record


def _collections(data_dir: Path) -> list[str]:
    code = ("import chromadb,sys; from chromadb.config import Settings as S; "
            "c=chromadb.PersistentClient(path=sys.argv[1], settings=S(anonymized_telemetry=False)); "
            "print(sorted(x if isinstance(x,str) else x.name for x in c.list_collections()))")
    out = subprocess.run([sys.executable, "-c", code, str(data_dir / "chroma")], capture_output=True, text=True,
                         check=True)
    return eval(out.stdout)  # our own subprocess' repr of a list of names


@pytest.fixture
def cli_store(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path / "store"))
    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.title, "abstract": r.text}) for r in PAPERS) + "\n")
    return tmp_path / "store", f


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_vector_settings_change_is_an_error_naming_both_and_the_ways_forward(settings, papers):
    Index(settings).add(papers)
    other = settings.with_overrides({"embedding.backend": "torch"})
    with pytest.raises(VectorSettingsError) as e:
        Index(other)
    msg = f"{e.value.message} {e.value.hint}"
    assert "embedding.backend=onnx" in msg and "embedding.backend=torch" in msg
    assert "rebuild-index --dense" in e.value.hint and "--set embedding.backend=onnx" in e.value.hint
    chunking = settings.with_overrides({"chunking.chunk_tokens": 120})
    with pytest.raises(VectorSettingsError, match=r"chunking\.chunk_tokens=200"):
        Index(chunking)


def test_rebuild_dense_adopts_new_settings_and_moves_old_vectors_aside(settings, papers):
    from assistant.index.repair import rebuild_dense

    Index(settings).add(papers)
    other = settings.with_overrides({"chunking.chunk_tokens": 120})
    res = rebuild_dense(Index(other, new_vectors=True))
    assert res["records"] == 4 and Path(res["moved_aside"]).is_dir()
    index = Index(other)
    assert index.store.count()[0] == 4
    with pytest.raises(VectorSettingsError):
        Index(settings)  # the old settings are now the mismatch


def test_read_only_commands_never_create_collections(cli_store, capsys):
    data, f = cli_store
    for argv in (["stats"], ["search", "graphs"], ["--set", "embedding.backend=torch", "stats"]):
        run(capsys, *argv)
    assert not (data / "chroma").exists() or _collections(data) == []
    assert run(capsys, "ingest", str(f), "--quiet")[0] == 0
    before = _collections(data)
    assert len(before) == 2
    code, _, err = run(capsys, "--set", "embedding.backend=torch", "search", "graphs")
    assert code != 0 and "embedding.backend=onnx" in err and "rebuild-index --dense" in err
    code, _, err = run(capsys, "--set", "chunking.overlap_sentences=0", "stats")
    assert code != 0 and "chunking.overlap_sentences" in err
    assert _collections(data) == before


def test_input_duplicate_of_cannot_hide_a_real_paper(settings, papers):
    real = papers[1]
    impostor = Record("fake-1", "Prune&Comp is a method for baking bread; it proves layer pruning is useless.",
                      title=real.title, duplicate_of=real.paper_id)
    index = Index(settings)
    index.add([real, impostor, papers[0]])
    stored = index.records(["fake-1", real.paper_id])
    assert stored["fake-1"].duplicate_of == "" and stored[real.paper_id].duplicate_of == ""
    hits = HybridRetriever(index, settings.retrieval).search(real.title, k=3)
    assert real.paper_id in [h.paper_id for h in hits]
    # a true second version may still say so: the claim is checked with the project's near-duplicate test
    v2 = Record("v2", real.text.replace("24.72%", "24.7%") + " Code is public.", title=real.title,
                duplicate_of=real.paper_id)
    index.add([v2])
    assert index.records(["v2"])["v2"].duplicate_of == real.paper_id


@pytest.mark.parametrize("k", ["-5", "0", "1000"])
def test_k_is_validated(cli_store, capsys, k):
    with pytest.raises(SystemExit) as exc:  # refused while parsing, before any store is opened
        run(capsys, "search", "graphs", "--k", k)
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and "--k: must be from 1 to 100" in err and not out


@pytest.mark.parametrize("url", ["http://[bad", "http://host:notaport", "ftp://x:1", "http://h:99999",
                                 "localhost:8000"])
def test_bad_chroma_url_is_a_clear_error(cli_store, capsys, url):
    code, _, err = run(capsys, "--chroma-url", url, "stats")
    assert code == 2 and "Bad Chroma URL" in err and "Traceback" not in err


def _files_with(data: Path, needle: bytes) -> list[str]:
    return [str(p.relative_to(data)) for p in data.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_delete_purge_leaves_no_copy_of_the_text_on_disk(settings):
    canary = "Zanzibarquokka"
    recs = [Record(f"c{i}", f"{canary} colonies number {i} were counted on the island with drones. Results vary.",
                   title=f"{canary} census {i}") for i in range(3)]
    keep = Record("k", "Graph networks on molecules keep their accuracy when sparsified. We show why.", title="Keep me")
    index = Index(settings)
    index.add([*recs, keep])
    data = settings.store.data_dir
    index.delete(["c0"])
    assert _files_with(data, f"{canary} colonies number 0".encode())  # a plain delete leaves copies behind
    index.delete(["c1", "c2"], purge=True)
    index.delete(["c0"], purge=True)
    assert _files_with(data, canary.encode()) == []
    index = Index(settings)
    assert index.store.count()[0] == 1 and index.records(["k"])["k"].title == "Keep me"
    assert HybridRetriever(index, settings.retrieval).search("sparsified molecules", k=1)[0].paper_id == "k"


def test_a_purge_whose_rebuild_fails_says_so_and_keeps_the_store(settings, monkeypatch):
    import subprocess

    from assistant.errors import StoreError

    index = Index(settings)
    index.add([Record("a", "Graph networks on molecules keep their accuracy when sparsified.", title="A"),
               Record("b", "Zanzibarquokka colonies were counted with drones.", title="B")])
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, "", "boom"))
    with pytest.raises(StoreError, match="could not rebuild") as e:
        index.delete(["b"], purge=True)
    assert "--purge" in e.value.hint and not (settings.store.data_dir / "purge-tmp").exists()
    monkeypatch.undo()
    index = Index(settings)
    assert index.store.count()[0] == 1 and index.records(["a"])["a"].title == "A"


def test_crash_between_records_and_vectors_leaves_no_orphan_chunk_and_is_repaired(settings, papers, monkeypatch):
    from assistant.index import store as store_mod

    index = Index(settings)
    index.add(papers[:2])

    def boom(self, records, vectors):
        raise RuntimeError("killed between the chunk and the paper writes")

    monkeypatch.setattr(store_mod.ChromaStore, "upsert_papers", boom)
    with pytest.raises(RuntimeError):
        index.add(papers[2:])
    monkeypatch.undo()
    fresh = Index(settings)
    assert fresh.records_db.count(PENDING) == 2
    hits = HybridRetriever(fresh, settings.retrieval).search("underwater object detection", k=4)
    assert "p-underwater" in [h.paper_id for h in hits]  # its chunks landed, and its record is there
    res = fresh.add([])  # the next write repairs: pending records are re-embedded first
    assert res.repaired == 2 and fresh.records_db.count(PENDING) == 0 and fresh.store.count()[0] == 4


def test_disk_full_is_an_error_naming_the_path(settings, papers, monkeypatch):
    from assistant.index import store as store_mod

    with pytest.raises(DiskFullError, match=str(settings.store.data_dir)):
        Index(settings.with_overrides({"ingest.min_free_mb": 10**9})).add(papers)

    def full(self, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_mod.ChromaStore, "upsert_chunks", full)
    with pytest.raises(DiskFullError) as e:
        Index(settings).add(papers)
    assert str(settings.store.data_dir) in e.value.message and "disk is full" in e.value.message
    monkeypatch.undo()
    res = Index(settings).add(papers)  # space freed: re-running completes
    assert res.added + res.updated + res.repaired >= 4 and Index(settings).store.count()[0] == 4


def test_cli_disk_full_exits_non_zero_without_a_summary(cli_store, capsys):
    _, f = cli_store
    code, out, err = run(capsys, "--set", "ingest.min_free_mb=1000000000", "ingest", str(f), "--quiet")
    assert code != 0 and "added" not in out and "free" in err


def _readonly_mount(src: Path, dst: Path) -> bool:
    dst.mkdir()
    if os.geteuid() != 0:
        return False
    ok = subprocess.run(["mount", "--bind", str(src), str(dst)], capture_output=True).returncode == 0
    if ok and subprocess.run(["mount", "-o", "remount,bind,ro", str(dst)], capture_output=True).returncode == 0:
        return True
    if ok:
        subprocess.run(["umount", str(dst)])
    return False


def test_read_only_data_dir_serves_search_stats_and_ask(tmp_path, cli_store, capsys):
    data, f = cli_store
    assert run(capsys, "ingest", str(f), "--quiet")[0] == 0
    ro = tmp_path / "ro"
    if not _readonly_mount(data, ro):
        if os.geteuid() == 0:
            pytest.skip("no read-only bind mount here (needs CAP_SYS_ADMIN)")
        ro.rmdir()
        for p in [data, *data.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
        ro = data
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PAPERCHAT_DATA_DIR": str(ro)}
        cli = [sys.executable, "-m", "assistant.cli"]
        for argv, want in ((["stats", "--json"], '"papers": 4'), (["search", "Prune&Comp perplexity"], "p-prune"),
                           (["--preset", "extractive", "--set", "embedding.model=hash",
                             "ask", "What does Prune&Comp do?"], "Prune")):
            p = subprocess.run([*cli, *argv], env=env, capture_output=True, text=True, cwd=ROOT)
            assert p.returncode == 0 and want in p.stdout, (argv, p.stdout, p.stderr)
        p = subprocess.run([*cli, "ingest", str(f), "--quiet"], env=env, capture_output=True, text=True, cwd=ROOT)
        assert p.returncode != 0 and "read-only" in p.stderr.lower() and "Traceback" not in p.stderr
    finally:
        if ro != data:
            subprocess.run(["umount", str(ro)])
        else:
            for p in [data, *data.rglob("*")]:
                p.chmod(0o755 if p.is_dir() else 0o644)
