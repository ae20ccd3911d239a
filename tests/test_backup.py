"""RELIABILITY #18: backup and restore. A backup is logical (SQLite's online backup of the records store and
Chroma's rows), refused while a server serves the store; restoring it into an empty directory passes the
fresh-process invariants of #15; a backup made with another embedding model is refused; and no code of
ours opens Chroma's SQLite file with sqlite3 while this process has a Chroma client on it."""

from __future__ import annotations

import gc
import sqlite3
import subprocess
import sys

import pytest
from conftest import ROOT
from test_store_persist import assert_whole, env, fresh_check, manifest

from assistant.cli import main
from assistant.index.lock import ServeLock

pytestmark = pytest.mark.slow


def _cli(data, *argv):
    return subprocess.run([sys.executable, "-m", "assistant.cli", "--data-dir", str(data), *argv], env=env(data),
                          capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)


def test_backup_then_restore_into_an_empty_directory_passes_the_invariants(tmp_path):
    data, man = tmp_path / "store", manifest(tmp_path / "m.jsonl", 30)
    assert _cli(data, "ingest", "--quiet", str(man)).returncode == 0
    out = _cli(data, "backup", str(tmp_path / "bk"))
    assert out.returncode == 0 and "30 records, 30 papers with vectors" in out.stdout, out.stderr
    assert sorted(p.name for p in (tmp_path / "bk").iterdir()) == ["manifest.json", "records.sqlite3", "vectors.jsonl"]
    again = _cli(data, "backup", str(tmp_path / "bk"))
    assert again.returncode != 0 and "not an empty directory" in again.stderr

    fresh = tmp_path / "restored"
    res = _cli(fresh, "restore", str(tmp_path / "bk"))
    assert res.returncode == 0, res.stderr
    assert_whole(fresh_check(fresh, man), 30)
    assert _cli(fresh, "doctor").returncode == 0

    over = _cli(fresh, "restore", str(tmp_path / "bk"))  # never over an existing store
    assert over.returncode != 0 and "already holds a store" in over.stderr
    other = _cli(tmp_path / "other", "--set", "embedding.model=hash-128", "restore", str(tmp_path / "bk"))
    assert other.returncode != 0 and "embedding.model=hash" in other.stderr and "hash-128" in other.stderr
    assert "--set embedding.model=hash" in other.stderr and not (tmp_path / "other" / "records.sqlite3").exists()


def test_backup_is_refused_while_a_server_serves_the_store(tmp_path, monkeypatch, capsys):
    data, man = tmp_path / "store", manifest(tmp_path / "m.jsonl", 5)
    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    assert main(["--data-dir", str(data), "ingest", "--quiet", str(man)]) == 0
    lock = ServeLock(data).acquire()
    try:
        monkeypatch.setattr("os.getpid", lambda: 999_999_999)  # seen from another process
        assert main(["--data-dir", str(data), "backup", str(tmp_path / "bk")]) != 0
        err = capsys.readouterr().err
        assert "is serving" in err and "Stop it first" in err and not (tmp_path / "bk").exists()
    finally:
        lock.release()


def test_no_sqlite3_handle_on_chromas_file_while_this_process_has_a_chroma_client(tmp_path, monkeypatch, capsys):
    """Same-process sqlite3 + Chroma on one file: closing the sqlite3 handle drops Chroma's POSIX locks
    (MemPalace PR#2506). Doctor, repairs and backup in one process never do it."""
    import chromadb

    from assistant.index.store import clear_client_cache

    data, man = tmp_path / "store", manifest(tmp_path / "m.jsonl", 5)
    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    assert main(["--data-dir", str(data), "ingest", "--quiet", str(man)]) == 0
    gc.collect()
    clear_client_cache()
    clients, bad = [], []
    real_connect, real_client = sqlite3.connect, chromadb.PersistentClient

    def connect(target, *a, **kw):
        if "chroma.sqlite3" in str(target) and clients:
            bad.append(str(target))
        return real_connect(target, *a, **kw)

    def client(*a, **kw):
        clients.append(kw.get("path"))
        return real_client(*a, **kw)

    monkeypatch.setattr(sqlite3, "connect", connect)
    monkeypatch.setattr(chromadb, "PersistentClient", client)
    for argv in (["doctor"], ["stats"], ["rebuild-index", "--records"], ["rebuild-index"],
                 ["backup", str(tmp_path / "b")]):
        assert main(["--data-dir", str(data), *argv]) == 0, capsys.readouterr()
    assert clients, "the commands opened Chroma"
    assert bad == []
