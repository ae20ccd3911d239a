"""The interface every answer writer implements, and what writers share: the context of one answer
(chat model or none, scorer, settings, stop event) and streaming generation.

A writer is a generator: it yields `Status`/`Token` events while it works and returns a `Draft`.
With `ctx.chat is None` (the `extractive` setting) writers compose from evidence only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Protocol

from ...settings import AnswerSettings
from ...verify import VerifierUnavailableError
from ..citations import SourceIndex, Verified, verify
from ..events import Event, Token
from ..models import ChatModel, IncompleteGeneration
from ..prose import Rewriter
from ..state import Draft, Prepared
from ..support import SupportScorer


@dataclass
class Context:
    chat: ChatModel | None  # None: compose answers from evidence only
    scorer: SupportScorer
    settings: AnswerSettings
    stop: threading.Event | None = None
    checker: Callable | None = None  # claim verifier: [(claim, abstract)] -> verdicts (assistant/verify)
    rewriter: Rewriter | None = None  # abstract sentences as prose, each rewrite verified (prose.py)

    def rw(self) -> Rewriter:
        return self.rewriter or Rewriter()


def check(ctx: Context, raw: str, sources: list, draft: Draft) -> Verified:
    """Verify model-written text against its sources: similarity, then the claim verifier; if the verifier
    cannot be loaded, similarity alone, and the answer's notes say so."""
    try:
        v = verify(raw, SourceIndex(sources), ctx.scorer, ctx.settings.support_threshold, ctx.checker)
    except VerifierUnavailableError as e:
        draft.notes.append(f"The claim verifier is unavailable ({e.message}); "
                           "sentences were checked by similarity only.")
        v = verify(raw, SourceIndex(sources), ctx.scorer, ctx.settings.support_threshold)
    draft.notes += v.notes
    draft.unsupported += v.unsupported
    return v


class Writer(Protocol):
    def write(self, prep: Prepared, ctx: Context) -> Generator[Event, None, Draft]: ...


def generate(ctx: Context, messages, prep: Prepared, draft: Draft) -> Generator[Event, None, str]:
    """Stream the model's reply as Token events; return the whole text (partial on a cut stream)."""
    pieces: list[str] = []
    t = time.perf_counter()
    s = ctx.settings
    try:
        for piece in ctx.chat.stream(messages, max_new_tokens=s.max_new_tokens, temperature=s.temperature,
                                     stop=ctx.stop):
            if not pieces:
                prep.timings["first_token_s"] = prep.timings.get("retrieval_s", 0) + (time.perf_counter() - t)
            pieces.append(piece)
            yield Token(piece)
    except IncompleteGeneration as e:
        pieces = [e.partial]
        draft.incomplete = True
        draft.notes.append(f"The answer is incomplete: {e.message}")
    if ctx.stop is not None and ctx.stop.is_set():
        draft.incomplete = True
        draft.notes.append("Generation was stopped.")
    return "".join(pieces)
