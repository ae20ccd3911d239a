"""Retrieval quality at partial dense coverage (lexical-first ingest): SciFact nDCG@10 at 0%, 25%, 50%
and 100% of the papers embedded, for two ways of fusing a chunk that has no vector yet:

* `renormalised` (the default): such a chunk is fused over BM25 alone with the weights scaled up to the
  full weight (retrieve/fusion.py `_renormalise`), so it is not ranked lower just for lacking a vector;
* `missing=0`: today's fusion unchanged, the missing dense score counts as 0.

BM25 alone and dense alone are shown beside them. SciFact (5,183 abstracts) is ingested lexically
(`embed=False`), then the embed job runs until each coverage level is reached (it embeds in paper_id
order, as the real job does: an arbitrary subset with respect to the claims; `limit` stops it exactly). At 100%
coverage the `renormalised` ranking goes through exactly today's code path (no unembedded paper), and the script
checks that every claim's ranking is identical with and without the renormalisation.

    nice -n 10 .venv/bin/python bench/lexfirst_quality.py [--data-dir /tmp/lexfirst-scifact] [--limit N]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, SCIFACT, machine_info, offline, write_json
from bench.scifact import load_claims, ndcg_at, recall_at

LEVELS = (0.0, 0.25, 0.5, 1.0)


def evaluate(index, settings, claims, renormalise: bool, mode: str = "hybrid") -> tuple[dict, list[list[str]]]:
    from assistant.retrieve.hybrid import HybridRetriever

    r = HybridRetriever(index, settings.retrieval.model_copy(update={"mode": mode}))
    r.renormalise = renormalise
    nd, rc, rankings = [], [], []
    for _qid, text, rel in claims:
        ranked = [h.paper_id for h in r.search(text, k=100)]
        rankings.append(ranked)
        nd.append(ndcg_at(ranked, rel))
        rc.append(recall_at(ranked, rel, 100))
    return {"ndcg@10": round(sum(nd) / len(nd), 4), "recall@100": round(sum(rc) / len(rc), 4)}, rankings


def main(argv: list[str] | None = None) -> int:
    from assistant.index.indexer import Index
    from assistant.pipeline import ingest_paths
    from assistant.settings import load_settings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/lexfirst-scifact"))
    ap.add_argument("--limit", type=int, help="Only the first N claims.")
    ap.add_argument("--out", type=Path, default=RESULTS / "lexfirst_quality.json")
    ap.add_argument("--rank-only", action="store_true", help="Only score hybrid on the existing --data-dir (e.g. with "
                    "main's code first on PYTHONPATH, for the before/after comparison at 100%%) and save the rankings.")
    ap.add_argument("--from-full", type=Path, help="A 100%%-embedded store of this script: each level is a copy of it "
                    "with the papers beyond the level (in the embed job's paper_id order) made pending and their "
                    "vectors deleted -- the same state as an embed job stopped there, without embedding again.")
    args = ap.parse_args(argv)
    offline()
    if args.from_full:
        return from_full(args)
    if args.rank_only:
        import assistant

        settings = load_settings(None, {"store.data_dir": str(args.data_dir), "retrieval.candidates": 100}, env={})
        claims = load_claims(args.limit)
        m, ranked = evaluate(Index(settings), settings, claims, True)
        write_json(args.out, {"code": str(Path(assistant.__file__).parent), "hybrid": m, "rankings": ranked})
        print(f"hybrid nDCG@10 {m['ndcg@10']:.4f} with {assistant.__file__} -> {args.out}")
        return 0
    shutil.rmtree(args.data_dir, ignore_errors=True)
    settings = load_settings(None, {"store.data_dir": str(args.data_dir), "retrieval.candidates": 100}, env={})
    index = Index(settings)
    t = time.perf_counter()
    ingest_paths(index, [SCIFACT / "corpus.jsonl"], embed=False)
    lexical_s = time.perf_counter() - t
    claims = load_claims(args.limit)
    res: dict = {"claims": len(claims), "lexical_phase_s": round(lexical_s, 1), "levels": [],
                 "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine_info()}
    for level in LEVELS:
        total = index.records_db.count()
        target = int(level * total)
        if level:
            index.embed_pending(limit=target - index.records_db.coverage()[0])
        embedded, total = index.records_db.coverage()
        row = {"target": level, "coverage": round(embedded / total, 4), "embedded": embedded, "papers": total}
        row["hybrid renormalised"], ranked_renorm = evaluate(index, settings, claims, True)
        row["hybrid missing=0"], ranked_zero = evaluate(index, settings, claims, False)
        row["bm25"], _ = evaluate(index, settings, claims, True, "bm25")
        row["dense"], _ = evaluate(index, settings, claims, True, "dense")
        row["identical_rankings_renorm_vs_zero"] = ranked_renorm == ranked_zero
        res["levels"].append(row)
        ks = ("hybrid renormalised", "hybrid missing=0", "bm25", "dense")
        print(f"coverage {row['coverage']:.0%}: " + ", ".join(f"{k} {row[k]['ndcg@10']:.4f}" for k in ks), flush=True)
        write_json(args.out, res)
    full = res["levels"][-1]
    print(f"100%: renormalised == today's fusion on every claim: {full['identical_rankings_renorm_vs_zero']}")
    _, ranked = evaluate(index, settings, claims, True)
    write_json(args.data_dir / "rankings_100.json", {"rankings": ranked})  # for a --rank-only comparison
    print(f"-> {args.out}")
    return 0


def from_full(args) -> int:
    from assistant.index.indexer import Index
    from assistant.index.records import PENDING
    from assistant.settings import load_settings

    claims = load_claims(args.limit)
    res: dict = {"claims": len(claims), "from_full": str(args.from_full), "levels": [],
                 "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine_info()}
    from assistant.index.repair import forget_clients

    index = None
    for level in LEVELS:
        if index is not None:
            forget_clients(index)  # the copy is replaced: no client may keep the old files open
            index.records_db.close()
        shutil.rmtree(args.data_dir, ignore_errors=True)
        shutil.copytree(args.from_full, args.data_dir)
        settings = load_settings(None, {"store.data_dir": str(args.data_dir), "retrieval.candidates": 100}, env={})
        index = Index(settings)
        ids = sorted(index.records_db.ids())
        drop = ids[int(level * len(ids)):]
        if drop:
            index.store.delete_papers(drop)
            index.store.bump_generation()
            db = index.records_db
            with db._lock:
                db._db.executemany("UPDATE records SET state=? WHERE paper_id=?", [(PENDING, p) for p in drop])
            db.bump_generation()
        embedded, total = index.records_db.coverage()
        row = {"target": level, "coverage": round(embedded / total, 4), "embedded": embedded, "papers": total,
               "vectors": index.store.count()[0]}
        row["hybrid renormalised"], _ = evaluate(index, settings, claims, True)
        row["hybrid missing=0"], _ = evaluate(index, settings, claims, False)
        row["bm25"], _ = evaluate(index, settings, claims, True, "bm25")
        row["dense"], _ = evaluate(index, settings, claims, True, "dense")
        res["levels"].append(row)
        ks = ("hybrid renormalised", "hybrid missing=0", "bm25", "dense")
        print(f"coverage {row['coverage']:.0%}: " + ", ".join(f"{k} {row[k]['ndcg@10']:.4f}" for k in ks), flush=True)
        write_json(args.out, res)
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
