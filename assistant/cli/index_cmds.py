"""CLI: ingest, search, stats, delete, settings, rebuild-index."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from ..errors import ConfigError, EmptyIndexError, IngestError


def register(sub) -> None:
    p = sub.add_parser("ingest", help="Add abstracts from files (default: the bundled corpus).")
    p.add_argument("paths", nargs="*", type=Path, help=".jsonl/.jsonl.gz/.csv/.bib/.txt files (none = bundled corpus)")
    p.add_argument("--strict", action="store_true", help="Exit non-zero (and ingest nothing) if any record would be skipped.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    p.set_defaults(handler=cmd_ingest)

    p = sub.add_parser("search", help="Hybrid search: k distinct papers with scores and matching sentences.")
    p.add_argument("query", nargs="?", help="The search text.")
    p.add_argument("--k", type=int, help="Number of distinct papers (default: retrieval.k).")
    p.add_argument("--json", action="store_true", help="Print JSON.")
    p.add_argument("--batch", type=Path, help="QUESTIONS.jsonl: one {\"id\", \"question\", ...} per line.")
    p.add_argument("--out", type=Path, help="RESULTS.jsonl for --batch.")
    p.add_argument("--mode", choices=["hybrid", "dense", "bm25"], help="Retrievers to use.")
    _filter_args(p)
    p.set_defaults(handler=cmd_search)

    p = sub.add_parser("stats", help="What the store holds.")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_stats)

    p = sub.add_parser("delete", help="Remove papers (all their chunks) by paper_id.")
    p.add_argument("ids", nargs="+")
    p.set_defaults(handler=cmd_delete)

    p = sub.add_parser("settings", help="List every setting with its value and description.")
    p.set_defaults(handler=cmd_settings)

    p = sub.add_parser("rebuild-index", help="Rebuild the lexical index from the vector store.")
    p.set_defaults(handler=cmd_rebuild)


def _filter_args(p) -> None:
    p.add_argument("--year-min", type=int, help="Only papers from this year on.")
    p.add_argument("--year-max", type=int, help="Only papers up to this year.")
    p.add_argument("--author", default="", help="Only papers with an author containing this text.")
    p.add_argument("--source", default="", help="Only papers from this source file name.")


def filters_from(args):
    from ..retrieve.hybrid import Filters

    return Filters(args.year_min, args.year_max, args.author, args.source)


def _estimate(paths: list[Path]) -> int | None:
    total = 0
    for p in paths:
        if p.suffix in (".jsonl", ".csv", ".gz", ".txt"):
            opener = gzip.open if p.suffix == ".gz" else open
            with opener(p, "rb") as f:
                total += sum(1 for line in f if line.strip())
        else:
            return None
    return total or None


def cmd_ingest(args, ctx) -> int:
    from tqdm import tqdm

    from ..pipeline import ingest_paths
    from ..settings import BUNDLED_CORPUS

    paths = args.paths or [BUNDLED_CORPUS]
    index = ctx.index()
    total = None if args.quiet else _estimate([p for p in paths if p.is_file()])
    with tqdm(total=total, unit="abstract", disable=args.quiet, file=sys.stderr, desc="ingest") as bar:
        report = ingest_paths(index, paths, progress=bar.update, strict=args.strict)
    for issue in report.issues[:50]:
        print(f"warning: {issue}", file=sys.stderr)
    if len(report.issues) > 50:
        print(f"warning: ... and {len(report.issues) - 50} more", file=sys.stderr)
    for pid, dup in report.near_duplicates:
        print(f"note: {pid} looks like another version of {dup}; it will not appear twice in results.", file=sys.stderr)
    print(report.summary())
    return 0


def _hit_json(h) -> dict:
    from ..index.sentences import split_sentences

    sents = split_sentences(h.text)
    return {
        "paper_id": h.paper_id, "title": h.title, "text": h.text, "score": h.score, "scores": h.scores,
        "ranks": h.ranks, "sentences": [sents[i].text for i in h.sentences if i < len(sents)],
        "year": h.record.year, "authors": list(h.record.authors), "duplicate_of": h.record.duplicate_of,
    }


def _retriever(ctx):
    from ..retrieve.hybrid import HybridRetriever

    index = ctx.index()
    index.require_content()
    return HybridRetriever(index, ctx.settings.retrieval)


def cmd_search(args, ctx) -> int:
    if args.batch:
        return _search_batch(args, ctx)
    if not args.query or not args.query.strip():
        raise ConfigError("Nothing to search for.", hint='Give a query: paperchat search "graph neural networks" (or --batch FILE).')
    retriever = _retriever(ctx)
    filters = filters_from(args)
    hits = retriever.search(args.query, k=args.k, filters=filters, mode=args.mode)
    if args.json:
        print(json.dumps({"query": args.query, "hits": [_hit_json(h) for h in hits]}, ensure_ascii=False, indent=2))
        return 0
    if not hits:
        why = "no abstract passes the filters" if filters.active() and not retriever.matching_papers(filters) else "no matching abstracts"
        print(f"No results: {why}.")
        return 0
    for rank, h in enumerate(hits, 1):
        parts = " ".join(f"{k}={v:.3f}" for k, v in h.scores.items())
        print(f"{rank}. [{h.paper_id}] {h.title}")
        print(f"   {parts}")
        best = _hit_json(h)["sentences"][:2]
        if best:
            print("   > " + " ".join(best)[:300])
    return 0


def _search_batch(args, ctx) -> int:
    from tqdm import tqdm

    from ..questions import read_questions

    if not args.out:
        raise ConfigError("--batch needs --out RESULTS.jsonl.", hint="paperchat search --batch q.jsonl --out r.jsonl")
    questions = read_questions(args.batch)
    retriever = _retriever(ctx)
    filters = filters_from(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as out:
        for q in tqdm(questions, unit="query", file=sys.stderr, desc="search"):
            hits = retriever.search(q["question"], k=args.k, filters=filters, mode=args.mode)
            row = {**q, "query": q["question"], "hits": [_hit_json(h) for h in hits]}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(questions)} queries -> {args.out}")
    return 0


def cmd_stats(args, ctx) -> int:
    stats = ctx.index().stats()
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        for k, v in stats.items():
            print(f"{k:16} {v}")
        if not stats["papers"]:
            print(EmptyIndexError.hint)
    return 0


def cmd_delete(args, ctx) -> int:
    missing = ctx.index().delete(args.ids)
    print(f"deleted {len(args.ids) - len(missing)} paper(s)")
    if missing:
        raise IngestError(f"Not found: {', '.join(missing)}", hint="`paperchat search` shows paper ids.")
    return 0


def cmd_settings(args, ctx) -> int:  # noqa: ARG001
    from ..settings import describe

    current = ctx.settings.model_dump()
    for name, default, desc in describe():
        group, key = name.split(".")
        print(f"{name:32} = {current[group][key]!s:28} {desc}")
    return 0


def cmd_rebuild(args, ctx) -> int:  # noqa: ARG001
    lex = ctx.index().refresh_lexical(force=True)
    print(f"lexical index rebuilt over {len(lex.ids)} chunks")
    return 0
