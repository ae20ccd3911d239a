"""Does the optimised embedder keep retrieval quality? SciFact nDCG@10, torch fp32 index vs ONNX int8 index.

Builds two indexes of the same SciFact documents (all 5,183, or a slice: the gold documents of the
first claims plus the first documents of the corpus as distractors) through the normal ingest
pipeline, one per `embedding.backend`, and scores the training claims with hybrid (RRF, the default)
and dense-only retrieval. The target: hybrid nDCG@10 of the ONNX index within 0.005 of the torch one.
Indexes are kept under ~/.cache/paperchat-bench/scifact-<docs>-<backend>/ and reused.

    .venv/bin/python bench/quality.py [--docs 800 --claims 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import CACHE, SCIFACT, bar, offline, settings_for
from bench.scifact import load_claims, ndcg_at, recall_at

SCIFACT_DOCS = 5183


def corpus_slice(docs: int | None, claims: list) -> Path:
    """A BEIR corpus.jsonl with every gold document of `claims` plus the first documents up to `docs`."""
    src = SCIFACT / "corpus.jsonl"
    if not docs or docs >= SCIFACT_DOCS:
        return src
    gold = {d for _, _, rel in claims for d in rel}
    out = CACHE / "slices" / f"scifact-{docs}-{len(claims)}.jsonl"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    lines, rest = [], []
    with open(src, encoding="utf-8") as f:
        for line in f:
            (lines if json.loads(line)["_id"] in gold else rest).append(line)
    lines += rest[: max(0, docs - len(lines))]
    tmp = out.with_suffix(".tmp")
    tmp.write_text("".join(lines), encoding="utf-8")
    tmp.replace(out)
    return out


def evaluate(docs: int | None = None, n_claims: int | None = None, backends=("torch", "onnx")) -> dict:
    offline()
    from assistant.index.indexer import Index
    from assistant.pipeline import ingest_paths
    from assistant.retrieve.hybrid import HybridRetriever

    claims = load_claims(n_claims)
    corpus = corpus_slice(docs, claims)
    with open(corpus, encoding="utf-8") as f:
        n_docs = sum(1 for _ in f)
    out: dict = {"docs": n_docs, "claims": len(claims), "corpus": str(corpus), "backends": {}}
    for backend in backends:
        data_dir = CACHE / f"scifact-{n_docs}-{backend}"
        settings = settings_for(data_dir, backend)
        index = Index(settings)
        t = time.perf_counter()
        with bar(n_docs, f"index scifact {n_docs} ({backend})") as b:
            report = ingest_paths(index, [corpus], progress=b.update)
        res = {"embedder": index.embedder.name, "ingest_s": round(time.perf_counter() - t, 1),
               "added": report.added, "unchanged": report.unchanged}
        for mode in ("hybrid", "dense"):
            r = HybridRetriever(index, settings.retrieval.model_copy(update={"mode": mode}))
            nd, rc = [], []
            for _qid, text, rel in _each(claims, f"scifact {mode} ({backend})"):
                ranked = [h.paper_id for h in r.search(text, k=100)]
                nd.append(ndcg_at(ranked, rel))
                rc.append(recall_at(ranked, rel, 100))
            res[mode] = {"ndcg@10": round(sum(nd) / len(nd), 4), "recall@100": round(sum(rc) / len(rc), 4)}
        out["backends"][backend] = res
    b = out["backends"]
    if "torch" in b and "onnx" in b:
        for mode in ("hybrid", "dense"):
            out[f"delta_{mode}_ndcg@10"] = round(b["onnx"][mode]["ndcg@10"] - b["torch"][mode]["ndcg@10"], 4)
        out["target_met"] = abs(out["delta_hybrid_ndcg@10"]) <= 0.005
    return out


def _each(items, desc):
    with bar(len(items), desc, unit="claim") as b:
        for x in items:
            yield x
            b.update(1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, help="Documents in the slice (default: all 5,183).")
    ap.add_argument("--claims", type=int, help="Only the first N training claims.")
    args = ap.parse_args(argv)
    print(json.dumps(evaluate(args.docs, args.claims), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
