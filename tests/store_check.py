"""Check a data directory from a fresh process against a manifest (RELIABILITY #12, #15, #18).

    python tests/store_check.py DATA_DIR MANIFEST.jsonl [K]

The manifest is what was written: one {"id", "title", "abstract", "year", "authors"} per line. This
process shares nothing with the writer (no client cache, no loaded index). It opens the records store
read-only (`mode=ro`) and Chroma's collections without creating anything, and prints one JSON object:
counts, missing/extra ids, records whose text or metadata differ, papers `get` finds, chunks `query`
finds first for their own vector, and recall@K of one question per paper (a sentence of its abstract)
through the hybrid retriever. Nothing under DATA_DIR but Chroma's own files may change (the caller
compares hashes).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def check(data_dir: Path, manifest: Path, k: int = 5, questions: int = 20) -> dict:
    import chromadb

    from assistant.index.indexer import Index
    from assistant.index.records import RecordStore
    from assistant.retrieve.hybrid import HybridRetriever
    from assistant.settings import load_settings

    want = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_id = {w["id"]: w for w in want}
    db = RecordStore(data_dir, readonly=True)
    stored = db.get(list(by_id))
    ids = db.ids()
    differ = []
    for pid, w in by_id.items():
        r = stored.get(pid)
        if r is None:
            continue
        if (r.text != w["abstract"] or (r.title or r.label) != w["title"] or r.year != w.get("year")
                or list(r.authors) != list(w.get("authors", []))):
            differ.append(pid)
    db.close()

    settings = load_settings("debug", {"store.data_dir": str(data_dir)}, env={})
    index = Index(settings)
    papers = {r.paper_id: r for r, _ in index.store.get_papers(list(by_id))}
    doc_differ = [p for p, r in papers.items() if r.text != by_id[p]["abstract"]]
    query_first = 0
    for r in index.records(list(by_id)).values():
        c = index.chunk(r)[0]
        top = index.store.query_chunks(index.embedder.embed_documents([index._embed_text(r, c)])[0], 1, metadata=False)
        query_first += bool(top) and top[0][0] == c.chunk_id
    retriever = HybridRetriever(index, settings.retrieval)
    asked = want[:questions]
    found = sum(any(h.paper_id == w["id"] for h in retriever.search(w["abstract"].split(". ")[0], k=k)) for w in asked)
    return {
        "chromadb": chromadb.__version__, "manifest": len(want), "records": len(ids),
        "missing": sorted(set(by_id) - ids), "extra": sorted(ids - set(by_id)), "differ": differ,
        "papers_get": len(papers), "documents_differ": doc_differ, "query_first": query_first,
        "recall": found / len(asked) if asked else 1.0, "questions": len(asked),
    }


if __name__ == "__main__":
    result = check(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    sys.stdout.write(json.dumps(result) + "\n")
