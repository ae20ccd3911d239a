"""CLI: ingest, embed, search, stats, delete, settings (repairs, doctor, backup: store_cmds.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..errors import ConfigError, EmptyIndexError, IngestError
from .checks import check_out, k_arg, report


def register(sub) -> None:
    p = sub.add_parser("ingest", help="Add abstracts from files (default: the bundled corpus).")
    p.add_argument("paths", nargs="*", type=Path, help=".jsonl/.jsonl.gz/.csv/.bib/.txt files (none = bundled corpus)")
    p.add_argument("--strict", action="store_true",
                   help="Exit non-zero (and ingest nothing) if any record would be skipped.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    p.add_argument("--shard", metavar="I/N", help="Ingest only shard I of N (a stable split by paper id): N workers "
                   "with --shard 1/N .. N/N over the same input, each with its own --data-dir, share a Chroma server.")
    p.add_argument("--background", action="store_true", help="Return once the records are searchable (BM25); "
                   "their vectors are made by a background `paperchat embed` job (log: DATA_DIR/embed.log).")
    p.add_argument("--no-embed", action="store_true", help="Only the lexical phase; run `paperchat embed` later.")
    p.set_defaults(handler=cmd_ingest)

    p = sub.add_parser("embed",
                       help="Make the vectors of records that have none yet (resumable; progress and coverage).")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    p.set_defaults(handler=cmd_embed)

    p = sub.add_parser("search", help="Hybrid search: k distinct papers with scores and matching sentences.")
    p.add_argument("query", nargs="?", help="The search text.")
    p.add_argument("--k", type=k_arg, help="Number of distinct papers, 1-100 (default: retrieval.k).")
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
    p.add_argument("--purge", action="store_true",
                   help="Also compact the stores so the deleted text is gone from disk (rewrites the vector store).")
    p.set_defaults(handler=cmd_delete)

    p = sub.add_parser("settings", help="List every setting with its value and description.")
    p.set_defaults(handler=cmd_settings)


def _filter_args(p) -> None:
    p.add_argument("--year-min", type=int, help="Only papers from this year on.")
    p.add_argument("--year-max", type=int, help="Only papers up to this year.")
    p.add_argument("--author", default="", help="Only papers with an author containing this text.")
    p.add_argument("--source", default="", help="Only papers from this source file name.")


def filters_from(args):
    from ..retrieve.hybrid import Filters
    from ..user_text import clean_user_text

    if args.year_min is not None and args.year_max is not None and args.year_min > args.year_max:
        raise ConfigError(f"--year-min {args.year_min} is after --year-max {args.year_max}: no year passes both.",
                          hint=f"Swap them (--year-min {args.year_max} --year-max {args.year_min}) or drop one.")
    author, source = (clean_user_text(v, what=f"--{n} filter", max_chars=1000, allow_empty=True)
                      for n, v in (("author", args.author), ("source", args.source)))
    return Filters(args.year_min, args.year_max, author, source)


def _estimate(paths: list[Path], max_bytes: int) -> int | None:
    """Lines in the files (for the progress bar), counted in bounded blocks: never a whole line in memory,
    and never more than `max_bytes` decompressed per file (a bomb is the reader's error to report)."""
    from ..ingest.sources import open_binary

    total = 0
    for p in paths:
        if p.suffix not in (".jsonl", ".csv", ".gz", ".txt"):
            return None
        seen = 0
        with open_binary(p) as f:
            while seen < max_bytes and (block := f.read(1 << 20)):
                seen += len(block)
                total += block.count(b"\n")
    return total or None


def cmd_ingest(args, ctx) -> int:
    from tqdm import tqdm

    from ..ingest.shard import Shard
    from ..pipeline import ingest_paths
    from ..settings import BUNDLED_CORPUS

    paths = args.paths or [BUNDLED_CORPUS]
    shard = Shard.parse(args.shard) if args.shard else None
    index = ctx.index()
    limit = ctx.settings.ingest.max_decompressed_mb * 1024 * 1024
    try:
        total = None if args.quiet else _estimate([p for p in paths if p.is_file()], limit)
    except (OSError, EOFError, ValueError):
        total = None  # unreadable or corrupt: the ingest itself reports it
    if total and shard:
        total = -(-total // shard.count)  # about one in N
    embed = not (args.background or args.no_embed)
    desc = f"ingest {shard} (lexical)" if shard else "ingest (lexical)"
    with tqdm(total=total, unit="abstract", disable=args.quiet, file=sys.stderr, desc=desc) as bar:
        report = ingest_paths(index, paths, progress=bar.update, strict=args.strict, embed=False, shard=shard)
    cov = index.coverage()
    print(f"searchable now (BM25): {cov['papers']} papers; dense retrieval covers {cov['embedded']} of {cov['papers']}",
          file=sys.stderr)
    fresh = embed and ctx.command_line and not cov["complete"]
    if embed and not fresh:
        report.near_duplicates.extend(_embed(index, args.quiet))
        if report.near_duplicates:
            index.refresh_lexical(force=True)
        cov = index.coverage()
        print(f"dense retrieval covers {cov['embedded']} of {cov['papers']} papers", file=sys.stderr)
    elif args.background and not cov["complete"]:
        pid, log = _spawn_embed(args, ctx)
        print(f"vectors follow in the background: `paperchat embed` PID {pid}, log {log}; "
              "`paperchat stats` shows the coverage", file=sys.stderr)
    report.vectors_done = cov["complete"] or (embed and not fresh)
    _report(report)
    if fresh:  # the same process goes on as `paperchat embed`, without the lexical phase's heap (~0.6 GB at 75k)
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [*_embed_command(args, ctx), "embed", *(["--quiet"] if args.quiet else [])])
    return 0


def _report(report) -> None:
    for issue in report.issues[:50]:
        print(f"warning: {issue}", file=sys.stderr)
    if len(report.issues) > 50:
        print(f"warning: ... and {len(report.issues) - 50} more", file=sys.stderr)
    for pid, dup in report.near_duplicates:
        print(f"note: {pid} looks like another version of {dup}; it will not appear twice in results.", file=sys.stderr)
    print(report.summary())


def _embed(index, quiet: bool) -> list[tuple[str, str]]:
    """The dense phase with a progress bar (rate, ETA, coverage); returns the near-duplicates it found."""
    from tqdm import tqdm

    from ..errors import StoreLockedError

    cov = index.coverage()
    todo = index.records_db.count("pending") if index.records_db is not None else 0
    if todo <= 0:
        return []
    with tqdm(total=todo, unit="paper", disable=quiet, file=sys.stderr, desc="embed") as bar:
        done = [cov["embedded"]]

        def tick(n: int) -> None:
            done[0] += n
            bar.update(n)
            bar.set_postfix_str(f"{done[0]}/{cov['papers']} papers embedded", refresh=False)

        try:
            summary = index.embed_pending(progress=tick)
        except StoreLockedError as e:
            print(f"note: {e.message} -- it embeds these records too.", file=sys.stderr)
            return []
    return summary.near_duplicates


def _regroup(index, args, ctx) -> None:
    """Near-duplicates found while embedding changed BM25's chunk groups: rebuild it -- in a fresh process
    (exec `rebuild-index --lexical`) from the command line, not beside the encoder and the HNSW index
    (that peaked at 2.2 GB at 75k)."""
    if ctx.command_line:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [*_embed_command(args, ctx), "rebuild-index", "--lexical"])
    index.refresh_lexical(force=True)


