"""Issue 23: the records store cannot vanish silently. The file watch (recordfile.py), writes refused into a
removed or shrunk file, doctor's cross-check of records against the vector store, and
`rebuild-index --records` bringing back every record Chroma holds (and counting the rest)."""

from __future__ import annotations

import gc
import json
import os
import sqlite3

import pytest
from conftest import PAPERS

from assistant.cli import hint_for, main
from assistant.errors import RecordsLostError, StoreLockedError
from assistant.index.indexer import Index
from assistant.index.lock import ServeLock, serving_pid
from assistant.index.recordfile import file_problem, rescued_copies
from assistant.index.records import FILE, RecordStore
from assistant.types import Record

EXTRA = [Record(f"p-extra-{i}",
                f"Extra abstract number {i} studies quorum sensing in biofilms. It measures signal decay.",
                label=f"Extra {i}", year=2020) for i in range(3)]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def store(tmp_path, monkeypatch):
    """4 papers ingested through the CLI (records, vectors, BM25) in tmp_path/store."""
    monkeypatch.setenv("PAPERCHAT_PRESET", "debug")
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path / "store"))
    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.label, "abstract": r.text}) for r in PAPERS) + "\n")
    assert main(["ingest", str(f), "--quiet"]) == 0
    gc.collect()  # the ingest's connections closed, as when its process exits
    return tmp_path / "store"


def _records(data_dir) -> set[str]:
    db = sqlite3.connect(data_dir / FILE)
    try:
        return {r[0] for r in db.execute("SELECT paper_id FROM records")}
    finally:
        db.close()


