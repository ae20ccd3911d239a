"""`paperchat doctor`: is the store whole? Each finding says what is wrong and the command that fixes it.

Checks, cheapest first: the records store (SQLite quick_check), Chroma's SQLite file (present, not
empty while vector segments exist, quick_check), both collections loadable and answering a query,
counts agreeing across records / papers / chunks / BM25, no chunk without its record, the dense
coverage (records still pending are normal after a lexical-first ingest: reported, not an error), and a
self-retrieval probe: a sample of stored records is chunked and embedded again and each
chunk must come back first from the vector index (zeroed or stale HNSW files fail it). Nothing is
written; Chroma failures (exceptions or Rust panics) become findings.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import AssistantError, RecordsLostError, StoreDamagedError, StoreError
from .lock import server_name
from .recordfile import REPAIR as RECORDS_FIX
from .recordfile import file_problem, repair_hint, rescued_copies
from .records import FILE, INDEXED, PENDING, RecordStore
from .store import client_open

DENSE_FIX = "paperchat rebuild-index --dense"
LEXICAL_FIX = "paperchat rebuild-index --lexical"
PROBE = 30


@dataclass(frozen=True)
class Finding:
    check: str
    ok: bool
    message: str
    fix: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def chroma_file_problem(data_dir: Path, full: bool = True) -> str:
    """Why Chroma's SQLite file cannot be trusted ('' when it looks fine or there is no store yet).

    `full=False` skips SQLite's quick_check (seconds on a big store): only presence and size."""
    chroma = Path(data_dir) / "chroma"
    path = chroma / "chroma.sqlite3"
    segments = [p for p in chroma.iterdir() if p.is_dir()] if chroma.is_dir() else []
    if not path.exists():
        return f"{path} is missing but vector segment files remain" if segments else ""
    if path.stat().st_size == 0:
        return f"{path} is empty (0 bytes)" + (" but vector segment files remain" if segments else "")
    if not full or client_open(data_dir):  # (a second SQLite handle beside this process's Chroma client: never)
        return ""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            res = "; ".join(str(r[0]) for r in db.execute("PRAGMA quick_check").fetchall()[:3])
        finally:
            db.close()
    except sqlite3.Error as e:
        return f"{path} cannot be read by SQLite ({e})"
    return "" if res == "ok" else f"{path} failed SQLite's integrity check ({res[:200]})"


def _records(index, vectors: bool = True) -> list[Finding]:
    try:
        return _records_checked(index, vectors)
    except StoreError as e:  # SQLite could not read it ("malformed"): the finding, not the command, fails
        return [Finding("records", False, e.message, RECORDS_FIX)]


def _records_checked(index, vectors: bool) -> list[Finding]:
    db = index.records_db
    lost = index.records_lost(vectors=vectors)
    if lost:
        return [Finding("records", False, lost + _rescued_note(index.data_dir), RECORDS_FIX)]
    if db is None:
        if (index.data_dir / "chroma").is_dir():
            return [Finding("records", True, "no records yet")]
        return [Finding("records", False, f"no records store in {index.data_dir} (read-only directory)",
                        "open the store once from an account that may write there")]
    res = db.integrity()
    if res != "ok":
        return [Finding("records", False, f"the records store {db.path} is damaged ({res[:200]})",
                        f"{RECORDS_FIX} (it keeps what the file still holds and adds what the vector store has), "
                        "or restore a backup (`paperchat restore`)")]
    out = [Finding("records", True, f"{db.count()} records, integrity ok")]
    from .upgrade import KEY, _parse, installed

    stored = db.get_meta(KEY)
    if stored and _parse(stored) > _parse(installed()):
        out.append(Finding("chromadb", False, f"written by chromadb {stored}, newer than the installed {installed()} "
                           "(a downgrade is not supported)", f"pip install chromadb=={stored}, or restore a backup"))
    embedded, total = db.coverage()
    if embedded < total:  # lexical-first ingest: normal while the embed job runs (or until `paperchat embed`)
        out.append(Finding("coverage", True, f"dense retrieval covers {embedded} of {total} papers "
                           f"({total - embedded} searchable by BM25 only)", "paperchat embed"))
    return out


def _rescued_note(data_dir: Path) -> str:
    copies = rescued_copies(data_dir, FILE)
    return f" A server saved what it still held to {copies[0]}; the repair reads it first." if copies else ""


def diagnose_served(data_dir: Path, pid: int) -> list[Finding]:
    """The checks that are safe while another process serves the store: the records file, read-only.
    Chroma is not opened (two processes' PersistentClients on one directory can corrupt it)."""
    path = Path(data_dir) / FILE
    who = server_name(pid)
    stop = f"stop {who} first (Ctrl+C in its terminal" + (f", or `kill {pid}`" if pid > 0 else "") + ")"
    problem = file_problem(path)
    out: list[Finding] = []
    if problem == "is missing" and not (Path(data_dir) / "chroma").is_dir():
        out.append(Finding("records", True, "no records yet"))
    elif problem:
        out.append(Finding("records", False, f"the records store {path} {problem}.{_rescued_note(data_dir)}",
                           f"{stop}, then `{RECORDS_FIX}`"))
    else:
        try:
            db = RecordStore(data_dir, readonly=True)
            try:
                res, n = db.integrity(), db.count()
            finally:
                db.close()
            ok = res == "ok"
            out.append(Finding("records", ok, f"{n} records, integrity " + ("ok" if ok else res[:200]),
                               "" if ok else f"{stop}, then `{RECORDS_FIX}`"))
        except StoreError as e:
            out.append(Finding("records", False, e.message, f"{stop}, then `{RECORDS_FIX}`"))
    out.append(Finding("server", True, f"{who} is serving this store: the vector-store and index checks were "
                       "skipped (they must not open the store beside it)", f"{stop} for the full check"))
    return out


