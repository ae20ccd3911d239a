"""CLI: the store's health and its copies -- doctor, rebuild-index (--dense, --lexical, --records), backup,
restore. Repairs refuse to run beside a server using the store (DATA_DIR/serve.lock names it); doctor
then checks the records file read-only."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from ..errors import StoreDamagedError, VectorSettingsError


def register(sub) -> None:
    p = sub.add_parser("rebuild-index", help="Rebuild what is damaged: vectors or BM25 from the records store, "
                                             "the records store from what survives.")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--dense", action="store_true", help="Re-embed every record into a fresh vector store "
                   "(the old one is moved aside, never deleted); also after changing embedding or chunking settings.")
    g.add_argument("--lexical", action="store_true", help="Rebuild only the BM25 index.")
    g.add_argument("--records", action="store_true", help="Rebuild the records store (the source of truth) from what "
                   "survives -- the damaged file, a copy a server rescued, the vector store -- and count what cannot "
                   "be recovered; the damaged file is moved aside, never deleted.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    p.set_defaults(handler=cmd_rebuild)

    p = sub.add_parser("backup",
                       help="Write a consistent copy of the store (records, vectors, manifest) to a new directory.")
    p.add_argument("out", type=Path, help="A new (or empty) directory.")
    p.set_defaults(handler=cmd_backup)

    p = sub.add_parser("restore", help="Write a backup into an empty data directory (--data-dir).")
    p.add_argument("src", type=Path, help="A directory written by `paperchat backup`.")
    p.set_defaults(handler=cmd_restore)

    p = sub.add_parser("doctor", help="Check the store; each problem found names the command that fixes it.")
    p.add_argument("--json", action="store_true", help="Print the findings as JSON.")
    p.add_argument("--no-probe", action="store_true", help="Skip the self-retrieval probe (needs the embedder).")
    p.set_defaults(handler=cmd_doctor)



def cmd_rebuild(args, ctx) -> int:
    from tqdm import tqdm

    from ..index.doctor import RECORDS_FIX, diagnose
    from ..index.indexer import Index
    from ..index.recover import rebuild_records
    from ..index.repair import rebuild_dense, rebuild_lexical

    _refuse_while_served(ctx, "rebuild-index")
    index = Index(ctx.settings, new_vectors=True)
    if not args.dense:
        # StoreDamagedError: the records store cannot be read: `--records` (below) rebuilds it
        with contextlib.suppress(StoreDamagedError):
            index.check_vector_settings()  # (only --dense may adopt new vector settings)
    if args.records or (not (args.dense or args.lexical) and index.records_lost()):
        rep = rebuild_records(index)
        print(rep.summary())
        if rep.pending:
            print(f"{index.embed_pending().embedded} recovered records without vectors embedded")
        if args.records:
            return 0
    dense, lexical, pending = args.dense, args.lexical, False
    if not (args.dense or args.lexical):  # rebuild what is damaged (and embed what has no vectors yet)
        every = diagnose(index)
        findings = [f for f in every if not f.ok]
        if any(RECORDS_FIX in f.fix for f in findings):
            rep = rebuild_records(index)
            print(rep.summary())
            every = diagnose(index)
            findings = [f for f in every if not f.ok]
        dense = any("--dense" in f.fix for f in findings)
        lexical = any("--lexical" in f.fix for f in findings)
        pending = any(f.check == "coverage" for f in every)
        if not (dense or lexical or pending):
            print("nothing to rebuild: every check passed (`paperchat doctor` lists them)")
            return 0
    if dense:
        db = index.writable_records()
        with tqdm(total=db.count(), unit="record", disable=args.quiet, file=sys.stderr, desc="re-embed") as bar:
            res = rebuild_dense(index, progress=bar.update)
        moved = f"; the old vector store was moved to {res['moved_aside']}" if res["moved_aside"] else ""
        print(f"vector index rebuilt from {res['records']} records{moved}")
    elif pending:
        res = index.embed_pending()
        print(f"{res.embedded} records whose vectors were missing embedded")
    if lexical or not dense:
        print(f"lexical index rebuilt over {rebuild_lexical(index)} chunks")
    return 0


def _refuse_while_served(ctx, command: str) -> None:
    """A repair must not open the store beside a server using it: refuse, naming the server."""
    from ..errors import StoreLockedError
    from ..index.lock import server_name, serving_pid

    pid = None if ctx.settings.store.chroma_url else serving_pid(ctx.settings.store.data_dir)
    if pid:
        raise StoreLockedError(
            f"{server_name(pid)} is serving {ctx.settings.store.data_dir}: `paperchat {command}` cannot run beside it.",
            hint="Stop it first (Ctrl+C in its terminal" + (f", or `kill {pid}`" if pid > 0 else "")
            + "), then run the same command again.")


def cmd_backup(args, ctx) -> int:
    from ..index.backup import backup
    from ..index.indexer import Index

    m = backup(Index(ctx.settings), args.out)
    print(f"backup written to {args.out}: {m['records']} records, {m['papers']} papers with vectors "
          f"({m['chunks']} chunks), chromadb {m['chromadb']}")
    return 0


def cmd_restore(args, ctx) -> int:
    from ..index.backup import check_restored, restore
    from ..index.indexer import Index

    m = restore(ctx.settings, args.src)
    check_restored(Index(ctx.settings), m)
    print(f"restored {m['records']} records and {m['papers']} papers with vectors into {ctx.settings.store.data_dir}")
    return 0


def cmd_doctor(args, ctx) -> int:
    from ..index.doctor import Finding, diagnose, diagnose_served
    from ..index.indexer import Index
    from ..index.lock import serving_pid

    pid = None if ctx.settings.store.chroma_url else serving_pid(ctx.settings.store.data_dir)
    if pid:  # read-only checks of the records file; Chroma is not opened beside the server
        findings = diagnose_served(ctx.settings.store.data_dir, pid)
    else:
        try:
            index = Index(ctx.settings, new_vectors=True)
            findings = diagnose(index, probe=not args.no_probe)
            if all(f.ok for f in findings if f.check == "records"):
                index.check_vector_settings()
        except VectorSettingsError as e:
            findings.append(Finding("settings", False, e.message,
                                    "paperchat rebuild-index --dense (or keep the old settings)"))
        except StoreDamagedError as e:  # the records file cannot even be opened: that is the finding
            findings = [Finding("records", False, e.message, e.hint)]
    bad = [f for f in findings if not f.ok]
    if args.json:
        print(json.dumps({"ok": not bad, "findings": [f.to_dict() for f in findings]}, indent=2))
    else:
        for f in findings:
            print(f"{'ok ' if f.ok else 'BAD'} {f.check:15} {f.message}" + (f"\n    fix: {f.fix}" if f.fix else ""))
        healthy = "the records store is healthy (stop the server for the full check)" if pid else "store is healthy"
        print(healthy if not bad else f"{len(bad)} problem(s) found")
    return 0 if not bad else 1
