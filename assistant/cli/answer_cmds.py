"""CLI: ask (one question, or a batch with one model load) and chat (terminal, streaming)."""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import replace
from pathlib import Path

from ..errors import ConfigError
from ..user_text import UserTextError, clean_user_text
from .checks import check_out, k_arg, report
from .index_cmds import _filter_args, filters_from


def register(sub) -> None:
    p = sub.add_parser("ask", help="Answer a question from the abstracts, with verified citations.")
    p.add_argument("question", nargs="?", help="The question.")
    p.add_argument("--history", action="append", default=[], metavar="EARLIER_TURN",
                   help="An earlier user turn of the conversation (repeatable, oldest first).")
    p.add_argument("--json", action="store_true", help="Print the answer record as JSON (its 'trace' says why).")
    p.add_argument("--explain", action="store_true",
                   help="Also print the decision trace: each rule checked, its verdict and inputs (docs/decisions.md).")
    p.add_argument("--batch", type=Path, help="QUESTIONS.jsonl (id, question, optional history).")
    p.add_argument("--out", type=Path, help="RESULTS.jsonl for --batch.")
    p.add_argument("--model", help="Chat model for this run (local, extractive, openai, hf:/dir, fake).")
    p.add_argument("--k", type=k_arg, help="Papers retrieved (1-100).")
    _filter_args(p)
    p.add_argument("--no-question-filters", action="store_true",
                   help="Do not turn years, authors, categories or venues stated in the question into filters.")
    p.set_defaults(handler=cmd_ask)

    p = sub.add_parser("chat", help="Chat in the terminal (streaming; /new starts over, /quit leaves).")
    p.add_argument("--model", help="Chat model (local, extractive, openai, hf:/dir).")
    p.set_defaults(handler=cmd_chat)


def _assistant(ctx, model: str | None):
    from ..answer.assistant import Assistant

    settings = ctx.settings
    if model:
        settings = settings.with_overrides({"answer.model": model})
    return Assistant(settings, index=ctx.index())


def filters_line(answer) -> str:
    """ 'filters applied: year >= 2025 · author Chen (from the question: "from 2025 on", "by Chen"; ...)' or ""."""
    from ..retrieve.query_filters import summary

    f = answer.filters or {}
    text = summary(f.get("applied") or {})
    if not text:
        return ""
    said = ", ".join(f'"{s["text"].strip()}"' for s in f.get("from_question") or [])
    return "filters applied: " + text + (f" (from the question: {said}; --no-question-filters to drop)" if said else "")


def render_text(answer) -> str:
    lines = [answer.answer]
    if answer.standalone_query and answer.standalone_query != answer.question:
        lines.append(f"\n(searched for: {answer.standalone_query})")
    if filters_line(answer):
        lines.append(filters_line(answer))
    if answer.citations:
        lines.append("\nSources:")
        for c in answer.citations:
            lines.append(f"  [{c.marker}] {'untitled: ' if c.label_derived else ''}{c.title} ({c.paper_id})")
            for s in c.sentences[:2]:
                lines.append(f"      > {s}")
    for n in answer.notes:
        lines.append(f"note: {n}")
    if answer.incomplete:
        lines.append("note: the answer is incomplete.")
    return "\n".join(lines)


def render_trace(answer) -> str:
    """The decision trace, one rule per line, the deciding one marked:

        why: evidence.weak -> abstain: best evidence 0.08 < threshold 0.30
          - name.unconfirmed  pass  ...
    """
    decisive = answer.deciding_step
    if decisive is None:
        return "why: no rule was checked."
    verdict = "abstained" if answer.abstained else "answered" if decisive.verdict == "pass" else decisive.verdict
    lines = [f"why: {verdict} by rule {decisive.rule}" + (f" ({decisive.detail})" if decisive.detail else "")]
    for step in answer.trace:
        mark = "*" if step is decisive else "-"
        lines.append(f"  {mark} {step.rule:<24} {step.verdict:<9} {step.detail}")
    return "\n".join(lines)


def cmd_ask(args, ctx) -> int:
    limit = ctx.settings.ui.max_question_chars
    if args.batch:
        if not args.out:
            raise ConfigError("--batch needs --out RESULTS.jsonl.", hint="paperchat ask --batch q.jsonl --out r.jsonl")
        check_out(args.out)  # before any model is loaded or question answered
    elif not args.question or not args.question.strip():
        raise ConfigError("No question given.", hint='paperchat ask "How much does Prune&Comp reduce perplexity?"')
    else:
        args.question = clean_user_text(args.question, max_chars=limit)
        args.history = [clean_user_text(h, what="--history turn", max_chars=limit) for h in args.history]
    a = _assistant(ctx, args.model)
    filters = filters_from(args)
    if args.no_question_filters:
        filters = replace(filters, ignore_from_question=frozenset({"all"}))
    if args.batch:
        return _batch(a, args, filters, limit)
    answer = a.ask(args.question, history=args.history, filters=filters, k=args.k)
    print(json.dumps(answer.to_json(), ensure_ascii=False, indent=2) if args.json else render_text(answer))
    if args.explain and not args.json:
        print("\n" + render_trace(answer))
    return 0


def _batch(a, args, filters, limit: int) -> int:
    """Answer every good line of the batch; a bad line is reported (with its number) and skipped."""
    from tqdm import tqdm

    from ..questions import batch_messages, read_question_file

    qf = read_question_file(args.batch, max_chars=limit)
    problems, warnings = batch_messages(args.batch, qf)
    report(problems, "error")
    report(warnings, "warning")
    with open(args.out, "w", encoding="utf-8") as out:
        for q in tqdm(qf.questions, unit="question", file=sys.stderr, desc="ask"):
            ans = a.ask(q["question"], history=q.get("history") or None, filters=filters, k=args.k, id=str(q["id"]))
            out.write(json.dumps({**q, **ans.to_json()}, ensure_ascii=False) + "\n")
            out.flush()
    bad = len(qf.problems)
    print(f"{len(qf.questions)} answers -> {args.out}" + (f"; {bad} bad line(s) skipped (see above)" if bad else ""))
    return 1 if bad else 0


def cmd_chat(args, ctx) -> int:
    from ..answer.conversation import Conversation
    from ..answer.events import Done, Status, Token

    a = _assistant(ctx, args.model)
    conv = Conversation()
    print("paperchat: ask about the indexed abstracts. /new starts over, /quit leaves. Ctrl-C stops an answer.")
    while True:
        try:
            q = input("\nyou> ").strip()
        except EOFError:
            return 0
        if q in ("/quit", "/exit"):
            return 0
        if q == "/new":
            conv.clear()
            print("(new conversation)")
            continue
        if not q:
            continue
        try:
            q = clean_user_text(q, max_chars=a.settings.ui.max_question_chars)
        except UserTextError as e:  # one bad line is not the end of the conversation
            print(f"error: {e.message}\nhint: {e.hint}")
            continue
        stop = threading.Event()
        try:
            for ev in a.stream(q, conv, stop=stop):
                if isinstance(ev, Status) and ev.stage == "generating":
                    print("draft> ", end="", flush=True)
                elif isinstance(ev, Status) and ev.stage == "verifying":
                    print("\n(verifying: checking each sentence against the abstract it cites...)", flush=True)
                elif isinstance(ev, Token):
                    print(ev.text, end="", flush=True)
                elif isinstance(ev, Done):
                    print("\n\npaperchat> " + render_text(ev.answer))
        except KeyboardInterrupt:
            stop.set()
            print("\n(stopped)")