def _probe(index, n: int = PROBE) -> Finding:
    db = index.records_db
    ids = sorted(db.ids(INDEXED)) if db is not None else []  # pending records have no vectors to find
    if not ids:
        return Finding("self-retrieval", True, "nothing to probe")
    step = max(1, len(ids) // n)
    sample = db.get(ids[::step][:n])
    found = 0
    for r in sample.values():
        c = index.chunk(r)[0]
        vec = index.embedder.embed_documents([index._embed_text(r, c)])[0]
        top = index.store.query_chunks(vec, 3, metadata=False)
        if top and (top[0][0] == c.chunk_id
                    or (top[0][1] - next((s for i, s, _ in top if i == c.chunk_id), -9) < 1e-4)):
            found += 1
    ok = found == len(sample)
    return Finding("self-retrieval", ok, f"{found}/{len(sample)} sampled chunks found themselves first",
                   "" if ok else DENSE_FIX)


def _bm25(index, vector_chunks: int) -> Finding:
    try:
        lex = index.refresh_lexical()
        if index._lexical_from_records():  # lexical-first: BM25 covers every stored chunk, vectors or not
            want, where = index.records_db.count_chunks(), "in the records store"
        else:
            want, where = vector_chunks, "in the vector store"
        ok = len(lex.ids) == want
        return Finding("bm25", ok, f"{len(lex.ids)} chunks in BM25, {want} {where}", "" if ok else LEXICAL_FIX)
    except Exception as e:  # noqa: BLE001
        return Finding("bm25", False, f"the lexical index cannot be loaded ({e})", LEXICAL_FIX)


def diagnose(index, probe: bool = True) -> list[Finding]:
    # Chroma's file is read with sqlite3 before this process opens a Chroma client on it (RELIABILITY #18:
    # a second SQLite handle in the same process drops the client's POSIX locks when it closes)
    problem = chroma_file_problem(index.data_dir) if not index.settings.store.chroma_url else ""
    out = _records(index, vectors=not problem)
    if problem:
        out.append(Finding("chroma-sqlite", False, problem, DENSE_FIX))
        return out
    try:
        papers, chunks = index.store.count()
        if not index.store.exists:
            db = index.records_db
            if db is not None and db.count() - db.count(PENDING):
                out.append(Finding("collections", False, f"the vector collections of {index.name} are missing",
                                   DENSE_FIX))
            elif db is not None and db.count():  # lexical-first: nothing embedded yet, BM25 serves every record
                out.append(_bm25(index, 0))
            return out
        index.store.query_chunks(index.embedder.embed_query("probe"), 1, metadata=False)  # loads the HNSW files
        out.append(Finding("collections", True, f"{papers} papers, {chunks} chunks, loadable"))
    except (AssistantError, Exception) as e:  # noqa: BLE001 - anything Chroma raises is a finding here
        out.append(Finding("collections", False, f"the vector index cannot be loaded ({str(e).splitlines()[0][:200]})",
                           DENSE_FIX))
        return out
    db = index.records_db
    records_bad = any(RECORDS_FIX in f.fix for f in out)
    if db is not None and not records_bad:
        # every paper with vectors must have its record (an empty file re-created by SQLite is not healthy)
        have = db.ids()
        orphans = ({r.paper_id for r, _ in index.store.get_papers()} | {m.get("paper_id") for _, _, m in
                   index.store.all_chunks()}) - have
        if orphans:
            out.append(Finding("records-vs-vectors", False, f"{len(orphans)} papers in the vector store have no record "
                               f"(the records store holds {len(have)}, the vector store {papers} papers)", RECORDS_FIX))
        elif db.vectors() and db.count() - db.count(PENDING) != papers:
            indexed = db.count() - db.count(PENDING)
            out.append(Finding("counts", False, f"{indexed} indexed records but {papers} papers in the vector store",
                               DENSE_FIX))
    if not records_bad:  # (BM25 and the probe read the records: repair those first)
        out.append(_bm25(index, chunks))
    if probe and not records_bad:
        try:
            out.append(_probe(index))
        except Exception as e:  # noqa: BLE001
            out.append(Finding("self-retrieval", False, f"the probe failed ({str(e).splitlines()[0][:200]})",
                               DENSE_FIX))
    return out


def open_check(index, probe: int = 3) -> None:
    """The cheap checks run whenever a command opens a store: raise StoreDamagedError naming the fix.

    Chroma's file present and non-empty, its collections there when records are indexed, and `probe`
    sampled chunks finding themselves first (an embedding each: ~5 ms with ONNX)."""
    if index.settings.store.chroma_url:
        return
    lost = index.records_lost()
    if lost:
        raise RecordsLostError(lost, hint=repair_hint())
    problem = chroma_file_problem(index.data_dir, full=False)
    db = index.records_db
    indexed = db.count() - db.count(PENDING) if db is not None and db.vectors() else 0
    if problem:
        raise StoreDamagedError(f"The vector store is damaged: {problem}.", hint=_hint(DENSE_FIX))
    if not indexed:
        return
    papers, _ = index.store.count()
    if not index.store.exists or papers == 0:
        raise StoreDamagedError(
            f"The vector store in {index.data_dir} has no vectors, but the records store holds {indexed} records.",
            hint=_hint(DENSE_FIX))
    if probe:
        f = _probe(index, probe)
        if not f.ok:
            raise StoreDamagedError(f"The vector index gives wrong results: {f.message}.", hint=_hint(DENSE_FIX))


def _hint(fix: str) -> str:
    return (f"Run `{fix}` (add the same --data-dir/--preset/--set options): it rebuilds from the records store and "
            "moves the damaged files aside, never deleting them. `paperchat doctor` lists every check.")
