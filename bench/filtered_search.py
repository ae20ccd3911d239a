"""Warm latency of filtered hybrid search (metadata filters: year, category, author), with the p95.

Builds (once) an index of the first N arXiv abstracts in DATA_DIR, then times
`HybridRetriever.search(title, k=5, filters=...)` for unseen arXiv titles under each filter, after a
warm-up pass. The filter cost is what is measured: which papers pass (catalog), the BM25 mask and
Chroma's `where`; the `debug` preset (hash embeddings) keeps the build fast, so the embedding of the
query is near zero and the figures show the filtering path rather than the encoder.

    .venv/bin/python bench/filtered_search.py /tmp/filters-data/bench --n 3000 --queries 100 [--label after]

`--legacy` times the path before issue 12 on the same index (patched in, as it was): a Python
`Filters.matches` scan of every record per query, `allowed_chunks` = every chunk id split and tested
per query, bm25s's `weight_mask`, and Chroma `where paper_id $in [...]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    ARXIV,
    ARXIV_TOTAL,
    CACHE,
    RESULTS,
    arxiv_titles,
    machine_info,
    offline,
    settings_for,
    summary_ms,
    write_json,
)


def strided_slice(n: int) -> Path:
    """Every (total // n)-th arXiv record (so both years and all months are in it), made once."""
    import gzip
    import os

    out = CACHE / "slices" / f"arxiv-every{ARXIV_TOTAL // n}.jsonl.gz"
    if not out.is_file():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        step = max(1, ARXIV_TOTAL // n)
        with gzip.open(ARXIV, "rb") as f, gzip.open(tmp, "wb", compresslevel=1) as o:
            for i, line in enumerate(f):
                if i % step == 0:
                    o.write(line)
        os.replace(tmp, out)
    return out


def _legacy(retriever, records) -> None:
    """Patch the filtered path back to what it was before issue 12 (O(records) + O(chunks) per query)."""
    from assistant.index.lexical import LexicalIndex

    retriever.matching_papers = lambda f: {r.paper_id for r in records if f.matches(r)}

    def dense(vector, n, allowed, lex):
        where = {"paper_id": {"$in": sorted(allowed)}} if allowed is not None else None
        return [(c, s) for c, s, _ in retriever.index.store.query_chunks(vector, n, where, metadata=False)]

    retriever._dense = dense
    search = LexicalIndex.search

    def lexical(self, query, k, allowed=None, papers=None):
        if papers is not None:
            allowed = {c for c in self.ids if c.rsplit("::", 1)[0] in papers}
        return search(self, query, k, allowed)

    LexicalIndex.search = lexical


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--n", type=int, default=3000, help="arXiv abstracts in the index")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--preset", default="debug")
    ap.add_argument("--label", default="", help="a name for this run in the JSON (e.g. before/after)")
    ap.add_argument("--legacy", action="store_true", help="time the filtered path as it was before (see above)")
    ap.add_argument("--out", type=Path, default=RESULTS / "filtered_search.json")
    args = ap.parse_args(argv)
    offline()
    from assistant.errors import AssistantError
    from assistant.index.indexer import Index
    from assistant.pipeline import ingest_paths
    from assistant.retrieve.hybrid import Filters, HybridRetriever

    settings = settings_for(args.data_dir, backend="onnx", preset=args.preset)
    index = Index(settings)
    if index.store.count()[0] < args.n:
        t = time.perf_counter()
        ingest_paths(index, [strided_slice(args.n)])
        print(f"built {args.n} abstracts in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    retriever = HybridRetriever(index, settings.retrieval)
    records = list(index.all_records())
    if args.legacy:
        _legacy(retriever, records)
    years = Counter(r.year for r in records)
    surnames = Counter(a.split()[-1] for r in records for a in r.authors if a.split())
    newest = max(y for y in years if y)
    filters = {
        "none": Filters(),
        f"year>={newest}": Filters(year_min=newest),
        "category cs.CL": Filters(categories=frozenset({"cs.CL"})),
        f"author {surnames.most_common(1)[0][0]}": Filters(author=surnames.most_common(1)[0][0]),
        f"year<={newest - 1} + cs.CV": Filters(year_max=newest - 1, categories=frozenset({"cs.CV"})),
    }
    queries = arxiv_titles(args.queries * 2, skip=1)  # titles; the strided slice holds few of them
    warm, timed = queries[: args.queries], queries[args.queries:]
    out = {"label": args.label, "legacy": args.legacy, "abstracts": len(records), "preset": args.preset, "k": 5,
           "filters": {}, "machine": machine_info(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    for name, f in filters.items():
        passing = len(retriever.matching_papers(f)) if f.active() else len(records)
        took = []
        try:
            for q in warm[:20]:
                retriever.search(q, k=5, filters=f)
            for q in timed:
                t = time.perf_counter()
                retriever.search(q, k=5, filters=f)
                took.append(time.perf_counter() - t)
        except AssistantError as e:  # the legacy path fails on broad filters at 75k (too many SQL variables)
            out["filters"][name] = {"passing_papers": passing, "error": e.message}
            print(f"{name:28s} passing {passing:6d}  ERROR {e.message[:120]}")
            continue
        out["filters"][name] = {"passing_papers": passing, **summary_ms(took)}
        print(f"{name:28s} passing {passing:6d}  p50 {out['filters'][name]['p50_ms']:7.2f} ms  "
              f"p95 {out['filters'][name]['p95_ms']:7.2f} ms")
    path = args.out if not args.label else args.out.with_name(f"{args.out.stem}-{args.label}.json")
    write_json(path, out)
    print(f"-> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
