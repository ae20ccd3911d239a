"""CLI: verify claims against sources with the trained verifier (one pair, or a JSONL batch).

    paperchat verify "FedMerge improves accuracy by 12%." --source "FedMerge improves accuracy by 24.72%."
    paperchat verify --batch PAIRS.jsonl --out RESULTS.jsonl

Input lines: {"id": ..., "claim": "...", "source": "text" | ["sentence", ...]}. Output lines:
{"id", "support", "contradiction", "verdict", "evidence", "sentences"} in input order. A bad line is
reported as "PAIRS.jsonl line N: ..." on stderr and skipped (invalid UTF-8, a broken character, JSON
that is not a pair); the good ones are still verified and written, and the exit status is 1. A repeated
id is a warning (both pairs are verified). --out is checked before the verifier loads; the output is
written to a temporary file and renamed at the end (the temporary file is removed if the run fails).
Claims and sources pass through `user_text.clean_user_text`, like every other user text.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..errors import ConfigError
from ..user_text import (
    MAX_QUESTION_CHARS,
    MAX_SOURCE_CHARS,
    LineProblem,
    UserTextError,
    clean_user_text,
    decode_utf8,
    read_lines,
)
from .checks import check_out, report

CHUNK = 64  # pairs per verify_many call (the progress bar moves per chunk)


def register(sub) -> None:
    p = sub.add_parser("verify", help="Check whether a source supports, contradicts or does not support a claim.")
    p.add_argument("claim", nargs="?", help="The claim (one sentence).")
    p.add_argument("--source", action="append", default=[], metavar="TEXT",
                   help="The source text (a whole abstract is fine); repeat it to pass a list of sentences.")
    p.add_argument("--batch", type=Path, help='PAIRS.jsonl with {"id", "claim", "source"} per line.')
    p.add_argument("--out", type=Path, help="RESULTS.jsonl for --batch.")
    p.set_defaults(handler=cmd_verify)


def _text(value: object, what: str, limit: int, allow_empty: bool = False) -> str:
    try:
        return clean_user_text(value, what=what, max_chars=limit, allow_empty=allow_empty)
    except UserTextError as e:
        raise ValueError(e.message[:1].lower() + e.message[1:].rstrip(".")) from None


def parse_line(line: str | bytes) -> tuple[object, str, object]:
    """(id, claim, source) of one input line; ValueError with a readable reason otherwise."""
    if isinstance(line, bytes):
        try:
            line = decode_utf8(line)
        except UserTextError as e:
            raise ValueError(e.message[:1].lower() + e.message[1:].rstrip(".")) from None
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
        ok = (isinstance(src, list) and bool(src) and all(isinstance(s, str) for s in src)
              and any(s.strip() for s in src))
    if not ok:
        raise ValueError('"source" must be a non-empty string or a non-empty list of sentence strings')
    claim = _text(d["claim"], "claim", MAX_QUESTION_CHARS)
    if isinstance(src, str):
        src = _text(src, "source", MAX_SOURCE_CHARS)
    else:
        src = [t for t in (_text(x, "source sentence", MAX_SOURCE_CHARS, allow_empty=True) for x in src) if t]
    return d["id"], claim, src


def cmd_verify(args, ctx) -> int:
    from ..verify import get_verifier

    if args.batch:
        if not args.out:
            raise ConfigError("--batch needs --out RESULTS.jsonl.",
                              hint="paperchat verify --batch pairs.jsonl --out r.jsonl")
        check_out(args.out)  # before the verifier loads
        pairs = _read_pairs(args.batch)
        return _batch(get_verifier(ctx.settings.verify), args, *pairs)
    if not args.claim or not args.claim.strip():
        raise ConfigError("No claim given.",
                          hint='paperchat verify "CLAIM" --source "TEXT", or --batch PAIRS.jsonl --out R.jsonl')
    if not args.source or not any(s.strip() for s in args.source):
        raise ConfigError("No source given.", hint='Add --source "TEXT" (repeat it for a list of sentences).')
    claim = clean_user_text(args.claim, what="claim", max_chars=MAX_QUESTION_CHARS)
    sources = [clean_user_text(s, what="source", max_chars=MAX_SOURCE_CHARS, allow_empty=True) for s in args.source]
    sources = [s for s in sources if s]
    source = sources[0] if len(sources) == 1 else sources
    print(json.dumps(get_verifier(ctx.settings.verify).verify(claim, source).to_dict(), ensure_ascii=False))
    return 0


def _read_pairs(path: Path) -> tuple[list[tuple[object, str, object]], list[str], list[str]]:
    """(good pairs, problems, warnings) of a PAIRS.jsonl, one line at a time (a bad line is named, skipped)."""
    def parse(raw: bytes, n: int) -> tuple[object, str, object]:
        try:
            return parse_line(raw)
        except ValueError as e:
            raise LineProblem(str(e)) from None

    lines = read_lines(path, parse, lambda pair: pair[0], "Pass a UTF-8 JSONL file of {id, claim, source}.")
    problems = [f"{path} line {n}: {why}; skipped." for n, why, _ in lines.problems]
    warnings = [f"{path} line {n}: duplicate id {k!r} (first on line {first}); both are verified and written, give "
                "every pair its own id." for n, k, first in lines.duplicates]
    return lines.good, problems, warnings


def _batch(verifier, args, good: list, problems: list[str], warnings: list[str]) -> int:
    from tqdm import tqdm

    report(problems, "error")
    report(warnings, "warning")
    tmp = args.out.with_name(args.out.name + ".part")
    try:
        with (open(tmp, "w", encoding="utf-8") as out,
              tqdm(total=len(good), unit="pair", file=sys.stderr, desc="verify") as bar):
            for lo in range(0, len(good), CHUNK):
                chunk = good[lo : lo + CHUNK]
                for (pid, _, _), v in zip(chunk, verifier.verify_many([(c, s) for _, c, s in chunk])):
                    out.write(json.dumps({"id": pid, **v.to_dict()}, ensure_ascii=False) + "\n")
                bar.update(len(chunk))
        os.replace(tmp, args.out)
    finally:
        tmp.unlink(missing_ok=True)
    bad = len(problems)
    print(f"{len(good)} verdicts -> {args.out}" + (f"; {bad} bad line(s) skipped (see above)" if bad else ""))
    return 1 if bad else 0
