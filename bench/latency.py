"""Warm hybrid-search latency (retrieval only) with a per-stage breakdown, and peak RSS while serving.

Opens a built index, warms it up (models, HNSW, the BM25 index, one pass of other queries), then times
`HybridRetriever.search(title, k=5)` for >= 200 arXiv titles the process has not seen (so the query
embedding cache does not help) and, separately, the same queries again (cache hits: what a repeated
query costs). Stages are timed by wrapping the calls `search` makes: query embedding, Chroma query,
BM25 (incl. the generation check), the chunk-metadata `get` for lexical-only chunks, and the paper
records `get`. RSS is sampled (psutil) in this process: the one that serves.

    .venv/bin/python bench/latency.py DATA_DIR [--backend onnx] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import arxiv_titles, bar, offline, settings_for, summary_ms

STAGES = ("embed_query", "chroma_query", "bm25", "generation_check", "chunk_meta_get", "records_get")


class _RSS:
    """Peak RSS of this process, sampled every 20 ms in a thread (and at each `sample()`)."""

    def __init__(self) -> None:
        import psutil

        self.proc, self.peak, self._stop = psutil.Process(), 0, threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)

    def sample(self) -> int:
        rss = self.proc.memory_info().rss
        self.peak = max(self.peak, rss)
        return rss

    def _loop(self) -> None:
        while not self._stop.wait(0.02):
            self.sample()

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._t.join()
        self.sample()


def _instrument(retriever, stage_times: dict[str, float]):
    """Wrap what `search` calls so each query's time per stage lands in `stage_times`."""
    index = retriever.index
    store = index.store

    def wrap(obj, attr, stage):
        fn = getattr(obj, attr)

        def timed(*a, **kw):
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                stage_times[stage] += time.perf_counter() - t

        setattr(obj, attr, timed)

    wrap(index.embedder, "embed_query", "embed_query")
    wrap(store, "query_chunks", "chroma_query")
    wrap(store, "generation", "generation_check")
    wrap(store.chunks, "get", "chunk_meta_get")
    wrap(index, "records", "records_get")
    lex = index.refresh_lexical()
    lex_cls = type(lex)
    orig = lex_cls.search

    def lex_search(self, *a, **kw):
        t = time.perf_counter()
        try:
            return orig(self, *a, **kw)
        finally:
            stage_times["bm25"] += time.perf_counter() - t

    lex_cls.search = lex_search  # restored by the caller
    return lambda: setattr(lex_cls, "search", orig)


def measure(data_dir: Path, backend: str = "onnx", queries: int = 200, k: int = 5,
            overrides: dict | None = None, label: str = "", preset: str | None = None) -> dict:
    """Latency and RSS figures for the index in `data_dir`."""
    offline()
    from assistant.index.indexer import Index
    from assistant.retrieve.hybrid import HybridRetriever

    warm_q = arxiv_titles(30, skip=5)
    test_q = arxiv_titles(queries, skip=11)
    with _RSS() as rss:
        base = rss.sample()
        t = time.perf_counter()
        settings = settings_for(data_dir, backend, preset, **(overrides or {}))
        index = Index(settings)
        index.require_content()
        retriever = HybridRetriever(index, settings.retrieval)
        open_s = time.perf_counter() - t
        t = time.perf_counter()
        index.refresh_lexical()
        lexical_load_s = time.perf_counter() - t
        t = time.perf_counter()
        retriever.search(warm_q[0], k=k)
        first_search_s = time.perf_counter() - t
        for q in warm_q[1:]:
            retriever.search(q, k=k)
        stage_times: dict[str, float] = defaultdict(float)
        restore = _instrument(retriever, stage_times)
        per_stage: dict[str, list[float]] = {s: [] for s in STAGES}
        totals: list[float] = []
        try:
            for q in _iter(test_q, label or data_dir.name):
                stage_times.clear()
                t = time.perf_counter()
                hits = retriever.search(q, k=k)
                totals.append(time.perf_counter() - t)
                for s in STAGES:
                    per_stage[s].append(stage_times.get(s, 0.0))
                assert hits is not None
            cached: list[float] = []
            for q in test_q:
                t = time.perf_counter()
                retriever.search(q, k=k)
                cached.append(time.perf_counter() - t)
        finally:
            restore()
        papers, chunks = index.store.count()
    return {
        "data_dir": str(data_dir), "papers": papers, "chunks": chunks, "queries": len(test_q), "k": k,
        "embedder": index.embedder.name, "candidates": settings.retrieval.candidates,
        "search": summary_ms(totals), "search_repeated_query": summary_ms(cached),
        "stages": {s: summary_ms(v) for s, v in per_stage.items()},
        "open_s": round(open_s, 2), "lexical_load_s": round(lexical_load_s, 2),
        "first_search_s": round(first_search_s, 3),
        "rss_mb": {"before_open": round(base / 2**20), "peak": round(rss.peak / 2**20),
                   "after": round(rss.sample() / 2**20)},
    }


def _iter(items, label):
    with bar(len(items), f"search {label}", unit="query") as b:
        for x in items:
            yield x
            b.update(1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--backend", default="onnx", choices=["torch", "onnx"])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--preset", help="Settings preset the index was built with (the arXiv builds: scale).")
    ap.add_argument("--set", dest="assign", action="append", default=[], help="GROUP.NAME=VALUE")
    args = ap.parse_args(argv)
    overrides = dict(a.split("=", 1) for a in args.assign)
    print(json.dumps(measure(args.data_dir, args.backend, args.queries, overrides=overrides, preset=args.preset),
                     indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
