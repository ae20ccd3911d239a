"""SciFact retrieval quality: dense only, BM25 only and hybrid (RRF and score fusion), side by side
with the published test-split references. Indexes ../shared/data/scifact/corpus.jsonl through the
normal ingest pipeline into its own data directory (reused when present) and scores the training
claims (queries.jsonl + qrels/train.tsv): nDCG@10 and Recall@100 (binary relevance).

    .venv/bin/python bench/scifact.py [--data-dir DIR] [--limit N] [--out bench/results/scifact.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
SCIFACT = ROOT.parent / "shared" / "data" / "scifact"
PUBLISHED = {"BM25 (BEIR)": 0.665, "BM25 (Anserini flat)": 0.679, "all-MiniLM-L6-v2 (MTEB)": 0.645,
             "BM25 + CE rerank": 0.688, "BM25 + BGE-base RRF": 0.742}


def ndcg_at(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal if ideal else 0.0


def recall_at(ranked: list[str], relevant: set[str], k: int) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def load_claims(limit: int | None) -> list[tuple[str, str, set[str]]]:
    qrels: dict[str, set[str]] = {}
    with open(SCIFACT / "qrels" / "train.tsv", encoding="utf-8") as f:
        for line in f:
            parts = line.strip().split("\t")
            if len(parts) >= 3 and parts[0] != "query-id" and parts[2] != "0":
                qrels.setdefault(parts[0], set()).add(parts[1])
    claims = []
    with open(SCIFACT / "queries.jsonl", encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            if q["_id"] in qrels:
                claims.append((q["_id"], q["text"], qrels[q["_id"]]))
    return claims[:limit] if limit else claims


def main(argv: list[str] | None = None) -> int:
    from assistant.index.indexer import Index
    from assistant.pipeline import ingest_paths
    from assistant.retrieve.hybrid import HybridRetriever
    from assistant.settings import load_settings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=Path.home() / ".cache" / "paperchat-bench" / "scifact")
    ap.add_argument("--limit", type=int, help="Only the first N claims.")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scifact.json")
    args = ap.parse_args(argv)
    settings = load_settings(None, {"store.data_dir": str(args.data_dir), "retrieval.candidates": 100}, env={})
    index = Index(settings)
    t = time.perf_counter()
    with tqdm(total=5183, unit="abstract", desc="index scifact", file=sys.stderr) as bar:
        report = ingest_paths(index, [SCIFACT / "corpus.jsonl"], progress=bar.update)
    ingest_s = time.perf_counter() - t
    print(f"ingest: {report.summary()} in {ingest_s:.1f}s", file=sys.stderr)
    claims = load_claims(args.limit)
    configs = {
        "dense": {"mode": "dense"}, "bm25": {"mode": "bm25"},
        "hybrid (RRF)": {"mode": "hybrid", "fusion": "rrf"},
        "hybrid (score fusion)": {"mode": "hybrid", "fusion": "score"},
    }
    results = {}
    for name, cfg in configs.items():
        r = HybridRetriever(index, settings.retrieval.model_copy(update=cfg))
        nd, rc, lat = [], [], []
        for _qid, text, rel in tqdm(claims, desc=name, unit="claim", file=sys.stderr):
            t = time.perf_counter()
            ranked = [h.paper_id for h in r.search(text, k=100)]
            lat.append(time.perf_counter() - t)
            nd.append(ndcg_at(ranked, rel))
            rc.append(recall_at(ranked, rel, 100))
        lat.sort()
        results[name] = {"ndcg@10": sum(nd) / len(nd), "recall@100": sum(rc) / len(rc),
                         "p50_ms": 1000 * lat[len(lat) // 2], "p95_ms": 1000 * lat[int(len(lat) * 0.95)]}
    print(f"\nSciFact, {len(claims)} training claims (published references are on the 300-claim test split)")
    print(f"{'retriever':24} {'nDCG@10':>8} {'R@100':>7} {'p50 ms':>7}")
    for name, m in results.items():
        print(f"{name:24} {m['ndcg@10']:8.3f} {m['recall@100']:7.3f} {m['p50_ms']:7.1f}")
    for name, v in PUBLISHED.items():
        print(f"{'  published ' + name:24} {v:8.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"claims": len(claims), "ingest_s": ingest_s, "results": results,
                                    "published_test_split": PUBLISHED, "date": time.strftime("%Y-%m-%d")}, indent=2))
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
