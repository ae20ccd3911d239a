"""CLI: verify claims against sources with the trained verifier (one pair, or a JSONL batch).

    paperchat verify "FedMerge improves accuracy by 12%." --source "FedMerge improves accuracy by 24.72%."
    paperchat verify --batch PAIRS.jsonl --out RESULTS.jsonl

Input lines: {"id": ..., "claim": "...", "source": "text" | ["sentence", ...]}. Output lines:
{"id", "support", "contradiction", "verdict", "evidence", "sentences"} in input order. A bad line is
reported as "PAIRS.jsonl line N: ..." on stderr and skipped; the good ones are still verified and
written, and the exit status is 1. The output is written to a temporary file and renamed at the end.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..errors import ConfigError

CHUNK = 64  # pairs per verify_many call (the progress bar moves per chunk)


def register(sub) -> None:
    p = sub.add_parser("verify", help="Check whether a source supports, contradicts or does not support a claim.")
    p.add_argument("claim", nargs="?", help="The claim (one sentence).")
    p.add_argument("--source", action="append", default=[], metavar="TEXT",
                   help="The source text (a whole abstract is fine); repeat it to pass a list of sentences.")
    p.add_argument("--batch", type=Path, help='PAIRS.jsonl with {"id", "claim", "source"} per line.')
    p.add_argument("--out", type=Path, help="RESULTS.jsonl for --batch.")
    p.set_defaults(handler=cmd_verify)


def parse_line(line: str) -> tuple[object, str, object]:
    """(id, claim, source) of one input line; ValueError with a readable reason otherwise."""
    try:
        d = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(d, dict):
        raise ValueError('expected a JSON object {"id", "claim", "source"}')
    missing = [k for k in ("id", "claim", "source") if k not in d]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    if not isinstance(d["id"], (str, int)) or isinstance(d["id"], bool):
        raise ValueError('"id" must be a string or an integer')
    if not isinstance(d["claim"], str) or not d["claim"].strip():
        raise ValueError('"claim" must be a non-empty string')
    src = d["source"]
    if isinstance(src, str):
        ok = bool(src.strip())
    else:
        ok = isinstance(src, list) and bool(src) and all(isinstance(s, str) for s in src) and any(s.strip() for s in src)
    if not ok:
        raise ValueError('"source" must be a non-empty string or a non-empty list of sentence strings')
    return d["id"], d["claim"], src


def cmd_verify(args, ctx) -> int:
    from ..verify import get_verifier

    verifier = get_verifier(ctx.settings.verify)
    if args.batch:
        return _batch(verifier, args)
    if not args.claim or not args.claim.strip():
        raise ConfigError("No claim given.", hint='paperchat verify "CLAIM" --source "TEXT", or --batch PAIRS.jsonl --out R.jsonl')
    if not args.source or not any(s.strip() for s in args.source):
        raise ConfigError("No source given.", hint='Add --source "TEXT" (repeat it for a list of sentences).')
    source = args.source[0] if len(args.source) == 1 else args.source
    print(json.dumps(verifier.verify(args.claim, source).to_dict(), ensure_ascii=False))
    return 0


def _batch(verifier, args) -> int:
    from tqdm import tqdm

    if not args.out:
        raise ConfigError("--batch needs --out RESULTS.jsonl.", hint="paperchat verify --batch pairs.jsonl --out r.jsonl")
    try:
        lines = args.batch.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"Cannot read {args.batch}: {e}", hint="Pass a UTF-8 JSONL file of {id, claim, source}.") from e
    good, bad = [], 0
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            good.append(parse_line(line))
        except ValueError as e:
            bad += 1
            print(f"{args.batch} line {n}: {e}; skipped.", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".part")
    with open(tmp, "w", encoding="utf-8") as out, tqdm(total=len(good), unit="pair", file=sys.stderr, desc="verify") as bar:
        for lo in range(0, len(good), CHUNK):
            chunk = good[lo : lo + CHUNK]
            for (pid, _, _), v in zip(chunk, verifier.verify_many([(c, s) for _, c, s in chunk])):
                out.write(json.dumps({"id": pid, **v.to_dict()}, ensure_ascii=False) + "\n")
            bar.update(len(chunk))
    os.replace(tmp, args.out)
    print(f"{len(good)} verdicts -> {args.out}" + (f"; {bad} bad line(s) skipped (see above)" if bad else ""))
    return 1 if bad else 0
