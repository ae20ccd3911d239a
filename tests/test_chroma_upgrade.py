"""RELIABILITY #21: a store made by each supported chromadb opens with the installed one and passes the
fresh-process invariants (#15); the first write under another version takes a backup first; a store
written by a newer chromadb (a downgrade) refuses writes, naming both versions. Only chromadb 1.5.9 has
ever been pinned, so there is one fixture (tests/fixtures/stores/); older versions are simulated in meta."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tarfile

import chromadb
import pytest
from conftest import ROOT
from test_store_persist import assert_whole, env, fresh_check

pytestmark = pytest.mark.slow

FIXTURES = ROOT / "tests" / "fixtures" / "stores"
VERSIONS = sorted(p.name[len("chromadb-"):-len(".tar.gz")] for p in FIXTURES.glob("chromadb-*.tar.gz"))


def _unpack(version: str, tmp_path):
    with tarfile.open(FIXTURES / f"chromadb-{version}.tar.gz") as t:
        t.extractall(tmp_path, filter="data")
    return tmp_path / "store", FIXTURES / f"chromadb-{version}.manifest.jsonl"


def _cli(data, *argv):
    return subprocess.run([sys.executable, "-m", "assistant.cli", "--data-dir", str(data), *argv], env=env(data),
                          capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)


def _set_version(data, version: str) -> None:
    db = sqlite3.connect(data / "records.sqlite3")
    db.execute("INSERT OR REPLACE INTO meta VALUES ('chromadb', ?)", (version,))
    db.commit()
    db.close()


def _version(data) -> str:
    db = sqlite3.connect(data / "records.sqlite3")
    try:
        return db.execute("SELECT value FROM meta WHERE key='chromadb'").fetchone()[0]
    finally:
        db.close()


def _extra(tmp_path):
    f = tmp_path / "extra.jsonl"
    f.write_text(json.dumps({"id": "p-extra", "title": "Tidal pools", "abstract": "Tidal pools host dense "
                             "microbial mats. We count them at low tide."}) + "\n")
    return f


@pytest.mark.parametrize("version", VERSIONS)
def test_a_store_made_by_a_supported_chromadb_opens_whole(tmp_path, version):
    data, man = _unpack(version, tmp_path)
    n = sum(1 for line in man.read_text().splitlines() if line.strip())
    assert_whole(fresh_check(data, man), n)
    assert _cli(data, "doctor").returncode == 0
    assert _cli(data, "ingest", "--quiet", str(_extra(tmp_path))).returncode == 0  # and takes writes
    assert _version(data) == chromadb.__version__


def test_the_first_write_under_a_newer_chromadb_takes_a_backup_first(tmp_path):
    data, man = _unpack(VERSIONS[-1], tmp_path)
    _set_version(data, "1.0.0")  # as if an older pinned chromadb had written it
    p = _cli(data, "ingest", "--quiet", str(_extra(tmp_path)))
    assert p.returncode == 0, p.stderr
    backups = list(data.glob("backup-chromadb-1.0.0-*"))
    assert len(backups) == 1 and (backups[0] / "manifest.json").is_file()
    assert json.loads((backups[0] / "manifest.json").read_text())["records"] == 12
    assert _version(data) == chromadb.__version__
    restored = tmp_path / "restored"  # the backup is a working one
    assert _cli(restored, "restore", str(backups[0])).returncode == 0
    assert_whole(fresh_check(restored, man), 12)


def test_a_store_written_by_a_newer_chromadb_refuses_writes(tmp_path):
    data, _ = _unpack(VERSIONS[-1], tmp_path)
    _set_version(data, "99.0.0")
    p = _cli(data, "ingest", "--quiet", str(_extra(tmp_path)))
    assert p.returncode != 0 and "chromadb 99.0.0" in p.stderr and "downgrade is not supported" in p.stderr
    assert "Traceback" not in p.stderr
    d = _cli(data, "doctor", "--no-probe")
    assert d.returncode == 1 and "newer than the installed" in d.stdout
    assert _version(data) == "99.0.0"