def _embed_command(args, ctx) -> list[str]:
    """`python -m assistant.cli` with this command's store options (for `embed`)."""
    cmd = [sys.executable, "-m", "assistant.cli", "--data-dir", str(ctx.settings.store.data_dir)]
    if args.chroma_url:
        cmd += ["--chroma-url", args.chroma_url]
    if args.preset:
        cmd += ["--preset", args.preset]
    for a in args.assign:
        cmd += ["--set", a]
    return cmd


def _spawn_embed(args, ctx) -> tuple[int, Path]:
    """Start `paperchat embed` detached, with this command's store options; (pid, log path)."""
    import subprocess

    log = ctx.settings.store.data_dir / "embed.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen([*_embed_command(args, ctx), "embed"], stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                start_new_session=True, env=os.environ.copy())
    return proc.pid, log


def cmd_embed(args, ctx) -> int:
    index = ctx.index()
    cov = index.coverage()
    if cov["complete"]:
        print(f"nothing to embed: dense retrieval covers all {cov['papers']} papers")
        return 0
    dups = _embed(index, args.quiet)
    for pid, dup in dups:
        print(f"note: {pid} looks like another version of {dup}; it will not appear twice in results.", file=sys.stderr)
    cov = index.coverage()
    print(f"dense retrieval covers {cov['embedded']} of {cov['papers']} papers")
    if dups:
        _regroup(index, args, ctx)
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
    from ..user_text import clean_user_text

    if args.batch:
        return _search_batch(args, ctx)
    if not args.query or not args.query.strip():
        raise ConfigError("Nothing to search for.",
                          hint='Give a query: paperchat search "graph neural networks" (or --batch FILE).')
    args.query = clean_user_text(args.query, what="query", max_chars=ctx.settings.ui.max_question_chars)
    retriever = _retriever(ctx)
    filters = filters_from(args)
    hits = retriever.search(args.query, k=args.k, filters=filters, mode=args.mode)
    finding = retriever.check_filters(filters) if not hits else None  # why the filters leave no paper
    if args.json:
        out = {"query": args.query, "hits": [_hit_json(h) for h in hits]}
        print(json.dumps({**out, "filter_finding": finding.to_json()} if finding else out,
                         ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print(f"No results: {finding.message}" if finding else "No results: no matching abstracts.")
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

    from ..questions import batch_messages, read_question_file

    if not args.out:
        raise ConfigError("--batch needs --out RESULTS.jsonl.", hint="paperchat search --batch q.jsonl --out r.jsonl")
    qf = read_question_file(args.batch, max_chars=ctx.settings.ui.max_question_chars)
    check_out(args.out)
    retriever = _retriever(ctx)
    filters = filters_from(args)
    problems, warnings = batch_messages(args.batch, qf)
    report(problems, "error")
    report(warnings, "warning")
    with open(args.out, "w", encoding="utf-8") as out:
        for q in tqdm(qf.questions, unit="query", file=sys.stderr, desc="search"):
            hits = retriever.search(q["question"], k=args.k, filters=filters, mode=args.mode)
            row = {**q, "query": q["question"], "hits": [_hit_json(h) for h in hits]}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    bad = len(qf.problems)
    print(f"{len(qf.questions)} queries -> {args.out}" + (f"; {bad} bad line(s) skipped (see above)" if bad else ""))
    return 1 if bad else 0


def cmd_stats(args, ctx) -> int:
    stats = ctx.index().stats()
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        for k, v in stats.items():
            if k == "dense_coverage":
                v = f"{v['embedded']} of {v['papers']} papers embedded ({v['percent']}%)" + (
                    "" if v["complete"] else "; `paperchat embed` continues")
            print(f"{k:16} {v}")
        if not stats["papers"]:
            print(EmptyIndexError.hint)
    return 0


def cmd_delete(args, ctx) -> int:
    missing = ctx.index().delete(args.ids, purge=args.purge)
    print(f"deleted {len(args.ids) - len(missing)} paper(s)" + ("; stores compacted (--purge)" if args.purge else ""))
    if missing:
        raise IngestError(f"Not found: {', '.join(missing)}", hint="`paperchat search` shows paper ids.")
    return 0


def cmd_settings(args, ctx) -> int:
    from ..settings import describe

    current = ctx.settings.model_dump()
    for name, _default, desc in describe():
        group, key = name.split(".")
        print(f"{name:32} = {current[group][key]!s:28} {desc}")
    return 0