# -- the file watch -------------------------------------------------------------------------------------
def test_file_problem_names_missing_empty_foreign_and_truncated_files(tmp_path):
    path = tmp_path / "x.sqlite3"
    assert file_problem(path) == "is missing"
    path.write_bytes(b"")
    assert "empty" in file_problem(path)
    path.write_bytes(b"<svg>" * 100)
    assert "not a SQLite database" in file_problem(path)
    path.unlink()
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (x TEXT)")
    db.executemany("INSERT INTO t VALUES (?)", [("y" * 500,) for _ in range(200)])
    db.commit()
    db.close()
    assert file_problem(path) == ""
    os.truncate(path, path.stat().st_size // 2)
    assert "truncated" in file_problem(path)


def test_a_vacuumed_store_is_not_mistaken_for_a_truncated_one(tmp_path, papers):
    db = RecordStore(tmp_path)
    db.finish_batch(db.begin_batch([*papers, *EXTRA] * 1), [r.paper_id for r in [*papers, *EXTRA]])
    db.delete([r.paper_id for r in EXTRA])
    db.vacuum()  # the file shrinks, its header with it
    assert file_problem(db.path) == "" and db.check() == ""
    db.set_meta("k", "v")  # still writable


def test_a_removed_file_refuses_writes_and_is_rescued_whole(tmp_path, papers):
    db = RecordStore(tmp_path)
    db.finish_batch(db.begin_batch(papers), [r.paper_id for r in papers])
    db.path.unlink()
    with pytest.raises(RecordsLostError, match="was removed") as e:
        db.begin_batch(EXTRA)
    assert "rebuild-index --records" in e.value.hint
    assert not db.path.exists()  # nothing re-created
    assert db.count() == 4  # reads go on: this connection still holds the whole old file
    copy = rescued_copies(tmp_path, FILE)[0]
    assert copy.name.startswith(FILE + ".rescued-")
    got = sqlite3.connect(copy).execute("SELECT paper_id FROM records").fetchall()
    assert sorted(r[0] for r in got) == sorted(r.paper_id for r in papers)


def test_a_truncated_file_refuses_writes_and_reads_with_the_repair_named(tmp_path, papers):
    db = RecordStore(tmp_path)
    db.finish_batch(db.begin_batch(papers), [r.paper_id for r in papers])
    os.truncate(db.path, 0)
    with pytest.raises(RecordsLostError, match=r"empty \(0 bytes\)"):
        db.set_meta("k", "v")
    with pytest.raises(RecordsLostError):
        db.get(["p-prune"])  # never a raw sqlite3 error, never a fresh empty store
    assert db.path.stat().st_size == 0
    with pytest.raises(RecordsLostError, match="empty"):
        RecordStore(tmp_path)  # a new process does not adopt the emptied file either


# -- doctor and the repair ----------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", ["remove", "truncate", "recreate-empty", "zeroed-pages"])
def test_doctor_names_the_loss_and_the_repair_brings_back_every_record(store, capsys, damage):
    path = store / FILE
    if damage == "remove":
        path.unlink()
    elif damage == "truncate":
        os.truncate(path, 0)
    elif damage == "zeroed-pages":  # header intact, the tables' pages gone
        size = path.stat().st_size
        with open(path, "r+b") as f:
            f.seek(4096)
            f.write(b"\0" * (size - 4096))
    else:  # what the old code did on the next open: an empty file with the schema
        path.unlink()
        RecordStore(store).close()
    code, out, _ = run(capsys, "doctor", "--no-probe")
    assert code == 1, out
    assert "BAD records" in out and "fix: paperchat rebuild-index --records" in out, out
    assert "store is healthy" not in out
    code, _, err = run(capsys, "ingest", "--quiet", str(store.parent / "papers.jsonl"))
    assert code != 0 and "rebuild-index --records" in err  # no write into an empty store
    code, _, err = run(capsys, "stats")
    assert code != 0 and "rebuild-index --records" in err
    code, out, err = run(capsys, "rebuild-index", "--records")
    assert code == 0, err
    assert "rebuilt: 4 records (4 from the vector store" in out and "nothing known to the indexes was lost" in out
    assert _records(store) == {r.paper_id for r in PAPERS}
    code, out, _ = run(capsys, "doctor")
    assert code == 0 and "store is healthy" in out, out
    code, out, _ = run(capsys, "search", "Prune&Comp layer pruning")
    assert code == 0 and "p-prune" in out
    if damage != "remove":
        assert list(store.glob(FILE + ".damaged-*")), "the damaged file is moved aside, not deleted"


def test_plain_rebuild_index_repairs_lost_records_first(store, capsys):
    os.truncate(store / FILE, 0)
    code, out, err = run(capsys, "rebuild-index")
    assert code == 0, err
    assert "records store rebuilt: 4 records" in out
    assert run(capsys, "doctor", "--no-probe")[0] == 0


def test_records_without_vectors_are_counted_as_unrecoverable(store, capsys, tmp_path):
    f = tmp_path / "extra.jsonl"
    f.write_text("\n".join(json.dumps({"id": r.paper_id, "title": r.label, "abstract": r.text}) for r in EXTRA) + "\n")
    assert run(capsys, "ingest", str(f), "--quiet", "--no-embed")[0] == 0  # searchable by BM25, no vectors yet
    os.truncate(store / FILE, 0)
    code, out, err = run(capsys, "rebuild-index", "--records")
    assert code == 0, err
    assert "4 records (4 from the vector store)" in out
    assert "3 papers cannot be recovered" in out and "p-extra-0, p-extra-1, p-extra-2" in out
    assert "Re-ingest" in out


def test_a_running_server_is_named_by_doctor_and_rebuild(store, capsys, monkeypatch):
    lock = ServeLock(store).acquire()
    try:
        monkeypatch.setattr("os.getpid", lambda: 999_999_999)  # as seen from another process
        assert serving_pid(store) not in (None, 999_999_999)
        code, out, err = run(capsys, "doctor")
        assert code == 0, out + err  # the records store is whole: read-only checks pass beside the server
        assert "is serving this store" in out and "stop a paperchat server" in out
        assert "database is locked" not in out + err
        with pytest.raises(StoreLockedError):
            main_raise(["rebuild-index", "--records"])
        code, _, err = run(capsys, "rebuild-index")
        assert code != 0 and "is serving" in err and "Stop it first" in err
        assert "paperchat rebuild-index" not in err.split("hint:", 1)[1]
        (store / FILE).unlink()
        code, out, _ = run(capsys, "doctor")
        assert code == 1 and "is missing" in out and "rebuild-index --records" in out
    finally:
        lock.release()


def main_raise(argv):
    """Run a command's handler without the CLI's error translation (to see the error type)."""
    from assistant.cli import build_parser, make_context

    args = build_parser().parse_args(argv)
    return args.handler(args, make_context(args))


def test_hints_never_send_the_user_to_the_command_that_failed():
    hint = "Run `paperchat doctor` to see what is damaged; `paperchat rebuild-index --dense` rebuilds the vectors."
    assert hint_for(hint, "doctor") == "`paperchat rebuild-index --dense` rebuilds the vectors."
    assert hint_for(hint, "search") == hint
    assert "rebuild-index" not in hint_for("Run `paperchat rebuild-index --records` (same options).", "rebuild-index",
                                           ["--records"])
    # another mode of the same command is another repair: `rebuild-index --dense` failed on a lost records store
    hint = "Run `paperchat rebuild-index --records` (same options)."
    assert "--records" in hint_for(hint, "rebuild-index", ["--dense"])


def test_index_health_is_what_the_ui_banner_shows(store):
    from assistant.answer.assistant import Assistant
    from assistant.settings import load_settings
    from ui.corpus_handlers import CorpusHandlers

    a = Assistant(load_settings("debug", {"store.data_dir": str(store)}, env={}))
    assert a.corpus.health().ok
    h = CorpusHandlers()
    h.assistant = a
    assert h.store_banner()["visible"] is False
    (store / FILE).unlink()
    health = a.corpus.health()
    assert not health.ok and "was removed" in health.problem and "rebuild-index --records" in health.fix
    banner = h.store_banner()
    assert banner["visible"] is True and "paper store is damaged" in banner["value"]
    assert "rebuild-index --records" in banner["value"] and str(store) not in banner["value"]
    with pytest.raises(RecordsLostError):
        a.index.add(EXTRA)
    assert not (store / FILE).exists()
    assert Index(a.settings, new_vectors=True).records_lost()
